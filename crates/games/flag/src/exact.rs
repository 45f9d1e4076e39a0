//! The exact solver: a shortest solution of a level, or a proof that there is none.
//!
//! A state is the walker's tile and which tiles still stand (two bit sets: tiles with at least
//! one step left, and dark-yellow tiles with two). Every solution steps exactly
//! `steps_needed` times onto falling tiles, so solutions differ only in their steps onto grey
//! tiles. The search runs in two passes:
//! 1. a depth-first search over states, each state visited once, finds *a* solution or proves
//!    that none exists (the state space is finite);
//! 2. IDA* from the lower bound up to that solution's length finds a shortest one, with a table
//!    of proven lower bounds per state so that no state is searched twice for the same budget.
//!
//! Both prune states from which some standing tile, or the flag, can no longer be reached through
//! standing tiles: tiles never come back, so such a state can never be solved.

use std::collections::{HashMap, HashSet};

use anyhow::bail;

use super::rules::{Level, Move, Tile};

/// States the solver may visit before giving up (about 40 bytes each in its tables).
pub(crate) const STATE_LIMIT: usize = 30_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct State {
    pos: u8,
    /// Falling tiles with at least one step left.
    standing: u128,
    /// Dark-yellow tiles with both steps left.
    twice: u128,
}

/// The answer of the exact solver.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// A shortest solution.
    Solved(Vec<Move>),
    /// No sequence of moves solves the level.
    Unsolvable,
}

/// A level compiled to bit sets.
struct Board {
    width: usize,
    flag: u8,
    grey: u128,
    /// Every tile's in-map neighbours, by move.
    neighbours: Vec<[Option<u8>; 4]>,
    /// Tiles not in the leftmost / rightmost column, for shifting sets sideways.
    not_left: u128,
    not_right: u128,
    all: u128,
    states_seen: usize,
}

fn bit(at: u8) -> u128 {
    1u128 << at
}

impl Board {
    fn new(level: &Level) -> Board {
        let mut grey = 0;
        let (mut not_left, mut not_right, mut all) = (0, 0, 0);
        for (at, tile) in level.tiles.iter().enumerate() {
            let b = 1u128 << at;
            all |= b;
            if *tile == Tile::Grey {
                grey |= b;
            }
            if at % level.width != 0 {
                not_left |= b;
            }
            if at % level.width != level.width - 1 {
                not_right |= b;
            }
        }
        let neighbours = (0..level.tiles.len())
            .map(|at| Move::ALL.map(|m| level.neighbour(at, m).map(|n| n as u8)))
            .collect();
        Board {
            width: level.width,
            flag: level.flag as u8,
            grey,
            neighbours,
            not_left,
            not_right,
            all,
            states_seen: 0,
        }
    }

    fn initial(level: &Level) -> State {
        let mut state = State {
            pos: level.start as u8,
            standing: 0,
            twice: 0,
        };
        for (at, tile) in level.tiles.iter().enumerate() {
            match tile {
                Tile::Yellow => state.standing |= 1 << at,
                Tile::DarkYellow => {
                    state.standing |= 1 << at;
                    state.twice |= 1 << at;
                }
                Tile::Grey | Tile::Hole => {}
            }
        }
        state
    }

    fn solved(&self, s: &State) -> bool {
        s.standing == 0 && s.pos == self.flag
    }

    /// A lower bound on the moves still needed: one per step left on falling tiles, plus the
    /// final step onto the (grey) flag unless the walker is already done.
    fn lower_bound(&self, s: &State) -> u32 {
        let left = s.standing.count_ones() + s.twice.count_ones();
        if self.solved(s) { 0 } else { left + 1 }
    }

    fn step(&self, s: &State, m: Move) -> Option<State> {
        let to = self.neighbours[s.pos as usize][m as usize]?;
        let b = bit(to);
        let mut next = State { pos: to, ..*s };
        if self.grey & b != 0 {
        } else if s.twice & b != 0 {
            next.twice &= !b;
        } else if s.standing & b != 0 {
            next.standing &= !b;
        } else {
            return None;
        }
        Some(next)
    }

