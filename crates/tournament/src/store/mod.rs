//! Everything a tournament keeps — its file's settings, bots, games with their seeds and seats,
//! states, results, faults, harness faults and the bench — behind one [`Store`], in one of two
//! databases:
//!
//! - **SQLite**, `results.sqlite` in the tournament folder (the default; [`sqlite`]);
//! - **PostgreSQL**, shared by `koth worker` processes on many machines (`--db URL`;
//!   [`postgres`]), each tournament in a schema of its own so its tables are the same as in a
//!   SQLite file.
//!
//! The schedule is written up front and each game's result in one transaction when it ends, so
//! a `kill -9` at any moment leaves every finished game recorded once and every other game to
//! play again. A game is taken from the queue by [`Store::claim`], which marks it `running` with
//! a new attempt number; its result is accepted only for that attempt, so a worker presumed dead
//! that reports late cannot count a game twice. With PostgreSQL a claim is a lease the worker
//! renews ([`Store::renew`]); a game whose lease ran out is claimed again by another worker.

pub(crate) mod postgres;
pub mod schema;
pub mod sql;
pub(crate) mod sqlite;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use anyhow::Context;

use koth_bot::{BotSpec, DataAsk};
use koth_bot::{BotStatus, FaultCounts, FuelStats};

use super::schedule::ScheduledGame;
use sql::{Connection, Dialect, Row, Value};

pub const FILE: &str = sqlite::FILE;
pub use data::{GameData, SeatData};
pub use postgres::{Database, LiveNotices, is_url, shown};
pub use sqlite::check_exists;

/// Parameters of a statement, each turned into a [`Value`].
macro_rules! params {
    ($($value:expr),* $(,)?) => {
        &[$($crate::store::sql::Value::from($value)),*][..]
    };
}

mod claims;
pub mod data;
mod files;
mod live;
mod writes;
pub use claims::{Claimant, Claimed};
pub use files::game_dir;
use files::game_files;
pub use writes::*;

/// What a game's result changes beyond its own rows, recorded in its transaction.
#[derive(Debug, Clone, Copy, Default)]
pub struct Changes<'a> {
    /// The start-up failure streaks it changed: a bot and its failures at start-up in a row.
    pub streaks: &'a [(usize, u32)],
    /// Its learning bots' data ([`data::record`]).
    pub data: &'a [SeatData],
}

/// A tournament's database.
pub struct Store {
    db: Box<dyn Connection>,
    source: Source,
    /// Whether a claim has seen a learning bot in this database: from then on claims take
    /// turns ([`Store::claim`]). A bot's `data_mb` is set when it is added and never cleared,
    /// so once true it stays true.
    learners_seen: AtomicBool,
}

/// Where a tournament's database is.
#[derive(Debug, Clone)]
enum Source {
    Sqlite(PathBuf),
    Postgres(postgres::Address),
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

impl Progress {
    /// Games still to play: pending, or running (which may be cut short).
    pub fn left(&self) -> u32 {
        self.total - self.done - self.harness_failed - self.skipped
    }
}

/// A game's state, as its `games.state` column holds it (and the dashboard shows it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GameState {
    /// Queued, to be claimed.
    Pending,
    /// Claimed and being played, under a lease in a shared database.
    Running,
    /// Played and recorded.
    Done,
    /// Left unplayed: a bot of it was decided or retired.
    Skipped,
    /// Given up on after as many attempts as the harness allows.
    HarnessFailed,
}

impl GameState {
    const ALL: [GameState; 5] = [
        GameState::Pending,
        GameState::Running,
        GameState::Done,
        GameState::Skipped,
        GameState::HarnessFailed,
    ];

    /// The state as the column spells it: the one place each is spelt.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameState::Pending => "pending",
            GameState::Running => "running",
            GameState::Done => "done",
            GameState::Skipped => "skipped",
            GameState::HarnessFailed => "harness_failed",
        }
    }

    /// The state of a `games.state` value.
    pub fn of_column(state: &str) -> anyhow::Result<GameState> {
        GameState::ALL
            .into_iter()
            .find(|s| s.as_str() == state)
            .with_context(|| format!("a game's state {state:?} is none koth knows"))
    }
}

