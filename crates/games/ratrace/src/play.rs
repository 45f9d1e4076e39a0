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

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rand::RngExt;
use serde::Serialize;

use super::direct::DirectPlayer;
use super::player::{self, Player, PlayerFault};
use super::protocol::Protocol;
use super::recording::{BoardRecording, shown_board};
use super::rules::{Board, TURNS};
use super::subprocess::{self, SubprocessPlayer};
use super::track::Track;
use koth_bot::{AnswerStats, BotSpec, FaultLog, Limits, Seat};
use koth_game::{BotResult, MatchResult, MatchSetup, RecordBoards, RoundProgress};
use koth_game::{seed, stats};

/// The population and points are sampled every this many turns, for plots.
pub(crate) const SAMPLE_EVERY: u32 = 100;

/// Boards per match when the setup does not say.
pub(crate) const DEFAULT_BOARDS: u32 = 50;

/// What a rat race can do beyond a tournament's match.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// Boards played at once, each job on a thread of its own with its own bot process.
    pub jobs: usize,
    /// Boards recorded, besides those the setup's [`MatchSetup::record_boards`] keeps.
    pub also_record: Vec<usize>,
    /// A built-in player plays instead of the setup's bot.
    pub built_in: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            jobs: 1,
            also_record: Vec::new(),
            built_in: None,
        }
    }
}

/// A played match: its result, every board's record in board order, and the boards it wrote
/// turn by turn (`board-B.replay.json`), in order.
pub(crate) struct Match {
    pub result: MatchResult,
    pub records: Vec<BoardRecord>,
    pub recorded: Vec<usize>,
}

/// Plays a run of `setup.rounds` boards (default [`DEFAULT_BOARDS`]) for the setup's one bot
/// (or `options.built_in`), calling `on_record` as each board ends, and writes `results.json`
/// (every board, the summary and the match result), the recorded boards
/// (`board-B.replay.json`: those `setup.record_boards` keeps and `options.also_record`) and,
/// for a bot, `stderr/` and `transcripts/` into the setup's log folder. A bot player's jobs
/// keep to the setup's CPUs, one each, when there is one for every job.
pub(crate) fn play(
    setup: &MatchSetup,
    options: &Options,
    on_record: &mut dyn FnMut(&BoardRecord),
) -> anyhow::Result<Match> {
    let contestant = match (&options.built_in, setup.bots.as_slice()) {
        (Some(name), []) => Contestant::BuiltIn(name.clone()),
        (None, [spec]) => Contestant::Bot(Box::new(spec.clone())),
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
        record: Recorded::new(setup.record_boards, options.also_record.clone()),
        cpus: setup.cpus.clone(),
        protocol,
    };
    let started = std::time::Instant::now();
    let mut points = Vec::new();
    let mut played = play_boards(&contestant, setup.seed, &config, &mut |record| {
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
    let records = std::mem::take(&mut played.records);
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
        // The boards written turn by turn, board-B.replay.json each.
        "recorded": &played.recorded,
        "boards": &records,
    });
    setup.write_results(&json)?;
    Ok(Match {
        result,
        records,
        recorded: played.recorded,
    })
}

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
        recording.frame(0, &board);
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
            recording.frame(turn, &board);
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
        recording.last(turns, &board);
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
                recording.frame(0, &board);
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

