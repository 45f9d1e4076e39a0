//! What a hill keeps beside a tournament's tables, in the same database (SQLite file or
//! PostgreSQL schema): each bot's versions, why each game was chosen and whether it is rated,
//! the rating history, the last fit and the kings. A hill's versions are the tournament's
//! `bots` (so a game's seats, results, claims and files are a tournament's, played by the same
//! runner); these tables are new ones, and no tournament table is altered (an index on
//! `results` by bot is added).

use skillratings::weng_lin::WengLinRating;

use koth_bot::{BotSpec, FuelFigures, FuelStats};
use koth_tournament::schedule::ScheduledGame;
use koth_tournament::store::schema::{add_column, columns};
use koth_tournament::store::sql::Row;
pub use koth_tournament::store::sql::{Connection, Dialect, Value};
pub(crate) use koth_tournament::store::{DONE, PENDING, RUNNING};
use koth_tournament::store::{data, fuel_of};

pub mod authors;
pub(crate) mod contest;
mod fit;
#[cfg(test)]
pub(crate) mod fixture;
mod games;
mod history;
pub mod logs;
mod rated;
mod rating;
pub mod records;
pub mod submissions;
mod summary;

pub(crate) use fit::*;
pub(crate) use games::{each_game_from, read_below};
pub(crate) use history::history;
#[cfg(test)]
pub(crate) use history::history_in_pages;
use history::{count_lineups, count_pairs, count_presence, lineup_key};
pub(crate) use rated::add_rated;
pub(crate) use rating::*;
pub(crate) use summary::fill as fill_records;

/// The hill's tables. `state` of a version: `active` (scheduled unless `suspended`), `replaced`
/// (a newer version of its bot is active) or `retired`. `counted_from`: the first game its
/// faults count from for suspension (a resumed version starts afresh).
const TABLES: &str = "
CREATE TABLE IF NOT EXISTS hill_versions (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, version INTEGER NOT NULL, digest TEXT NOT NULL,
    state TEXT NOT NULL, suspended TEXT, added_at BIGINT NOT NULL,
    mu REAL NOT NULL, sigma REAL NOT NULL, games INTEGER NOT NULL, faulted INTEGER NOT NULL,
    last_game INTEGER, counted_from INTEGER NOT NULL, UNIQUE (name, version));
