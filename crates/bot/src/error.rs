//! Why a bot could not be talked to: every way a start, a prompt, an answer or an exit can go
//! wrong, with the message users read in results and logs.

use std::time::Duration;

use thiserror::Error;

use super::FaultKind;
use super::starvation::CpuWaits;
use super::unanswered::Unanswered;

/// Why a bot could not be talked to. The message is what users read in results and logs.
#[derive(Debug, Clone, Error, PartialEq)]
pub enum BotError {
    #[error("failed to start `{command}`: {reason}")]
    Spawn { command: String, reason: String },
    #[error("not started: {reason}")]
    Benched { reason: String },
    #[error("no answer within {} ms{}{stdout}", limit.as_millis(), grace_note(*grace))]
    Timeout {
        limit: Duration,
        grace: Duration,
        /// What it had written on its stdout: the likely mistake, when it wrote nothing or
        /// half a line.
        stdout: Unanswered,
    },
    /// A time-out koth caused: it and the bot waited for a CPU others held (see
    /// [`super::starvation`]). A time-out still for the game, but a harness fault for a
    /// tournament, which plays the game again.
    #[error(
        "no answer within {} ms, but {waited} of that for a CPU other programs held: koth's \
         fault, not the bot's",
        limit.as_millis()
    )]
    Starved { limit: Duration, waited: CpuWaits },
    #[error("used {} ms of CPU time for one answer (limit {} ms)", used.as_millis(), limit.as_millis())]
    CpuTimeout { used: Duration, limit: Duration },
    #[error("did not exit within {} ms after its last message", limit.as_millis())]
    NoExit { limit: Duration },
    /// A late exit koth caused: it and the bot waited for a CPU others held while the bot had
    /// its exit limit (see [`super::starvation`]); a harness fault for a tournament, as
    /// [`BotError::Starved`] is.
    #[error(
        "did not exit within {} ms after its last message, but {waited} of that for a CPU \
         other programs held: koth's fault, not the bot's",
        limit.as_millis()
    )]
    StarvedExit { limit: Duration, waited: CpuWaits },
    /// A WASI bot that burnt its fuel budget ([`super::Limits::answer_fuel`], or
    /// [`super::Limits::exit_fuel`] once its input ended).
    #[error("ran out of fuel: burnt its budget of {budget} fuel {}", if *exiting { "after its last message without exiting" } else { "for one answer" })]
    OutOfFuel { budget: u64, exiting: bool },
    #[error(
        "exited ({status}) while an answer was expected{}",
        tail_suffix(stderr_tail)
    )]
    Exited { status: String, stderr_tail: String },
    #[error(
        "closed its stdout while an answer was expected{}",
        tail_suffix(stderr_tail)
    )]
    ClosedStdout { stderr_tail: String },
    #[error("stopped reading its input ({reason})")]
    BrokenPipe { reason: String },
    #[error("printed a line of more than {max} bytes without a newline")]
    LineTooLong { max: usize },
    #[error("printed a line that is not UTF-8")]
    NotUtf8,
    /// A learning bot's data folder that is over its cap or holds what data may not
    /// ([`super::data`]): the bot is stopped, and the folder is not kept.
    #[error("its data folder {reason}")]
    Data { reason: String },
    #[error("is not running")]
    NotRunning,
    #[error("was stopped earlier: {0}")]
    Stopped(Box<BotError>),
}

fn grace_note(grace: Duration) -> String {
    if grace.is_zero() {
        String::new()
    } else {
        format!(
            " (its first answer, with {} ms more for start-up)",
            grace.as_millis()
        )
    }
}

/// What stands between a reason in koth's words and the bot's stderr it quotes.
const STDERR_QUOTE: &str = "; last stderr: ";

fn tail_suffix(tail: &str) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!("{STDERR_QUOTE}{tail}")
    }
}

/// A fault's reason without the bot's stderr it quotes, if it quotes any: what koth said alone
/// (a hill shows the rest to the bot's author only).
pub fn without_stderr(reason: &str) -> Option<&str> {
    reason.find(STDERR_QUOTE).map(|at| &reason[..at])
}

impl BotError {
    /// `spec` could not be started, for `reason`.
    pub(crate) fn spawn(spec: &super::BotSpec, reason: String) -> BotError {
        BotError::Spawn {
            command: spec.command.join(" "),
            reason,
        }
    }

    /// `status: reason`, as a transcript's `!` line states a fault (e.g. `timeout: no answer
    /// within 1000 ms`).
    pub fn with_status(&self) -> String {
        format!("{}: {self}", self.status_name())
    }

    /// The status this error gives a bot, as results and transcripts name it.
    pub fn status_name(&self) -> &'static str {
        self.kind().status().as_str()
    }

    /// The fault behind this error: for a bot stopped earlier, that first fault.
    pub fn root(&self) -> &BotError {
        match self {
            BotError::Stopped(inner) => inner.root(),
            other => other,
        }
    }

    /// The fault category of this error, for results and leaderboards.
    pub fn kind(&self) -> FaultKind {
        match self {
            BotError::Spawn { .. } => FaultKind::FailedToStart,
            BotError::Benched { .. } => FaultKind::Benched,
            BotError::Timeout { .. }
            | BotError::Starved { .. }
            | BotError::CpuTimeout { .. }
            | BotError::NoExit { .. }
            | BotError::StarvedExit { .. }
            | BotError::OutOfFuel { .. } => FaultKind::TimedOut,
            BotError::Exited { .. }
            | BotError::ClosedStdout { .. }
            | BotError::BrokenPipe { .. }
            | BotError::NotRunning => FaultKind::Crashed,
            BotError::LineTooLong { .. } | BotError::NotUtf8 | BotError::Data { .. } => {
                FaultKind::BadOutput
            }
            BotError::Stopped(inner) => inner.kind(),
        }
    }
}
