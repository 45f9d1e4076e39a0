//! A tournament's results on disk: one SQLite file, `results.sqlite`, in the tournament folder.
//!
//! The schedule is written up front and each game's result in one transaction when it ends, so
//! a `kill -9` at any moment leaves every finished game recorded once and every other game to
//! play again. WAL mode lets `koth tournament status` and `koth leaderboard` read while a run
//! writes. The SQL is plain (no SQLite-only upserts or types), so a PostgreSQL queue shared by
//! several machines would change the connection, not these statements.

use std::path::Path;

use anyhow::Context;
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::bot::BotSpec;
use crate::bot::{BotStatus, FaultCounts};
use crate::game::MatchResult;

use super::schedule::ScheduledGame;

pub const FILE: &str = "results.sqlite";

/// The fault kinds counted in a `<kind>_faults` column of `results`, which a database written
/// before that column existed gets when opened.
const COUNTED_KINDS: [&str; 5] = [
    "timed_out",
    "crashed",
    "bad_output",
    "failed_to_start",
    "benched",
];

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, dir TEXT NOT NULL,
    command TEXT NOT NULL, build TEXT, origin TEXT NOT NULL, protocols TEXT NOT NULL DEFAULT '{}');
-- state: pending, running, done, harness_failed (every attempt was a harness fault), or skipped
-- (a gauntlet's test had decided against that opponent before the game was played).
CREATE TABLE IF NOT EXISTS games (
    idx INTEGER PRIMARY KEY, seed BIGINT NOT NULL, state TEXT NOT NULL,
    attempts INTEGER NOT NULL, wall_ms REAL);
CREATE TABLE IF NOT EXISTS seats (
    game INTEGER NOT NULL, seat INTEGER NOT NULL, bot INTEGER NOT NULL,
    PRIMARY KEY (game, seat));
-- faults: the first of each kind (a JSON list); *_faults: every fault, counted by kind.
CREATE TABLE IF NOT EXISTS results (
    game INTEGER NOT NULL, seat INTEGER NOT NULL, bot INTEGER NOT NULL,
    score REAL NOT NULL, status TEXT NOT NULL, faults TEXT NOT NULL,
    answers INTEGER NOT NULL, max_wall_ms REAL NOT NULL, total_wall_ms REAL NOT NULL,
    max_cpu_ms REAL, total_cpu_ms REAL, near_misses INTEGER NOT NULL,
    timed_out_faults INTEGER NOT NULL DEFAULT 0, crashed_faults INTEGER NOT NULL DEFAULT 0,
    bad_output_faults INTEGER NOT NULL DEFAULT 0,
    failed_to_start_faults INTEGER NOT NULL DEFAULT 0,
    benched_faults INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game, seat));
CREATE TABLE IF NOT EXISTS harness_faults (
    game INTEGER NOT NULL, attempt INTEGER NOT NULL, message TEXT NOT NULL);
";

/// Bots on the bench (not started in their games) and why. Its own statement, because
/// [`Store::open`] also adds it to a tournament started before koth had a bench.
const BENCH_TABLE: &str =
    "CREATE TABLE IF NOT EXISTS bench (bot INTEGER PRIMARY KEY, reason TEXT NOT NULL);";

/// The tournament's database.
pub struct Store {
    conn: Connection,
}

/// How far a tournament has got.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub total: u32,
    pub done: u32,
    pub running: u32,
    pub harness_failed: u32,
    pub harness_faults: u32,
    /// Games a gauntlet no longer needed: its test had decided.
    pub skipped: u32,
}

/// A game as the dashboard lists it.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct GameRow {
    pub index: u32,
    /// As text: a seed needs all 64 bits, JavaScript's numbers keep 53.
    #[serde(serialize_with = "as_text")]
    pub seed: u64,
    pub state: String,
    pub wall_ms: Option<f64>,
    pub seats: Vec<SeatRow>,
}

/// A seat of a listed game: its bot, and its score and status once played.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct SeatRow {
    pub bot: usize,
    pub score: Option<f64>,
    pub status: Option<String>,
}

