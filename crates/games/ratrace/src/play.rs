//! The Genetic Rat Race as one match, however it is started: `koth ratrace` and the tournament
//! runner both call [`play`]. One player plays `rounds` boards (50 if unset), on parallel jobs,
//! one record per board, and its score is the geometric mean of their points. The match writes
//! the boards its setup keeps ([`RecordBoards`]) turn by turn, `board-B.replay.json` each.
//!
//! Keeping the first board that ends with a fault means recording every board that may still be
//! it, and dropping the recording of each that ends well: a recording only reads the board, and
//! costs 2 to 3% of a built-in player's run, less with a bot (the figures are in
//! docs/games/ratrace.md, "Recorded boards"). Playing a faulted board again from its seed
//! instead would not do: the board follows the bot's answers, which a bot need not give again,
//! and the transcript that holds them stops at its size limit long before a long board ends.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rand::RngExt;
use serde::Serialize;

use super::player::{Player, PlayerFault};
use super::protocol::Protocol;
use super::recording::{BoardRecording, shown_board};
use super::rules::{Board, TURNS};
use super::track::Track;
use koth_bot::BotSpec;
use koth_game::{seed, stats};

/// The population and points are sampled every this many turns, for plots.
pub(crate) const SAMPLE_EVERY: u32 = 100;

/// The protocol `spec` asks for in its `bot.toml` (`[protocols] ratrace = "…"`), the text
/// protocol if it names none.
pub(crate) fn protocol_of(spec: &BotSpec) -> anyhow::Result<Protocol> {
    match spec.protocols.get("ratrace") {
        None => Ok(Protocol::Text),
        Some(name) => {
            let protocol = Protocol::named(name).with_context(|| {
                format!(
                    "{spec}: the rat race has no protocol {name:?} (there are: {})",
                    Protocol::NAMES.join(", ")
                )
            })?;
            if protocol == Protocol::Direct && spec.wasm_module().is_none() {
                bail!(
                    "{spec}: \"direct\" is for a WASI bot, whose bot.toml names its module \
                     (`wasm = \"bot.wasm\"`), and this one runs a process"
                );
            }
            Ok(protocol)
        }
    }
}

/// A run's boards' points in a few figures.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct Summary {
    pub boards: usize,
    /// The run's score: the geometric mean of the boards' points.
    pub geometric_mean: f64,
    /// The 95% interval of the geometric mean (Student's t; the mean itself below two boards).
    pub interval: (f64, f64),
    pub share_of_ones: f64,
    pub median: f64,
}

impl Summary {
    pub(crate) fn of(points: &[u64]) -> Summary {
        let points: Vec<f64> = points.iter().map(|&p| p as f64).collect();
        let geometric = stats::geometric_mean(&points);
        Summary {
            boards: points.len(),
            geometric_mean: geometric.mean,
            interval: geometric
                .interval
                .unwrap_or((geometric.mean, geometric.mean)),
            share_of_ones: if points.is_empty() {
                0.0
            } else {
                points.iter().filter(|&&p| p == 1.0).count() as f64 / points.len() as f64
            },
            median: if points.is_empty() {
                1.0
            } else {
                stats::median(&points)
            },
        }
    }
}

/// The population and points after a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Sample {
    pub turn: u32,
    pub population: usize,
    pub points: u64,
}

#[derive(Debug)]
pub(crate) struct Outcome {
    pub points: u64,
    /// Turns played (fewer than [`TURNS`] if the population died out or the player faulted).
    pub turns: u32,
    pub history: Vec<Sample>,
    /// The player's fault and the turn it happened on, if one ended the board.
    pub fault: Option<(u32, PlayerFault)>,
}

/// Plays a whole board: [`TURNS`] turns or until fewer than two specimens are left, or the
/// player faults. With a `recording`, the board's positions are recorded as it goes.
pub(crate) fn play_turns(
    track: &Track,
    rng: seed::Rng,
    player: &mut dyn Player,
    mut recording: Option<&mut BoardRecording>,
) -> Outcome {
    let mut board = Board::new(track, rng);
    if let Some(recording) = recording.as_deref_mut() {
        recording.frame(0, &board, player);
    }
    let mut history = vec![Sample {
        turn: 0,
        population: board.population(),
        points: board.points,
    }];
    let mut fault = None;
    let mut turns = 0;
    for turn in 1..=TURNS {
        turns = turn;
        let goes_on = match board.turn(turn, player) {
            Ok(goes_on) => goes_on,
            Err(f) => {
                fault = Some((turn, f));
                false
            }
        };
        if let Some(recording) = recording.as_deref_mut()
            && BoardRecording::wants(turn)
        {
            recording.frame(turn, &board, player);
        }
        if !goes_on || turn % SAMPLE_EVERY == 0 {
            history.push(Sample {
                turn,
                population: board.population(),
                points: board.points,
            });
        }
        if !goes_on {
            break;
        }
    }
    if let Some(recording) = recording {
        recording.last(turns, &board, player);
    }
    Outcome {
        points: board.points,
        turns,
        history,
        fault,
    }
}