/// Pins the calling thread, and so the bot processes it starts, to the `job`-th of `cpus`, when
/// each of the `jobs` can have one of its own (see [`koth_base::cpu`]).
fn pin_to_cpu(job: usize, jobs: usize, cpus: &[usize]) {
    if jobs <= cpus.len() {
        koth_base::cpu::pin_current_thread(&cpus[job..=job]);
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
    Bot(Box<BotSpec>),
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
    /// Where a bot player's stderr and transcripts go (a seat per job), and the recorded boards.
    pub log_dir: PathBuf,
    /// Which boards are recorded turn by turn, and which of those are kept.
    pub record: Recorded,
    /// CPUs for a bot player's jobs: job j and its bot process keep to the j-th, if there is one
    /// for every job (see [`pin_to_cpu`]); empty, the jobs run anywhere.
    pub cpus: Vec<usize>,
    /// The protocol a bot player speaks.
    pub protocol: Protocol,
}

/// A played run.
pub(crate) struct PlayedRun {
    /// In board order.
    pub records: Vec<BoardRecord>,
    /// A bot player's answer timings, over all its processes.
    pub timing: AnswerStats,
    /// A bot player's faults, over all its jobs.
    pub faults: FaultLog,
    /// The boards written turn by turn, in order.
    pub recorded: Vec<usize>,
}

/// Which boards of a run are recorded turn by turn, and which of those recordings are kept: the
/// boards [`RecordBoards`] names, and those asked for by number.
///
/// For [`RecordBoards::FirstAndFaulted`] the first board to end with a fault is the lowest one:
/// jobs playing boards at once end them out of order, and the lowest is the same whatever the
/// jobs. So every board below the lowest fault so far is recorded, and a faulted board's
/// recording is held until the run ends, when no lower board can fault any more. With one job,
/// as in a tournament, no board after the first fault is recorded at all.
pub(crate) struct Recorded {
    keep: RecordBoards,
    asked: Vec<usize>,
    /// The lowest board that ended with a fault so far (`usize::MAX`: none), as the jobs tell.
    first_fault: AtomicUsize,
}

impl Recorded {
    pub(crate) fn new(keep: RecordBoards, asked: Vec<usize>) -> Recorded {
        Recorded {
            keep,
            asked,
            first_fault: AtomicUsize::new(usize::MAX),
        }
    }

    /// Whether board `board`'s recording is kept however the board ends.
    fn always(&self, board: usize) -> bool {
        self.asked.contains(&board)
            || match self.keep {
                RecordBoards::All => true,
                RecordBoards::None => false,
                RecordBoards::FirstAndFaulted => board == 0,
            }
    }

    /// Whether board `board` is recorded as it is played: it is kept however it ends, or it may
    /// be the first to end with a fault.
    pub(crate) fn records(&self, board: usize) -> bool {
        self.always(board)
            || (self.keep == RecordBoards::FirstAndFaulted
                && board < self.first_fault.load(Ordering::Relaxed))
    }

    /// Notes how board `board` ended, as soon as it has (before [`Self::keep`] is told).
    pub(crate) fn ended(&self, board: usize, faulted: bool) {
        if faulted {
            self.first_fault.fetch_min(board, Ordering::Relaxed);
        }
    }

    /// Takes the recording of board `board`, which has ended: returns it if it is to be written
    /// now; holds it in `held` if it is the first board to end with a fault so far (it is known
    /// to be the first only at the run's end); drops it otherwise.
    fn keep<T>(&self, board: usize, recording: T, held: &mut Option<(usize, T)>) -> Option<T> {
        if self.always(board) {
            Some(recording)
        } else {
            if self.keep == RecordBoards::FirstAndFaulted
                && board == self.first_fault.load(Ordering::Relaxed)
            {
                // Whatever was held is of a higher board, no longer the first fault.
                *held = Some((board, recording));
            }
            None
        }
    }

    /// The held recording, to be written at the run's end if it is still the first fault's.
    fn finish<T>(&self, held: Option<(usize, T)>) -> Option<T> {
        held.filter(|(board, _)| *board == self.first_fault.load(Ordering::Relaxed))
            .map(|(_, recording)| recording)
    }
}

/// Writes `recording` to its file in `dir`; returns its board.
fn write_recording(dir: &Path, recording: &BoardRecording) -> anyhow::Result<usize> {
    recording.write(&dir.join(BoardRecording::file_name(recording.board)))?;
    Ok(recording.board)
}

/// Plays every board of the run on `config.jobs` threads, calling `on_record` for each as it
/// finishes.
pub(crate) fn play_boards(
    contestant: &Contestant,
    run_seed: u64,
    config: &RunConfig,
    on_record: &mut dyn FnMut(&BoardRecord),
) -> anyhow::Result<PlayedRun> {
    let mut seats = open_seats(contestant, run_seed, config)?.into_iter();
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel();
    let mut taken = Taken::default();
    let mut timing = AnswerStats::default();
    let mut faults = FaultLog::default();
    std::thread::scope(|scope| {
        let jobs: Vec<_> = (0..config.jobs)
            .map(|job| {
                let queue = Queue {
                    contestant,
                    run_seed,
                    config,
                    next: &next,
                    sender: sender.clone(),
                };
                let seat = seats.next();
                scope.spawn(move || queue.play_job(job, seat))
            })
            .collect();
        drop(sender);
        taken.take_all(receiver, config, on_record);
        for job in jobs {
            if let Ok(Some(seat)) = job.join() {
                timing.merge(&seat.timing());
                faults.append(seat.faults());
            }
        }
    });
    let (records, recorded) = taken.finish(config)?;
    Ok(PlayedRun {
        records,
        timing,
        faults,
        recorded,
    })
}

/// A bot player's seats, one per job (its own process, stderr file and transcript); none for
/// a built-in player.
fn open_seats(
    contestant: &Contestant,
    run_seed: u64,
    config: &RunConfig,
) -> anyhow::Result<Vec<Seat>> {
    match contestant {
        Contestant::Bot(spec) => Seat::open_all(
            &vec![(**spec).clone(); config.jobs],
            &config.log_dir,
            &subprocess::seat_options(config.limits, run_seed),
        ),
        Contestant::BuiltIn(_) => Ok(Vec::new()),
    }
}

/// What a job needs to take the run's boards one after another and hand their records over.
struct Queue<'a> {
    contestant: &'a Contestant,
    run_seed: u64,
    config: &'a RunConfig,
    /// The next board no job has taken yet.
    next: &'a AtomicUsize,
    sender: mpsc::Sender<BoardRecord>,
}

