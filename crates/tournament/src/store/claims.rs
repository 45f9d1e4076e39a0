//! The queue's claims: a game taken for a worker with its next attempt, its lease renewed while
//! it plays, and its result or harness fault recorded once, for that attempt only.

use std::path::Path;
use std::sync::atomic::Ordering;

use anyhow::Context;

use koth_game::MatchResult;

use super::sql::{Connection, Dialect, Row, Value};
use super::{
    Changes, DONE, GameState, HARNESS_FAILED, PENDING, RUNNING, Store, data, game_files, now,
    rows_of, status_name, without_bots,
};
use crate::schedule::ScheduledGame;

/// A game taken from the queue: what to play, and the attempt its result must name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    pub game: ScheduledGame,
    pub attempt: u32,
}

/// Who claims a game, and how long a claim lasts unless renewed (PostgreSQL only: SQLite's
/// folder lock already keeps every other koth out).
#[derive(Debug, Clone)]
pub struct Claimant {
    /// `host:pid:nonce`, unique among the workers of a database.
    pub worker: String,
    pub lease_s: u64,
}

impl Claimant {
    /// This process, as a worker: `host:pid:nonce`.
    pub fn new(lease_s: u64) -> Claimant {
        let host = nix::unistd::gethostname()
            .ok()
            .and_then(|h| h.into_string().ok())
            .unwrap_or_else(|| "localhost".into());
        let nonce: u32 = rand::random();
        Claimant {
            worker: format!("{host}:{}:{nonce:08x}", std::process::id()),
            lease_s,
        }
    }
}

impl Store {
    /// Takes the first game in the queue, none of whose bots is in `refused`, for `claimant`:
    /// marks it `running` with its next attempt. With PostgreSQL, a game whose lease ran out
    /// (its worker died, or lost the database) is in the queue too, and the lost attempt is
    /// recorded as a harness fault; a game that has had `attempts` attempts is given up instead.
    /// Workers never wait on each other: a game another is claiming is passed over
    /// (`FOR UPDATE SKIP LOCKED`).
    pub fn claim(
        &self,
        claimant: &Claimant,
        refused: &[usize],
        attempts: u32,
    ) -> anyhow::Result<Option<Claimed>> {
        loop {
            let Some(row) = self.claim_row(claimant, refused)? else {
                return Ok(None);
            };
            let index = row.int("idx")?;
            let attempt = row.int("attempts")? as u32;
            if GameState::of_column(&row.text("was")?)? == GameState::Running {
                self.record_lost_lease(
                    index,
                    attempt,
                    &row.opt_text("held_by")?.unwrap_or_default(),
                )?;
            }
            if attempt > attempts {
                // Given up; look further.
                self.db.execute(
                    &format!(
                        "UPDATE games SET state = '{HARNESS_FAILED}', worker = NULL WHERE idx = ?1"
                    ),
                    params![index],
                )?;
                continue;
            }
            return Ok(Some(claimed_of(&row)?));
        }
    }

    /// The row of one claim: the first game in the queue free to play, taken. A learning bot
    /// plays one game at a time, so in a shared database claims that may seat one take turns
    /// (an advisory lock held to the claim's commit), so that two workers never both see it
    /// free. Until a learning bot is seen, a claim takes only games that seat none, which need
    /// no turn, and asks in the same statement whether any exists, rather than in a round
    /// trip of its own before every claim.
    fn claim_row(&self, claimant: &Claimant, refused: &[usize]) -> anyhow::Result<Option<Row>> {
        let dialect = self.db.dialect();
        let worker_and_lease = params![claimant.worker.as_str(), claimant.lease_s as i64];
        if !self.is_shared() {
            return self.db.row(
                &claim_statement(dialect, refused, Learners::Wait),
                worker_and_lease,
            );
        }
        // A claim's commit does not wait for the disk: lost in a crash, the game is simply in
        // the queue again (and the result of the attempt it named refused).
        if !self.learners_seen.load(Ordering::Relaxed) {
            let sql = claim_statement(dialect, refused, Learners::Pass);
            let claimed = self
                .db
                .transaction_unflushed(|db| db.row(&sql, worker_and_lease))?;
            if let Some(row) = claimed {
                if row.int("learners")? > 0 {
                    self.learners_seen.store(true, Ordering::Relaxed);
                }
                return Ok(Some(row));
            }
            // Nothing without a learning bot: the queue is empty, or it holds their games.
            if self.db.value(LEARNERS, &[])?.int()? == 0 {
                return Ok(None);
            }
            self.learners_seen.store(true, Ordering::Relaxed);
        }
        let sql = claim_statement(dialect, refused, Learners::Wait);
        self.db.transaction_unflushed(|db| {
            db.query(
                "SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.claim'))::TEXT",
                &[],
            )?;
            db.row(&sql, worker_and_lease)
        })
    }

