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
//! that [`kill_all`] can clean up when koth itself is interrupted.

use std::collections::{BTreeSet, VecDeque};
use std::io::{IoSlice, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use futures::FutureExt;
use nix::fcntl::{FcntlArg, fcntl};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};
use thiserror::Error;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::cgroup::BotGroups;
use super::sandbox::{self, Launch, Sandbox, Started};
use super::{BotSpec, Clock, FaultKind};

/// The longest answer line accepted, in bytes. Longer lines are a fault: no protocol of koth's
/// needs more, and the cap bounds memory against a bot that never prints a newline.
pub const MAX_LINE: usize = 1 << 20;

/// Extra time for a process's first answer, which also pays for starting the process: an
/// interpreter or a JVM on a busy machine can take longer to start than a whole answer limit,
/// and arenas (CodinGame, Halite) give the first turn more time for the same reason.
pub const STARTUP_GRACE: Duration = Duration::from_secs(2);

/// How much of a bot's stderr is kept on disk per game by default.
pub const STDERR_CAP: u64 = 1 << 20;

/// Process groups of bots still running, so that an interrupted koth can kill them all.
static LIVE_GROUPS: Mutex<LiveGroups> = Mutex::new(LiveGroups {
    groups: BTreeSet::new(),
    closed: false,
});

struct LiveGroups {
    groups: BTreeSet<i32>,
    /// Set by [`kill_all`]: koth is going away, and a bot started from now on is killed at once
    /// (a game thread may be between starting a process and registering it).
    closed: bool,
}

fn live_groups() -> std::sync::MutexGuard<'static, LiveGroups> {
    LIVE_GROUPS.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) fn register(pgid: i32) {
    let mut live = live_groups();
    if live.closed {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    } else {
        live.groups.insert(pgid);
    }
}

pub(super) fn kill_group(pgid: i32) {
    // ESRCH (the group is already gone) is the expected, common case.
    let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    live_groups().groups.remove(&pgid);
}

/// Kills every bot process group koth started and has not yet cleaned up, and every one started
/// from now on. Called when koth is interrupted: bots live in their own process groups, so the
/// terminal's signal does not reach them.
pub fn kill_all() {
    let mut live = live_groups();
    live.closed = true;
    for pgid in std::mem::take(&mut live.groups) {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
}

/// Why a bot could not be talked to. The message is what users read in results and logs.
#[derive(Debug, Clone, Error, PartialEq)]
pub enum BotError {
    #[error("failed to start `{command}`: {reason}")]
    Spawn { command: String, reason: String },
    #[error("not started: {reason}")]
    Benched { reason: String },
    #[error("no answer within {} ms{}", limit.as_millis(), grace_note(*grace))]
    Timeout { limit: Duration, grace: Duration },
    #[error("used {} ms of CPU time for one answer (limit {} ms)", used.as_millis(), limit.as_millis())]
    CpuTimeout { used: Duration, limit: Duration },
    #[error("did not exit within {} ms after its last message", limit.as_millis())]
    NoExit { limit: Duration },
    #[error(
        "exited ({status}) while an answer was expected{}",
        tail_suffix(stderr_tail)
    )]
    Exited { status: String, stderr_tail: String },
    #[error(
        "closed its stdout while an answer was expected{}",
        tail_suffix(stderr_tail)
    )]
    ClosedStdout { stderr_tail: String },
    #[error("stopped reading its input ({reason})")]
    BrokenPipe { reason: String },
    #[error("printed a line of more than {max} bytes without a newline")]
    LineTooLong { max: usize },
    #[error("printed a line that is not UTF-8")]
    NotUtf8,
    #[error("was stopped earlier: {0}")]
    Stopped(Box<BotError>),
}

fn grace_note(grace: Duration) -> String {
    if grace.is_zero() {
        String::new()
    } else {
        format!(
            " (its first answer, with {} ms more for start-up)",
            grace.as_millis()
        )
    }
}