fn as_text<S: serde::Serializer>(value: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// One bot's part in a finished game, as stored.
#[derive(Debug, Clone)]
pub struct StoredResult {
    pub game: u32,
    pub bot: usize,
    pub score: f64,
    pub status: BotStatus,
    pub answers: u64,
    pub max_wall_ms: f64,
    pub total_wall_ms: f64,
    pub max_cpu_ms: Option<f64>,
    pub near_misses: u64,
    pub faults: FaultCounts,
}

impl Store {
    /// Creates the database with the bots and the whole schedule. It is written under another
    /// name and renamed when complete, so `results.sqlite` either holds the whole schedule or
    /// does not exist (a run killed that early is simply started again).
    pub fn create(
        path: &Path,
        meta: &[(&str, String)],
        bots: &[BotSpec],
        schedule: &[ScheduledGame],
    ) -> anyhow::Result<Store> {
        let partial = path.with_extension("sqlite.partial");
        for leftover in ["", "-wal", "-shm"] {
            let file = format!("{}{leftover}", partial.display());
            if Path::new(&file).exists() {
                std::fs::remove_file(&file).with_context(|| format!("cannot remove {file}"))?;
            }
        }
        let mut store = Store::connect(&partial)?;
        let tx = store.conn.transaction()?;
        tx.execute_batch(SCHEMA)?;
        tx.execute_batch(BENCH_TABLE)?;
        for (key, value) in meta {
            tx.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                params![key, value],
            )?;
        }
        for (id, bot) in bots.iter().enumerate() {
            tx.execute(
                "INSERT INTO bots (id, name, dir, command, build, origin, protocols) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    id as i64,
                    bot.name,
                    bot.dir.to_string_lossy(),
                    serde_json::to_string(&bot.command)?,
                    bot.build,
                    bot.origin,
                    serde_json::to_string(&bot.protocols)?
                ],
            )?;
        }
        for game in schedule {
            tx.execute(
                "INSERT INTO games (idx, seed, state, attempts) VALUES (?1, ?2, 'pending', 0)",
                // Seeds are stored as their bits: SQL integers are signed 64-bit.
                params![game.index, game.seed as i64],
            )?;
            for (seat, bot) in game.seats.iter().enumerate() {
                tx.execute(
                    "INSERT INTO seats (game, seat, bot) VALUES (?1, ?2, ?3)",
                    params![game.index, seat as i64, *bot as i64],
                )?;
            }
        }
        tx.commit()?;
        // Closing checkpoints the write-ahead log into the file, which can then be renamed.
        store
            .conn
            .close()
            .map_err(|(_, e)| e)
            .with_context(|| format!("cannot write {}", partial.display()))?;
        std::fs::rename(&partial, path).with_context(|| {
            format!("cannot rename {} to {}", partial.display(), path.display())
        })?;
        Store::connect(path)
    }

    /// Opens the database of an existing tournament folder's file, after checking that it is
    /// one: a damaged file, or another program's database, is one error naming the file, never a
    /// panic later on a missing table or a bot index that points nowhere. The check reads only,
    /// so a file that is not koth's is left as it was.
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        check_exists(path)?;
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .with_context(|| format!("cannot open the results database {}", path.display()))?;
        check_database(&conn).with_context(|| {
            format!(
                "{} is not a koth tournament database, or is damaged",
                path.display()
            )
        })?;
        drop(conn);
        let store = Store::connect(path)?;
        store.conn.execute_batch(BENCH_TABLE)?;
        store.count_faults_by_kind()?;
        store.add_protocols()?;
        Ok(store)
    }

    /// Opens a tournament's database to read only, as the dashboard does while a run writes it:
    /// nothing is changed, not even an older database brought up to date.
    pub fn open_read_only(path: &Path) -> anyhow::Result<Store> {
        let store = Store::reopen_read_only(path)?;
        check_database(&store.conn).with_context(|| {
            format!(
                "{} is not a koth tournament database, or is damaged",
                path.display()
            )
        })?;
        Ok(store)
    }

    /// Opens to read only, without the checks, a database [`Store::open_read_only`] already
    /// checked: the integrity check reads the whole file, which a dashboard answering many
    /// requests about a large tournament cannot afford on every one.
    pub(crate) fn reopen_read_only(path: &Path) -> anyhow::Result<Store> {
        check_exists(path)?;
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .with_context(|| format!("cannot open the results database {}", path.display()))?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        Ok(Store { conn })
    }

    /// Gives a database written before bots had protocols its column: every bot then speaks
    /// its games' first protocols, as it did.
    fn add_protocols(&self) -> anyhow::Result<()> {
        let present: bool = self.conn.query_row(
            "SELECT COUNT(*) > 0 FROM pragma_table_info('bots') WHERE name = 'protocols'",
            [],
            |r| r.get(0),
        )?;
        if !present {
            self.conn
                .execute_batch("ALTER TABLE bots ADD COLUMN protocols TEXT NOT NULL DEFAULT '{}'")
                .context("cannot add the bots' protocols to an older results database")?;
        }
        Ok(())
    }

    /// Gives a database written before faults were counted by kind its count columns, counted
    /// from the fault lists it stored (then whole).
    fn count_faults_by_kind(&self) -> anyhow::Result<()> {
        let mut sql = String::from("BEGIN;");
        for kind in COUNTED_KINDS {
            let counted: bool = self.conn.query_row(
                "SELECT COUNT(*) > 0 FROM pragma_table_info('results') WHERE name = ?1",
                [format!("{kind}_faults")],
                |r| r.get(0),
            )?;
            if counted {
                continue;
            }
            sql += &format!(
                "ALTER TABLE results ADD COLUMN {kind}_faults INTEGER NOT NULL DEFAULT 0;
                 UPDATE results SET {kind}_faults = (SELECT COUNT(*) FROM json_each(results.faults)
                     WHERE json_extract(value, '$.kind') = '{kind}');"
            );
        }
        sql += "COMMIT;";
        self.conn
            .execute_batch(&sql)
            .context("cannot add the fault counts to an older results database")
    }

    fn connect(path: &Path) -> anyhow::Result<Store> {
        let conn = Connection::open(path)
            .with_context(|| format!("cannot open the results database {}", path.display()))?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .with_context(|| format!("cannot use the results database {}", path.display()))?;
        // Readers (status, leaderboard) may meet a writer mid-commit: wait rather than fail.
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        Ok(Store { conn })
    }

    pub(crate) fn meta(&self, key: &str) -> anyhow::Result<Option<String>> {
        Ok(self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()?)
    }

    pub fn bots(&self) -> anyhow::Result<Vec<BotSpec>> {
        let mut stmt = self
            .conn
            .prepare("SELECT name, dir, command, build, origin, protocols FROM bots ORDER BY id")?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
            ))
        })?;
        let mut bots = Vec::new();
        for row in rows {
            let (name, dir, command, build, origin, protocols) = row?;
            let command: Vec<String> = serde_json::from_str(&command)
                .ok()
                .filter(|c: &Vec<String>| !c.is_empty())
                .with_context(|| format!("the bot \"{name}\" has no command: {command:?}"))?;
            let protocols = serde_json::from_str(&protocols)
                .with_context(|| format!("the bot \"{name}\" has bad protocols: {protocols:?}"))?;
            bots.push(BotSpec {
                name,
                dir: dir.into(),
                command,
                build,
                origin,
                sandbox: None,
                benched: None,
                protocols,
            });
        }
        Ok(bots)
    }

    /// Every game not yet done, by index: those never started, those a killed run left
    /// running, and those whose every attempt was a harness fault (not those skipped).
    pub fn unfinished(&self) -> anyhow::Result<Vec<ScheduledGame>> {
        self.scheduled("WHERE state NOT IN ('done', 'skipped')")
    }

    /// The whole schedule, by index.
    pub fn schedule(&self) -> anyhow::Result<Vec<ScheduledGame>> {
        self.scheduled("")
    }

    /// The games `filter` (an SQL `WHERE` clause, or nothing) selects, by index.
    fn scheduled(&self, filter: &str) -> anyhow::Result<Vec<ScheduledGame>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT idx, seed FROM games {filter} ORDER BY idx"
        ))?;
        let games = stmt
            .query_map([], |r| Ok((r.get::<_, u32>(0)?, r.get::<_, i64>(1)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        let mut seats = self
            .conn
            .prepare("SELECT bot FROM seats WHERE game = ?1 ORDER BY seat")?;
        games
            .into_iter()
            .map(|(index, seed)| {
                let seats = seats
                    .query_map([index], |r| r.get::<_, i64>(0).map(|b| b as usize))?
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(ScheduledGame {
                    index,
                    seed: seed as u64,
                    seats,
                })
            })
            .collect()
    }

    pub(crate) fn mark_running(&self, game: u32, attempt: u32) -> anyhow::Result<()> {
        self.conn.execute(
            "UPDATE games SET state = 'running', attempts = ?2 WHERE idx = ?1",
            params![game, attempt],
        )?;
        Ok(())
    }

    /// Records a finished game: its bots' results and its state, in one transaction.
    pub fn record_result(
        &mut self,
        game: &ScheduledGame,
        result: &MatchResult,
        wall_ms: f64,
    ) -> anyhow::Result<()> {
        anyhow::ensure!(
            result.bots.len() == game.seats.len(),
            "game {} returned {} results for {} bots",
            game.index,
            result.bots.len(),
            game.seats.len()
        );
        let tx = self.conn.transaction()?;
        for (seat, (bot, outcome)) in game.seats.iter().zip(&result.bots).enumerate() {
            let t = &outcome.timing;
            tx.execute(
                "INSERT INTO results (game, seat, bot, score, status, faults, answers, max_wall_ms,
                    total_wall_ms, max_cpu_ms, total_cpu_ms, near_misses, timed_out_faults,
                    crashed_faults, bad_output_faults, failed_to_start_faults, benched_faults)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                    ?17)",
                params![
                    game.index,
                    seat as i64,
                    *bot as i64,
                    outcome.score,
                    status_name(outcome.status),
                    serde_json::to_string(&outcome.faults)?,
                    t.answers as i64,
                    t.max_wall_ms,
                    t.total_wall_ms,
                    t.max_cpu_ms,
                    t.total_cpu_ms,
                    t.near_misses as i64,
                    outcome.fault_counts.timed_out as i64,
                    outcome.fault_counts.crashed as i64,
                    outcome.fault_counts.bad_output as i64,
                    outcome.fault_counts.failed_to_start as i64,
                    outcome.fault_counts.benched as i64
                ],
            )?;
        }
        tx.execute(
            "UPDATE games SET state = 'done', wall_ms = ?2 WHERE idx = ?1",
            params![game.index, wall_ms],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Records a harness fault (koth's failure, not a bot's); `gave_up` marks the game failed.
    pub fn record_harness_fault(
        &self,
        game: u32,
        attempt: u32,
        message: &str,
        gave_up: bool,
    ) -> anyhow::Result<()> {
        self.conn.execute(
            "INSERT INTO harness_faults (game, attempt, message) VALUES (?1, ?2, ?3)",
            params![game, attempt, message],
        )?;
        let state = if gave_up { "harness_failed" } else { "pending" };
        self.conn.execute(
            "UPDATE games SET state = ?2 WHERE idx = ?1",
            params![game, state],
        )?;
        Ok(())
    }

    /// Marks `games` skipped (those not done): a gauntlet's test decided without them.
    pub(crate) fn skip(&mut self, games: &[u32]) -> anyhow::Result<()> {
        let tx = self.conn.transaction()?;
        for game in games {
            tx.execute(
                "UPDATE games SET state = 'skipped' WHERE idx = ?1 AND state <> 'done'",
                [game],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Puts bot `bot` on the bench, for `reason`.
    pub(crate) fn bench(&self, bot: usize, reason: &str) -> anyhow::Result<()> {
        self.conn.execute(
            "INSERT INTO bench (bot, reason) VALUES (?1, ?2)",
            params![bot as i64, reason],
        )?;
        Ok(())
    }

    /// Takes bot `bot` off the bench (a bot not on it stays as it is).
    pub(crate) fn unbench(&self, bot: usize) -> anyhow::Result<()> {
        self.conn
            .execute("DELETE FROM bench WHERE bot = ?1", [bot as i64])?;
        Ok(())
    }

    /// The bots on the bench, by id, with why.
    pub(crate) fn benched(&self) -> anyhow::Result<Vec<(usize, String)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT bot, reason FROM bench ORDER BY bot")?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, i64>(0)? as usize, r.get::<_, String>(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn progress(&self) -> anyhow::Result<Progress> {
        let count = |sql: &str| -> anyhow::Result<u32> {
            Ok(self.conn.query_row(sql, [], |r| r.get::<_, u32>(0))?)
        };
        Ok(Progress {
            total: count("SELECT COUNT(*) FROM games")?,
            done: count("SELECT COUNT(*) FROM games WHERE state = 'done'")?,
            running: count("SELECT COUNT(*) FROM games WHERE state = 'running'")?,
            harness_failed: count("SELECT COUNT(*) FROM games WHERE state = 'harness_failed'")?,
            harness_faults: count("SELECT COUNT(*) FROM harness_faults")?,
            skipped: count("SELECT COUNT(*) FROM games WHERE state = 'skipped'")?,
        })
    }

    /// Every game with its state and its seats, with each seat's result once played, by index.
    pub(crate) fn games(&self) -> anyhow::Result<Vec<GameRow>> {
        self.games_where("")
    }

    /// The `count` games done with the highest indices, highest first.
    pub(crate) fn last_done(&self, count: u32) -> anyhow::Result<Vec<GameRow>> {
        let mut games = self.games_where(&format!(
            "WHERE g.idx IN (SELECT idx FROM games WHERE state = 'done' ORDER BY idx DESC \
             LIMIT {count})"
        ))?;
        games.reverse();
        Ok(games)
    }

    /// The mean wall time of the games done, in milliseconds; `None` before the first.
    pub(crate) fn mean_wall_ms(&self) -> anyhow::Result<Option<f64>> {
        Ok(self.conn.query_row(
            "SELECT AVG(wall_ms) FROM games WHERE state = 'done'",
            [],
            |r| r.get(0),
        )?)
    }

    /// The games `filter` (an SQL `WHERE` clause on `games g`, or nothing) selects, as
    /// [`Store::games`] lists them.
    fn games_where(&self, filter: &str) -> anyhow::Result<Vec<GameRow>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT g.idx, g.seed, g.state, g.wall_ms, s.bot, r.score, r.status
             FROM games g JOIN seats s ON s.game = g.idx
             LEFT JOIN results r ON r.game = s.game AND r.seat = s.seat
             {filter} ORDER BY g.idx, s.seat"
        ))?;
        let mut rows = stmt.query([])?;
        let mut games: Vec<GameRow> = Vec::new();
        while let Some(row) = rows.next()? {
            let index: u32 = row.get(0)?;
            if games.last().is_none_or(|g| g.index != index) {
                games.push(GameRow {
                    index,
                    seed: row.get::<_, i64>(1)? as u64,
                    state: row.get(2)?,
                    wall_ms: row.get(3)?,
                    seats: Vec::new(),
                });
            }
            let status: Option<String> = row.get(6)?;
            games.last_mut().expect("pushed").seats.push(SeatRow {
                bot: row.get::<_, i64>(4)? as usize,
                score: row.get(5)?,
                status,
            });
        }
        Ok(games)
    }

    /// Every stored bot result, by game then seat.
    pub fn results(&self) -> anyhow::Result<Vec<StoredResult>> {
        let mut stmt = self.conn.prepare(
            "SELECT game, bot, score, status, answers, max_wall_ms, total_wall_ms, max_cpu_ms,
                near_misses, timed_out_faults, crashed_faults, bad_output_faults,
                failed_to_start_faults, benched_faults
             FROM results ORDER BY game, seat",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                StoredResult {
                    game: r.get(0)?,
                    bot: r.get::<_, i64>(1)? as usize,
                    score: r.get(2)?,
                    status: BotStatus::Finished,
                    answers: r.get::<_, i64>(4)? as u64,
                    max_wall_ms: r.get(5)?,
                    total_wall_ms: r.get(6)?,
                    max_cpu_ms: r.get(7)?,
                    near_misses: r.get::<_, i64>(8)? as u64,
                    faults: FaultCounts {
                        timed_out: r.get::<_, i64>(9)? as u64,
                        crashed: r.get::<_, i64>(10)? as u64,
                        bad_output: r.get::<_, i64>(11)? as u64,
                        failed_to_start: r.get::<_, i64>(12)? as u64,
                        benched: r.get::<_, i64>(13)? as u64,
                    },
                },
                r.get::<_, String>(3)?,
            ))
        })?;
        rows.map(|row| {
            let (mut result, status) = row?;
            result.status = parse_status(&status)
                .with_context(|| format!("unknown status {status:?} in game {}", result.game))?;
            Ok(result)
        })
        .collect()
    }
}

