//! The test tree's second newcomer game, Colonel Blotto for 2 to 6 bots (`game.rs`), added to
//! koth through the registry alone as lowbid is, then koth's whole command line run as it is.
//! `tests/it/game_doors.rs` puts it through every check it puts koth's own games through.

mod game;

use std::process::ExitCode;

use koth::game::registry::{self, Registered};

fn main() -> ExitCode {
    let mut games = koth::games::registry();
    games.push(Registered::new(&game::Blotto, Some(game::command)));
    registry::install(games);
    koth::command::main()
}
