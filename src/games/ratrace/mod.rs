//! The Genetic Rat Race (rules in `/work/shared/spec/ratrace.md`): one player's specimens evolve
//! on random tracks; a run's score is the geometric mean of its boards' points.
//!
//! - [`track`]: a board's colours and the tables derived from them (views, landings, starts).
//! - [`board`]: the population, a turn, breeding, a whole board.
//! - [`player`]: the `Player` trait and the built-in players.
//! - [`protocol`] and [`subprocess`]: players that are external processes.
//! - [`game`]: a match, as `koth ratrace` and the tournament runner both play it.
//! - [`recording`]: a board's positions turn by turn, for the web viewer.
//! - [`run`]: a run's boards on parallel jobs, one record per board.
//! - [`cli`], [`plot`]: the `koth ratrace` command and its plots.

pub mod board;
pub mod cli;
pub mod game;
pub mod player;
pub mod plot;
pub mod protocol;
pub mod recording;
pub mod run;
pub mod subprocess;
pub mod track;

pub use game::RatRace;
