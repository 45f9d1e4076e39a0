//! One running bot: its process group, its pipes, its time limits.
//!
//! A [`BotProcess`] writes whole lines to the bot's stdin and reads whole answer lines from its
//! stdout. Lines that need no answer are queued and go out with the next prompt, in one write.
//! Asking is two steps, [`BotProcess::prompt`] (write now, never wait) and
//! [`BotProcess::answer`] (wait for the line), so a game can put all of a phase's prompts on
//! their way back to back before it waits for any answer; [`BotProcess::ask`] does both.
//!
//! Answers are read while one is awaited, into a buffer the process keeps: a partial line stays
//! there when a timeout cancels the wait, which is what makes time limits safe (a `read_line`
//! future wrapped in a timeout would lose half a line). The reader caps line length, so a bot
//! that prints forever without a newline costs a bounded amount of memory.
//!
//! The first fault a bot commits (late answer, crash, closed stdout, garbage, endless line,
//! broken pipe) stops it: its whole process group is killed and every later request fails at
//! once with the same error. A late answer would otherwise be read as the answer to the next
//! prompt. Games record the fault and treat the bot as silent.
//!
//! Each bot runs in its own process group, so killing the group also kills whatever the bot
//! started (a shell script's children, a JVM's helpers). Live groups are registered globally so
//! that [`super::kill_all`] can clean up when koth itself is interrupted.

use std::io::IoSlice;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use futures::FutureExt;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin};

use super::cgroup::BotGroups;
use super::clock::{STARTUP_GRACE, tree_cpu_time};
use super::lines::{LineReader, MAX_LINE, ReadEvent};
use super::live::kill_group;
use super::sandbox::{self, Started};
use super::spec::Sandbox;
use super::starvation::{self, SAMPLE_AFTER, Waits};
use super::{Answer, AnswerStats, BotError, BotSpec, Clock, StderrLog, Transcript, Unanswered};

mod ending;
mod polled;
mod spawn;

pub(crate) use polled::Polled;

/// The CPU time a contained bot may use between an answer and its next prompt before it is
/// frozen (its control group's freezer) between every answer and the next prompt from then on:
/// a bot that is not asked anything must not take CPU from the bot that is, as a bot whose
/// children go on thinking during the other bots' turns would. Freezing and thawing costs
/// about 60 µs a prompt (cgroup v2), so a bot that rests between prompts, as bots do, is never
/// frozen and pays nothing; the first gap past this amount costs a restless bot the rest.
const RESTLESS: Duration = Duration::from_millis(10);

/// The shortest gap between an answer and the next prompt in which a bot's work is looked at.
/// Reading a control group's CPU time costs microseconds (v2's `cpu.stat` flushes the kernel's
/// counters), too much for every answer of a game that asks thousands a second; in a shorter
/// gap a bot cannot do [`RESTLESS`]'s worth of work on the CPUs a machine has, and what it did
/// there is still counted at the next gap that is looked at.
const LOOKED_AT_GAP: Duration = Duration::from_millis(2);

/// A prompt on its way to a bot, from [`BotProcess::prompt`]: what [`BotProcess::answer`] needs
/// to time the answer.
#[must_use = "a prompt's answer is read with BotProcess::answer"]
pub struct Asked {
    /// When the limit started: before writing, since writing counts against it too.
    started: Instant,
    /// Whether the whole prompt went into the pipe at once (else `answer` writes the rest).
    written: bool,
    limit: Duration,
    grace: Duration,
    cpu_before: Option<Duration>,
    /// The prompt could not be written: the bot had stopped reading. Why (an exit, with its
    /// status) is told when its answer is awaited.
    broken: Option<BotError>,
}

impl Asked {
    /// A prompt handed over whole now, with `limit` (and `grace` on top) for its answer.
    pub(super) fn at_once(limit: Duration, grace: Duration) -> Asked {
        Asked {
            started: Instant::now(),
            written: true,
            limit,
            grace,
            cpu_before: None,
            broken: None,
        }
    }

    /// When the limit started, the limit and its grace.
    pub(super) fn timing(&self) -> (Instant, Duration, Duration) {
        (self.started, self.limit, self.grace)
    }
}