// The states as statements write them (`state = '{PENDING}'`).
pub const PENDING: &str = GameState::Pending.as_str();
pub const RUNNING: &str = GameState::Running.as_str();
pub const DONE: &str = GameState::Done.as_str();
const SKIPPED: &str = GameState::Skipped.as_str();
const HARNESS_FAILED: &str = GameState::HarnessFailed.as_str();

/// A game as the dashboard lists it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GameRow {
    pub index: u32,
    /// As text: a seed needs all 64 bits, JavaScript's numbers keep 53.
    #[serde(serialize_with = "as_text")]
    pub seed: u64,
    pub state: GameState,
    pub wall_ms: Option<f64>,
    pub seats: Vec<SeatRow>,
}

/// A seat of a listed game: its bot, and its score and status once played.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SeatRow {
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
    /// A WASI bot's fuel per answer in the game; none for a process.
    pub fuel: Option<FuelStats>,
    pub faults: FaultCounts,
    /// The game's seed.
    pub seed: u64,
}

/// A store is the one handle every statement takes, inside a transaction or not (as rusqlite's
/// `Transaction` is a `Connection`): the hill's own tables (`koth_hill`'s store) are read and
/// written through it beside the tournament's, and no one takes its connection out.
impl Connection for Store {
    fn dialect(&self) -> Dialect {
        self.db.dialect()
    }

    fn execute(&self, sql: &str, params: &[Value]) -> anyhow::Result<u64> {
        self.db.execute(sql, params)
    }

    fn query(&self, sql: &str, params: &[Value]) -> anyhow::Result<Vec<Row>> {
        self.db.query(sql, params)
    }

    fn each_row(
        &self,
        sql: &str,
        params: &[Value],
        each: &mut dyn FnMut(&Row) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        self.db.each_row(sql, params, each)
    }

    fn batch(&self, sql: &str) -> anyhow::Result<()> {
        self.db.batch(sql)
    }
}

impl Store {
    fn new(db: Box<dyn Connection>, source: Source) -> Store {
        Store {
            db,
            source,
            learners_seen: AtomicBool::new(false),
        }
    }

    /// Where the database is, for messages: its file, or the tournament and its database.
    pub fn location(&self) -> String {
        match &self.source {
            Source::Sqlite(path) => path.display().to_string(),
            Source::Postgres(address) => address.describe(),
        }
    }

    /// Whether workers on other machines share it: then a claim is a lease, and each game's
    /// files are kept in it.
    pub fn is_shared(&self) -> bool {
        self.db.dialect() == Dialect::Postgres
    }

