//! The hill: a king of the hill that never ends. Bots join at any time (`koth hill add`), each
//! new folder of a bot its next version; games are chosen one by one to shrink the uncertainty
//! that matters and played until the hill is stopped; ratings say how sure they are.
//!
//! - [`config`]: the hill file (a tournament file's game settings and the hill's own keys).
//! - [`versions`]: adding a bot: copied into the hill's store by content digest, built, and
//!   validated by one game before it is scheduled.
//! - [`matchmaking`]: which versions play the next game, and why (pure).
//! - [`fit`]: the order-independent ranking, Bradley–Terry with draws / Plackett–Luce (pure).
//! - [`store`]: the hill's tables beside a tournament's in the same database.
//! - [`run`]: the loop that plays the hill's games with the tournament's runner; as `hill run`
//!   it also keeps the queue filled and rates each game once.
//! - [`refit`]: the displayed ranking fitted again, off the games' path.
//! - [`contest`]: a contest's close, frozen field, final and published result.
//! - [`files`]: a shared hill's version folders, through its database by digest.
//! - [`worker`]: how `koth worker` joins a shared hill, to play only.
//! - [`board`]: the hill's leaderboard and status.
//! - [`records`]: what the hill's web pages read beyond the leaderboard (the last games with
//!   why each was chosen, each bot's record, the stamp their live updates compare).
//! - [`authors`]: the strangers who may send bots, their tokens, and whose each bot name is.
//! - [`submissions`]: an author's upload, from its archive to an active version (checked at
//!   the door, then built and validated in turn by the builder beside `hill run`).
//! - [`logs`]: a bot's stderr and transcript of every game, for its author alone; what
//!   everyone else reads in their place.
//! - [`backup`]: a hill folder's database copied while it plays, and put back.
//! - [`cli`]: `koth hill create|add|run|status|retire|resume-bot|author|submit|logs|backup|restore`,
//!   the thin door onto it.
//!
//! The core knows nothing of HTTP or the command line. A hill folder holds `hill.toml` (the
//! file it was created from), `results.sqlite` (a tournament's tables, its bots being the
//! versions, and the hill's), `versions/<digest>/` (each version's folder, never the author's
//! in place), `validation/<digest>/` (each validation game), `games/<index>/`, `tournament.log` and
//! `koth.lock`, and `submissions/` (uploads waiting to be built, by id).
//!
//! A shared hill lives in PostgreSQL, as a shared tournament does (listed with them, in a
//! schema of its own, its file in `meta`); each machine that adds to it or plays it has a
//! folder of its own for it, laid out as a hill folder but for the database and the file.

pub(crate) mod backup;
pub mod board;
pub mod cli;
pub mod config;
pub mod contest;
pub mod data;
pub(crate) mod files;
pub mod logs;
pub mod matchmaking;
pub(crate) mod refit;
pub(crate) mod run;
pub(crate) mod store;
pub use store::{authors, records};
pub mod submissions;
pub mod submit;
pub(crate) mod versions;

pub use versions::roll_back;
pub mod worker;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use config::HillConfig;
use koth_bot::BotSpec;
use koth_bot::languages::{self, Language};
use koth_tournament::store::{self as tstore, Store};

/// The copy of the hill file kept in the hill folder.
pub(crate) const FILE_COPY: &str = "hill.toml";
/// The meta key that marks a database as a hill's.
const HILL_META: &str = "hill";
/// The meta key of a shared hill's file, which every machine playing it reads.
const HILL_FILE_META: &str = "hill_file";

/// The languages the hill of `store` offers, with their versions, as its pages list them: its
/// file's ([`file_of`]) `languages`, else the common ones koth's `PATH` has.
pub fn languages_of(store: &Store, dir: &Path) -> anyhow::Result<Vec<Language>> {
    let config = file_of(store, dir)?;
    Ok(languages::with_versions(languages::offered(
        config.game.languages.as_deref(),
    )?))
}