CREATE TABLE IF NOT EXISTS hill_games (
    game INTEGER PRIMARY KEY, reason TEXT NOT NULL, rated INTEGER NOT NULL,
    chosen_at BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS hill_ratings (
    game INTEGER NOT NULL, version INTEGER NOT NULL, mu REAL NOT NULL, sigma REAL NOT NULL,
    PRIMARY KEY (game, version));
CREATE TABLE IF NOT EXISTS hill_fit (
    version INTEGER PRIMARY KEY, rating REAL NOT NULL, half_width REAL NOT NULL,
    games INTEGER NOT NULL, fitted_games INTEGER NOT NULL);
-- Each current version's fitted figure over time: a row per fit in which it had played more
-- games than at the last (so at most a row per game it played), at the hill's last game then.
CREATE TABLE IF NOT EXISTS hill_fit_history (
    version INTEGER NOT NULL, game INTEGER NOT NULL, rating REAL NOT NULL,
    half_width REAL NOT NULL, PRIMARY KEY (version, game));
CREATE TABLE IF NOT EXISTS hill_kings (
    version INTEGER NOT NULL, since_game INTEGER NOT NULL, since BIGINT NOT NULL);
-- Per pair of versions (a < b): the rated games they played together, and in how many they
-- scored alike; what matchmaking estimates a game's expected gain from.
CREATE TABLE IF NOT EXISTS hill_pairs (
    a INTEGER NOT NULL, b INTEGER NOT NULL, games INTEGER NOT NULL, alike INTEGER NOT NULL,
    PRIMARY KEY (a, b));
-- Per version, the rated games it played and in how many every seat scored alike; and the same
-- of the whole hill (one row): what matchmaking estimates a line-up's chance of a game that
-- pays anyone from (a game without a version that others need ends all alike).
CREATE TABLE IF NOT EXISTS hill_presence (
    version INTEGER PRIMARY KEY, games INTEGER NOT NULL, alike INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS hill_outcomes (
    id INTEGER PRIMARY KEY CHECK (id = 0), games INTEGER NOT NULL, alike INTEGER NOT NULL);
-- Per line-up (its versions' ids, ascending, joined by commas): its rated games and in how
-- many every seat scored alike; matchmaking never repeats one whose every game ended alike
-- while another line-up is untried.
CREATE TABLE IF NOT EXISTS hill_lineups (
    lineup TEXT PRIMARY KEY, games INTEGER NOT NULL, alike INTEGER NOT NULL);
-- A contest's final games (`contest::step`): each one's round and table (its seed's), and the
-- game it plays again after every attempt of that one failed by the harness.
CREATE TABLE IF NOT EXISTS hill_final (
    game INTEGER PRIMARY KEY, round INTEGER NOT NULL, tbl INTEGER NOT NULL, replay_of INTEGER);
-- A bot's games and ratings, read by its page and by suspension, without reading every game's.
CREATE INDEX IF NOT EXISTS hill_results_by_bot ON results (bot, game);
CREATE INDEX IF NOT EXISTS hill_ratings_by_version ON hill_ratings (version, game);
-- The queue and the games running, in order: a claim takes the first of them, and without it
-- walked every game played before (2.9 s a claim, 50 workers on PostgreSQL with a million
-- games played; docs/benchmarks.md). Written as an OR, which both SQLite and PostgreSQL find
-- implied by the claim's own condition.
CREATE INDEX IF NOT EXISTS hill_games_unfinished ON games (idx)
    WHERE state = 'pending' OR state = 'running';
";

/// A shared hill's versions as built, for workers on other machines: each version's folder
/// once per digest (its `hill_versions.digest`, taken before the build), as a `.tar.gz`, with
/// `built`, the content digest of the folder as built, which a worker checks after unpacking.
pub(crate) const FILES_TABLE: &str = "
CREATE TABLE IF NOT EXISTS hill_files (
    digest TEXT PRIMARY KEY, built TEXT NOT NULL, size BIGINT NOT NULL, tgz BYTEA NOT NULL);
";

/// Creates the hill's tables if they are not there (in PostgreSQL, its version files' too).
pub(crate) fn create_tables(db: &dyn Connection) -> anyhow::Result<()> {
    let sql = match db.dialect() {
        Dialect::Sqlite => TABLES.to_string(),
        Dialect::Postgres => {
            TABLES
                .replace("INTEGER", "BIGINT")
                .replace("REAL", "DOUBLE PRECISION")
                + FILES_TABLE
        }
    };
    db.batch(&sql)?;
    // A hill made before versions kept their fuel.
    add_column(db, "hill_versions", "fuel", "TEXT")?;
    // A hill made before its kings were numbered in the order they were crowned (two crowned
    // at the same game in the same second were told apart by chance).
    add_column(db, "hill_kings", "seq", "BIGINT")?;
    // A hill made before `hill_pairs`, `hill_presence` or `hill_lineups` existed: counted once
    // from its rated games.
    count_presence(db)?;
    count_lineups(db)?;
    count_pairs(db)?;
    summary::create_tables(db)
}

/// A version's folder as built, packed for a shared hill's database.
#[derive(Debug, Clone)]
pub(crate) struct Packed {
    /// The content digest of the folder as built.
    pub built: String,
    pub tgz: Vec<u8>,
}

/// The packed folder of the version of digest `digest`, if the database holds it.
pub(crate) fn packed(db: &dyn Connection, digest: &str) -> anyhow::Result<Option<Packed>> {
    db.row(
        "SELECT built, tgz FROM hill_files WHERE digest = ?1",
        &[digest.into()],
    )?
    .map(|r| {
        Ok(Packed {
            built: r.text("built")?,
            tgz: r.bytes("tgz")?.to_vec(),
        })
    })
    .transpose()
}

/// Takes the lock of the one `hill run` of a shared hill, held by this connection until it
/// closes (a killed run's with it); fails if another run holds it. (A hill in a folder has its
/// folder lock instead.)
pub(crate) fn lock_run(db: &dyn Connection, what: &str) -> anyhow::Result<()> {
    let taken = db
        .value(
            "SELECT pg_try_advisory_lock(4243, hashtext(current_schema()::TEXT))",
            &[],
        )?
        .int()?;
    anyhow::ensure!(
        taken == 1,
        "{what} is being played by another `koth hill run`: one run chooses a hill's games \
         (`koth worker --db URL` plays them on more machines)"
    );
    Ok(())
}

/// A version as stored.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Version {
    pub id: usize,
    pub name: String,
    pub version: u32,
    pub digest: String,
    pub state: VersionState,
    pub suspended: Option<String>,
    pub added_at: i64,
    pub mu: f64,
    pub sigma: f64,
    pub games: u32,
    pub faulted: u32,
    pub last_game: Option<u32>,
    /// A WASI version's fuel per answer over its rated games; none for a process.
    #[serde(skip)]
    pub fuel: Option<FuelStats>,
}

/// The kinds of fault counted against a version, as `results` names their columns
/// (`{kind}_faults`).
pub(crate) const FAULT_KINDS: [&str; 4] = ["timed_out", "crashed", "bad_output", "failed_to_start"];

/// A version's state, as every page and command says it (`active`, `suspended`, `replaced`,
/// `retired` in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VersionState {
    /// Its bot's current version, scheduled.
    Active,
    /// Its bot's current version, not scheduled until resumed: the column's `active` with a
    /// reason in `suspended`, read as one state so every page says the same.
    Suspended,
    /// Another version of its bot is active (a newer one, or an older one rolled back to).
    Replaced,
    /// Its bot no longer plays.
    Retired,
}

impl VersionState {
    /// The state of a `hill_versions` row: its `state` column, and whether it has a reason
    /// in `suspended`.
    pub(crate) fn of_row(state: &str, suspended: bool) -> anyhow::Result<VersionState> {
        let stored = [
            VersionState::Active,
            VersionState::Replaced,
            VersionState::Retired,
        ];
        Ok(match stored.into_iter().find(|s| s.as_str() == state) {
            Some(VersionState::Active) if suspended => VersionState::Suspended,
            Some(stored) => stored,
            None => anyhow::bail!("a version's state {state:?} is none koth knows"),
        })
    }

    /// The state as pages say it and, but `suspended`, as the `state` column holds it: the
    /// one place each is spelt.
    pub const fn as_str(self) -> &'static str {
        match self {
            VersionState::Active => "active",
            VersionState::Suspended => "suspended",
            VersionState::Replaced => "replaced",
            VersionState::Retired => "retired",
        }
    }
}

// The states as statements write them (`state = '{ACTIVE}'`).
pub(crate) const ACTIVE: &str = VersionState::Active.as_str();
const REPLACED: &str = VersionState::Replaced.as_str();
const RETIRED: &str = VersionState::Retired.as_str();

impl VersionState {
    /// Whether a version in this state is its bot's current version, scheduled or suspended.
    pub(crate) const fn current(self) -> bool {
        matches!(self, VersionState::Active | VersionState::Suspended)
    }
}

impl std::fmt::Display for VersionState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Version {
    /// Whether matchmaking may choose it.
    pub(crate) fn scheduled(&self) -> bool {
        self.state == VersionState::Active
    }

    /// Whether it is its bot's current version, scheduled or suspended.
    pub(crate) fn current(&self) -> bool {
        self.state.current()
    }

    /// `name v2`.
    pub(crate) fn label(&self) -> String {
        label(&self.name, self.version)
    }
}

/// A version as every page and message names it: `name v2`.
fn label(name: &str, version: u32) -> String {
    format!("{name} v{version}")
}

/// Every version, by id, in one statement: one snapshot, so a version added and the one it
/// replaced are never both seen active (pages read apart would be apart in time).
pub(crate) fn versions(db: &dyn Connection) -> anyhow::Result<Vec<Version>> {
    let select = versions_select(db, "")?;
    db.query(&format!("{select} ORDER BY id"), &[])?
        .iter()
        .map(version_of)
        .collect()
}

/// Runs `each` on every row of `select` (a query of one table, without a `WHERE`), in the order
/// of its primary key `key` (its columns, as SQL lists them), `page` rows at a time. `after`
/// gives a row's key as parameters. The pages are not one snapshot: this serves the tables
/// only the hill's run writes, read by that run.
fn in_pages(
    db: &dyn Connection,
    page: usize,
    select: &str,
    key: &str,
    after: impl Fn(&Row) -> anyhow::Result<Vec<Value>>,
    mut each: impl FnMut(&Row) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let places: Vec<String> = (1..=key.split(',').count())
        .map(|k| format!("?{k}"))
        .collect();
    let first = format!("{select} ORDER BY {key} LIMIT {page}");
    let next = format!(
        "{select} WHERE ({key}) > ({}) ORDER BY {key} LIMIT {page}",
        places.join(", ")
    );
    let mut rows = db.query(&first, &[])?;
    loop {
        for r in &rows {
            each(r)?;
        }
        match rows.last() {
            Some(last) if rows.len() == page => rows = db.query(&next, &after(last)?)?,
            _ => return Ok(()),
        }
    }
}

/// The versions of the bot called `name`, by id: a bot's page reads its own few, not the
/// hill's 10,000.
pub(crate) fn versions_named(db: &dyn Connection, name: &str) -> anyhow::Result<Vec<Version>> {
    let select = versions_select(db, "WHERE name = ?1")?;
    db.query(&format!("{select} ORDER BY id"), &[name.into()])?
        .iter()
        .map(version_of)
        .collect()
}

/// A version as the leaderboard lists it: only what the board shows of it, with its figure at
/// the last fit (none if that fit did not hold it).
#[derive(Debug, Clone)]
pub(crate) struct Listed {
    pub id: usize,
    pub name: String,
    pub version: u32,
    pub state: VersionState,
    pub suspended: Option<String>,
    pub mu: f64,
    pub sigma: f64,
    pub games: u32,
    pub faulted: u32,
    pub fuel: Option<FuelFigures>,
    pub fit: Option<StoredFit>,
}

impl Listed {
    /// `name v2`.
    pub(crate) fn label(&self) -> String {
        label(&self.name, self.version)
    }
}

/// Every version as the leaderboard lists it, by id, with the stored fit: one statement, so one
/// snapshot of both (a version added and the one it replaced are never both seen active, as
/// [`versions`] says), and no column the board does not show (a version's digest, its times):
/// the 10,000 versions' whole rows, then copied, were half of `koth leaderboard`'s time
/// (docs/benchmarks.md, the hill at 10,000 versions).
pub(crate) fn listed_versions(db: &dyn Connection) -> anyhow::Result<Vec<Listed>> {
    let mut listed = Vec::new();
    db.each_row(
        &format!(
            "SELECT v.id AS id, v.name AS name, v.version AS version, v.state AS state,
                 v.suspended AS suspended, v.mu AS mu, v.sigma AS sigma, v.games AS games,
                 v.faulted AS faulted, {} AS fuel, f.rating AS rating,
                 f.half_width AS half_width, f.games AS fitted
             FROM hill_versions v LEFT JOIN hill_fit f ON f.version = v.id ORDER BY v.id",
            fuel_column(db, "v.fuel")?
        ),
        &[],
        &mut |r| {
            listed.push(listed_of(r)?);
            Ok(())
        },
    )?;
    Ok(listed)
}

/// A version from its row of [`listed_versions`].
fn listed_of(r: &Row) -> anyhow::Result<Listed> {
    let id = r.int("id")? as usize;
    let suspended = r.opt_text("suspended")?;
    let fit = match r.opt_real("rating")? {
        Some(value) => Some(StoredFit {
            version: id,
            value,
            half_width: r.real("half_width")?,
            games: r.count("fitted")?,
        }),
        None => None,
    };
    Ok(Listed {
        id,
        state: VersionState::of_row(&r.text("state")?, suspended.is_some())?,
        suspended,
        name: r.text("name")?,
        version: r.count("version")?,
        mu: r.real("mu")?,
        sigma: r.real("sigma")?,
        games: r.count("games")?,
        faulted: r.count("faulted")?,
        fuel: fuel_of(r.get("fuel")?)?.as_ref().map(FuelStats::figures),
        fit,
    })
}

/// `column` (the versions' fuel, as a statement names it), or `NULL` in an older hill read
/// without being brought up to date (its leaderboard's), which has no fuel.
fn fuel_column<'a>(db: &dyn Connection, column: &'a str) -> anyhow::Result<&'a str> {
    Ok(
        match columns(db, "hill_versions")?.contains(&"fuel".to_string()) {
            true => column,
            false => "NULL",
        },
    )
}

