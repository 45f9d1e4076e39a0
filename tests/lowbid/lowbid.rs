//! A throw-away game for koth's tests, added to koth through the registry alone: "lowest unique
//! bid" (`game.rs`), installed beside koth's own games, then koth's whole command line run as
//! it is. `tests/it/registry_game.rs` finds the game in every command; `docs/adding-a-game.md`
//! walks through it.

mod game;

use std::process::ExitCode;

use koth::game::registry::{self, Registered};

fn main() -> ExitCode {
    let mut games = koth::games::registry();
    games.push(Registered::new(&game::LowBid, Some(game::command)));
    registry::install(games);
    koth::command::main()
}
