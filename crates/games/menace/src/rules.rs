//! The noughts & crosses board: marks, wins, the 8 symmetries of the square, and the spellings of
//! a square that people and bots use.
//!
//! Squares are numbered 0..8 row by row from the top left, so square `3 * row + column`.

use std::fmt;

/// A player's mark. X always moves first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    X,
    O,
}

impl Mark {
    pub(crate) fn other(self) -> Mark {
        match self {
            Mark::X => Mark::O,
            Mark::O => Mark::X,
        }
    }

    pub(crate) fn as_char(self) -> char {
        match self {
            Mark::X => 'X',
            Mark::O => 'O',
        }
    }
}

/// How a finished game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Won(Mark),
    Draw,
}

/// The three lines through each square, all eight of them.
const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

/// The row and column letters of the seed: L, M, R for top, middle, bottom rows and for left,
/// middle, right columns.
const LETTERS: [char; 3] = ['L', 'M', 'R'];

/// A position: which mark, if any, is on each square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Board(pub [Option<Mark>; 9]);

impl Board {
    pub fn empty() -> Board {
        Board::default()
    }

    /// The board with `mark` added on `square`, which must be free.
    pub(crate) fn with(mut self, square: usize, mark: Mark) -> Board {
        debug_assert!(self.0[square].is_none());
        self.0[square] = Some(mark);
        self
    }

    pub(crate) fn is_free(&self, square: usize) -> bool {
        square < 9 && self.0[square].is_none()
    }

    pub(crate) fn free_squares(&self) -> Vec<usize> {
        (0..9).filter(|&s| self.0[s].is_none()).collect()
    }

    pub(crate) fn count(&self, mark: Mark) -> usize {
        self.0.iter().filter(|&&c| c == Some(mark)).count()
    }

    /// Whose turn it is, counting marks (X moves first).
    pub(crate) fn to_move(self) -> Mark {
        if self.count(Mark::X) > self.count(Mark::O) {
            Mark::O
        } else {
            Mark::X
        }
    }

