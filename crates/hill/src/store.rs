//! What a hill keeps beside a tournament's tables, in the same database (SQLite file or
//! PostgreSQL schema): each bot's versions, why each game was chosen and whether it is rated,
//! the rating history, the last fit and the kings. A hill's versions are the tournament's
//! `bots` (so a game's seats, results, claims and files are a tournament's, played by the same
//! runner); these tables are new ones, and no tournament table is altered (an index on
//! `results` by bot is added).

use std::collections::HashMap;

use anyhow::Context;
use skillratings::weng_lin::WengLinRating;

use koth_bot::{BotSpec, FaultCounts, FuelStats};
use koth_tournament::schedule::ScheduledGame;
use koth_tournament::store::fuel_of;
use koth_tournament::store::schema::{add_column, columns};
pub use koth_tournament::store::sql::{Connection, Dialect, Value};

use koth_ranking::Strength;

use super::matchmaking::{History, Met};

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
-- A bot's games and ratings, read by its page and by suspension, without reading every game's.
CREATE INDEX IF NOT EXISTS hill_results_by_bot ON results (bot, game);
CREATE INDEX IF NOT EXISTS hill_ratings_by_version ON hill_ratings (version, game);
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
    // A hill made before `hill_pairs` existed: its pairs counted once from its rated games.
    count_presence(db)?;
    count_lineups(db)?;
    db.execute(
        "INSERT INTO hill_pairs (a, b, games, alike)
         SELECT x.bot, y.bot, COUNT(*), SUM(CASE WHEN x.score = y.score THEN 1 ELSE 0 END)
         FROM results x JOIN results y ON y.game = x.game AND y.bot > x.bot
         JOIN hill_games h ON h.game = x.game AND h.rated = 1
         WHERE NOT EXISTS (SELECT 1 FROM hill_pairs)
         GROUP BY x.bot, y.bot
         ON CONFLICT (a, b) DO NOTHING",
        &[],
    )?;
    Ok(())
}

/// The rated games, each with whether every seat scored alike, as SQL.
const RATED_OUTCOMES: &str =
    "SELECT x.game, CASE WHEN MAX(x.score) = MIN(x.score) THEN 1 ELSE 0 END
     AS alike FROM results x JOIN hill_games h ON h.game = x.game AND h.rated = 1 GROUP BY x.game";

/// A hill made before `hill_presence` and `hill_outcomes` existed: counted once from its rated
/// games.
fn count_presence(db: &dyn Connection) -> anyhow::Result<()> {
    db.execute(
        &format!(
            "INSERT INTO hill_presence (version, games, alike)
             SELECT r.bot, COUNT(*), SUM(g.alike)
             FROM (SELECT DISTINCT game, bot FROM results) r JOIN ({RATED_OUTCOMES}) g
                 ON g.game = r.game
             WHERE NOT EXISTS (SELECT 1 FROM hill_presence)
             GROUP BY r.bot
             ON CONFLICT (version) DO NOTHING"
        ),
        &[],
    )?;
    // Without a group, the totals are one row even of no game (then 0 and 0).
    db.execute(
        &format!(
            "INSERT INTO hill_outcomes (id, games, alike)
             SELECT 0, COUNT(*), COALESCE(SUM(g.alike), 0) FROM ({RATED_OUTCOMES}) g
             WHERE NOT EXISTS (SELECT 1 FROM hill_outcomes)
             ON CONFLICT (id) DO NOTHING"
        ),
        &[],
    )?;
    Ok(())
}