/// The statement reading versions, with `filter` (an SQL `WHERE`, or nothing).
fn versions_select(db: &dyn Connection, filter: &str) -> anyhow::Result<String> {
    let fuel = fuel_column(db, "fuel")?;
    Ok(format!(
        "SELECT id, name, version, digest, state, suspended, added_at, mu, sigma, games,
             faulted, last_game, {fuel} AS fuel FROM hill_versions {filter}"
    ))
}

/// A version from its row of [`versions_select`].
fn version_of(r: &Row) -> anyhow::Result<Version> {
    let suspended = r.opt_text("suspended")?;
    let state = VersionState::of_row(&r.text("state")?, suspended.is_some())?;
    Ok(Version {
        id: r.int("id")? as usize,
        name: r.text("name")?,
        version: r.int("version")? as u32,
        digest: r.text("digest")?,
        state,
        suspended,
        added_at: r.int("added_at")?,
        mu: r.real("mu")?,
        sigma: r.real("sigma")?,
        games: r.int("games")? as u32,
        faulted: r.int("faulted")? as u32,
        last_game: match r.get("last_game")? {
            Value::Null => None,
            v => Some(v.int()? as u32),
        },
        fuel: fuel_of(r.get("fuel")?)?,
    })
}

/// The database's clock in seconds since 1970.
pub(crate) fn now(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Sqlite => "CAST(strftime('%s', 'now') AS INTEGER)",
        Dialect::Postgres => "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) AS BIGINT)",
    }
}

