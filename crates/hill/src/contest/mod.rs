//! A contest on a hill: a `[contest]` table in the hill file declares when submissions close
//! (`closes`, a UTC time), how many of the table at the close play the final (`finalists`) and
//! the most games the final may play (`budget`). The hill moves open → frozen → final →
//! published, each phase read from what the database holds, never from a flag of its own:
//!
//! - **open** until `closes` (or `koth contest close`): the hill plays as any hill does;
//! - **frozen** from the close: no upload, no new version, and no finalist's version changes
//!   (retire, rollback, wipe-data); `hill run` refits, takes the table's first `finalists`
//!   (its ranked lines first, then those still placing),
//!   and writes the [`Manifest`] (`contest/manifest.json`, its SHA-256 printed) before any
//!   final game;
//! - **final** while its games play: rounds of the balanced [`schedule`], each played whole,
//!   until every adjacent pair of the final's table is apart at 95% or another round would
//!   pass the budget ([`standing`]);
//! - **published** once its result is written (`contest/final.json`): the table, its ties,
//!   the matrix, every game with its files' digests; `koth contest export` packs it all and
//!   `koth contest verify` recomputes it.
//!
//! Invariants:
//! - The manifest and the result are each written once (the first writer wins, in the
//!   database's `meta`), and the files are copies of those bytes.
//! - A final game is never rated into the hill's table, and a game whose every attempt was a
//!   harness fault is never scored: it is played again, same seats and seed.
//! - The final's games are ordinary queued games: `koth worker`s play them as they play ranked
//!   ones, and a stopped run goes on with the rounds it had queued.

pub mod cli;
pub mod export;
pub mod schedule;
pub mod standing;

use std::path::Path;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use koth_ranking::Ranking;
use koth_tournament::schedule::ScheduledGame;
use koth_tournament::store::{GameState, Store};

use super::store::{self, contest as db};
use super::{Hill, board, logs};

/// The manifest and the result, in the hill folder (and in `meta` for a shared hill).
pub const MANIFEST_FILE: &str = "contest/manifest.json";
pub const RESULT_FILE: &str = "contest/final.json";
/// `meta` keys: the close by hand (unix seconds), the manifest's and the result's bytes.
const CLOSED_META: &str = "contest_closed_at";
const MANIFEST_META: &str = "contest_manifest";
const RESULT_META: &str = "contest_result";
/// The stream of the hill's seed the final's seed is drawn from (ranked games use 1 + index).
const FINAL_STREAM: u64 = 3 << 40;

/// A hill file's `[contest]`, checked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contest {
    /// When submissions close, in unix seconds.
    pub closes: i64,
    pub finalists: usize,
    pub budget: u32,
}

/// `[contest]` as the file writes it: `closes` a TOML datetime or an RFC 3339 string.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ContestKeys {
    closes: toml::Value,
    finalists: usize,
    budget: u32,
}

impl ContestKeys {
    /// The contest, its keys checked alone (`seats`: the most a game of the hill seats, the
    /// fewest it may).
    pub(crate) fn check(&self, seats: usize, fewest: usize) -> anyhow::Result<Contest> {
        let text = match &self.closes {
            toml::Value::String(text) => text.clone(),
            toml::Value::Datetime(when) => when.to_string(),
            other => bail!(
                "`contest.closes` = {other}: give a UTC time, as RFC 3339 \
                 (closes = \"2026-12-01T18:00:00Z\")"
            ),
        };
        let closes = OffsetDateTime::parse(&text, &Rfc3339).map_err(|e| {
            anyhow::anyhow!(
                "`contest.closes` = {text:?}: {e}; give a time with its offset, as RFC 3339 \
                 (closes = \"2026-12-01T18:00:00Z\")"
            )
        })?;
        let finalists = self.finalists;
        if !(2..=256).contains(&finalists) {
            bail!("`contest.finalists` = {finalists}: give 2 to 256");
        }
        let at_table = seats.min(finalists);
        if at_table < fewest {
            bail!(
                "`contest.finalists` = {finalists}: a game of this hill seats at least {fewest}, \
                 so a final needs that many finalists"
            );
        }
        let Some(round) = schedule::round_size(finalists, at_table).filter(|&n| n <= 100_000)
        else {
            bail!(
                "`contest.finalists` = {finalists} at tables of {at_table}: a balanced round of \
                 the final (every table, every seat) would pass 100000 games; give fewer"
            );
        };
        if self.budget < round {
            bail!(
                "`contest.budget` = {}: one balanced round of the final is {round} games \
                 ({finalists} finalists, {at_table} a game: every table once with every seat \
                 taken by each); give at least {round}",
                self.budget
            );
        }
        Ok(Contest {
            closes: closes.unix_timestamp(),
            finalists,
            budget: self.budget,
        })
    }
}

