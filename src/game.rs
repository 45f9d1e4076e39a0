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

use crate::bot::{AnswerStats, BotSpec, FaultKind, Limits};

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

/// One thing a bot did wrong, with where it happened. A fault never stops a match: the game
/// records it and goes on without that bot's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fault {
    pub bot: String,
    pub kind: FaultKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    pub reason: String,
}

/// How a bot's match ended. A bot with faults ends as its most serious one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BotStatus {
    Finished,
    BadOutput,
    TimedOut,
    Crashed,
    FailedToStart,
    /// Not started: benched by a tournament after failing at start-up game after game.
    Benched,
}

impl BotStatus {
    /// The status of a bot that committed these faults.
    pub fn from_faults<'a>(faults: impl IntoIterator<Item = &'a Fault>) -> BotStatus {
        faults
            .into_iter()
            .map(|f| f.kind.status())
            .max_by_key(|s| s.severity())
            .unwrap_or(BotStatus::Finished)
    }

    fn severity(self) -> u8 {
        match self {
            BotStatus::Finished => 0,
            BotStatus::BadOutput => 1,
            BotStatus::TimedOut => 2,
            BotStatus::Crashed => 3,
            BotStatus::FailedToStart => 4,
            BotStatus::Benched => 5,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            BotStatus::Finished => "finished",
            BotStatus::BadOutput => "bad output",
            BotStatus::TimedOut => "timed out",
            BotStatus::Crashed => "crashed",
            BotStatus::FailedToStart => "failed to start",
            BotStatus::Benched => "benched",
        }
    }
}

/// One bot's part in a finished match.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BotResult {
    pub name: String,
    pub score: f64,
    pub status: BotStatus,
    pub faults: Vec<Fault>,
    /// How its answers went against the time limit (wall and CPU time, near-misses).
    #[serde(default)]
    pub timing: AnswerStats,
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