    /// Whether every standing tile and the flag can still be reached from the walker through
    /// standing tiles.
    fn can_still_finish(&self, s: &State) -> bool {
        let open = (s.standing | self.grey) & self.all;
        let mut reached = bit(s.pos);
        loop {
            let grown = (reached
                | ((reached << 1) & self.not_left)
                | ((reached >> 1) & self.not_right)
                | reached.checked_shl(self.width as u32).unwrap_or(0)
                | reached.checked_shr(self.width as u32).unwrap_or(0))
                & open
                | bit(s.pos);
            if grown == reached {
                break;
            }
            reached = grown;
        }
        let need = s.standing | bit(self.flag);
        need & !reached == 0
    }

    fn count_state(&mut self) -> anyhow::Result<()> {
        self.states_seen += 1;
        if self.states_seen > STATE_LIMIT {
            bail!("the exact solver gave up after {STATE_LIMIT} states; the level is too large");
        }
        Ok(())
    }

    /// Pass 1: any solution, or `None` if the level has none.
    fn any_solution(&mut self, start: State) -> anyhow::Result<Option<Vec<Move>>> {
        let mut seen = HashSet::new();
        // An explicit stack of (state, next move to try) so deep levels cannot overflow the
        // thread's stack.
        let mut stack: Vec<(State, usize)> = vec![(start, 0)];
        let mut path: Vec<Move> = Vec::new();
        seen.insert(start);
        while let Some((state, tried)) = stack.last_mut() {
            if self.solved(state) {
                return Ok(Some(path));
            }
            if *tried == 4 {
                stack.pop();
                path.pop();
                continue;
            }
            let m = Move::ALL[*tried];
            *tried += 1;
            let Some(next) = self.step(state, m) else {
                continue;
            };
            if !seen.insert(next) || !self.can_still_finish(&next) {
                continue;
            }
            self.count_state()?;
            stack.push((next, 0));
            path.push(m);
        }
        Ok(None)
    }

    /// Pass 2: IDA*. Returns a solution no longer than `bound`, or the smallest cost above it.
    fn bounded(
        &mut self,
        state: State,
        bound: u32,
        path: &mut Vec<Move>,
        proven: &mut HashMap<State, u32>,
    ) -> anyhow::Result<Result<(), u32>> {
        let g = path.len() as u32;
        let h = self
            .lower_bound(&state)
            .max(proven.get(&state).copied().unwrap_or(0));
        if g + h > bound {
            return Ok(Err(g + h));
        }
        if self.solved(&state) {
            return Ok(Ok(()));
        }
        self.count_state()?;
        let mut smallest_over = u32::MAX;
        for m in Move::ALL {
            let Some(next) = self.step(&state, m) else {
                continue;
            };
            if !self.can_still_finish(&next) {
                continue;
            }
            path.push(m);
            match self.bounded(next, bound, path, proven)? {
                Ok(()) => return Ok(Ok(())),
                Err(over) => smallest_over = smallest_over.min(over),
            }
            path.pop();
        }
        // Nothing within `bound` from here: the cost to go exceeds `bound - g`.
        let to_go = smallest_over.saturating_sub(g);
        let entry = proven.entry(state).or_insert(0);
        *entry = (*entry).max(to_go);
        Ok(Err(smallest_over))
    }
}

