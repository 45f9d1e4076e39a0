//! Noughts & crosses over the line protocol: every line koth writes to a bot, and the reading
//! of its answers.
//!
//! One bot process plays every game of a match. koth writes lines to its stdin:
//!
//! - `START X` or `START O`: a new game begins and the bot plays that mark (X moves first).
//! - `MOVE <board>`: the bot is to move. `<board>` is 9 characters, row by row from the top
//!   left, `X`, `O` or `.` for a free square. The bot answers one line: the square, a digit
//!   `0`–`8` (`3 * row + column`) or two letters (row L/M/R = top/middle/bottom, then column
//!   L/M/R = left/middle/right).
//! - `END WIN`, `END LOSS` or `END DRAW`: the game is over (no answer expected).
//!
//! A bot that answers an occupied or unknown square, answers late or exits loses that game, and
//! the reason is recorded. A bot stopped by a fault is started again for the next game.

use super::rules::{Board, Mark, Outcome, parse_letters};
use koth_bot::quote;

/// A new game begins and the bot plays `mark`.
pub(crate) fn start(mark: Mark) -> String {
    format!("START {}", mark.as_char())
}

/// The bot is to move on `board`.
pub(crate) fn move_prompt(board: &Board) -> String {
    format!("MOVE {}", board.cells())
}

/// The game is over, as the player of `mark` hears it.
pub(crate) fn end(outcome: Outcome, mark: Mark) -> String {
    let word = match outcome {
        Outcome::Draw => "DRAW",
        Outcome::Won(m) if m == mark => "WIN",
        Outcome::Won(_) => "LOSS",
    };
    format!("END {word}")
}

/// The free square a bot playing `mark` answered on `board`, or why the answer loses the game.
pub fn parse_move(answer: &str, board: &Board, mark: Mark) -> Result<usize, String> {
    match parse_square(answer) {
        // A square is one or two characters: a longer line is most likely a debug line.
        None => Err(format!(
            "answered {}, which is not a square (0–8 or two letters like LM){}",
            quote(answer),
            koth_bot::debug_hint(answer.trim().chars().count() <= 2)
        )),
        Some(square) if !board.is_free(square) => Err(format!(
            "answered {} as {}: square {square} is taken on {}",
            quote(answer.trim()),
            mark.as_char(),
            board.cells()
        )),
        Some(square) => Ok(square),
    }
}

/// Reads a square as a bot writes it: a digit 0–8 or two letters.
fn parse_square(text: &str) -> Option<usize> {
    let text = text.trim();
    if let Ok(n) = text.parse::<usize>() {
        return (n < 9).then_some(n);
    }
    parse_letters(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_is_a_free_square_as_a_digit_or_two_letters() {
        let board = Board::empty().with(4, Mark::X);
        assert_eq!(parse_move("0", &board, Mark::O), Ok(0));
        assert_eq!(parse_move(" rr\n", &board, Mark::O), Ok(8));
        assert!(
            parse_move("9", &board, Mark::O)
                .unwrap_err()
                .contains("not a square")
        );
        assert!(
            parse_move("MM", &board, Mark::O)
                .unwrap_err()
                .contains("taken")
        );
        assert_eq!(end(Outcome::Won(Mark::X), Mark::O), "END LOSS");
        assert_eq!(start(Mark::O), "START O");
    }
}
