//! The rat race's viewers: a recorded board (`board-B.replay.json`) in the terminal viewer
//! (`tui`) or on the web page (`page.html`), with what the run's folder tells of the bot's
//! answers, fault and stderr (`explain`), on the viewer kit of [`koth_replay`].

pub mod explain;
pub mod tui;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::json;

use super::RatRace;
use super::recording::BoardRecording;
use super::recording::{shown_board, stored_board};
use explain::BoardExplained;
use koth_game::{Replay, ReplayAt, ReplayOptions};
use koth_replay::{kit, log_folder};

const PAGE: &str = include_str!("page.html");

/// A rat-race run: one of its recorded boards.
impl Replay for RatRace {
    fn recognises(&self, path: &Path) -> bool {
        path.is_file()
            && path
                .file_name()
                .and_then(|name| BoardRecording::board_of(&name.to_string_lossy()))
                .is_some()
    }

    fn show(&self, path: &Path, at: ReplayAt) -> Option<anyhow::Result<()>> {
        Some((|| {
            let recording = board_recording(path, at.board)?;
            // A turn past u32 is past any board's end: the viewer says which turns there are.
            let turn = at.turn.map(|t| u32::try_from(t).unwrap_or(u32::MAX));
            kit::show(tui::Viewer::open(&recording, turn)?, at.text)
        })())
    }

    /// A recorded board; while the game is played (no `results.json` yet), the board as far
    /// as it was written, frame by frame, as it is played.
    fn page(&self, path: &Path, board: Option<usize>) -> Option<anyhow::Result<String>> {
        Some((|| {
            let recording_path = board_recording(path, board)?;
            let folder = log_folder(&recording_path);
            let recording = match folder.join(koth_game::RESULTS_FILE).exists() {
                true => BoardRecording::read(&recording_path)?,
                false => BoardRecording::read_so_far(&recording_path)?,
            };
            let explanation = explain::explain(&folder, recording.board)?;
            let recorded = explain::recorded(&folder)?;
            Ok(board_page(&recording, explanation.as_ref(), &recorded))
        })())
    }

    /// Boards from 0, as their seeds and the protocol's `RATRACE b` count them; turns from 1.
    fn numbering(&self) -> koth_game::Numbering {
        koth_game::Numbering {
            first_round: 0,
            first_turn: 1,
        }
    }

    fn options(&self) -> ReplayOptions {
        ReplayOptions {
            round: false,
            turn: true,
            board: true,
        }
    }

    fn keys(&self) -> Option<String> {
        Some(tui::KEYS.help())
    }
}

/// The viewer page for a recorded rat-race board, with what its run's folder tells of the
/// bot's answers, fault and stderr, if known ([`explain::explain`]), and the run's
/// recorded boards ([`explain::recorded`]), which a served page links to.
pub fn board_page(
    recording: &BoardRecording,
    explanation: Option<&BoardExplained>,
    recorded: &[serde_json::Value],
) -> String {
    let mut data = json!(recording);
    data["explanation"] = json!(explanation);
    data["recorded"] = json!(recorded);
    kit::page(PAGE, "/*BOARD*/null", &data)
}

/// The boards recorded in the rat-race log folder `folder` (its `board-B.replay.json`), in
/// order.
pub(crate) fn recorded_boards(folder: &Path) -> anyhow::Result<Vec<usize>> {
    let mut recorded: Vec<usize> = std::fs::read_dir(folder)
        .with_context(|| format!("cannot read {}", folder.display()))?
        .flatten()
        .filter_map(|entry| BoardRecording::board_of(&entry.file_name().to_string_lossy()))
        .collect();
    recorded.sort();
    Ok(recorded)
}

/// The rat-race board recording `path` names: the file itself, or board `shown` (from 1, as a
/// person counts; default: the first recorded) of a rat-race log folder.
pub(crate) fn board_recording(path: &Path, shown: Option<usize>) -> anyhow::Result<PathBuf> {
    if path.is_file() {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if BoardRecording::board_of(&name).is_none() {
            bail!(
                "{}: not a rat-race board recording (board-B.replay.json)",
                path.display()
            );
        }
        return Ok(path.to_path_buf());
    }
    let recorded = recorded_boards(path)?;
    let Some(&first) = recorded.first() else {
        bail!(
            "{} holds no recorded board: it was played with record_boards = \"none\" (or \
             --record-boards none); run koth ratrace with --also-record B to record board B",
            path.display()
        );
    };
    let board = match shown {
        Some(shown) => stored_board(shown),
        None => Some(first),
    };
    let Some(board) = board.filter(|board| recorded.contains(board)) else {
        bail!(
            "{}: board {} was not recorded (recorded: {})",
            path.display(),
            shown.unwrap_or_default(),
            recorded
                .iter()
                .map(|&b| shown_board(b).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    };
    Ok(path.join(BoardRecording::file_name(board)))
}