    /// Writes a new tournament into an empty database: the latest schema, `meta`, the bots (with
    /// their content hashes when given) and the whole schedule. The caller holds a transaction.
    fn write_tournament(
        db: &dyn Connection,
        meta: &[(&str, String)],
        bots: &[BotSpec],
        hashes: Option<&[String]>,
        schedule: &[ScheduledGame],
    ) -> anyhow::Result<()> {
        schema::create(db, schema::LATEST)?;
        for (key, value) in meta {
            db.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                params![*key, value.as_str()],
            )?;
        }
        for (id, bot) in bots.iter().enumerate() {
            insert_bot(db, id, bot, hashes.map(|h| h[id].as_str()))?;
        }
        for game in schedule {
            insert_game(db, game)?;
        }
        Ok(())
    }

    /// Sets meta key `key` to `value`.
    pub fn set_meta(&self, key: &str, value: &str) -> anyhow::Result<()> {
        set_meta(&*self.db, key, Some(value))
    }

    pub fn meta(&self, key: &str) -> anyhow::Result<Option<String>> {
        self.db
            .row("SELECT value FROM meta WHERE key = ?1", params![key])?
            .map(|r| r.text("value"))
            .transpose()
    }

    pub fn bots(&self) -> anyhow::Result<Vec<BotSpec>> {
        // A database of schema 7 or older, read without being brought up to date (by a
        // dashboard), has no learning bots.
        let data_mb = match schema::columns(&*self.db, "bots")?
            .iter()
            .any(|c| c == "data_mb")
        {
            true => "data_mb",
            false => "NULL AS data_mb",
        };
        let rows = self.db.query(
            &format!(
                "SELECT name, dir, command, build, origin, protocols, {data_mb} FROM bots \
                 ORDER BY id"
            ),
            &[],
        )?;
        rows.iter()
            .map(|r| {
                let name = r.text("name")?;
                let command = r.text("command")?;
                let protocols = r.text("protocols")?;
                let command: Vec<String> = serde_json::from_str(&command)
                    .ok()
                    .filter(|c: &Vec<String>| !c.is_empty())
                    .with_context(|| format!("the bot \"{name}\" has no command: {command:?}"))?;
                let protocols = serde_json::from_str(&protocols).with_context(|| {
                    format!("the bot \"{name}\" has bad protocols: {protocols:?}")
                })?;
                Ok(BotSpec {
                    dir: r.text("dir")?.into(),
                    command,
                    build: r.opt_text("build")?,
                    origin: r.text("origin")?,
                    sandbox: None,
                    benched: None,
                    protocols,
                    data: r.opt_int("data_mb")?.map(|mb| DataAsk {
                        mb: u64::try_from(mb).ok().filter(|&mb| mb > 0),
                        fresh: false,
                    }),
                    name,
                })
            })
            .collect()
    }

    /// Each bot's content hash as submitted (`None` for a tournament not submitted to workers).
    pub fn bot_hashes(&self) -> anyhow::Result<Vec<Option<String>>> {
        let rows = self.db.query("SELECT hash FROM bots ORDER BY id", &[])?;
        rows.iter().map(|r| r.opt_text("hash")).collect()
    }

    /// The whole schedule, by index.
    pub fn schedule(&self) -> anyhow::Result<Vec<ScheduledGame>> {
        let games = self
            .db
            .query("SELECT idx, seed FROM games ORDER BY idx", &[])?;
        let seats = self
            .db
            .query("SELECT game, bot FROM seats ORDER BY game, seat", &[])?;
        let mut schedule: Vec<ScheduledGame> = games
            .iter()
            .map(|r| {
                Ok(ScheduledGame {
                    index: r.int("idx")? as u32,
                    seed: r.int("seed")? as u64,
                    seats: Vec::new(),
                })
            })
            .collect::<anyhow::Result<_>>()?;
        for seat in &seats {
            let game = seat.int("game")?;
            let at = schedule
                .binary_search_by_key(&game, |g| g.index.into())
                .map_err(|_| anyhow::anyhow!("a seat of game {game}, which is not scheduled"))?;
            schedule[at].seats.push(seat.int("bot")? as usize);
        }
        Ok(schedule)
    }

    /// Puts back in the queue the games a stopped run left `running` and those it gave up on
    /// after harness faults: `resume` plays them again, each from its first attempt. Only for a
    /// store no other koth uses (SQLite, under the folder lock).
    pub fn requeue_unfinished(&self) -> anyhow::Result<()> {
        self.db.execute(
            &format!("UPDATE games SET state = '{PENDING}', attempts = 0, worker = NULL, lease_until = NULL
             WHERE state IN ('{RUNNING}', '{HARNESS_FAILED}')"),
            &[],
        )?;
        Ok(())
    }

    /// Marks `games` skipped, those not yet claimed: a gauntlet's test decided without them.
    /// Returns how many it skipped.
    pub(crate) fn skip(&self, games: &[u32]) -> anyhow::Result<usize> {
        self.db.transaction(|db| {
            let mut skipped = 0;
            for &game in games {
                skipped += db.execute(
                    &format!("UPDATE games SET state = '{SKIPPED}' WHERE idx = ?1 AND state = '{PENDING}'"),
                    params![game],
                )?;
            }
            Ok(skipped as usize)
        })
    }

    /// Puts bot `bot` on the bench, for `reason` (a bot already on it stays as it is).
    pub(crate) fn bench(&self, bot: usize, reason: &str) -> anyhow::Result<()> {
        self.db.execute(
            "INSERT INTO bench (bot, reason) SELECT ?1, ?2
             WHERE NOT EXISTS (SELECT 1 FROM bench WHERE bot = ?1)",
            params![bot, reason],
        )?;
        Ok(())
    }

    /// Takes bot `bot` off the bench (a bot not on it stays as it is), its start-failure streak
    /// counted afresh.
    pub(crate) fn unbench(&self, bot: usize) -> anyhow::Result<()> {
        self.db.transaction(|db| {
            db.execute("DELETE FROM bench WHERE bot = ?1", params![bot])?;
            db.execute(
                "UPDATE bots SET start_failures = 0 WHERE id = ?1",
                params![bot],
            )
        })?;
        Ok(())
    }

    /// Each bot's start-up failures in a row, by id, as last recorded.
    pub(crate) fn start_failures(&self) -> anyhow::Result<Vec<u32>> {
        let rows = self
            .db
            .query("SELECT start_failures FROM bots ORDER BY id", &[])?;
        rows.iter().map(|r| r.count("start_failures")).collect()
    }

    /// The bots on the bench, by id, with why.
    pub(crate) fn benched(&self) -> anyhow::Result<Vec<(usize, String)>> {
        let rows = self
            .db
            .query("SELECT bot, reason FROM bench ORDER BY bot", &[])?;
        rows.iter()
            .map(|r| Ok((r.int("bot")? as usize, r.text("reason")?)))
            .collect()
    }

    pub fn progress(&self) -> anyhow::Result<Progress> {
        let row = self
            .db
            .row(
                &format!(
                    "SELECT COUNT(*) AS total,
                    SUM(CASE WHEN state = '{DONE}' THEN 1 ELSE 0 END) AS done,
                    SUM(CASE WHEN state = '{RUNNING}' THEN 1 ELSE 0 END) AS running,
                    SUM(CASE WHEN state = '{HARNESS_FAILED}' THEN 1 ELSE 0 END) AS harness_failed,
                    SUM(CASE WHEN state = '{SKIPPED}' THEN 1 ELSE 0 END) AS skipped,
                    (SELECT COUNT(*) FROM harness_faults) AS harness_faults
                 FROM games"
                ),
                &[],
            )?
            .context("no counts of the games")?;
        // A sum over no rows is NULL; PostgreSQL sums integers as NUMERIC, read here as text.
        let count = |column: &str| -> anyhow::Result<u32> {
            Ok(match row.get(column)? {
                Value::Null => 0,
                Value::Int(n) => *n as u32,
                other => other.text()?.parse()?,
            })
        };
        Ok(Progress {
            total: count("total")?,
            done: count("done")?,
            running: count("running")?,
            harness_failed: count("harness_failed")?,
            skipped: count("skipped")?,
            harness_faults: count("harness_faults")?,
        })
    }

    /// Every game with its state and its seats, with each seat's result once played, by index.
    pub fn games(&self) -> anyhow::Result<Vec<GameRow>> {
        self.games_where("")
    }

    /// The `count` games done with the highest indices, highest first.
    pub fn last_done(&self, count: u32) -> anyhow::Result<Vec<GameRow>> {
        let mut games = self.games_where(&format!(
            "WHERE g.idx IN (SELECT idx FROM games WHERE state = '{DONE}' ORDER BY idx DESC \
             LIMIT {count})"
        ))?;
        games.reverse();
        Ok(games)
    }

    /// The games being played now, lowest index first.
    pub fn running_games(&self) -> anyhow::Result<Vec<GameRow>> {
        self.games_where(&format!("WHERE g.state = '{RUNNING}'"))
    }

    /// The mean wall time of the games done, in milliseconds; `None` before the first.
    pub fn mean_wall_ms(&self) -> anyhow::Result<Option<f64>> {
        self.db
            .value(
                &format!("SELECT AVG(wall_ms) FROM games WHERE state = '{DONE}'"),
                &[],
            )?
            .opt_real()
    }

    /// The games `filter` (an SQL `WHERE` clause on `games g`, or nothing) selects, as
    /// [`Store::games`] lists them.
    fn games_where(&self, filter: &str) -> anyhow::Result<Vec<GameRow>> {
        let rows = self.db.query(
            &format!(
                "SELECT g.idx, g.seed, g.state, g.wall_ms, s.bot, r.score, r.status
                 FROM games g JOIN seats s ON s.game = g.idx
                 LEFT JOIN results r ON r.game = s.game AND r.seat = s.seat
                 {filter} ORDER BY g.idx, s.seat"
            ),
            &[],
        )?;
        let mut games: Vec<GameRow> = Vec::new();
        for row in &rows {
            let index = row.int("idx")? as u32;
            let seat = SeatRow {
                bot: row.int("bot")? as usize,
                score: row.opt_real("score")?,
                status: row.opt_text("status")?,
            };
            match games.last_mut() {
                Some(game) if game.index == index => game.seats.push(seat),
                _ => games.push(GameRow {
                    index,
                    seed: row.int("seed")? as u64,
                    state: GameState::of_column(&row.text("state")?)?,
                    wall_ms: row.opt_real("wall_ms")?,
                    seats: vec![seat],
                }),
            }
        }
        Ok(games)
    }

    /// Every stored bot result, by game then seat.
    pub fn results(&self) -> anyhow::Result<Vec<StoredResult>> {
        self.results_where("")
    }

    /// The stored results of `games`, by game then seat.
    pub(crate) fn results_of(&self, games: &[u32]) -> anyhow::Result<Vec<StoredResult>> {
        if games.is_empty() {
            return Ok(Vec::new());
        }
        let list: Vec<String> = games.iter().map(u32::to_string).collect();
        self.results_where(&format!("WHERE game IN ({})", list.join(", ")))
    }

    fn results_where(&self, filter: &str) -> anyhow::Result<Vec<StoredResult>> {
        // An older database read without being brought up to date (a dashboard's) has no fuel.
        let fuel = if schema::columns(&*self.db, "results")?.contains(&"fuel".to_string()) {
            "fuel"
        } else {
            "NULL AS fuel"
        };
        let rows = self.db.query(
            &format!(
                "SELECT game, bot, score, status, answers, max_wall_ms, total_wall_ms, max_cpu_ms,
                    near_misses, timed_out_faults, crashed_faults, bad_output_faults,
                    failed_to_start_faults, benched_faults, games.seed, {fuel}
                 FROM results JOIN games ON games.idx = results.game
                 {filter} ORDER BY game, seat"
            ),
            &[],
        )?;
        rows.iter().map(stored_result).collect()
    }

    /// Game `game`'s state, if the store has the game.
    pub fn game_state(&self, game: u32) -> anyhow::Result<Option<GameState>> {
        self.db
            .row("SELECT state FROM games WHERE idx = ?1", &[game.into()])?
            .map(|row| GameState::of_column(&row.text("state")?))
            .transpose()
    }
}