/// Every line sent to and received from a bot, each with the milliseconds since the transcript
/// was created, so a conversation can be read, or replayed to the bot later (`koth replay
/// --drive`). Each line starts with what it is:
/// - `> ms line`: sent, no answer expected; `? ms line`: sent, and the bot was asked to answer it;
/// - `< ms line`: the bot's answer; `! ms kind: reason`: the fault that stopped the bot;
/// - `# text`: a note of the caller's own, such as where a round begins.
///
/// Shared by every process of one bot in one game; game-agnostic, it stores lines as they are,
/// but bounded: a line over [`TRANSCRIPT_LINE_BYTES`] keeps only its start and its length
/// ([`super::cut_line`]), and a transcript stops at [`TRANSCRIPT_BYTES`] with a note
/// ([`TRANSCRIPT_FULL_NOTE`]), whatever a bot sends. A transcript larger than
/// [`TRANSCRIPT_COMPRESS_ABOVE`] is gzipped when its last handle is dropped (`<name>.txt`
/// becomes `<name>.txt.gz`); [`Transcript::read`] reads either form.
#[derive(Clone)]
pub struct Transcript {
    inner: Arc<Mutex<TranscriptFile>>,
    start: Instant,
}

/// The most of one line a transcript keeps: far more than any line koth sends, or any sensible
/// answer, while a bot answering a megabyte at every prompt costs 4 KiB a line.
pub const TRANSCRIPT_LINE_BYTES: usize = 4096;

/// The most a transcript holds, per bot and game, before it is gzipped.
pub const TRANSCRIPT_BYTES: u64 = 8 << 20;

/// The note that ends a transcript cut at [`TRANSCRIPT_BYTES`]; nothing is recorded after it.
pub const TRANSCRIPT_FULL_NOTE: &str = "koth: transcript full";

/// A transcript up to this size stays plain text, readable with any pager; a larger one (a long
/// game of many bots) is gzipped, which shrinks these repetitive lines four- to fivefold.
pub const TRANSCRIPT_COMPRESS_ABOVE: u64 = 1 << 20;

/// The file behind a [`Transcript`]. Plain while the game runs, so a transcript can be followed
/// live and a koth killed mid-game leaves readable text; compressed, if large, once complete.
struct TranscriptFile {
    /// Buffered: a write per line would double koth's system calls per answer. The buffer is
    /// emptied at every note (each round's start), when the last handle is dropped, and when
    /// koth is interrupted ([`flush_transcripts`]).
    writer: std::io::BufWriter<std::fs::File>,
    path: PathBuf,
    /// Bytes written so far, held under [`TRANSCRIPT_BYTES`].
    written: u64,
    /// Whether the transcript reached [`TRANSCRIPT_BYTES`] and records nothing more.
    full: bool,
}

impl TranscriptFile {
    /// Writes `parts` as one line if there is room for it; the first line there is no room for
    /// is replaced by the [`TRANSCRIPT_FULL_NOTE`], after which nothing is written.
    fn write_line(&mut self, parts: &[&[u8]]) {
        if self.full {
            return;
        }
        let len: usize = parts.iter().map(|part| part.len()).sum();
        // Room is kept for the note itself.
        if self.written + len as u64 + 100 > TRANSCRIPT_BYTES {
            self.full = true;
            let _ = writeln!(
                self.writer,
                "# {TRANSCRIPT_FULL_NOTE} at {TRANSCRIPT_BYTES} bytes: the rest of the game is \
                 not recorded"
            );
            return;
        }
        self.written += len as u64;
        // A transcript is a record, not part of the game: a full disk must not fault the bot.
        let _ = parts
            .iter()
            .try_for_each(|part| self.writer.write_all(part));
    }
}

impl Drop for TranscriptFile {
    fn drop(&mut self) {
        // A transcript is a record, not part of the game: failing to compress keeps it plain.
        let large = |path: &Path| {
            std::fs::metadata(path).is_ok_and(|m| m.len() > TRANSCRIPT_COMPRESS_ABOVE)
        };
        if self.writer.flush().is_ok() && large(&self.path) {
            let _ = gzip_in_place(&self.path);
        }
    }
}

/// `path` with `.gz` appended: where a compressed transcript goes.
fn gz_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".gz");
    PathBuf::from(name)
}

