//! koth: a king-of-the-hill tournament server.
//!
//! koth is a workspace of crates in floors; each crate names only the ones below it, and the
//! compiler holds it to that (ARCHITECTURE.md):
//! - [`base`] (`koth-base`): the helpers every crate may use (text from outside and names,
//!   CPUs, log and cache folders, interruption), knowing no bot and no game.
//! - [`bot`] (`koth-bot`): bot processes over a line protocol (spawn, contain, lines, time
//!   limits, faults) and the lists of bots to start. It knows nothing about any game.
//! - [`game`] (`koth-game`): the small interface every game implements, the result of a match,
//!   the loops of a duel and of bots answering together, the registry of games as installed,
//!   and what every game's command shares; [`ranking`] (`koth-ranking`): how results become a
//!   table; [`replay`] (`koth-replay`): the viewer kit every game's viewers build on.
//! - [`games`]: one crate per game (`koth-paths`, `koth-ratrace`, ...), each holding that game's
//!   whole rules and viewers.
//! - [`tournament`], [`hill`] and [`serve`] (the web door), reaching games only through the
//!   registry, and [`command`], the command line (`main.rs` installs koth's games, then runs it).
//!
//! This package re-exports each crate under its floor's name, so a test or benchmark reads
//! `koth::bot`, `koth::games::paths` whichever crate holds it.

pub mod command;
pub mod games;

pub use koth_base as base;
pub use koth_bot as bot;
pub use koth_game as game;
pub use koth_game::{cli, seed, stats};
pub use koth_hill as hill;
pub use koth_ranking as ranking;
pub use koth_replay as replay;
pub use koth_serve as serve;
pub use koth_tournament as tournament;
