//! Reads a paths game's `replay.jsonl` and rebuilds the grid after any turn, with the game's own
//! rules, so a replay cannot drift from what was played.

use std::path::Path;

use anyhow::{Context, bail};

use crate::games::paths::log::{ReplayHeader, TurnRecord};
use crate::games::paths::rules::Grid;

/// A whole turn-by-turn replay.
#[derive(Debug, Clone)]
pub struct Replay {
    pub header: ReplayHeader,
    /// Every turn of every round, in play order.
    pub turns: Vec<TurnRecord>,
}

impl Replay {
    /// Reads `replay.jsonl`; errors name the file and line.
    pub fn read(path: &Path) -> anyhow::Result<Replay> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let Some((_, first)) = lines.next() else {
            bail!("{}:1: empty replay", path.display());
        };
        let header: ReplayHeader = serde_json::from_str(first)
            .with_context(|| format!("{}:1: not a replay header", path.display()))?;
        let mut turns = Vec::new();
        for (index, line) in lines {
            let record: TurnRecord = serde_json::from_str(line)
                .with_context(|| format!("{}:{}: not a turn record", path.display(), index + 1))?;
            if record.destroy.len() != header.bots.len()
                || record.activate.len() != header.bots.len()
            {
                bail!(
                    "{}:{}: expected one choice per bot ({})",
                    path.display(),
                    index + 1,
                    header.bots.len()
                );
            }
            turns.push(record);
        }
        Ok(Replay { header, turns })
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
