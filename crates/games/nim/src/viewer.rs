//! Nim's viewer: its games a line each, and the story of one game told from the transcripts,
//! on the viewer kit of [`koth_replay`].

use std::path::Path;

use anyhow::Context;

use super::Nim;
use koth_game::{Replay, ReplayAt, ReplayOptions};
use koth_replay::tui::story::{self, Story};

/// A Nim match: its games a line each, and the story of one game (`--round`), move by move.
impl Replay for Nim {
    fn show(&self, path: &Path, at: ReplayAt) -> Option<anyhow::Result<()>> {
        Some((|| {
            let file = path.join(koth_game::RESULTS_FILE);
            let results: serde_json::Value =
                serde_json::from_str(&koth_base::text::read(&file)?)
                    .with_context(|| format!("{}: not a Nim match's result", file.display()))?;
            let bots: Vec<&str> = results["result"]["bots"]
                .as_array()
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .filter_map(|b| b["name"].as_str())
                .collect();
            let story = Story {
                title: format!("Nim: {}", bots.join(" against ")),
                summary: super::play::summary(&results),
                part_name: "game",
                opener: super::protocol::START,
                turn_name: "move",
                part: at.round,
                turn: at.turn.map(|t| u32::try_from(t).unwrap_or(u32::MAX)),
                most_turns: 40,
            };
            print!("{}", story::text(path, &story)?);
            Ok(())
        })())
    }

    fn options(&self) -> ReplayOptions {
        ReplayOptions {
            round: true,
            turn: true,
            board: false,
        }
    }
}
