//! Replays: parsing a paths game's `graphical_log.txt` (koth's or the original controller's),
//! rebuilding every turn from koth's `replay.jsonl`, and showing any round or turn as text, in a
//! terminal viewer or in a web page; a recorded rat-race board, a noughts & crosses match and a
//! flag game, explained alike in a terminal viewer (`tui`) and a web page (`html`); and driving
//! a new build of a bot with the lines it received in a recorded game (`drive`).

pub mod cli;
pub(crate) mod data;
pub mod drive;
pub mod explain;
pub(crate) mod flag;
pub mod graphical;
pub mod html;
pub mod ratrace;
pub(crate) mod tictactoe;
pub mod tui;
pub mod turns;
pub(crate) mod viewers;

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use explain::Explanation;
use graphical::GameLog;
use turns::Replay;

use crate::games::ratrace::recording::BoardRecording;

/// The log folder `path` names: the folder itself, or the folder of a file in it.
pub(crate) fn log_folder(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().unwrap_or(Path::new(".")).to_path_buf()
    }
}

/// A game as recorded in its log folder: the graphical log always, the turns when koth wrote them.
pub struct Game {
    pub log: GameLog,
    pub turns: Option<Replay>,
}

/// What is on screen: one round after some of its turns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub round: u32,
    /// Turns played; `None` for the round's end as the graphical log shows it.
    pub turn: Option<usize>,
    /// The grid, top row first.
    pub rows: Vec<String>,
    /// The round's points, once scored (at its end).
    pub points: Option<Vec<u64>>,
    /// Each bot's total over rounds `0..=round` when the round is over, else over `0..round`.
    pub totals: Vec<u64>,
}

impl Game {
    /// Opens a game log folder, or a `graphical_log.txt` (with `replay.jsonl` beside it if any).
    pub fn open(path: &Path) -> anyhow::Result<Game> {
        let folder = log_folder(path);
        let log_path = if path.is_dir() {
            path.join("graphical_log.txt")
        } else {
            path.to_path_buf()
        };
        let log = graphical::read(&log_path)?;
        let replay_path = folder.join("replay.jsonl");
        let turns = if replay_path.is_file() {
            let replay = Replay::read(&replay_path)?;
            if replay.header.bots != log.bots {
                bail!(
                    "{} and {} name different bots",
                    replay_path.display(),
                    log_path.display()
                );
            }
            Some(replay)
        } else {
            None
        };
        Ok(Game { log, turns })
    }

    pub fn rounds(&self) -> u32 {
        self.log.rounds.len() as u32
    }

    /// The number of turns of `round` that can be shown one by one (0 without `replay.jsonl`).
    pub fn turns_in(&self, round: u32) -> usize {
        self.turns.as_ref().map_or(0, |t| t.turns_in(round))
    }

    /// What the game's log folder `folder` tells beyond its grids (answer times, faults, stderr
    /// tails), as both viewers explain a turn with it.
    pub fn explanation(&self, folder: &Path) -> Explanation {
        let turns: Vec<usize> = (0..self.rounds()).map(|r| self.turns_in(r)).collect();
        explain::explain(folder, &self.log.bots, &turns)
    }

    /// Round `round` after `turn` turns, or at its end with `None`.
    pub fn frame(&self, round: u32, turn: Option<usize>) -> anyhow::Result<Frame> {
        let Some(logged) = self.log.rounds.get(round as usize) else {
            bail!(
                "no round {round}: the log has rounds 0 to {}",
                self.rounds().saturating_sub(1)
            );
        };
        let mut totals = vec![0u64; self.log.bots.len()];
        for previous in &self.log.rounds[..round as usize] {
            for (total, p) in totals.iter_mut().zip(&previous.points) {
                // Points come from a file: a damaged one may hold any u64.
                *total = total.saturating_add(*p);
            }
        }
        let at_end = |totals: &mut Vec<u64>| {
            for (total, p) in totals.iter_mut().zip(&logged.points) {
                *total = total.saturating_add(*p);
            }
        };
        match turn {
            Some(turn) => {
                let Some(replay) = &self.turns else {
                    bail!("turns need replay.jsonl beside the graphical log (koth writes it)");
                };
                let available = replay.turns_in(round);
                if turn > available {
                    bail!("round {round} has turns 0 to {available}");
                }
                let finished = turn == available;
                if finished {
                    at_end(&mut totals);
                }
                Ok(Frame {
                    round,
                    turn: Some(turn),
                    rows: replay.grid(round, turn).rows(),
                    points: finished.then(|| logged.points.clone()),
                    totals,
                })
            }
            None => {
                at_end(&mut totals);
                Ok(Frame {
                    round,
                    turn: None,
                    rows: logged.rows.clone(),
                    points: Some(logged.points.clone()),
                    totals,
                })
            }
        }
    }

