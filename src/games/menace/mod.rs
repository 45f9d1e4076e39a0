//! MENACE and noughts & crosses ("tictactoe"); the rules are `../shared/spec/menace.md`.
//!
//! - [`board`]: the board, wins, the 8 symmetries and the spellings of a square.
//! - [`matchbox`]: MENACE itself — its 304 matchboxes, bead drawing, reinforcement, the file.
//! - [`perfect`]: the minimax player.
//! - [`tictactoe`]: games between any two players, the bot protocol, and the [`Game`] for
//!   tournaments.
//!
//! [`Game`]: crate::game::Game

pub mod board;
pub mod cli;
pub mod matchbox;
pub mod perfect;
pub mod tictactoe;