impl Queue<'_> {
    /// Job `job`'s part of the run: its player (on `seat`, for a bot) plays boards until none
    /// is left; returns the seat, with its faults and timings.
    fn play_job(&self, job: usize, seat: Option<Seat>) -> Option<Seat> {
        match self.contestant {
            Contestant::BuiltIn(name) => {
                let mut player = player::built_in(name).expect("checked before");
                self.play(player.as_mut());
                None
            }
            Contestant::Bot(spec) => {
                let seat = seat.expect("a seat for every job");
                pin_to_cpu(job, self.config.jobs, &self.config.cpus);
                self.play_bot(job, spec, seat)
            }
        }
    }

    /// [`Queue::play_job`] for a bot `spec` on `seat`, through the protocol its run speaks.
    fn play_bot(&self, job: usize, spec: &BotSpec, seat: Seat) -> Option<Seat> {
        let config = self.config;
        if config.protocol == Protocol::Direct {
            let mut player = DirectPlayer::new(seat, spec.clone(), config.limits);
            self.play(&mut player);
            return Some(player.finish());
        }
        match SubprocessPlayer::new(seat, config.protocol) {
            Ok(mut player) => {
                self.play(&mut player);
                Some(player.finish())
            }
            // Without a runtime this job plays nothing; the others go on, and a run that lost
            // every job says so (`Taken::finish`).
            Err(e) => {
                eprintln!("koth: job {job} cannot start a runtime: {e:#}");
                None
            }
        }
    }

    /// Plays the boards no job has taken yet, one after another, until none is left or the run
    /// stops taking records.
    fn play(&self, player: &mut dyn Player) {
        let config = self.config;
        let name = self.contestant.name();
        loop {
            let board = self.next.fetch_add(1, Ordering::Relaxed);
            if board >= config.boards {
                break;
            }
            // A board kept however it ends is written as it is played, to be watched.
            let streamed = (config.record)
                .always(board)
                .then(|| config.log_dir.join(BoardRecording::file_name(board)));
            let record = play_board(
                self.run_seed,
                board,
                name,
                player,
                config.record.records(board),
                streamed.as_deref(),
            );
            // Told here, before the next board starts: with one job, no board after the first
            // fault is recorded.
            config.record.ended(board, record.error.is_some());
            if self.sender.send(record).is_err() {
                break;
            }
        }
    }
}

/// The boards' records as the jobs hand them over, and their recordings written or held.
#[derive(Default)]
struct Taken {
    records: Vec<BoardRecord>,
    /// The boards whose recordings were written.
    recorded: Vec<usize>,
    /// The first faulted board's recording, until the run ends.
    held: Option<(usize, BoardRecording)>,
    /// A recording that could not be written: the run stops.
    failure: Option<anyhow::Error>,
}

impl Taken {
    /// Takes every record the jobs send, each told to `on_record`, its recording written now,
    /// held or dropped; stops at the first recording that cannot be written.
    fn take_all(
        &mut self,
        receiver: mpsc::Receiver<BoardRecord>,
        config: &RunConfig,
        on_record: &mut dyn FnMut(&BoardRecord),
    ) {
        for mut record in receiver {
            on_record(&record);
            let written = match record.recording.take() {
                Some(recording) => config
                    .record
                    .keep(record.board, recording, &mut self.held)
                    .map(|recording| write_recording(&config.log_dir, &recording)),
                None => None,
            };
            self.records.push(record);
            match written {
                Some(Ok(board)) => self.recorded.push(board),
                // Ending the loop drops the receiver: each job stops after its board.
                Some(Err(e)) => {
                    self.failure = Some(e);
                    return;
                }
                None => {}
            }
        }
    }

