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

pub use process::{Answer, BotError, BotProcess, StderrLog, kill_all};
pub use roster::BotSpec;

/// Time limits for one bot's answers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// From writing a prompt to reading the answer line.
    pub answer: Duration,
    /// From the last message (or end of input) to the process's exit.
    pub exit: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            answer: Duration::from_secs(1),
            exit: Duration::from_secs(1),
        }
    }
}

impl Limits {
    /// The same limit for answers and for exiting, as the original controllers had.
    pub fn uniform(limit: Duration) -> Limits {
        Limits {
            answer: limit,
            exit: limit,
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
