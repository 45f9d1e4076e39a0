//! What a game is given to play one match, and what it tells while it plays.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::Context;

use koth_bot::{BotSpec, Limits};

use crate::RESULTS_FILE;

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
    /// anywhere). Games keep themselves and their bots there (see [`koth_base::cpu`]).
    pub cpus: Vec<usize>,
    /// Which boards a game that records its boards one by one keeps (the rat race); a game
    /// that writes its whole replay ([`crate::Game::records_boards`] false) ignores it.
    pub record_boards: RecordBoards,
    /// The game's own options, from a tournament file's `[options]` table (Nim's `heap`);
    /// empty: the game's defaults. [`crate::Game::check_options`] has checked them.
    pub options: toml::Table,
    /// Where the match's [`RESULTS_FILE`] goes ([`MatchSetup::write_results`]).
    pub results: ResultsTo,
}

/// Where a match's [`RESULTS_FILE`] goes: to its folder (a match played alone), or held for
/// the caller, which adds what only it knows once the game is over (a learning bot's data
/// faults) and writes it: either way the file is written once, by one owner.
#[derive(Clone, Default)]
pub enum ResultsTo {
    #[default]
    Folder,
    /// Held here, as the game wrote it.
    Held(Arc<Mutex<Option<String>>>),
}

impl MatchSetup {
    /// A match of `bots` on `seed`, writing to `log_dir`, under `limits`: the game's own number
    /// of rounds, no progress callback, no CPUs of its own, the default boards recorded. A caller
    /// sets the fields it means otherwise.
    pub fn new(bots: Vec<BotSpec>, seed: u64, log_dir: PathBuf, limits: Limits) -> MatchSetup {
        MatchSetup {
            bots,
            seed,
            log_dir,
            limits,
            rounds: None,
            progress: None,
            cpus: Vec::new(),
            record_boards: RecordBoards::default(),
            options: toml::Table::new(),
            results: ResultsTo::Folder,
        }
    }

    /// Writes `results` (a [`MatchResult`](crate::MatchResult) under `"result"` with the
    /// game's own records beside it), pretty-printed, as the match's [`RESULTS_FILE`].
    pub fn write_results(&self, results: &impl serde::Serialize) -> anyhow::Result<()> {
        self.write_results_text(serde_json::to_string_pretty(results)?)
    }

    /// Writes `text` as the match's [`RESULTS_FILE`]: into `log_dir`, or held for the caller
    /// ([`ResultsTo`]).
    pub fn write_results_text(&self, text: String) -> anyhow::Result<()> {
        match &self.results {
            ResultsTo::Folder => {
                let path = self.log_dir.join(RESULTS_FILE);
                std::fs::write(&path, text)
                    .with_context(|| format!("cannot write {}", path.display()))
            }
            ResultsTo::Held(held) => {
                *held.lock().unwrap_or_else(|e| e.into_inner()) = Some(text);
                Ok(())
            }
        }
    }
}

/// Which of a match's boards are kept as replays, by a game that records boards one by one
/// (the rat race: a board's recording is 0.3 to 1 MB, and a match plays 50).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordBoards {
    /// The first board, and the first board that ended with a fault of the bot: what a bot's author
    /// needs to see how it plays and why it failed, at the cost of one or two boards.
    #[default]
    FirstAndFaulted,
    /// No board.
    None,
    /// Every board.
    All,
}

impl RecordBoards {
    /// The names, as a tournament file and the command line spell them.
    pub const NAMES: [&'static str; 3] = ["first-and-faulted", "none", "all"];

    pub fn name(self) -> &'static str {
        match self {
            RecordBoards::FirstAndFaulted => Self::NAMES[0],
            RecordBoards::None => Self::NAMES[1],
            RecordBoards::All => Self::NAMES[2],
        }
    }
}

impl std::str::FromStr for RecordBoards {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        match name {
            "first-and-faulted" => Ok(RecordBoards::FirstAndFaulted),
            "none" => Ok(RecordBoards::None),
            "all" => Ok(RecordBoards::All),
            _ => Err(format!(
                "{name:?} is not a choice of boards to record (give {})",
                Self::NAMES.join(", ")
            )),
        }
    }
}

impl std::fmt::Display for RecordBoards {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
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
