//! A bot's seat in a match: its whole life there, written once for every game.
//!
//! A game opens a [`Seat`] per bot and talks to it in rounds: [`Seat::begin`] at the start of
//! each round (a paths round, a game of noughts and crosses, a rat-race board, a flag level)
//! starts a process when the game's [`Restart`] policy says so; [`Seat::send`],
//! [`Seat::prompt`] / [`Seat::answer`] and [`Seat::ask`] talk to it under the match's
//! [`Limits`], on its clock; [`Seat::finish`] lets it exit in time. Every
//! fault the bot commits on the way — it did not start, answered late, crashed, printed garbage,
//! did not exit — is recorded by the seat in its [`FaultLog`], with the round and turn the game
//! names; a fault the game finds in an answer line goes there through [`Seat::fault`]. The seat
//! also names and caps the bot's stderr file, writes its transcript and keeps its answers'
//! timings over all its processes.
//!
//! Files, one way for every game, in the match's log folder: `stderr/<slug>.log` and
//! `transcripts/<slug>.txt`, where `<slug>` is the bot's folder name (`-2`, `-3`… for a second
//! and third seat of the same folder). A transcript starts with `# bot <name>` and the match's
//! limits, and has a `# round R` note wherever a new process starts, which is what
//! `koth replay --drive` plays again, a process per note, and a `# turn T` note where the turn
//! of its prompts changes, for the drive to say where a difference is. A game of bots answering
//! together also has a `# in round R` note where a round begins in a process that goes on.

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use anyhow::Context;

use super::data::{self, DATA_FOLDER, DEFAULT_CAP_MB, DataCap};
use super::process::{Asked, Polled};
use super::record::{FaultAt, GameRecord, Place, RECORD_FILE};
use super::running::{Running, Start};
use super::{
    Answer, AnswerStats, BotError, BotSpec, Clock, Ending, Fault, FaultKind, FaultLog, Limits,
    StderrLog, Transcript, stderr::STDERR_CAP,
};

/// The folder of a match's stderr files, in its log folder.
pub const STDERR_DIR: &str = "stderr";
/// The folder of a match's transcripts, in its log folder.
pub const TRANSCRIPTS_DIR: &str = "transcripts";
/// The note a transcript starts with, followed by the bot's name.
pub const BOT_NOTE: &str = "bot ";
/// The note stating the match's seed ([`SeatOptions::seed`]), which a WASI bot's randomness
/// derives from, so that `koth replay --drive` gives a new build the same.
pub const SEED_NOTE: &str = "seed ";
/// The note written where a new process starts, followed by the round it starts in.
pub const ROUND_NOTE: &str = "round ";
/// The note written where a round begins in a process that goes on from an earlier round
/// ([`Seat::mark_round`]), followed by the round: where a game of bots answering together
/// ([`koth_game::together`]) starts each round in every transcript, without a turn. `koth
/// replay --drive` passes over it (a new process starts only at a [`ROUND_NOTE`]).
pub(crate) const IN_ROUND_NOTE: &str = "in round ";
/// The note naming the bot's private file ([`SeatOptions::private_file`]).
pub const PRIVATE_FILE_NOTE: &str = "private file ";
/// The note stating the match's limits ([`limits_note`]).
pub const LIMITS_NOTE: &str = "limits ";
/// The note of a game whose bots need not exit at its end ([`Ending::Dropped`]), so that
/// `koth replay --drive` holds a new build to the same.
pub const DROPPED_NOTE: &str = "no exit expected";

/// `limits answer_ms=A exit_ms=E clock=wall` (or `clock=cpu backstop_ms=B`), then
/// `answer_fuel=F exit_fuel=X` where a WASI bot's budgets are set: the limits a transcript's
/// bot had, for `koth replay --drive` to hold a new build to the same.
pub(crate) fn limits_note(limits: &Limits) -> String {
    let ms = |d: Duration| d.as_millis();
    let clock = match limits.clock {
        Clock::Wall => "clock=wall".to_string(),
        Clock::Cpu { backstop } => format!("clock=cpu backstop_ms={}", ms(backstop)),
    };
    let mut note = format!(
        "{LIMITS_NOTE}answer_ms={} exit_ms={} {clock}",
        ms(limits.answer),
        ms(limits.exit)
    );
    for (key, fuel) in [
        ("answer_fuel", limits.answer_fuel),
        ("exit_fuel", limits.exit_fuel),
    ] {
        if let Some(fuel) = fuel {
            note.push_str(&format!(" {key}={fuel}"));
        }
    }
    note
}

