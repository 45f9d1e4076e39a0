//! The track: its colours, what each colour does, and the tables the engine steps through.
//!
//! Everything a specimen can experience depends only on the fixed track and its own cell, so
//! the track precomputes it once per board: the 5×5 view of every cell and where each of the
//! nine moves from every cell lands (walls, teleporter, deadly cells and goal already applied).
//! A turn is then one table lookup per specimen instead of re-deriving the rules each time.

use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

pub(crate) const WIDTH: i32 = 53;
pub(crate) const HEIGHT: i32 = 15;
/// Cells with `x >= GOAL_X` are goal cells.
pub(crate) const GOAL_X: i32 = 49;
pub(crate) const CELLS: usize = (WIDTH * HEIGHT) as usize;
pub(crate) const COLOURS: usize = 16;
/// The colour of cells beyond the edges.
pub(crate) const OUT: i8 = -1;
/// A start cell must reach the goal within this many turns (a specimen's lifetime).
pub(crate) const REACH_TURNS: usize = 100;
/// A track with fewer start cells is thrown away.
pub(crate) const MIN_STARTS: usize = 10;

/// What a colour means on one board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Empty,
    /// Moves a specimen that steps on it by this offset, once.
    Teleporter(i8, i8),
    /// Makes the cell at this offset from it deadly.
    Trap(i8, i8),
    /// Blocks moves into it, and is deadly (for teleporters landing on it).
    Wall,
}

/// What the track dump and the board recordings say: `empty`, `wall`, `teleporter (dx,dy)` or
/// `trap (dx,dy)`.
impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Kind::Empty => write!(f, "empty"),
            Kind::Teleporter(dx, dy) => write!(f, "teleporter ({dx},{dy})"),
            Kind::Trap(dx, dy) => write!(f, "trap ({dx},{dy})"),
            Kind::Wall => write!(f, "wall"),
        }
    }
}

/// The 5×5 colours around a cell, row by row for dy = −2..2, each row dx = −2..2.
pub(crate) type View = [i8; 25];

/// Where one move from a cell ends: on a cell, dead, or in the goal. Packed in two bytes, a
/// cell's index or one of two values no cell has, so that a cell's nine landings take 18 bytes
/// (an enum took 36) and the engine tells the common case, a cell, with one comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Landing(u16);

impl Landing {
    pub const DEAD: Landing = Landing(u16::MAX);
    pub const GOAL: Landing = Landing(u16::MAX - 1);

    pub fn on(cell: u16) -> Landing {
        debug_assert!((cell as usize) < CELLS);
        Landing(cell)
    }

    /// The cell it lands on, unless it is [`Landing::DEAD`] or [`Landing::GOAL`].
    #[inline(always)]
    pub fn cell(self) -> Option<u16> {
        (self.0 < Landing::GOAL.0).then_some(self.0)
    }
}

/// The index of move (dx, dy), each in −1..=1, into a cell's nine landings.
pub(crate) fn move_index(dx: i8, dy: i8) -> usize {
    debug_assert!((-1..=1).contains(&dx) && (-1..=1).contains(&dy));
    ((dy + 1) * 3 + (dx + 1)) as usize
}

pub(crate) fn cell_index(x: i32, y: i32) -> u16 {
    (y * WIDTH + x) as u16
}

pub(crate) fn cell_xy(cell: u16) -> (i32, i32) {
    (cell as i32 % WIDTH, cell as i32 / WIDTH)
}

pub struct Track {
    /// Colour of every cell, index `y * WIDTH + x`.
    pub colours: Vec<i8>,
    pub kinds: [Kind; COLOURS],
    pub deadly: Vec<bool>,
    pub landings: Vec<[Landing; 9]>,
    pub views: Vec<View>,
    /// Cells at x = 0 that can reach the goal within [`REACH_TURNS`].
    pub starts: Vec<u16>,
}

