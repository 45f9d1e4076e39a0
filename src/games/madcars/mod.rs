//! Mad Cars, the Mail.Ru Mini AI Cup #3 (2018) physics duel ("madcars"); its rules are in
//! `docs/games/madcars.md`. The physics is the organisers' own: Chipmunk 7 through FFI, built
//! as their server built it.
//!
//! - [`maps`] and [`cars`]: the organisers' six maps and three cars, as data.
//! - [`physics`]: Chipmunk 7, the C library, behind a safe [`physics::Space`].
//! - [`rules`]: a match's world — its space built in the organisers' order, commands, deaths,
//!   the deadline and the rest ticks.
//! - [`protocol`] and [`pyjson`]: the messages, written as the organisers' Python wrote them,
//!   and the reading of answers.
//! - [`play`]: a game of matches between two bots, and the [`Game`] for tournaments.
//! - [`cli`]: `koth madcars`.
//!
//! [`Game`]: crate::game::Game

pub(crate) mod cars;
pub mod cli;
pub(crate) mod maps;
pub(crate) mod physics;
pub mod play;
pub(crate) mod protocol;
pub(crate) mod pyjson;
pub(crate) mod rules;

pub use play::MadCars;
