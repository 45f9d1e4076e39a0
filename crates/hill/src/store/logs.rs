//! A bot's games and seats as its author's logs read them ([`crate::logs`]).

use serde::Serialize;

use super::Connection;

/// A game a bot played, as its logs list it.
#[derive(Debug, Clone, Serialize)]
pub struct PlayedGame {
    pub game: u32,
    pub version: u32,
    /// Its status in that game (`ok`, `crashed`, `timed_out`…).
    pub status: String,
}

/// The last `limit` games the bot called `name` played, newest first.
pub(crate) fn games_of(
    db: &dyn Connection,
    name: &str,
    limit: u32,
) -> anyhow::Result<Vec<PlayedGame>> {
    db.query(
        &format!(
            "SELECT r.game, v.version, r.status FROM results r
             JOIN hill_versions v ON v.id = r.bot
             WHERE v.name = ?1 ORDER BY r.game DESC LIMIT {limit}"
        ),
        &[name.into()],
    )?
    .iter()
    .map(|r| {
        Ok(PlayedGame {
            game: r.int("game")? as u32,
            version: r.int("version")? as u32,
            status: r.text("status")?,
        })
    })
    .collect()
}

/// A seat of the bot in a game, as recorded.
pub(crate) struct SeatRow {
    pub seat: usize,
    pub version: u32,
    pub score: f64,
    pub status: String,
    /// Its faults, as the JSON list recorded.
    pub faults: String,
}

/// The seats of the bot called `name` in game `game`, in seat order (none if it did not play
/// it or it is not recorded yet).
pub(crate) fn seats_of(db: &dyn Connection, game: u32, name: &str) -> anyhow::Result<Vec<SeatRow>> {
    db.query(
        "SELECT r.seat, v.version, r.score, r.status, r.faults FROM results r
         JOIN hill_versions v ON v.id = r.bot
         WHERE r.game = ?1 AND v.name = ?2 ORDER BY r.seat",
        &[game.into(), name.into()],
    )?
    .iter()
    .map(|r| {
        Ok(SeatRow {
            seat: r.int("seat")? as usize,
            version: r.int("version")? as u32,
            score: r.real("score")?,
            status: r.text("status")?,
            faults: r.text("faults")?,
        })
    })
    .collect()
}

/// The version seated in each seat of game `game`, in seat order.
pub(crate) fn seated_versions(db: &dyn Connection, game: u32) -> anyhow::Result<Vec<usize>> {
    db.query(
        "SELECT bot FROM results WHERE game = ?1 ORDER BY seat",
        &[game.into()],
    )?
    .iter()
    .map(|r| Ok(r.int("bot")? as usize))
    .collect()
}

/// The bot's name in each seat of game `game`, in seat order.
pub(crate) fn seated_names(db: &dyn Connection, game: u32) -> anyhow::Result<Vec<String>> {
    db.query(
        "SELECT v.name FROM results r JOIN hill_versions v ON v.id = r.bot
         WHERE r.game = ?1 ORDER BY r.seat",
        &[game.into()],
    )?
    .iter()
    .map(|r| r.text("name"))
    .collect()
}
