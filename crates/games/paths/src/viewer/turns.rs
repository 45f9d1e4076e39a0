//! Reads a paths game's `replay.jsonl` and rebuilds the grid after any turn, with the game's own
//! rules, so a replay cannot drift from what was played.

use std::path::Path;

use anyhow::{Context, bail};

use crate::log::{PaidRecord, ReplayHeader, TurnRecord};
use crate::rules::{Grid, MAX_BOTS, side};

/// An accepted choice of one vertex in a turn: the bot that broke or activated it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VertexEvent {
    pub turn: u32,
    pub bot: usize,
    /// Activated (the bot became an owner) rather than broken.
    pub activated: bool,
}

/// A whole turn-by-turn replay.
#[derive(Debug, Clone)]
pub struct Replay {
    pub header: ReplayHeader,
    /// Every turn of every round, in play order.
    pub turns: Vec<TurnRecord>,
    /// Each scored round's paying vertices (none in a replay written before koth recorded them).
    pub paid: Vec<PaidRecord>,
}

impl Replay {
    /// Reads `replay.jsonl`; errors name the file and line. Every vertex is checked to lie on
    /// the grid the header announces (and the grid to be the one the rules give its bots), so
    /// a damaged replay is refused here rather than met while drawing it.
    pub fn read(path: &Path) -> anyhow::Result<Replay> {
        let text = koth_base::text::read(path)?;
        Replay::parse(&text, path)
    }

    /// Parses the text of `replay.jsonl`; errors name `path` and the line.
    pub(crate) fn parse(text: &str, path: &Path) -> anyhow::Result<Replay> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let Some(first) = lines.next() else {
            bail!("{}:1: empty replay", path.display());
        };
        let (header_line, first) = first;
        let at = |index: usize| format!("{}:{}", path.display(), index + 1);
        let header: ReplayHeader = serde_json::from_str(first)
            .with_context(|| format!("{}: not a replay header", at(header_line)))?;
        let bots = header.bots.len();
        if !(1..=MAX_BOTS).contains(&bots) {
            bail!(
                "{}: {bots} bots; a paths game has 1 to {MAX_BOTS}",
                at(header_line)
            );
        }
        if header.side != side(bots) {
            bail!(
                "{}: side {}, but a game of {bots} bots has side {}",
                at(header_line),
                header.side,
                side(bots)
            );
        }
        let mut turns = Vec::new();
        let mut paid = Vec::new();
        // Every record names a round of the game and vertices on its grid.
        let check = |index: usize, round: u32, vertices: &[(usize, usize)]| {
            if round >= header.rounds {
                bail!(
                    "{}: round {round}, but the game has rounds 0 to {}",
                    at(index),
                    header.rounds.saturating_sub(1)
                );
            }
            if let Some((x, y)) = vertices
                .iter()
                .find(|&&(x, y)| x >= header.side || y >= header.side)
            {
                bail!(
                    "{}: vertex {x},{y} is off the grid (side {})",
                    at(index),
                    header.side
                );
            }
            Ok(())
        };
        for (index, line) in lines {
            if let Ok(record) = serde_json::from_str::<PaidRecord>(line) {
                let vertices: Vec<_> = record.paid.iter().map(|&(x, y, _)| (x, y)).collect();
                check(index, record.round, &vertices)?;
                paid.push(record);
                continue;
            }
            let record: TurnRecord = serde_json::from_str(line)
                .with_context(|| format!("{}: not a turn record", at(index)))?;
            if record.destroy.len() != bots || record.activate.len() != bots {
                bail!("{}: expected one choice per bot ({bots})", at(index));
            }
            let choices: Vec<_> = record
                .destroy
                .iter()
                .chain(&record.activate)
                .flatten()
                .copied()
                .collect();
            check(index, record.round, &choices)?;
            turns.push(record);
        }
        Ok(Replay {
            header,
            turns,
            paid,
        })
    }

    /// The number of turns recorded for `round`.
    pub fn turns_in(&self, round: u32) -> usize {
        self.turns.iter().filter(|t| t.round == round).count()
    }

    /// What happened to `vertex` in the first `turns` turns of `round`, in play order (a turn's
    /// breaking before its activations, as the rules play them).
    pub fn history(&self, round: u32, turns: usize, vertex: (usize, usize)) -> Vec<VertexEvent> {
        let mut events = Vec::new();
        for record in self.turns.iter().filter(|t| t.round == round).take(turns) {
            for (activated, choices) in [(false, &record.destroy), (true, &record.activate)] {
                events.extend(
                    choices
                        .iter()
                        .enumerate()
                        .filter(|&(_, choice)| *choice == Some(vertex))
                        .map(|(bot, _)| VertexEvent {
                            turn: record.turn,
                            bot,
                            activated,
                        }),
                );
            }
        }
        events
    }

    /// The vertices round `round`'s paying searches ran through, as `(x, y, searches)`.
    pub fn paid_in(&self, round: u32) -> impl Iterator<Item = &(usize, usize, u32)> {
        self.paid
            .iter()
            .filter(move |p| p.round == round)
            .flat_map(|p| &p.paid)
    }

    /// The grid of `round` after its first `turns` turns (0: the empty grid).
    pub fn grid(&self, round: u32, turns: usize) -> Grid {
        let mut grid = Grid::new(self.header.side);
        for record in self.turns.iter().filter(|t| t.round == round).take(turns) {
            grid.destroy(&record.destroy);
            grid.activate(&record.activate);
        }
        grid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPLAY: &str = r#"{"game":"paths","bots":["A","B"],"side":5,"rounds":1,"seed":1}
{"round":0,"turn":0,"destroy":[null,null],"activate":[[0,0],[0,0]]}
{"round":0,"turn":1,"destroy":[[1,1],null],"activate":[null,[1,0]]}
{"round":0,"paid":[[0,0,2],[1,0,1]]}
"#;

    #[test]
    fn a_vertex_history_lists_its_breaking_and_activations_up_to_the_turn_shown() {
        let replay = Replay::parse(REPLAY, Path::new("replay.jsonl")).unwrap();
        let activated = |turn, bot| VertexEvent {
            turn,
            bot,
            activated: true,
        };
        assert_eq!(
            replay.history(0, 2, (0, 0)),
            [activated(0, 0), activated(0, 1)]
        );
        let broken = VertexEvent {
            turn: 1,
            bot: 0,
            activated: false,
        };
        assert_eq!(replay.history(0, 2, (1, 1)), [broken]);
        assert_eq!(replay.history(0, 1, (1, 1)), []);
        assert_eq!(
            replay.paid_in(0).collect::<Vec<_>>(),
            [&(0, 0, 2), &(1, 0, 1)]
        );
        assert_eq!(replay.paid_in(1).count(), 0);
    }
}
