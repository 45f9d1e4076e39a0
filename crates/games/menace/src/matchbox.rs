//! MENACE: Donald Michie's matchbox learner (1961). One matchbox per position on which it is to
//! move, up to symmetry; beads name squares of the box's own (canonical) board.
//!
//! ## The matchbox file
//!
//! A text file, one box per line after two header lines; `#` starts a comment line:
//!
//! ```text
//! menace-matchboxes 1
//! schedule 4 3 2 1
//! 1 ......... LL:4 LM:4 LR:4 ML:4 MM:4 MR:4 RL:4 RM:4 RR:4
//! 2 X...O.... LM:3 LR:3 MR:3 RR:3
//! ```
//!
//! Each box line is MENACE's move number (1–4), the canonical board (9 characters, row by row
//! from the top left, `X`, `O` or `.`), then its beads as `SQUARE:COUNT` with SQUARE the
//! two-letter name (row L/M/R = top/middle/bottom, column L/M/R = left/middle/right) of a square
//! of that canonical board. An empty box has no beads. The file must list all 304 boxes.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, bail};
use rand::RngExt;

use super::rules::{Board, Mark, Outcome, square_name};
use koth_game::seed::Rng;

/// Beads per free square in a new box, by MENACE's move number 1..4 (Michie's schedule).
pub const MICHIE_SCHEDULE: [u32; 4] = [4, 3, 2, 1];

/// Beads put into a box found empty, each on a random free square (the seed's rule).
const REFILL_BEADS: u32 = 3;

/// One matchbox: a canonical board and how many beads name each of its squares.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Matchbox {
    pub board: Board,
    /// MENACE's move number (1–4) on this board.
    pub move_number: usize,
    pub beads: [u32; 9],
}

impl Matchbox {
    pub(crate) fn total(&self) -> u32 {
        self.beads.iter().sum()
    }

    /// The box as one line of the matchbox file.
    pub(crate) fn line(&self) -> String {
        let mut line = format!("{} {}", self.move_number, self.board.cells());
        for (square, &count) in self.beads.iter().enumerate() {
            if count > 0 {
                let _ = write!(line, " {}:{count}", square_name(square));
            }
        }
        line
    }
}

/// A bead MENACE took out during the current game, to settle when the game ends.
#[derive(Debug, Clone, Copy)]
struct DrawnBead {
    matchbox: usize,
    square: usize,
}

/// The whole machine: its 304 boxes and the beads out of them in the current game.
#[derive(Debug, Clone)]
pub struct Menace {
    schedule: [u32; 4],
    boxes: Vec<Matchbox>,
    /// Box index by the code of its canonical board.
    index: HashMap<u16, usize>,
    drawn: Vec<DrawnBead>,
}

/// Every board on which X is to move, the game is not decided and at least two squares are
/// free, in canonical form, ordered by move number then code: MENACE's boxes.
pub(crate) fn box_boards() -> Vec<Board> {
    let mut seen = std::collections::HashSet::new();
    let mut found = Vec::new();
    // Positions are reached by play from the empty board, so impossible ones never come up.
    let mut stack = vec![Board::empty()];
    let mut visited = std::collections::HashSet::new();
    while let Some(board) = stack.pop() {
        if !visited.insert(board.code()) || board.outcome().is_some() {
            continue;
        }
        let mover = board.to_move();
        if mover == Mark::X && board.free_squares().len() >= 2 {
            let (canonical, _) = board.canonical();
            if seen.insert(canonical.code()) {
                found.push(canonical);
            }
        }
        for square in board.free_squares() {
            stack.push(board.with(square, mover));
        }
    }
    found.sort_by_key(|b| (b.count(Mark::X), b.code()));
    found
}

impl Menace {
    /// A fresh MENACE: every box filled by `schedule` (beads per free square, by move number).
    pub fn new(schedule: [u32; 4]) -> Menace {
        let boxes = box_boards()
            .into_iter()
            .map(|board| {
                let move_number = board.count(Mark::X) + 1;
                let mut beads = [0; 9];
                for square in board.free_squares() {
                    beads[square] = schedule[move_number - 1];
                }
                Matchbox {
                    board,
                    move_number,
                    beads,
                }
            })
            .collect();
        Menace::from_boxes(schedule, boxes)
    }

    fn from_boxes(schedule: [u32; 4], boxes: Vec<Matchbox>) -> Menace {
        let index = boxes
            .iter()
            .enumerate()
            .map(|(i, b)| (b.board.code(), i))
            .collect();
        Menace {
            schedule,
            boxes,
            index,
            drawn: Vec::new(),
        }
    }