/// Where a contest is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Open,
    Frozen,
    Final,
    Published,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Open => "open",
            Phase::Frozen => "frozen",
            Phase::Final => "final",
            Phase::Published => "published",
        }
    }
}

/// A time as RFC 3339, in UTC.
pub fn rfc3339(unix: i64) -> String {
    OffsetDateTime::from_unix_timestamp(unix)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_else(|| unix.to_string())
}

fn now() -> i64 {
    OffsetDateTime::now_utc().unix_timestamp()
}

/// When the contest of `store` closed or closes: its file's `closes`, or earlier by hand.
fn closes_at(contest: &Contest, store: &Store) -> anyhow::Result<(i64, bool)> {
    let by_hand = store
        .meta(CLOSED_META)?
        .and_then(|t| t.parse::<i64>().ok())
        .filter(|&t| t < contest.closes);
    Ok(match by_hand {
        Some(at) => (at, true),
        None => (contest.closes, false),
    })
}

/// Whether the contest has closed.
fn closed(contest: &Contest, store: &Store) -> anyhow::Result<bool> {
    Ok(closes_at(contest, store)?.0 <= now())
}

/// The phase of the contest of `store`.
pub fn phase(contest: &Contest, store: &Store) -> anyhow::Result<Phase> {
    if store.meta(RESULT_META)?.is_some() {
        return Ok(Phase::Published);
    }
    if !db::final_games(store.connection())?.is_empty() {
        return Ok(Phase::Final);
    }
    Ok(if closed(contest, store)? {
        Phase::Frozen
    } else {
        Phase::Open
    })
}

/// Refuses, naming the time, what may not happen after the close: a new bot or version.
pub(crate) fn refuse_after_close(hill: &Hill, what: &str) -> anyhow::Result<()> {
    let Some(contest) = &hill.config.contest else {
        return Ok(());
    };
    let (at, _) = closes_at(contest, &hill.store)?;
    if at <= now() {
        bail!(
            "the contest closed at {}: {what} is refused after the close",
            rfc3339(at)
        );
    }
    Ok(())
}

/// Refuses, naming the time, a change to bot `name`'s versions after the close while it is a
/// finalist (every bot, between the close and the manifest that names the finalists).
pub(crate) fn refuse_if_frozen(hill: &Hill, name: &str, what: &str) -> anyhow::Result<()> {
    let Some(contest) = &hill.config.contest else {
        return Ok(());
    };
    let (at, _) = closes_at(contest, &hill.store)?;
    if at > now() || hill.store.meta(RESULT_META)?.is_some() {
        return Ok(());
    }
    let finalist = match manifest(&hill.store)? {
        Some((manifest, _)) => manifest.finalists.iter().any(|f| f.name == name),
        None => true,
    };
    if finalist {
        bail!(
            "the contest closed at {}: {name:?} is a finalist, so {what} is refused until the \
             final is published",
            rfc3339(at)
        );
    }
    Ok(())
}

/// The version ids of the finalists, once the manifest names them.
pub(crate) fn finalist_ids(store: &Store) -> anyhow::Result<Vec<usize>> {
    Ok(manifest(store)?
        .map(|(m, _)| m.finalists.iter().map(|f| f.id).collect())
        .unwrap_or_default())
}

