//! A tournament in SQLite: `results.sqlite` in the tournament folder, in WAL mode so that
//! `koth tournament status`, `koth leaderboard` and `koth serve` read while a run writes.

use std::path::Path;

use anyhow::Context;
use rusqlite::OpenFlags;

use super::schema;
use super::sql::{Connection, Sqlite};
use super::{ScheduledGame, Source, Store};
use koth_bot::BotSpec;

pub const FILE: &str = "results.sqlite";

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
        let db = Sqlite(connect(&partial)?);
        (&db as &dyn Connection)
            .transaction(|db| Store::write_tournament(db, meta, bots, None, schedule))?;
        // Closing checkpoints the write-ahead log into the file, which can then be renamed.
        db.0.close()
            .map_err(|(_, e)| e)
            .with_context(|| format!("cannot write {}", partial.display()))?;
        std::fs::rename(&partial, path).with_context(|| {
            format!("cannot rename {} to {}", partial.display(), path.display())
        })?;
        Ok(Store::new(
            Box::new(Sqlite(connect(path)?)),
            Source::Sqlite(path.to_path_buf()),
        ))
    }

    /// A second connection to the same database, for a thread of its own (the hill's refit,
    /// off the games' path): the one `hill run` of a hill has two, while a worker has one
    /// connection for all it plays (`store::Database`). A file is not checked again: this
    /// store's own open checked it and brought it up to date (each check reads the whole file,
    /// 3.5 minutes at 10,000,000 games, and `hill run` opens four connections or more).
    pub fn reconnect(&self) -> anyhow::Result<Store> {
        match &self.source {
            super::Source::Sqlite(path) => Ok(Store::new(
                Box::new(Sqlite(connect(path)?)),
                Source::Sqlite(path.clone()),
            )),
            super::Source::Postgres(address) => Store::open_postgres(&address.url, &address.name),
        }
    }

    /// Opens the database of an existing tournament folder's file, after checking that it is
    /// one, and brings an older one up to this koth's schema: a damaged file, or another
    /// program's database, is one error naming the file, never a panic later on a missing table
    /// or a bot index that points nowhere. The check reads only, so a file that is not koth's is
    /// left as it was.
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        let checked = Store::open_read_only(path)?;
        drop(checked);
        let db = Sqlite(connect(path)?);
        schema::migrate(&db as &dyn Connection)
            .with_context(|| format!("cannot update {}", path.display()))?;
        Ok(Store::new(Box::new(db), Source::Sqlite(path.to_path_buf())))
    }

    /// Opens a tournament's database to read only, as the dashboard does while a run writes it:
    /// nothing is changed, not even an older database brought up to date.
    pub fn open_read_only(path: &Path) -> anyhow::Result<Store> {
        let store = Store::open_read_only_unpaged(path)?;
        store.check_pages()?;
        Ok(store)
    }

    /// [`Store::open_read_only`] with every check but the pages' ([`Store::check_pages`]): the
    /// file's header, its schema and meta, its bots; what reads only the first pages, in
    /// milliseconds whatever the file's size. A server starts on it and checks the pages behind
    /// (`koth serve`: 108 s for a file of 4 GB), refusing the file if that check fails.
    pub fn open_read_only_unpaged(path: &Path) -> anyhow::Result<Store> {
        let store = Store::reopen_read_only(path)?;
        check_schema(&*store.db).with_context(|| refused(path))?;
        Ok(store)
    }

    /// Checks every page of the file (SQLite's `quick_check`) and that every seat and result
    /// names one of its bots: a read of the whole file, the part of [`Store::open_read_only`]'s
    /// checks that grows with the games.
    pub fn check_pages(&self) -> anyhow::Result<()> {
        let path = match &self.source {
            Source::Sqlite(path) => path,
            Source::Postgres(_) => return Ok(()),
        };
        check_contents(&*self.db).with_context(|| refused(path))
    }

    /// Opens to read only, without the checks, a database [`Store::open_read_only`] already
    /// checked: the integrity check reads the whole file, which a dashboard answering many
    /// requests about a large tournament cannot afford on every one.
    pub fn reopen_read_only(path: &Path) -> anyhow::Result<Store> {
        check_exists(path)?;
        // Without SQLite's own lock on each call, as `Connection::open`'s default flags have it:
        // a rusqlite connection is used by one thread at a time, and the lock taken for each of
        // a row's columns was a tenth of `koth leaderboard`'s time at 10,000 versions.
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = rusqlite::Connection::open_with_flags(path, flags)
            .with_context(|| format!("cannot open the results database {}", path.display()))?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        Ok(Store::new(
            Box::new(Sqlite(conn)),
            Source::Sqlite(path.to_path_buf()),
        ))
    }
}

