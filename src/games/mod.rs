//! One module per game, each holding that game's whole rules, and the registry of those that
//! the tournament runner can schedule.

pub mod flag;
pub mod madcars;
pub mod menace;
pub mod paths;
pub mod ratrace;

use crate::game::Game;

/// Every game the tournament runner can schedule, by name.
pub fn all() -> Vec<&'static dyn Game> {
    vec![
        &paths::Paths,
        &ratrace::RatRace,
        &menace::play::TicTacToe,
        &*flag::play::SHIPPED,
        &madcars::MadCars,
    ]
}

/// The names of every game, in the registry's order.
pub fn names() -> Vec<&'static str> {
    all().into_iter().map(|g| g.name()).collect()
}

/// The game called `name`, if koth has it.
pub fn by_name(name: &str) -> Option<&'static dyn Game> {
    all().into_iter().find(|g| g.name() == name)
}
