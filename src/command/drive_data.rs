//! `koth replay --drive` of a learning bot: the bot starts from the data it had when the game
//! was played, so that a game of a bot that learns is driven exactly. Here in the command, above
//! the tournament's store it reads, so that `replay/` stays below the games.
//!
//! A tournament's or hill's game folder names the snapshot each learning bot started from
//! (`data.json`, [`koth_tournament::play::STARTED_DATA`]); the snapshot itself is kept by digest in
//! the tournament's or hill's database (`results.sqlite`, two folders up, or the PostgreSQL
//! database a game was copied out of by `koth replay --db`), while the pruning rule of
//! [`koth_tournament::store::data`] keeps it. The driven bot runs in a working copy of
//! its folder (under the log folder's `drive/`), never in its own folder, whose `data/` is left
//! alone.

use std::path::Path;

use anyhow::{Context, bail};

use koth_bot::data::{DATA_FOLDER, DataCap};
use koth_bot::{BotSpec, roster};
use koth_tournament::play::STARTED_DATA;
use koth_tournament::store::{FILE, Store};

/// The most a snapshot unpacks to here, in MiB.
const REPLAY_CAP_MB: u64 = 1024;

/// `spec` ready to be driven with the transcript of `recorded` (the bot's name in the game) in
/// the log folder `log_dir`: for a learning bot, a working copy whose `data/` holds the snapshot
/// the bot started the game from, read from `shared` (a game copied out of a PostgreSQL
/// database, `koth replay --db`) or else from the database of the folder the game is in; any
/// other bot as it is.
pub(crate) fn with_data(
    spec: BotSpec,
    log_dir: &Path,
    recorded: &str,
    shared: Option<&Store>,
) -> anyhow::Result<BotSpec> {
    let Some(ask) = spec.data else {
        return Ok(spec);
    };
    let named = log_dir.join(STARTED_DATA);
    let text = std::fs::read_to_string(&named).with_context(|| {
        format!(
            "{spec} keeps data, but {} names no data its game started from (a game played \
             before koth kept bots' data, or not in a tournament or hill)",
            named.display()
        )
    })?;
    let started: Vec<serde_json::Value> =
        serde_json::from_str(&text).with_context(|| format!("{} is damaged", named.display()))?;
    let Some(digest) = started
        .iter()
        .find(|entry| entry["bot"].as_str() == Some(recorded))
        .and_then(|entry| entry["digest"].as_str())
    else {
        bail!(
            "{} names no data of \"{recorded}\": it did not keep data in that game",
            named.display()
        );
    };
    let in_folder;
    let store = match shared {
        Some(store) => store,
        None => {
            let database = log_dir
                .parent()
                .and_then(Path::parent)
                .map(|folder| folder.join(FILE))
                .filter(|path| path.is_file())
                .with_context(|| {
                    format!(
                        "the data \"{recorded}\" started from is kept in its tournament's or \
                         hill's database, and {} is not in such a folder (games/<N>/ beside \
                         {FILE}; a game of a shared database: koth replay --db URL NAME GAME)",
                        log_dir.display()
                    )
                })?;
            in_folder = Store::open_read_only(&database)?;
            &in_folder
        }
    };
    let Some(tar_gz) = store.snapshot(digest)? else {
        bail!(
            "the data \"{recorded}\" started that game from ({digest}) is no longer kept in {}: \
             only the snapshots of each bot's last {} games are",
            store.location(),
            koth_tournament::store::data::KEPT_GAMES
        );
    };
    // Contained, it already runs in a working copy; else it gets one here.
    let spec = if spec.sandbox.is_some() {
        spec
    } else {
        roster::working_copies(std::slice::from_ref(&spec), &log_dir.join("drive"))?.remove(0)
    };
    // The snapshot was held to the game's cap when it was taken; this cap only bounds reading.
    let cap = DataCap::of_mb(ask.mb.unwrap_or(0).max(REPLAY_CAP_MB));
    koth_bot::data::put(
        &tar_gz,
        &spec.dir.join(DATA_FOLDER),
        cap,
        koth_bot::data::Placement::Folder,
    )?;
    println!(
        "starting it from the data it started that game from ({})",
        &digest[..12.min(digest.len())]
    );
    Ok(spec)
}
