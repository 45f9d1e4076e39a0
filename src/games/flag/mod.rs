//! Reach the Flag, solved by a genetic algorithm ("flag"); its rules are
//! `../shared/spec/flag.md`.
//!
//! - [`level`]: level files, the movement rules and the seed's fitness of a walk.
//! - [`exact`]: the exact solver, a shortest solution or a proof that none exists.
//! - [`ga`]: the seed's genetic algorithm.
//! - [`play`]: flag as a koth game: a solver bot gets levels over the line protocol.
//! - [`cli`]: `koth flag solve | exact | play`.

pub mod cli;
pub mod exact;
pub mod ga;
pub mod level;
pub mod play;