/// The frozen field: written once at the close, before the final's first game.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub hill: String,
    pub game: String,
    /// `points` or `placement`: the ranking of the hill and of the final.
    pub ranking: String,
    pub closes: String,
    pub closed_at: String,
    pub closed_by_hand: bool,
    /// In their order at the close.
    pub finalists: Vec<Finalist>,
    /// The whole table at the close, its ranked lines first.
    pub table: Vec<ClosingLine>,
    #[serde(rename = "final")]
    pub final_settings: FinalSettings,
}

/// A finalist as the manifest freezes it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Finalist {
    pub name: String,
    pub version: u32,
    /// Its version's id in the hill's database.
    pub id: usize,
    /// SHA-256 of its uploaded source as the hill stored it (before the build), and of its
    /// folder as built and played (`koth_bot::digest`).
    pub source_digest: String,
    pub built_digest: String,
    pub rating: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub games: u32,
}

/// A line of the table at the close.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClosingLine {
    /// None while it was still placing.
    pub rank: Option<usize>,
    pub name: String,
    pub version: u32,
    pub rating: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub games: u32,
}

/// What the final plays, as the manifest freezes it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FinalSettings {
    /// Finalists at each table.
    pub seats: usize,
    /// Games in a round: every table once per seat.
    pub round_size: u32,
    pub budget: u32,
    /// The seed every final game's is drawn from (with its round and table).
    pub seed: u64,
    pub stops: String,
    /// SHA-256 of the hill file (the game's settings: rounds, limits, options).
    pub hill_file_sha256: String,
}

/// The manifest, with its SHA-256, once written.
pub fn manifest(store: &Store) -> anyhow::Result<Option<(Manifest, String)>> {
    let Some(text) = store.meta(MANIFEST_META)? else {
        return Ok(None);
    };
    let manifest = serde_json::from_str(&text).context("the contest's manifest is damaged")?;
    Ok(Some((
        manifest,
        koth_bot::digest::sha256_hex(text.as_bytes()),
    )))
}

/// The manifest's exact bytes, once written.
pub fn manifest_text(store: &Store) -> anyhow::Result<Option<String>> {
    store.meta(MANIFEST_META)
}

/// The result, once published, with its bytes.
pub fn result(store: &Store) -> anyhow::Result<Option<(FinalResult, String)>> {
    let Some(text) = store.meta(RESULT_META)? else {
        return Ok(None);
    };
    let result = serde_json::from_str(&text).context("the contest's result is damaged")?;
    Ok(Some((result, text)))
}

/// The final as published.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FinalResult {
    pub manifest_sha256: String,
    /// Why it stopped: sure of its order, or out of budget.
    pub stopped: String,
    pub rounds: u32,
    /// Games scored; games played again after a harness fault (never scored).
    pub games: u32,
    pub replayed: u32,
    /// The finalists' names and versions, by place at the close (the table's `finalist`).
    pub finalists: Vec<String>,
    pub table: standing::Table,
    /// Adjacent pairs not told apart, by name: declared ties.
    pub ties: Vec<[String; 2]>,
    pub final_games: Vec<FinalGame>,
}

/// A scored final game, as published.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FinalGame {
    pub index: u32,
    pub round: u32,
    pub table: u32,
    pub seed: u64,
    pub outcomes: Vec<standing::Outcome>,
    /// SHA-256 of each file of the game's folder, by its path there.
    pub files: std::collections::BTreeMap<String, String>,
}

/// Writes `value` under `key` unless it is there, and returns what is there: the first
/// writer's bytes, whoever that was.
fn write_once(store: &Store, key: &str, value: &str) -> anyhow::Result<String> {
    db::insert_meta_once(store.connection(), key, value)?;
    store
        .meta(key)?
        .with_context(|| format!("{key} vanished from {}", store.location()))
}