/// A running bot.
pub struct BotProcess {
    child: Child,
    pgid: i32,
    /// A contained bot once `bwrap` runs: which process is the bot (the CPU clock reads its
    /// time, not `bwrap`'s), and its control groups, removed once it has ended.
    started: Option<Started>,
    /// The containment the bot runs in, and its working folder, to name the limit that
    /// ended it.
    sandbox: Option<Sandbox>,
    dir: PathBuf,
    stdin: Option<ChildStdin>,
    /// Bytes for stdin not yet written: lines queued by `send`, or the part of a prompt the
    /// pipe had no room for.
    outbox: Vec<u8>,
    stdout: LineReader,
    stderr: StderrLog,
    stderr_task: Option<tokio::task::JoinHandle<()>>,
    /// The first fault, once the bot has been stopped.
    stopped: Option<BotError>,
    clock: Clock,
    stats: AnswerStats,
    /// Whether the next answer is the first, which gets [`STARTUP_GRACE`] on top of its limit.
    first_answer: bool,
    /// The CPU time of the bot's control group when it was last looked at (a prompt after a
    /// long enough gap), and how much of what it used since it may have used answering: the
    /// time it was given for its answers since, times the CPUs it may use.
    cpu_mark: Option<(Duration, Duration)>,
    /// When the bot last answered.
    answered_at: Option<Instant>,
    /// Whether the bot was seen to work between its prompts ([`RESTLESS`]): it is then frozen
    /// from each answer to its next prompt.
    restless: bool,
    /// Whether the bot is frozen now.
    frozen: bool,
    transcript: Option<Transcript>,
    /// How the bot's language flushes its stdout, for a time-out's hint, if koth can tell.
    flush: Option<&'static str>,
}

impl BotProcess {
    /// Starts `spec`'s command in its folder, in a new process group, with piped stdio.
    pub fn spawn(spec: &BotSpec, stderr: &StderrLog) -> Result<BotProcess, BotError> {
        Self::start(spec, stderr, None)
    }

    /// Like [`spawn`](Self::spawn), for games whose messages or answers are far longer than a
    /// pipe's default 64 KiB: the bot's stdin and stdout pipes are enlarged to `pipe_bytes`, so
    /// a message goes through in one write instead of the two sides waking each other per
    /// 64 KiB. Best effort: where the system refuses (`/proc/sys/fs/pipe-max-size`, a user's
    /// pipe-buffer quota), the pipes keep their default size. Not the default for every game,
    /// because enlarged pipes count against that per-user quota.
    pub fn spawn_with_pipes(
        spec: &BotSpec,
        stderr: &StderrLog,
        pipe_bytes: usize,
    ) -> Result<BotProcess, BotError> {
        Self::start(spec, stderr, Some(pipe_bytes))
    }

    /// Records every line sent to and received from the bot from now on.
    pub fn set_transcript(&mut self, transcript: Transcript) {
        self.transcript = Some(transcript);
    }

    /// Records `text`'s lines with `marker`; for a prompt (`?`), only its last line is the one
    /// answered, the lines before it are sent (`>`) like any report.
    fn record(&self, marker: u8, text: &str) {
        if let Some(transcript) = &self.transcript {
            transcript.record(marker, text);
        }
    }

    /// The caps of its containment that ended a contained bot, named as a person reads them.
    fn caps_hit(&self, status: &ExitStatus) -> Option<String> {
        let sandbox = self.sandbox.as_ref()?;
        let groups = self.started.as_ref().and_then(|s| s.groups.as_deref());
        let hit: Vec<String> = (groups.and_then(BotGroups::caps_hit))
            .into_iter()
            .chain(sandbox::limit_hit(
                sandbox,
                &self.dir,
                status,
                self.stderr.said_file_too_large(),
            ))
            .collect();
        (!hit.is_empty()).then(|| hit.join(", "))
    }

    /// The process the CPU clock measures: the bot's own, inside its sandbox if contained.
    /// `None` for a contained bot until bwrap has named its process.
    fn cpu_pid(&self) -> Option<i32> {
        match &self.started {
            Some(started) => started.bot_pid(),
            None => Some(self.pgid),
        }
    }

    /// The OS process id of the bot (its process group leader).
    pub fn pid(&self) -> i32 {
        self.pgid
    }

    /// CPU time the bot has used so far: every process of it, its children and theirs (its
    /// control group's count where it has one, else its process tree's). A bot that thinks in a
    /// child it forked is charged for it; `None` for a contained bot until bwrap has named its
    /// process.
    pub fn cpu_time(&self) -> Option<Duration> {
        self.cpu_meter()()
    }

