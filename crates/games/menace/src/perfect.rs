//! The perfect player: minimax over the whole game, memoised by board.

use std::collections::HashMap;
use std::sync::OnceLock;

use rand::RngExt;

use super::rules::{Board, Outcome};
use koth_game::seed::Rng;

/// The value of a position for the player to move: 1 win, 0 draw, -1 loss with best play.
pub(crate) fn value(board: &Board) -> i8 {
    static MEMO: OnceLock<HashMap<u16, i8>> = OnceLock::new();
    let memo = MEMO.get_or_init(|| {
        let mut memo = HashMap::new();
        solve(Board::empty(), &mut memo);
        memo
    });
    // Every position reachable by play is in the table; only hand-made ones need solving here.
    match memo.get(&board.code()) {
        Some(&v) => v,
        None => solve(*board, &mut HashMap::new()),
    }
}

fn solve(board: Board, memo: &mut HashMap<u16, i8>) -> i8 {
    if let Some(&v) = memo.get(&board.code()) {
        return v;
    }
    let mover = board.to_move();
    let v = match board.outcome() {
        // The previous player completed a line, so the player to move has lost.
        Some(Outcome::Won(_)) => -1,
        Some(Outcome::Draw) => 0,
        None => board
            .free_squares()
            .into_iter()
            .map(|s| -solve(board.with(s, mover), memo))
            .max()
            .expect("an undecided board has a free square"),
    };
    memo.insert(board.code(), v);
    v
}

/// The squares that keep the best value for the player to move.
pub(crate) fn best_moves(board: &Board) -> Vec<usize> {
    let mover = board.to_move();
    let scored: Vec<(usize, i8)> = board
        .free_squares()
        .into_iter()
        .map(|s| (s, -value(&board.with(s, mover))))
        .collect();
    let best = scored.iter().map(|&(_, v)| v).max().unwrap_or(0);
    scored
        .into_iter()
        .filter(|&(_, v)| v == best)
        .map(|(s, _)| s)
        .collect()
}

/// A best move, chosen at random among equally good ones so that learners see variety.
pub(crate) fn choose_move(board: &Board, rng: &mut Rng) -> usize {
    let moves = best_moves(board);
    moves[rng.random_range(0..moves.len())]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Mark;

    /// The worst outcome (for `me`) over every opponent reply and every best move of the perfect
    /// player from `board`: 1 win, 0 draw, -1 loss.
    fn worst_case(board: Board, me: Mark) -> i8 {
        match board.outcome() {
            Some(Outcome::Won(m)) => return if m == me { 1 } else { -1 },
            Some(Outcome::Draw) => return 0,
            None => {}
        }
        let mover = board.to_move();
        let moves = if mover == me {
            best_moves(&board)
        } else {
            board.free_squares()
        };
        moves
            .into_iter()
            .map(|s| worst_case(board.with(s, mover), me))
            .min()
            .expect("a move")
    }

    #[test]
    fn the_empty_board_is_a_draw() {
        assert_eq!(value(&Board::empty()), 0);
    }

    /// From every reachable position, whichever side the perfect player takes, no opponent can
    /// make it do worse than the position allows, and it never loses a position that is not
    /// already lost.
    #[test]
    fn minimax_never_loses_from_any_reachable_position() {
        let mut stack = vec![Board::empty()];
        let mut seen = std::collections::HashSet::new();
        let mut checked = 0;
        while let Some(board) = stack.pop() {
            if !seen.insert(board.code()) || board.outcome().is_some() {
                continue;
            }
            let me = board.to_move();
            let worst = worst_case(board, me);
            assert!(worst >= value(&board), "{} as {me:?}", board.cells());
            if value(&board) >= 0 {
                assert!(worst >= 0, "perfect lost from {}", board.cells());
            }
            checked += 1;
            for s in board.free_squares() {
                stack.push(board.with(s, me));
            }
        }
        assert_eq!(checked, 4520, "undecided positions reachable by play");
        assert_eq!(worst_case(Board::empty(), Mark::X), 0);
        assert_eq!(worst_case(Board::empty(), Mark::O), 0);
    }
}