/// Checks that `conn` holds a koth tournament: an intact file, every table of [`SCHEMA`] with
/// its columns, the meta keys a tournament is started with, and bot numbers that name bots
/// (ids `0..n`, as the runner indexes its bot list by them).
fn check_database(conn: &Connection) -> anyhow::Result<()> {
    let integrity: String = conn.query_row("PRAGMA quick_check", [], |r| r.get(0))?;
    anyhow::ensure!(integrity == "ok", "integrity check: {integrity}");
    // The expected columns are read from the schema itself, built in memory.
    let expected = Connection::open_in_memory()?;
    expected.execute_batch(SCHEMA)?;
    let mut tables = expected.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")?;
    let tables = tables
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    for table in tables {
        let wanted = columns(&expected, &table)?;
        let found = columns(conn, &table)?;
        anyhow::ensure!(!found.is_empty(), "it has no table `{table}`");
        // Columns a newer koth adds to an older database when it opens it are not missing.
        let added_on_open = |column: &str| {
            (table == "results"
                && (column.strip_suffix("_faults"))
                    .is_some_and(|kind| COUNTED_KINDS.contains(&kind)))
                || (table == "bots" && column == "protocols")
        };
        if let Some(missing) = wanted
            .iter()
            .find(|c| !found.contains(c) && !added_on_open(c))
        {
            anyhow::bail!("its table `{table}` has no column `{missing}`");
        }
    }
    for key in ["name", "game", "seed"] {
        let value: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()?;
        anyhow::ensure!(value.is_some(), "its `meta` table has no `{key}`");
    }
    let bots: i64 = conn.query_row("SELECT COUNT(*) FROM bots", [], |r| r.get(0))?;
    for (table, column) in [("bots", "id"), ("seats", "bot"), ("results", "bot")] {
        let stray: Option<String> = conn
            .query_row(
                &format!(
                    "SELECT quote({column}) FROM {table} \
                     WHERE typeof({column}) <> 'integer' OR {column} < 0 OR {column} >= ?1 LIMIT 1"
                ),
                [bots],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(stray) = stray {
            anyhow::bail!("`{table}.{column}` = {stray} is not one of its {bots} bots");
        }
    }
    Ok(())
}

/// Fails, naming the file, unless the results database `path` exists.
pub(crate) fn check_exists(path: &Path) -> anyhow::Result<()> {
    anyhow::ensure!(
        path.is_file(),
        "{} does not exist: is this a tournament folder?",
        path.display()
    );
    Ok(())
}

/// The column names of `table` (none if there is no such table).
fn columns(conn: &Connection, table: &str) -> anyhow::Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let names = stmt
        .query_map([table], |r| r.get(0))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(names)
}