/// Replaces `path` with `path.gz`; on any error the plain file is kept and no `.gz` is left.
fn gzip_in_place(path: &Path) -> std::io::Result<()> {
    let target = gz_path(path);
    let result = (|| {
        let mut plain = std::fs::File::open(path)?;
        let file = std::io::BufWriter::new(std::fs::File::create(&target)?);
        let mut encoder = flate2::write::GzEncoder::new(file, flate2::Compression::default());
        std::io::copy(&mut plain, &mut encoder)?;
        // finish() ends the gzip stream (its trailer); the BufWriter must then be flushed too.
        encoder.finish()?.flush()
    })();
    match result {
        Ok(()) => std::fs::remove_file(path),
        Err(e) => {
            let _ = std::fs::remove_file(&target);
            Err(e)
        }
    }
}

/// Transcripts still open, so that an interrupted koth can write out what they hold.
static LIVE_TRANSCRIPTS: Mutex<Vec<std::sync::Weak<Mutex<TranscriptFile>>>> =
    Mutex::new(Vec::new());

/// Writes out the buffered lines of every open transcript. Called when koth is stopped, after
/// [`kill_all`]: koth then exits without running destructors, and the lines of the round being
/// played — often the very moment a bot author wants to see — would be lost.
pub fn flush_transcripts() {
    let live = LIVE_TRANSCRIPTS.lock().unwrap_or_else(|e| e.into_inner());
    for file in live.iter().filter_map(std::sync::Weak::upgrade) {
        let _ = file
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .writer
            .flush();
    }
}

impl Transcript {
    pub fn create(path: &Path) -> std::io::Result<Transcript> {
        let inner = Arc::new(Mutex::new(TranscriptFile {
            writer: std::io::BufWriter::new(std::fs::File::create(path)?),
            path: path.to_path_buf(),
            written: 0,
            full: false,
        }));
        let mut live = LIVE_TRANSCRIPTS.lock().unwrap_or_else(|e| e.into_inner());
        live.retain(|file| file.strong_count() > 0);
        live.push(Arc::downgrade(&inner));
        Ok(Transcript {
            inner,
            start: Instant::now(),
        })
    }

    /// The name `x` of the transcript file `file_name` (`x.txt`, or `x.txt.gz` once compressed);
    /// `None` for any other file.
    pub fn stem(file_name: &str) -> Option<&str> {
        file_name
            .strip_suffix(".txt.gz")
            .or_else(|| file_name.strip_suffix(".txt"))
    }

    /// The text of the transcript written at `path` (`x.txt`), whether it stayed plain or was
    /// compressed to `x.txt.gz`. The error names the file(s) looked for.
    pub fn read(path: &Path) -> anyhow::Result<String> {
        if path.is_file() {
            return crate::text::read(path);
        }
        let compressed = gz_path(path);
        let file = std::fs::File::open(&compressed).with_context(|| {
            format!(
                "no transcript {} (nor {})",
                path.display(),
                compressed.display()
            )
        })?;
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(file)
            .read_to_end(&mut bytes)
            .with_context(|| format!("cannot read {}", compressed.display()))?;
        crate::text::from_bytes(bytes, &compressed)
    }

    /// A `# ` line of the caller's own, such as where a round begins.
    pub fn note(&self, text: &str) {
        let mut file = self.lock();
        file.write_line(&[
            b"# ",
            super::cut_line(text, TRANSCRIPT_LINE_BYTES).as_bytes(),
            b"\n",
        ]);
        let _ = file.writer.flush();
    }

    /// Writes `marker ms line`, the line cut to [`TRANSCRIPT_LINE_BYTES`]. Every line of every
    /// bot passes through here, so it is written piece by piece into the buffer: through
    /// `writeln!` and the u128 of `as_millis` it was a fifth of koth's instructions per turn in a
    /// paths game.
    fn line(&self, marker: u8, line: &str) {
        let ms = self.start.elapsed().as_millis() as u64;
        let mut digits = itoa::Buffer::new();
        let line = super::cut_line(line, TRANSCRIPT_LINE_BYTES);
        self.lock().write_line(&[
            &[marker, b' '],
            digits.format(ms).as_bytes(),
            b" ",
            line.as_bytes(),
            b"\n",
        ]);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TranscriptFile> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn tail_suffix(tail: &str) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!("; last stderr: {tail}")
    }
}

