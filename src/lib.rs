//! koth: a king-of-the-hill tournament server.
//!
//! The crate is layered; each layer knows only the ones below it:
//! - [`bot`]: bot processes over a line protocol (spawn, lines, time limits, faults) and the
//!   lists of bots to start. It knows nothing about any game.
//! - [`game`]: the small interface every game implements, and the result of a match.
//! - [`games`]: one module per game, each holding that game's whole rules.
//! - runners and viewers on top (tournaments, storage, replays, the web dashboard).

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