/// Solves `level` exactly: a shortest move sequence that solves it, or `Unsolvable`.
pub(crate) fn solve(level: &Level) -> anyhow::Result<Verdict> {
    let mut board = Board::new(level);
    let start = Board::initial(level);
    if !board.can_still_finish(&start) {
        return Ok(Verdict::Unsolvable);
    }
    let Some(found) = board.any_solution(start)? else {
        return Ok(Verdict::Unsolvable);
    };
    let mut bound = board.lower_bound(&start);
    let mut proven = HashMap::new();
    while bound < found.len() as u32 {
        let mut path = Vec::new();
        match board.bounded(start, bound, &mut path, &mut proven)? {
            Ok(()) => return Ok(Verdict::Solved(path)),
            Err(over) => bound = over,
        }
    }
    Ok(Verdict::Solved(found))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::walk;

    fn level(rows: &str) -> Level {
        Level::parse("test", &format!("flag-value -5\n{rows}")).unwrap()
    }

    fn shortest(rows: &str) -> Vec<Move> {
        let lvl = level(rows);
        match solve(&lvl).unwrap() {
            Verdict::Solved(moves) => {
                assert!(walk(&lvl, moves.iter().copied()).0.solved);
                moves
            }
            Verdict::Unsolvable => panic!("{rows} should be solvable"),
        }
    }

    #[test]
    fn finds_the_only_solution_of_a_corridor() {
        // Across the dark tile to the flag, back onto it, and onto the flag again.
        assert_eq!(moves_of("s112F"), "RRRRLR");
    }

    #[test]
    fn handles_the_largest_level_in_one_row() {
        let row = format!("s{}F", "1".repeat(126));
        assert_eq!(shortest(&row).len(), 127);
        assert!(
            Level::parse("x", &format!("flag-value 0\n{row}1")).is_err(),
            "129 tiles"
        );
    }

    #[test]
    fn prefers_fewer_grey_steps() {
        // Straight along the yellow row is 3 moves; any detour over grey costs more.
        let moves = shortest("s11F\n####");
        assert_eq!(moves.len(), 3);
    }

    #[test]
    fn dark_yellow_tiles_need_two_visits() {
        // R (2 has one step left), R (flag), L (2 falls), R (flag): 4 moves.
        assert_eq!(shortest("s2F\n.#.").len(), 4);
    }

    #[test]
    fn detours_over_grey_when_the_direct_way_falls() {
        // The yellow tile under the walker still lets it leave: R R R L crosses the flag early.
        assert_eq!(moves_of("s1F1"), "RRRL");
        // R, R (grey), L (the dark tile falls), R, D: the dark tile costs a grey step back.
        assert_eq!(shortest("s2#\n#.F").len(), 5);
    }

    #[test]
    fn proves_levels_unsolvable() {
        // Both yellow tiles are a dead end: the walker can never cross the fallen one back.
        assert_eq!(solve(&level("11sF")).unwrap(), Verdict::Unsolvable);
        // A yellow start must be come back to, and the only way back has fallen.
        assert_eq!(solve(&level("S1F")).unwrap(), Verdict::Unsolvable);
    }

    fn moves_of(rows: &str) -> String {
        crate::rules::moves_to_string(&shortest(rows))
    }
}

#[cfg(test)]
mod shipped_levels {
    use super::*;
    use crate::rules::walk;

    fn shipped(name: &str) -> Level {
        let path = format!(
            "{}/../../../levels/flag/{name}.txt",
            env!("CARGO_MANIFEST_DIR")
        );
        Level::load(std::path::Path::new(&path)).unwrap()
    }

    #[test]
    fn shipped_levels_have_their_documented_optima() {
        for (name, optimum) in [
            ("1-ring", 8),
            ("2-dark-centre", 16),
            ("3-grey-pillars", 30),
            ("4-hollow", 31),
            ("5-seed-6x6", 37),
        ] {
            let level = shipped(name);
            let Verdict::Solved(moves) = solve(&level).unwrap() else {
                panic!("{name} is documented as solvable");
            };
            assert_eq!(moves.len(), optimum, "{name}");
            assert!(walk(&level, moves).0.solved, "{name}");
        }
        assert_eq!(
            solve(&shipped("unsolvable-seed-flag-by-start")).unwrap(),
            Verdict::Unsolvable
        );
    }
}
