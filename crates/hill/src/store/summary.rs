//! A bot's record summed as its games are rated, so that its page reads a row per version and
//! opponent, not every game it played: per ordered pair of versions met in a rated game (each
//! seat against each other seat of another version) the games, wins, draws and losses; per
//! version its rated results with a fault of each kind. Kept in the transaction that rates each
//! game ([`super::rating`]), so it never disagrees with the games; filled once, a batch of
//! games at a time, for a hill rated before it existed (`hill run`'s start, [`fill`]). A bot's
//! page reads it only once that fill is done, adding what the games not rated yet hold; until
//! then it counts from the results, as before.

use koth_bot::FaultCounts;

use super::{Connection, Dialect, next_game};

/// The summary's tables. `hill_record_fill`: how far the fill of an older hill has come (the
/// games below `next_game` are summed) and whether it is `done` (every rated game summed,
/// and each game rated from then on added as it is rated).
const TABLES: &str = "
CREATE TABLE IF NOT EXISTS hill_opponents (
    version INTEGER NOT NULL, opponent INTEGER NOT NULL, games INTEGER NOT NULL,
    wins INTEGER NOT NULL, draws INTEGER NOT NULL, losses INTEGER NOT NULL,
    PRIMARY KEY (version, opponent)) {CLUSTERED};
