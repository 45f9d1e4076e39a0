//! The replay hook ([`crate::game::Replay`]) of each game koth ships: which viewer shows a
//! recorded folder of that game, in the terminal and as a web page. `koth replay`, `--html`
//! and the dashboard find the game through the registry ([`super::game_of`]) and ask it here.

use std::path::Path;

use anyhow::{Context, ensure};
use ratatui::text::Line;

use super::html::{self, page_of_paths};
use super::tui::story::Story;
use super::tui::{self, View};
use crate::game::{Replay, ReplayAt};
use crate::games::flag::play::Flag;
use crate::games::madcars::{self, MadCars};
use crate::games::menace::play::TicTacToe;
use crate::games::nim::{self, Nim};
use crate::games::paths::Paths;
use crate::games::ratrace::RatRace;
use crate::games::ratrace::recording::BoardRecording;

/// A paths game: its graphical log, and the turns of its `replay.jsonl` when koth wrote them.
impl Replay for Paths {
    fn recognises(&self, path: &Path) -> bool {
        const LOG: &str = "graphical_log.txt";
        path.file_name().is_some_and(|name| name == LOG) || path.join(LOG).is_file()
    }

    fn show(&self, path: &Path, at: ReplayAt) -> Option<anyhow::Result<()>> {
        Some((|| {
            let game = super::Game::open(path)?;
            let frame = game.frame(at.round.unwrap_or(0), at.turn)?;
            let explanation = game.explanation(&super::log_folder(path));
            show(tui::paths::Viewer::new(&game, &explanation, frame), at.text)
        })())
    }

    fn page(&self, path: &Path, _board: Option<usize>) -> Option<anyhow::Result<String>> {
        Some(page_of_paths(path))
    }
}

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
            let recording = super::board_recording(path, at.board)?;
            ensure!(
                at.round.is_none(),
                "{}: --round does not apply to a rat-race board (--board B chooses the board)",
                recording.display()
            );
            // A turn past u32 is past any board's end: the viewer says which turns there are.
            let turn = at.turn.map(|t| u32::try_from(t).unwrap_or(u32::MAX));
            show(tui::ratrace::Viewer::open(&recording, turn)?, at.text)
        })())
    }

    fn page(&self, path: &Path, board: Option<usize>) -> Option<anyhow::Result<String>> {
        Some((|| {
            let recording_path = super::board_recording(path, board)?;
            let recording = BoardRecording::read(&recording_path)?;
            let folder = super::log_folder(&recording_path);
            let explanation = super::ratrace::explain(&folder, recording.board)?;
            let recorded = super::ratrace::recorded(&folder)?;
            Ok(html::board_page(
                &recording,
                explanation.as_ref(),
                &recorded,
            ))
        })())
    }
}

/// A noughts & crosses match, game by game.
impl Replay for TicTacToe {
    fn show(&self, path: &Path, at: ReplayAt) -> Option<anyhow::Result<()>> {
        Some(
            tui::tictactoe::Viewer::open(path, at.round, at.turn)
                .and_then(|viewer| show(viewer, at.text)),
        )
    }

    fn page(&self, path: &Path, _board: Option<usize>) -> Option<anyhow::Result<String>> {
        Some(super::tictactoe::explain(path).map(|data| html::tictactoe_page(&data)))
    }
}

/// A flag game, level by level.
impl Replay for Flag {
    fn show(&self, path: &Path, at: ReplayAt) -> Option<anyhow::Result<()>> {
        Some(
            tui::flag::Viewer::open(path, at.round, at.turn)
                .and_then(|viewer| show(viewer, at.text)),
        )
    }

    fn page(&self, path: &Path, _board: Option<usize>) -> Option<anyhow::Result<String>> {
        Some(super::flag::explain(path).map(|data| html::flag_page(&data)))
    }
}

/// A Mad Cars game: in the terminal, a summary of its matches and the story of one match's last
/// ticks (`--round` the match, `--turn` the tick); every tick on the page.
impl Replay for MadCars {
    fn show(&self, path: &Path, at: ReplayAt) -> Option<anyhow::Result<()>> {
        Some((|| {
            let lines = madcars::replay::read(&path.join(madcars::replay::FILE))?;
            let summary = madcars::replay::summary(&lines);
            let (title, rest) = summary.split_once('\n').unwrap_or((&summary, ""));
            let story = Story {
                title: title.to_string(),
                summary: rest.lines().map(|l| Line::raw(l.to_string())).collect(),
                part_name: "match",
                opener: madcars::protocol::NEW_MATCH,
                turn_name: "tick",
                part: at.round,
                turn: at.turn.map(|t| u32::try_from(t).unwrap_or(u32::MAX)),
                most_turns: 10,
            };
            print!("{}", tui::story::text(path, &story)?);
            Ok(())
        })())
    }

    fn page(&self, path: &Path, _board: Option<usize>) -> Option<anyhow::Result<String>> {
        Some(
            madcars::replay::read(&path.join(madcars::replay::FILE))
                .map(|l| html::madcars_page(&l)),
        )
    }
}

/// A Nim match: its games a line each, and the story of one game (`--round`), move by move.
impl Replay for Nim {
    fn show(&self, path: &Path, at: ReplayAt) -> Option<anyhow::Result<()>> {
        Some((|| {
            let file = path.join(crate::game::RESULTS_FILE);
            let results: serde_json::Value = serde_json::from_str(&crate::text::read(&file)?)
                .with_context(|| format!("{}: not a Nim match's result", file.display()))?;
            let bots: Vec<&str> = results["result"]["bots"]
                .as_array()
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .filter_map(|b| b["name"].as_str())
                .collect();
            let story = Story {
                title: format!("Nim: {}", bots.join(" against ")),
                summary: nim::play::summary(&results)
                    .into_iter()
                    .map(Line::raw)
                    .collect(),
                part_name: "game",
                opener: nim::protocol::START,
                turn_name: "move",
                part: at.round,
                turn: at.turn.map(|t| u32::try_from(t).unwrap_or(u32::MAX)),
                most_turns: 40,
            };
            print!("{}", tui::story::text(path, &story)?);
            Ok(())
        })())
    }
}

/// Prints what `viewer` shows, or runs it in the terminal.
fn show(mut viewer: impl View, text: bool) -> anyhow::Result<()> {
    if text {
        print!("{}", viewer.text());
        Ok(())
    } else {
        tui::run(&mut viewer)
    }
}