impl BotError {
    /// `status: reason`, as a transcript's `!` line states a fault (e.g. `timeout: no answer
    /// within 1000 ms`).
    pub fn with_status(&self) -> String {
        format!("{}: {self}", self.status_name())
    }

    /// The status this error gives a bot, as results and transcripts name it.
    pub fn status_name(&self) -> &'static str {
        self.kind().status().as_str()
    }

    /// The fault category of this error, for results and leaderboards.
    pub fn kind(&self) -> FaultKind {
        match self {
            BotError::Spawn { .. } => FaultKind::FailedToStart,
            BotError::Benched { .. } => FaultKind::Benched,
            BotError::Timeout { .. } | BotError::CpuTimeout { .. } | BotError::NoExit { .. } => {
                FaultKind::TimedOut
            }
            BotError::Exited { .. }
            | BotError::ClosedStdout { .. }
            | BotError::BrokenPipe { .. } => FaultKind::Crashed,
            BotError::LineTooLong { .. } | BotError::NotUtf8 => FaultKind::BadOutput,
            BotError::Stopped(inner) => inner.kind(),
        }
    }
}

/// An answer line and how long the bot took to give it.
#[derive(Debug, Clone)]
pub struct Answer {
    pub line: String,
    /// From the end of writing the prompt to receiving the line.
    pub wall: Duration,
    /// CPU time the bot used for it, when measured (see [`BotProcess::set_clock`]).
    pub cpu: Option<Duration>,
}

/// How a bot's answers went against their time limit, summed over its processes in a game.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AnswerStats {
    pub answers: u64,
    pub max_wall_ms: f64,
    pub total_wall_ms: f64,
    /// Present when CPU time was measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cpu_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_cpu_ms: Option<f64>,
    /// Answers that took over 80% of the limit on the limit's clock: a bot close to timing out.
    pub near_misses: u64,
}

impl AnswerStats {
    /// Adds another process's figures (a bot restarted every round) to these.
    pub fn merge(&mut self, other: &AnswerStats) {
        self.answers += other.answers;
        self.max_wall_ms = self.max_wall_ms.max(other.max_wall_ms);
        self.total_wall_ms += other.total_wall_ms;
        self.max_cpu_ms = max_option(self.max_cpu_ms, other.max_cpu_ms, f64::max);
        self.total_cpu_ms = max_option(self.total_cpu_ms, other.total_cpu_ms, |a, b| a + b);
        self.near_misses += other.near_misses;
    }

    fn record(&mut self, answer: &Answer, used: Duration, limit: Duration) {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        self.answers += 1;
        self.max_wall_ms = self.max_wall_ms.max(ms(answer.wall));
        self.total_wall_ms += ms(answer.wall);
        if let Some(cpu) = answer.cpu {
            self.max_cpu_ms = Some(self.max_cpu_ms.unwrap_or(0.0).max(ms(cpu)));
            self.total_cpu_ms = Some(self.total_cpu_ms.unwrap_or(0.0) + ms(cpu));
        }
        if used.as_secs_f64() > 0.8 * limit.as_secs_f64() {
            self.near_misses += 1;
        }
    }
}

fn max_option(a: Option<f64>, b: Option<f64>, f: impl Fn(f64, f64) -> f64) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(f(a, b)),
        (a, b) => a.or(b),
    }
}

/// CPU time (user + system) used so far by process `pid`, from `/proc/<pid>/stat`. Counts every
/// thread of the process (a JVM's compiler threads included) but not its children.
pub fn cpu_time(pid: i32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may contain spaces and parentheses: fields are counted after
    // its closing parenthesis. utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split(' ').skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    // SAFETY: sysconf only reads a system constant.
    let ticks = unsafe { nix::libc::sysconf(nix::libc::_SC_CLK_TCK) }.max(1) as u64;
    Some(Duration::from_nanos(
        (utime + stime) * 1_000_000_000 / ticks,
    ))
}

