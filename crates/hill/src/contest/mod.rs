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
mod play;
pub mod schedule;
pub mod standing;
mod view;

pub(crate) use play::{Step, turn};
pub use view::{View, view};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use koth_tournament::store::{Store, insert_meta_once};

use crate::config::Contest;
use crate::store::contest as db;

/// The manifest and the result, in the hill folder (and in `meta` for a shared hill).
pub const MANIFEST_FILE: &str = "contest/manifest.json";
pub const RESULT_FILE: &str = "contest/final.json";
/// `meta` keys: the close by hand (unix seconds), the manifest's and the result's bytes.
const CLOSED_META: &str = "contest_closed_at";
const MANIFEST_META: &str = "contest_manifest";
const RESULT_META: &str = "contest_result";

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
    if !db::final_games(store)?.is_empty() {
        return Ok(Phase::Final);
    }
    Ok(if closed(contest, store)? {
        Phase::Frozen
    } else {
        Phase::Open
    })
}

/// Refuses, naming the time, what may not happen after the close of `contest` (a hill's, in
/// `store`): a new bot or version.
pub(crate) fn refuse_after_close(
    contest: Option<&Contest>,
    store: &Store,
    what: &str,
) -> anyhow::Result<()> {
    let Some(contest) = contest else {
        return Ok(());
    };
    let (at, _) = closes_at(contest, store)?;
    if at <= now() {
        bail!(
            "the contest closed at {}: {what} is refused after the close",
            rfc3339(at)
        );
    }
    Ok(())
}

/// Refuses, naming the time, a change to bot `name`'s versions after the close while it is a
/// finalist (every bot, between the close and the manifest that names the finalists), until
/// the final is published.
pub(crate) fn refuse_if_frozen(
    contest: Option<&Contest>,
    store: &Store,
    name: &str,
    what: &str,
) -> anyhow::Result<()> {
    let Some(contest) = contest else {
        return Ok(());
    };
    let (at, _) = closes_at(contest, store)?;
    if at > now() || store.meta(RESULT_META)?.is_some() {
        return Ok(());
    }
    let finalist = match manifest(store)? {
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

/// The final's games as its table reads them.
pub(crate) fn standing_of(games: &[FinalGame]) -> Vec<standing::Scored<'_>> {
    games
        .iter()
        .map(|g| standing::Scored {
            round: g.round,
            table: g.table,
            outcomes: &g.outcomes,
        })
        .collect()
}

/// Writes `value` under `key` unless it is there, and returns what is there: the first
/// writer's bytes, whoever that was.
fn write_once(store: &Store, key: &str, value: &str) -> anyhow::Result<String> {
    insert_meta_once(store, key, value)?;
    store
        .meta(key)?
        .with_context(|| format!("{key} vanished from {}", store.location()))
}

/// Closes `contest` (a hill's, in `store`) now, by hand; the time it closed (or had closed).
pub fn close_now(contest: Option<&Contest>, store: &Store) -> anyhow::Result<i64> {
    let contest =
        contest.context("this hill has no contest: its hill file has no [contest] table")?;
    let (at, _) = closes_at(contest, store)?;
    if at <= now() {
        return Ok(at);
    }
    write_once(store, CLOSED_META, &now().to_string())?;
    Ok(closes_at(contest, store)?.0)
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
            koth_base::text::shown(name),
            line.value,
            line.interval,
            line.games
        ));
    }
    out
}
