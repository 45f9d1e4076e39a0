//! What a bot can do wrong, and how a match keeps it: the kinds of fault, the status they give a
//! bot, and a bounded log of a match's faults. Every game records its faults with these.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// How much of a bot's line a fault reason quotes: enough to recognise the mistake, while a bot
/// that answers a megabyte at every prompt cannot fill results, databases or memory with it.
pub(crate) const QUOTED_BYTES: usize = 200;

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

/// What a bad answer's reason adds after its line when that line was no try at an answer
/// (`tried` false): most often a debug line printed to stdout, which the bot then pays for with
/// the answer it printed after it (dropped as printed unasked, as its transcript shows). Every
/// game says it in these words.
pub fn debug_hint(tried: bool) -> &'static str {
    if tried {
        ""
    } else {
        " (an answer is one line on stdout; debug output goes to stderr)"
    }
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

/// [`cut_line`] for koth's own words (a reason, a message): cut after the last whole word
/// within `max` bytes, so a person never reads half a word (`while an answer was exp…`); at
/// `max` bytes where no space falls in its second half.
pub fn cut_words(line: &str, max: usize) -> Cow<'_, str> {
    if line.len() <= max {
        return Cow::Borrowed(line);
    }
    let head = &line[..line.floor_char_boundary(max)];
    let start = match head.rfind(' ') {
        Some(space) if space >= max / 2 => head[..space].trim_end_matches([',', ';', ':']),
        _ => head,
    };
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
    pub(crate) const ALL: [FaultKind; 5] = [
        FaultKind::FailedToStart,
        FaultKind::TimedOut,
        FaultKind::Crashed,
        FaultKind::BadOutput,
        FaultKind::Benched,
    ];

    /// The kind as `results.json` writes it: `bad_output`, `timed_out`…
    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::FailedToStart => "failed_to_start",
            FaultKind::TimedOut => "timed_out",
            FaultKind::Crashed => "crashed",
            FaultKind::BadOutput => "bad_output",
            FaultKind::Benched => "benched",
        }
    }

    pub fn status(self) -> BotStatus {
        match self {
            FaultKind::FailedToStart => BotStatus::FailedToStart,
            FaultKind::TimedOut => BotStatus::TimedOut,
            FaultKind::Crashed => BotStatus::Crashed,
            FaultKind::BadOutput => BotStatus::BadOutput,
            FaultKind::Benched => BotStatus::Benched,
        }
    }
}

/// A kind as every output spells it ([`FaultKind::as_str`]).
impl std::fmt::Display for FaultKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A status as every output spells it ([`BotStatus::as_str`]).
impl std::fmt::Display for BotStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
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
    pub(crate) fn add(&mut self, kind: FaultKind) {
        *self.of_mut(kind) += 1;
    }

    /// How many faults of `kind`.
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

/// Shows the counts that are not zero, e.g. `36 bad_output, 1 crashed`, or `none`.
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
    pub(crate) fn push(&mut self, fault: Fault) {
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

    /// The faults of `bot` kept, in the order they happened.
    pub fn kept_of(&self, bot: &str) -> Vec<Fault> {
        self.kept.iter().filter(|f| f.bot == bot).cloned().collect()
    }

    /// Adds the faults of `other` (another seat's, say) after these, kept and counted as if they
    /// had been pushed here one by one.
    pub fn append(&mut self, other: &FaultLog) {
        for (bot, counts) in &other.counts {
            let mine = self.counts(bot);
            let mut room = FaultCounts::default();
            for kind in FaultKind::ALL {
                *room.of_mut(kind) = FAULTS_KEPT_PER_KIND.saturating_sub(mine.of(kind));
            }
            for fault in other.kept.iter().filter(|f| f.bot == *bot) {
                if room.of(fault.kind) > 0 {
                    *room.of_mut(fault.kind) -= 1;
                    self.kept.push(fault.clone());
                }
            }
            let index = match self.counts.iter().position(|(name, _)| name == bot) {
                Some(index) => index,
                None => {
                    self.counts.push((bot.clone(), FaultCounts::default()));
                    self.counts.len() - 1
                }
            };
            self.counts[index].1.merge(counts);
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

    /// The status as every output spells it, `results.json` included: `bad_output`,
    /// `timed_out`… (a fault kind is spelled one way everywhere).
    pub fn as_str(self) -> &'static str {
        match self {
            BotStatus::Finished => "finished",
            BotStatus::BadOutput => "bad_output",
            BotStatus::TimedOut => "timed_out",
            BotStatus::Crashed => "crashed",
            BotStatus::FailedToStart => "failed_to_start",
            BotStatus::Benched => "benched",
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
        let reason = "exited while an answer was expected; last stderr: Traceback";
        assert_eq!(
            cut_words(reason, 30),
            "exited while an answer was… [koth: 59 bytes, cut]"
        );
        assert_eq!(
            cut_words("abcdefghij klm", 8),
            "abcdefgh… [koth: 14 bytes, cut]"
        );
        assert_eq!(cut_words(reason, 100), reason);
        assert_eq!(cut_line_parts(&cut), Some(("xé", 21)));
        // A line that only looks cut (its "length" is no longer than what it holds) is whole.
        assert_eq!(cut_line_parts("abcdef… [koth: 3 bytes, cut]"), None);
    }

    #[test]
    fn a_kind_names_itself_as_results_json_does() {
        for kind in FaultKind::ALL {
            assert_eq!(serde_json::json!(kind), kind.as_str());
        }
    }

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
        let a = log.counts("a");
        let expected = FaultCounts {
            bad_output: 1000,
            crashed: 1,
            ..FaultCounts::default()
        };
        assert_eq!(a, expected);
        assert_eq!(a.total(), 1001);
        // The crash came after the kept bad outputs, and still decides the status.
        assert_eq!(a.status(), BotStatus::Crashed);
        let kept: Vec<u32> = log.kept_of("a").iter().filter_map(|f| f.turn).collect();
        assert_eq!(kept, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1000]);
        assert_eq!(a.to_string(), "1 crashed, 1000 bad_output");
        let b = log.counts("b");
        assert_eq!(
            (b.status(), log.kept_of("b").len()),
            (BotStatus::TimedOut, 1)
        );
        assert_eq!(log.counts("c").status(), BotStatus::Finished);
        assert_eq!(log.kept().len(), 12);
    }

    #[test]
    fn appending_a_fault_log_keeps_and_counts_as_pushing_its_faults_would() {
        let (mut one, mut other, mut pushed) = Default::default();
        let (one, other, pushed): (&mut FaultLog, &mut FaultLog, &mut FaultLog) =
            (&mut one, &mut other, &mut pushed);
        for turn in 0..7 {
            one.push(fault("a", FaultKind::BadOutput, turn));
            pushed.push(fault("a", FaultKind::BadOutput, turn));
        }
        for turn in 7..15 {
            other.push(fault("a", FaultKind::BadOutput, turn));
            other.push(fault("b", FaultKind::Crashed, turn));
            pushed.push(fault("a", FaultKind::BadOutput, turn));
            pushed.push(fault("b", FaultKind::Crashed, turn));
        }
        one.append(other);
        for bot in ["a", "b"] {
            assert_eq!(one.counts(bot), pushed.counts(bot));
            assert_eq!(one.kept_of(bot), pushed.kept_of(bot));
        }
    }
}