    /// Records, as a harness fault of the attempt before `attempt` of game `index`, that its
    /// worker `held_by` let its lease run out.
    fn record_lost_lease(&self, index: i64, attempt: u32, held_by: &str) -> anyhow::Result<()> {
        self.db.execute(
            "INSERT INTO harness_faults (game, attempt, message) VALUES (?1, ?2, ?3)",
            params![
                index,
                attempt - 1,
                format!(
                    "its worker {held_by} stopped renewing its claim (killed, or cut off \
                     from the database); the game went back to the queue"
                )
            ],
        )?;
        Ok(())
    }

    /// How many games are still to play or being played, but those with a bot in `refused`.
    pub fn unplayed(&self, refused: &[usize]) -> anyhow::Result<u32> {
        let refused_seats = without_bots(refused);
        Ok(self
            .db
            .value(
                &format!(
                    "SELECT COUNT(*) FROM games WHERE state IN ('{PENDING}', '{RUNNING}') \
                     {refused_seats}"
                ),
                &[],
            )?
            .int()? as u32)
    }

    /// Extends the leases of the games `claimant` is playing; returns how many it holds.
    pub fn renew(&self, claimant: &Claimant) -> anyhow::Result<u64> {
        self.db.execute(
            &format!(
                "UPDATE games SET lease_until = {} + ?2 WHERE worker = ?1 AND state = '{RUNNING}'",
                now(self.db.dialect())
            ),
            params![claimant.worker.as_str(), claimant.lease_s as i64],
        )
    }