/// Writes `bytes` as `relative` in the hill folder.
fn write_file(hill: &Hill, relative: &str, bytes: &str) -> anyhow::Result<()> {
    let path = hill.dir.join(relative);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// Closes the contest of `hill` now, by hand; the time it closed (or had closed).
pub fn close_now(hill: &Hill) -> anyhow::Result<i64> {
    let contest = hill
        .config
        .contest
        .context("this hill has no contest: its hill file has no [contest] table")?;
    let (at, _) = closes_at(&contest, &hill.store)?;
    if at <= now() {
        return Ok(at);
    }
    let now = now();
    write_once(&hill.store, CLOSED_META, &now.to_string())?;
    Ok(closes_at(&contest, &hill.store)?.0)
}

/// At the close: refits, freezes the table's first `finalists` in the manifest and drops the
/// ranked games not begun. Does nothing before the close or once frozen.
fn freeze(hill: &Hill, contest: &Contest) -> anyhow::Result<()> {
    let store = &hill.store;
    if !closed(contest, store)? || store.meta(MANIFEST_META)?.is_some() {
        return Ok(());
    }
    let dropped = db::drop_ranked_queue(store.connection())?;
    let ranking = hill.config.game.game()?.ranking();
    super::run::refit(
        store,
        ranking,
        hill.config.tuning.placement_games,
        &mut Vec::new(),
    )?;
    let board = board::read(store)?;
    let versions = store::versions(store.connection())?;
    let bots = store.bots()?;
    // The table's first: its ranked lines, then, if they are too few, those still placing
    // (most games first), as the table lists them.
    let mut finalists = Vec::new();
    for line in &board.standings {
        if finalists.len() == contest.finalists {
            break;
        }
        let Some(v) = versions
            .iter()
            .find(|v| v.name == line.name && v.version == line.version)
        else {
            continue;
        };
        let bot = bots.get(v.id).context("a version without its bot")?;
        let dir = hill.version_folder(v.id, bot, &v.digest)?;
        let built = koth_bot::digest::digest(&koth_bot::BotSpec { dir, ..bot.clone() })?;
        finalists.push(Finalist {
            name: v.name.clone(),
            version: v.version,
            id: v.id,
            source_digest: v.digest.clone(),
            built_digest: built,
            rating: line.rating,
            low: line.low,
            high: line.high,
            games: line.games,
        });
    }
    let seats = hill.config.players().min(finalists.len().max(1));
    let (at, by_hand) = closes_at(contest, store)?;
    let hill_file = super::file_text(store, &hill.dir)?;
    let manifest = Manifest {
        hill: hill.name.clone(),
        game: hill.config.game.game.clone(),
        ranking: match ranking {
            Ranking::Points => "points",
            Ranking::Placement => "placement",
        }
        .into(),
        closes: rfc3339(contest.closes),
        closed_at: rfc3339(at),
        closed_by_hand: by_hand,
        final_settings: FinalSettings {
            seats,
            round_size: schedule::round_size(finalists.len(), seats).unwrap_or(0),
            budget: contest.budget,
            seed: {
                use rand::Rng;
                koth_game::seed::rng(hill.seed, FINAL_STREAM).next_u64()
            },
            stops: "after a whole round once every adjacent pair of the final's table is apart \
                    at 95% (a lead above its interval), or when another round would pass the \
                    budget; pairs not apart then are declared tied"
                .into(),
            hill_file_sha256: koth_bot::digest::sha256_hex(hill_file.as_bytes()),
        },
        finalists,
        table: board
            .standings
            .iter()
            .map(|l| ClosingLine {
                rank: l.rank,
                name: l.name.clone(),
                version: l.version,
                rating: l.rating,
                low: l.low,
                high: l.high,
                games: l.games,
            })
            .collect(),
    };
    let text = write_once(
        store,
        MANIFEST_META,
        &serde_json::to_string_pretty(&manifest)?,
    )?;
    write_file(hill, MANIFEST_FILE, &text)?;
    let sha = koth_bot::digest::sha256_hex(text.as_bytes());
    let line = format!(
        "the contest closed at {}: the manifest ({}) has SHA-256 {sha}{}",
        rfc3339(at),
        hill.dir.join(MANIFEST_FILE).display(),
        if dropped > 0 {
            format!("; {dropped} ranked games not begun are dropped")
        } else {
            String::new()
        }
    );
    eprintln!("koth: {line}");
    tracing::info!("{line}");
    Ok(())
}

/// `hill run`'s turn of a contest: nothing before the close (`None`); after it, the field
/// frozen once and the final moved on ([`step`]).
pub(crate) fn turn(hill: &Hill) -> anyhow::Result<Option<Step>> {
    let Some(contest) = &hill.config.contest else {
        return Ok(None);
    };
    if !closed(contest, &hill.store)? {
        return Ok(None);
    }
    freeze(hill, contest)?;
    step(hill).map(Some)
}

/// What the final does next, seen from `hill run`'s turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Its games are queued or being played.
    Playing,
    /// Published: nothing more to play.
    Done,
}