/// Records a validated version of `spec` (its `dir` as the hill keeps it, relative to the hill)
/// in one transaction: its bot row, its version (the next of its name), its rating (its bot's
/// current mean with the starting uncertainty), and the previous version of its name replaced.
/// Returns its id and version number.
/// In a shared hill, `files` is its folder as built, stored once per digest in the same
/// transaction.
pub(crate) fn add_version(
    db: &dyn Connection,
    spec: &BotSpec,
    digest: &str,
    files: Option<&Packed>,
) -> anyhow::Result<(usize, u32)> {
    db.transaction(|db| {
        if db.dialect() == Dialect::Postgres {
            // Two adds at once would take the same id (SQLite's transaction locks the file).
            db.query("SELECT pg_advisory_xact_lock(4244)::TEXT", &[])?;
        }
        if let Some(files) = files {
            db.execute(
                "INSERT INTO hill_files (digest, built, size, tgz) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (digest) DO NOTHING",
                &[
                    digest.into(),
                    files.built.as_str().into(),
                    files.tgz.len().into(),
                    files.tgz.clone().into(),
                ],
            )?;
        }
        let id = db
            .value("SELECT COALESCE(MAX(id) + 1, 0) FROM bots", &[])?
            .int()?;
        let last = db.row(
            "SELECT version, mu FROM hill_versions WHERE name = ?1 ORDER BY version DESC LIMIT 1",
            &[spec.name.as_str().into()],
        )?;
        let fresh = WengLinRating::new();
        let (version, mu) = match last {
            Some(r) => (r.int("version")? + 1, r.real("mu")?),
            None => (1, fresh.rating),
        };
        db.execute(
            &format!("UPDATE hill_versions SET state = '{REPLACED}' WHERE name = ?1 AND state = '{ACTIVE}'"),
            &[spec.name.as_str().into()],
        )?;
        let labelled = BotSpec {
            name: format!("{} v{version}", spec.name),
            ..spec.clone()
        };
        koth_tournament::store::insert_bot(db, id as usize, &labelled, Some(digest))?;
        // A learning bot's new version starts from its previous version's data, unless its
        // author asked for a clean start (`fresh_data`, `hill submit --fresh-data`).
        if spec.data.is_some_and(|ask| !ask.fresh) {
            let previous = db.row(
                "SELECT id FROM hill_versions WHERE name = ?1 AND version = ?2",
                &[spec.name.as_str().into(), (version - 1).into()],
            )?;
            if let Some(previous) = previous {
                data::inherit_data(db, id as usize, previous.int("id")? as usize)?;
            }
        }
        let first_game = db
            .value("SELECT COALESCE(MAX(idx) + 1, 0) FROM games", &[])?
            .int()?;
        db.execute(
            &format!(
                "INSERT INTO hill_versions (id, name, version, digest, state, added_at, mu,
                     sigma, games, faulted, counted_from)
                 VALUES (?1, ?2, ?3, ?4, '{ACTIVE}', {}, ?5, ?6, 0, 0, ?7)",
                now(db.dialect())
            ),
            &[
                id.into(),
                spec.name.as_str().into(),
                version.into(),
                digest.into(),
                mu.into(),
                fresh.uncertainty.into(),
                first_game.into(),
            ],
        )?;
        Ok((id as usize, version as u32))
    })
}