/// The limits a [`limits_note`] states (the text after [`LIMITS_NOTE`]); `None` if damaged.
pub fn parse_limits_note(text: &str) -> Option<Limits> {
    let mut limits = Limits::default();
    let mut backstop = None;
    let mut cpu = false;
    for field in text.split_whitespace() {
        let (key, value) = field.split_once('=')?;
        let ms = || {
            value
                .parse::<u64>()
                .ok()
                .filter(|&ms| (1..=super::MAX_LIMIT_MS).contains(&ms))
                .map(Duration::from_millis)
        };
        match key {
            "answer_ms" => limits.answer = ms()?,
            "exit_ms" => limits.exit = ms()?,
            "backstop_ms" => backstop = Some(ms()?),
            "clock" => cpu = value == "cpu",
            "answer_fuel" => limits.answer_fuel = Some(value.parse().ok().filter(|&f| f > 0)?),
            "exit_fuel" => limits.exit_fuel = Some(value.parse().ok().filter(|&f| f > 0)?),
            _ => return None,
        }
    }
    if cpu {
        limits.clock = Clock::Cpu {
            backstop: backstop?,
        };
    }
    Some(limits)
}

/// When a game gives a bot a fresh process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restart {
    /// Every round starts a new process, and the game ends each with [`Seat::finish`]
    /// (paths: the rules start every bot anew each round).
    EveryRound,
    /// One process plays round after round; after a fault, the next round starts a new one
    /// (noughts and crosses games, rat-race boards).
    AfterFault,
    /// One process for the whole match; a fault ends the bot's part in it (flag).
    Never,
}

/// How a game seats its bots.
#[derive(Debug, Clone)]
pub struct SeatOptions {
    pub limits: Limits,
    pub restart: Restart,
    /// The bot's pipes enlarged to this many bytes, for games whose messages are far longer
    /// than a pipe's 64 KiB (see [`super::BotProcess::spawn_with_pipes`]).
    pub pipe_bytes: Option<usize>,
    /// A file in the bot's folder that is emptied when the match starts and kept across its
    /// rounds (paths' `data.txt`).
    pub private_file: Option<&'static str>,
    /// Whether the bot must exit at the end of the match ([`Seat::finish`]).
    pub ending: Ending,
    /// The match's seed, which seeds a WASI bot's randomness (with its name and round).
    pub seed: u64,
    /// Whether the seats write the game's public record, `replay.jsonl` ([`GameRecord`]):
    /// `false` for a game that writes a record of its own there (paths) or records its boards
    /// one by one (the rat race).
    pub public_record: bool,
    /// What each new process is sent first ([`OnStart`]); nothing if `None`.
    pub on_start: Option<OnStart>,
}

/// A game's hook on a process's start: the lines each new process of a seat is sent first,
/// before the next prompt — its first and every restart's alike, so a bot restarted after a
/// fault is told again what it was told at the start (its seat, say), not only what follows.
#[derive(Clone)]
pub struct OnStart(pub std::sync::Arc<StartLines>);

/// The function behind [`OnStart`]: the lines a process starting at [`SeatStart`] is sent.
pub type StartLines = dyn Fn(&SeatStart) -> Vec<String> + Send + Sync;

impl std::fmt::Debug for OnStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnStart(…)")
    }
}

/// What [`OnStart`] is told of the process that starts: its seat's place among the match's
/// seats, how many there are, and the round it starts in.
#[derive(Debug, Clone, Copy)]
pub struct SeatStart {
    pub seat: usize,
    pub seats: usize,
    pub round: u32,
}

impl SeatOptions {
    pub fn new(limits: Limits, restart: Restart, seed: u64) -> SeatOptions {
        SeatOptions {
            limits,
            restart,
            pipe_bytes: None,
            private_file: None,
            ending: Ending::Exit,
            seed,
            public_record: true,
            on_start: None,
        }
    }
}

/// Where in a round a prompt is, for the fault it may end in: the turn, and what the game was
/// asking, put before the fault's reason (`DESTROY 3: no answer within 1000 ms`).
#[derive(Debug, Clone, Copy, Default)]
pub struct At<'a> {
    pub turn: Option<u32>,
    pub context: &'a str,
}