    /// The records in board order and the boards recorded, once every job has ended: the held
    /// recording written if it is still the first fault's; an error if a recording could not be
    /// written or a board was not played.
    fn finish(self, config: &RunConfig) -> anyhow::Result<(Vec<BoardRecord>, Vec<usize>)> {
        let Taken {
            mut records,
            mut recorded,
            held,
            failure,
        } = self;
        if let Some(e) = failure {
            return Err(e);
        }
        if let Some(recording) = config.record.finish(held) {
            recorded.push(write_recording(&config.log_dir, &recording)?);
        }
        recorded.sort();
        if records.len() < config.boards {
            bail!(
                "only {} of {} boards were played (see the messages above)",
                records.len(),
                config.boards
            );
        }
        records.sort_by_key(|r| r.board);
        Ok((records, recorded))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ends the boards `order` names in that order (board order with one job; any order with
    /// several), those in `faulted` with a fault, each started just before it ends: the boards
    /// recorded as they were played, and those kept (written at once or at the run's end), both
    /// in board order.
    fn run(
        keep: RecordBoards,
        asked: &[usize],
        order: &[usize],
        faulted: &[usize],
    ) -> (Vec<usize>, Vec<usize>) {
        let recorded = Recorded::new(keep, asked.to_vec());
        let (mut played, mut kept, mut held) = (Vec::new(), Vec::new(), None);
        for &board in order {
            let record = recorded.records(board).then_some(board);
            recorded.ended(board, faulted.contains(&board));
            if let Some(record) = record {
                played.push(board);
                kept.extend(recorded.keep(board, record, &mut held));
            }
        }
        kept.extend(recorded.finish(held));
        played.sort();
        kept.sort();
        (played, kept)
    }

    #[test]
    fn board_0_and_the_first_faulted_board_are_kept_and_nothing_after_the_fault_is_recorded() {
        let in_order: Vec<usize> = (0..6).collect();
        let first = RecordBoards::FirstAndFaulted;
        // No fault: every board is recorded in case it faults, board 0 alone is kept.
        assert_eq!(run(first, &[], &in_order, &[]), (in_order.clone(), vec![0]));
        // Board 2 faults, and board 4: the boards after 2 are not even recorded.
        assert_eq!(
            run(first, &[], &in_order, &[2, 4]),
            (vec![0, 1, 2], vec![0, 2])
        );
        // Board 0 is the first fault: it is kept once, and no other board is recorded.
        assert_eq!(run(first, &[], &in_order, &[0, 3]), (vec![0], vec![0]));
        // A board asked for by number is recorded and kept whatever happens.
        assert_eq!(
            run(first, &[5], &in_order, &[1]),
            (vec![0, 1, 5], vec![0, 1, 5])
        );
    }

    #[test]
    fn with_boards_ending_out_of_order_the_lowest_faulted_board_is_kept() {
        let first = RecordBoards::FirstAndFaulted;
        // Board 4 faults first, then board 2 (played meanwhile by another job).
        let (played, kept) = run(first, &[], &[1, 4, 0, 2, 3, 5], &[2, 4]);
        assert_eq!(kept, vec![0, 2]);
        // Board 5 started after 4 faulted: not worth recording.
        assert!(!played.contains(&5), "{played:?}");
        // The lower fault ends last: the held higher one gives way.
        assert_eq!(run(first, &[], &[3, 1, 0, 2], &[1, 3]).1, vec![0, 1]);
    }

    #[test]
    fn none_keeps_only_the_boards_asked_for_and_all_keeps_every_board() {
        let order: Vec<usize> = (0..4).collect();
        assert_eq!(run(RecordBoards::None, &[], &order, &[1]), (vec![], vec![]));
        assert_eq!(
            run(RecordBoards::None, &[2], &order, &[1]),
            (vec![2], vec![2])
        );
        assert_eq!(
            run(RecordBoards::All, &[], &order, &[1]),
            (order.clone(), order.clone())
        );
    }
}
