//! The Genetic Rat Race (rules in `docs/games/ratrace.md`): one player's specimens evolve on
//! random tracks; a run's score is the geometric mean of its boards' points.
//!
//! - [`track`]: a board's colours and the tables derived from them (views, landings, starts).
//! - [`rules`]: the population, a turn, breeding and points.
//! - [`player`]: the `Player` trait and the built-in players.
//! - [`protocol`] and [`subprocess`]: players that are bots, over the text or the lean protocol.
//! - [`direct`]: a player that is a WASI module koth calls per specimen, with no text.
//! - [`play`]: a match — a run's boards on parallel jobs, one record per board — as
//!   `koth ratrace` and the tournament runner both play it.
//! - [`recording`]: a board's positions turn by turn, for the web viewer.
//! - [`cli`], [`plot`]: the `koth ratrace` command and its plots.

pub(crate) mod boards;
pub mod cli;
pub(crate) mod direct;
mod game;
pub(crate) mod play;
pub(crate) mod player;
pub(crate) mod plot;
pub mod protocol;
pub mod recording;
pub(crate) mod rules;
pub(crate) mod subprocess;
pub mod track;
pub mod viewer;

pub use game::RatRace;