impl At<'_> {
    pub fn turn(turn: u32) -> At<'static> {
        At {
            turn: Some(turn),
            context: "",
        }
    }
}

/// One bot's seat in a match (see the module's documentation).
pub struct Seat {
    spec: BotSpec,
    /// Its place among the match's seats, and how many there are, for [`OnStart`].
    place: (usize, usize),
    options: SeatOptions,
    stderr: StderrLog,
    transcript: Transcript,
    process: Option<Running>,
    /// A WASI bot's scratch folder (its `/tmp`), kept for the match and removed with the seat.
    scratch: Option<tempfile::TempDir>,
    /// Whether a process was ever started (or tried).
    started: bool,
    /// Why the last start failed, while no process runs since.
    start_error: Option<BotError>,
    /// The round the game is in, given to [`Seat::begin`].
    round: u32,
    /// The turn last noted in the transcript since the current process started.
    noted_turn: Option<u32>,
    /// The round last noted in the transcript (where its process started, or marked).
    noted_round: Option<u32>,
    faults: FaultLog,
    /// Answer timings of the processes already ended.
    ended_timing: AnswerStats,
    /// The seat's part in the game's public record, where the game has the seats write one.
    record: Option<SeatRecord>,
}

/// A seat's handle to the game's [`GameRecord`]: its seat number, and the place of the answer
/// to its prompt in flight.
struct SeatRecord {
    record: GameRecord,
    seat: usize,
    waiting: Option<Place>,
}

impl SeatRecord {
    /// Gives up the place of a prompt that will get no answer, so the record goes on past it.
    fn abandon_waiting(&mut self) {
        if let Some(place) = self.waiting.take() {
            self.record.abandon(place);
        }
    }
}

impl Drop for SeatRecord {
    fn drop(&mut self) {
        self.abandon_waiting();
    }
}

impl Seat {
    /// Seats every bot of a match, each with its own files in `log_dir`.
    pub fn open_all(
        bots: &[BotSpec],
        log_dir: &Path,
        options: &SeatOptions,
    ) -> anyhow::Result<Vec<Seat>> {
        let names: Vec<&str> = bots.iter().map(|bot| bot.name.as_str()).collect();
        let record = match options.public_record {
            true => Some(
                GameRecord::create(log_dir, options.seed, &names).with_context(|| {
                    format!("cannot create {}", log_dir.join(RECORD_FILE).display())
                })?,
            ),
            false => None,
        };
        slugs(bots)
            .into_iter()
            .zip(bots)
            .enumerate()
            .map(|(seat, (slug, spec))| {
                let place = (seat, bots.len());
                let mut opened = Seat::open(spec.clone(), &slug, place, log_dir, options.clone())?;
                opened.record = record.clone().map(|record| SeatRecord {
                    record,
                    seat,
                    waiting: None,
                });
                Ok(opened)
            })
            .collect()
    }

