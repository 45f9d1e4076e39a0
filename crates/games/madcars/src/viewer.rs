//! Mad Cars' viewers: a summary of its matches and the story of one match's last ticks as text,
//! every tick on the web page (`viewer.html`), from its `replay.jsonl.gz` ([`super::replay`]),
//! on the viewer kit of [`koth_replay`].

use std::path::Path;

use super::{MadCars, replay};
use koth_game::{Replay, ReplayAt, ReplayOptions};
use koth_replay::kit;
use koth_replay::tui::story::{self, Story};

const PAGE: &str = include_str!("viewer.html");

/// A Mad Cars game: in the terminal, a summary of its matches and the story of one match's last
/// ticks (`--round` the match, `--turn` the tick); every tick on the page.
impl Replay for MadCars {
    fn show(&self, path: &Path, at: ReplayAt) -> Option<anyhow::Result<()>> {
        Some((|| {
            let lines = replay::read(&path.join(replay::FILE))?;
            let summary = replay::summary(&lines);
            let (title, rest) = summary.split_once('\n').unwrap_or((&summary, ""));
            let story = Story {
                title: title.to_string(),
                summary: rest.lines().map(str::to_string).collect(),
                part_name: "match",
                opener: super::protocol::NEW_MATCH,
                turn_name: "tick",
                part: at.round,
                turn: at.turn.map(|t| u32::try_from(t).unwrap_or(u32::MAX)),
                most_turns: 10,
            };
            print!("{}", story::text(path, &story)?);
            Ok(())
        })())
    }

    /// Every tick; while the game is played (no `results.json` yet), every tick flushed so far.
    fn page(&self, path: &Path, _board: Option<usize>) -> Option<anyhow::Result<String>> {
        let file = path.join(replay::FILE);
        let lines = match path.join(koth_game::RESULTS_FILE).exists() {
            true => replay::read(&file),
            false => replay::read_so_far(&file),
        };
        Some(lines.and_then(|lines| {
            // The page draws ticks: a game begun has none until the first is flushed.
            anyhow::ensure!(
                lines.iter().any(|line| line.get("t").is_some()),
                "no tick has been played yet"
            );
            Ok(kit::page(PAGE, "/*GAME*/null", &lines))
        }))
    }

    /// Matches from 1; ticks from 0, as the organisers' controller counts them (and a bot
    /// reads them nowhere: the protocol sends no tick number).
    fn numbering(&self) -> koth_game::Numbering {
        koth_game::Numbering {
            first_round: 1,
            first_turn: 0,
        }
    }

    fn options(&self) -> ReplayOptions {
        ReplayOptions {
            round: true,
            turn: true,
            board: false,
        }
    }
}
