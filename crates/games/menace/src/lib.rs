//! MENACE and noughts & crosses ("tictactoe"); the rules are in `docs/games/menace.md`.
//!
//! - [`rules`]: the board, wins, the 8 symmetries and the spellings of a square.
//! - [`protocol`]: every line exchanged with a bot, written and read.
//! - [`play`]: games between any two players and the [`Game`] for tournaments.
//! - [`matchbox`]: MENACE itself — its 304 matchboxes, bead drawing, reinforcement, the file.
//! - [`perfect`]: the minimax player.
//! - [`cli`]: `koth menace play | match | train`.
//!
//! [`Game`]: koth_game::Game

pub mod cli;
pub mod matchbox;
pub(crate) mod perfect;
pub mod play;
pub mod protocol;
pub mod rules;
pub mod viewer;