/// A line-up's key in `hill_lineups`: its versions' ids, ascending, joined by commas.
fn lineup_key(versions: &[usize]) -> String {
    let mut ids = versions.to_vec();
    ids.sort_unstable();
    ids.dedup();
    ids.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// A hill made before `hill_lineups` existed: its rated games' line-ups counted once.
fn count_lineups(db: &dyn Connection) -> anyhow::Result<()> {
    let counted = db.value("SELECT COUNT(*) FROM hill_lineups", &[])?.int()?;
    let rated = db
        .value("SELECT COUNT(*) FROM hill_games WHERE rated = 1", &[])?
        .int()?;
    if counted > 0 || rated == 0 {
        return Ok(());
    }
    let rows = db.query(
        "SELECT r.game, r.bot, r.score FROM results r
         JOIN hill_games h ON h.game = r.game AND h.rated = 1 ORDER BY r.game",
        &[],
    )?;
    let mut lineups: HashMap<String, Met> = HashMap::new();
    let mut count = |seats: &[(usize, f64)]| {
        let versions: Vec<usize> = seats.iter().map(|s| s.0).collect();
        let met = lineups.entry(lineup_key(&versions)).or_default();
        met.games += 1;
        met.alike += u32::from(seats.iter().all(|s| s.1 == seats[0].1));
    };
    let mut game = None;
    let mut seats: Vec<(usize, f64)> = Vec::new();
    for r in &rows {
        let this = r[0].int()?;
        if game != Some(this) && !seats.is_empty() {
            count(&seats);
            seats.clear();
        }
        game = Some(this);
        seats.push((r[1].int()? as usize, r[2].real()?));
    }
    if !seats.is_empty() {
        count(&seats);
    }
    db.transaction(|db| {
        for (lineup, met) in &lineups {
            db.execute(
                "INSERT INTO hill_lineups (lineup, games, alike) VALUES (?1, ?2, ?3)",
                &[lineup.as_str().into(), met.games.into(), met.alike.into()],
            )?;
        }
        Ok(())
    })
}

/// The games played so far per pair of versions, per version, per line-up whose games all
/// ended alike, and in all, for matchmaking.
pub(crate) fn history(db: &dyn Connection) -> anyhow::Result<History> {
    let mut history = History::default();
    // A line-up with a game that paid someone is never barren again: only the others are read.
    for r in db.query(
        "SELECT lineup, games FROM hill_lineups WHERE alike = games",
        &[],
    )? {
        let versions = r[0]
            .text()?
            .split(',')
            .map(str::parse)
            .collect::<Result<Vec<usize>, _>>()
            .context("a line-up in hill_lineups")?;
        let games = r[1].int()? as u32;
        history.add_lineup(
            &versions,
            Met {
                games,
                alike: games,
            },
        );
    }
    for r in db.query("SELECT version, games, alike FROM hill_presence", &[])? {
        history.add_presence(
            r[0].int()? as usize,
            Met {
                games: r[1].int()? as u32,
                alike: r[2].int()? as u32,
            },
        );
    }
    if let Some(r) = db.row("SELECT games, alike FROM hill_outcomes WHERE id = 0", &[])? {
        history.add_outcomes(Met {
            games: r[0].int()? as u32,
            alike: r[1].int()? as u32,
        });
    }
    for r in db.query("SELECT a, b, games, alike FROM hill_pairs", &[])? {
        history.add(
            r[0].int()? as usize,
            r[1].int()? as usize,
            Met {
                games: r[2].int()? as u32,
                alike: r[3].int()? as u32,
            },
        );
    }
    Ok(history)
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
            built: r[0].text()?,
            tgz: r[1].bytes()?.to_vec(),
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
    fn of_row(state: &str, suspended: bool) -> anyhow::Result<VersionState> {
        Ok(match state {
            "active" if suspended => VersionState::Suspended,
            "active" => VersionState::Active,
            "replaced" => VersionState::Replaced,
            "retired" => VersionState::Retired,
            other => anyhow::bail!("a version's state {other:?} is none koth knows"),
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            VersionState::Active => "active",
            VersionState::Suspended => "suspended",
            VersionState::Replaced => "replaced",
            VersionState::Retired => "retired",
        }
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
        matches!(self.state, VersionState::Active | VersionState::Suspended)
    }

    /// `name v2`.
    pub(crate) fn label(&self) -> String {
        format!("{} v{}", self.name, self.version)
    }
}

/// Every version, by id.
pub(crate) fn versions(db: &dyn Connection) -> anyhow::Result<Vec<Version>> {
    // An older hill read without being brought up to date (its leaderboard's) has no fuel.
    let fuel = if columns(db, "hill_versions")?.contains(&"fuel".to_string()) {
        "fuel"
    } else {
        "NULL"
    };
    let rows = db.query(
        &format!(
            "SELECT id, name, version, digest, state, suspended, added_at, mu, sigma, games,
                 faulted, last_game, {fuel} FROM hill_versions ORDER BY id"
        ),
        &[],
    )?;
    rows.iter()
        .map(|r| {
            let suspended = r[5].opt_text()?;
            let state = VersionState::of_row(&r[4].text()?, suspended.is_some())?;
            Ok(Version {
                id: r[0].int()? as usize,
                name: r[1].text()?,
                version: r[2].int()? as u32,
                digest: r[3].text()?,
                state,
                suspended,
                added_at: r[6].int()?,
                mu: r[7].real()?,
                sigma: r[8].real()?,
                games: r[9].int()? as u32,
                faulted: r[10].int()? as u32,
                last_game: match &r[11] {
                    Value::Null => None,
                    v => Some(v.int()? as u32),
                },
                fuel: fuel_of(&r[12])?,
            })
        })
        .collect()
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
            Some(r) => (r[0].int()? + 1, r[1].real()?),
            None => (1, fresh.rating),
        };
        db.execute(
            "UPDATE hill_versions SET state = 'replaced' WHERE name = ?1 AND state = 'active'",
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
            db.execute(
                "INSERT INTO bot_data (bot, digest)
                 SELECT ?1, d.digest FROM bot_data d JOIN hill_versions v ON v.id = d.bot
                 WHERE v.name = ?2 AND v.version = ?3",
                &[id.into(), spec.name.as_str().into(), (version - 1).into()],
            )?;
        }
        let first_game = db
            .value("SELECT COALESCE(MAX(idx) + 1, 0) FROM games", &[])?
            .int()?;
        db.execute(
            &format!(
                "INSERT INTO hill_versions (id, name, version, digest, state, added_at, mu,
                     sigma, games, faulted, counted_from)
                 VALUES (?1, ?2, ?3, ?4, 'active', {}, ?5, ?6, 0, 0, ?7)",
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
            "UPDATE hill_versions SET state = 'retired' WHERE name = ?1 AND state = 'active'",
            &[name.into()],
        )?,
        Change::Resume => db.execute(
            "UPDATE hill_versions SET suspended = NULL,
                 counted_from = (SELECT COALESCE(MAX(idx) + 1, 0) FROM games)
             WHERE name = ?1 AND state = 'active'",
            &[name.into()],
        )?,
    };
    if changed == 0 {
        let names: Vec<String> = db
            .query(
                "SELECT DISTINCT name FROM hill_versions WHERE state = 'active' ORDER BY name",
                &[],
            )?
            .iter()
            .map(|r| r[0].text().map(|n| format!("{n:?}")))
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
            .map(|r| Ok((r[0].int()? as u32, r[1].text()?)))
            .collect::<anyhow::Result<_>>()?;
        let listed = || {
            let all: Vec<String> = versions.iter().map(|(v, _)| format!("v{v}")).collect();
            all.join(", ")
        };
        match versions.iter().find(|(v, _)| *v == version) {
            None if versions.is_empty() => anyhow::bail!("the hill has no bot {name:?}"),
            None => anyhow::bail!("{name:?} has no v{version}; its versions are {}", listed()),
            Some((_, state)) if state == "active" => {
                anyhow::bail!("{name:?} v{version} is its active version already")
            }
            Some(_) => {}
        }
        let from = versions
            .iter()
            .find(|(_, state)| state == "active")
            .map(|(v, _)| *v);
        db.execute(
            "UPDATE hill_versions SET state = 'replaced' WHERE name = ?1 AND state = 'active'",
            &[name.into()],
        )?;
        db.execute(
            "UPDATE hill_versions SET state = 'active', suspended = NULL,
                 counted_from = (SELECT COALESCE(MAX(idx) + 1, 0) FROM games)
             WHERE name = ?1 AND version = ?2",
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
        "SELECT s.game, s.bot FROM seats s JOIN games g ON g.idx = s.game
         WHERE g.state IN ('pending', 'running') ORDER BY s.game, s.seat",
        &[],
    )?;
    let mut games: Vec<(i64, Vec<usize>)> = Vec::new();
    for r in &rows {
        let game = r[0].int()?;
        match games.last_mut() {
            Some((g, seats)) if *g == game => seats.push(r[1].int()? as usize),
            _ => games.push((game, vec![r[1].int()? as usize])),
        }
    }
    Ok(games.into_iter().map(|(_, seats)| seats).collect())
}

/// How many games are recorded and not yet rated.
pub(crate) fn recorded_unrated(db: &dyn Connection) -> anyhow::Result<u32> {
    Ok(db
        .value(
            "SELECT COUNT(*) FROM hill_games h JOIN games g ON g.idx = h.game
             WHERE h.rated = 0 AND g.state = 'done'",
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

/// A seat's result as rating reads it.
struct SeatResult {
    bot: usize,
    score: f64,
    faulted: bool,
    fuel: Option<FuelStats>,
}

/// Whether a seat's counted faults make its game a faulted one (a harness fault never reaches
/// a result, so never counts).
fn faulted(faults: &FaultCounts) -> bool {
    faults.timed_out + faults.crashed + faults.bad_output + faults.failed_to_start > 0
}

/// Rates recorded games not yet rated, in game order, at most `most` of them, each in one
/// transaction with its mark: the online ratings, each version's games and faulted games, the
/// rating history, and the suspension of a version faulting too often. So a game is rated once,
/// whenever koth was stopped, or whoever recorded it (a worker, in a shared hill): only `hill
/// run` rates. Those over `most` stay unrated, for the next run (`hill run --games N` rates N).
/// Returns how many games it rated, and the versions it suspended, with why.
pub(crate) fn rate_recorded(
    db: &dyn Connection,
    suspension: super::config::Suspension,
    most: u32,
) -> anyhow::Result<(u32, Vec<(usize, String)>)> {
    let games: Vec<u32> = db
        .query(
            "SELECT h.game FROM hill_games h JOIN games g ON g.idx = h.game
             WHERE h.rated = 0 AND g.state = 'done' ORDER BY h.game",
            &[],
        )?
        .iter()
        .map(|r| Ok(r[0].int()? as u32))
        .collect::<anyhow::Result<_>>()?;
    let mut suspended = Vec::new();
    let mut rated = 0;
    for game in games {
        if rated == most {
            break;
        }
        if let Some(now) = db.transaction(|db| rate_one(db, game, suspension))? {
            rated += 1;
            suspended.extend(now);
        }
    }
    Ok((rated, suspended))
}

/// Rates game `game` unless it is rated already (`None`).
fn rate_one(
    db: &dyn Connection,
    game: u32,
    suspension: super::config::Suspension,
) -> anyhow::Result<Option<Vec<(usize, String)>>> {
    let marked = db.execute(
        "UPDATE hill_games SET rated = 1 WHERE game = ?1 AND rated = 0",
        &[game.into()],
    )?;
    if marked == 0 {
        return Ok(None);
    }
    let seats: Vec<SeatResult> = db
        .query(
            "SELECT bot, score, timed_out_faults, crashed_faults, bad_output_faults,
                 failed_to_start_faults, fuel FROM results WHERE game = ?1 ORDER BY seat",
            &[game.into()],
        )?
        .iter()
        .map(|r| {
            let count = |i: usize| -> anyhow::Result<u64> { Ok(r[i].int()? as u64) };
            Ok(SeatResult {
                bot: r[0].int()? as usize,
                score: r[1].real()?,
                faulted: faulted(&FaultCounts {
                    timed_out: count(2)?,
                    crashed: count(3)?,
                    bad_output: count(4)?,
                    failed_to_start: count(5)?,
                    benched: 0,
                }),
                fuel: fuel_of(&r[6])?,
            })
        })
        .collect::<anyhow::Result<_>>()?;
    let mut ratings = Vec::new();
    let mut fuels = Vec::new();
    for seat in &seats {
        let row = db
            .row(
                "SELECT mu, sigma, fuel FROM hill_versions WHERE id = ?1",
                &[seat.bot.into()],
            )?
            .with_context(|| format!("game {game} seats version {}, which is unknown", seat.bot))?;
        ratings.push(WengLinRating {
            rating: row[0].real()?,
            uncertainty: row[1].real()?,
        });
        // The version's fuel so far with this game's merged in, as the leaderboard reads it.
        let mut fuel = fuel_of(&row[2])?;
        if let Some(game) = &seat.fuel {
            fuel.get_or_insert_default().merge(game);
        }
        fuels.push(fuel.map(|f| serde_json::to_string(&f)).transpose()?);
    }
    let scores: Vec<f64> = seats.iter().map(|s| s.score).collect();
    let updated = koth_tournament::leaderboard::rate_contest(&ratings, &scores);
    for (k, x) in seats.iter().enumerate() {
        for y in &seats[k + 1..] {
            if x.bot == y.bot {
                continue;
            }
            let (a, b) = (x.bot.min(y.bot), x.bot.max(y.bot));
            db.execute(
                "INSERT INTO hill_pairs (a, b, games, alike) VALUES (?1, ?2, 1, ?3)
                 ON CONFLICT (a, b) DO UPDATE SET games = hill_pairs.games + 1,
                     alike = hill_pairs.alike + ?3",
                &[a.into(), b.into(), i64::from(x.score == y.score).into()],
            )?;
        }
    }
    let alike = i64::from(scores.iter().all(|&s| s == scores[0]));
    let mut present: Vec<usize> = seats.iter().map(|s| s.bot).collect();
    present.sort_unstable();
    present.dedup();
    for version in present {
        db.execute(
            "INSERT INTO hill_presence (version, games, alike) VALUES (?1, 1, ?2)
             ON CONFLICT (version) DO UPDATE SET games = hill_presence.games + 1,
                 alike = hill_presence.alike + ?2",
            &[version.into(), alike.into()],
        )?;
    }
    db.execute(
        "INSERT INTO hill_outcomes (id, games, alike) VALUES (0, 1, ?1)
         ON CONFLICT (id) DO UPDATE SET games = hill_outcomes.games + 1,
             alike = hill_outcomes.alike + ?1",
        &[alike.into()],
    )?;
    let versions: Vec<usize> = seats.iter().map(|s| s.bot).collect();
    db.execute(
        "INSERT INTO hill_lineups (lineup, games, alike) VALUES (?1, 1, ?2)
         ON CONFLICT (lineup) DO UPDATE SET games = hill_lineups.games + 1,
             alike = hill_lineups.alike + ?2",
        &[lineup_key(&versions).into(), alike.into()],
    )?;
    let mut suspended = Vec::new();
    for ((seat, rating), fuel) in seats.iter().zip(updated).zip(fuels) {
        db.execute(
            "UPDATE hill_versions SET mu = ?2, sigma = ?3, games = games + 1,
                 faulted = faulted + ?4, last_game = ?5, fuel = ?6 WHERE id = ?1",
            &[
                seat.bot.into(),
                rating.rating.into(),
                rating.uncertainty.into(),
                i64::from(seat.faulted).into(),
                game.into(),
                fuel.into(),
            ],
        )?;
        db.execute(
            "INSERT INTO hill_ratings (game, version, mu, sigma) VALUES (?1, ?2, ?3, ?4)",
            &[
                game.into(),
                seat.bot.into(),
                rating.rating.into(),
                rating.uncertainty.into(),
            ],
        )?;
        let reason = match suspension_of(db, seat.bot, suspension)? {
            Some(reason) => Some(reason),
            None => data_suspension_of(db, seat.bot, suspension)?,
        };
        if let Some(reason) = reason {
            suspend(db, seat.bot, &reason)?;
            suspended.push((seat.bot, reason));
        }
    }
    Ok(Some(suspended))
}

/// Suspends version `id` for `reason` (a version suspended already keeps its first reason).
pub(crate) fn suspend(db: &dyn Connection, id: usize, reason: &str) -> anyhow::Result<()> {
    db.execute(
        "UPDATE hill_versions SET suspended = ?2 WHERE id = ?1 AND suspended IS NULL",
        &[id.into(), reason.into()],
    )?;
    Ok(())
}

/// Why learning version `id` must be suspended, if it must: its data was refused (over its cap,
/// a link, …: [`koth_tournament::play::DATA_REFUSED`]) in most of its last window of games, so it
/// plays on without ever learning; counted since it was added or last resumed.
fn data_suspension_of(
    db: &dyn Connection,
    id: usize,
    suspension: super::config::Suspension,
) -> anyhow::Result<Option<String>> {
    let notes: Vec<String> = db
        .query(
            &format!(
                "SELECT COALESCE(d.note, '') FROM game_data d JOIN hill_versions v ON v.id = d.bot
                 WHERE d.bot = ?1 AND d.game >= v.counted_from AND v.suspended IS NULL
                 ORDER BY d.game DESC LIMIT {}",
                suspension.window
            ),
            &[id.into()],
        )?
        .iter()
        .map(|r| r[0].text())
        .collect::<anyhow::Result<_>>()?;
    if notes.len() < suspension.window as usize {
        return Ok(None);
    }
    let refused: Vec<&String> = notes
        .iter()
        .filter(|note| note.starts_with(koth_tournament::play::DATA_REFUSED))
        .collect();
    if refused.len() * 2 <= notes.len() {
        return Ok(None);
    }
    Ok(Some(format!(
        "suspended: its data was not kept in {} of its last {} games, so it would never learn; \
         the latest: {}",
        refused.len(),
        notes.len(),
        refused[0]
    )))
}

/// How many first games a version that could play none of them is suspended after, without
/// waiting for its window of `suspend_window` games.
const FIRST_GAMES: usize = 3;

/// Why version `id` must be suspended, if it must: games it could not play
/// ([`super::could_not_play`]) in more than the share allowed of its last games (at least the
/// window's worth), or in each of its first [`FIRST_GAMES`] or more while the window is not
/// yet full; counted since it was added or last resumed.
fn suspension_of(
    db: &dyn Connection,
    id: usize,
    suspension: super::config::Suspension,
) -> anyhow::Result<Option<String>> {
    let rows = db.query(
        &format!(
            "SELECT r.game, r.timed_out_faults, r.crashed_faults, r.bad_output_faults,
                 r.failed_to_start_faults, r.faults, r.answers
             FROM results r JOIN hill_versions v ON v.id = r.bot
             WHERE r.bot = ?1 AND r.game >= v.counted_from AND v.suspended IS NULL
             ORDER BY r.game DESC LIMIT {}",
            suspension.window
        ),
        &[id.into()],
    )?;
    // Its first games since it was added or resumed, before the window is full: suspended at
    // once if it could play none of them (a bot that always crashes must not play a window's
    // worth of games, minutes of everyone's time, before the rule can speak).
    let first_games = rows.len() < suspension.window as usize;
    if first_games && rows.len() < FIRST_GAMES {
        return Ok(None);
    }
    let mut broken = Vec::new();
    let mut kinds: Vec<String> = Vec::new();
    for r in &rows {
        let counts: Vec<i64> = (1..=4).map(|i| r[i].int()).collect::<anyhow::Result<_>>()?;
        let count = |k: usize| u64::try_from(counts[k]).unwrap_or(0);
        let faults = FaultCounts {
            timed_out: count(0),
            crashed: count(1),
            bad_output: count(2),
            failed_to_start: count(3),
            benched: 0,
        };
        if !super::could_not_play(&faults, u64::try_from(r[6].int()?).unwrap_or(0)) {
            continue;
        }
        broken.push(r);
        for (kind, count) in ["timed_out", "crashed", "bad_output", "failed_to_start"]
            .iter()
            .zip(&counts)
        {
            if *count > 0 && !kinds.iter().any(|k| k == kind) {
                kinds.push(kind.to_string());
            }
        }
    }
    let share = broken.len() as f64 / rows.len() as f64;
    if first_games && broken.len() < rows.len() || !first_games && share <= suspension.share {
        return Ok(None);
    }
    // The first fault of the latest such game, as its reason (bounded: faults are quoted).
    let example = broken
        .iter()
        .find_map(|r| {
            let faults: serde_json::Value = serde_json::from_str(&r[5].text().ok()?).ok()?;
            faults.get(0)?.get("reason")?.as_str().map(str::to_string)
        })
        .unwrap_or_default();
    let games: Vec<String> = broken
        .iter()
        .rev()
        .map(|r| r[0].int().map(|g| g.to_string()))
        .collect::<anyhow::Result<_>>()?;
    let measure = if first_games {
        format!(
            "in each of its first {} games (games {}): it could not play",
            rows.len(),
            games.join(", ")
        )
    } else {
        format!(
            "in {} of its last {} games (games {}), over the {:.0}% allowed",
            broken.len(),
            rows.len(),
            games.join(", "),
            suspension.share * 100.0
        )
    };
    Ok(Some(format!(
        "suspended: faults ({}) {measure}; the latest: {example}",
        kinds.join(", ")
    )))
}

/// Every recorded result for the fit: (game, version, score), by game.
pub(crate) fn scores(db: &dyn Connection) -> anyhow::Result<Vec<(u32, usize, f64)>> {
    db.query(
        "SELECT r.game, r.bot, r.score FROM results r ORDER BY r.game, r.seat",
        &[],
    )?
    .iter()
    .map(|r| Ok((r[0].int()? as u32, r[1].int()? as usize, r[2].real()?)))
    .collect()
}

/// A fitted version's line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fitted {
    pub version: usize,
    pub strength: Strength,
    pub games: u32,
}

/// How sure the fitted table's first is of its lead over the runner-up (version ids).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Lead {
    pub first: usize,
    pub second: usize,
    /// Half the width of the 95% interval of the first's figure less the second's.
    pub interval: f64,
}

/// The lead at the last fit, if the table had two versions.
pub(crate) fn lead(store: &koth_tournament::store::Store) -> anyhow::Result<Option<Lead>> {
    let Some(text) = store.meta("lead")? else {
        return Ok(None);
    };
    let parts: Vec<&str> = text.split(' ').collect();
    let [first, second, interval] = parts.as_slice() else {
        anyhow::bail!("the stored lead {text:?} is not `first second interval`");
    };
    Ok(Some(Lead {
        first: first.parse()?,
        second: second.parse()?,
        interval: interval.parse()?,
    }))
}

/// The last fit's interval for a version without games, if a fit was stored.
pub(crate) fn unplayed(store: &koth_tournament::store::Store) -> anyhow::Result<Option<f64>> {
    store
        .meta("unplayed")?
        .map(|text| {
            text.parse()
                .with_context(|| format!("the stored interval {text:?} is not a number"))
        })
        .transpose()
}

/// A fit as [`write_fit`] stores it.
#[derive(Clone, Copy)]
pub(crate) struct FitWritten<'a> {
    pub fitted: &'a [Fitted],
    /// Recorded games it was made from, the last of them `last_game`.
    pub games: u32,
    pub last_game: Option<u32>,
    /// The table's first placed version.
    pub crowned: Option<usize>,
    /// The first two placed versions, and how far apart.
    pub lead: Option<Lead>,
    /// The interval of a version without games.
    pub unplayed: f64,
    /// The games a version plays before it is ranked, which the board reads.
    pub placement_games: u32,
}

fn set_meta(db: &dyn Connection, key: &str, value: &str) -> anyhow::Result<()> {
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2)
         ON CONFLICT (key) DO UPDATE SET value = ?2",
        &[key.into(), value.into()],
    )?;
    Ok(())
}

