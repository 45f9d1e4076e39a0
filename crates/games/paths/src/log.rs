//! The game's outputs: `graphical_log.txt` in the original controller's exact shape,
//! `results.json`, and `replay.jsonl` (every turn's choices, read by `koth replay`).
//!
//! The graphical log is rendered from small typed pieces ([`RoundLog`], [`FinalLog`]) rather
//! than printed ad hoc, so that a reader can parse a log back into the same pieces.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::rules::{Vertex, letter};
use koth_bot::Limits;
use koth_bot::{Fault, FaultCounts};

/// One round as the graphical log shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundLog {
    pub index: u32,
    /// The final grid, top row first (see [`super::rules::Grid::rows`]).
    pub rows: Vec<String>,
    /// Points in bot-list order.
    pub points: Vec<u64>,
}

/// The end of the graphical log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinalLog {
    /// `(name, total)`, highest total first.
    pub standings: Vec<(String, u64)>,
    /// Bots that timed out at least once.
    pub too_slow: Vec<String>,
}

/// `graphical_log.txt`, written as the game goes so a long game can be followed with `tail -f`.
pub struct GraphicalLog {
    out: BufWriter<File>,
}

impl GraphicalLog {
    pub fn create(path: &Path, names: &[String], rounds: u32) -> anyhow::Result<GraphicalLog> {
        let file =
            File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        let mut log = GraphicalLog {
            out: BufWriter::new(file),
        };
        let mut text = String::from("Initializing bots.\nBots:\n");
        for (index, name) in names.iter().enumerate() {
            let _ = writeln!(text, "  {name} ({})", letter(index));
        }
        let _ = writeln!(text, "Running {rounds} rounds.");
        log.write(&text)?;
        Ok(log)
    }

    pub fn round(&mut self, round: &RoundLog) -> anyhow::Result<()> {
        let mut text = format!("  Round {}\n  Finished, computing score.\n", round.index);
        for row in &round.rows {
            let _ = writeln!(text, "  {row}");
        }
        let points: Vec<String> = round.points.iter().map(u64::to_string).collect();
        let _ = writeln!(text, "  Results: {}", points.join(" "));
        self.write(&text)
    }

    pub fn finish(mut self, end: &FinalLog) -> anyhow::Result<()> {
        let mut text = String::from("Final results:\n");
        for (name, total) in &end.standings {
            let _ = writeln!(text, "  {name}: {total}");
        }
        if !end.too_slow.is_empty() {
            text.push_str("The following bots were too slow:\n");
            for name in &end.too_slow {
                let _ = writeln!(text, "  {name}");
            }
        }
        self.write(&text)?;
        self.out.flush().context("cannot write the graphical log")
    }

    fn write(&mut self, text: &str) -> anyhow::Result<()> {
        self.out
            .write_all(text.as_bytes())
            .context("cannot write the graphical log")
    }
}

/// `results.json`: everything needed to check or rank a game without reading its log.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Results {
    pub game: String,
    pub seed: u64,
    pub rounds: u32,
    pub side: usize,
    /// Names in bot-list order; every list below follows it.
    pub bots: Vec<String>,
    /// `points[round][bot]`.
    pub points: Vec<Vec<u64>>,
    pub totals: Vec<u64>,
    /// The first faults of each kind per bot ([`koth_game::FAULTS_KEPT_PER_KIND`]).
    pub faults: Vec<Fault>,
    /// Every fault of each bot, counted by kind.
    #[serde(default)]
    pub fault_counts: Vec<FaultCounts>,
}

impl Results {
    /// The text of the match's results file.
    pub(crate) fn text(&self) -> anyhow::Result<String> {
        let text = serde_json::to_string_pretty(self).context("cannot serialize the results")?;
        Ok(text + "\n")
    }
}

/// The first line of `replay.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayHeader {
    pub game: String,
    /// Names in bot-list order; every list in a [`TurnRecord`] follows it.
    pub bots: Vec<String>,
    pub side: usize,
    pub rounds: u32,
    pub seed: u64,
    /// The limit per answer and for exiting after `SCORE`, in ms (absent in older replays), so
    /// `koth replay --drive` holds a bot to the game's own limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_ms: Option<u64>,
}

impl ReplayHeader {
    /// The time limits the game was played with (koth's defaults where an older replay does not
    /// say).
    pub(crate) fn limits(&self) -> Limits {
        let mut limits = Limits::default();
        if let Some(ms) = self.answer_ms {
            limits.answer = Duration::from_millis(ms);
        }
        if let Some(ms) = self.exit_ms {
            limits.exit = Duration::from_millis(ms);
        }
        limits
    }
}

/// One turn of `replay.jsonl`: each bot's choices as the rules accepted them (`None` for no
/// choice, an invalid one, or a stopped bot), enough to rebuild the grid turn by turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnRecord {
    pub round: u32,
    pub turn: u32,
    pub destroy: Vec<Option<Vertex>>,
    pub activate: Vec<Option<Vertex>>,
}

/// The end of a round in `replay.jsonl`: every vertex a paying search ran through, as
/// `[x, y, searches]`, so a viewer can draw which paths paid whom.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaidRecord {
    pub round: u32,
    pub paid: Vec<(usize, usize, u32)>,
}

/// `replay.jsonl`: a [`ReplayHeader`] line, then one [`TurnRecord`] line per turn of every round,
/// each round closed by its [`PaidRecord`].
pub struct ReplayLog {
    out: BufWriter<File>,
}

impl ReplayLog {
    pub fn create(path: &Path, header: &ReplayHeader) -> anyhow::Result<ReplayLog> {
        let file =
            File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        let mut log = ReplayLog {
            out: BufWriter::new(file),
        };
        log.line(header)?;
        Ok(log)
    }

    pub fn turn(&mut self, record: &TurnRecord) -> anyhow::Result<()> {
        self.line(record)
    }

    pub fn paid(&mut self, record: &PaidRecord) -> anyhow::Result<()> {
        self.line(record)
    }

    pub fn finish(mut self) -> anyhow::Result<()> {
        self.out.flush().context("cannot write the replay")
    }

    /// Writes `value` as a line, flushed at once: a server streams the file's lines to the
    /// game's watchers while it is played, and a line it reads is whole.
    fn line(&mut self, value: &impl Serialize) -> anyhow::Result<()> {
        let text = serde_json::to_string(value).context("cannot serialize the replay")?;
        writeln!(self.out, "{text}")
            .and_then(|()| self.out.flush())
            .context("cannot write the replay")
    }
}
