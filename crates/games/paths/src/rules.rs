//! The rules of the Grid-Routing Battle, with no processes or I/O: the grid, one phase of
//! choices, and the scoring search. Everything here is deterministic given its random generator.

use rand::RngExt;
use rand::seq::SliceRandom;

use koth_game::seed::Rng;

/// The most bots a game can hold: owners are bits of a `u64`, and the log has 62 letters.
pub(crate) const MAX_BOTS: usize = 62;

/// The owners of an active vertex, one bit per bot in bot-list order.
pub(crate) type Owners = u64;

/// The side of the grid for `bots` players: floor(4·N²/3), computed in integers.
pub fn side(bots: usize) -> usize {
    4 * bots * bots / 3
}

/// A vertex of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    Inactive,
    Active(Owners),
    Broken,
}

/// A round's scoring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scoring {
    /// Each bot's points.
    pub points: Vec<u64>,
    /// Every vertex a search that reached a sink ran through, as `(x, y, searches)` by index
    /// (`y * side + x`): the paths that paid, for a viewer to draw.
    pub paid: Vec<(usize, usize, u32)>,
}

/// A vertex, as `(x, y)` with `(0, 0)` bottom-left.
pub(crate) type Vertex = (usize, usize);

/// The S × S grid of one round.
#[derive(Debug, Clone)]
pub struct Grid {
    side: usize,
    /// Row-major from the bottom row: index `y * side + x`.
    cells: Vec<Cell>,
}

impl Grid {
    pub(crate) fn new(side: usize) -> Grid {
        Grid {
            side,
            cells: vec![Cell::Inactive; side * side],
        }
    }

    pub fn side(&self) -> usize {
        self.side
    }

    pub fn cell(&self, (x, y): Vertex) -> Cell {
        self.cells[y * self.side + x]
    }

    /// The vertex named by signed coordinates, if it lies on the grid. Coordinates are not taken
    /// modulo the side: a bot naming `x = S` has a bug worth reporting.
    pub(crate) fn vertex(&self, x: i64, y: i64) -> Option<Vertex> {
        let side = self.side as i64;
        ((0..side).contains(&x) && (0..side).contains(&y)).then_some((x as usize, y as usize))
    }

    /// The destruction phase: breaks every inactive vertex named, and returns each bot's choice
    /// as reported (`None` for no choice or an invalid one). Choices are simultaneous: validity is
    /// judged on the grid as it was before the phase, so every bot naming the same inactive
    /// vertex is reported with it.
    pub(crate) fn destroy(&mut self, choices: &[Option<Vertex>]) -> Vec<Option<Vertex>> {
        let valid = self.valid_choices(choices);
        for vertex in valid.iter().flatten() {
            self.cells[vertex.1 * self.side + vertex.0] = Cell::Broken;
        }
        valid
    }

    /// The activation phase: every bot naming an inactive vertex owns it, together with every
    /// other bot that named it. A vertex broken earlier in the turn is not inactive.
    pub fn activate(&mut self, choices: &[Option<Vertex>]) -> Vec<Option<Vertex>> {
        let valid = self.valid_choices(choices);
        for (bot, vertex) in valid.iter().enumerate() {
            if let Some((x, y)) = *vertex {
                let cell = &mut self.cells[y * self.side + x];
                let owners = match *cell {
                    Cell::Active(owners) => owners,
                    _ => 0,
                };
                *cell = Cell::Active(owners | 1 << bot);
            }
        }
        valid
    }

    fn valid_choices(&self, choices: &[Option<Vertex>]) -> Vec<Option<Vertex>> {
        choices
            .iter()
            .map(|choice| choice.filter(|&v| self.cell(v) == Cell::Inactive))
            .collect()
    }