/// Keeps the hill file's `placement_games` where the board reads it: a run writes it as it
/// starts and with each fit.
pub(crate) fn set_placement_games(db: &dyn Connection, games: u32) -> anyhow::Result<()> {
    set_meta(db, "placement_games", &games.to_string())
}

/// Keeps the fewest seats a game of the hill has (`min_players`) where the board reads it, to
/// say a hill with fewer versions waits: a run writes it as it starts.
pub(crate) fn set_fewest_seats(db: &dyn Connection, seats: usize) -> anyhow::Result<()> {
    set_meta(db, "fewest_seats", &seats.to_string())
}

/// The fewest seats the hill's run last wrote (none before any run: nothing is said to wait).
pub(crate) fn fewest_seats(store: &koth_tournament::store::Store) -> anyhow::Result<Option<usize>> {
    Ok(store
        .meta("fewest_seats")?
        .and_then(|text| text.parse().ok()))
}

/// The placement games the hill's run last wrote (0 before any run: every fitted version
/// ranked).
pub(crate) fn placement_games(store: &koth_tournament::store::Store) -> anyhow::Result<u32> {
    Ok(store
        .meta("placement_games")?
        .and_then(|text| text.parse().ok())
        .unwrap_or(0))
}

/// Replaces the stored fit with `fitted` (made from `games` recorded games, the last of them
/// game `last_game`), its `lead` and its interval for a version without games (`unplayed`,
/// where matchmaking starts a version the fit has not seen), and crowns `crowned` (the
/// table's first, once placed) unless it reigns already; in one transaction. A
/// version that played since the last fit has its figure kept in its history too (what its
/// page plots). Returns the new king, if it changed.
pub(crate) fn write_fit(db: &dyn Connection, fit: &FitWritten) -> anyhow::Result<Option<usize>> {
    let FitWritten {
        fitted,
        games,
        last_game,
        crowned,
        lead,
        unplayed,
        placement_games,
    } = *fit;
    db.transaction(|db| {
        set_meta(db, "unplayed", &unplayed.to_string())?;
        set_placement_games(db, placement_games)?;
        match lead {
            Some(Lead {
                first,
                second,
                interval,
            }) => db.execute(
                "INSERT INTO meta (key, value) VALUES ('lead', ?1)
                 ON CONFLICT (key) DO UPDATE SET value = ?1",
                &[format!("{first} {second} {interval}").into()],
            )?,
            None => db.execute("DELETE FROM meta WHERE key = 'lead'", &[])?,
        };
        let before: Vec<(usize, u32)> = db
            .query("SELECT version, games FROM hill_fit", &[])?
            .iter()
            .map(|r| Ok((r[0].int()? as usize, r[1].int()? as u32)))
            .collect::<anyhow::Result<_>>()?;
        db.execute("DELETE FROM hill_fit", &[])?;
        for f in fitted {
            let played = !before.contains(&(f.version, f.games));
            if let Some(game) = last_game.filter(|_| played) {
                db.execute(
                    "INSERT INTO hill_fit_history (version, game, rating, half_width)
                     VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (version, game) DO UPDATE SET rating = ?3, half_width = ?4",
                    &[
                        f.version.into(),
                        game.into(),
                        f.strength.value.into(),
                        f.strength.interval.into(),
                    ],
                )?;
            }
            db.execute(
                "INSERT INTO hill_fit (version, rating, half_width, games, fitted_games)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                &[
                    f.version.into(),
                    f.strength.value.into(),
                    f.strength.interval.into(),
                    f.games.into(),
                    games.into(),
                ],
            )?;
        }
        let Some(crowned) = crowned else {
            return Ok(None);
        };
        let king = db
            .row(
                "SELECT version FROM hill_kings ORDER BY since_game DESC, since DESC, seq DESC
                 LIMIT 1",
                &[],
            )?
            .map(|r| r[0].int().map(|k| k as usize))
            .transpose()?;
        if king == Some(crowned) {
            return Ok(None);
        }
        db.execute(
            &format!(
                "INSERT INTO hill_kings (version, since_game, since, seq) VALUES (?1, ?2, {},
                     (SELECT COALESCE(MAX(seq), 0) + 1 FROM hill_kings))",
                now(db.dialect())
            ),
            &[crowned.into(), games.into()],
        )?;
        Ok(Some(crowned))
    })
}