/// Moves the final on (after [`freeze`]): plays again with its seats and seed a game whose
/// every attempt failed by the harness, and once a round is done decides: published, or the
/// next round queued.
fn step(hill: &Hill) -> anyhow::Result<Step> {
    let store = &hill.store;
    if store.meta(RESULT_META)?.is_some() {
        return Ok(Step::Done);
    }
    let Some((manifest, sha)) = manifest(store)? else {
        return Ok(Step::Playing);
    };
    let finalists = manifest.finalists.len();
    let settings = &manifest.final_settings;
    let conn = store.connection();
    let games = db::final_games(conn)?;
    for failed in games
        .iter()
        .filter(|g| g.state == GameState::HarnessFailed && !g.replayed)
    {
        let index = store::next_game(conn)?;
        let again = ScheduledGame {
            index,
            seed: failed.seed,
            seats: failed.seats.clone(),
        };
        let reason = format!(
            "the final, round {}: game {} played again (every attempt failed by the harness)",
            failed.round, failed.game
        );
        db::queue_final_game(
            conn,
            &again,
            failed.round,
            failed.table,
            Some(failed.game),
            &reason,
        )?;
        tracing::warn!(game = failed.game, again = index, "{reason}");
    }
    let games = db::final_games(conn)?;
    if games
        .iter()
        .any(|g| matches!(g.state, GameState::Pending | GameState::Running))
    {
        return Ok(Step::Playing);
    }
    let rounds = games.iter().map(|g| g.round).max().unwrap_or(0);
    let ranking = if manifest.ranking == "points" {
        Ranking::Points
    } else {
        Ranking::Placement
    };
    if finalists >= 2 && rounds > 0 {
        let scored = scored_games(hill, &manifest)?;
        let outcomes: Vec<Vec<standing::Outcome>> =
            scored.iter().map(|g| g.outcomes.clone()).collect();
        let table = standing::table(ranking, finalists, &outcomes);
        let next_fits =
            u64::from(rounds + 1) * u64::from(settings.round_size) <= u64::from(settings.budget);
        if table.sure() || !next_fits {
            let stopped = if table.sure() {
                format!("every adjacent pair apart at 95% after {rounds} round(s)")
            } else {
                format!(
                    "the budget: another round of {} games would pass {}",
                    settings.round_size, settings.budget
                )
            };
            publish(hill, &manifest, sha, stopped, rounds, table, scored)?;
            return Ok(Step::Done);
        }
    } else if finalists < 2 {
        let stopped = "no final: fewer than two bots on the hill at the close".to_string();
        let table = standing::table(ranking, finalists, &[]);
        publish(hill, &manifest, sha, stopped, 0, table, Vec::new())?;
        return Ok(Step::Done);
    }
    if rounds == 0 {
        let line = format!(
            "the final begins: {finalists} finalists, rounds of {} games, at most {}; manifest \
             SHA-256 {sha}",
            settings.round_size, settings.budget
        );
        eprintln!("koth: {line}");
        tracing::info!("{line}");
    }
    queue_round(hill, &manifest, rounds + 1)?;
    Ok(Step::Playing)
}

