//! One module per game, each holding that game's whole rules, and the registry of those that
//! the tournament runner can schedule.

pub mod flag;
pub mod madcars;
pub mod menace;
pub mod nim;
pub mod paths;
pub mod ratrace;

use crate::game::{Game, GameCommand};

/// A game of the registry: the game, and its own command if it has one.
struct Entry {
    game: fn() -> &'static dyn Game,
    command: Option<fn() -> GameCommand>,
}

impl Entry {
    const fn new(game: fn() -> &'static dyn Game, command: Option<fn() -> GameCommand>) -> Entry {
        Entry { game, command }
    }
}

/// The registry: every game koth has, one line each, in the order commands and lists show them.
const REGISTRY: &[Entry] = &[
    Entry::new(|| &paths::Paths, Some(paths::cli::command)),
    Entry::new(|| &ratrace::RatRace, Some(ratrace::cli::command)),
    Entry::new(|| &menace::play::TicTacToe, Some(menace::cli::command)),
    Entry::new(|| &*flag::play::SHIPPED, Some(flag::cli::command)),
    Entry::new(|| &madcars::MadCars, Some(madcars::cli::command)),
    Entry::new(|| &nim::Nim, None),
];

/// Every game, by name: what tournaments, replays and the dashboard choose from.
pub fn all() -> Vec<&'static dyn Game> {
    REGISTRY.iter().map(|entry| (entry.game)()).collect()
}

/// The games' own commands (`koth <command>`), for `main.rs`; a game without one is played
/// in tournaments only.
pub fn commands() -> Vec<GameCommand> {
    REGISTRY
        .iter()
        .filter_map(|entry| entry.command.map(|command| command()))
        .collect()
}

/// Whether the game called `name` has a command of its own.
pub fn has_command(name: &str) -> bool {
    REGISTRY
        .iter()
        .any(|entry| (entry.game)().name() == name && entry.command.is_some())
}

/// The names of every game, in the registry's order.
pub fn names() -> Vec<&'static str> {
    all().into_iter().map(|g| g.name()).collect()
}

/// The game called `name`, if koth has it.
pub fn by_name(name: &str) -> Option<&'static dyn Game> {
    all().into_iter().find(|g| g.name() == name)
}
