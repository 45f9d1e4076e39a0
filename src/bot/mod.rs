//! The bot process layer: starting bots, talking to them in lines with time limits, and
//! recording what they do wrong. It knows nothing about any game.
//!
//! - [`roster`]: which bots to start — koth's `bot.toml` manifests and the original
//!   controller's `bots.txt` — and their build steps.
//! - [`process`]: one running bot — spawn in its own process group, write lines, read answer
//!   lines under a time limit, stderr to a capped log file, and kill everything it started.

pub mod process;
pub mod roster;

use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use process::{
    Answer, AnswerStats, BotError, BotProcess, StderrLog, Transcript, flush_transcripts, kill_all,
};
pub use roster::BotSpec;

/// The longest time limit koth takes, in milliseconds (an hour): a limit guards against a hung
/// bot, and deadlines are computed by adding limits to the clock.
pub const MAX_LIMIT_MS: u64 = 3_600_000;

/// The parser of every command's `--timeout-ms`: 1 to [`MAX_LIMIT_MS`] (a zero limit would
/// fault every bot at its first answer).
pub fn limit_ms_parser() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(1..=MAX_LIMIT_MS)
}

/// Time limits for one bot's answers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// From writing a prompt to reading the answer line.
    pub answer: Duration,
    /// From the last message (or end of input) to the process's exit.
    pub exit: Duration,
    /// Which clock `answer` is measured on.
    pub clock: Clock,
}

/// The clock a time limit is measured on.
///
/// Wall time is what the original controllers used, and is right when each bot has a core to
/// itself. When games run in parallel, bots compete for cores and a slow wall clock punishes a
/// bot for its neighbours; CPU time (user + system, from `/proc/<pid>/stat`) measures only the
/// bot's own work. A bot that sleeps or blocks uses no CPU, so the CPU clock keeps a wall-clock
/// backstop.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Clock {
    Wall,
    Cpu { backstop: Duration },
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            answer: Duration::from_secs(1),
            exit: Duration::from_secs(1),
            clock: Clock::Wall,
        }
    }
}

impl Limits {
    /// The same limit for answers and for exiting, as the original controllers had.
    pub fn uniform(limit: Duration) -> Limits {
        Limits {
            answer: limit,
            exit: limit,
            clock: Clock::Wall,
        }
    }
}

/// The kinds of fault a bot can commit; every game records its faults with one of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// The process could not be started (missing program, build failure).
    FailedToStart,
    /// No answer line within the limit, or no exit within the limit at the end.
    TimedOut,
    /// The process exited, or closed its stdout, while koth still expected answers.
    Crashed,
    /// A line that is not valid for the protocol: malformed, out of range, not UTF-8, too long.
    BadOutput,
}

impl FaultKind {
    pub fn status(self) -> crate::game::BotStatus {
        use crate::game::BotStatus;
        match self {
            FaultKind::FailedToStart => BotStatus::FailedToStart,
            FaultKind::TimedOut => BotStatus::TimedOut,
            FaultKind::Crashed => BotStatus::Crashed,
            FaultKind::BadOutput => BotStatus::BadOutput,
        }
    }
}