/// Queues round `round` of the final: every table with its seed, each seat taken by each.
fn queue_round(hill: &Hill, manifest: &Manifest, round: u32) -> anyhow::Result<()> {
    let settings = &manifest.final_settings;
    let conn = hill.store.connection();
    for seating in schedule::round(manifest.finalists.len(), settings.seats) {
        let seed = {
            use rand::Rng;
            let stream = (u64::from(round) << 32) + u64::from(seating.table);
            koth_game::seed::rng(settings.seed, stream).next_u64()
        };
        let game = ScheduledGame {
            index: store::next_game(conn)?,
            seed,
            seats: seating
                .seats
                .iter()
                .map(|&f| manifest.finalists[f].id)
                .collect(),
        };
        let reason = format!("the final, round {round}, table {}", seating.table + 1);
        db::queue_final_game(conn, &game, round, seating.table, None, &reason)?;
    }
    tracing::info!(round, "a round of the final queued");
    Ok(())
}

/// The final's scored games, in their order, with their outcomes and files' digests.
fn scored_games(hill: &Hill, manifest: &Manifest) -> anyhow::Result<Vec<FinalGame>> {
    let place = |id: usize| manifest.finalists.iter().position(|f| f.id == id);
    let mut scored = Vec::new();
    for game in db::final_games(hill.store.connection())?
        .into_iter()
        .filter(|g| g.state == GameState::Done)
    {
        let mut outcomes = Vec::new();
        for (bot, score) in db::scores_of(hill.store.connection(), game.game)? {
            let finalist = place(bot)
                .with_context(|| format!("final game {} seats a bot no finalist", game.game))?;
            outcomes.push(standing::Outcome { finalist, score });
        }
        let files = game_files(hill, game.game)?
            .into_iter()
            .map(|(path, bytes)| (path, koth_bot::digest::sha256_hex(&bytes)))
            .collect();
        scored.push(FinalGame {
            index: game.game,
            round: game.round,
            table: game.table,
            seed: game.seed,
            outcomes,
            files,
        });
    }
    Ok(scored)
}

/// The files of game `index` as everyone may read them, by path in its folder: from the hill
/// folder, or a shared hill's database; a hill whose logs are its authors' gives its public
/// copy ([`logs::public_copy`]); a bot's kept working copy is its author's, never published.
pub(crate) fn game_files(hill: &Hill, index: u32) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let fetched;
    let mut dir = koth_tournament::store::game_dir(&hill.dir, index);
    if hill.store.is_shared() {
        fetched = tempfile::tempdir().context("cannot make a folder for a game's files")?;
        hill.store.extract(index, fetched.path(), None)?;
        dir = fetched.path().to_path_buf();
    }
    let public;
    if super::logs_are_private(&hill.store, &hill.dir)? {
        public = logs::public_copy(&dir)?;
        dir = public.path().to_path_buf();
    }
    let mut files = Vec::new();
    read_tree(&dir, Path::new(""), &mut files)?;
    files.retain(|(path, _)| !Path::new(path).starts_with(koth_bot::roster::WORKING_COPIES));
    files.sort();
    Ok(files)
}

fn read_tree(
    root: &Path,
    relative: &Path,
    files: &mut Vec<(String, Vec<u8>)>,
) -> anyhow::Result<()> {
    let dir = root.join(relative);
    for entry in
        std::fs::read_dir(&dir).with_context(|| format!("cannot read {}", dir.display()))?
    {
        let entry = entry?;
        let path = relative.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            read_tree(root, &path, files)?;
        } else if kind.is_file() {
            let bytes = std::fs::read(root.join(&path))
                .with_context(|| format!("cannot read {}", root.join(&path).display()))?;
            files.push((path.to_string_lossy().into_owned(), bytes));
        }
    }
    Ok(())
}

