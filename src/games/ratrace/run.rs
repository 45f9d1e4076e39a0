//! Playing a run's boards: seeds, jobs, and one record per board.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::bail;
use rand::RngExt;
use serde::Serialize;

use super::board::{self, Sample};
use super::player::{self, Player};
use super::recording::BoardRecording;
use super::subprocess::{self, SubprocessPlayer};
use super::track::Track;
use crate::bot::{AnswerStats, BotSpec, FaultLog, Limits, Seat};
use crate::seed;

/// The seed of board `board` of the run with seed `run_seed`.
pub fn board_seed(run_seed: u64, board: usize) -> u64 {
    seed::rng(run_seed, board as u64).random::<u64>()
}

/// Stream 0 of a board's seed generates its track and then drives its population.
pub fn board_rng(board_seed: u64) -> seed::Rng {
    seed::rng(board_seed, 0)
}

#[derive(Debug, Serialize)]
pub struct BoardRecord {
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
    /// The player's fault that ended the board early, if any.
    pub error: Option<String>,
    pub fault_kind: Option<crate::bot::FaultKind>,
    pub history: Vec<Sample>,
    /// The board turn by turn, when it was asked for (written to its own file, not results).
    #[serde(skip)]
    pub recording: Option<BoardRecording>,
}

/// Plays board `board` for `player`, recording its positions if `record`.
pub fn play_board(
    run_seed: u64,
    board: usize,
    player_name: &str,
    player: &mut dyn Player,
    record: bool,
) -> BoardRecord {
    let started = Instant::now();
    let thread_cpu_before = thread_cpu();
    let seed = board_seed(run_seed, board);
    let mut rng = board_rng(seed);
    let track = Track::generate(&mut rng);
    let mut recording = record.then(|| BoardRecording::new(player_name, board, seed, &track));
    let mut player_cpu = Duration::ZERO;
    let outcome = match player.begin_board(board, seed, &track.views) {
        Ok(()) => {
            let before = player.process_cpu();
            let outcome = board::play(&track, rng, player, recording.as_mut());
            // A process that faulted is gone, and its time with it.
            if let (Some(before), Some(after)) = (before, player.process_cpu()) {
                player_cpu = after.saturating_sub(before);
            }
            outcome
        }
        Err(fault) => board::Outcome {
            points: 1,
            turns: 0,
            history: Vec::new(),
            fault: Some((0, fault)),
        },
    };
    player.end_board(board, outcome.points);
    let cpu = thread_cpu().saturating_sub(thread_cpu_before) + player_cpu;
    let (error, fault_kind) = match outcome.fault {
        Some((turn, fault)) => (
            Some(format!(
                "player \"{player_name}\", board {board}, turn {turn}: {}",
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
        error,
        fault_kind,
        history: outcome.history,
        recording,
    }
}

/// Pins the calling thread, and so the bot processes it starts, to the `job`-th of `cpus`, when
/// each of the `jobs` can have one of its own (see [`crate::cpu`]).
fn pin_to_cpu(job: usize, jobs: usize, cpus: &[usize]) {
    if jobs <= cpus.len() {
        crate::cpu::pin_current_thread(&cpus[job..=job]);
    }
}

/// CPU time used so far by the calling thread.
fn thread_cpu() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(Duration::from)
        .unwrap_or_default()
}

/// Who plays: a built-in player or a bot process.
pub enum Contestant {
    BuiltIn(String),
    Bot(BotSpec),
}

impl Contestant {
    pub fn name(&self) -> &str {
        match self {
            Contestant::BuiltIn(name) => name,
            Contestant::Bot(spec) => &spec.name,
        }
    }
}

/// How a run plays its boards.
pub struct RunConfig {
    pub boards: usize,
    /// Boards played at once, each job on its own thread with its own player.
    pub jobs: usize,
    /// A bot player's limits: per turn, and for its exit at the end.
    pub limits: Limits,
    /// Where a bot player's stderr and transcripts go (a seat per job).
    pub log_dir: PathBuf,
    /// Boards recorded turn by turn (`BoardRecord::recording`).
    pub record_boards: Vec<usize>,
    /// CPUs for a bot player's jobs: job j and its bot process keep to the j-th, if there is one
    /// for every job (see [`pin_to_cpu`]); empty, the jobs run anywhere.
    pub cpus: Vec<usize>,
}

/// A played run.
pub struct Played {
    /// In board order.
    pub records: Vec<BoardRecord>,
    /// A bot player's answer timings, over all its processes.
    pub timing: AnswerStats,
    /// A bot player's faults, over all its jobs.
    pub faults: FaultLog,
}

/// Plays every board of the run on `config.jobs` threads, calling `on_record` for each as it
/// finishes.
pub fn play_boards(
    contestant: &Contestant,
    run_seed: u64,
    config: &RunConfig,
    on_record: &mut dyn FnMut(&BoardRecord),
) -> anyhow::Result<Played> {
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel();
    let mut records = Vec::with_capacity(config.boards);
    let mut timing = AnswerStats::default();
    let mut faults = FaultLog::default();
    // A bot player has a seat per job: its own process, stderr file and transcript.
    let mut seats = match contestant {
        Contestant::Bot(spec) => Seat::open_all(
            &vec![spec.clone(); config.jobs],
            &config.log_dir,
            &subprocess::seat_options(config.limits),
        )?
        .into_iter()
        .map(Some)
        .collect(),
        Contestant::BuiltIn(_) => Vec::new(),
    };
    std::thread::scope(|scope| {
        let mut jobs = Vec::new();
        for job in 0..config.jobs {
            let sender = sender.clone();
            let next = &next;
            let seat = seats.get_mut(job).and_then(Option::take);
            jobs.push(scope.spawn(move || {
                let name = contestant.name().to_string();
                let play = |player: &mut dyn Player| loop {
                    let board = next.fetch_add(1, Ordering::Relaxed);
                    if board >= config.boards {
                        break;
                    }
                    if sender
                        .send(play_board(
                            run_seed,
                            board,
                            &name,
                            player,
                            config.record_boards.contains(&board),
                        ))
                        .is_err()
                    {
                        break;
                    }
                };
                match contestant {
                    Contestant::BuiltIn(name) => {
                        let mut player = player::built_in(name).expect("checked before");
                        play(player.as_mut());
                        None
                    }
                    Contestant::Bot(_) => {
                        let seat = seat.expect("a seat for every job");
                        pin_to_cpu(job, config.jobs, &config.cpus);
                        match SubprocessPlayer::new(seat) {
                            Ok(mut player) => {
                                play(&mut player);
                                Some(player.finish())
                            }
                            // Without a runtime this job plays nothing; the others go on,
                            // and a run that lost every job says so below.
                            Err(e) => {
                                eprintln!("koth: job {job} cannot start a runtime: {e:#}");
                                None
                            }
                        }
                    }
                }
            }));
        }
        drop(sender);
        for record in receiver {
            on_record(&record);
            records.push(record);
        }
        for job in jobs {
            if let Ok(Some(seat)) = job.join() {
                timing.merge(&seat.timing());
                faults.append(seat.faults());
            }
        }
    });
    if records.len() < config.boards {
        bail!(
            "only {} of {} boards were played (see the messages above)",
            records.len(),
            config.boards
        );
    }
    records.sort_by_key(|r| r.board);
    Ok(Played {
        records,
        timing,
        faults,
    })
}
