//! `koth worker`: one of many processes, on any number of machines, that play the tournaments
//! of a shared PostgreSQL database.
//!
//! A worker goes through the database's tournaments oldest first and plays every game it can
//! claim (see [`Store::claim`]); each claim is a lease that it keeps renewing while it plays
//! (`Tournament::play_all`), so a worker killed with `kill -9`, or whose machine vanishes, gives
//! its games back to the queue once its leases run out, and another worker plays them. A worker
//! does all of this on one connection to the database ([`Database`]). It stops when no game it could play
//! is left — none queued and none held by another worker — or, with `--wait`, waits for new
//! tournaments.
//!
//! A database may hold hills too (`koth_hill`): a worker plays their games as well, joined
//! through the [`JoinOther`] that `main.rs` hands it.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

use super::Tournament;
use super::config::Config;
use super::store::{self, Claimant, Database, Store};
use koth_bot::BotSpec;

/// How long a claim lasts unless renewed, unless `--lease-s` says otherwise: a dead worker's
/// games are back in the queue this long after its last renewal.
pub const DEFAULT_LEASE_S: u64 = 30;
/// How often a worker with nothing to claim looks at the queue again (one small query): often
/// enough that the last worker waiting on another's game leaves soon after it ends.
pub(crate) const POLL: Duration = Duration::from_millis(250);

/// `koth worker --db URL [--jobs N] [--root DIR] [--dir DIR] [--wait] [--lease-s S]`
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The PostgreSQL database the tournaments were submitted to
    /// (postgres://user@host:port/database).
    #[arg(long, value_name = "URL")]
    db: String,
    /// Games at once [default: each tournament's `jobs`].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    jobs: Option<u32>,
    /// Where this machine's copy of the bots is: the folder that held the tournament file when
    /// it was submitted (bot folders are stored relative to it). A hill's versions come from
    /// the database instead.
    #[arg(long, value_name = "DIR", default_value = ".")]
    root: PathBuf,
    /// Where this worker builds its bots and plays its games
    /// [default: logs/worker-<unix seconds>].
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Keep waiting for new tournaments when none is left to play.
    #[arg(long)]
    wait: bool,
    /// How long a claimed game stays this worker's without a renewal (renewed every third of
    /// it); a dead worker's games go back to the queue after this long.
    #[arg(long, value_name = "S", default_value_t = DEFAULT_LEASE_S,
          value_parser = clap::value_parser!(u64).range(3..=3600))]
    lease_s: u64,
}

/// What a worker plays in a database: a tournament, or another kind of entry of its registry
/// (a hill).
pub trait Playing {
    /// Plays the games this worker can claim until there are none; returns how many are still
    /// to play or being played by others.
    fn play_claimable(&mut self) -> anyhow::Result<u32>;
    /// The master seed, for the worker's message when it joins.
    fn seed(&self) -> u64;
}

impl Playing for Tournament {
    fn play_claimable(&mut self) -> anyhow::Result<u32> {
        Tournament::play_claimable(self)
    }

    fn seed(&self) -> u64 {
        self.seed
    }
}

/// How a worker joins an entry of the database that is not a tournament (a hill): given the
/// entry's store, this worker's folder for it, who it is and `--jobs`, the entry joined, or the
/// store back if it is a tournament. Handed in by `main.rs`, since the hill sits above the
/// tournament.
pub type JoinOther =
    fn(Store, &Path, &Claimant, Option<usize>) -> anyhow::Result<Result<Box<dyn Playing>, Store>>;