/// The hill file of the hill of `store`, whose folder on this machine is `dir`: a shared hill's
/// is kept in its database (the only copy its machines have); a folder hill's is its folder's
/// `hill.toml` alone, whatever its database's `meta` holds, since a restored or edited database
/// is data and never the hill's settings (containment, `public_logs`, `languages`).
fn file_of(store: &Store, dir: &Path) -> anyhow::Result<HillConfig> {
    if !store.is_shared() {
        return HillConfig::load(&dir.join(FILE_COPY));
    }
    HillConfig::parse(
        &file_text(store, dir)?,
        Path::new(&format!("{}'s file", store.location())),
    )
}

/// The text of the hill file [`file_of`] reads.
fn file_text(store: &Store, dir: &Path) -> anyhow::Result<String> {
    if !store.is_shared() {
        return koth_base::text::read(&dir.join(FILE_COPY));
    }
    store
        .meta(HILL_FILE_META)?
        .with_context(|| format!("{} has no hill file", store.location()))
}

/// A hill opened from its folder.
pub struct Hill {
    pub dir: PathBuf,
    pub name: String,
    pub seed: u64,
    pub config: HillConfig,
    pub store: Store,
}

/// A hill as its file and a master seed make it, before it is stored.
struct HillPlan {
    config: HillConfig,
    name: String,
    seed: u64,
}

impl HillPlan {
    fn new(file: &Path) -> anyhow::Result<HillPlan> {
        let config = HillConfig::load(file)?;
        if config.game.sandbox().is_some() {
            koth_bot::sandbox::check_available()?;
        }
        let name = config.game.name(file)?;
        let name = name.strip_prefix("hill-").unwrap_or(&name).to_string();
        let seed = koth_game::seed::choose(config.game.seed);
        Ok(HillPlan { config, name, seed })
    }

    /// The meta keys of its database.
    fn meta(&self) -> Vec<(&'static str, String)> {
        vec![
            ("name", self.name.clone()),
            ("game", self.config.game.game.clone()),
            ("seed", self.seed.to_string()),
            (
                "sandbox",
                if self.config.game.sandbox().is_some() {
                    "on"
                } else {
                    "off"
                }
                .into(),
            ),
            (HILL_META, "1".into()),
        ]
    }
}

impl Hill {
    /// Creates a hill from hill file `file` in folder `dir` (default `logs/hill-<name>-<secs>`).
    pub(crate) fn create(file: &Path, dir: Option<PathBuf>) -> anyhow::Result<Hill> {
        let plan = HillPlan::new(file)?;
        let (name, seed) = (plan.name.clone(), plan.seed);
        let dir = dir.unwrap_or_else(|| {
            koth_base::logs::default_folder(|secs| format!("hill-{name}-{secs}"))
        });
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create the hill folder {}", dir.display()))?;
        let db = dir.join(tstore::FILE);
        if db.exists() {
            bail!("{} already holds a hill or a tournament", dir.display());
        }
        std::fs::copy(file, dir.join(FILE_COPY))
            .with_context(|| format!("cannot copy {} into {}", file.display(), dir.display()))?;
        // Written whole under another name and renamed (`Store::create`): a hill folder either
        // has its database or does not.
        let store = Store::create(&db, &plan.meta(), &[], &[])?;
        store::create_tables(&store)?;
        submissions::create_tables(&store)?;
        Ok(Hill {
            dir,
            name,
            seed,
            config: plan.config,
            store,
        })
    }

    /// Creates a hill from hill file `file` in the PostgreSQL database at `url`, for `hill run`
    /// and workers on any machine: listed with the database's tournaments, in a schema of its
    /// own, and named as one is (the file's name, or `name-2`… if the database has that name
    /// already). Its file is kept in the database (`hill_file`), as a tournament's is.
    pub(crate) fn create_shared(file: &Path, url: &str) -> anyhow::Result<Hill> {
        let plan = HillPlan::new(file)?;
        let mut meta = plan.meta();
        meta.push((HILL_FILE_META, koth_base::text::read(file)?));
        let store = Store::submit(url, &plan.name, &meta, &[], &[], &[])?;
        // Its own tables are made by every opening too: a create cut short here is made whole.
        store::create_tables(&store)?;
        submissions::create_tables(&store)?;
        let name = store.meta("name")?.unwrap_or_default();
        Ok(Hill {
            dir: local_folder(&name, None),
            name,
            seed: plan.seed,
            config: plan.config,
            store,
        })
    }