impl Track {
    /// Generates tracks from `rng` until one has at least [`MIN_STARTS`] start cells.
    pub fn generate(rng: &mut impl Rng) -> Track {
        loop {
            let track = Track::random(rng);
            if track.starts.len() >= MIN_STARTS {
                return track;
            }
        }
    }

    fn random(rng: &mut impl Rng) -> Track {
        let mut order: Vec<i8> = (0..COLOURS as i8).collect();
        order.shuffle(rng);
        let mut kinds = [Kind::Empty; COLOURS];
        let mut offsets = [(0i8, 0i8); 2];
        for offset in &mut offsets {
            *offset = loop {
                let o = (rng.random_range(-4..=4i8), rng.random_range(-4..=4i8));
                if o != (0, 0) {
                    break o;
                }
            };
        }
        kinds[order[8] as usize] = Kind::Teleporter(offsets[0].0, offsets[0].1);
        kinds[order[9] as usize] = Kind::Teleporter(offsets[1].0, offsets[1].1);
        kinds[order[10] as usize] = Kind::Teleporter(-offsets[0].0, -offsets[0].1);
        kinds[order[11] as usize] = Kind::Teleporter(-offsets[1].0, -offsets[1].1);
        for &trap in &order[12..14] {
            kinds[trap as usize] =
                Kind::Trap(rng.random_range(-1..=1i8), rng.random_range(-1..=1i8));
        }
        for &wall in &order[14..16] {
            kinds[wall as usize] = Kind::Wall;
        }
        let empty = &order[..8];
        let mut colours = vec![0i8; CELLS];
        for y in 0..HEIGHT {
            for x in 0..WIDTH {
                colours[cell_index(x, y) as usize] = if x < GOAL_X {
                    rng.random_range(0..COLOURS as i8)
                } else {
                    empty[rng.random_range(0..empty.len())]
                };
            }
        }
        Track::new(colours, kinds)
    }

    /// The track with these colours and meanings, with every table derived from them.
    pub(crate) fn new(colours: Vec<i8>, kinds: [Kind; COLOURS]) -> Track {
        assert_eq!(colours.len(), CELLS, "a track has {CELLS} cells");
        let mut track = Track {
            colours,
            kinds,
            deadly: vec![false; CELLS],
            landings: Vec::with_capacity(CELLS),
            views: Vec::with_capacity(CELLS),
            starts: Vec::new(),
        };
        for cell in 0..CELLS as u16 {
            let (x, y) = cell_xy(cell);
            match track.kind_at(x, y) {
                Some(Kind::Wall) => track.deadly[cell as usize] = true,
                Some(Kind::Trap(dx, dy)) => {
                    let (tx, ty) = (x + dx as i32, y + dy as i32);
                    if inside(tx, ty) {
                        track.deadly[cell_index(tx, ty) as usize] = true;
                    }
                }
                _ => {}
            }
        }
        for cell in 0..CELLS as u16 {
            let (x, y) = cell_xy(cell);
            let mut landings = [Landing::DEAD; 9];
            let mut view = [OUT; 25];
            for dy in -1..=1 {
                for dx in -1..=1 {
                    landings[move_index(dx, dy)] = track.land(x, y, dx as i32, dy as i32);
                }
            }
            for dy in -2..=2 {
                for dx in -2..=2 {
                    view[((dy + 2) * 5 + dx + 2) as usize] = track.colour_at(x + dx, y + dy);
                }
            }
            track.landings.push(landings);
            track.views.push(view);
        }
        track.starts = (0..HEIGHT)
            .map(|y| cell_index(0, y))
            .filter(|&cell| track.reaches_goal(cell))
            .collect();
        track
    }

    pub(crate) fn colour_at(&self, x: i32, y: i32) -> i8 {
        if inside(x, y) {
            self.colours[cell_index(x, y) as usize]
        } else {
            OUT
        }
    }

    pub(crate) fn kind_at(&self, x: i32, y: i32) -> Option<Kind> {
        let colour = self.colour_at(x, y);
        (colour != OUT).then(|| self.kinds[colour as usize])
    }

