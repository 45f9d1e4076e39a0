//! The Genetic Rat Race as one match, however it is started: `koth ratrace` and the tournament
//! runner both call [`play`]. One player plays `rounds` boards (50 if unset), on parallel jobs,
//! one record per board, and its score is the geometric mean of their points.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rand::RngExt;
use serde::Serialize;

use super::player::{self, Player, PlayerFault};
use super::protocol::Protocol;
use super::recording::BoardRecording;
use super::rules::{Board, TURNS};
use super::subprocess::{self, SubprocessPlayer};
use super::track::Track;
use crate::bot::{AnswerStats, BotSpec, FaultLog, Limits, Seat};
use crate::game::{Average, BotResult, BoxFuture, Game, MatchResult, MatchSetup, RoundProgress};
use crate::{seed, stats};

/// The population and points are sampled every this many turns, for plots.
pub(crate) const SAMPLE_EVERY: u32 = 100;

pub(crate) struct RatRace;

/// Boards per match when the setup does not say.
pub(crate) const DEFAULT_BOARDS: u32 = 50;

impl Game for RatRace {
    fn name(&self) -> &'static str {
        "ratrace"
    }

    fn players(&self) -> (usize, usize) {
        (1, 1)
    }

    /// One board at a time, each a round trip between koth and the bot per turn.
    fn most_cpus(&self) -> usize {
        1
    }

    /// Board points spread over orders of magnitude; the challenge ranked by geometric mean.
    fn average(&self) -> Average {
        Average::Geometric
    }

    fn play<'a>(&'a self, setup: &'a MatchSetup) -> BoxFuture<'a, anyhow::Result<MatchResult>> {
        Box::pin(async move {
            let setup = setup.clone();
            // The engine blocks for the whole match, so it gets a thread of its own; its one
            // job keeps to the first CPU the match was given, with its bot.
            crate::cpu::run_placed(Vec::new(), move || {
                Ok(play(&setup, &Options::default(), &mut |_| {})?.0)
            })
            .await
        })
    }
}

/// What a rat race can do beyond a tournament's match.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// Boards played at once, each job on a thread of its own with its own bot process.
    pub jobs: usize,
    /// Boards recorded turn by turn ([`BoardRecord::recording`]).
    pub record_boards: Vec<usize>,
    /// A built-in player plays instead of the setup's bot.
    pub built_in: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            jobs: 1,
            record_boards: Vec::new(),
            built_in: None,
        }
    }
}

