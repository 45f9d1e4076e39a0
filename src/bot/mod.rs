//! The bot process layer: starting bots, talking to them in lines with time limits, and
//! recording what they do wrong. It knows nothing about any game.
//!
//! - [`roster`]: which bots to start — koth's `bot.toml` manifests and the original
//!   controller's `bots.txt` — and their build steps.
//! - [`process`]: one running bot — spawn in its own process group, write lines, read answer
//!   lines under a time limit, stderr to a capped log file, and kill everything it started.
//! - [`sandbox`]: containment — a bot that sees only the system, its interpreter and its own
//!   folder, with no network, no other processes, no privileges and capped resources.

pub mod cgroup;
pub mod process;
pub mod roster;
pub mod sandbox;

use std::borrow::Cow;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use process::{
    Answer, AnswerStats, BotError, BotProcess, StderrLog, Transcript, flush_transcripts, kill_all,
};
pub use roster::BotSpec;
pub use sandbox::Sandbox;

/// How much of a bot's line a fault reason quotes: enough to recognise the mistake, while a bot
/// that answers a megabyte at every prompt cannot fill results, databases or memory with it.
pub const QUOTED_BYTES: usize = 200;

/// A bot's `line` quoted for a fault reason, as Rust writes a string literal (control characters
/// escaped, so a reason printed to a terminal cannot drive it): whole when short, else its first
/// [`QUOTED_BYTES`] bytes, cut on a character boundary, and its length:
/// `"VERTEX 1,2,3"`, `"xxxx…" (1048575 bytes)`. Every game quotes bots' lines through this.
pub fn quote(line: &str) -> String {
    if line.len() <= QUOTED_BYTES {
        return format!("{line:?}");
    }
    let start = &line[..line.floor_char_boundary(QUOTED_BYTES)];
    format!("{:?} ({} bytes)", format!("{start}…"), line.len())
}

/// `line` if it holds at most `max` bytes, else its first `max` bytes (cut on a character
/// boundary) and a note of its length: `xxxx… [koth: 1048575 bytes, cut]`. For records that keep
/// a bot's lines (transcripts, a flag walk), so that one huge line cannot make them huge.
pub fn cut_line(line: &str, max: usize) -> Cow<'_, str> {
    if line.len() <= max {
        return Cow::Borrowed(line);
    }
    let start = &line[..line.floor_char_boundary(max)];
    Cow::Owned(format!("{start}{CUT_MARK}{} bytes, cut]", line.len()))
}

/// What [`cut_line`] puts between the part of a line it keeps and the line's length.
const CUT_MARK: &str = "… [koth: ";

/// The start kept and the length of the line that [`cut_line`] cut into `text`, or `None` for a
/// line kept whole.
pub fn cut_line_parts(text: &str) -> Option<(&str, usize)> {
    let (start, note) = text.rsplit_once(CUT_MARK)?;
    let length = note.strip_suffix(" bytes, cut]")?.parse().ok()?;
    (length > start.len()).then_some((start, length))
}

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
    /// Not started at all: the bot is benched ([`BotSpec::benched`]).
    Benched,
}

impl FaultKind {
    pub const ALL: [FaultKind; 5] = [
        FaultKind::FailedToStart,
        FaultKind::TimedOut,
        FaultKind::Crashed,
        FaultKind::BadOutput,
        FaultKind::Benched,
    ];

    pub fn status(self) -> crate::game::BotStatus {
        use crate::game::BotStatus;
        match self {
            FaultKind::FailedToStart => BotStatus::FailedToStart,
            FaultKind::TimedOut => BotStatus::TimedOut,
            FaultKind::Crashed => BotStatus::Crashed,
            FaultKind::BadOutput => BotStatus::BadOutput,
            FaultKind::Benched => BotStatus::Benched,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quote_keeps_a_short_line_whole_and_a_long_one_to_its_start_and_length() {
        assert_eq!(quote("VERTEX 1,2,3"), "\"VERTEX 1,2,3\"");
        assert_eq!(quote("bell\u{7}"), "\"bell\\u{7}\"");
        // `x` then two-byte characters: byte 200 falls inside one, which is left out whole.
        let huge = format!("x{}", "é".repeat(524_287));
        let quoted = quote(&huge);
        assert_eq!(quoted, format!("\"x{}…\" (1048575 bytes)", "é".repeat(99)));
        assert!(quoted.len() < QUOTED_BYTES + 40, "{quoted}");
    }

    #[test]
    fn a_cut_line_keeps_its_start_and_says_how_long_it_was() {
        assert_eq!(cut_line("NONE", 8), "NONE");
        assert_eq!(cut_line_parts("NONE"), None);
        let huge = format!("x{}", "é".repeat(10));
        let cut = cut_line(&huge, 4);
        assert_eq!(cut, "xé… [koth: 21 bytes, cut]");
        assert_eq!(cut_line_parts(&cut), Some(("xé", 21)));
        // A line that only looks cut (its "length" is no longer than what it holds) is whole.
        assert_eq!(cut_line_parts("abcdef… [koth: 3 bytes, cut]"), None);
    }
}