    pub(crate) fn boxes(&self) -> &[Matchbox] {
        &self.boxes
    }

    /// The box for `board` and the symmetry taking `board` to the box's board, if MENACE has one.
    pub(crate) fn find_box(&self, board: &Board) -> Option<(usize, super::rules::Symmetry)> {
        let (canonical, symmetry) = board.canonical();
        self.index.get(&canonical.code()).map(|&i| (i, symmetry))
    }

    /// MENACE's move (X) on `board`: draws a bead from the board's box, keeps it out until the
    /// game ends, and maps its square back to the real board. With one free square the move is
    /// forced and there is no box.
    pub(crate) fn choose_move(&mut self, board: &Board, rng: &mut Rng) -> usize {
        let free = board.free_squares();
        let Some((matchbox, symmetry)) = self.find_box(board) else {
            assert_eq!(
                free.len(),
                1,
                "MENACE has a box for every unforced position"
            );
            return free[0];
        };
        let slot = &mut self.boxes[matchbox];
        if slot.total() == 0 {
            let free_in_box = slot.board.free_squares();
            for _ in 0..REFILL_BEADS {
                slot.beads[free_in_box[rng.random_range(0..free_in_box.len())]] += 1;
            }
        }
        let mut pick = rng.random_range(0..slot.total());
        let square = (0..9)
            .find(|&s| {
                if pick < slot.beads[s] {
                    true
                } else {
                    pick -= slot.beads[s];
                    false
                }
            })
            .expect("the pick is below the total");
        slot.beads[square] -= 1;
        self.drawn.push(DrawnBead { matchbox, square });
        symmetry.invert(square)
    }

    /// Settles the game MENACE just finished as X: a win puts every drawn bead back with one
    /// more, a draw puts them back, a loss keeps them out.
    pub(crate) fn finish_game(&mut self, outcome: Outcome) {
        let returned = match outcome {
            Outcome::Won(Mark::X) => 2,
            Outcome::Draw => 1,
            Outcome::Won(Mark::O) => 0,
        };
        for bead in self.drawn.drain(..) {
            self.boxes[bead.matchbox].beads[bead.square] += returned;
        }
    }

    /// Forgets beads drawn in a game that was abandoned: they go back as if it were a draw.
    pub(crate) fn abandon_game(&mut self) {
        self.finish_game(Outcome::Draw);
    }

    /// The matchbox file's text (format in the module documentation).
    pub fn to_text(&self) -> String {
        let mut text = String::from("menace-matchboxes 1\n");
        let s = self.schedule;
        let _ = writeln!(text, "schedule {} {} {} {}", s[0], s[1], s[2], s[3]);
        for matchbox in &self.boxes {
            text.push_str(&matchbox.line());
            text.push('\n');
        }
        text
    }

    /// Reads a matchbox file's text; `origin` names it in errors.
    pub fn from_text(text: &str, origin: &str) -> anyhow::Result<Menace> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        match lines.next() {
            Some((_, "menace-matchboxes 1")) => {}
            _ => bail!("{origin}: the first line must be `menace-matchboxes 1`"),
        }
        let schedule = match lines.next() {
            Some((n, line)) => parse_schedule(line)
                .with_context(|| format!("{origin}:{n}: expected `schedule A B C D`"))?,
            None => bail!("{origin}: the `schedule` line is missing"),
        };
        let fresh = Menace::new(schedule);
        let mut boxes = fresh.boxes.clone();
        let mut given = vec![false; boxes.len()];
        for (n, line) in lines {
            let matchbox = parse_box(line).with_context(|| format!("{origin}:{n}"))?;
            let Some(&i) = fresh.index.get(&matchbox.board.code()) else {
                bail!(
                    "{origin}:{n}: {} is not the canonical board of a MENACE matchbox",
                    matchbox.board.cells()
                );
            };
            if boxes[i].move_number != matchbox.move_number {
                bail!(
                    "{origin}:{n}: this board is MENACE's move {}, not {}",
                    boxes[i].move_number,
                    matchbox.move_number
                );
            }
            if given[i] {
                bail!("{origin}:{n}: a second line for this box");
            }
            given[i] = true;
            boxes[i] = matchbox;
        }
        let missing = given.iter().filter(|g| !**g).count();
        if missing > 0 {
            bail!("{origin}: {missing} of the 304 matchboxes are missing");
        }
        Ok(Menace::from_boxes(schedule, boxes))
    }

    pub(crate) fn save(&self, path: &Path) -> anyhow::Result<()> {
        std::fs::write(path, self.to_text())
            .with_context(|| format!("cannot write matchboxes to {}", path.display()))
    }

    pub(crate) fn load(path: &Path) -> anyhow::Result<Menace> {
        let text = koth_base::text::read(path)?;
        Menace::from_text(&text, &path.display().to_string())
    }

    /// The boxes in `path` if the file exists, else a fresh MENACE with `schedule`.
    pub(crate) fn load_or_new(path: Option<&Path>, schedule: [u32; 4]) -> anyhow::Result<Menace> {
        match path {
            Some(path) if path.exists() => Menace::load(path),
            _ => Ok(Menace::new(schedule)),
        }
    }
}

