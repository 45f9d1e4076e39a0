//! The replay hook ([`crate::game::Replay`]) of each game koth ships: which viewer shows a
//! recorded folder of that game, in the terminal and as a web page. `koth replay`, `--html`
//! and the dashboard find the game through the registry ([`super::game_of`]) and ask it here.

use std::path::Path;

use anyhow::ensure;

use super::html::{self, page_of_paths};
use super::tui::{self, View};
use crate::game::{Replay, ReplayAt};
use crate::games::flag::play::Flag;
use crate::games::madcars::{self, MadCars};
use crate::games::menace::play::TicTacToe;
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

/// A Mad Cars game: a summary in the terminal, every tick on the page.
impl Replay for MadCars {
    fn show(&self, path: &Path, _at: ReplayAt) -> Option<anyhow::Result<()>> {
        Some(
            madcars::replay::read(&path.join(madcars::replay::FILE)).map(|lines| {
                print!("{}", madcars::replay::summary(&lines));
            }),
        )
    }

    fn page(&self, path: &Path, _board: Option<usize>) -> Option<anyhow::Result<String>> {
        Some(
            madcars::replay::read(&path.join(madcars::replay::FILE))
                .map(|l| html::madcars_page(&l)),
        )
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