/// What reading a bot's stdout gives: a line, or the reason reading stopped.
enum ReadEvent {
    Line(String),
    TooLong,
    NotUtf8,
    Closed,
}

/// A bot's stdout, cut into lines. Bytes read but not yet taken as a line wait in `buf`, so
/// [`LineReader::next`] can be cancelled at any await without losing anything.
struct LineReader {
    pipe: ChildStdout,
    buf: Vec<u8>,
    /// How much of `buf` is known to hold no newline, so a long line is searched once.
    scanned: usize,
}

/// Room made in a [`LineReader`]'s buffer before each read: one read takes an answer line,
/// however many arrived, without zeroing a large buffer for every process started.
const READ_CHUNK: usize = 4096;

impl LineReader {
    fn new(pipe: ChildStdout) -> LineReader {
        LineReader {
            pipe,
            buf: Vec::new(),
            scanned: 0,
        }
    }

    /// The next line, waiting for it. Cancel-safe, as [`LineReader::read_more`] is.
    async fn next(&mut self) -> ReadEvent {
        loop {
            if let Some(event) = self.take_line() {
                return event;
            }
            if self.buf.len() > MAX_LINE {
                return ReadEvent::TooLong;
            }
            match self.read_more().await {
                Ok(0) | Err(_) => return ReadEvent::Closed,
                Ok(_) => {}
            }
        }
    }

    /// A complete line already read, if there is one.
    fn take_line(&mut self) -> Option<ReadEvent> {
        let Some(found) = memchr::memchr(b'\n', &self.buf[self.scanned..]) else {
            self.scanned = self.buf.len();
            return None;
        };
        let end = self.scanned + found;
        let line = &self.buf[..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let event = if line.len() > MAX_LINE {
            ReadEvent::TooLong
        } else {
            match std::str::from_utf8(line) {
                Ok(text) => ReadEvent::Line(text.to_owned()),
                Err(_) => ReadEvent::NotUtf8,
            }
        };
        self.buf.drain(..=end);
        self.scanned = 0;
        Some(event)
    }

    /// Drops every complete line the bot printed without being asked, including what the pipe
    /// holds right now, without waiting: the next line read is then the answer to the next
    /// prompt. A strict request/answer protocol has no use for such lines, and the original
    /// controllers would have desynchronised instead.
    fn drop_unasked_lines(&mut self) {
        // Bounded, for a bot that prints as fast as koth reads.
        for _ in 0..16 {
            if let Some(last) = memchr::memrchr(b'\n', &self.buf) {
                self.buf.drain(..=last);
                self.scanned = 0;
            }
            if self.buf.len() > MAX_LINE {
                return;
            }
            // Without a readiness event since the last read this returns at once, with no
            // system call: tokio knows the pipe was drained.
            match self.read_more().now_or_never() {
                Some(Ok(n)) if n > 0 => {}
                _ => return,
            }
        }
    }

    /// Reads and throws away everything until end of file: a bot on its way out may still
    /// print, and must not block on a full pipe while koth waits for it to exit.
    async fn discard_to_end(&mut self) {
        loop {
            self.buf.clear();
            if !matches!(self.read_more().await, Ok(n) if n > 0) {
                return;
            }
        }
    }

    /// Appends what the pipe holds to the buffer (`Ok(0)` at end of file). Cancel-safe:
    /// `read_buf` reads nothing when cancelled.
    fn read_more(&mut self) -> impl Future<Output = std::io::Result<usize>> + '_ {
        self.buf.reserve(READ_CHUNK);
        self.pipe.read_buf(&mut self.buf)
    }
}

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
}

/// A bot's stderr log for one game: a file under the game's log folder, capped in size across
/// all the processes of that bot in the game, plus the last few lines kept in memory so fault
/// messages can quote them.
#[derive(Clone)]
pub struct StderrLog {
    inner: Arc<Mutex<StderrState>>,
}

struct StderrState {
    file: Option<std::fs::File>,
    path: PathBuf,
    written: u64,
    cap: u64,
    truncated: bool,
    tail: VecDeque<String>,
}

const TAIL_LINES: usize = 3;

