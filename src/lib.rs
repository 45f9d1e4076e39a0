//! koth: a king-of-the-hill tournament server.
//!
//! The crate is layered; each layer knows only the ones below it:
//! - [`bot`]: bot processes over a line protocol (spawn, lines, time limits, faults) and the
//!   lists of bots to start. It knows nothing about any game.
//! - [`game`]: the small interface every game implements, the result of a match, the loops of
//!   a duel and of bots answering together, and the registry of games as installed.
//! - [`replay`]: the viewer kit every game's viewers build on.
//! - [`games`]: one module per game, each holding that game's whole rules and viewers.
//! - runners on top (tournaments, storage, hills, the web dashboard), reaching games through the
//!   registry, and [`command`], the command line (`main.rs` installs koth's games, then runs it).

pub mod archive;
pub mod bot;
pub mod cli;
pub mod command;
pub mod cpu;
pub mod game;
pub mod games;
pub mod hill;
pub mod interrupt;
pub mod logs;
pub mod ranking;
pub mod replay;
pub mod seed;
pub mod serve;
pub mod stats;
pub mod text;
pub mod tournament;