    /// Opens hill `name` of the PostgreSQL database at `url`, with `dir` as this machine's
    /// folder for it (default `logs/hill-<name>`).
    pub fn open_shared(url: &str, name: &str, dir: Option<PathBuf>) -> anyhow::Result<Hill> {
        let store = Store::open_postgres(url, name)?;
        if !is_hill(&store)? {
            bail!(
                "{} is a tournament, not a hill: `koth tournament status --db {} {name}` shows it",
                store.location(),
                tstore::shown(url)
            );
        }
        Hill::in_store(store, local_folder(name, dir))
    }

    /// The shared hill of `store`, with `dir` as this machine's folder for its versions and
    /// games (made by [`Hill::make_folder`] when something is to be written there).
    pub(crate) fn in_store(store: Store, dir: PathBuf) -> anyhow::Result<Hill> {
        store::create_tables(&store)?;
        submissions::create_tables(&store)?;
        let config = file_of(&store, &dir)?;
        let seed = store
            .meta("seed")?
            .and_then(|s| s.parse().ok())
            .context("the hill's database has no seed")?;
        Ok(Hill {
            dir,
            name: store.meta("name")?.unwrap_or_default(),
            seed,
            config,
            store,
        })
    }

    /// The folder of version `id`, `bot` (as the hill's `bots` table holds it, its folder
    /// relative to the hill's), of digest `digest`: in a shared hill, fetched from the database
    /// into this machine's folder the first time it is needed. A row whose folder is not the
    /// hill's `versions/<digest>/` is refused ([`versions::NotItsCopy`]) before anything is
    /// fetched or run.
    pub(crate) fn version_folder(
        &self,
        id: usize,
        bot: &BotSpec,
        digest: &str,
    ) -> anyhow::Result<PathBuf> {
        let folder = versions::folder_of(&self.dir, id, &bot.name, &bot.dir, digest)?;
        if self.store.is_shared() && !folder.is_dir() {
            files::fetch(&self.store, bot, digest, &folder)?;
        }
        Ok(folder)
    }

    /// Opens the hill in folder `dir`, to change it or to read it.
    pub fn open(dir: &Path) -> anyhow::Result<Hill> {
        let path = dir.join(tstore::FILE);
        tstore::check_exists(&path).map_err(|_| {
            anyhow::anyhow!(
                "{} is not a hill folder (no {})",
                dir.display(),
                tstore::FILE
            )
        })?;
        let store = Store::open(&path)?;
        if !is_hill(&store)? {
            bail!(
                "{} is a tournament folder, not a hill: `koth tournament status {}` shows it",
                dir.display(),
                dir.display()
            );
        }
        store::create_tables(&store)?;
        submissions::create_tables(&store)?;
        let config = HillConfig::load(&dir.join(FILE_COPY))?;
        let seed = store
            .meta("seed")?
            .and_then(|s| s.parse().ok())
            .context("the hill's database has no seed")?;
        Ok(Hill {
            dir: dir.to_path_buf(),
            name: store.meta("name")?.unwrap_or_default(),
            seed,
            config,
            store,
        })
    }

    /// The same hill on a connection of its own, for a thread beside the one using this.
    pub(crate) fn reopen(&self) -> anyhow::Result<Hill> {
        Ok(Hill {
            dir: self.dir.clone(),
            name: self.name.clone(),
            seed: self.seed,
            config: self.config.clone(),
            store: self.store.reconnect()?,
        })
    }

