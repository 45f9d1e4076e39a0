//! Levels and the movement rules: what a level file holds, how the walker moves over it, and the
//! seed's fitness of a walk.
//!
//! A level file (`levels/flag/*.txt`) is a `flag-value N` line and then the map, one character
//! per tile, top row first; a line that is `#` alone or starts with `# ` is a comment (a map row
//! may start with `#`, a grey tile, but never holds a space):
//!
//! | char | tile                                                                  |
//! |------|-----------------------------------------------------------------------|
//! | `1`  | yellow: falls after one step onto it                                  |
//! | `2`  | dark yellow: falls after two steps onto it                            |
//! | `#`  | grey: never falls                                                     |
//! | `.`  | hole: never walkable                                                  |
//! | `S`  | the start, on a yellow tile (as in the seed: the walker stands on it without using its step, so it must come back to it once) |
//! | `s`  | the start, on a grey tile                                             |
//! | `F`  | the flag, on a grey tile (so it can be crossed before the end)        |
//!
//! The same characters are what the `play` protocol sends to solver bots.

use std::fmt;
use std::path::Path;

use anyhow::{Context, bail};

/// The largest level, in tiles: the exact solver keeps tile sets in `u128` bit sets.
pub(crate) const MAX_TILES: usize = 128;

/// One tile of a level as it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tile {
    Hole,
    Grey,
    Yellow,
    DarkYellow,
}

impl Tile {
    /// Steps onto the tile before it falls; `None` for tiles that never fall or are never walkable.
    pub(crate) fn steps_to_fall(self) -> Option<u8> {
        match self {
            Tile::Yellow => Some(1),
            Tile::DarkYellow => Some(2),
            Tile::Hole | Tile::Grey => None,
        }
    }
}

/// A move, and a gene of the GA: 1 up, 2 down, 3 left, 4 right (the seed's numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    Up,
    Down,
    Left,
    Right,
}

impl Move {
    pub(crate) const ALL: [Move; 4] = [Move::Up, Move::Down, Move::Left, Move::Right];

    /// The letter of the move in move strings (`U`, `D`, `L`, `R`).
    pub(crate) fn letter(self) -> char {
        match self {
            Move::Up => 'U',
            Move::Down => 'D',
            Move::Left => 'L',
            Move::Right => 'R',
        }
    }

    pub(crate) fn from_letter(c: char) -> Option<Move> {
        match c {
            'U' => Some(Move::Up),
            'D' => Some(Move::Down),
            'L' => Some(Move::Left),
            'R' => Some(Move::Right),
            _ => None,
        }
    }
}

/// Parses a move string such as `UURDL`; the error names the first character that is not a move.
pub fn parse_moves(text: &str) -> Result<Vec<Move>, String> {
    text.chars()
        .enumerate()
        .map(|(i, c)| {
            Move::from_letter(c)
                .ok_or_else(|| format!("character {} ({c:?}) is not one of U, D, L, R", i + 1))
        })
        .collect()
}

pub fn moves_to_string(moves: &[Move]) -> String {
    moves.iter().map(|m| m.letter()).collect()
}

/// A level as read from its file.
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    /// The file stem (`seed-6x6`), for messages and logs.
    pub name: String,
    pub width: usize,
    pub height: usize,
    /// Row-major, top row first.
    pub tiles: Vec<Tile>,
    pub start: usize,
    pub flag: usize,
    /// What landing on the flag is worth at step 0; grows by one per step taken.
    pub flag_value: i64,
}

impl Level {
    pub fn load(path: &Path) -> anyhow::Result<Level> {
        let text = koth_base::text::read(path)?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Level::parse(&name, &text).with_context(|| format!("in level {}", path.display()))
    }

