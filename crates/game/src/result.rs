//! What a match leaves behind: each bot's score, faults, status and timing.

use serde::{Deserialize, Serialize};

use koth_bot::{AnswerStats, BotStatus, Fault, FaultCounts, FaultLog};

/// One bot's part in a finished match.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BotResult {
    pub name: String,
    pub score: f64,
    pub status: BotStatus,
    /// The first of its faults ([`koth_bot::FAULTS_KEPT_PER_KIND`] of each kind at most).
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

/// The file of a match's log folder that holds its result. What the generic tools read of it:
/// the game's name (`"game"` at the top, or the [`MatchResult`]'s under `"result"`), by which
/// `koth replay` and the dashboard choose the viewer; the rest is the game's own.
pub const RESULTS_FILE: &str = "results.json";
