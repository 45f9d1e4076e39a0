//! A run of many boards for one contestant (`koth ratrace`, and a tournament's rat-race match):
//! boards taken from a shared queue by `jobs` threads, each with its own seat (or built-in
//! player), each board's record sent back as it ends, the boards asked for recorded, and the
//! run's figures and `results.json` written in board order.

use super::direct::DirectPlayer;
use super::play::{BoardRecord, Summary, play_board, protocol_of};
use super::player::{self, Player};
use super::protocol::Protocol;
use super::recording::BoardRecording;
use super::subprocess::{self, SubprocessPlayer};
use anyhow::{Context, bail};
use koth_bot::{AnswerStats, BotSpec, FaultLog, Limits, Seat};
use koth_game::{BotResult, MatchResult, MatchSetup, RecordBoards, RoundProgress};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

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

/// Pins the calling thread, and so the bot processes it starts, to the `job`-th of `cpus`, when
/// each of the `jobs` can have one of its own (see [`koth_base::cpu`]).
fn pin_to_cpu(job: usize, jobs: usize, cpus: &[usize]) {
    if jobs <= cpus.len() {
        koth_base::cpu::pin_current_thread(&cpus[job..=job]);
    }
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
