//! The tables of a tournament, as versioned migrations that bring any older database up to
//! this koth's: a new database runs them all, an older one those it has not had. The version is
//! kept in `meta` (`schema_version`); databases from before versions (SQLite files of koth 0.1)
//! are version 1 with some later columns perhaps already there, so each SQLite step checks
//! before it adds. `docs/schema.md` describes the tables for people who query them.
//!
//! Both databases get the same tables and columns; only the types are spelt in each one's words
//! (PostgreSQL's integers are all `BIGINT` and its reals `DOUBLE PRECISION`, which is what
//! SQLite's `INTEGER` and `REAL` hold).

use anyhow::Context;

use super::sql::{Connection, Dialect, Value};

/// The schema this koth writes and reads.
pub(crate) const LATEST: i64 = 10;

/// The meta key of the schema's version.
const VERSION_KEY: &str = "schema_version";

/// The fault kinds counted in a `<kind>_faults` column of `results` (version 3).
pub(crate) const COUNTED_KINDS: [&str; 5] = [
    "timed_out",
    "crashed",
    "bad_output",
    "failed_to_start",
    "benched",
];

/// Version 1: the tournament as koth first kept it.
const FIRST: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, dir TEXT NOT NULL,
    command TEXT NOT NULL, build TEXT, origin TEXT NOT NULL);
-- state: pending, running, done, harness_failed (every attempt was a harness fault), or skipped
-- (a gauntlet's test had decided against that opponent before the game was played).
CREATE TABLE IF NOT EXISTS games (
    idx INTEGER PRIMARY KEY, seed BIGINT NOT NULL, state TEXT NOT NULL,
    attempts INTEGER NOT NULL, wall_ms REAL);
CREATE TABLE IF NOT EXISTS seats (
    game INTEGER NOT NULL, seat INTEGER NOT NULL, bot INTEGER NOT NULL,
    PRIMARY KEY (game, seat));
-- faults: the first of each kind (a JSON list).
CREATE TABLE IF NOT EXISTS results (
    game INTEGER NOT NULL, seat INTEGER NOT NULL, bot INTEGER NOT NULL,
    score REAL NOT NULL, status TEXT NOT NULL, faults TEXT NOT NULL,
    answers INTEGER NOT NULL, max_wall_ms REAL NOT NULL, total_wall_ms REAL NOT NULL,
    max_cpu_ms REAL, total_cpu_ms REAL, near_misses INTEGER NOT NULL,
    PRIMARY KEY (game, seat));
CREATE TABLE IF NOT EXISTS harness_faults (
    game INTEGER NOT NULL, attempt INTEGER NOT NULL, message TEXT NOT NULL);
";

/// Version 2: bots on the bench (not started in their games) and why.
const BENCH: &str =
    "CREATE TABLE IF NOT EXISTS bench (bot INTEGER PRIMARY KEY, reason TEXT NOT NULL);";

/// Version 5: what a game needs to be played by workers on many machines: who holds a running
/// game and until when (a lease its worker renews), each bot's content hash, and each game's
/// files, compressed, so that nothing depends on the disk of the machine that played it.
const WORKERS: [(&str, &str, &str); 3] = [
    ("games", "worker", "TEXT"),
    ("games", "lease_until", "BIGINT"),
    ("bots", "hash", "TEXT"),
];
const FILES: &str = "CREATE TABLE IF NOT EXISTS files (
    game INTEGER NOT NULL, path TEXT NOT NULL, size BIGINT NOT NULL, zstd BLOB NOT NULL,
    PRIMARY KEY (game, path));";