    /// Records a finished game — its bots' results, its state, the start-failure streaks it
    /// changed (`streaks`: a bot and its failures at start-up in a row, kept with the bench so
    /// that a resume carries them on), and, in a shared database, the files of its folder `dir`
    /// (compressed), and its learning bots' data (`data`, [`data::record`]) — in one
    /// transaction. Returns `false`, recording nothing, if `attempt` is no
    /// longer the game's: its claim was lost and another worker has it, so this result must not
    /// count.
    pub fn record_result(
        &self,
        game: &ScheduledGame,
        attempt: u32,
        result: &MatchResult,
        wall_ms: f64,
        dir: &Path,
        changes: &Changes<'_>,
    ) -> anyhow::Result<bool> {
        let Changes { streaks, data } = *changes;
        anyhow::ensure!(
            result.bots.len() == game.seats.len(),
            "game {} returned {} results for {} bots",
            game.index,
            result.bots.len(),
            game.seats.len()
        );
        // Read and compressed before the transaction, so it is not held open meanwhile.
        let files = if self.is_shared() {
            game_files(dir)?
        } else {
            Vec::new()
        };
        if self.is_shared() && data.is_empty() && streaks.is_empty() {
            // The common case of a shared database in one statement, atomic on its own: one
            // round trip where a transaction takes four.
            return record_in_one_statement(&*self.db, game, attempt, result, wall_ms, &files);
        }
        self.db.transaction(|db| {
            let accepted = db.execute(
                &format!("UPDATE games SET state = '{DONE}', wall_ms = ?3, worker = NULL, lease_until = NULL
                 WHERE idx = ?1 AND attempts = ?2 AND state = '{RUNNING}'"),
                params![game.index, attempt, wall_ms],
            )?;
            if accepted == 0 {
                return Ok(false);
            }
            // One statement for the seats and one for the files: round trips are most of a
            // shared database's cost.
            insert_results(db, game, result)?;
            insert_files(db, game.index, &files)?;
            data::record(db, game.index, data)?;
            // Only the streaks that changed (none, while every bot starts), each its own row
            // lock, taken in the order of the bots so that two results never deadlock.
            let mut streaks = streaks.to_vec();
            streaks.sort_unstable();
            for (bot, failures) in streaks {
                db.execute(
                    "UPDATE bots SET start_failures = ?2 WHERE id = ?1",
                    params![bot, failures],
                )?;
            }
            Ok(true)
        })
    }

    /// Records a harness fault (koth's failure, not a bot's) of `attempt`, and puts the game
    /// back in the queue, or gives it up (`gave_up`). Nothing is recorded if the attempt is no
    /// longer the game's (its claim was lost).
    pub fn record_harness_fault(
        &self,
        game: u32,
        attempt: u32,
        message: &str,
        gave_up: bool,
    ) -> anyhow::Result<()> {
        let state = match gave_up {
            true => GameState::HarnessFailed,
            false => GameState::Pending,
        };
        self.db.transaction(|db| {
            let current = db.execute(
                &format!(
                    "UPDATE games SET state = ?3, worker = NULL, lease_until = NULL
                 WHERE idx = ?1 AND attempts = ?2 AND state = '{RUNNING}'"
                ),
                params![game, attempt, state.as_str()],
            )?;
            if current > 0 {
                db.execute(
                    "INSERT INTO harness_faults (game, attempt, message) VALUES (?1, ?2, ?3)",
                    params![game, attempt, message],
                )?;
            }
            Ok(())
        })
    }
}

/// How many learning bots the database holds.
const LEARNERS: &str = "SELECT COUNT(*) FROM bots WHERE data_mb IS NOT NULL";

/// Which games a claim may take, as to learning bots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Learners {
    /// Any game but one seating a learning bot that another running game holds.
    Wait,
    /// Only games seating no learning bot; the row also says how many learning bots there are
    /// (`learners`).
    Pass,
}

/// The statement that claims the first game in the queue none of whose bots is in `refused`.
/// With SQLite one koth plays the tournament (the folder lock), so a running game is its own;
/// with PostgreSQL a game whose lease ran out is in the queue too, and a game another worker is
/// claiming is passed over (`FOR UPDATE SKIP LOCKED`).
fn claim_statement(dialect: Dialect, refused: &[usize], learners: Learners) -> String {
    let refused_seats = without_bots(refused);
    let now = now(dialect);
    let learner_seated = "SELECT 1 FROM seats mine
                 JOIN bots learner ON learner.id = mine.bot AND learner.data_mb IS NOT NULL";
    let (free, counted) = match learners {
        // A learning bot plays one game at a time, each from the data the one before left: a
        // game holding a learning bot that another running game holds waits.
        Learners::Wait => {
            let live = match dialect {
                Dialect::Sqlite => String::new(),
                Dialect::Postgres => format!("AND busy.lease_until >= {now}"),
            };
            let busy = format!(
                "AND NOT EXISTS ({learner_seated}
                 JOIN seats theirs ON theirs.bot = mine.bot AND theirs.game <> mine.game
                 JOIN games busy ON busy.idx = theirs.game AND busy.state = '{RUNNING}' {live}
                 WHERE mine.game = games.idx)"
            );
            (busy, String::new())
        }
        Learners::Pass => (
            format!("AND NOT EXISTS ({learner_seated} WHERE mine.game = games.idx)"),
            format!(", ({LEARNERS}) AS learners"),
        ),
    };
    match dialect {
        Dialect::Sqlite => format!(
            "UPDATE games SET state = '{RUNNING}', attempts = attempts + 1, worker = ?1,
                 lease_until = {now} + ?2
             WHERE idx = (SELECT idx FROM games WHERE state = '{PENDING}' {refused_seats}
                 {free} ORDER BY idx LIMIT 1)
             RETURNING idx, seed, attempts, '{PENDING}' AS was, NULL AS held_by,
                 (SELECT group_concat(bot, ',') FROM
                     (SELECT bot FROM seats WHERE game = games.idx ORDER BY seat)) AS seats
                 {counted}"
        ),
        Dialect::Postgres => format!(
            "WITH next AS (
                 SELECT idx, state AS was, worker AS held_by FROM games
                 WHERE (state = '{PENDING}' OR (state = '{RUNNING}' AND lease_until < {now}))
                     {refused_seats} {free}
                 ORDER BY idx LIMIT 1 FOR UPDATE SKIP LOCKED)
             UPDATE games SET state = '{RUNNING}', attempts = attempts + 1, worker = ?1,
                 lease_until = {now} + ?2
             FROM next WHERE games.idx = next.idx
             RETURNING games.idx, games.seed, games.attempts, next.was, next.held_by,
                 (SELECT string_agg(bot::TEXT, ',' ORDER BY seat) FROM seats
                  WHERE game = games.idx) AS seats {counted}"
        ),
    }
}