impl StderrLog {
    /// Creates (or empties) the log file at `path`, keeping at most `cap` bytes.
    pub fn create(path: &Path, cap: u64) -> std::io::Result<StderrLog> {
        let file = std::fs::File::create(path)?;
        Ok(StderrLog {
            inner: Arc::new(Mutex::new(StderrState {
                file: Some(file),
                path: path.to_path_buf(),
                written: 0,
                cap,
                truncated: false,
                tail: VecDeque::new(),
            })),
        })
    }

    /// A log that keeps only the tail in memory, for callers that store no files.
    pub fn discard() -> StderrLog {
        StderrLog {
            inner: Arc::new(Mutex::new(StderrState {
                file: None,
                path: PathBuf::new(),
                written: 0,
                cap: 0,
                truncated: false,
                tail: VecDeque::new(),
            })),
        }
    }

    pub fn path(&self) -> PathBuf {
        self.lock().path.clone()
    }

    /// The last lines the bot wrote to stderr, joined with ` | `.
    pub fn tail(&self) -> String {
        let state = self.lock();
        state.tail.iter().cloned().collect::<Vec<_>>().join(" | ")
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, StderrState> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self, bytes: &[u8]) {
        let mut state = self.lock();
        for line in String::from_utf8_lossy(bytes).lines() {
            if !line.trim().is_empty() {
                if state.tail.len() == TAIL_LINES {
                    state.tail.pop_front();
                }
                let mut line = line.to_string();
                line.truncate(line.floor_char_boundary(200));
                state.tail.push_back(line);
            }
        }
        let room = state.cap.saturating_sub(state.written);
        let keep = (bytes.len() as u64).min(room) as usize;
        if keep > 0 {
            if let Some(file) = state.file.as_mut() {
                let _ = file.write_all(&bytes[..keep]);
            }
            state.written += keep as u64;
        }
        if keep < bytes.len() && !state.truncated {
            state.truncated = true;
            let cap = state.cap;
            if let Some(file) = state.file.as_mut() {
                let _ = writeln!(file, "\n[koth: stderr cut off after {cap} bytes]");
            }
        }
    }
}

/// A running bot.
pub struct BotProcess {
    name: String,
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
    transcript: Option<Transcript>,
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

    fn start(
        spec: &BotSpec,
        stderr: &StderrLog,
        pipe_bytes: Option<usize>,
    ) -> Result<BotProcess, BotError> {
        if let Some(reason) = &spec.benched {
            return Err(BotError::Benched {
                reason: reason.clone(),
            });
        }
        let spawn_error = |reason: String| BotError::Spawn {
            command: spec.command.join(" "),
            reason,
        };
        let launch = match &spec.sandbox {
            Some(sandbox) => Some(
                Launch::new(spec, sandbox)
                    .and_then(|launch| {
                        sandbox::hand_over(&spec.dir).with_context(|| {
                            format!("cannot hand {} to the bot", spec.dir.display())
                        })?;
                        Ok(launch)
                    })
                    .map_err(|e| spawn_error(format!("{e:#}")))?,
            ),
            None => None,
        };
        let mut command = match &launch {
            Some(launch) => launch.command(),
            None => {
                let mut command = Command::new(spec.program());
                command.args(&spec.command[1..]);
                command
            }
        };
        command
            .current_dir(&spec.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let mut child = command.spawn().map_err(|e| spawn_error(e.to_string()))?;
        // With process_group(0) the group id is the child's pid.
        let pgid = child.id().expect("a just-spawned child has a pid") as i32;
        let started = launch.map(|launch| launch.started(pgid));
        register(pgid);
        run_as_batch(pgid);
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        if let Some(bytes) = pipe_bytes {
            let size = || FcntlArg::F_SETPIPE_SZ(bytes.try_into().unwrap_or(i32::MAX));
            if let Some(stdin) = &stdin {
                let _ = fcntl(stdin, size());
            }
            let _ = fcntl(&stdout, size());
        }
        let stderr_pipe = child.stderr.take().expect("stderr is piped");
        // Fault messages quote this process's last words, not an earlier process's.
        stderr.lock().tail.clear();
        let log = stderr.clone();
        let stderr_task = tokio::spawn(async move {
            let mut pipe = stderr_pipe;
            let mut buf = vec![0u8; 8192];
            // Keep draining after the cap so a chatty bot never blocks on a full pipe.
            while let Ok(n) = pipe.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                log.write(&buf[..n]);
            }
        });
        Ok(BotProcess {
            name: spec.name.clone(),
            child,
            pgid,
            started,
            sandbox: spec.sandbox.clone(),
            dir: spec.dir.clone(),
            stdin,
            outbox: Vec::new(),
            stdout: LineReader::new(stdout),
            stderr: stderr.clone(),
            stderr_task: Some(stderr_task),
            stopped: None,
            clock: Clock::Wall,
            stats: AnswerStats::default(),
            first_answer: true,
            transcript: None,
        })
    }