    /// Scores the round: from every active source, `runs` randomized depth-first searches, each
    /// paying one point per owner of every vertex on its stack when it reaches a sink. Returns the
    /// points of each of `bots` bots, and how many paying searches ran through each vertex.
    pub fn score(&self, bots: usize, runs: usize, rng: &mut Rng) -> Scoring {
        let mut points = vec![0u64; bots];
        let mut search = Search::new(self);
        for x in 0..self.side {
            if !matches!(self.cell((x, 0)), Cell::Active(_)) {
                continue;
            }
            for _ in 0..runs {
                if let Some(path) = search.run(x, rng) {
                    for &index in path {
                        if let Cell::Active(owners) = self.cells[index as usize] {
                            let mut bits = owners;
                            while bits != 0 {
                                points[bits.trailing_zeros() as usize] += 1;
                                bits &= bits - 1;
                            }
                        }
                    }
                }
            }
        }
        // Only the vertices some paying search went through, in index order: walking all S²
        // marks would cost as much as a quarter of the searches on a large grid.
        search.paid.sort_unstable();
        let paid = search
            .paid
            .iter()
            .map(|&v| {
                let v = v as usize;
                (v % self.side, v / self.side, search.marks[v].paid)
            })
            .collect();
        Scoring { points, paid }
    }

    /// The grid as the graphical log draws it: rows top (y = S−1) first, each vertex as its
    /// first owner's letter, `.` when inactive, a space when broken.
    pub fn rows(&self) -> Vec<String> {
        (0..self.side)
            .rev()
            .map(|y| {
                (0..self.side)
                    .map(|x| match self.cell((x, y)) {
                        Cell::Inactive => '.',
                        Cell::Broken => ' ',
                        Cell::Active(owners) => letter(owners.trailing_zeros() as usize),
                    })
                    .collect()
            })
            .collect()
    }
}

/// The letter of the bot at `index` in bot-list order: a–z, then A–Z, then 0–9.
pub(crate) fn letter(index: usize) -> char {
    const LETTERS: &[u8; MAX_BOTS] =
        b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    LETTERS[index] as char
}

/// The scoring search's memory, reused across runs. Visited vertices are marked with the run's
/// stamp instead of a cleared boolean array: clearing S² cells per run would cost more than the
/// search itself on a mostly empty grid. Activity is copied into a byte per vertex because the
/// search is bound by memory: a [`Cell`] takes 16 bytes, and at N = 30 the grid has 1.44 M.
/// For the same reason a vertex's count of paying searches sits beside its stamp, in the cache
/// line the search has just used: in an array of its own it doubled the scoring's time.
struct Search {
    side: usize,
    active: Vec<bool>,
    marks: Vec<Mark>,
    stamp: u32,
    /// The vertices whose `paid` is not 0.
    paid: Vec<u32>,
    /// The DFS stack: each frame is a vertex, its shuffled active children and the next to try.
    frames: Vec<Frame>,
    path: Vec<u32>,
}

/// A vertex's marks: the last run that visited it, and how many runs that reached a sink went
/// through it.
#[derive(Clone, Copy, Default)]
struct Mark {
    stamp: u32,
    paid: u32,
}

struct Frame {
    vertex: u32,
    children: [u32; 3],
    count: u8,
    next: u8,
}

/// The six orders of three children, so that one random number shuffles them.
const ORDERS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

impl Search {
    fn new(grid: &Grid) -> Search {
        Search {
            side: grid.side,
            active: grid
                .cells
                .iter()
                .map(|c| matches!(c, Cell::Active(_)))
                .collect(),
            marks: vec![Mark::default(); grid.cells.len()],
            paid: Vec::new(),
            stamp: 0,
            frames: Vec::new(),
            path: Vec::new(),
        }
    }

    /// One randomized DFS from source `x`; the stack when a sink is reached, if one is.
    fn run(&mut self, x: usize, rng: &mut Rng) -> Option<&[u32]> {
        self.stamp += 1;
        self.frames.clear();
        let sink_row = (self.side - 1) * self.side;
        self.push(x as u32, rng);
        while let Some(top) = self.frames.last_mut() {
            if top.vertex as usize >= sink_row {
                self.path.clear();
                self.path.extend(self.frames.iter().map(|f| f.vertex));
                for &vertex in &self.path {
                    let mark = &mut self.marks[vertex as usize];
                    if mark.paid == 0 {
                        self.paid.push(vertex);
                    }
                    mark.paid += 1;
                }
                return Some(&self.path);
            }
            if top.next == top.count {
                self.frames.pop();
                continue;
            }
            let child = top.children[top.next as usize];
            top.next += 1;
            if self.marks[child as usize].stamp != self.stamp {
                self.push(child, rng);
            }
        }
        None
    }