    /// Seats `spec` at `place` (its seat, of how many): creates `stderr/<slug>.log` and
    /// `transcripts/<slug>.txt` in `log_dir` and empties the bot's private file. No process
    /// starts before [`Seat::begin`].
    pub(crate) fn open(
        spec: BotSpec,
        slug: &str,
        place: (usize, usize),
        log_dir: &Path,
        options: SeatOptions,
    ) -> anyhow::Result<Seat> {
        let stderr_dir = log_dir.join(STDERR_DIR);
        let transcript_dir = log_dir.join(TRANSCRIPTS_DIR);
        for dir in [&stderr_dir, &transcript_dir] {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let path = stderr_dir.join(format!("{slug}.log"));
        let stderr = StderrLog::create(&path, STDERR_CAP)
            .with_context(|| format!("cannot create {}", path.display()))?;
        let path = transcript_dir.join(format!("{slug}.txt"));
        let transcript = Transcript::create(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        // `koth replay --drive` finds a transcript by this name as well as by its file's.
        transcript.note(&format!("{BOT_NOTE}{}", spec.name));
        transcript.note(&limits_note(&options.limits));
        transcript.note(&format!("{SEED_NOTE}{}", options.seed));
        if options.ending == Ending::Dropped {
            transcript.note(DROPPED_NOTE);
        }
        let scratch = prepare_files(&spec, options.private_file)?;
        if let Some(file) = options.private_file {
            transcript.note(&format!("{PRIVATE_FILE_NOTE}{file}"));
        }
        Ok(Seat {
            spec,
            place,
            options,
            stderr,
            transcript,
            process: None,
            scratch,
            started: false,
            start_error: None,
            round: 0,
            noted_turn: None,
            noted_round: None,
            faults: FaultLog::default(),
            ended_timing: AnswerStats::default(),
            record: None,
        })
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// Starts round `round`: a new process if the game's [`Restart`] policy asks for one now (a
    /// start that fails is recorded as the bot's fault). Returns whether the bot is running.
    pub async fn begin(&mut self, round: u32) -> bool {
        self.enter_round(round);
        let start = match self.options.restart {
            Restart::EveryRound => true,
            Restart::AfterFault => !self.is_running(),
            Restart::Never => !self.started,
        };
        if start {
            if let Some(old) = self.process.take() {
                self.ended_timing.merge(old.stats());
                old.kill().await;
            }
            self.start();
        }
        self.is_running()
    }

    fn start(&mut self) {
        self.started = true;
        self.noted_turn = None;
        self.noted_round = Some(self.round);
        self.transcript.note(&format!("{ROUND_NOTE}{}", self.round));
        let spawned = Running::start(
            &self.spec,
            &self.stderr,
            Start {
                pipe_bytes: self.options.pipe_bytes,
                limits: &self.options.limits,
                scratch: self.scratch.as_ref().map(|s| s.path()),
                round: self.round,
                seed: self.options.seed,
            },
        );
        match spawned {
            Ok(mut process) => {
                process.set_clock(self.options.limits.clock);
                process.set_transcript(self.transcript.clone());
                if let Some(OnStart(lines)) = &self.options.on_start {
                    let start = SeatStart {
                        seat: self.place.0,
                        seats: self.place.1,
                        round: self.round,
                    };
                    for line in lines(&start) {
                        // Queued: it goes out with the next prompt, first.
                        let _ = process.send(&line);
                    }
                }
                self.process = Some(process);
                self.start_error = None;
            }
            Err(error) => {
                self.record(&error, At::default());
                self.start_error = Some(error);
            }
        }
    }

    /// Notes in the transcript that the round given to [`Seat::begin`] begins here, unless the
    /// process started in it (its `# round R` says so already) or the bot is not running: a
    /// round's mark for a game whose rounds are one prompt each, so its turns stay its own.
    pub fn mark_round(&mut self) {
        if self.is_running() && self.noted_round != Some(self.round) {
            self.noted_round = Some(self.round);
            self.noted_turn = None;
            self.transcript
                .note(&format!("{IN_ROUND_NOTE}{}", self.round));
        }
    }

    /// Whether the bot has a process that has not faulted.
    pub fn is_running(&self) -> bool {
        self.process.as_ref().is_some_and(|p| !p.is_stopped())
    }

    /// Queues a line that needs no answer; it goes out with the next prompt. Fails only for a
    /// bot that is not running (its fault is already recorded).
    pub fn send(&mut self, line: &str) -> Result<(), BotError> {
        self.running()?.send(line)
    }

    /// Writes the queued lines and `prompt` now, without waiting; the answer's limit starts
    /// here. A fault is recorded at `at`.
    pub fn prompt(&mut self, prompt: &str, at: At<'_>) -> Result<Asked, BotError> {
        let limit = self.options.limits.answer;
        if let Some(turn) = at.turn.filter(|&turn| self.noted_turn != Some(turn))
            && self.is_running()
        {
            self.noted_turn = Some(turn);
            self.transcript.note_turn(turn);
        }
        let asked = self.running()?.prompt(prompt, limit);
        let asked = asked.map_err(|error| self.record(&error, at))?;
        if let Some(record) = &mut self.record {
            record.abandon_waiting();
            record.waiting = Some(record.record.reserve(record.seat, self.round, at.turn));
        }
        Ok(asked)
    }

    /// Waits for the answer to the prompt `asked` came from. A late answer, a crash, a closed
    /// stdout or a bad line stops the bot and is recorded at `at`.
    /// A learning bot's data folder is checked after each answer: one over its cap, or holding
    /// a link or a special file, stops the bot then (so a bot filling it writes at most an
    /// answer's worth past its cap), as a fault.
    pub async fn answer(&mut self, asked: Asked, at: At<'_>) -> Result<Answer, BotError> {
        let answer = self.running()?.answer(asked).await;
        self.answered(answer, at).await
    }

    /// [`Seat::ask`] for a game that asks from a thread of its own, one bot at a time: a quick
    /// answer is waited for in `poll(2)` on this thread with no runtime; `runtime` waits for
    /// any other (see [`BotProcess::answer_polled`](crate::BotProcess)), so the limits, the
    /// faults and what is recorded are [`Seat::ask`]'s.
    pub fn ask_polled(
        &mut self,
        prompt: &str,
        at: At<'_>,
        runtime: &tokio::runtime::Runtime,
    ) -> Result<Answer, BotError> {
        let asked = self.prompt(prompt, at)?;
        let answer = match self.running()?.answer_polled(asked) {
            Polled::Answered(answer) => answer,
            Polled::Slow(asked) => runtime.block_on(self.running()?.answer(asked)),
        };
        match self.spec.data {
            Some(_) => runtime.block_on(self.answered(answer, at)),
            None => self.take_answer(answer, at),
        }
    }

    /// An answer (or the fault instead), recorded.
    fn take_answer(
        &mut self,
        answer: Result<Answer, BotError>,
        at: At<'_>,
    ) -> Result<Answer, BotError> {
        let answer = answer.map_err(|error| self.record(&error, at))?;
        if let Some(record) = &mut self.record
            && let Some(place) = record.waiting.take()
        {
            record.record.answer(place, &answer.line);
        }
        Ok(answer)
    }

    /// An answer (or the fault instead), recorded, and a learning bot's data folder checked.
    async fn answered(
        &mut self,
        answer: Result<Answer, BotError>,
        at: At<'_>,
    ) -> Result<Answer, BotError> {
        let answer = self.take_answer(answer, at)?;
        if let Some(ask) = self.spec.data {
            let cap = DataCap::of_mb(ask.mb.unwrap_or(DEFAULT_CAP_MB));
            if let Err(reason) = data::check(&self.spec.dir.join(DATA_FOLDER), cap) {
                let error = BotError::Data { reason };
                self.record(&error, at);
                self.stop().await;
                return Err(error);
            }
        }
        Ok(answer)
    }

    /// [`Seat::prompt`], then [`Seat::answer`].
    pub async fn ask(&mut self, prompt: &str, at: At<'_>) -> Result<Answer, BotError> {
        let asked = self.prompt(prompt, at)?;
        self.answer(asked, at).await
    }

    /// Records a fault the game found (an answer its rules refuse), in the current round.
    pub fn fault(&mut self, kind: FaultKind, turn: Option<u32>, reason: String) {
        if let Some(record) = &mut self.record {
            let at = FaultAt {
                seat: record.seat,
                round: self.round,
                turn,
                place: record.waiting.take(),
            };
            record.record.fault(at, kind.as_str(), &reason);
        }
        self.faults.push(Fault {
            bot: self.spec.name.clone(),
            kind,
            round: Some(self.round),
            turn,
            reason,
        });
    }

    /// Kills the bot's process now, after a fault the game found that ends its round (or, with
    /// [`Restart::Never`], its match).
    pub async fn stop(&mut self) {
        if let Some(record) = &mut self.record {
            record.abandon_waiting();
        }
        if let Some(process) = self.process.take() {
            self.ended_timing.merge(process.stats());
            process.kill().await;
        }
    }

    /// Ends the process after the last line of its round (with [`Restart::EveryRound`]) or of
    /// the match: its input is closed and it has the exit limit to end; a late exit is recorded,
    /// its reason after `context`, unless the game's [`Ending`] is [`Ending::Dropped`]. A stopped
    /// process (or none) just goes.
    pub async fn finish(&mut self, context: &str) {
        let Some(process) = self.process.take() else {
            return;
        };
        self.ended_timing.merge(process.stats());
        if process.is_stopped() {
            process.kill().await;
        } else if let Some(late) = process
            .finish(self.options.limits.exit, self.options.ending)
            .await
        {
            // koth's fault, not the bot's: counted as a starved time-out is, so that a
            // tournament plays the game again.
            if matches!(late, BotError::StarvedExit { .. }) {
                self.ended_timing.starved_timeouts += 1;
            }
            self.record(
                &late,
                At {
                    turn: None,
                    context,
                },
            );
        }
    }

    /// Enters round `round` without starting a process, for a game that runs a WASI bot's
    /// module itself (the rat race's direct call): its faults are recorded in that round, and
    /// its stderr goes to [`Seat::stderr`].
    pub fn enter_round(&mut self, round: u32) {
        self.round = round;
        if let Some(record) = &self.record {
            record.record.round(round);
        }
    }

    /// The bot's capped stderr log.
    pub fn stderr(&self) -> &StderrLog {
        &self.stderr
    }

    /// The faults of the bot so far, kept and counted.
    pub fn faults(&self) -> &FaultLog {
        &self.faults
    }

    /// How the bot's answers went, over all its processes.
    pub fn timing(&self) -> AnswerStats {
        let mut timing = self.ended_timing.clone();
        if let Some(process) = &self.process {
            timing.merge(process.stats());
        }
        timing
    }

    /// CPU time the running process has used so far.
    pub fn cpu_time(&self) -> Option<Duration> {
        self.process.as_ref()?.cpu_time()
    }

    /// The running process, or the error that says why there is none: a bot stopped by a fault
    /// answers every later request with that fault, which is not recorded again.
    fn running(&mut self) -> Result<&mut Running, BotError> {
        match (&mut self.process, &self.start_error) {
            (Some(process), _) => Ok(process),
            (None, Some(error)) => Err(BotError::Stopped(Box::new(error.clone()))),
            (None, None) => Err(BotError::NotRunning),
        }
    }

    /// Records `error` at `at` in the current round, unless it only repeats a fault already
    /// recorded; returns it.
    fn record(&mut self, error: &BotError, at: At<'_>) -> BotError {
        if !matches!(error, BotError::Stopped(_) | BotError::NotRunning) {
            self.fault(error.kind(), at.turn, format!("{}{error}", at.context));
        }
        error.clone()
    }
}

/// The files a bot has for a match: a WASI bot's scratch folder (its `/tmp`), and the game's
/// private file emptied, in the scratch folder of a WASI bot (the only folder it may write),
/// else in the bot's folder.
pub fn prepare_files(
    spec: &BotSpec,
    private_file: Option<&str>,
) -> anyhow::Result<Option<tempfile::TempDir>> {
    let scratch = match spec.wasm_module() {
        Some(_) => Some(
            tempfile::Builder::new()
                .prefix("koth-wasi-")
                .tempdir()
                .with_context(|| format!("{spec}: cannot create its scratch folder"))?,
        ),
        None => None,
    };
    if let Some(file) = private_file {
        let folder = scratch.as_ref().map_or(spec.dir.as_path(), |s| s.path());
        let path = folder.join(file);
        std::fs::File::create(&path)
            .with_context(|| format!("{spec}: cannot empty {}", path.display()))?;
    }
    Ok(scratch)
}

/// A file name per bot, from its folder (with a number appended when two bots share a folder).
pub fn slugs(bots: &[BotSpec]) -> Vec<String> {
    let mut used = HashSet::new();
    bots.iter()
        .map(|bot| {
            let base = bot
                .dir
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| bot.name.replace(|c: char| !c.is_alphanumeric(), "-"));
            let mut slug = base.clone();
            let mut copy = 1;
            while !used.insert(slug.clone()) {
                copy += 1;
                slug = format!("{base}-{copy}");
            }
            slug
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limits_note_reads_back_as_the_limits_it_states() {
        for limits in [
            Limits::uniform(Duration::from_millis(250)),
            Limits {
                answer: Duration::from_millis(100),
                exit: Duration::from_millis(3000),
                clock: Clock::Cpu {
                    backstop: Duration::from_millis(5000),
                },
                answer_fuel: Some(20_000_000),
                exit_fuel: Some(5_000_000),
            },
        ] {
            let note = limits_note(&limits);
            let text = note.strip_prefix(LIMITS_NOTE).unwrap();
            assert_eq!(parse_limits_note(text), Some(limits), "{note}");
        }
        for damaged in [
            "answer_ms=0",
            "answer_ms=x",
            "speed=3",
            "clock=cpu",
            "answer_ms",
        ] {
            assert_eq!(parse_limits_note(damaged), None, "{damaged}");
        }
    }
}
