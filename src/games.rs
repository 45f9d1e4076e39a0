//! koth's games, one crate each (`crates/games/<game>/`) holding that game's whole rules and
//! viewers, and the registry of them, which the command line installs
//! ([`koth_game::registry`]). This is the one place that names them all.

pub use koth_flag as flag;
pub use koth_madcars as madcars;
pub use koth_menace as menace;
pub use koth_nim as nim;
pub use koth_paths as paths;
pub use koth_ratrace as ratrace;

use koth_game::registry::{self, Registered};

/// The registry: every game koth has, one line each, in the order commands and lists show them.
pub fn registry() -> Vec<Registered> {
    vec![
        Registered::new(&paths::Paths, Some(paths::cli::command)),
        Registered::new(&ratrace::RatRace, Some(ratrace::cli::command)),
        Registered::new(&menace::play::TicTacToe, Some(menace::cli::command)),
        Registered::new(&*flag::play::SHIPPED, Some(flag::cli::command)),
        Registered::new(&madcars::MadCars, Some(madcars::cli::command)),
        Registered::new(&nim::Nim, None),
    ]
}

/// Installs koth's games ([`registry`]) as the process's registry, unless one is installed
/// already: what `koth`'s `main` does first, and a test that plays a game through the registry.
pub fn install() {
    registry::install(registry());
}