/// Version 8: learning bots' data (`koth_bot::data`). `bots.data_mb` is what a bot asks for
/// (NULL: it keeps no data; 0: `data = true`, the tournament's cap); `data_snapshots` each
/// snapshot once by its digest (a gzip-compressed tar); `bot_data` a bot's data now (no row:
/// an empty folder); `game_data` the snapshot each learning bot of a game started from, and
/// the one it left if that was kept (`kept` NULL, and `note` why, if it was not).
const DATA: &str = "
CREATE TABLE IF NOT EXISTS data_snapshots (
    digest TEXT PRIMARY KEY, bytes BIGINT NOT NULL, entries BIGINT NOT NULL,
    tgz BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS bot_data (bot INTEGER PRIMARY KEY, digest TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS game_data (
    game INTEGER NOT NULL, seat INTEGER NOT NULL, bot INTEGER NOT NULL,
    started TEXT NOT NULL, kept TEXT, note TEXT, PRIMARY KEY (game, seat));
CREATE INDEX IF NOT EXISTS game_data_by_bot ON game_data (bot, game);
CREATE INDEX IF NOT EXISTS seats_by_bot ON seats (bot, game);
";

/// Version 9: the records of games in progress that workers play (a line of each game's
/// `replay.jsonl` by its number from 1), which servers on other machines stream while it is
/// played; a game's rows go when its files are stored.
const LIVE: &str = "
CREATE TABLE IF NOT EXISTS live_records (
    game INTEGER NOT NULL, seq INTEGER NOT NULL, line TEXT NOT NULL, PRIMARY KEY (game, seq));
";

/// Version 10: what a claim reads to keep a learning bot to one game at a time, found without
/// walking every bot or every unfinished game: each claim of a shared database counts the
/// learning bots (a walk of every bot's row, 2.1 ms at 10,000 versions), and its check that a
/// learning bot is busy started from the running games, which it found by walking the whole
/// queue (10.7 ms a claim with 20,000 games queued; docs/benchmarks.md, "Fifth pass
/// (2026-11-30): PostgreSQL's claims and records"). Both indexes are partial: they hold the
/// learning bots and the running games only, so they stay small whatever the hill's size.
const CLAIM_INDEXES: &str = "
CREATE INDEX IF NOT EXISTS bots_learning ON bots (id) WHERE data_mb IS NOT NULL;
CREATE INDEX IF NOT EXISTS games_running ON games (idx) WHERE state = 'running';
";

/// `sql` in `dialect`'s words for the types.
fn typed(sql: &str, dialect: Dialect) -> String {
    match dialect {
        Dialect::Sqlite => sql.to_string(),
        Dialect::Postgres => sql
            .replace("INTEGER", "BIGINT")
            .replace("REAL", "DOUBLE PRECISION")
            .replace("BLOB", "BYTEA"),
    }
}

/// The version of the schema in `db` (1 for a database from before versions).
pub(crate) fn version(db: &dyn Connection) -> anyhow::Result<i64> {
    let row = db.row(
        "SELECT value FROM meta WHERE key = ?1",
        &[Value::from(VERSION_KEY)],
    )?;
    match row {
        None => Ok(1),
        Some(row) => {
            let text = row.text("value")?;
            text.parse()
                .with_context(|| format!("its schema version {text:?} is not a number"))
        }
    }
}

/// Brings `db` up to [`LATEST`], in one transaction (its tables may or may not exist yet; `meta`
/// must). Refuses a database a newer koth wrote.
pub(crate) fn migrate(db: &dyn Connection) -> anyhow::Result<()> {
    db.transaction(|db| {
        if db.dialect() == Dialect::Postgres {
            // Workers starting together would otherwise both add the same column.
            db.query(
                "SELECT pg_advisory_xact_lock(hashtext(current_schema()))::TEXT",
                &[],
            )?;
        }
        let from = version(db)?;
        anyhow::ensure!(
            from <= LATEST,
            "its schema is version {from}, newer than this koth's ({LATEST}): use a newer koth"
        );
        if from == LATEST {
            return Ok(());
        }
        for step in from + 1..=LATEST {
            apply(db, step).with_context(|| format!("cannot bring it to schema version {step}"))?;
        }
        set_version(db, LATEST)
    })
}

/// Creates the tables of schema version `upto` (1..=[`LATEST`]) in an empty database: a new
/// tournament with `LATEST`, an older one for tests of the migrations.
pub(crate) fn create(db: &dyn Connection, upto: i64) -> anyhow::Result<()> {
    db.batch(&typed(FIRST, db.dialect()))?;
    for step in 2..=upto {
        apply(db, step)?;
    }
    set_version(db, upto)
}

fn set_version(db: &dyn Connection, version: i64) -> anyhow::Result<()> {
    db.execute("DELETE FROM meta WHERE key = ?1", &[VERSION_KEY.into()])?;
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2)",
        &[VERSION_KEY.into(), version.to_string().into()],
    )?;
    Ok(())
}

