//! The games a refit reads: every recorded result for the fit, from a game's index on, so that
//! a refit thread that holds the games it read reads only those recorded since.

use anyhow::Context;

use koth_tournament::store::sql::Row;

use super::{Connection, PENDING, RUNNING};

/// Games read by one query of [`each_game_from`]: a query's rows are held whole until it ends
/// (some 140 bytes a seat as rows), and a hill of ten million games read at once held
/// gigabytes. 100,000 games a query (42 MB of rows in games of three) left `hill run`'s peak
/// on a points hill of 10,000,000 games at 728-875 MB, this at 574-591 MB (the freed rows'
/// room kept by the allocator beside the fit's; docs/benchmarks.md, the tenth pass), for
/// no more CPU.
const GAMES_A_QUERY: u32 = 10_000;

/// The index below which a read of the games from `from` on, begun now, reads every game:
/// the first still queued or being played (a game's results are recorded in the transaction
/// that marks it done), or past the last game. Asked before [`each_game_from`]'s walk, so
/// that its caller knows which games it must remember having read.
pub(crate) fn read_below(db: &dyn Connection, from: u32) -> anyhow::Result<u32> {
    let unfinished = index(
        db.row(
            &format!(
                "SELECT MIN(idx) AS first FROM games WHERE state IN ('{PENDING}', '{RUNNING}')"
            ),
            &[],
        )?,
        "first",
    )?;
    let after_all = index(db.row("SELECT MAX(idx) AS last FROM games", &[])?, "last")?
        .map_or(0, |last| last + 1);
    Ok(unfinished.unwrap_or(after_all).max(from))
}

/// A game's index in `column` of `row`, if there is one.
fn index(row: Option<Row>, column: &str) -> anyhow::Result<Option<u32>> {
    row.and_then(|r| r.int(column).ok())
        .map(|i| u32::try_from(i).context("a game's index"))
        .transpose()
}

/// Calls `each` with every recorded result for the fit from the game of index `from` on, a
/// game at a time in the games' order: its index and each seat's (version, score), in seat
/// order. A contest's final games are the final's alone, never the hill's table.
///
/// Games are recorded out of their order when several are played at once, so a game past one
/// still being played may have been read already: the caller skips those it holds, and asks
/// [`read_below`] first which games those are.
pub(crate) fn each_game_from(
    db: &dyn Connection,
    from: u32,
    mut each: impl FnMut(u32, &[(usize, f64)]),
) -> anyhow::Result<()> {
    let Some(last) = index(
        db.row("SELECT MAX(game) AS last FROM results", &[])?,
        "last",
    )?
    else {
        return Ok(());
    };
    let mut seats: Vec<(usize, f64)> = Vec::new();
    let mut game = None;
    for start in (from..=last).step_by(GAMES_A_QUERY as usize) {
        let rows = db.query(
            "SELECT r.game, r.bot, r.score FROM results r
             WHERE r.game >= ?1 AND r.game < ?2 AND r.game NOT IN (SELECT game FROM hill_final)
             ORDER BY r.game, r.seat",
            &[start.into(), start.saturating_add(GAMES_A_QUERY).into()],
        )?;
        for r in rows {
            let index = r.int("game")? as u32;
            if let Some(previous) = game.filter(|&g| g != index && !seats.is_empty()) {
                each(previous, &seats);
                seats.clear();
            }
            game = Some(index);
            seats.push((r.int("bot")? as usize, r.real("score")?));
        }
    }
    if let Some(previous) = game.filter(|_| !seats.is_empty()) {
        each(previous, &seats);
    }
    Ok(())
}
