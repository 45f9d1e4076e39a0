//! What several test modules share: bot folders, koth runs, and readers of what they leave.

pub mod arena;
pub mod cpus;
pub mod hostile;
pub mod paths_bots;
pub mod paths_files;
pub mod postgres;
pub mod ratrace;
pub mod signals;
pub mod survivors;
pub mod tournament;
pub mod viewer_files;

/// koth's games, installed as this test process's registry as `koth`'s `main` installs them.
pub fn installed_games() {
    koth::games::install();
}

/// The game of koth's registry called `name`.
pub fn koth_game(name: &str) -> &'static dyn koth::game::Game {
    installed_games();
    koth::game::registry::by_name(name).unwrap_or_else(|| panic!("{name} is registered"))
}