fn connect(path: &Path) -> anyhow::Result<rusqlite::Connection> {
    let conn = rusqlite::Connection::open(path)
        .with_context(|| format!("cannot open the results database {}", path.display()))?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .with_context(|| format!("cannot use the results database {}", path.display()))?;
    // Readers (status, leaderboard) may meet a writer mid-commit: wait rather than fail.
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    Ok(conn)
}

/// What a refused database is said to be.
fn refused(path: &Path) -> String {
    format!(
        "{} is not a koth tournament database, or is damaged",
        path.display()
    )
}

/// Checks that `conn` holds a koth tournament: every table of the first schema with its columns
/// (later ones are added when a writer opens it), a schema no newer than this koth's, and the
/// meta keys a tournament is started with. It reads the schema and a few rows, never the games.
fn check_schema(db: &dyn Connection) -> anyhow::Result<()> {
    let first = Sqlite(rusqlite::Connection::open_in_memory()?);
    let first: &dyn Connection = &first;
    schema::create(first, 1)?;
    for table in first.query(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
        &[],
    )? {
        let table = table.text("name")?;
        let wanted = schema::columns(first, &table)?;
        let found = schema::columns(db, &table)?;
        anyhow::ensure!(!found.is_empty(), "it has no table `{table}`");
        if let Some(missing) = wanted.iter().find(|c| !found.contains(c)) {
            anyhow::bail!("its table `{table}` has no column `{missing}`");
        }
    }
    schema::version(db)?;
    for key in ["name", "game", "seed"] {
        let value = db.row("SELECT value FROM meta WHERE key = ?1", &[key.into()])?;
        anyhow::ensure!(value.is_some(), "its `meta` table has no `{key}`");
    }
    Ok(())
}

/// Checks that the file of `conn` is intact and that its bot numbers name bots (ids `0..n`, as
/// the runner indexes its bot list by them): a read of every page.
fn check_contents(db: &dyn Connection) -> anyhow::Result<()> {
    let integrity = db.value("PRAGMA quick_check", &[])?.text()?;
    anyhow::ensure!(integrity == "ok", "integrity check: {integrity}");
    let bots = db.value("SELECT COUNT(*) FROM bots", &[])?.int()?;
    for (table, column) in [("bots", "id"), ("seats", "bot"), ("results", "bot")] {
        let stray = db.row(
            &format!(
                "SELECT quote({column}) AS stray FROM {table} \
                 WHERE typeof({column}) <> 'integer' OR {column} < 0 OR {column} >= ?1 LIMIT 1"
            ),
            &[bots.into()],
        )?;
        if let Some(stray) = stray {
            anyhow::bail!(
                "`{table}.{column}` = {} is not one of its {bots} bots",
                stray.text("stray")?
            );
        }
    }
    Ok(())
}

/// Fails, naming the file, unless the results database `path` exists.
pub fn check_exists(path: &Path) -> anyhow::Result<()> {
    anyhow::ensure!(
        path.is_file(),
        "{} does not exist: is this a tournament folder?",
        path.display()
    );
    Ok(())
}