    /// Marks `vertex` visited and pushes it with its active children in a random order (the
    /// east–west wrap included; on a tiny grid the three may coincide, hence the dedup).
    fn push(&mut self, vertex: u32, rng: &mut Rng) {
        self.marks[vertex as usize].stamp = self.stamp;
        let side = self.side;
        let (x, y) = (vertex as usize % side, vertex as usize / side);
        let mut found = [0u32; 3];
        let mut count = 0;
        if y + 1 < side {
            let row = (y + 1) * side;
            for cx in [(x + side - 1) % side, x, (x + 1) % side] {
                let child = (row + cx) as u32;
                if self.active[child as usize] && !found[..count].contains(&child) {
                    found[count] = child;
                    count += 1;
                }
            }
        }
        let children = match count {
            2 if rng.random_bool(0.5) => [found[1], found[0], 0],
            3 => ORDERS[rng.random_range(0..6)].map(|i| found[i]),
            _ => found,
        };
        self.frames.push(Frame {
            vertex,
            children,
            count: count as u8,
            next: 0,
        });
    }
}

/// Each bot's own random order of the other bots, fixed for a game: `orders[i]` lists bot `i`
/// first, then the others.
pub(crate) fn report_orders(bots: usize, rng: &mut Rng) -> Vec<Vec<usize>> {
    (0..bots)
        .map(|me| {
            let mut others: Vec<usize> = (0..bots).filter(|&b| b != me).collect();
            others.shuffle(rng);
            let mut order = vec![me];
            order.extend(others);
            order
        })
        .collect()
}

/// A realistic end-of-round grid for benchmarks: N² turns of each bot breaking a random vertex
/// and activating one next to its earlier vertices (or a random one).
pub fn random_filled(bots: usize, rng: &mut Rng) -> Grid {
    let side = side(bots);
    let mut grid = Grid::new(side);
    let mut last: Vec<Option<Vertex>> = vec![None; bots];
    for _ in 0..bots * bots {
        let breaks: Vec<Option<Vertex>> = (0..bots)
            .map(|_| Some((rng.random_range(0..side), rng.random_range(0..side))))
            .collect();
        grid.destroy(&breaks);
        let builds: Vec<Option<Vertex>> = last
            .iter()
            .map(|prev| match prev {
                Some((x, y)) if y + 1 < side && rng.random_bool(0.8) => {
                    Some(((x + side + rng.random_range(0..3) - 1) % side, y + 1))
                }
                _ => Some((rng.random_range(0..side), rng.random_range(0..side))),
            })
            .collect();
        let built = grid.activate(&builds);
        for (prev, now) in last.iter_mut().zip(built) {
            if now.is_some() {
                *prev = now;
            }
        }
    }
    grid
}

#[cfg(test)]
mod tests {
    use super::*;
    use koth_game::seed;

    #[test]
    fn grid_sides_follow_four_n_squared_over_three() {
        assert_eq!(
            [1, 2, 3, 8, 9].map(side),
            [1, 5, 12, 85, 108],
            "S = floor(4N²/3)"
        );
    }

    #[test]
    fn worked_example_scores_eight_and_two() {
        let mut grid = Grid::new(side(2));
        for y in 0..4 {
            grid.activate(&[Some((2, y)), None]);
        }
        grid.activate(&[None, Some((2, 4))]);
        let scoring = grid.score(2, 2, &mut seed::rng(1, 0));
        assert_eq!(scoring.points, vec![8, 2]);
        // Both searches paid through the one path, and nowhere else.
        let paid: Vec<(usize, usize, u32)> = (0..5).map(|y| (2, y, 2)).collect();
        assert_eq!(scoring.paid, paid);
    }

    #[test]
    fn a_path_across_the_east_west_seam_is_found() {
        let mut grid = Grid::new(5);
        // (4,0) → (0,1) → (4,2) → (0,3) → (4,4): every step crosses x = S−1 / x = 0.
        for (y, x) in [4, 0, 4, 0, 4].into_iter().enumerate() {
            grid.activate(&[Some((x, y))]);
        }
        assert_eq!(grid.score(1, 1, &mut seed::rng(2, 0)).points, vec![5]);
    }