/// The meta key of the delay of a game's records to its watchers, in seconds (a tournament
/// file's or hill file's `live_delay_s`), which its server holds them for.
pub const LIVE_DELAY_META: &str = "live_delay_s";

/// The database's clock, in whole seconds since 1970: leases are compared on one clock,
/// whichever machines the workers run on.
fn now(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Sqlite => "CAST(strftime('%s', 'now') AS INTEGER)",
        Dialect::Postgres => "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) AS BIGINT)",
    }
}

/// `rows` rows of `columns` parameters each, for a multi-row `VALUES`: `(?1, ?2), (?3, ?4)`.
fn rows_of(rows: usize, columns: usize) -> String {
    let row = |r: usize| {
        let params: Vec<String> = (1..=columns)
            .map(|c| format!("?{}", r * columns + c))
            .collect();
        format!("({})", params.join(", "))
    };
    (0..rows).map(row).collect::<Vec<_>>().join(", ")
}

/// An SQL condition on `games` that leaves out the games with a bot in `bots` (nothing if none).
fn without_bots(bots: &[usize]) -> String {
    if bots.is_empty() {
        return String::new();
    }
    let ids: Vec<String> = bots.iter().map(usize::to_string).collect();
    format!(
        "AND NOT EXISTS (SELECT 1 FROM seats s WHERE s.game = games.idx AND s.bot IN ({}))",
        ids.join(", ")
    )
}