    /// [`cpu_time`](Self::cpu_time) as a function that holds no borrow of the process, for use
    /// while an answer is awaited.
    fn cpu_meter(&self) -> impl Fn() -> Option<Duration> + use<> {
        let groups = self.started.as_ref().and_then(|s| s.groups.clone());
        let pid = self.cpu_pid();
        move || {
            groups
                .as_deref()
                .and_then(BotGroups::cpu_usage)
                .or_else(|| tree_cpu_time(pid?))
        }
    }

    fn groups(&self) -> Option<&BotGroups> {
        self.started.as_ref()?.groups.as_deref()
    }

    /// Thaws a bot frozen between its prompts (see [`RESTLESS`]).
    fn thaw(&mut self) {
        if std::mem::take(&mut self.frozen)
            && let Some(groups) = self.groups()
        {
            groups.freeze(false);
        }
    }

    /// Chooses the clock that `ask`'s limit is measured on. With [`Clock::Cpu`] every answer's CPU
    /// time is read from `/proc` (two small reads per answer), the wait lasts up to the wall-clock
    /// backstop, and an answer that used more CPU than the limit is a timeout.
    pub fn set_clock(&mut self, clock: Clock) {
        self.clock = clock;
    }

    /// Timing figures of this process's answers so far.
    pub fn stats(&self) -> &AnswerStats {
        &self.stats
    }

    /// Whether the bot was stopped by a fault.
    pub(crate) fn is_stopped(&self) -> bool {
        self.stopped.is_some()
    }

    /// Queues a line that needs no answer. It goes out with the next prompt, in the same write,
    /// or when the conversation ends ([`finish`](Self::finish)).
    pub fn send(&mut self, line: &str) -> Result<(), BotError> {
        self.check_running()?;
        self.record(b'>', line);
        self.outbox.extend_from_slice(line.as_bytes());
        self.outbox.push(b'\n');
        Ok(())
    }

    /// Sends `prompt` and waits up to `limit` for one answer line (plus [`STARTUP_GRACE`] for
    /// the process's first answer): [`prompt`](Self::prompt), then [`answer`](Self::answer).
    pub async fn ask(&mut self, prompt: &str, limit: Duration) -> Result<Answer, BotError> {
        let asked = self.prompt(prompt, limit)?;
        self.answer(asked).await
    }

    /// Writes any queued lines and `prompt` now, in one write, without waiting: whatever the
    /// pipe has no room for is written by [`answer`](Self::answer). The limit for the answer
    /// starts here. Lines the bot printed unasked are dropped first, so they cannot be taken
    /// for the answer.
    pub(crate) fn prompt(&mut self, prompt: &str, limit: Duration) -> Result<Asked, BotError> {
        self.check_running()?;
        self.thaw();
        if !self.restless
            && self
                .answered_at
                .is_some_and(|at| at.elapsed() >= LOOKED_AT_GAP)
            && let Some(groups) = self.groups()
            && groups.can_freeze()
            && let Some(now) = groups.cpu_usage()
        {
            if let Some((then, answering)) = self.cpu_mark {
                self.restless = now.saturating_sub(then).saturating_sub(answering) > RESTLESS;
            }
            self.cpu_mark = Some((now, Duration::ZERO));
        }
        let grace = if std::mem::take(&mut self.first_answer) {
            STARTUP_GRACE
        } else {
            Duration::ZERO
        };
        let transcript = &self.transcript;
        self.stdout.drop_unasked_lines(|line| {
            if let Some(transcript) = transcript {
                transcript.note_unasked(&String::from_utf8_lossy(line));
            }
        });
        self.record(b'?', prompt);
        let cpu_before = match self.clock {
            Clock::Wall => None,
            // A contained bot whose process bwrap has not named yet has run no code of its
            // own.
            Clock::Cpu { .. } => self.cpu_time().or(Some(Duration::ZERO)),
        };
        let started = Instant::now();
        let (written, broken) = match self.write_now(prompt) {
            Ok(written) => (written, None),
            Err(broken @ BotError::BrokenPipe { .. }) => (true, Some(broken)),
            Err(e) => return Err(self.stop(e)),
        };
        Ok(Asked {
            started,
            written,
            limit,
            grace,
            cpu_before,
            broken,
        })
    }

