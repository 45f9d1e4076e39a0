//! koth's ground floor: what every crate above may use and nothing here knows of a bot, a game
//! or a tournament. It sits below the bot layer so that a tournament, the hill or the command
//! can read a person's file, claim CPUs or stop on a signal without going through the bot crate.
//!
//! - [`archive`]: a folder out of an uploaded `.tar.gz` or `.zip`, entry by entry and capped:
//!   the hill's door and a worker's copy of a version, and a learning bot's data snapshot.
//! - [`text`]: a person's files read intact, a bot's bytes shown harmlessly, the rule for names.
//! - [`cpu`]: the CPUs koth may use and the claims that keep two koths off one CPU.
//! - [`interrupt`]: what koth does on SIGINT, SIGTERM or SIGHUP, and the resume command it
//!   prints; the work to stop (the bot layer's processes) is handed in by `main`.
//! - [`logs`]: the folders runs write to, and koth's cache folders.

pub mod archive;
pub mod cpu;
pub mod interrupt;
pub mod logs;
pub mod text;