/// Sets the state of the active version of `name` to `state`, or clears its suspension
/// (`resume`); fails naming the hill's bots if `name` has no active version.
pub(crate) fn change_active(db: &dyn Connection, name: &str, change: Change) -> anyhow::Result<()> {
    let changed = match change {
        Change::Retire => db.execute(
            &format!("UPDATE hill_versions SET state = '{RETIRED}' WHERE name = ?1 AND state = '{ACTIVE}'"),
            &[name.into()],
        )?,
        Change::Resume => db.execute(
            &format!("UPDATE hill_versions SET suspended = NULL,
                 counted_from = (SELECT COALESCE(MAX(idx) + 1, 0) FROM games)
             WHERE name = ?1 AND state = '{ACTIVE}'"),
            &[name.into()],
        )?,
    };
    if changed == 0 {
        let names: Vec<String> = db
            .query(
                &format!(
                    "SELECT DISTINCT name FROM hill_versions WHERE state = '{ACTIVE}' ORDER BY name"
                ),
                &[],
            )?
            .iter()
            .map(|r| r.text("name").map(|n| format!("{n:?}")))
            .collect::<anyhow::Result<_>>()?;
        anyhow::bail!(
            "the hill has no active bot {name:?}; its active bots are {}",
            if names.is_empty() {
                "none".into()
            } else {
                names.join(", ")
            }
        );
    }
    Ok(())
}

/// Makes version `version` of bot `name` its active one again, as it was (its ratings, games
/// and data kept; its suspension, if it had one, lifted and its faults counted afresh), the
/// version active until now replaced by it; in one transaction. Returns the version it
/// replaced, if the bot had one active. Fails naming the bot's versions if it has no such
/// version, or if that one is active already.
pub(crate) fn roll_back(
    db: &dyn Connection,
    name: &str,
    version: u32,
) -> anyhow::Result<Option<u32>> {
    db.transaction(|db| {
        let versions: Vec<(u32, String)> = db
            .query(
                "SELECT version, state FROM hill_versions WHERE name = ?1 ORDER BY version",
                &[name.into()],
            )?
            .iter()
            .map(|r| Ok((r.int("version")? as u32, r.text("state")?)))
            .collect::<anyhow::Result<_>>()?;
        let listed = || {
            let all: Vec<String> = versions.iter().map(|(v, _)| format!("v{v}")).collect();
            all.join(", ")
        };
        match versions.iter().find(|(v, _)| *v == version) {
            None if versions.is_empty() => anyhow::bail!("the hill has no bot {name:?}"),
            None => anyhow::bail!("{name:?} has no v{version}; its versions are {}", listed()),
            Some((_, state)) if state == ACTIVE => {
                anyhow::bail!("{name:?} v{version} is its active version already")
            }
            Some(_) => {}
        }
        let from = versions
            .iter()
            .find(|(_, state)| state == ACTIVE)
            .map(|(v, _)| *v);
        db.execute(
            &format!("UPDATE hill_versions SET state = '{REPLACED}' WHERE name = ?1 AND state = '{ACTIVE}'"),
            &[name.into()],
        )?;
        db.execute(
            &format!("UPDATE hill_versions SET state = '{ACTIVE}', suspended = NULL,
                 counted_from = (SELECT COALESCE(MAX(idx) + 1, 0) FROM games)
             WHERE name = ?1 AND version = ?2"),
            &[name.into(), version.into()],
        )?;
        Ok(from)
    })
}

/// What [`change_active`] does.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Change {
    Retire,
    Resume,
}

/// The games chosen and not finished (pending or running), each with its seats.
pub(crate) fn queued(db: &dyn Connection) -> anyhow::Result<Vec<Vec<usize>>> {
    let rows = db.query(
        &format!(
            "SELECT s.game, s.bot FROM seats s JOIN games g ON g.idx = s.game
         WHERE g.state IN ('{PENDING}', '{RUNNING}') ORDER BY s.game, s.seat"
        ),
        &[],
    )?;
    let mut games: Vec<(i64, Vec<usize>)> = Vec::new();
    for r in &rows {
        let game = r.int("game")?;
        match games.last_mut() {
            Some((g, seats)) if *g == game => seats.push(r.int("bot")? as usize),
            _ => games.push((game, vec![r.int("bot")? as usize])),
        }
    }
    Ok(games.into_iter().map(|(_, seats)| seats).collect())
}

/// How many games are recorded and not yet rated.
pub(crate) fn recorded_unrated(db: &dyn Connection) -> anyhow::Result<u32> {
    Ok(db
        .value(
            &format!(
                "SELECT COUNT(*) FROM hill_games h JOIN games g ON g.idx = h.game
             WHERE h.rated = 0 AND g.state = '{DONE}'"
            ),
            &[],
        )?
        .int()? as u32)
}

/// The number the next game chosen gets.
pub(crate) fn next_game(db: &dyn Connection) -> anyhow::Result<u32> {
    Ok(db
        .value("SELECT COALESCE(MAX(idx) + 1, 0) FROM games", &[])?
        .int()? as u32)
}

/// Queues a chosen game: its seats, its seed and why it was chosen, in one transaction.
pub(crate) fn queue_game(
    db: &dyn Connection,
    game: &ScheduledGame,
    reason: &str,
) -> anyhow::Result<()> {
    db.transaction(|db| {
        koth_tournament::store::insert_game(db, game)?;
        db.execute(
            &format!(
                "INSERT INTO hill_games (game, reason, rated, chosen_at)
                 VALUES (?1, ?2, 0, {})",
                now(db.dialect())
            ),
            &[game.index.into(), reason.into()],
        )?;
        Ok(())
    })
}

/// Why game `game` was chosen.
pub(crate) fn reason(db: &dyn Connection, game: u32) -> anyhow::Result<Option<String>> {
    db.row(
        "SELECT reason FROM hill_games WHERE game = ?1",
        &[game.into()],
    )?
    .map(|r| r.text("reason"))
    .transpose()
}

/// How many of the hill's games are rated.
pub(crate) fn games_rated(db: &dyn Connection) -> anyhow::Result<u32> {
    // The whole hill's count of rated games, one a game whatever its seats, kept in the
    // transaction that rates it (a sum of the versions' games divided by a game's seats is
    // wrong as soon as tables differ in size; a COUNT over the games costs the games).
    let games = db.value(
        "SELECT COALESCE((SELECT games FROM hill_outcomes WHERE id = 0), 0)",
        &[],
    )?;
    Ok(games.int()?.try_into().unwrap_or(u32::MAX))
}

/// A row of the tournament's `bots` with its version's digest, as a restore checks them.
pub(crate) struct BotOfVersion {
    pub id: usize,
    pub name: String,
    pub dir: String,
    /// The bot row's digest of its folder.
    pub hash: Option<String>,
    /// Its version's digest; none if no version names the row.
    pub digest: Option<String>,
}

/// Every bot row with its version's digest, by id.
pub(crate) fn versions_as_bots(db: &dyn Connection) -> anyhow::Result<Vec<BotOfVersion>> {
    db.query(
        "SELECT b.id, b.name, b.dir, b.hash, v.digest FROM bots b
         LEFT JOIN hill_versions v ON v.id = b.id ORDER BY b.id",
        &[],
    )?
    .iter()
    .map(|row| {
        Ok(BotOfVersion {
            id: row.int("id")? as usize,
            name: row.text("name")?,
            dir: row.text("dir")?,
            hash: row.opt_text("hash")?,
            digest: row.opt_text("digest")?,
        })
    })
    .collect()
}

/// The id of bot `name`'s latest version, and whether it keeps data (its bot row's `data_mb`).
pub(crate) fn latest_version(
    db: &dyn Connection,
    name: &str,
) -> anyhow::Result<Option<(usize, bool)>> {
    let row = db.row(
        "SELECT v.id, CASE WHEN b.data_mb IS NULL THEN 0 ELSE 1 END AS learns FROM hill_versions v JOIN bots b ON b.id = v.id
         WHERE v.name = ?1 ORDER BY v.version DESC LIMIT 1",
        &[name.into()],
    )?;
    row.map(|r| Ok((r.int("id")? as usize, r.int("learns")? != 0)))
        .transpose()
}

/// Version `version` of bot `name`: its id, digest and folder as its bot row names it.
pub(crate) fn version_folder(
    db: &dyn Connection,
    name: &str,
    version: u32,
) -> anyhow::Result<Option<(usize, String, String)>> {
    db.row(
        "SELECT v.id, v.digest, b.dir FROM hill_versions v JOIN bots b ON b.id = v.id
         WHERE v.name = ?1 AND v.version = ?2",
        &[name.into(), version.into()],
    )?
    .map(|row| {
        Ok((
            row.int("id")? as usize,
            row.text("digest")?,
            row.text("dir")?,
        ))
    })
    .transpose()
}