/// Takes `db` from version `step - 1` to `step`.
fn apply(db: &dyn Connection, step: i64) -> anyhow::Result<()> {
    let dialect = db.dialect();
    match step {
        2 => db.batch(&typed(BENCH, dialect)),
        3 => {
            for kind in COUNTED_KINDS {
                let column = format!("{kind}_faults");
                if add_column(db, "results", &column, "INTEGER NOT NULL DEFAULT 0")? {
                    // Counted from the fault lists stored before (then whole).
                    let count = match dialect {
                        Dialect::Sqlite => format!(
                            "(SELECT COUNT(*) FROM json_each(results.faults)
                              WHERE json_extract(value, '$.kind') = '{kind}')"
                        ),
                        Dialect::Postgres => format!(
                            "(SELECT COUNT(*) FROM jsonb_array_elements(results.faults::jsonb) f
                              WHERE f->>'kind' = '{kind}')"
                        ),
                    };
                    db.batch(&format!("UPDATE results SET {column} = {count}"))?;
                }
            }
            Ok(())
        }
        4 => add_column(db, "bots", "protocols", "TEXT NOT NULL DEFAULT '{}'").map(drop),
        5 => {
            for (table, column, ty) in WORKERS {
                add_column(db, table, column, ty)?;
            }
            db.batch(&typed(FILES, dialect))
        }
        // Version 6: each bot's start-up failures in a row, kept with the bench so that a
        // resume, or another worker, carries the streak on.
        6 => add_column(db, "bots", "start_failures", "INTEGER NOT NULL DEFAULT 0").map(drop),
        // Version 7: a WASI bot's fuel per answer in the game (`FuelStats` as JSON; NULL for a
        // process), which the leaderboard merges over its games.
        7 => add_column(db, "results", "fuel", "TEXT").map(drop),
        8 => {
            add_column(db, "bots", "data_mb", "INTEGER")?;
            db.batch(&typed(DATA, dialect))
        }
        9 => db.batch(&typed(LIVE, dialect)),
        10 => db.batch(CLAIM_INDEXES),
        _ => anyhow::bail!("no schema version {step}"),
    }
}

/// Adds `column` to `table` unless it is there; returns whether it added it.
pub fn add_column(
    db: &dyn Connection,
    table: &str,
    column: &str,
    ty: &str,
) -> anyhow::Result<bool> {
    if columns(db, table)?.iter().any(|c| c == column) {
        return Ok(false);
    }
    db.batch(&format!(
        "ALTER TABLE {table} ADD COLUMN {column} {}",
        typed(ty, db.dialect())
    ))?;
    Ok(true)
}

/// The column names of `table` (none if there is no such table).
pub fn columns(db: &dyn Connection, table: &str) -> anyhow::Result<Vec<String>> {
    let rows = match db.dialect() {
        Dialect::Sqlite => db.query("SELECT name FROM pragma_table_info(?1)", &[table.into()])?,
        // The catalog, not `information_schema.columns` (a view whose planning costs tens of
        // milliseconds on a connection's first use): the hill reads it at each open.
        Dialect::Postgres => db.query(
            "SELECT attname::TEXT AS name FROM pg_attribute
             WHERE attrelid = to_regclass(quote_ident(current_schema()) || '.' || quote_ident(?1))
                 AND attnum > 0 AND NOT attisdropped",
            &[table.into()],
        )?,
    };
    rows.iter().map(|r| r.text("name")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sql::Sqlite;

    /// The plan's lines of `sql` on `db`.
    fn plan(db: &dyn Connection, sql: &str) -> String {
        let rows = db.query(&format!("EXPLAIN QUERY PLAN {sql}"), &[]).unwrap();
        let lines: Vec<String> = rows.iter().map(|r| r.text("detail").unwrap()).collect();
        lines.join("\n")
    }

    #[test]
    fn version_10_indexes_an_older_databases_learning_bots_and_running_games() {
        let sqlite = Sqlite(rusqlite::Connection::open_in_memory().unwrap());
        let db: &dyn Connection = &sqlite;
        create(db, 9).unwrap();
        db.batch(
            "INSERT INTO bots (id, name, dir, command, origin, data_mb) VALUES
                 (0, 'a', 'a', '[]', 't', NULL), (1, 'b', 'b', '[]', 't', 0);
             INSERT INTO games VALUES (0, 7, 'done', 1, 3.0, NULL, NULL),
                 (1, 8, 'running', 1, NULL, 'w', 10), (2, 9, 'pending', 0, NULL, NULL, NULL);",
        )
        .unwrap();
        migrate(db).unwrap();
        assert_eq!(version(db).unwrap(), LATEST);
        let learners = "SELECT COUNT(*) FROM bots WHERE data_mb IS NOT NULL";
        assert!(
            plan(db, learners).contains("bots_learning"),
            "{}",
            plan(db, learners)
        );
        assert_eq!(db.value(learners, &[]).unwrap().int().unwrap(), 1);
        let running = "SELECT idx FROM games WHERE state = 'running'";
        assert!(
            plan(db, running).contains("games_running"),
            "{}",
            plan(db, running)
        );
        assert_eq!(db.value(running, &[]).unwrap().int().unwrap(), 1);
        // Brought up to date, it is left as it is.
        migrate(db).unwrap();
        assert_eq!(version(db).unwrap(), LATEST);
    }
}