/// Plays a run of `setup.rounds` boards (default [`DEFAULT_BOARDS`]) for the setup's one bot
/// (or `options.built_in`), calling `on_record` as each board ends, and writes `results.json`
/// (every board, the summary and the match result) and, for a bot, `stderr/` and
/// `transcripts/` into the setup's log folder. A bot player's jobs keep to the setup's CPUs,
/// one each, when there is one for every job.
pub(crate) fn play(
    setup: &MatchSetup,
    options: &Options,
    on_record: &mut dyn FnMut(&BoardRecord),
) -> anyhow::Result<(MatchResult, Vec<BoardRecord>)> {
    let contestant = match (&options.built_in, setup.bots.as_slice()) {
        (Some(name), []) => Contestant::BuiltIn(name.clone()),
        (None, [spec]) => Contestant::Bot(spec.clone()),
        _ => bail!("ratrace is played by one player, not {}", setup.bots.len()),
    };
    let protocol = match &contestant {
        Contestant::Bot(spec) => protocol_of(spec)?,
        Contestant::BuiltIn(_) => Protocol::Text,
    };
    let boards = setup.rounds.unwrap_or(DEFAULT_BOARDS);
    std::fs::create_dir_all(&setup.log_dir)
        .with_context(|| format!("cannot create {}", setup.log_dir.display()))?;
    let config = RunConfig {
        boards: boards as usize,
        jobs: options.jobs,
        limits: setup.limits,
        log_dir: setup.log_dir.clone(),
        record_boards: options.record_boards.clone(),
        cpus: setup.cpus.clone(),
        protocol,
    };
    let started = std::time::Instant::now();
    let mut points = Vec::new();
    let played = play_boards(&contestant, setup.seed, &config, &mut |record| {
        on_record(record);
        points.push(record.points);
        if let Some(progress) = &setup.progress {
            progress(&RoundProgress {
                rounds_done: points.len() as u32,
                rounds_total: boards,
                totals: vec![Summary::of(&points).geometric_mean],
            });
        }
    })?;
    let seconds = started.elapsed().as_secs_f64();
    let records = played.records;
    let points: Vec<u64> = records.iter().map(|r| r.points).collect();
    let summary = Summary::of(&points);
    let result = MatchResult {
        game: "ratrace".into(),
        seed: setup.seed,
        bots: vec![BotResult::new(
            contestant.name(),
            summary.geometric_mean,
            &played.faults,
            played.timing,
        )],
    };
    let json = serde_json::json!({
        "game": "ratrace",
        "player": contestant.name(),
        "seed": setup.seed,
        "result": &result,
        "summary": summary,
        "faults": records.iter().filter(|r| r.error.is_some()).count(),
        "seconds": seconds,
        // Where the bot's jobs ran: a CPU each, or anywhere (empty).
        "cpus": &setup.cpus,
        "boards": &records,
    });
    let path = setup.log_dir.join("results.json");
    std::fs::write(&path, serde_json::to_string_pretty(&json)?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok((result, records))
}

/// The protocol `spec` asks for in its `bot.toml` (`[protocols] ratrace = "…"`), the text
/// protocol if it names none.
pub(crate) fn protocol_of(spec: &BotSpec) -> anyhow::Result<Protocol> {
    match spec.protocols.get("ratrace") {
        None => Ok(Protocol::Text),
        Some(name) => Protocol::named(name).with_context(|| {
            format!(
                "{spec}: the rat race has no protocol {name:?} (there are: {})",
                Protocol::NAMES.join(", ")
            )
        }),
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
        recording.frame(0, &board.specimens, board.points);
    }
    let mut asks = Vec::new();
    let mut history = vec![Sample {
        turn: 0,
        population: board.specimens.len(),
        points: board.points,
    }];
    let mut fault = None;
    let mut turns = 0;
    for turn in 1..=TURNS {
        turns = turn;
        let goes_on = match board.turn(turn, player, &mut asks) {
            Ok(goes_on) => goes_on,
            Err(f) => {
                fault = Some((turn, f));
                false
            }
        };
        if let Some(recording) = recording.as_deref_mut()
            && BoardRecording::wants(turn)
        {
            recording.frame(turn, &board.specimens, board.points);
        }
        if !goes_on || turn % SAMPLE_EVERY == 0 {
            history.push(Sample {
                turn,
                population: board.specimens.len(),
                points: board.points,
            });
        }
        if !goes_on {
            break;
        }
    }
    if let Some(recording) = recording {
        recording.last(turns, &board.specimens, board.points);
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
    pub fault_kind: Option<crate::bot::FaultKind>,
    pub history: Vec<Sample>,
    /// The board turn by turn, when it was asked for (written to its own file, not results).
    #[serde(skip)]
    pub recording: Option<BoardRecording>,
}

/// Plays board `board` for `player`, recording its positions if `record`.
pub(crate) fn play_board(
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
        Err(fault) => Outcome {
            points: 1,
            turns: 0,
            history: Vec::new(),
            fault: Some((0, fault)),
        },
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
        player_cpu_seconds: player_cpu.as_secs_f64(),
        bytes_sent,
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
pub(crate) enum Contestant {
    BuiltIn(String),
    Bot(BotSpec),
}

impl Contestant {
    pub(crate) fn name(&self) -> &str {
        match self {
            Contestant::BuiltIn(name) => name,
            Contestant::Bot(spec) => &spec.name,
        }
    }
}

/// How a run plays its boards.
pub(crate) struct RunConfig {
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
    /// The protocol a bot player speaks.
    pub protocol: Protocol,
}

/// A played run.
pub(crate) struct Played {
    /// In board order.
    pub records: Vec<BoardRecord>,
    /// A bot player's answer timings, over all its processes.
    pub timing: AnswerStats,
    /// A bot player's faults, over all its jobs.
    pub faults: FaultLog,
}

/// Plays every board of the run on `config.jobs` threads, calling `on_record` for each as it
/// finishes.
pub(crate) fn play_boards(
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
                        match SubprocessPlayer::new(seat, config.protocol) {
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