    /// Records every line sent to and received from the bot from now on.
    pub fn set_transcript(&mut self, transcript: Transcript) {
        self.transcript = Some(transcript);
    }

    /// Records `text`'s lines with `marker`; for a prompt (`?`), only its last line is the one
    /// answered, the lines before it are sent (`>`) like any report.
    fn record(&self, marker: u8, text: &str) {
        let Some(transcript) = &self.transcript else {
            return;
        };
        let mut rest = text.strip_suffix('\n').unwrap_or(text);
        while let Some(end) = memchr::memchr(b'\n', rest.as_bytes()) {
            let line = &rest[..end];
            transcript.line(
                if marker == b'?' { b'>' } else { marker },
                line.strip_suffix('\r').unwrap_or(line),
            );
            rest = &rest[end + 1..];
        }
        transcript.line(marker, rest.strip_suffix('\r').unwrap_or(rest));
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The caps of its containment that ended a contained bot, named as a person reads them.
    fn caps_hit(&self, status: &ExitStatus) -> Option<String> {
        let sandbox = self.sandbox.as_ref()?;
        let groups = self.started.as_ref().and_then(|s| s.groups.as_deref());
        let hit: Vec<String> = (groups.and_then(BotGroups::caps_hit))
            .into_iter()
            .chain(sandbox::limit_hit(sandbox, &self.dir, status))
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
    pub fn is_stopped(&self) -> bool {
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
    pub fn prompt(&mut self, prompt: &str, limit: Duration) -> Result<Asked, BotError> {
        self.check_running()?;
        let grace = if std::mem::take(&mut self.first_answer) {
            STARTUP_GRACE
        } else {
            Duration::ZERO
        };
        self.stdout.drop_unasked_lines();
        self.record(b'?', prompt);
        let cpu_before = match self.clock {
            Clock::Wall => None,
            Clock::Cpu { .. } => match self.cpu_pid() {
                Some(pid) => cpu_time(pid),
                // A contained bot whose process bwrap has not named yet has run no code of its
                // own.
                None => Some(Duration::ZERO),
            },
        };
        let started = Instant::now();
        let written = self.write_now(prompt).map_err(|e| self.stop(e))?;
        Ok(Asked {
            started,
            written,
            limit,
            grace,
            cpu_before,
        })
    }

    /// Waits for the answer to the prompt `asked` came from, until its limit. A late answer,
    /// a crash, a closed stdout or a bad line stops the bot.
    pub async fn answer(&mut self, asked: Asked) -> Result<Answer, BotError> {
        let Asked {
            started,
            written,
            limit,
            grace,
            cpu_before,
        } = asked;
        let allowed = limit + grace;
        let wait = match self.clock {
            Clock::Wall => allowed,
            Clock::Cpu { backstop } => backstop.max(allowed),
        };
        let result = tokio::time::timeout_at((started + wait).into(), async {
            // Measured from when the prompt was in the pipe.
            let sent = if written {
                started
            } else {
                self.write_queued().await?;
                Instant::now()
            };
            // Watching the process as well as its stdout tells a crash at once even when a
            // child of the bot still holds the pipe open. A line already on its way still
            // counts: the reader gets a moment to take it.
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
                    cpu: cpu_before
                        .and_then(|before| Some(cpu_time(self.cpu_pid()?)?.saturating_sub(before))),
                    line,
                }),
                ReadEvent::TooLong => Err(BotError::LineTooLong { max: MAX_LINE }),
                ReadEvent::NotUtf8 => Err(BotError::NotUtf8),
                ReadEvent::Closed => Err(self.closed_error().await),
            }
        })
        .await;
        let result = match result {
            Ok(Ok(answer)) => {
                self.record(b'<', &answer.line);
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
                    Clock::Wall if used > allowed => Err(BotError::Timeout { limit, grace }),
                    _ => Ok(answer),
                }
            }
            Ok(Err(e)) => Err(e),
            Err(_) => match self.clock {
                Clock::Wall => Err(BotError::Timeout { limit, grace }),
                // The CPU clock's wall-clock backstop ran out.
                Clock::Cpu { .. } => Err(BotError::Timeout {
                    limit: wait,
                    grace: Duration::ZERO,
                }),
            },
        };
        result.map_err(|e| self.stop(e))
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

