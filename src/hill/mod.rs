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
//! - [`run`]: the loop that keeps the queue filled, plays it with the tournament's runner,
//!   rates each game once, and refits off the games' path.
//! - [`board`]: the hill's leaderboard and status.
//! - [`records`]: what the hill's web pages read beyond the leaderboard (the last games with
//!   why each was chosen, each bot's record, the stamp their live updates compare).
//! - [`authors`]: the strangers who may send bots, their tokens, and whose each bot name is.
//! - [`submissions`]: an author's upload, from its archive to an active version (checked at
//!   the door, then built and validated in turn by the builder beside `hill run`).
//! - [`cli`]: `koth hill create|add|run|status|retire|resume-bot|author|submit`, the thin door
//!   onto it.
//!
//! The core knows nothing of HTTP or the command line. A hill folder holds `hill.toml` (the
//! file it was created from), `results.sqlite` (a tournament's tables, its bots being the
//! versions, and the hill's), `versions/<digest>/` (each version's folder, never the author's
//! in place), `validation/<digest>/` (each validation game), `games/<index>/`, `tournament.log` and
//! `koth.lock`, and `submissions/` (uploads waiting to be built, by id).

pub(crate) mod authors;
pub mod board;
pub mod cli;
pub(crate) mod config;
pub mod fit;
pub mod matchmaking;
pub(crate) mod records;
pub(crate) mod run;
pub(crate) mod store;
pub(crate) mod submissions;
pub(crate) mod submit;
pub(crate) mod versions;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::tournament::store::{self as tstore, Store};
use config::HillConfig;

/// The copy of the hill file kept in the hill folder.
pub(crate) const FILE_COPY: &str = "hill.toml";
/// The meta key that marks a database as a hill's.
const HILL_META: &str = "hill";

/// A hill opened from its folder.
pub(crate) struct Hill {
    pub dir: PathBuf,
    pub name: String,
    pub seed: u64,
    pub config: HillConfig,
    pub store: Store,
}

impl Hill {
    /// Creates a hill from hill file `file` in folder `dir` (default `logs/hill-<name>-<secs>`).
    pub(crate) fn create(file: &Path, dir: Option<PathBuf>) -> anyhow::Result<Hill> {
        let config = HillConfig::load(file)?;
        if config.game.sandbox().is_some() {
            crate::bot::sandbox::check_available()?;
        }
        let name = config.game.name(file)?;
        let name = name.strip_prefix("hill-").unwrap_or(&name).to_string();
        let seed = crate::seed::choose(config.game.seed);
        let dir = dir
            .unwrap_or_else(|| crate::logs::default_folder(|secs| format!("hill-{name}-{secs}")));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create the hill folder {}", dir.display()))?;
        let db = dir.join(tstore::FILE);
        if db.exists() {
            bail!("{} already holds a hill or a tournament", dir.display());
        }
        std::fs::copy(file, dir.join(FILE_COPY))
            .with_context(|| format!("cannot copy {} into {}", file.display(), dir.display()))?;
        let meta = [
            ("name", name.clone()),
            ("game", config.game.game.clone()),
            ("seed", seed.to_string()),
            (
                "sandbox",
                if config.game.sandbox().is_some() {
                    "on"
                } else {
                    "off"
                }
                .into(),
            ),
            (HILL_META, "1".into()),
        ];
        // Written whole under another name and renamed (`Store::create`): a hill folder either
        // has its database or does not.
        let store = Store::create(&db, &meta, &[], &[])?;
        store::create_tables(store.connection())?;
        submissions::create_tables(store.connection())?;
        Ok(Hill {
            dir,
            name,
            seed,
            config,
            store,
        })
    }

    /// Opens the hill in folder `dir`, to change it or to read it.
    pub(crate) fn open(dir: &Path) -> anyhow::Result<Hill> {
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
        store::create_tables(store.connection())?;
        submissions::create_tables(store.connection())?;
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

    /// The seed of game number `index`: from the hill's seed and the number alone, so any
    /// game can be played again.
    pub(crate) fn game_seed(&self, index: u32) -> u64 {
        game_seed(self.seed, index)
    }
}

/// The seed of game `index` of a hill of seed `seed`.
pub(crate) fn game_seed(seed: u64, index: u32) -> u64 {
    use rand::Rng;
    crate::seed::rng(seed, 1 + u64::from(index)).next_u64()
}

/// Whether a tournament database is a hill's.
pub(crate) fn is_hill(store: &Store) -> anyhow::Result<bool> {
    Ok(store.meta(HILL_META)?.is_some())
}

/// Whether `dir` is a hill whose bots' stderr only their authors may read (its hill file does
/// not set `submissions.public_logs`).
pub fn logs_are_private(dir: &Path) -> anyhow::Result<bool> {
    if !is_hill_folder(dir) {
        return Ok(false);
    }
    let config = HillConfig::load(&dir.join(FILE_COPY))?;
    Ok(!config.submissions.public_logs)
}

/// Whether folder `dir` holds a hill.
/// (Without the integrity check, which reads the whole file: a hill's leaderboard must not cost
/// its number of games; a damaged file fails on its first read instead.)
pub fn is_hill_folder(dir: &Path) -> bool {
    Store::reopen_read_only(&dir.join(tstore::FILE))
        .and_then(|s| is_hill(&s))
        .unwrap_or(false)
}