/// Statuses are stored by their serde names (`timed_out`), the same as in `results.json`.
fn status_name(status: BotStatus) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn parse_status(name: &str) -> Option<BotStatus> {
    serde_json::from_value(serde_json::Value::String(name.to_string())).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::AnswerStats;
    use crate::game::BotResult;

    /// The meta keys every tournament writes.
    fn meta() -> [(&'static str, String); 3] {
        [
            ("name", "t".into()),
            ("game", "paths".into()),
            ("seed", "1".into()),
        ]
    }

    fn bot(name: &str) -> BotSpec {
        BotSpec {
            name: name.into(),
            dir: "/tmp".into(),
            command: vec!["true".into()],
            build: None,
            origin: "test".into(),
            sandbox: None,
            benched: None,
            // Kept with the bot, so a resumed tournament's bots speak what they asked for.
            protocols: [("ratrace".to_string(), format!("p-{name}"))].into(),
        }
    }

    #[test]
    fn a_game_is_recorded_once_and_leaves_the_queue() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let schedule = super::super::schedule::schedule(3, 2, 4, 1);
        let mut store =
            Store::create(&path, &meta(), &[bot("a"), bot("b"), bot("c")], &schedule).unwrap();
        assert_eq!(store.unfinished().unwrap(), schedule);
        let result = MatchResult {
            game: "paths".into(),
            seed: schedule[1].seed,
            bots: ["x", "y"]
                .iter()
                .map(|n| BotResult {
                    name: n.to_string(),
                    score: 3.0,
                    status: BotStatus::TimedOut,
                    faults: vec![],
                    fault_counts: FaultCounts {
                        timed_out: 40,
                        ..FaultCounts::default()
                    },
                    timing: AnswerStats::default(),
                })
                .collect(),
        };
        store.mark_running(1, 1).unwrap();
        store.record_result(&schedule[1], &result, 5.0).unwrap();
        store.record_harness_fault(2, 1, "boom", true).unwrap();
        store.bench(2, "broken").unwrap();
        drop(store);

        let store = Store::open(&path).unwrap();
        let left: Vec<u32> = store
            .unfinished()
            .unwrap()
            .iter()
            .map(|g| g.index)
            .collect();
        assert_eq!(left, [0, 2, 3]);
        let results = store.results().unwrap();
        assert_eq!(results.len(), 2);
        assert_eq!(results[0].status, BotStatus::TimedOut);
        assert_eq!(results[0].faults.timed_out, 40);
        assert_eq!(results[0].bot, schedule[1].seats[0]);
        let progress = store.progress().unwrap();
        assert_eq!((progress.done, progress.harness_failed), (1, 1));
        assert_eq!(store.meta("game").unwrap().as_deref(), Some("paths"));
        assert_eq!(store.bots().unwrap()[2], bot("c"));
        assert_eq!(store.benched().unwrap(), [(2, "broken".to_string())]);
        store.unbench(2).unwrap();
        assert_eq!(store.benched().unwrap(), []);
    }

    #[test]
    fn an_older_database_gets_its_faults_counted_by_kind_when_opened() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let schedule = super::super::schedule::schedule(2, 2, 1, 1);
        let store = Store::create(&path, &meta(), &[bot("a"), bot("b")], &schedule).unwrap();
        // The results table as it was before faults were counted by kind.
        store
            .conn
            .execute_batch(
                "ALTER TABLE results DROP COLUMN timed_out_faults;
                 ALTER TABLE results DROP COLUMN crashed_faults;
                 ALTER TABLE results DROP COLUMN bad_output_faults;
                 ALTER TABLE results DROP COLUMN failed_to_start_faults;
                 INSERT INTO results (game, seat, bot, score, status, faults, answers,
                     max_wall_ms, total_wall_ms, near_misses)
                 VALUES (0, 0, 0, 1.0, 'crashed', '[{\"bot\":\"a\",\"kind\":\"bad_output\",\
                     \"reason\":\"x\"},{\"bot\":\"a\",\"kind\":\"bad_output\",\"reason\":\"y\"},\
                     {\"bot\":\"a\",\"kind\":\"crashed\",\"reason\":\"z\"}]', 0, 0, 0, 0),
                     (0, 1, 1, 2.0, 'finished', '[]', 0, 0, 0, 0);",
            )
            .unwrap();
        drop(store);
        let results = Store::open(&path).unwrap().results().unwrap();
        let expected = FaultCounts {
            bad_output: 2,
            crashed: 1,
            ..FaultCounts::default()
        };
        assert_eq!(results[0].faults, expected);
        assert_eq!(results[1].faults, FaultCounts::default());
        // Opened again, it is left as it is.
        assert_eq!(
            Store::open(&path).unwrap().results().unwrap()[0].faults,
            expected
        );
    }
}
