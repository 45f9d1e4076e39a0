//! The bot layer: starting bots, talking to them in lines with time limits, and recording what
//! they do wrong. It knows nothing about any game; games talk to their bots through a [`Seat`].
//!
//! - [`seat`]: one bot's whole life in a match — its processes (started and restarted as the
//!   game says), its limits and clock, its faults, stderr file, transcript and answer timings.
//! - [`process`]: one running process — spawn in its own process group, queue and write lines,
//!   read an answer line under a time limit, finish or kill it with everything it started.
//! - [`lines`], [`clock`], [`stderr`], [`transcript`], [`timing`], [`live`]: the parts a process
//!   is made of — its stdout cut into lines, the clocks limits are measured on, its stderr file,
//!   the record of its conversation, its answers' timings, and every process still alive.
//! - [`record`]: the game's public record, `replay.jsonl`, written by its seats (every answer
//!   and fault, in the order of the prompts) for a game that writes none of its own.
//! - [`error`] and [`fault`]: what can go wrong with a bot, and how a match keeps it;
//!   [`unanswered`]: the likely mistake behind a time-out (an answer never flushed);
//!   [`starvation`]: when a time-out is koth's fault instead (the bot was kept from the CPU).
//! - [`spec`]: what a bot is — how to start it, and how it is contained; [`env`]: the one
//!   environment every bot process gets.
//! - [`running`]: a running bot of either kind, a process or a WASI module run in koth by
//!   [`wasm`] (wasmtime, its work counted in fuel).
//! - [`data`]: a learning bot's folder kept from game to game — snapshots, their digests, and
//!   the refusal of what no bot may leave there.
//! - [`digest`]: a bot's content hash, which tells a worker its copy is the one submitted.
//! - [`roster`]: which bots to start — koth's `bot.toml` manifests and the original
//!   controller's `bots.txt`; [`build`]: their build steps, contained in a build copy when the
//!   bots are.
//! - [`languages`]: the interpreters and compilers a tournament or hill offers, with their
//!   versions, and the refusal of a bot whose command names one it does not.
//! - [`stop_every_bot`]: what `koth_base::interrupt` stops when koth is told to stop.
//! - [`sandbox`] and [`cgroup`]: containment — a bot that sees only the system, its interpreter
//!   and its own folder, with no network, no other processes, no privileges and capped
//!   resources.

pub mod build;
pub mod cgroup;
pub(crate) mod child;
pub(crate) mod clock;
pub mod data;
pub mod digest;
pub(crate) mod env;
pub mod error;
pub(crate) mod fault;
pub mod languages;
pub(crate) mod lines;
pub(crate) mod live;
pub mod process;
pub mod record;
pub mod roster;
pub mod running;
pub mod sandbox;
pub mod seat;
pub mod seccomp;
pub(crate) mod spec;
pub(crate) mod starvation;
pub mod stderr;
pub mod timing;
pub mod transcript;
pub mod uid;
pub(crate) mod unanswered;
pub mod wasm;

pub use build::use_compiler;
pub use clock::{Clock, Ending, Limits, MAX_LIMIT_MS, cpu_time};
pub use error::BotError;
pub use fault::{
    BotStatus, FAULTS_KEPT_PER_KIND, Fault, FaultCounts, FaultKind, FaultLog, cut_line,
    cut_line_parts, cut_words, debug_hint, quote,
};
pub(crate) use live::kill_all;
pub use process::{Asked, BotProcess};
pub use seat::{At, OnStart, Restart, Seat, SeatOptions, SeatStart};
pub use spec::{BotSpec, DataAsk, Sandbox, WASI_COMMAND};
pub use stderr::StderrLog;
pub use timing::{Answer, AnswerStats, FuelFigures, FuelStats, suggested_budget};
pub use transcript::{Transcript, flush_transcripts};
pub use unanswered::Unanswered;

/// Kills every bot process (and any started from now on) and writes out the open transcripts:
/// what stopping koth stops, handed by `main` to `koth_base::interrupt`, which knows no bot.
pub fn stop_every_bot() {
    kill_all();
    flush_transcripts();
}