    /// Waits for the answer to the prompt `asked` came from, until its limit. A late answer,
    /// a crash, a closed stdout or a bad line stops the bot.
    pub(crate) async fn answer(&mut self, asked: Asked) -> Result<Answer, BotError> {
        let Asked {
            started,
            written,
            limit,
            grace,
            cpu_before,
            broken,
        } = asked;
        if let Some(broken) = broken {
            let fault = self.why_it_stopped_reading(broken).await;
            return Err(self.stop(fault));
        }
        let allowed = limit + grace;
        let wait = match self.clock {
            Clock::Wall => allowed,
            Clock::Cpu { backstop } => backstop.max(allowed),
        };
        // The process whose run-queue figures are read: none for a contained bot bwrap has not
        // named yet, whose time-outs are then its own.
        let pid = self.cpu_pid();
        let meter = self.cpu_meter();
        let (result, waits) = {
            let read = self.read_answer(started, written, cpu_before);
            tokio::pin!(read);
            // Two steps, so an answer that is not quick has the run-queue figures taken at its
            // start, to tell whether a time-out was the bot's fault (see `starvation`).
            let early = SAMPLE_AFTER.min(wait);
            match tokio::time::timeout_at((started + early).into(), &mut read).await {
                Ok(result) => (Ok(result), None),
                Err(_) => {
                    let waits = pid.and_then(|pid| Waits::now(pid, meter()?));
                    let result = tokio::time::timeout_at((started + wait).into(), read).await;
                    (result, waits)
                }
            }
        };
        let cpu_now = waits.and_then(|_| meter());
        // Whether a time-out of an answer that was allowed `allowed` was koth's fault.
        let starved = |allowed: Duration| {
            let waited = waits?.starved_since(pid?, cpu_now?)?;
            starvation::starved(waited, allowed).then_some(BotError::Starved {
                limit: allowed,
                waited,
            })
        };
        let result = match result {
            Ok(Ok(answer)) => self.judge(answer, limit, grace, &starved),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(starved(wait).unwrap_or_else(|| self.timed_out(limit, grace, wait))),
        };
        if let Err(BotError::Starved { .. }) = result {
            self.stats.starved_timeouts += 1;
        }
        result.map_err(|e| self.stop(e))
    }

    /// Reads the answer line to a prompt written at `started` (or still queued, unless
    /// `written`), with its wall time from when the prompt was in the pipe and the CPU time
    /// the bot used since `cpu_before`; with no limit of its own (the caller's).
    async fn read_answer(
        &mut self,
        started: Instant,
        written: bool,
        cpu_before: Option<Duration>,
    ) -> Result<Answer, BotError> {
        // Measured from when the prompt was in the pipe.
        let sent = if written {
            started
        } else {
            if let Err(broken) = self.write_queued().await {
                return Err(self.why_it_stopped_reading(broken).await);
            }
            Instant::now()
        };
        // Watching the process as well as its stdout tells a crash at once even when a child
        // of the bot still holds the pipe open. A line already on its way still counts: the
        // reader gets a moment to take it.
        let event = tokio::select! {
            biased;
            event = self.stdout.next() => event,
            _ = self.child.wait() => {
                tokio::time::timeout(Duration::from_millis(50), self.stdout.next())
                    .await
                    .unwrap_or(ReadEvent::Closed)
            }
        };
        match event {
            ReadEvent::Line(line) => Ok(Answer {
                wall: sent.elapsed(),
                cpu: cpu_before.and_then(|before| Some(self.cpu_time()?.saturating_sub(before))),
                line,
            }),
            ReadEvent::TooLong => Err(BotError::LineTooLong { max: MAX_LINE }),
            ReadEvent::NotUtf8 => Err(BotError::NotUtf8),
            ReadEvent::Closed => Err(self.closed_error().await),
        }
    }

    /// An answer that came before the wait ran out, recorded, and held to its limit (`limit`
    /// and `grace`) on the bot's clock: over it on the wall clock is koth's fault when the bot
    /// was kept from the CPU (`starved`), else a time-out.
    fn judge(
        &mut self,
        answer: Answer,
        limit: Duration,
        grace: Duration,
        starved: &impl Fn(Duration) -> Option<BotError>,
    ) -> Result<Answer, BotError> {
        let allowed = limit + grace;
        self.record(b'<', &answer.line);
        self.rest(answer.wall);
        let used = match (self.clock, answer.cpu) {
            (Clock::Cpu { .. }, Some(cpu)) => cpu,
            _ => answer.wall,
        };
        self.stats.record(&answer, used, allowed);
        match self.clock {
            Clock::Cpu { .. } if used > allowed => Err(BotError::CpuTimeout {
                used,
                limit: allowed,
            }),
            Clock::Wall if used > allowed => Err(starved(allowed).unwrap_or(BotError::Timeout {
                limit,
                grace,
                stdout: Unanswered::Answered,
            })),
            _ => Ok(answer),
        }
    }