/// The game and attempt a claim's returned `row` names.
fn claimed_of(row: &Row) -> anyhow::Result<Claimed> {
    let (index, seed) = (row.int("idx")?, row.int("seed")?);
    let attempt = row.int("attempts")? as u32;
    let seats = row.opt_text("seats")?.unwrap_or_default();
    let seats = seats
        .split(',')
        .map(|bot| bot.parse::<usize>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("game {index} has seats {seats:?}"))?;
    Ok(Claimed {
        game: ScheduledGame {
            index: index as u32,
            seed: seed as u64,
            seats,
        },
        attempt,
    })
}

/// The columns of `results` a game's result fills, with their PostgreSQL types (which a
/// parameter of a `VALUES` list that is not an `INSERT`'s own must be given).
const RESULT_COLUMNS: [(&str, &str); 18] = [
    ("game", "BIGINT"),
    ("seat", "BIGINT"),
    ("bot", "BIGINT"),
    ("score", "DOUBLE PRECISION"),
    ("status", "TEXT"),
    ("faults", "TEXT"),
    ("answers", "BIGINT"),
    ("max_wall_ms", "DOUBLE PRECISION"),
    ("total_wall_ms", "DOUBLE PRECISION"),
    ("max_cpu_ms", "DOUBLE PRECISION"),
    ("total_cpu_ms", "DOUBLE PRECISION"),
    ("near_misses", "BIGINT"),
    ("timed_out_faults", "BIGINT"),
    ("crashed_faults", "BIGINT"),
    ("bad_output_faults", "BIGINT"),
    ("failed_to_start_faults", "BIGINT"),
    ("benched_faults", "BIGINT"),
    ("fuel", "TEXT"),
];

/// The columns of `files` a game's stored file fills, with their PostgreSQL types.
const FILE_COLUMNS: [(&str, &str); 4] = [
    ("game", "BIGINT"),
    ("path", "TEXT"),
    ("size", "BIGINT"),
    ("zstd", "BYTEA"),
];

/// Records a finished game in a shared database in one statement (PostgreSQL's data-modifying
/// `WITH`): its state, its results and its files, the results and files only if its claim is
/// still `attempt`'s. Returns whether it was.
fn record_in_one_statement(
    db: &dyn Connection,
    game: &ScheduledGame,
    attempt: u32,
    result: &MatchResult,
    wall_ms: f64,
    files: &[(String, usize, Vec<u8>)],
) -> anyhow::Result<bool> {
    let mut values = params![game.index, attempt, wall_ms].to_vec();
    let results = result_values(game, result)?;
    let seated = typed_rows(values.len(), game.seats.len(), &RESULT_COLUMNS);
    values.extend(results);
    let stored = if files.is_empty() {
        String::new()
    } else {
        let rows = typed_rows(values.len(), files.len(), &FILE_COLUMNS);
        values.extend(file_values(game.index, files));
        format!(
            ", stored AS (INSERT INTO files ({}) SELECT v.* FROM accepted, (VALUES {rows}) AS v)",
            names_of(&FILE_COLUMNS)
        )
    };
    let accepted = db
        .value(
            &format!(
                "WITH accepted AS (
                     UPDATE games SET state = '{DONE}', wall_ms = ?3, worker = NULL,
                         lease_until = NULL
                     WHERE idx = ?1 AND attempts = ?2 AND state = '{RUNNING}' RETURNING idx),
                 seated AS (INSERT INTO results ({}) SELECT v.* FROM accepted,
                     (VALUES {seated}) AS v) {stored}
                 SELECT COUNT(*) FROM accepted",
                names_of(&RESULT_COLUMNS)
            ),
            &values,
        )?
        .int()?;
    Ok(accepted > 0)
}

