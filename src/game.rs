//! The small interface every game implements, and what a match leaves behind.
//!
//! A game module turns a [`MatchSetup`] (which bots, which seed, where to write) into a
//! [`MatchResult`] (each bot's score, its faults and how it ended). Runners — the per-game
//! commands, the tournament runner — only ever see these types, so adding a game touches its own
//! folder and one line of the registry in [`crate::games`].

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::bot::{AnswerStats, BotSpec, BotStatus, Fault, FaultCounts, FaultLog, Limits};

/// Everything a game needs to play one match.
#[derive(Clone)]
pub struct MatchSetup {
    /// The players, in bot-list order (the order of letters in logs and scores in results).
    pub bots: Vec<BotSpec>,
    /// Every random choice of the match derives from this seed.
    pub seed: u64,
    /// The match writes its logs, replays and results here; the folder exists.
    pub log_dir: PathBuf,
    /// Time limits for bot answers.
    pub limits: Limits,
    /// Rounds (or boards, or games) per match; `None` means the game's own default.
    pub rounds: Option<u32>,
    /// Told after each round, for progress bars; may be absent.
    pub progress: Option<ProgressFn>,
    /// CPUs no other match uses meanwhile, when the caller has some to give (empty: run
    /// anywhere). Games keep themselves and their bots there (see [`crate::cpu`]).
    pub cpus: Vec<usize>,
}

/// The runtime a match that talks to its bots runs on, on a thread of its own. One thread is
/// enough: koth only waits on pipes, and a single-threaded runtime costs far less CPU per answer
/// than a work-stealing one waking threads for every line.
pub fn match_runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Plays the match `make_match` returns on a [`match_runtime`] on a thread of its own, kept
/// with the bots it starts to `cpus` ([`crate::cpu::run_placed`]), and awaits its result.
pub async fn play_placed<T, M>(
    cpus: Vec<usize>,
    make_match: impl FnOnce() -> M + Send + 'static,
) -> anyhow::Result<T>
where
    T: Send + 'static,
    M: Future<Output = anyhow::Result<T>>,
{
    crate::cpu::run_placed(cpus, move || match_runtime()?.block_on(make_match())).await
}

/// A callback told after each round of a match.
pub type ProgressFn = Arc<dyn Fn(&RoundProgress) + Send + Sync>;

/// Where a match stands after a round, for progress displays.
#[derive(Debug, Clone)]
pub struct RoundProgress {
    pub rounds_done: u32,
    pub rounds_total: u32,
    /// Totals so far, in bot-list order.
    pub totals: Vec<f64>,
}

/// One bot's part in a finished match.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BotResult {
    pub name: String,
    pub score: f64,
    pub status: BotStatus,
    /// The first of its faults ([`crate::bot::FAULTS_KEPT_PER_KIND`] of each kind at most).
    pub faults: Vec<Fault>,
    /// All of its faults, counted by kind (absent from results written before they were).
    #[serde(default)]
    pub fault_counts: FaultCounts,
    /// How its answers went against the time limit (wall and CPU time, near-misses).
    #[serde(default)]
    pub timing: AnswerStats,
}

impl BotResult {
    /// `bot`'s part in a match: its score, its faults from `faults` (kept and counted), the
    /// status they give it, and its answers' timing.
    pub fn new(bot: &str, score: f64, faults: &FaultLog, timing: AnswerStats) -> BotResult {
        let fault_counts = faults.counts(bot);
        BotResult {
            name: bot.to_string(),
            score,
            status: fault_counts.status(),
            faults: faults.kept_of(bot),
            fault_counts,
            timing,
        }
    }
}

/// The outcome of one match, as every runner stores it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MatchResult {
    pub game: String,
    pub seed: u64,
    /// In bot-list order.
    pub bots: Vec<BotResult>,
}

/// How a bot's scores over many matches are averaged on a leaderboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Average {
    /// The arithmetic mean: points add up.
    Arithmetic,
    /// The geometric mean: scores that multiply, or spread over orders of magnitude (the rat
    /// race's board points), where one huge score would otherwise decide the ranking.
    Geometric,
}

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A game koth can run. `play` returns `Err` only for koth's own failures (a log folder that
/// cannot be written, say): those are harness faults, retried by tournaments and never counted
/// against a bot. Everything a bot does wrong is a [`Fault`] inside the result.
pub trait Game: Sync {
    /// The name used on the command line and in tournament files.
    fn name(&self) -> &'static str;
    /// How many bots a match takes: `(min, max)`.
    fn players(&self) -> (usize, usize);
    /// How a bot's match scores are averaged on a leaderboard.
    fn average(&self) -> Average {
        Average::Arithmetic
    }
    fn play<'a>(&'a self, setup: &'a MatchSetup) -> BoxFuture<'a, anyhow::Result<MatchResult>>;
}