    /// Makes this machine's folder for the hill, if it is not there.
    pub(crate) fn make_folder(&self) -> anyhow::Result<()> {
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("cannot create the hill's folder {}", self.dir.display()))
    }

    /// The languages this hill offers its bots (its file's `languages`, else the common ones
    /// koth's `PATH` has), their versions not asked.
    pub(crate) fn languages(&self) -> anyhow::Result<Vec<Language>> {
        languages::offered(self.config.game.languages.as_deref())
    }

    /// How commands name this hill: `--hill DIR`, or `--db URL NAME` for a shared one.
    pub(crate) fn add_target(&self) -> String {
        match self.store.shared_name() {
            Some((url, name)) => format!("--db {url} {name}"),
            None => format!("--hill {}", self.dir.display()),
        }
    }

    /// The seed of game number `index`: from the hill's seed and the number alone, so any
    /// game can be played again.
    pub(crate) fn game_seed(&self, index: u32) -> u64 {
        game_seed(self.seed, index)
    }
}

/// This machine's folder for shared hill `name`: `dir` if given, else `logs/hill-<name>`, the
/// same for every command, so `hill add` and `hill run` on one machine share its versions.
fn local_folder(name: &str, dir: Option<PathBuf>) -> PathBuf {
    dir.unwrap_or_else(|| Path::new("logs").join(format!("hill-{name}")))
}

/// A game's faults are more than this share of a version's prompts in it (answers and faults)
/// when it could not play it ([`could_not_play`]).
const BROKEN_SHARE: f64 = 0.05;

/// Whether a version could not play a game, with these faults and answers in it: it failed to
/// start, or its faults were more than [`BROKEN_SHARE`] of its prompts — a bot that cannot play,
/// not one with a rare fault. Such a game refuses a version in its validation game and counts
/// towards its suspension; any other fault is recorded and shown, no more. The original
/// Connector crashes in about one round in a hundred of the Grid-Routing Battle (one of some
/// 1,400 prompts a game) and scores more than any bot but Funnelweb; counting every fault
/// refused it at validation now and then, and suspended it within 40 games (issue 37).
pub(crate) fn could_not_play(faults: &koth_bot::FaultCounts, answers: u64) -> bool {
    let counted = faults.timed_out + faults.crashed + faults.bad_output + faults.failed_to_start;
    faults.failed_to_start > 0 || counted as f64 > BROKEN_SHARE * (answers + counted) as f64
}

/// The seed of game `index` of a hill of seed `seed`.
pub(crate) fn game_seed(seed: u64, index: u32) -> u64 {
    use rand::Rng;
    koth_game::seed::rng(seed, 1 + u64::from(index)).next_u64()
}

/// Whether a tournament database is a hill's.
pub fn is_hill(store: &Store) -> anyhow::Result<bool> {
    Ok(store.meta(HILL_META)?.is_some())
}

/// Whether `store` is a hill whose bots' stderr only their authors may read: its hill file
/// ([`file_of`]: a folder hill's `hill.toml` in `folder`, a shared hill's in its database) does
/// not set `submissions.public_logs`.
pub fn logs_are_private(store: &Store, folder: &Path) -> anyhow::Result<bool> {
    if !is_hill(store)? {
        return Ok(false);
    }
    Ok(!file_of(store, folder)?.submissions.public_logs)
}

/// `name` of the PostgreSQL database at `url`, opened to read only, if it is a hill: the
/// store is kept for what reads it, as a connection's start is most of a quick read's time.
pub fn shared_hill(url: &str, name: &str) -> Option<Store> {
    Store::open_postgres_read_only(url, name)
        .ok()
        .filter(|store| is_hill(store).unwrap_or(false))
}

/// The store of the hill in folder `dir`, opened to read only; none if `dir` holds no hill.
/// `koth leaderboard DIR` reads the board from it, opening the file once.
/// (Without the integrity check, which reads the whole file: a hill's leaderboard must not cost
/// its number of games; a damaged file fails on its first read instead.)
pub fn hill_folder_store(dir: &Path) -> Option<Store> {
    Store::reopen_read_only(&dir.join(tstore::FILE))
        .ok()
        .filter(|store| is_hill(store).unwrap_or(false))
}