/// `columns`' names, joined by commas.
fn names_of(columns: &[(&str, &str)]) -> String {
    let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
    names.join(", ")
}

/// `rows` rows of parameters for `columns`, each cast to its column's type, numbered on from
/// `before` parameters: `(?4::BIGINT, ?5::TEXT), (?6::BIGINT, ?7::TEXT)`.
fn typed_rows(before: usize, rows: usize, columns: &[(&str, &str)]) -> String {
    let row = |r: usize| {
        let params: Vec<String> = (0..columns.len())
            .map(|c| format!("?{}::{}", before + r * columns.len() + c + 1, columns[c].1))
            .collect();
        format!("({})", params.join(", "))
    };
    (0..rows).map(row).collect::<Vec<_>>().join(", ")
}

/// A game's results as `results`' values, [`RESULT_COLUMNS`] a seat.
fn result_values(game: &ScheduledGame, result: &MatchResult) -> anyhow::Result<Vec<Value>> {
    let mut values = Vec::new();
    for (seat, (bot, outcome)) in game.seats.iter().zip(&result.bots).enumerate() {
        let t = &outcome.timing;
        let counts = &outcome.fault_counts;
        values.extend([
            Value::from(game.index),
            seat.into(),
            (*bot).into(),
            outcome.score.into(),
            status_name(outcome.status).into(),
            serde_json::to_string(&outcome.faults)?.into(),
            (t.answers as i64).into(),
            t.max_wall_ms.into(),
            t.total_wall_ms.into(),
            t.max_cpu_ms.into(),
            t.total_cpu_ms.into(),
            (t.near_misses as i64).into(),
            (counts.timed_out as i64).into(),
            (counts.crashed as i64).into(),
            (counts.bad_output as i64).into(),
            (counts.failed_to_start as i64).into(),
            (counts.benched as i64).into(),
            t.fuel
                .as_ref()
                .map(serde_json::to_string)
                .transpose()?
                .into(),
        ]);
    }
    Ok(values)
}

/// A game's stored files as `files`' values, [`FILE_COLUMNS`] a file.
fn file_values(game: u32, files: &[(String, usize, Vec<u8>)]) -> Vec<Value> {
    let mut values = Vec::new();
    for (path, size, zstd) in files {
        values.extend([
            Value::from(game),
            path.as_str().into(),
            (*size as i64).into(),
            zstd.clone().into(),
        ]);
    }
    values
}

/// Inserts a game's results, a row per seat, in one statement.
fn insert_results(
    db: &dyn Connection,
    game: &ScheduledGame,
    result: &MatchResult,
) -> anyhow::Result<()> {
    db.execute(
        &format!(
            "INSERT INTO results ({}) VALUES {}",
            names_of(&RESULT_COLUMNS),
            rows_of(game.seats.len(), RESULT_COLUMNS.len())
        ),
        &result_values(game, result)?,
    )?;
    Ok(())
}

/// Inserts a game's stored files (path, size, compressed bytes), if any, in one statement.
fn insert_files(
    db: &dyn Connection,
    game: u32,
    files: &[(String, usize, Vec<u8>)],
) -> anyhow::Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    db.execute(
        &format!(
            "INSERT INTO files ({}) VALUES {}",
            names_of(&FILE_COLUMNS),
            rows_of(files.len(), FILE_COLUMNS.len())
        ),
        &file_values(game, files),
    )?;
    Ok(())
}
