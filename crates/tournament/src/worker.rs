//! `koth worker`: one of many processes, on any number of machines, that play the tournaments
//! of a shared PostgreSQL database.
//!
//! A worker goes through the database's tournaments oldest first and plays every game it can
//! claim (see [`Store::claim`]); each claim is a lease that it keeps renewing while it plays
//! (`runner::run`), so a worker killed with `kill -9`, or whose machine vanishes, gives
//! its games back to the queue once its leases run out, and another worker plays them. A worker
//! does all of this on one connection to the database ([`Database`]). It stops when no game it could play
//! is left — none queued and none held by another worker — or, with `--wait`, waits for new
//! tournaments.
//!
//! A database may hold hills too (`koth_hill`): a worker plays their games as well, joined
//! through the [`JoinOther`] that `main.rs` hands it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::Tournament;
use super::shared::{DEFAULT_LEASE_S, POLL};
use super::store::{self, Claimant, Database, Store};

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
        .unwrap_or_else(|| koth_base::logs::default_folder(|secs| format!("worker-{secs}")));
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