fn stored_result(r: &Row) -> anyhow::Result<StoredResult> {
    let game = r.int("game")? as u32;
    let status = r.text("status")?;
    let count = |column: &str| -> anyhow::Result<u64> { Ok(r.int(column)? as u64) };
    Ok(StoredResult {
        game,
        bot: r.int("bot")? as usize,
        score: r.real("score")?,
        status: parse_status(&status)
            .with_context(|| format!("unknown status {status:?} in game {game}"))?,
        answers: count("answers")?,
        max_wall_ms: r.real("max_wall_ms")?,
        total_wall_ms: r.real("total_wall_ms")?,
        max_cpu_ms: r.opt_real("max_cpu_ms")?,
        near_misses: count("near_misses")?,
        faults: FaultCounts {
            timed_out: count("timed_out_faults")?,
            crashed: count("crashed_faults")?,
            bad_output: count("bad_output_faults")?,
            failed_to_start: count("failed_to_start_faults")?,
            benched: count("benched_faults")?,
        },
        // Stored as its bits: SQL integers are signed.
        seed: r.int("seed")? as u64,
        fuel: fuel_of(r.get("fuel")?).with_context(|| format!("in game {game}"))?,
    })
}

/// Fuel figures as stored (`FuelStats` as JSON, or NULL), in `results` or a hill's versions.
pub fn fuel_of(value: &Value) -> anyhow::Result<Option<FuelStats>> {
    value
        .opt_text()?
        .map(|json| serde_json::from_str(&json).context("stored fuel figures are damaged"))
        .transpose()
}

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
    use koth_bot::AnswerStats;
    use koth_game::{BotResult, MatchResult};

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
            data: None,
            // Kept with the bot, so a resumed tournament's bots speak what they asked for.
            protocols: [("ratrace".to_string(), format!("p-{name}"))].into(),
        }
    }

    fn result_of(game: &ScheduledGame) -> MatchResult {
        MatchResult {
            game: "paths".into(),
            seed: game.seed,
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
        }
    }

    #[test]
    fn a_game_is_claimed_in_order_and_its_result_counts_once_for_its_attempt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let schedule = super::super::schedule::schedule(3, 2, 4, 1);
        let store =
            Store::create(&path, &meta(), &[bot("a"), bot("b"), bot("c")], &schedule).unwrap();
        assert_eq!(store.schedule().unwrap(), schedule);
        let me = Claimant::new(30);
        let claim = |refused: &[usize]| store.claim(&me, refused, 3).unwrap();
        let first = claim(&[]).unwrap();
        assert_eq!(
            (first.game.clone(), first.attempt),
            (schedule[0].clone(), 1)
        );
        let second = claim(&[]).unwrap();
        assert_eq!(second.game.index, 1);
        let folder = dir.path();
        // The first seat's bot failed at start-up: its streak is now 1.
        let (one, two) = (first.game.seats[0], first.game.seats[1]);
        let streaks = [(one, 1)];
        assert!(
            store
                .record_result(
                    &first.game,
                    1,
                    &result_of(&first.game),
                    5.0,
                    folder,
                    &Changes {
                        streaks: &streaks,
                        data: &[],
                    },
                )
                .unwrap()
        );
        // The same result again, or one for an attempt that is not the game's, does not count.
        assert!(
            !store
                .record_result(
                    &first.game,
                    1,
                    &result_of(&first.game),
                    5.0,
                    folder,
                    &Changes {
                        streaks: &[(one, 2)],
                        data: &[],
                    },
                )
                .unwrap()
        );
        store.record_harness_fault(1, 1, "boom", false).unwrap();
        let retried = claim(&[]).unwrap();
        assert_eq!((retried.game.index, retried.attempt), (1, 2));
        assert!(
            !store
                .record_result(
                    &retried.game,
                    1,
                    &result_of(&retried.game),
                    5.0,
                    folder,
                    &Changes::default(),
                )
                .unwrap()
        );
        store.record_harness_fault(1, 2, "boom", true).unwrap();
        // Games with a refused bot are left in the queue.
        let refused = (0..3).find(|b| !schedule[3].seats.contains(b)).unwrap();
        let next = claim(&[refused]).unwrap();
        assert!(!next.game.seats.contains(&refused));
        assert_eq!(next.game.index, 3);
        assert_eq!(store.unplayed(&[]).unwrap(), 2);
        store.bench(2, "broken").unwrap();
        store.bench(2, "again").unwrap();
        drop(store);

        let store = Store::open(&path).unwrap();
        let results = store.results().unwrap();
        assert_eq!(results.len(), 2);
        assert_eq!(results[0].status, BotStatus::TimedOut);
        assert_eq!(results[0].faults.timed_out, 40);
        assert_eq!(results[0].bot, schedule[0].seats[0]);
        let progress = store.progress().unwrap();
        assert_eq!(
            (progress.done, progress.harness_failed, progress.running),
            (1, 1, 1)
        );
        assert_eq!(progress.harness_faults, 2);
        // A resume plays again what was running and what was given up, from a first attempt.
        store.requeue_unfinished().unwrap();
        assert_eq!(claim_index(&store, &me), Some((1, 1)));
        assert_eq!(store.meta("game").unwrap().as_deref(), Some("paths"));
        assert_eq!(store.bots().unwrap()[2], bot("c"));
        assert_eq!(store.benched().unwrap(), [(2, "broken".to_string())]);
        store.unbench(2).unwrap();
        assert_eq!(store.benched().unwrap(), []);
        // The streak was kept in the database, and is counted on after the reopening.
        let streak = |bot: usize| {
            store
                .db
                .value(
                    "SELECT start_failures FROM bots WHERE id = ?1",
                    params![bot],
                )
                .unwrap()
                .int()
                .unwrap()
        };
        assert_eq!((streak(one), streak(two)), (1, 0));
        store.unbench(one).unwrap();
        assert_eq!(
            streak(one),
            0,
            "a bot given its seats back starts a new streak"
        );
    }

    fn claim_index(store: &Store, me: &Claimant) -> Option<(u32, u32)> {
        let claimed = store.claim(me, &[], 3).unwrap()?;
        Some((claimed.game.index, claimed.attempt))
    }

    #[test]
    fn an_older_database_is_brought_to_the_latest_schema_and_its_faults_counted_by_kind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        // A tournament as koth first wrote them: schema version 1, no version in `meta`.
        let db = sql::Sqlite(rusqlite::Connection::open(&path).unwrap());
        schema::create(&db, 1).unwrap();
        db.0.execute_batch(
            "DELETE FROM meta;
             INSERT INTO meta VALUES ('name', 't'), ('game', 'paths'), ('seed', '1');
             INSERT INTO bots VALUES (0, 'a', '/tmp', '[\"true\"]', NULL, 'test'),
                 (1, 'b', '/tmp', '[\"true\"]', NULL, 'test');
             INSERT INTO games VALUES (0, 7, 'done', 1, 3.0), (1, 8, 'pending', 0, NULL);
             INSERT INTO seats VALUES (0, 0, 0), (0, 1, 1), (1, 0, 1), (1, 1, 0);
             INSERT INTO results (game, seat, bot, score, status, faults, answers,
                 max_wall_ms, total_wall_ms, near_misses)
             VALUES (0, 0, 0, 1.0, 'crashed', '[{\"bot\":\"a\",\"kind\":\"bad_output\",\
                 \"reason\":\"x\"},{\"bot\":\"a\",\"kind\":\"bad_output\",\"reason\":\"y\"},\
                 {\"bot\":\"a\",\"kind\":\"crashed\",\"reason\":\"z\"}]', 0, 0, 0, 0),
                 (0, 1, 1, 2.0, 'finished', '[]', 0, 0, 0, 0);",
        )
        .unwrap();
        drop(db);
        let store = Store::open(&path).unwrap();
        assert_eq!(schema::version(&*store.db).unwrap(), schema::LATEST);
        let results = store.results().unwrap();
        let expected = FaultCounts {
            bad_output: 2,
            crashed: 1,
            ..FaultCounts::default()
        };
        assert_eq!(results[0].faults, expected);
        assert_eq!(results[1].faults, FaultCounts::default());
        assert_eq!(store.benched().unwrap(), []);
        assert_eq!(store.bot_hashes().unwrap(), [None, None]);
        assert_eq!(claim_index(&store, &Claimant::new(30)), Some((1, 1)));
        drop(store);
        // Opened again, it is left as it is.
        assert_eq!(
            Store::open(&path).unwrap().results().unwrap()[0].faults,
            expected
        );
    }

    #[test]
    fn a_leaderboard_refuses_a_result_that_names_no_bot() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE);
        let schedule = super::super::schedule::schedule(2, 2, 1, 1);
        let store = Store::create(&path, &meta(), &[bot("a"), bot("b")], &schedule).unwrap();
        let game = store
            .claim(&Claimant::new(30), &[], 2)
            .unwrap()
            .unwrap()
            .game;
        store
            .record_result(
                &game,
                1,
                &result_of(&game),
                5.0,
                dir.path(),
                &Changes::default(),
            )
            .unwrap();
        assert!(crate::leaderboard_from(&store, dir.path()).is_ok());
        // As a damaged file read before the check of its pages has ended would hold it.
        store
            .db
            .execute("UPDATE results SET bot = 7 WHERE bot = 1", &[])
            .unwrap();
        let refused = crate::leaderboard_from(&store, dir.path()).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "a result of game 0 names bot 7, and there are 2 bots"
        );
    }
}
