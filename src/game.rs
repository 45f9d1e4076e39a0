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

/// How many faults of each kind one bot committed in a match: exact, however few of them the
/// match keeps with their reasons (see [`FaultLog`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultCounts {
    pub timed_out: u64,
    pub crashed: u64,
    pub bad_output: u64,
    pub failed_to_start: u64,
    #[serde(default)]
    pub benched: u64,
}

impl FaultCounts {
    pub fn add(&mut self, kind: FaultKind) {
        *self.of_mut(kind) += 1;
    }

    pub fn of(&self, kind: FaultKind) -> u64 {
        match kind {
            FaultKind::TimedOut => self.timed_out,
            FaultKind::Crashed => self.crashed,
            FaultKind::BadOutput => self.bad_output,
            FaultKind::FailedToStart => self.failed_to_start,
            FaultKind::Benched => self.benched,
        }
    }

    fn of_mut(&mut self, kind: FaultKind) -> &mut u64 {
        match kind {
            FaultKind::TimedOut => &mut self.timed_out,
            FaultKind::Crashed => &mut self.crashed,
            FaultKind::BadOutput => &mut self.bad_output,
            FaultKind::FailedToStart => &mut self.failed_to_start,
            FaultKind::Benched => &mut self.benched,
        }
    }

    pub fn total(&self) -> u64 {
        FaultKind::ALL.into_iter().map(|kind| self.of(kind)).sum()
    }

    /// Adds another match's counts to these.
    pub fn merge(&mut self, other: &FaultCounts) {
        for kind in FaultKind::ALL {
            *self.of_mut(kind) += other.of(kind);
        }
    }

    /// How a bot with these faults ended: as its most serious kind of fault.
    pub fn status(&self) -> BotStatus {
        FaultKind::ALL
            .into_iter()
            .filter(|&kind| self.of(kind) > 0)
            .map(FaultKind::status)
            .max_by_key(|s| s.severity())
            .unwrap_or(BotStatus::Finished)
    }
}

/// Shows the counts that are not zero, e.g. `36 bad output, 1 crashed`, or `none`.
impl std::fmt::Display for FaultCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = FaultKind::ALL
            .into_iter()
            .filter(|&kind| self.of(kind) > 0)
            .map(|kind| format!("{} {}", self.of(kind), kind.status().as_str()))
            .collect();
        if parts.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// How many faults of each kind per bot a match keeps with their reasons. A bot that faults at
/// every turn of a long game would otherwise fill results and memory with the same reason; the
/// first few of each kind say what went wrong, and the counts stay exact.
pub const FAULTS_KEPT_PER_KIND: u64 = 10;

/// The faults of a match as it goes, bounded: every fault is counted per bot and kind, and the
/// first [`FAULTS_KEPT_PER_KIND`] of each kind per bot are kept, in the order they happened.
#[derive(Debug, Clone, Default)]
pub struct FaultLog {
    kept: Vec<Fault>,
    /// Per bot name, in the order bots first faulted.
    counts: Vec<(String, FaultCounts)>,
}

impl FaultLog {
    pub fn push(&mut self, fault: Fault) {
        let index = match self.counts.iter().position(|(bot, _)| *bot == fault.bot) {
            Some(index) => index,
            None => {
                self.counts
                    .push((fault.bot.clone(), FaultCounts::default()));
                self.counts.len() - 1
            }
        };
        let counts = &mut self.counts[index].1;
        counts.add(fault.kind);
        if counts.of(fault.kind) <= FAULTS_KEPT_PER_KIND {
            self.kept.push(fault);
        }
    }

    /// The faults kept, of every bot.
    pub fn kept(&self) -> &[Fault] {
        &self.kept
    }

    /// Every fault of `bot` counted by kind.
    pub fn counts(&self, bot: &str) -> FaultCounts {
        self.counts
            .iter()
            .find(|(name, _)| name == bot)
            .map(|(_, counts)| *counts)
            .unwrap_or_default()
    }

    /// `bot`'s part in the match: its faults kept and counted, and the status they give it.
    pub fn bot_result(&self, bot: &str, score: f64, timing: AnswerStats) -> BotResult {
        let fault_counts = self.counts(bot);
        BotResult {
            name: bot.to_string(),
            score,
            status: fault_counts.status(),
            faults: self.kept.iter().filter(|f| f.bot == bot).cloned().collect(),
            fault_counts,
            timing,
        }
    }
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
    /// The first of its faults ([`FAULTS_KEPT_PER_KIND`] of each kind at most).
    pub faults: Vec<Fault>,
    /// All of its faults, counted by kind (absent from results written before they were).
    #[serde(default)]
    pub fault_counts: FaultCounts,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(bot: &str, kind: FaultKind, turn: u32) -> Fault {
        Fault {
            bot: bot.into(),
            kind,
            round: Some(0),
            turn: Some(turn),
            reason: format!("fault {turn}"),
        }
    }

    #[test]
    fn a_fault_log_keeps_the_first_of_each_kind_per_bot_and_counts_them_all() {
        let mut log = FaultLog::default();
        for turn in 0..1000 {
            log.push(fault("a", FaultKind::BadOutput, turn));
        }
        log.push(fault("a", FaultKind::Crashed, 1000));
        log.push(fault("b", FaultKind::TimedOut, 3));
        let a = log.bot_result("a", 1.0, AnswerStats::default());
        let expected = FaultCounts {
            bad_output: 1000,
            crashed: 1,
            ..FaultCounts::default()
        };
        assert_eq!(a.fault_counts, expected);
        assert_eq!(a.fault_counts.total(), 1001);
        // The crash came after the kept bad outputs, and still decides the status.
        assert_eq!(a.status, BotStatus::Crashed);
        let kept: Vec<u32> = a.faults.iter().filter_map(|f| f.turn).collect();
        assert_eq!(kept, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1000]);
        assert_eq!(a.fault_counts.to_string(), "1 crashed, 1000 bad output");
        let b = log.bot_result("b", 0.0, AnswerStats::default());
        assert_eq!((b.status, b.faults.len()), (BotStatus::TimedOut, 1));
        let c = log.bot_result("c", 0.0, AnswerStats::default());
        assert_eq!((c.status, c.fault_counts.total()), (BotStatus::Finished, 0));
        assert_eq!(log.kept().len(), 12);
    }
}
