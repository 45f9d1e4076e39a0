//! Learning bots' data in the store (schema version 8): each snapshot once by its digest, each
//! bot's data now, and what each game started from and left.
//!
//! A game's learning bots start from their data as the game is claimed ([`Store::data_of`]);
//! what a bot left becomes its data in the transaction of the game's result, only if the
//! result is accepted for its attempt, the bot committed no fault, and its data is still the
//! snapshot the game started from (so nothing is ever merged: a game played from older data
//! changes nothing). A `kill -9` at any moment thus loses at most the game in flight.
//!
//! **Pruning**: a snapshot is kept while it is a bot's data now, or the start of one of the
//! last [`KEPT_GAMES`] games of any learning bot that played from it; older games' snapshots are
//! removed as each result is recorded, so a hill's database grows with its bots, not its games.
//! `koth replay --drive` of a game whose snapshot was pruned says so.

use anyhow::Context;

use koth_bot::data::{Snapshot, empty_digest};

use super::Store;
use super::sql::{Connection, Value};

/// How many of its last games' starting snapshots each learning bot keeps.
pub const KEPT_GAMES: i64 = 50;

/// A learning bot's part in a game, from its start to its record.
#[derive(Debug, Clone)]
pub struct SeatData {
    pub seat: usize,
    pub bot: usize,
    /// The snapshot the game started it from.
    pub started: Snapshot,
    /// What it left, if that is to be kept; else why not.
    pub left: Result<Snapshot, String>,
}

/// What a game's learning bot started from and left, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameData {
    pub seat: usize,
    pub bot: usize,
    pub started: String,
    pub kept: Option<String>,
    pub note: Option<String>,
}

/// `bot`'s `data_mb` column: NULL for a bot that keeps no data, 0 for one taking the cap.
pub(super) fn data_mb(bot: &koth_bot::BotSpec) -> Option<i64> {
    bot.data.map(|ask| ask.mb.map_or(0, |mb| mb as i64))
}

impl Store {
    /// The data each learning bot of `bots` has now (an empty folder if it has none yet); `None`
    /// for a bot that keeps no data. One statement, and none for a game without learning bots.
    pub fn data_of(
        &self,
        bots: &[koth_bot::BotSpec],
        ids: &[usize],
    ) -> anyhow::Result<Vec<Option<Snapshot>>> {
        let mut out = Vec::with_capacity(ids.len());
        for (bot, &id) in bots.iter().zip(ids) {
            if bot.data.is_none() {
                out.push(None);
                continue;
            }
            let row = self.db.row(
                "SELECT s.digest, s.tgz, s.bytes, s.entries FROM bot_data d
                 JOIN data_snapshots s ON s.digest = d.digest WHERE d.bot = ?1",
                params![id],
            )?;
            out.push(Some(match row {
                None => Snapshot::empty(),
                Some(r) => Snapshot {
                    digest: r.text("digest")?,
                    tar_gz: r.bytes("tgz")?.to_vec(),
                    bytes: r.int("bytes")? as u64,
                    entries: r.int("entries")? as u64,
                },
            }));
        }
        Ok(out)
    }

    /// The digest of `bot`'s data now (that of an empty folder if it has none).
    pub fn data_digest(&self, bot: usize) -> anyhow::Result<String> {
        current(&*self.db, bot)
    }

    /// The snapshot of digest `digest`, gzip-compressed tar, if it is kept.
    pub fn snapshot(&self, digest: &str) -> anyhow::Result<Option<Vec<u8>>> {
        if digest == empty_digest() {
            return Ok(Some(Snapshot::empty().tar_gz));
        }
        self.db
            .row(
                "SELECT tgz FROM data_snapshots WHERE digest = ?1",
                params![digest],
            )?
            .map(|r| r.bytes("tgz").map(<[u8]>::to_vec))
            .transpose()
    }

    /// What the learning bots of game `game` started from and left.
    pub fn game_data(&self, game: u32) -> anyhow::Result<Vec<GameData>> {
        let rows = self.db.query(
            "SELECT seat, bot, started, kept, note FROM game_data WHERE game = ?1 ORDER BY seat",
            params![game],
        )?;
        rows.iter()
            .map(|r| {
                Ok(GameData {
                    seat: r.int("seat")? as usize,
                    bot: r.int("bot")? as usize,
                    started: r.text("started")?,
                    kept: r.opt_text("kept")?,
                    note: r.opt_text("note")?,
                })
            })
            .collect()
    }

