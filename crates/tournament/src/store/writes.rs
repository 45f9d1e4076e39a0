//! The tournament's tables as a policy writes them inside a transaction of its own (a hill
//! adds a version, queues a game with why it chose it, closes a contest): each write a typed
//! function, so no policy holds SQL of the tournament's tables.

use koth_bot::BotSpec;

use super::data::data_mb;
use super::sql::Connection;
use super::{PENDING, SKIPPED};
use crate::schedule::ScheduledGame;

/// Adds `bot` as bot `id`, with its content hash if it has one (a worker checks its copy
/// against it), on `db` (in the caller's transaction: a hill adds a version so).
pub fn insert_bot(
    db: &dyn Connection,
    id: usize,
    bot: &BotSpec,
    hash: Option<&str>,
) -> anyhow::Result<()> {
    db.execute(
        "INSERT INTO bots (id, name, dir, command, build, origin, protocols, hash, data_mb)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            id,
            bot.name.as_str(),
            bot.dir.to_string_lossy().into_owned(),
            serde_json::to_string(&bot.command)?,
            bot.build.clone(),
            bot.origin.as_str(),
            serde_json::to_string(&bot.protocols)?,
            hash,
            data_mb(bot)
        ],
    )?;
    Ok(())
}

/// Sets `key` of `meta` to `value`, or removes it (`None`), on `db` (in the caller's
/// transaction: a hill keeps its fit's figures there).
pub fn set_meta(db: &dyn Connection, key: &str, value: Option<&str>) -> anyhow::Result<()> {
    match value {
        Some(value) => db.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = ?2",
            params![key, value],
        )?,
        None => db.execute("DELETE FROM meta WHERE key = ?1", params![key])?,
    };
    Ok(())
}

/// Sets `key` of `meta` to `value` unless it has one: the first writer's value stays (a
/// contest's manifest and result, written once whichever process gets there first).
pub fn insert_meta_once(db: &dyn Connection, key: &str, value: &str) -> anyhow::Result<()> {
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO NOTHING",
        params![key, value],
    )?;
    Ok(())
}

/// Queues `game` with its seats, on `db` (in the caller's transaction: a hill queues a game
/// with why it chose it).
pub fn insert_game(db: &dyn Connection, game: &ScheduledGame) -> anyhow::Result<()> {
    db.execute(
        &format!("INSERT INTO games (idx, seed, state, attempts) VALUES (?1, ?2, '{PENDING}', 0)"),
        // Seeds are stored as their bits: SQL integers are signed 64-bit.
        params![game.index, game.seed as i64],
    )?;
    for (seat, bot) in game.seats.iter().enumerate() {
        db.execute(
            "INSERT INTO seats (game, seat, bot) VALUES (?1, ?2, ?3)",
            params![game.index, seat, *bot],
        )?;
    }
    Ok(())
}

/// Skips every game not yet started but those in `keep`; returns how many. A contest's freeze
/// drops the ranked games still queued and keeps its final's.
pub fn skip_pending_except(db: &dyn Connection, keep: &[u32]) -> anyhow::Result<u64> {
    let kept = if keep.is_empty() {
        String::new()
    } else {
        let ids: Vec<String> = keep.iter().map(u32::to_string).collect();
        format!(" AND idx NOT IN ({})", ids.join(", "))
    };
    db.execute(
        &format!("UPDATE games SET state = '{SKIPPED}' WHERE state = '{PENDING}'{kept}"),
        &[],
    )
}

/// Skips the games not yet started that seat any of `bots`; returns how many.
pub fn skip_pending_of(db: &dyn Connection, bots: &[usize]) -> anyhow::Result<u64> {
    if bots.is_empty() {
        return Ok(0);
    }
    let ids: Vec<String> = bots.iter().map(usize::to_string).collect();
    db.execute(
        &format!(
            "UPDATE games SET state = '{SKIPPED}' WHERE state = '{PENDING}' AND EXISTS
                 (SELECT 1 FROM seats s WHERE s.game = games.idx AND s.bot IN ({}))",
            ids.join(", ")
        ),
        &[],
    )
}