/// A version's stored fit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StoredFit {
    pub version: usize,
    /// The ranking's figure (points per game, or an Elo-scale rating) and its interval's
    /// half-width.
    pub value: f64,
    pub half_width: f64,
    /// The games of it the fit counted.
    pub games: u32,
}

/// A version's figure at the last fit it was in, if it was in one.
pub(crate) fn last_fitted(db: &dyn Connection, version: usize) -> anyhow::Result<Option<f64>> {
    db.row(
        "SELECT rating FROM hill_fit_history WHERE version = ?1 ORDER BY game DESC LIMIT 1",
        &[version.into()],
    )?
    .map(|r| r[0].real())
    .transpose()
}

/// The stored fit, by version.
pub(crate) fn fit(db: &dyn Connection) -> anyhow::Result<Vec<StoredFit>> {
    db.query(
        "SELECT version, rating, half_width, games FROM hill_fit ORDER BY version",
        &[],
    )?
    .iter()
    .map(|r| {
        Ok(StoredFit {
            version: r[0].int()? as usize,
            value: r[1].real()?,
            half_width: r[2].real()?,
            games: r[3].int()? as u32,
        })
    })
    .collect()
}

/// The kings, first to last: (version, the number of games recorded when it was crowned, unix
/// seconds).
pub(crate) fn kings(db: &dyn Connection) -> anyhow::Result<Vec<(usize, u32, i64)>> {
    db.query(
        "SELECT version, since_game, since FROM hill_kings ORDER BY since_game, since, seq",
        &[],
    )?
    .iter()
    .map(|r| Ok((r[0].int()? as usize, r[1].int()? as u32, r[2].int()?)))
    .collect()
}

/// Why game `game` was chosen.
pub(crate) fn reason(db: &dyn Connection, game: u32) -> anyhow::Result<Option<String>> {
    db.row(
        "SELECT reason FROM hill_games WHERE game = ?1",
        &[game.into()],
    )?
    .map(|r| r[0].text())
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
