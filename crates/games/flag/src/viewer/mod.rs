//! Reach the Flag's viewers: a game, level by level and step by step, in the terminal viewer
//! (`tui`) or on the web page (`page.html`), its walk walked again with the rules (`explain`),
//! on the viewer kit of [`koth_replay`].

pub mod explain;
pub mod tui;

use std::path::Path;

use super::play::Flag;
use koth_game::{Replay, ReplayAt, ReplayOptions};
use koth_replay::kit;

const PAGE: &str = include_str!("page.html");

/// A flag game, level by level.
impl Replay for Flag {
    fn show(&self, path: &Path, at: ReplayAt) -> Option<anyhow::Result<()>> {
        Some(
            tui::Viewer::open(path, at.round, at.turn)
                .and_then(|viewer| kit::show(viewer, at.text)),
        )
    }

    /// Every level; while the game is played (no `results.json` yet), every level its record
    /// holds so far, played on this game's levels.
    fn page(&self, path: &Path, _board: Option<usize>) -> Option<anyhow::Result<String>> {
        let explained = match path.join(koth_game::RESULTS_FILE).exists() {
            true => explain::explain(path),
            false => explain::so_far(path, &self.levels),
        };
        Some(explained.map(|data| kit::page(PAGE, "/*GAME*/null", &data)))
    }

    fn options(&self) -> ReplayOptions {
        ReplayOptions {
            round: true,
            turn: true,
            board: false,
        }
    }

    fn keys(&self) -> Option<String> {
        Some(tui::KEYS.help())
    }
}