fn publish(
    hill: &Hill,
    manifest: &Manifest,
    manifest_sha256: String,
    stopped: String,
    rounds: u32,
    table: standing::Table,
    final_games: Vec<FinalGame>,
) -> anyhow::Result<()> {
    let names: Vec<String> = manifest
        .finalists
        .iter()
        .map(|f| format!("{} v{}", f.name, f.version))
        .collect();
    let ties = table
        .unseparated()
        .into_iter()
        .map(|(a, b)| [names[a].clone(), names[b].clone()])
        .collect();
    let result = FinalResult {
        manifest_sha256,
        stopped,
        rounds,
        games: final_games.len() as u32,
        replayed: db::final_harness_faults(hill.store.connection())?,
        finalists: names,
        table,
        ties,
        final_games,
    };
    let text = write_once(
        &hill.store,
        RESULT_META,
        &serde_json::to_string_pretty(&result)?,
    )?;
    write_file(hill, RESULT_FILE, &text)?;
    let (result, _) = self::result(&hill.store)?.context("the result vanished")?;
    eprintln!(
        "koth: the final is published ({}): {}\n{}",
        hill.dir.join(RESULT_FILE).display(),
        result.stopped,
        render(&result)
    );
    tracing::info!(stopped = result.stopped, "the final is published");
    Ok(())
}

/// The final's table as text: place, finalist, figure ± interval, games, and whether it is
/// apart from the next.
pub fn render(result: &FinalResult) -> String {
    let mut out = String::new();
    for line in &result.table.lines {
        let name = result
            .finalists
            .get(line.finalist)
            .map_or("?", String::as_str);
        let apart = match line.apart_from_next {
            Some(true) => "apart from the next",
            Some(false) => "tied with the next",
            None => "",
        };
        out.push_str(&format!(
            "{:>4}  {:<28} {:>9.3} ± {:<8.3} {:>5} games  {apart}\n",
            line.place,
            koth_bot::text::shown(name),
            line.value,
            line.interval,
            line.games
        ));
    }
    out
}

/// The contest as its pages, `/api/hill` and `koth contest status` show it.
#[derive(Debug, Clone, Serialize)]
pub struct View {
    pub phase: Phase,
    pub closes: String,
    /// Seconds until the close (none once closed).
    pub closes_in_s: Option<i64>,
    pub closed_by_hand: bool,
    pub finalists: usize,
    pub budget: u32,
    pub manifest_sha256: Option<String>,
    /// The finalists once frozen, by place at the close.
    pub field: Vec<String>,
    /// Final games scored and queued or running.
    pub final_games_done: u32,
    pub final_games_left: u32,
    pub rounds: u32,
    pub result: Option<FinalResult>,
}

/// The contest of the hill of `store` (folder `dir`), if its file declares one.
pub fn view(store: &Store, dir: &Path) -> anyhow::Result<Option<View>> {
    let Some(contest) = super::file_of(store, dir)?.contest else {
        return Ok(None);
    };
    let (at, by_hand) = closes_at(&contest, store)?;
    let manifest = manifest(store)?;
    let games = db::final_games(store.connection())?;
    let done = games.iter().filter(|g| g.state == GameState::Done).count() as u32;
    let left = games
        .iter()
        .filter(|g| matches!(g.state, GameState::Pending | GameState::Running))
        .count() as u32;
    Ok(Some(View {
        phase: phase(&contest, store)?,
        closes: rfc3339(at),
        closes_in_s: Some(at - now()).filter(|&s| s > 0),
        closed_by_hand: by_hand,
        finalists: contest.finalists,
        budget: contest.budget,
        manifest_sha256: manifest.as_ref().map(|(_, sha)| sha.clone()),
        field: manifest
            .map(|(m, _)| {
                m.finalists
                    .iter()
                    .map(|f| format!("{} v{}", f.name, f.version))
                    .collect()
            })
            .unwrap_or_default(),
        final_games_done: done,
        final_games_left: left,
        rounds: games.iter().map(|g| g.round).max().unwrap_or(0),
        result: result(store)?.map(|(r, _)| r),
    }))
}