    /// The outcome if the game is over.
    pub(crate) fn outcome(&self) -> Option<Outcome> {
        for line in LINES {
            if let Some(mark) = self.0[line[0]]
                && self.0[line[1]] == Some(mark)
                && self.0[line[2]] == Some(mark)
            {
                return Some(Outcome::Won(mark));
            }
        }
        if self.0.iter().all(Option::is_some) {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    /// The board as a base-3 number (empty 0, X 1, O 2; square 0 most significant): a compact
    /// key, and the order that picks each matchbox's canonical board.
    pub(crate) fn code(&self) -> u16 {
        self.0.iter().fold(0, |acc, cell| {
            acc * 3
                + match cell {
                    None => 0,
                    Some(Mark::X) => 1,
                    Some(Mark::O) => 2,
                }
        })
    }

    /// The 9-character spelling of the protocol and the matchbox file: `X`, `O` or `.` per
    /// square, row by row.
    pub(crate) fn cells(&self) -> String {
        self.0
            .iter()
            .map(|c| c.map_or('.', Mark::as_char))
            .collect()
    }

    /// Reads the 9-character spelling of [`Board::cells`].
    pub(crate) fn parse_cells(text: &str) -> Option<Board> {
        let chars: Vec<char> = text.chars().collect();
        if chars.len() != 9 {
            return None;
        }
        let mut board = Board::empty();
        for (square, c) in chars.into_iter().enumerate() {
            board.0[square] = match c {
                '.' => None,
                'X' | 'x' => Some(Mark::X),
                'O' | 'o' => Some(Mark::O),
                _ => return None,
            };
        }
        Some(board)
    }

    /// The board seen through `symmetry`: the mark on square `s` moves to `symmetry.apply(s)`.
    pub(crate) fn transformed(&self, symmetry: Symmetry) -> Board {
        let mut out = Board::empty();
        for square in 0..9 {
            out.0[symmetry.apply(square)] = self.0[square];
        }
        out
    }

    /// The board's canonical form (the least code among its 8 images) and a symmetry that
    /// takes this board to it.
    pub(crate) fn canonical(&self) -> (Board, Symmetry) {
        Symmetry::ALL
            .iter()
            .map(|&sym| (self.transformed(sym), sym))
            .min_by_key(|(board, _)| board.code())
            .expect("there are 8 symmetries")
    }
}

/// Shows the board with its row and column letters, as the interactive game prints it.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "   L M R")?;
        for (row, letter) in LETTERS.iter().enumerate() {
            write!(f, "{letter} ")?;
            for col in 0..3 {
                write!(f, " {}", self.0[3 * row + col].map_or('.', Mark::as_char))?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// One of the 8 symmetries of the square: `flip` (mirror left-right) first, then `turns`
/// quarter turns clockwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Symmetry {
    flip: bool,
    turns: u8,
}

impl Symmetry {
    pub(crate) const ALL: [Symmetry; 8] = {
        let mut all = [Symmetry {
            flip: false,
            turns: 0,
        }; 8];
        let mut i = 0;
        while i < 8 {
            all[i] = Symmetry {
                flip: i >= 4,
                turns: (i % 4) as u8,
            };
            i += 1;
        }
        all
    };

    /// Where `square` goes under this symmetry.
    pub(crate) fn apply(self, square: usize) -> usize {
        let (mut row, mut col) = (square / 3, square % 3);
        if self.flip {
            col = 2 - col;
        }
        for _ in 0..self.turns {
            (row, col) = (col, 2 - row);
        }
        3 * row + col
    }

    /// Where `square` came from: the inverse of [`Symmetry::apply`].
    pub(crate) fn invert(self, square: usize) -> usize {
        (0..9)
            .find(|&s| self.apply(s) == square)
            .expect("a symmetry is a permutation of the 9 squares")
    }
}

/// The two-letter name of a square: row (L/M/R = top/middle/bottom) then column (L/M/R =
/// left/middle/right).
pub fn square_name(square: usize) -> String {
    format!("{}{}", LETTERS[square / 3], LETTERS[square % 3])
}

/// Reads a square as two letters (`LM`, any case, row first) or a digit 1–9 (row by row from
/// the top left, as on the printed board).
pub(crate) fn parse_square_for_people(text: &str) -> Option<usize> {
    let text = text.trim();
    if let Ok(n) = text.parse::<usize>() {
        return (1..=9).contains(&n).then(|| n - 1);
    }
    parse_letters(text)
}

/// Reads a square as two letters, any case, row first (`LM`).
pub(crate) fn parse_letters(text: &str) -> Option<usize> {
    let letters: Vec<char> = text.chars().map(|c| c.to_ascii_uppercase()).collect();
    let [row, col] = letters[..] else {
        return None;
    };
    let row = LETTERS.iter().position(|&l| l == row)?;
    let col = LETTERS.iter().position(|&l| l == col)?;
    Some(3 * row + col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries_are_eight_distinct_permutations() {
        let images: std::collections::HashSet<Vec<usize>> = Symmetry::ALL
            .iter()
            .map(|&sym| (0..9).map(|s| sym.apply(s)).collect())
            .collect();
        assert_eq!(images.len(), 8);
        for image in images {
            let mut sorted = image.clone();
            sorted.sort();
            assert_eq!(sorted, (0..9).collect::<Vec<_>>());
            assert_eq!(image[4], 4, "the centre stays put");
        }
    }

    #[test]
    fn square_spellings() {
        assert_eq!(parse_square_for_people("LL"), Some(0));
        assert_eq!(parse_square_for_people(" mr "), Some(5));
        assert_eq!(parse_square_for_people("RM"), Some(7));
        assert_eq!(parse_square_for_people("9"), Some(8));
        assert_eq!(parse_square_for_people("0"), None);
        assert_eq!(parse_square_for_people("LX"), None);
        assert_eq!(square_name(5), "MR");
    }

    #[test]
    fn wins_and_draws() {
        let board = Board::parse_cells("XXXOO....").unwrap();
        assert_eq!(board.outcome(), Some(Outcome::Won(Mark::X)));
        let board = Board::parse_cells("XOXXOOOXX").unwrap();
        assert_eq!(board.outcome(), Some(Outcome::Draw));
        let board = Board::parse_cells("X.O.XO..O").unwrap();
        assert_eq!(board.outcome(), Some(Outcome::Won(Mark::O)));
        assert_eq!(Board::empty().outcome(), None);
    }
}
