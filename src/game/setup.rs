//! What a game is given to play one match, and what it tells while it plays.

use std::path::PathBuf;
use std::sync::Arc;

use crate::bot::{BotSpec, Limits};

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