    /// Empties `bot`'s data: its next game starts from an empty folder. Returns whether it had
    /// any.
    pub fn wipe_data(&self, bot: usize) -> anyhow::Result<bool> {
        Ok(self
            .db
            .execute("DELETE FROM bot_data WHERE bot = ?1", params![bot])?
            > 0)
    }
}

/// `bot`'s data now, in `db`.
fn current(db: &dyn Connection, bot: usize) -> anyhow::Result<String> {
    Ok(db
        .row("SELECT digest FROM bot_data WHERE bot = ?1", params![bot])?
        .map(|r| r.text("digest"))
        .transpose()?
        .unwrap_or_else(empty_digest))
}

/// Stores `snapshot` unless a snapshot of its digest is kept.
fn keep(db: &dyn Connection, snapshot: &Snapshot) -> anyhow::Result<()> {
    db.execute(
        "INSERT INTO data_snapshots (digest, bytes, entries, tgz) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (digest) DO NOTHING",
        params![
            snapshot.digest.as_str(),
            snapshot.bytes as i64,
            snapshot.entries as i64,
            snapshot.tar_gz.clone()
        ],
    )?;
    Ok(())
}

/// Gives `bot` the data `from` has now, in the caller's transaction (a hill's new version
/// starts from its previous version's).
pub fn inherit_data(db: &dyn Connection, bot: usize, from: usize) -> anyhow::Result<()> {
    set_current(db, bot, &current(db, from)?)
}

/// Makes `digest` `bot`'s data, in the caller's transaction.
pub(crate) fn set_current(db: &dyn Connection, bot: usize, digest: &str) -> anyhow::Result<()> {
    db.execute("DELETE FROM bot_data WHERE bot = ?1", params![bot])?;
    if digest != empty_digest() {
        db.execute(
            "INSERT INTO bot_data (bot, digest) VALUES (?1, ?2)",
            params![bot, digest],
        )?;
    }
    Ok(())
}

/// Records game `game`'s learning bots' data, in its result's transaction (the caller's): the
/// snapshots each started from and left, each left one made the bot's data if the bot's data is
/// still the one it started from; then prunes what no longer needs keeping.
pub(super) fn record(db: &dyn Connection, game: u32, seats: &[SeatData]) -> anyhow::Result<()> {
    for seat in seats {
        keep(db, &seat.started)?;
        let (kept, note) = match &seat.left {
            Ok(left) if current(db, seat.bot)? == seat.started.digest => {
                keep(db, left)?;
                set_current(db, seat.bot, &left.digest)?;
                (Some(left.digest.clone()), None)
            }
            Ok(_) => (
                None,
                Some("not kept: the bot's data changed while the game was played".to_string()),
            ),
            Err(why) => (None, Some(why.clone())),
        };
        db.execute(
            "INSERT INTO game_data (game, seat, bot, started, kept, note)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                game,
                seat.seat,
                seat.bot,
                seat.started.digest.as_str(),
                kept,
                note
            ],
        )?;
        prune(db, seat.bot).context("cannot prune the bots' data snapshots")?;
    }
    Ok(())
}

/// Removes the snapshots only games of `bot` older than its last [`KEPT_GAMES`] started from,
/// that are no bot's data now and no other bot's game started from.
fn prune(db: &dyn Connection, bot: usize) -> anyhow::Result<()> {
    let Some(oldest_kept) = db.row(
        "SELECT game FROM game_data WHERE bot = ?1 ORDER BY game DESC LIMIT 1 OFFSET ?2",
        params![bot, KEPT_GAMES - 1],
    )?
    else {
        return Ok(());
    };
    let oldest_kept: Value = oldest_kept.get("game")?.clone();
    db.execute(
        "DELETE FROM data_snapshots WHERE digest IN
             (SELECT started FROM game_data WHERE bot = ?1 AND game < ?2)
         AND digest NOT IN (SELECT digest FROM bot_data)
         AND digest NOT IN (SELECT started FROM game_data WHERE game >= ?2 OR bot <> ?1)",
        &[Value::from(bot), oldest_kept],
    )?;
    Ok(())
}