    /// Ends the conversation: sends queued lines, closes the bot's stdin and waits up to `limit`
    /// for it to exit. Whatever happens, every process of the bot is gone afterwards.
    /// Returns the fault if the bot did not exit in time.
    pub async fn finish(mut self, limit: Duration) -> Option<BotError> {
        let mut fault = None;
        if self.stopped.is_none() {
            let _ = tokio::time::timeout(limit, self.write_queued()).await;
            self.stdin.take();
            let exit = async {
                tokio::select! {
                    _ = self.child.wait() => {}
                    () = self.stdout.discard_to_end() => drop(self.child.wait().await),
                }
            };
            if tokio::time::timeout(limit, exit).await.is_err() {
                let late = BotError::NoExit { limit };
                self.record_fault(&late);
                fault = Some(late);
            }
        }
        self.cleanup().await;
        fault
    }

    /// Kills the bot now, for a caller that gives up on it (a fault it found in an answer).
    pub async fn kill(mut self) {
        self.cleanup().await;
    }

    async fn cleanup(&mut self) {
        kill_group(self.pgid);
        self.stdin.take();
        let _ = self.child.wait().await;
        // The stderr pipe closes once every process of the group is gone.
        if let Some(task) = self.stderr_task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(1), task).await;
        }
        self.started.take();
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

    /// Why stdout closed: an exit with its status if the process is gone (given a moment to be
    /// reaped), else a bot that closed stdout but lives on.
    async fn closed_error(&mut self) -> BotError {
        let status: Option<ExitStatus> =
            match tokio::time::timeout(Duration::from_millis(200), self.child.wait()).await {
                Ok(Ok(status)) => Some(status),
                _ => None,
            };
        // Let the stderr reader catch up so the message can quote the bot's last words.
        tokio::time::sleep(Duration::from_millis(20)).await;
        let stderr_tail = self.stderr.tail();
        match status {
            Some(status) => BotError::Exited {
                status: match self.caps_hit(&status) {
                    Some(limit) => format!("{status}: {limit}"),
                    None => status.to_string(),
                },
                stderr_tail,
            },
            None => BotError::ClosedStdout { stderr_tail },
        }
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        // A bot dropped without finish() (a game that bailed out, a panic) must not outlive it.
        kill_group(self.pgid);
    }
}

/// Puts the bot under the SCHED_BATCH policy (threads it starts later inherit it). A batch task
/// gets the same share of the CPU as any other but does not preempt the running task when it
/// wakes up. Without this, every prompt koth writes wakes the bot and the bot at once throws koth
/// off the CPU, so koth pays two context switches per answer on top of the pipe: with nine
/// instant bots, 8.9 context switches per turn instead of 2.3 and about 15 % more of koth's
/// CPU. A bot loses nothing by it: koth writes a phase's prompts and then sleeps, which frees
/// the CPU a moment later anyway. Best effort: a kernel that refuses leaves the bot as it was.
fn run_as_batch(pid: i32) {
    let param = nix::libc::sched_param { sched_priority: 0 };
    // SAFETY: sched_setscheduler only reads `param`, which lives across the call.
    unsafe { nix::libc::sched_setscheduler(pid, nix::libc::SCHED_BATCH, &param) };
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