/// The seed of board `board` of the run with seed `run_seed`.
pub(crate) fn board_seed(run_seed: u64, board: usize) -> u64 {
    seed::rng(run_seed, board as u64).random::<u64>()
}

/// Stream 0 of a board's seed generates its track and then drives its population.
pub(crate) fn board_rng(board_seed: u64) -> seed::Rng {
    seed::rng(board_seed, 0)
}

#[derive(Debug, Serialize)]
pub(crate) struct BoardRecord {
    pub board: usize,
    pub seed: u64,
    pub points: u64,
    pub turns: u32,
    pub start_cells: usize,
    /// Wall-clock time of the board.
    pub seconds: f64,
    /// CPU time of the board (user + system): the job's thread, which runs the engine and a
    /// subprocess player's pipes, plus the player's own process if it has one. Steadier than
    /// `seconds` on a shared machine.
    pub cpu_seconds: f64,
    /// The part of `cpu_seconds` that the player's own process used (0 for built-in players):
    /// koth's own share is the difference.
    pub player_cpu_seconds: f64,
    /// Bytes koth wrote to the player's process on this board (none for built-in players).
    pub bytes_sent: Option<u64>,
    /// The player's fault that ended the board early, if any.
    pub error: Option<String>,
    pub fault_kind: Option<koth_bot::FaultKind>,
    pub history: Vec<Sample>,
    /// The board turn by turn, when it may be kept ([`Recorded::records`]); the match writes it
    /// to a file of its own, not to the results, or drops it.
    #[serde(skip)]
    pub recording: Option<BoardRecording>,
}

/// Plays board `board` for `player`, recording its positions if `record`, written to
/// `streamed` as it goes if given (a board kept however it ends, watched while it is played).
pub(crate) fn play_board(
    run_seed: u64,
    board: usize,
    player_name: &str,
    player: &mut dyn Player,
    record: bool,
    streamed: Option<&Path>,
) -> BoardRecord {
    let started = Instant::now();
    let thread_cpu_before = thread_cpu();
    let seed = board_seed(run_seed, board);
    let mut rng = board_rng(seed);
    let track = Track::generate(&mut rng);
    let mut recording = record.then(|| {
        let mut recording = BoardRecording::new(player_name, board, seed, &track);
        if let Some(path) = streamed {
            recording.stream_to(path);
        }
        recording
    });
    let mut player_cpu = Duration::ZERO;
    let bytes_before = player.bytes_sent();
    let outcome = match player.begin_board(board, seed, &track.views) {
        Ok(()) => {
            let before = player.process_cpu();
            let outcome = play_turns(&track, rng, player, recording.as_mut());
            // A process that faulted is gone, and its time with it.
            if let (Some(before), Some(after)) = (before, player.process_cpu()) {
                player_cpu = after.saturating_sub(before);
            }
            outcome
        }
        Err(fault) => {
            // The board as placed, so that a recording of a bot that never began it shows one.
            if let Some(recording) = recording.as_mut() {
                let board = Board::new(&track, rng);
                recording.frame(0, &board, player);
            }
            Outcome {
                points: 1,
                turns: 0,
                history: Vec::new(),
                fault: Some((0, fault)),
            }
        }
    };
    player.end_board(board, outcome.points);
    let bytes_sent = player
        .bytes_sent()
        .zip(bytes_before)
        .map(|(after, before)| after - before);
    let cpu = thread_cpu().saturating_sub(thread_cpu_before) + player_cpu;
    let (error, fault_kind) = match outcome.fault {
        Some((turn, fault)) => (
            Some(format!(
                "player \"{player_name}\", board {}, turn {turn}: {}",
                shown_board(board),
                fault.reason
            )),
            Some(fault.kind),
        ),
        None => (None, None),
    };
    BoardRecord {
        board,
        seed,
        points: outcome.points,
        turns: outcome.turns,
        start_cells: track.starts.len(),
        seconds: started.elapsed().as_secs_f64(),
        cpu_seconds: cpu.as_secs_f64(),
        player_cpu_seconds: player_cpu.as_secs_f64(),
        bytes_sent,
        error,
        fault_kind,
        history: outcome.history,
        recording,
    }
}

/// CPU time used so far by the calling thread.
fn thread_cpu() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(Duration::from)
        .unwrap_or_default()
}
