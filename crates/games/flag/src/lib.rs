//! Reach the Flag, solved by a genetic algorithm ("flag"); its rules are in
//! `docs/games/flag.md`.
//!
//! - [`rules`]: level files, the movement rules and the seed's fitness of a walk.
//! - [`protocol`]: the question for a level and the reading of a bot's answer.
//! - [`play`]: flag as a koth game: a solver bot gets levels over the line protocol.
//! - [`exact`]: the exact solver, a shortest solution or a proof that none exists.
//! - [`ga`]: the seed's genetic algorithm.
//! - [`cli`]: `koth flag solve | exact | play`.

pub mod cli;
pub(crate) mod exact;
pub mod ga;
pub mod play;
pub(crate) mod protocol;
pub mod rules;
pub mod viewer;