/// Reads `schedule A B C D`, or `A,B,C,D` as given on the command line.
pub(crate) fn parse_schedule(text: &str) -> anyhow::Result<[u32; 4]> {
    let numbers: Vec<u32> = text
        .trim_start_matches("schedule")
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(|w| {
            w.parse::<u32>()
                .with_context(|| format!("`{w}` is not a count"))
        })
        .collect::<anyhow::Result<_>>()?;
    numbers
        .try_into()
        .map_err(|_| anyhow::anyhow!("expected 4 bead counts, for moves 1 to 4"))
}

/// The most beads a box read from a file may hold: far more than training adds, and far from
/// overflowing the box's `u32` total while training goes on.
const MAX_BOX_BEADS: u32 = 1 << 24;

fn parse_box(line: &str) -> anyhow::Result<Matchbox> {
    let mut words = line.split_whitespace();
    let move_number: usize = words
        .next()
        .and_then(|w| w.parse().ok())
        .context("a box line starts with the move number 1–4")?;
    let board = words
        .next()
        .and_then(Board::parse_cells)
        .context("after the move number comes the 9-character board of X, O and .")?;
    let mut beads = [0; 9];
    for word in words {
        let (name, count) = word
            .split_once(':')
            .with_context(|| format!("`{word}` is not SQUARE:COUNT"))?;
        let square = super::rules::parse_square_for_people(name)
            .filter(|_| name.len() == 2)
            .with_context(|| format!("`{name}` is not a square name like LM"))?;
        if !board.is_free(square) {
            bail!("bead on {name}, which is not free on this box's board");
        }
        let count = count
            .parse::<u32>()
            .ok()
            .filter(|&n| n <= MAX_BOX_BEADS)
            .with_context(|| format!("`{count}` is not a bead count (0 to {MAX_BOX_BEADS})"))?;
        beads[square] += count;
        if beads.iter().sum::<u32>() > MAX_BOX_BEADS {
            bail!("more than {MAX_BOX_BEADS} beads in one box");
        }
    }
    Ok(Matchbox {
        board,
        move_number,
        beads,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Symmetry;

    #[test]
    fn three_hundred_and_four_boxes_by_move_number() {
        let menace = Menace::new(MICHIE_SCHEDULE);
        let mut per_move = [0; 4];
        for matchbox in menace.boxes() {
            per_move[matchbox.move_number - 1] += 1;
        }
        assert_eq!(menace.boxes().len(), 304);
        assert_eq!(per_move, [1, 12, 108, 183]);
    }

    #[test]
    fn boxes_hold_beads_only_on_free_squares_by_the_schedule() {
        let menace = Menace::new(MICHIE_SCHEDULE);
        for matchbox in menace.boxes() {
            assert_eq!(matchbox.board.canonical().0, matchbox.board);
            assert!(matchbox.board.outcome().is_none());
            for square in 0..9 {
                let expected = if matchbox.board.is_free(square) {
                    MICHIE_SCHEDULE[matchbox.move_number - 1]
                } else {
                    0
                };
                assert_eq!(matchbox.beads[square], expected, "{}", matchbox.line());
            }
        }
    }

    /// For every box and every symmetry: the board seen through the symmetry finds the box, and
    /// every bead of the box maps back to a free square of the real board that the box's board
    /// holds at the bead's place.
    #[test]
    fn board_to_box_to_bead_to_square_round_trip() {
        let menace = Menace::new(MICHIE_SCHEDULE);
        for (i, matchbox) in menace.boxes().iter().enumerate() {
            for sym in Symmetry::ALL {
                let real = matchbox.board.transformed(sym);
                let (found, to_box) = menace.find_box(&real).expect("a box for every image");
                assert_eq!(found, i);
                assert_eq!(real.transformed(to_box), matchbox.board);
                for bead in matchbox.board.free_squares() {
                    let square = to_box.invert(bead);
                    assert!(real.is_free(square));
                    // Playing the real square and looking through the symmetry gives the box's
                    // board with the bead's square played.
                    assert_eq!(
                        real.with(square, Mark::X).transformed(to_box),
                        matchbox.board.with(bead, Mark::X)
                    );
                }
            }
        }
    }

    #[test]
    fn drawn_move_is_legal_and_reinforced_by_outcome() {
        for (outcome, back) in [
            (Outcome::Won(Mark::X), 2),
            (Outcome::Draw, 1),
            (Outcome::Won(Mark::O), 0),
        ] {
            let mut menace = Menace::new(MICHIE_SCHEDULE);
            let mut rng = koth_game::seed::rng(7, 0);
            // A non-canonical board of move 2, so the symmetry matters.
            let board = Board::parse_cells("......O.X").unwrap();
            let (i, to_box) = menace.find_box(&board).unwrap();
            let before = menace.boxes()[i].beads;
            let square = menace.choose_move(&board, &mut rng);
            assert!(board.is_free(square));
            let bead = to_box.apply(square);
            let mut expected = before;
            expected[bead] -= 1;
            assert_eq!(menace.boxes()[i].beads, expected, "the bead is out");
            menace.finish_game(outcome);
            expected[bead] += back;
            assert_eq!(menace.boxes()[i].beads, expected, "{outcome:?}");
            // Settled once only.
            menace.finish_game(Outcome::Won(Mark::X));
            assert_eq!(menace.boxes()[i].beads, expected);
        }
    }

    #[test]
    fn an_empty_box_is_refilled_with_three_legal_beads() {
        let mut menace = Menace::new([0, 0, 0, 0]);
        let mut rng = koth_game::seed::rng(1, 0);
        let board = Board::parse_cells("X...O....").unwrap();
        let (i, _) = menace.find_box(&board).unwrap();
        assert_eq!(menace.boxes()[i].total(), 0);
        let square = menace.choose_move(&board, &mut rng);
        assert!(board.is_free(square));
        let matchbox = &menace.boxes()[i];
        assert_eq!(matchbox.total(), 2, "3 beads in, 1 drawn");
        for s in 0..9 {
            assert!(matchbox.beads[s] == 0 || matchbox.board.is_free(s));
        }
        menace.finish_game(Outcome::Won(Mark::X));
        assert_eq!(menace.boxes()[i].total(), 4);
    }

    /// Thousands of games against a random O, with Michie's small late boxes emptied by losses
    /// and refilled: beads still name only free squares of their box's board.
    #[test]
    fn beads_stay_on_free_squares_through_learning() {
        let mut menace = Menace::new(MICHIE_SCHEDULE);
        let mut rng = koth_game::seed::rng(5, 0);
        for _ in 0..3000 {
            let mut board = Board::empty();
            let outcome = loop {
                if let Some(outcome) = board.outcome() {
                    break outcome;
                }
                let square = if board.to_move() == Mark::X {
                    menace.choose_move(&board, &mut rng)
                } else {
                    let free = board.free_squares();
                    free[rng.random_range(0..free.len())]
                };
                assert!(board.is_free(square));
                board = board.with(square, board.to_move());
            };
            menace.finish_game(outcome);
        }
        for matchbox in menace.boxes() {
            for square in 0..9 {
                assert!(matchbox.beads[square] == 0 || matchbox.board.is_free(square));
            }
        }
    }

    #[test]
    fn matchbox_file_round_trip_and_errors() {
        let mut menace = Menace::new([3, 2, 2, 1]);
        let mut rng = koth_game::seed::rng(3, 0);
        menace.choose_move(&Board::empty(), &mut rng);
        menace.finish_game(Outcome::Won(Mark::X));
        let text = menace.to_text();
        let loaded = Menace::from_text(&text, "boxes.txt").unwrap();
        assert_eq!(loaded.boxes(), menace.boxes());
        assert_eq!(loaded.schedule, [3, 2, 2, 1]);

        let bad = text.replace("1 ......... LL:", "1 ......... XX:");
        let err = Menace::from_text(&bad, "boxes.txt").unwrap_err();
        assert!(format!("{err:#}").contains("boxes.txt:3"), "{err:#}");
        let short: String = text.lines().take(10).map(|l| format!("{l}\n")).collect();
        let err = Menace::from_text(&short, "boxes.txt").unwrap_err();
        assert!(format!("{err:#}").contains("296 of the 304"), "{err:#}");
    }
}