    /// Parses the text of a level file; errors name the line.
    pub fn parse(name: &str, text: &str) -> anyhow::Result<Level> {
        let mut flag_value = None;
        let mut rows: Vec<(usize, &str)> = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            let line = line.trim_end();
            if line.trim().is_empty() || is_comment(line) {
                continue;
            }
            if let Some(value) = line.strip_prefix("flag-value") {
                let value = value.trim();
                flag_value = Some(value.parse::<i64>().with_context(|| {
                    format!("line {number}: flag-value {value:?} is not a whole number")
                })?);
            } else {
                rows.push((number, line));
            }
        }
        let Some(flag_value) = flag_value else {
            bail!("no `flag-value N` line (the flag's starting value, e.g. flag-value -16)")
        };
        let Some(&(_, first)) = rows.first() else {
            bail!("no map rows")
        };
        let width = first.chars().count();
        let height = rows.len();
        if width * height > MAX_TILES {
            bail!("the map is {width}×{height}; at most {MAX_TILES} tiles are supported");
        }
        let mut tiles = Vec::with_capacity(width * height);
        let (mut start, mut flag) = (None, None);
        for &(number, row) in &rows {
            if row.chars().count() != width {
                bail!(
                    "line {number}: the row has {} tiles, the first row has {width}",
                    row.chars().count()
                );
            }
            for c in row.chars() {
                let at = tiles.len();
                let tile = match c {
                    '1' => Tile::Yellow,
                    '2' => Tile::DarkYellow,
                    '#' => Tile::Grey,
                    '.' => Tile::Hole,
                    'S' | 's' | 'F' => {
                        let slot = if c == 'F' { &mut flag } else { &mut start };
                        if slot.replace(at).is_some() {
                            bail!(
                                "line {number}: a second {}",
                                if c == 'F' { "flag" } else { "start" }
                            );
                        }
                        if c == 'S' { Tile::Yellow } else { Tile::Grey }
                    }
                    other => bail!(
                        "line {number}: {other:?} is not a tile (1 2 # . S s F, see the file's header)"
                    ),
                };
                tiles.push(tile);
            }
        }
        let Some(start) = start else {
            bail!("no start tile (S or s)")
        };
        let Some(flag) = flag else {
            bail!("no flag tile (F)")
        };
        Ok(Level {
            name: name.to_string(),
            width,
            height,
            tiles,
            start,
            flag,
            flag_value,
        })
    }

    /// The seed's "steps needed": the sum of every tile's steps before it falls.
    pub(crate) fn steps_needed(&self) -> u32 {
        self.tiles
            .iter()
            .filter_map(|t| t.steps_to_fall())
            .map(u32::from)
            .sum()
    }

    /// The tile one move away from `at`, if it is on the map.
    pub(crate) fn neighbour(&self, at: usize, m: Move) -> Option<usize> {
        let (row, col) = (at / self.width, at % self.width);
        match m {
            Move::Up if row > 0 => Some(at - self.width),
            Move::Down if row + 1 < self.height => Some(at + self.width),
            Move::Left if col > 0 => Some(at - 1),
            Move::Right if col + 1 < self.width => Some(at + 1),
            _ => None,
        }
    }

    /// Straight-line distance between two tiles.
    pub(crate) fn distance(&self, a: usize, b: usize) -> f64 {
        let dr = (a / self.width) as f64 - (b / self.width) as f64;
        let dc = (a % self.width) as f64 - (b % self.width) as f64;
        (dr * dr + dc * dc).sqrt()
    }

    /// The level in the file's characters (without the `flag-value` line), as sent to bots.
    pub(crate) fn map_rows(&self) -> Vec<String> {
        (0..self.height)
            .map(|row| {
                (0..self.width)
                    .map(|col| {
                        let at = row * self.width + col;
                        match (at == self.start, at == self.flag, self.tiles[at]) {
                            (_, true, _) => 'F',
                            (true, _, Tile::Yellow) => 'S',
                            (true, _, _) => 's',
                            (_, _, Tile::Yellow) => '1',
                            (_, _, Tile::DarkYellow) => '2',
                            (_, _, Tile::Grey) => '#',
                            (_, _, Tile::Hole) => '.',
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

/// Map rows may start with `#` (a grey tile) but hold no spaces, so a comment is a line that is
/// `#` alone or starts with `# `.
fn is_comment(line: &str) -> bool {
    line == "#" || line.starts_with("# ")
}

/// A walker on a level: where it stands and how many steps each tile has left.
#[derive(Debug, Clone)]
pub(crate) struct Walker<'a> {
    level: &'a Level,
    pub pos: usize,
    /// Steps left per tile: 0 = fallen or hole, [`NEVER_FALLS`] for grey tiles.
    left: Vec<u8>,
    /// Sum of `left` over tiles that can fall.
    remaining: u32,
    /// Steps actually taken (moves that did nothing are not steps).
    pub steps: u32,
    /// The flag's values summed over every landing on it.
    pub flag_points: i64,
}

const NEVER_FALLS: u8 = u8::MAX;

impl<'a> Walker<'a> {
    pub(crate) fn new(level: &'a Level) -> Walker<'a> {
        let left: Vec<u8> = level
            .tiles
            .iter()
            .map(|t| match t {
                Tile::Hole => 0,
                Tile::Grey => NEVER_FALLS,
                t => t.steps_to_fall().unwrap_or(0),
            })
            .collect();
        Walker {
            level,
            pos: level.start,
            remaining: level.steps_needed(),
            left,
            steps: 0,
            flag_points: 0,
        }
    }

    /// Whether the tile `at` can be stepped on now.
    pub(crate) fn walkable(&self, at: usize) -> bool {
        self.left[at] > 0
    }

    /// Steps left on tile `at` before it falls (`None` for grey tiles).
    pub(crate) fn steps_left(&self, at: usize) -> Option<u8> {
        (self.left[at] != NEVER_FALLS).then_some(self.left[at])
    }

    /// Tries a move: onto a walkable tile it is a step (the tile uses one of its steps, the flag
    /// pays its current value); onto a fallen tile, a hole or off the map it does nothing.
    pub(crate) fn step(&mut self, m: Move) -> bool {
        let Some(to) = self.level.neighbour(self.pos, m) else {
            return false;
        };
        if !self.walkable(to) {
            return false;
        }
        self.pos = to;
        self.steps += 1;
        if self.left[to] != NEVER_FALLS {
            self.left[to] -= 1;
            self.remaining -= 1;
        }
        if to == self.level.flag {
            // The worked example: a landing at step k is worth flag-value + k.
            self.flag_points += self.level.flag_value + i64::from(self.steps);
        }
        true
    }

    /// Every tile that can fall has fallen and the walker stands on the flag.
    pub(crate) fn is_solved(&self) -> bool {
        self.remaining == 0 && self.pos == self.level.flag
    }

    /// Whether no move can ever take the walker anywhere again (all four ways blocked; tiles
    /// never come back, so this lasts).
    pub(crate) fn is_blocked(&self) -> bool {
        Move::ALL.iter().all(|&m| {
            self.level
                .neighbour(self.pos, m)
                .is_none_or(|to| !self.walkable(to))
        })
    }

    /// D: the sum of straight-line distances from every tile not fallen yet to the flag
    /// (a dark-yellow tile counts once, grey tiles never, as in the seed).
    pub(crate) fn distance_left(&self) -> f64 {
        (0..self.left.len())
            .filter(|&at| self.left[at] > 0 && self.left[at] != NEVER_FALLS)
            .map(|at| self.level.distance(at, self.level.flag))
            .sum()
    }
}

/// What walking a move sequence did, and its fitness.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub fitness: i64,
    pub steps: u32,
    pub solved: bool,
    /// How many moves were read before the walker got stuck (see [`walk`]); the sequence's
    /// length if it never did.
    pub stuck_after: usize,
}

/// The seed's fitness: steps taken, plus the flag's value at each landing, minus round(D / 2).
/// `f64::round` rounds halves away from zero (Python's `round` rounds them to even; the
/// difference is one point on a few walks and changes no ranking that matters).
pub(crate) fn fitness(steps: u32, flag_points: i64, distance_left: f64) -> i64 {
    i64::from(steps) + flag_points - (distance_left / 2.0).round() as i64
}

/// Walks `moves` from the start. The walk is *stuck* once the level is solved (the remaining
/// moves are not read: the puzzle is over) or once the walker is blocked on all four sides
/// (no later move can change anything). Moves into fallen tiles, holes or edges before that
/// are simply skipped, as in the seed.
pub(crate) fn walk(level: &Level, moves: impl IntoIterator<Item = Move>) -> (Outcome, Walker<'_>) {
    let mut walker = Walker::new(level);
    let mut read = 0;
    let mut stuck_after = None;
    for m in moves {
        if walker.is_solved() || walker.is_blocked() {
            stuck_after = Some(read);
            break;
        }
        walker.step(m);
        read += 1;
    }
    let outcome = Outcome {
        fitness: fitness(walker.steps, walker.flag_points, walker.distance_left()),
        steps: walker.steps,
        solved: walker.is_solved(),
        stuck_after: stuck_after.unwrap_or(read),
    };
    (outcome, walker)
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "flag-value {}", self.flag_value)?;
        for row in self.map_rows() {
            writeln!(f, "{row}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(rows: &str) -> Level {
        Level::parse("test", &format!("flag-value -5\n{rows}")).unwrap()
    }

    fn moves(s: &str) -> Vec<Move> {
        parse_moves(s).unwrap()
    }

    #[test]
    fn worked_example_from_the_seed_scores_14() {
        // Flag value −10, 15 steps taken, the flag reached at steps 6 and 13, nothing left.
        let flag_points = (-10 + 6) + (-10 + 13);
        assert_eq!(fitness(15, flag_points, 0.0), 14);
    }

    #[test]
    fn walker_pays_the_flag_value_plus_the_step_number() {
        // s 1 F 1: right, right (flag at step 2), right, left (flag again at step 4).
        let lvl = level("s1F1");
        let (outcome, walker) = walk(&lvl, moves("RRRL"));
        assert_eq!(walker.steps, 4);
        assert_eq!(walker.flag_points, (-5 + 2) + (-5 + 4));
        assert!(outcome.solved);
        assert_eq!(outcome.fitness, 4 + (-3) + (-1));
    }

    #[test]
    fn distance_penalty_counts_tiles_left_once() {
        // Nothing walked: tiles at distance 1 (yellow) and 2 (dark) from the flag: D = 3, round(1.5) = 2.
        let lvl = level("21Fs");
        let (outcome, _) = walk(&lvl, []);
        assert_eq!(outcome.fitness, -2);
    }

    #[test]
    fn fallen_tiles_holes_and_edges_stop_the_walker() {
        let lvl = level("s1.F\n####");
        let mut walker = Walker::new(&lvl);
        assert!(!walker.step(Move::Up), "off the top edge");
        assert!(!walker.step(Move::Left), "off the left edge");
        assert!(walker.step(Move::Right));
        assert!(!walker.step(Move::Right), "into a hole");
        assert!(walker.step(Move::Left), "back onto the grey start");
        assert!(!walker.step(Move::Right), "onto the fallen yellow tile");
        assert_eq!(walker.pos, lvl.start);
        assert_eq!(walker.steps, 2);
    }

    #[test]
    fn dark_yellow_tiles_take_two_steps() {
        let lvl = level("s2F");
        let mut walker = Walker::new(&lvl);
        assert!(walker.step(Move::Right));
        assert_eq!(walker.steps_left(1), Some(1));
        assert!(walker.step(Move::Left));
        assert!(
            walker.step(Move::Right),
            "one step left on the dark-yellow tile"
        );
        assert_eq!(walker.steps_left(1), Some(0));
        assert!(walker.step(Move::Left), "the grey start never falls");
        assert!(!walker.step(Move::Right), "fallen after two steps");
    }

    #[test]
    fn crossing_the_flag_early_does_not_end_the_level() {
        let lvl = level("sF1");
        let (outcome, walker) = walk(&lvl, moves("RRL"));
        assert!(outcome.solved);
        assert_eq!(walker.steps, 3);
    }

    #[test]
    fn stuck_means_blocked_on_all_sides_or_solved() {
        // s 1 F with a yellow start: after R R the start tile is still there, so not blocked.
        let lvl = level("1sF.\n....");
        // L onto the yellow tile: it falls under the walker, the grey start is still walkable.
        let (outcome, _) = walk(&lvl, moves("LRRLLL"));
        assert!(outcome.solved, "L R R: everything fallen, on the flag");
        assert_eq!(outcome.stuck_after, 3);
        let dead_end = level("S1\n.F");
        // R then L onto the yellow start: both tiles fall, the walker stands on a fallen tile
        // with no walkable neighbour.
        let (outcome, _) = walk(&dead_end, moves("RLUUUU"));
        assert!(!outcome.solved);
        assert_eq!(outcome.stuck_after, 2);
    }

    #[test]
    fn parse_errors_name_the_line() {
        let err = Level::parse("x", "flag-value 1\ns1F\n1x1").unwrap_err();
        assert!(format!("{err:#}").contains("line 3"), "{err:#}");
        let err = Level::parse("x", "flag-value 1\ns1F\n11").unwrap_err();
        assert!(format!("{err:#}").contains("line 3"), "{err:#}");
        assert!(Level::parse("x", "s1F").is_err(), "flag-value is required");
        assert!(
            Level::parse("x", "flag-value 0\n111F").is_err(),
            "a start is required"
        );
    }

    #[test]
    fn map_rows_round_trip() {
        let text = "flag-value -16\n#S12\n.F#s";
        assert!(Level::parse("x", text).is_err(), "two starts");
        let lvl = level("#S12\n.F##");
        assert_eq!(lvl.map_rows(), vec!["#S12", ".F##"]);
        assert_eq!(
            Level::parse("x", &lvl.to_string()).unwrap().tiles,
            lvl.tiles
        );
    }
}
