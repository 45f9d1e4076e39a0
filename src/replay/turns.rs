//! Reads a paths game's `replay.jsonl` and rebuilds the grid after any turn, with the game's own
//! rules, so a replay cannot drift from what was played.

use std::path::Path;

use anyhow::{Context, bail};

use crate::games::paths::log::{PaidRecord, ReplayHeader, TurnRecord};
use crate::games::paths::rules::{Grid, MAX_BOTS, side};

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
        let text = crate::text::read(path)?;
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