CREATE TABLE IF NOT EXISTS hill_faults (
    version INTEGER PRIMARY KEY, timed_out INTEGER NOT NULL, crashed INTEGER NOT NULL,
    bad_output INTEGER NOT NULL, failed_to_start INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS hill_record_fill (
    id INTEGER PRIMARY KEY CHECK (id = 0), next_game INTEGER NOT NULL, done INTEGER NOT NULL);
-- The games not rated yet (a few: the queue, the games running, those recorded since the last
-- rating), which a bot's page counts from their results beside the summary.
CREATE INDEX IF NOT EXISTS hill_games_unrated ON hill_games (game) WHERE rated = 0;
-- A bot's latest faulted games, without walking every game it played.
CREATE INDEX IF NOT EXISTS hill_results_faulted ON results (bot, game) WHERE {FAULTED};
";

/// SQL of a result with a fault of any kind (as [`hill_results_faulted`]'s condition, which a
/// statement must repeat for SQLite to use that index).
pub(super) const FAULTED: &str =
    "timed_out_faults + crashed_faults + bad_output_faults + failed_to_start_faults > 0";

/// Games summed in one transaction of [`fill`]: its memory is SQLite's grouping of their
/// results, whatever the hill's size.
const FILL_BATCH: u32 = 100_000;

/// Creates the summary's tables if they are not there, and marks a hill with no rated game
/// as needing no fill.
pub(super) fn create_tables(db: &dyn Connection) -> anyhow::Result<()> {
    // In SQLite a version's rows are stored together (its page reads a few pages, not a row
    // by its id each); PostgreSQL has no such table, and reads them by its key's index.
    let clustered = match db.dialect() {
        Dialect::Sqlite => "WITHOUT ROWID",
        Dialect::Postgres => "",
    };
    let sql = TABLES
        .replace("{CLUSTERED}", clustered)
        .replace("{FAULTED}", FAULTED);
    let sql = match db.dialect() {
        Dialect::Sqlite => sql,
        Dialect::Postgres => sql.replace("INTEGER", "BIGINT"),
    };
    db.batch(&sql)?;
    db.execute(
        "INSERT INTO hill_record_fill (id, next_game, done)
         SELECT 0, 0, CASE WHEN EXISTS (SELECT 1 FROM hill_games WHERE rated = 1) THEN 0 ELSE 1 END
         WHERE NOT EXISTS (SELECT 1 FROM hill_record_fill)
         ON CONFLICT (id) DO NOTHING",
        &[],
    )?;
    Ok(())
}

/// How far the fill has come: the first game not summed by it, and whether it is done; none
/// in a hill never brought up to date since the summary existed.
fn progress(db: &dyn Connection) -> anyhow::Result<Option<(u32, bool)>> {
    db.row(
        "SELECT next_game, done FROM hill_record_fill WHERE id = 0",
        &[],
    )?
    .map(|r| Ok((r.int("next_game")? as u32, r.int("done")? != 0)))
    .transpose()
}

/// Whether a bot's page may read the summary: every rated game is summed in it.
pub(super) fn ready(db: &dyn Connection) -> anyhow::Result<bool> {
    // An older hill read by a page without being brought up to date has no such table.
    if super::columns(db, "hill_record_fill")?.is_empty() {
        return Ok(false);
    }
    Ok(progress(db)?.is_some_and(|(_, done)| done))
}

/// Adds rated game `game`, of `seats` (each its version, score and faults, seat by seat), to
/// the summary, in its rating's transaction; unless the fill has yet to reach it (it will sum
/// it then, as a rated game).
pub(super) fn add_rated(
    db: &dyn Connection,
    game: u32,
    seats: &[(usize, f64, &FaultCounts)],
) -> anyhow::Result<()> {
    match progress(db)? {
        Some((next, done)) if done || game < next => {}
        _ => return Ok(()),
    }
    for (k, &(bot, score, faults)) in seats.iter().enumerate() {
        for (j, &(other, other_score, _)) in seats.iter().enumerate() {
            if j == k || other == bot {
                continue;
            }
            let counted = |won: bool| i64::from(won);
            db.execute(
                "INSERT INTO hill_opponents (version, opponent, games, wins, draws, losses)
                 VALUES (?1, ?2, 1, ?3, ?4, ?5)
                 ON CONFLICT (version, opponent) DO UPDATE SET
                     games = hill_opponents.games + 1, wins = hill_opponents.wins + ?3,
                     draws = hill_opponents.draws + ?4, losses = hill_opponents.losses + ?5",
                &[
                    bot.into(),
                    other.into(),
                    counted(score > other_score).into(),
                    counted(score == other_score).into(),
                    counted(score < other_score).into(),
                ],
            )?;
        }
        let kinds = [
            faults.timed_out,
            faults.crashed,
            faults.bad_output,
            faults.failed_to_start,
        ]
        .map(|count| i64::from(count > 0));
        if kinds.iter().any(|&k| k > 0) {
            db.execute(
                "INSERT INTO hill_faults (version, timed_out, crashed, bad_output, failed_to_start)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (version) DO UPDATE SET
                     timed_out = hill_faults.timed_out + ?2, crashed = hill_faults.crashed + ?3,
                     bad_output = hill_faults.bad_output + ?4,
                     failed_to_start = hill_faults.failed_to_start + ?5",
                &[
                    bot.into(),
                    kinds[0].into(),
                    kinds[1].into(),
                    kinds[2].into(),
                    kinds[3].into(),
                ],
            )?;
        }
    }
    Ok(())
}

/// SQL of 1 where `condition` holds, else 0, for [`summed`] to add.
pub(super) fn when(condition: &str) -> String {
    format!("CASE WHEN {condition} THEN 1 ELSE 0 END")
}

/// SQL summing `column` as an integer in SQLite and PostgreSQL alike (a sum over no rows is
/// NULL, and PostgreSQL sums integers as NUMERIC).
pub(super) fn summed(column: &str) -> String {
    format!("CAST(COALESCE(SUM({column}), 0) AS BIGINT)")
}

/// SQL counting the rows where `condition` holds.
fn counted(condition: &str) -> String {
    summed(&when(condition))
}

/// Sums the rated games of a hill rated before the summary existed into it, [`FILL_BATCH`]
/// games at a time in game order, each batch in one transaction with how far it came (so a
/// stopped fill goes on where it stopped); `batch_done` is told the first game not summed
/// after each. Only `hill run`, which alone rates, calls it, before it rates.
pub(crate) fn fill(db: &dyn Connection, mut batch_done: impl FnMut(u32)) -> anyhow::Result<()> {
    loop {
        let Some((from, false)) = progress(db)? else {
            return Ok(());
        };
        let end = next_game(db)?;
        let to = from.saturating_add(FILL_BATCH).min(end);
        db.transaction(|db| {
            let moved = db.execute(
                "UPDATE hill_record_fill SET next_game = ?2, done = ?3
                 WHERE id = 0 AND next_game = ?1 AND done = 0",
                &[from.into(), to.into(), i64::from(to >= end).into()],
            )?;
            if moved == 1 {
                fill_batch(db, from, to)?;
            }
            Ok(())
        })?;
        batch_done(to);
    }
}

/// Sums the rated games numbered `from` to `to` (excluded) into the summary.
fn fill_batch(db: &dyn Connection, from: u32, to: u32) -> anyhow::Result<()> {
    db.execute(
        &format!(
            "INSERT INTO hill_opponents (version, opponent, games, wins, draws, losses)
             SELECT a.bot, b.bot, COUNT(*), {}, {}, {}
             FROM results a JOIN results b ON b.game = a.game AND b.seat <> a.seat
                 AND b.bot <> a.bot
             JOIN hill_games h ON h.game = a.game AND h.rated = 1
             WHERE a.game >= ?1 AND a.game < ?2
             GROUP BY a.bot, b.bot
             ON CONFLICT (version, opponent) DO UPDATE SET
                 games = hill_opponents.games + excluded.games,
                 wins = hill_opponents.wins + excluded.wins,
                 draws = hill_opponents.draws + excluded.draws,
                 losses = hill_opponents.losses + excluded.losses",
            counted("a.score > b.score"),
            counted("a.score = b.score"),
            counted("a.score < b.score"),
        ),
        &[from.into(), to.into()],
    )?;
    db.execute(
        &format!(
            "INSERT INTO hill_faults (version, timed_out, crashed, bad_output, failed_to_start)
             SELECT r.bot, {}, {}, {}, {}
             FROM results r JOIN hill_games h ON h.game = r.game AND h.rated = 1
             WHERE r.game >= ?1 AND r.game < ?2 AND {FAULTED}
             GROUP BY r.bot
             ON CONFLICT (version) DO UPDATE SET
                 timed_out = hill_faults.timed_out + excluded.timed_out,
                 crashed = hill_faults.crashed + excluded.crashed,
                 bad_output = hill_faults.bad_output + excluded.bad_output,
                 failed_to_start = hill_faults.failed_to_start + excluded.failed_to_start",
            counted("r.timed_out_faults > 0"),
            counted("r.crashed_faults > 0"),
            counted("r.bad_output_faults > 0"),
            counted("r.failed_to_start_faults > 0"),
        ),
        &[from.into(), to.into()],
    )?;
    Ok(())
}