    /// A frame as plain text: a title line, the grid (two spaces before each row, as in the
    /// graphical log), then one line per bot with its letter, name, points and total.
    pub fn text(&self, frame: &Frame) -> String {
        let mut text = format!("Round {} of {}", frame.round, self.rounds());
        match frame.turn {
            Some(turn) => {
                text += &format!(", after turn {turn} of {}\n", self.turns_in(frame.round))
            }
            None => text += ", end\n",
        }
        for row in &frame.rows {
            text += &format!("  {row}\n");
        }
        for (index, name) in self.log.bots.iter().enumerate() {
            let letter = crate::games::paths::rules::letter(index);
            let points = frame
                .points
                .as_ref()
                .map_or("-".to_string(), |p| p[index].to_string());
            text += &format!(
                "{letter} {name}: {points} points, total {}\n",
                frame.totals[index]
            );
        }
        text
    }
}

/// The game whose result the folder's `results.json` holds (`"game"`, or `"result"`'s for the
/// games that keep only their match result there), to choose a viewer; `None` if it cannot be
/// read.
pub(crate) fn results_game(folder: &Path) -> Option<String> {
    let text = std::fs::read_to_string(folder.join(crate::game::RESULTS_FILE)).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["game"]
        .as_str()
        .or(json["result"]["game"].as_str())
        .map(str::to_string)
}

/// The game recorded at `path` (a game's log folder, or a file of it), found through the registry,
/// and what its viewer opens: a file the game recognises as its own given alone
/// ([`crate::game::Replay::recognises`]) is opened as it is; otherwise it is the game its
/// folder's `results.json` names (or one that recognises the folder), opened at its folder. A
/// folder of a game this koth does not have, or of no game, is one clear error naming it.
pub(crate) fn game_of(path: &Path) -> anyhow::Result<(&'static dyn crate::game::Game, PathBuf)> {
    let folder = log_folder(path);
    if !path.exists() {
        bail!("cannot read {}: no such file or folder", path.display());
    }
    let recognised = || crate::games::all().into_iter().find(|g| g.recognises(path));
    if path.is_file()
        && let Some(game) = recognised()
    {
        return Ok((game, path.to_path_buf()));
    }
    let game = match results_game(&folder) {
        Some(name) => crate::games::by_name(&name).with_context(|| {
            format!(
                "{}: a game of {name:?}, which this koth does not have (it has {})",
                folder.join(crate::game::RESULTS_FILE).display(),
                crate::games::names().join(", ")
            )
        }),
        None => recognised().with_context(|| {
            format!(
                "{}: not a recorded game: no results.json naming its game",
                path.display()
            )
        }),
    }?;
    Ok((game, folder))
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

/// The rat-race board recording `path` names: the file itself, or board `board` (default: the
/// first recorded) of a rat-race log folder.
pub(crate) fn board_recording(path: &Path, board: Option<usize>) -> anyhow::Result<PathBuf> {
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
             --record-boards none); run koth ratrace with --record-board B to record board B",
            path.display()
        );
    };
    let board = board.unwrap_or(first);
    if !recorded.contains(&board) {
        bail!(
            "{}: board {board} was not recorded (recorded: {})",
            path.display(),
            recorded
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(path.join(BoardRecording::file_name(board)))
}