    #[test]
    fn dead_ends_are_backtracked_and_the_only_path_found() {
        let mut grid = Grid::new(5);
        let path = [(2, 0), (2, 1), (3, 2), (3, 3), (3, 4)];
        let dead_ends = [(1, 2), (2, 2), (1, 3), (2, 3)];
        for v in path.iter().chain(&dead_ends) {
            grid.activate(&[Some(*v)]);
        }
        for stream in 0..20 {
            // Each of 3 runs finds the 5-vertex path, whatever order children are tried in.
            assert_eq!(grid.score(1, 3, &mut seed::rng(3, stream)).points, vec![15]);
        }
    }

    #[test]
    fn no_path_scores_nothing() {
        let mut grid = Grid::new(5);
        for y in 0..4 {
            grid.activate(&[Some((1, y))]);
        }
        assert_eq!(grid.score(1, 1, &mut seed::rng(4, 0)).points, vec![0]);
    }

    #[test]
    fn co_owned_vertices_pay_every_owner() {
        let mut grid = Grid::new(5);
        grid.activate(&[Some((0, 0)), Some((0, 0)), None]);
        for y in 1..5 {
            grid.activate(&[None, None, Some((0, y))]);
        }
        // Three runs (one per bot) over a 5-vertex path whose source is co-owned by a and b.
        assert_eq!(
            grid.score(3, 3, &mut seed::rng(5, 0)).points,
            vec![3, 3, 12]
        );
        assert_eq!(grid.cell((0, 0)), Cell::Active(0b011));
    }

    #[test]
    fn a_single_vertex_grid_is_its_own_source_and_sink() {
        let mut grid = Grid::new(side(1));
        grid.activate(&[Some((0, 0))]);
        assert_eq!(grid.score(1, 1, &mut seed::rng(6, 0)).points, vec![1]);
    }

    #[test]
    fn simultaneous_breaks_report_every_breaker() {
        let mut grid = Grid::new(5);
        let reported = grid.destroy(&[Some((1, 1)), Some((1, 1)), Some((3, 3))]);
        assert_eq!(reported, vec![Some((1, 1)), Some((1, 1)), Some((3, 3))]);
        assert_eq!(grid.cell((1, 1)), Cell::Broken);
    }

    #[test]
    fn a_vertex_broken_this_turn_cannot_be_activated() {
        let mut grid = Grid::new(5);
        grid.destroy(&[Some((2, 2)), None]);
        let reported = grid.activate(&[None, Some((2, 2))]);
        assert_eq!(reported, vec![None, None]);
        assert_eq!(grid.cell((2, 2)), Cell::Broken);
    }

    #[test]
    fn choices_of_vertices_not_inactive_are_reported_as_none() {
        let mut grid = Grid::new(5);
        grid.activate(&[Some((0, 0))]);
        assert_eq!(grid.destroy(&[Some((0, 0))]), vec![None]);
        assert_eq!(grid.activate(&[Some((0, 0))]), vec![None]);
        assert_eq!(grid.cell((0, 0)), Cell::Active(1));
    }

    #[test]
    fn coordinates_off_the_grid_are_no_vertex() {
        let grid = Grid::new(5);
        assert_eq!(grid.vertex(4, 4), Some((4, 4)));
        for (x, y) in [(5, 0), (0, 5), (-1, 0), (0, -1)] {
            assert_eq!(grid.vertex(x, y), None, "({x},{y})");
        }
    }

    #[test]
    fn letters_run_a_to_z_then_capitals_then_digits() {
        assert_eq!(
            [0, 25, 26, 51, 52, 61].map(letter),
            ['a', 'z', 'A', 'Z', '0', '9']
        );
    }

    #[test]
    fn every_bot_reports_itself_first_then_all_others() {
        let orders = report_orders(5, &mut seed::rng(7, 0));
        for (me, order) in orders.iter().enumerate() {
            assert_eq!(order[0], me);
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(sorted, (0..5).collect::<Vec<_>>());
        }
    }
}
