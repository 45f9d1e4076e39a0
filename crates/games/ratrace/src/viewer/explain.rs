//! What a rat-race run's folder tells of a recorded board beyond its frames, for the board
//! viewers: when a bot played it over a pipe, the bot's answer to each turn with how long it took
//! (its transcript; a run has one per job, and the board's is the one that sent `RATRACE b`),
//! the fault that ended the board with its reason, and the bot's last stderr lines.
//!
//! `results.json` is read as possibly damaged (an error names the file); the transcripts only
//! add answers, and a damaged one is left out. A rat-race transcript stops at its size limit
//! long before a long board of the text protocol ends: the page then says from where nothing
//! was recorded.

use std::path::Path;

use anyhow::{Context, ensure};
use serde::{Deserialize, Serialize};

use koth_bot::FaultKind;
use koth_replay::explain::{Answered, transcribed};

/// What a run's folder tells of one recorded board, as both viewers show it (the page embeds it
/// as JSON).
#[derive(Debug, Clone, Serialize)]
pub struct BoardExplained {
    /// The player: a built-in player's name, or the bot's command.
    pub player: String,
    /// Whether a bot played over a pipe (the run has transcripts); a built-in player answers no
    /// prompts.
    pub bot: bool,
    /// The board's answers in the order asked, each with the turn it answered.
    pub answers: Vec<Answered>,
    /// The first turn the transcript did not record, when it reached its size limit first.
    pub unrecorded_from: Option<u32>,
    /// The fault that ended the board.
    pub fault: Option<BoardFault>,
    /// The bot's last stderr lines.
    pub stderr: String,
}

/// The fault that ended a board: its kind, the board's last turn and the reason.
#[derive(Debug, Clone, Serialize)]
pub struct BoardFault {
    pub kind: FaultKind,
    pub turn: u32,
    pub reason: String,
}

impl BoardExplained {
    /// The answer to turn `turn`, if the transcript recorded one.
    pub(crate) fn answer_at(&self, turn: u32) -> Option<&Answered> {
        self.answers.iter().find(|a| a.turn == Some(turn))
    }
}

/// What the run's `results.json` holds that the viewer uses.
#[derive(Debug, Deserialize)]
struct Results {
    player: String,
    boards: Vec<BoardResult>,
}

/// One board's record (`ratrace::play::BoardRecord`).
#[derive(Debug, Deserialize)]
struct BoardResult {
    board: usize,
    points: u64,
    turns: u32,
    error: Option<String>,
    fault_kind: Option<FaultKind>,
}

/// The run's `results.json` in `folder`, or `None` if there is none (a recording copied
/// elsewhere).
fn results(folder: &Path) -> anyhow::Result<Option<Results>> {
    let path = folder.join("results.json");
    if !path.is_file() {
        return Ok(None);
    }
    let text = koth_base::text::read(&path)?;
    let results = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a rat-race run's results", path.display()))?;
    Ok(Some(results))
}

/// The boards recorded in the run's `folder`, in order, each with its points, turns and the kind
/// of fault that ended it, when the run's `results.json` says.
pub(crate) fn recorded(folder: &Path) -> anyhow::Result<Vec<serde_json::Value>> {
    let results = results(folder)?;
    let boards = results.as_ref().map_or(&[][..], |r| &r.boards[..]);
    Ok(super::recorded_boards(folder)?
        .into_iter()
        .map(|board| match boards.iter().find(|b| b.board == board) {
            Some(b) => serde_json::json!({
                "board": board, "points": b.points, "turns": b.turns, "fault": b.fault_kind,
            }),
            None => serde_json::json!({ "board": board }),
        })
        .collect())
}

/// The explanation of board `board` of the run in `folder`, or `None` for a recording with no
/// run's `results.json` beside it (a file copied elsewhere).
pub(crate) fn explain(folder: &Path, board: usize) -> anyhow::Result<Option<BoardExplained>> {
    let path = folder.join("results.json");
    let Some(results) = results(folder)? else {
        return Ok(None);
    };
    let record = results.boards.iter().find(|b| b.board == board);
    let Some(record) = record else {
        // The recording names a board the run's results do not hold: a recording of another
        // run, copied beside this one.
        return Ok(None);
    };
    ensure!(
        record.error.is_some() == record.fault_kind.is_some(),
        "{}: board {board} has an error without a fault kind, or one without the other",
        path.display()
    );
    let opener = |line: &str| line.split(' ').nth(1) == Some(&board.to_string());
    let transcripts = transcribed(folder, "RATRACE ");
    let played = transcripts.iter().find(|t| {
        t.answers
            .iter()
            .any(|a| a.opener.as_deref().is_some_and(opener))
    });
    let answers: Vec<Answered> = played
        .iter()
        .flat_map(|t| &t.answers)
        .filter(|a| a.opener.as_deref().is_some_and(opener))
        .cloned()
        .collect();
    // A transcript that filled up before the board's end recorded only its start, if anything.
    let full = transcripts.iter().any(|t| t.full_in_round.is_some());
    let unrecorded = full && answers.len() < record.turns as usize;
    let fault = match (&record.error, record.fault_kind) {
        (Some(reason), Some(kind)) => Some(BoardFault {
            kind,
            turn: record.turns,
            reason: reason.clone(),
        }),
        _ => None,
    };
    Ok(Some(BoardExplained {
        player: results.player,
        bot: !transcripts.is_empty(),
        unrecorded_from: unrecorded.then(|| {
            answers
                .last()
                .and_then(|a| a.turn)
                .map_or(1, |turn| turn + 1)
        }),
        answers,
        fault,
        stderr: played.map(|t| t.stderr.clone()).unwrap_or_default(),
    }))
}
