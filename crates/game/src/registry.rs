//! The games this koth has, installed once at start by the command line (`koth::command::main`,
//! handed `koth::games::registry()`, or any list a program of its own makes), and read by
//! every floor above the games without naming one: tournaments, hills, workers, the leaderboard,
//! the dashboard, `koth replay` and `--help`. So a game is its folder and its line in the list
//! that is installed, and the floors above need not depend on the games they play.

use std::sync::OnceLock;

use super::{Game, GameCommand};

/// A game of the registry: the game, and its own command (`koth <name>`) if it has one.
#[derive(Clone, Copy)]
pub struct Registered {
    pub game: &'static dyn Game,
    pub command: Option<fn() -> GameCommand>,
}

impl Registered {
    pub const fn new(game: &'static dyn Game, command: Option<fn() -> GameCommand>) -> Registered {
        Registered { game, command }
    }
}

static GAMES: OnceLock<Vec<Registered>> = OnceLock::new();

/// Installs `games`, in the order commands and lists show them, unless games are installed
/// already (the first list stays: a process has one registry).
pub fn install(games: Vec<Registered>) {
    let _ = GAMES.set(games);
}

/// The games installed, each with its command; none before [`install`].
pub fn registered() -> &'static [Registered] {
    GAMES.get().map_or(&[], Vec::as_slice)
}

/// Every game, by name: what tournaments, replays and the dashboard choose from.
pub fn all() -> Vec<&'static dyn Game> {
    registered().iter().map(|entry| entry.game).collect()
}

/// The games' own commands (`koth <command>`); a game without one is played in tournaments
/// only.
pub fn commands() -> Vec<GameCommand> {
    registered()
        .iter()
        .filter_map(|entry| entry.command.map(|command| command()))
        .collect()
}

/// Whether the game called `name` has a command of its own.
pub fn has_command(name: &str) -> bool {
    registered()
        .iter()
        .any(|entry| entry.game.name() == name && entry.command.is_some())
}

/// The names of every game, in the registry's order.
pub fn names() -> Vec<&'static str> {
    all().into_iter().map(|g| g.name()).collect()
}

/// The game called `name`, if this koth has it.
pub fn by_name(name: &str) -> Option<&'static dyn Game> {
    all().into_iter().find(|g| g.name() == name)
}