pub fn run(args: Args, join_other: JoinOther) -> anyhow::Result<()> {
    let work = args
        .dir
        .unwrap_or_else(|| koth_bot::logs::default_folder(|secs| format!("worker-{secs}")));
    std::fs::create_dir_all(&work)
        .with_context(|| format!("cannot create the worker's folder {}", work.display()))?;
    anyhow::ensure!(
        args.root.is_dir(),
        "--root {}: no such folder",
        args.root.display()
    );
    super::cli::log_to(&work)?;
    let claimant = Claimant::new(args.lease_s);
    println!(
        "Worker {} playing the tournaments of {} in {}",
        claimant.worker,
        store::shown(&args.db),
        work.display()
    );
    let database = Database::connect(&args.db)?;
    // Each tournament is joined once — its bots checked and built — and kept.
    let mut joined: HashMap<String, Box<dyn Playing>> = HashMap::new();
    loop {
        let mut elsewhere = 0;
        for name in database.tournaments()? {
            let tournament = match joined.entry(name.clone()) {
                std::collections::hash_map::Entry::Occupied(entry) => entry.into_mut(),
                std::collections::hash_map::Entry::Vacant(entry) => {
                    let store = database.open(&name)?;
                    if store.unplayed(&[])? == 0 {
                        continue;
                    }
                    let folder = work.join(folder_name(&name));
                    let jobs = args.jobs.map(|j| j as usize);
                    let playing = match join_other(store, &folder, &claimant, jobs)? {
                        Ok(other) => {
                            println!("Joined hill {name} (seed {})", other.seed());
                            other
                        }
                        Err(store) => {
                            let mut tournament =
                                Tournament::join(store, &args.root, &folder, jobs)?;
                            tournament.claimant = claimant.clone();
                            println!("Joined tournament {name} (seed {})", tournament.seed);
                            Box::new(tournament)
                        }
                    };
                    entry.insert(playing)
                }
            };
            elsewhere += tournament.play_claimable()?;
        }
        if elsewhere == 0 && !args.wait {
            println!("No game left to play.");
            return Ok(());
        }
        std::thread::sleep(POLL);
    }
}

/// A folder name for tournament `name` (names are plain folder names when a file gives them;
/// anything else is replaced).
fn folder_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The bot `bot` (its folder stored relative to the tournament file's) as this worker plays
/// it: its folder under `root`, checked against the content hash submitted, copied to `copy`
/// and built there, so the folder under `root` stays as submitted. Returns the copy.
pub(crate) fn prepare_copy(
    bot: &BotSpec,
    root: &Path,
    copy: &Path,
    hash: Option<&str>,
    config: &Config,
) -> anyhow::Result<PathBuf> {
    let source = root.join(&bot.dir);
    anyhow::ensure!(
        source.is_dir(),
        "no folder {} (a worker finds bot folders under --root {}, laid out as they were beside \
         the tournament file)",
        source.display(),
        root.display()
    );
    let here = koth_bot::digest::digest(&BotSpec {
        dir: source.clone(),
        ..bot.clone()
    })?;
    if let Some(submitted) = hash {
        anyhow::ensure!(
            here == submitted,
            "its folder {} is not the one submitted (content hash {} here, {} submitted)",
            source.display(),
            &here[..12],
            &submitted[..submitted.len().min(12)]
        );
    }
    if copy.exists() {
        std::fs::remove_dir_all(copy)
            .with_context(|| format!("cannot clear {}", copy.display()))?;
    }
    koth_bot::build::copy_folder(&source, copy)
        .with_context(|| format!("cannot copy {} to {}", source.display(), copy.display()))?;
    let built = BotSpec {
        dir: copy.to_path_buf(),
        ..bot.clone()
    };
    let built = koth_bot::build::prepare(
        std::slice::from_ref(&built),
        config.build_limit(),
        config.sandbox().as_ref(),
    )?;
    Ok(built[0].dir.clone())
}

/// `path` relative to `base` (both absolute), through `..` where it lies outside.
pub(crate) fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let (path, base) = (lexical(path), lexical(base));
    let common = path.iter().zip(&base).take_while(|(a, b)| a == b).count();
    let mut relative: PathBuf = base[common..].iter().map(|_| "..").collect();
    relative.extend(&path[common..]);
    if relative.as_os_str().is_empty() {
        relative.push(".");
    }
    relative
}

/// The components of `path` with `.` and `name/..` taken out, as written (links are not
/// followed: a bot folder is named as the tournament file names it).
fn lexical(path: &Path) -> Vec<Component<'_>> {
    let mut parts: Vec<Component<'_>> = Vec::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir if matches!(parts.last(), Some(Component::Normal(_))) => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bot_folder_is_stored_relative_to_the_tournament_files_folder() {
        let rel = |p: &str, b: &str| relative_to(Path::new(p), Path::new(b));
        assert_eq!(
            rel("/r/config/../bots/x", "/r/config"),
            Path::new("../bots/x")
        );
        assert_eq!(rel("/r/bots/x", "/r"), Path::new("bots/x"));
        assert_eq!(rel("/r", "/r"), Path::new("."));
        assert_eq!(rel("/a/b", "/c/d"), Path::new("../../a/b"));
    }
}