    /// The time-out of an answer that did not come within `wait`, with what the bot's stdout
    /// held (the likely mistake behind it).
    fn timed_out(&mut self, limit: Duration, grace: Duration, wait: Duration) -> BotError {
        let stdout = self.stdout.unanswered(self.flush);
        match self.clock {
            Clock::Wall => BotError::Timeout {
                limit,
                grace,
                stdout,
            },
            // The CPU clock's wall-clock backstop ran out.
            Clock::Cpu { .. } => BotError::Timeout {
                limit: wait,
                grace: Duration::ZERO,
                stdout,
            },
        }
    }

    /// After an answer that took `wall`: counts it as time the bot may have used answering,
    /// and freezes a restless bot until its next prompt.
    fn rest(&mut self, wall: Duration) {
        self.answered_at = Some(Instant::now());
        match &mut self.cpu_mark {
            Some((_, answering)) => *answering += wall * cpus(),
            // The first mark, at the process's first answer.
            None => {
                self.cpu_mark = self
                    .groups()
                    .filter(|g| g.can_freeze())
                    .and_then(BotGroups::cpu_usage)
                    .map(|now| (now, Duration::ZERO))
            }
        }
        if self.restless
            && let Some(groups) = self.groups()
        {
            groups.freeze(true);
            self.frozen = true;
        }
    }

    /// Writes the queued lines and `line` with as few system calls as the pipe allows (one, as
    /// a rule), without waiting. Returns whether everything went; the rest stays queued.
    fn write_now(&mut self, line: &str) -> Result<bool, BotError> {
        let stdin = self.stdin.as_mut().ok_or_else(input_closed)?;
        let total = self.outbox.len() + line.len() + 1;
        let mut written = 0;
        {
            let mut parts = [
                IoSlice::new(&self.outbox),
                IoSlice::new(line.as_bytes()),
                IoSlice::new(b"\n"),
            ];
            let mut rest = &mut parts[..];
            while written < total {
                match stdin.write_vectored(rest).now_or_never() {
                    Some(Ok(0)) => return Err(broken_pipe(std::io::ErrorKind::WriteZero.into())),
                    Some(Ok(n)) => {
                        written += n;
                        IoSlice::advance_slices(&mut rest, n);
                    }
                    Some(Err(e)) => return Err(broken_pipe(e)),
                    None => break,
                }
            }
        }
        if written == total {
            self.outbox.clear();
            return Ok(true);
        }
        self.outbox.extend_from_slice(line.as_bytes());
        self.outbox.push(b'\n');
        self.outbox.drain(..written);
        Ok(false)
    }

    /// Writes the queued lines, waiting for the bot to read them.
    async fn write_queued(&mut self) -> Result<(), BotError> {
        let stdin = self.stdin.as_mut().ok_or_else(input_closed)?;
        while !self.outbox.is_empty() {
            match stdin.write(&self.outbox).await {
                Ok(0) => return Err(broken_pipe(std::io::ErrorKind::WriteZero.into())),
                Ok(n) => drop(self.outbox.drain(..n)),
                Err(e) => return Err(broken_pipe(e)),
            }
        }
        Ok(())
    }

    fn record_fault(&self, fault: &BotError) {
        self.record(b'!', &fault.with_status());
    }

    fn check_running(&self) -> Result<(), BotError> {
        match &self.stopped {
            Some(fault) => Err(BotError::Stopped(Box::new(fault.clone()))),
            None => Ok(()),
        }
    }

    /// Records the first fault and kills the bot's process group.
    fn stop(&mut self, fault: BotError) -> BotError {
        if self.stopped.is_none() {
            self.record_fault(&fault);
            self.stopped = Some(fault.clone());
            kill_group(self.pgid);
            self.stdin.take();
            self.outbox.clear();
        }
        fault
    }
}

/// How many CPUs a bot's processes may run on at once: koth's own allowance.
fn cpus() -> u32 {
    static CPUS: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *CPUS.get_or_init(|| {
        std::thread::available_parallelism().map_or(1, |n| u32::try_from(n.get()).unwrap_or(1))
    })
}

fn input_closed() -> BotError {
    BotError::BrokenPipe {
        reason: "its input was closed".into(),
    }
}

fn broken_pipe(error: std::io::Error) -> BotError {
    BotError::BrokenPipe {
        reason: error.to_string(),
    }
}