    /// Deadly cells: out of bounds on the left, top and bottom, walls, trap targets. Beyond the
    /// right edge is the goal, not death.
    fn deadly_at(&self, x: i32, y: i32) -> bool {
        if x < 0 || !(0..HEIGHT).contains(&y) {
            true
        } else if x >= WIDTH {
            false
        } else {
            self.deadly[cell_index(x, y) as usize]
        }
    }

    /// Steps 3–6 of a turn for one move: walls stop it, a teleporter moves it once, then a deadly
    /// cell kills it and a goal cell scores.
    fn land(&self, x: i32, y: i32, dx: i32, dy: i32) -> Landing {
        let (mut tx, mut ty) = (x + dx, y + dy);
        if self.kind_at(tx, ty) == Some(Kind::Wall) {
            (tx, ty) = (x, y);
        }
        if let Some(Kind::Teleporter(ox, oy)) = self.kind_at(tx, ty) {
            tx += ox as i32;
            ty += oy as i32;
        }
        if self.deadly_at(tx, ty) {
            Landing::DEAD
        } else if tx >= GOAL_X {
            Landing::GOAL
        } else {
            Landing::on(cell_index(tx, ty))
        }
    }

    /// Whether a specimen placed on `start` can reach the goal within [`REACH_TURNS`] moves.
    /// The start cell itself may be deadly: a new specimen gets one move off it.
    fn reaches_goal(&self, start: u16) -> bool {
        let mut seen = vec![false; CELLS];
        seen[start as usize] = true;
        let mut frontier = vec![start];
        let mut next = Vec::new();
        for _ in 0..REACH_TURNS {
            for &cell in &frontier {
                for landing in self.landings[cell as usize] {
                    if landing == Landing::GOAL {
                        return true;
                    }
                    if let Some(c) = landing.cell()
                        && !seen[c as usize]
                    {
                        seen[c as usize] = true;
                        next.push(c);
                    }
                }
            }
            if next.is_empty() {
                return false;
            }
            std::mem::swap(&mut frontier, &mut next);
            next.clear();
        }
        false
    }

    /// Row `y`'s colours as hex digits, one per cell.
    pub(crate) fn colour_row(&self, y: i32) -> String {
        (0..WIDTH)
            .map(|x| format!("{:x}", self.colour_at(x, y)))
            .collect()
    }

    /// The track as text: the colour of every cell as a hex digit, then what every cell is.
    pub(crate) fn render(&self) -> String {
        let mut out = String::from("colours:\n");
        for (colour, kind) in self.kinds.iter().enumerate() {
            out.push_str(&format!("  {colour:x}: {kind}\n"));
        }
        out.push_str("cells (hex colour):\n");
        for y in 0..HEIGHT {
            out.push_str("  ");
            out.push_str(&self.colour_row(y));
            out.push('\n');
        }
        out.push_str("cells (S start, . empty, T teleporter, t trap, # wall, ! deadly, G goal):\n");
        for y in 0..HEIGHT {
            out.push_str("  ");
            for x in 0..WIDTH {
                let cell = cell_index(x, y);
                let c = if self.starts.contains(&cell) {
                    'S'
                } else if x >= GOAL_X {
                    if self.deadly[cell as usize] { '!' } else { 'G' }
                } else {
                    match self.kinds[self.colours[cell as usize] as usize] {
                        Kind::Wall => '#',
                        _ if self.deadly[cell as usize] => '!',
                        Kind::Teleporter(..) => 'T',
                        Kind::Trap(..) => 't',
                        Kind::Empty => '.',
                    }
                };
                out.push(c);
            }
            out.push('\n');
        }
        out.push_str(&format!("start cells: {}\n", self.starts.len()));
        out
    }
}

fn inside(x: i32, y: i32) -> bool {
    (0..WIDTH).contains(&x) && (0..HEIGHT).contains(&y)
}
