//! A bot compiled to WebAssembly (WASI preview 1), run inside koth's own process by wasmtime:
//! `bot.toml`'s `wasm = "bot.wasm"` (the command `koth-wasi bot.wasm`, see
//! [`super::spec::WASI_COMMAND`]).
//!
//! A [`WasmBot`] is to a WASI bot what a [`super::BotProcess`] is to a process, with the same
//! calls, so the seat, the transcript, the faults and `koth replay --drive` treat both alike.
//! The bot is one wasmtime async call that koth polls on the game's own thread while it waits
//! for the bot's answer: the bot runs until its stdin read waits for the next line (or it has
//! printed its answer, or used an epoch tick), so a prompt and its answer cross no thread. It
//! is contained by construction:
//! - no network, no environment, no files but its own folder read-only at `.` and a private
//!   scratch folder read-write at `/tmp` (the seat's, kept for the match: a game's private
//!   file, paths' `data.txt`, is there);
//! - its clocks read its fuel burnt (one fuel a nanosecond, from 2000-01-01 on the wall
//!   clock), its randomness is seeded by the game's seed, so a game is the same on every
//!   machine;
//! - its memory and scratch files capped together (a trap naming the cap), its stderr kept and
//!   capped as a process's, the input queued for it capped.
//!
//! Its work is counted in fuel (see [`guest`]): with [`super::Limits::answer_fuel`] an answer
//! that burns more is a `timed_out` fault naming the budget, the same on every machine. The
//! answer's time limit stays as a backstop, on the bot's own time: the wall clock less the
//! time the game's other WASI bots ran on its thread meanwhile, so bots that think at once
//! are each timed as if alone. Its transcript's times are its fuel clock's, in milliseconds, so
//! its transcript is the same on every machine too.

mod call_loop;
mod direct;
mod engine;
mod guest;
mod loop_code;

use std::cell::Cell;
use std::future::{Future, poll_fn};
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

pub use call_loop::CallLoop;
pub use direct::{DirectInstance, DirectModule, DirectSetup};
pub use engine::compile_to;
pub use engine::{Compile, cache_file, load};
use guest::{Budgets, GuestExit, Printed, QUEUED_INPUT, Setup, Shared, UNLIMITED};
pub use loop_code::Looped;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

use super::clock::{Ending, STARTUP_GRACE};
use super::process::Asked;
use super::{Answer, AnswerStats, BotError, BotSpec, Clock, Limits, StderrLog, Transcript};

/// A WASI bot's cap on its memory and scratch files together when no containment names one:
/// 1 GiB, far more than a bot of koth's games needs (a 32-bit module can address 4 GiB).
const DEFAULT_MEMORY_MB: u64 = 1024;

thread_local! {
    /// How long WASI bots have run on this thread, all of them: what a bot's own time leaves
    /// out of the wall clock is the others' share of it.
    static RAN_HERE: Cell<Duration> = const { Cell::new(Duration::ZERO) };
}

/// The cap on `spec`'s memory (and a line bot's scratch files with it), in bytes: its
/// containment's `memory_mb`, or [`DEFAULT_MEMORY_MB`].
fn memory_cap(spec: &BotSpec) -> usize {
    let memory_mb = spec
        .sandbox
        .as_ref()
        .map_or(DEFAULT_MEMORY_MB, |s| s.memory_mb);
    usize::try_from(memory_mb << 20).unwrap_or(usize::MAX)
}

/// A WASI context's randomness, secure and not, all drawn from `seed`: the same numbers in
/// every run.
fn seed_randomness(
    builder: &mut wasmtime_wasi::WasiCtxBuilder,
    seed: u64,
) -> &mut wasmtime_wasi::WasiCtxBuilder {
    builder
        .secure_random(ChaCha8Rng::seed_from_u64(seed))
        .insecure_random(ChaCha8Rng::seed_from_u64(seed.rotate_left(32)))
        .insecure_random_seed(u128::from(seed))
}

/// Whether a bot's table may grow to `desired` entries (its own `maximum`, if any, and a
/// million at most: a table of a WASI bot's holds function references, not its data).
fn table_may_grow(desired: usize, maximum: Option<usize>) -> bool {
    desired <= 1 << 20 && maximum.is_none_or(|maximum| desired <= maximum)
}

/// A bot's run: its `_start`, as wasmtime's async call.
type Run = Pin<Box<dyn Future<Output = GuestExit> + Send>>;

/// A running WASI bot.
pub struct WasmBot {
    shared: Arc<Shared>,
    /// Its run until it ends (or koth stops it: dropping the run stops the bot where it is).
    run: Option<Run>,
    ended: Option<GuestExit>,
    /// How long it has run, all its polls.
    ran: Duration,
    /// How long the thread's other WASI bots had run when it was last prompted.
    others_at_prompt: Duration,
    /// Lines sent that wait for the next prompt, as a process's do.
    outbox: Vec<u8>,
    stopped: Option<BotError>,
    stderr: StderrLog,
    clock: Clock,
    stats: AnswerStats,
    first_answer: bool,
    transcript: Option<Transcript>,
    /// The bot's fuel clock at its last line, in ms: its transcript's time.
    clock_ms: u64,
    answer_fuel: Option<u64>,
    /// How the bot's language flushes its stdout, for a time-out's hint, if koth can tell.
    flush: Option<&'static str>,
}

/// A time limit on a bot's own time, from `started`.
struct OwnTimer {
    started: Instant,
    others_at: Duration,
    limit: Duration,
}

impl WasmBot {
    /// Starts the WASI bot `spec` with its scratch folder `scratch`, under `limits`' fuel
    /// budgets, its randomness seeded by `seed` (a benched bot is refused before, by
    /// [`super::running::Running::start`]). It runs as its answers are awaited.
    pub fn start(
        spec: &BotSpec,
        module: &Path,
        scratch: &Path,
        stderr: &StderrLog,
        limits: &Limits,
        seed: u64,
    ) -> Result<WasmBot, BotError> {
        let spawn_error = |reason| BotError::spawn(spec, reason);
        let ready =
            load(module, Compile::for_bot(spec)).map_err(|e| spawn_error(format!("{e:#}")))?;
        let shared = Arc::new(Shared::default());
        let module_name = module
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        stderr.begin_process();
        let store = guest::store(
            engine::engine(),
            Setup {
                module_name: &module_name,
                dir: &spec.dir,
                scratch,
                data: spec
                    .data
                    .map(|_| crate::data::reached(&spec.dir.join(crate::data::DATA_FOLDER)))
                    .as_deref(),
                stderr: stderr.clone(),
                cap_bytes: memory_cap(spec),
                budgets: Budgets {
                    answer: limits.answer_fuel.unwrap_or(UNLIMITED),
                    exit: limits.exit_fuel.unwrap_or(UNLIMITED),
                },
                seed,
            },
            &shared,
        )
        .map_err(|e| spawn_error(format!("{e:#}")))?;
        Ok(WasmBot {
            shared,
            run: Some(Box::pin(guest::run(ready, store))),
            ended: None,
            ran: Duration::ZERO,
            others_at_prompt: Duration::ZERO,
            outbox: Vec::new(),
            stopped: None,
            stderr: stderr.clone(),
            clock: Clock::Wall,
            stats: AnswerStats::default(),
            first_answer: true,
            transcript: None,
            clock_ms: 0,
            answer_fuel: limits.answer_fuel,
            flush: crate::unanswered::flush_hint(spec),
        })
    }

    pub(crate) fn set_transcript(&mut self, transcript: Transcript) {
        self.transcript = Some(transcript);
    }

    /// The clock of the wall-clock backstop: with [`Clock::Cpu`], its backstop (a WASI bot's
    /// work is counted in fuel, not CPU time).
    pub(crate) fn set_clock(&mut self, clock: Clock) {
        self.clock = clock;
    }

    fn record(&self, marker: u8, text: &str) {
        if let Some(transcript) = &self.transcript {
            transcript.record_at(marker, text, self.clock_ms);
        }
    }

    pub(crate) fn stats(&self) -> &AnswerStats {
        &self.stats
    }

    pub(crate) fn is_stopped(&self) -> bool {
        self.stopped.is_some()
    }

    fn check_running(&self) -> Result<(), BotError> {
        match &self.stopped {
            Some(fault) => Err(BotError::Stopped(Box::new(fault.clone()))),
            None => Ok(()),
        }
    }

    pub(crate) fn send(&mut self, line: &str) -> Result<(), BotError> {
        self.check_running()?;
        self.record(b'>', line);
        self.outbox.extend_from_slice(line.as_bytes());
        self.outbox.push(b'\n');
        if self.outbox.len() > QUEUED_INPUT {
            return Err(self.stop(unread()));
        }
        Ok(())
    }

    /// Gives the bot the queued lines and `prompt`.
    pub(crate) fn prompt(&mut self, prompt: &str, limit: Duration) -> Result<Asked, BotError> {
        self.check_running()?;
        let grace = if std::mem::take(&mut self.first_answer) {
            STARTUP_GRACE
        } else {
            Duration::ZERO
        };
        self.record(b'?', prompt);
        let mut batch = std::mem::take(&mut self.outbox);
        batch.extend_from_slice(prompt.as_bytes());
        batch.push(b'\n');
        if self.shared.feed(batch, true) > QUEUED_INPUT {
            return Err(self.stop(unread()));
        }
        self.others_at_prompt = self.others();
        Ok(Asked::at_once(limit, grace))
    }

    /// Gives the bot `prompt` and waits up to `limit` for its answer (benchmarks ask so; games
    /// through their seat).
    pub async fn ask(&mut self, prompt: &str, limit: Duration) -> Result<Answer, BotError> {
        let asked = self.prompt(prompt, limit)?;
        self.answer(asked).await
    }

    /// Runs the bot for the answer to the prompt `asked` came from: within its fuel budget, and
    /// within the time limit, on its own time, as a backstop.
    pub(crate) async fn answer(&mut self, asked: Asked) -> Result<Answer, BotError> {
        let (started, limit, grace) = asked.timing();
        let allowed = limit + grace;
        let timer = OwnTimer {
            started,
            others_at: self.others_at_prompt,
            limit: match self.clock {
                Clock::Wall => allowed,
                Clock::Cpu { backstop } => backstop.max(allowed),
            },
        };
        let result = loop {
            match self.printed_within(&timer).await {
                // Lines the bot printed unasked (before it took the prompt) are dropped, as a
                // process's are; being told apart by when the bot printed them, not by when
                // koth read them, they are the same lines on every machine.
                Some(Some(Printed {
                    line: Ok(line),
                    fuel: None,
                    clock_ns,
                })) => {
                    self.clock_ms = clock_ns / 1_000_000;
                    if let Some(transcript) = &self.transcript {
                        transcript.note_unasked(&line);
                    }
                }
                Some(Some(printed)) => {
                    self.clock_ms = printed.clock_ns / 1_000_000;
                    break printed.line.map(|line| {
                        self.record(b'<', &line);
                        let answer = Answer {
                            wall: self.own_time(&timer),
                            // Its work, in fuel: one fuel a nanosecond, as its clocks count.
                            cpu: printed.fuel.map(Duration::from_nanos),
                            line,
                        };
                        // A near miss is an answer close to its fuel budget, if it has one.
                        match (answer.cpu, self.answer_fuel) {
                            (Some(fuel), Some(budget)) => {
                                self.stats
                                    .record(&answer, fuel, Duration::from_nanos(budget))
                            }
                            _ => self.stats.record(&answer, answer.wall, allowed),
                        }
                        // Its fuel, kept per answer: what a budget must allow.
                        if let Some(fuel) = printed.fuel {
                            self.stats.record_fuel(fuel, self.answer_fuel);
                            if let Some(transcript) = &self.transcript {
                                transcript.note_fuel(fuel);
                            }
                        }
                        answer
                    });
                }
                Some(None) => {
                    // An answer that ran out of fuel burnt its whole budget: counted with the
                    // others, so the fuel line's maximum and near misses include it.
                    if let Some(GuestExit::OutOfFuel {
                        budget,
                        exiting: false,
                    }) = self.ended
                    {
                        self.stats.record_fuel(budget, self.answer_fuel);
                        if let Some(transcript) = &self.transcript {
                            transcript.note_fuel(budget);
                        }
                    }
                    break Err(self.ended_error());
                }
                None => {
                    let wall = self.clock == Clock::Wall;
                    break Err(BotError::Timeout {
                        limit: if wall { limit } else { timer.limit },
                        grace: if wall { grace } else { Duration::ZERO },
                        stdout: self.shared.unanswered(self.flush),
                    });
                }
            }
        };
        result.map_err(|e| self.stop(e))
    }

    /// How long the thread's other WASI bots have run.
    fn others(&self) -> Duration {
        RAN_HERE.with(Cell::get).saturating_sub(self.ran)
    }

    /// The bot's own time since `timer` started: the wall clock less the time the others ran.
    fn own_time(&self, timer: &OwnTimer) -> Duration {
        let others = self.others().saturating_sub(timer.others_at);
        timer.started.elapsed().saturating_sub(others)
    }

    /// The next line the bot prints (`None` inside if it ended first), running it within
    /// `timer`'s limit on its own time; `None` if the limit ran out first.
    async fn printed_within(&mut self, timer: &OwnTimer) -> Option<Option<Printed>> {
        loop {
            let left = timer.limit.checked_sub(self.own_time(timer))?;
            if left.is_zero() {
                return None;
            }
            // Out of wall-clock time, it may still have some of its own: the others ran.
            if let Ok(printed) = tokio::time::timeout(left, self.next_printed()).await {
                return Some(printed);
            }
        }
    }

    /// The next line the bot prints, running it as long as it needs; `None` once it has
    /// ended without one.
    fn next_printed(&mut self) -> impl Future<Output = Option<Printed>> + '_ {
        poll_fn(|cx| {
            loop {
                if let Some(printed) = self.shared.take_printed() {
                    return Poll::Ready(Some(printed));
                }
                if self.run.is_none() {
                    return Poll::Ready(None);
                }
                if self.poll_run(cx).is_pending() {
                    return match self.shared.take_printed() {
                        Some(printed) => Poll::Ready(Some(printed)),
                        None => Poll::Pending,
                    };
                }
            }
        })
    }

    /// Lets the bot run until it waits (for its input, for koth to take its lines, or for
    /// its tick to end) or ends, and counts the time it ran.
    fn poll_run(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some(run) = &mut self.run else {
            return Poll::Ready(());
        };
        let started = Instant::now();
        let polled = run.as_mut().poll(cx);
        let ran = started.elapsed();
        self.ran += ran;
        RAN_HERE.with(|here| here.set(here.get() + ran));
        match polled {
            Poll::Ready(ended) => {
                self.ended = Some(ended);
                self.run = None;
                Poll::Ready(())
            }
            Poll::Pending => Poll::Pending,
        }
    }

    /// Why the bot's stdout closed: how its run ended.
    fn ended_error(&self) -> BotError {
        let stderr_tail = self.stderr.tail();
        match self.ended.clone() {
            Some(GuestExit::Exited(code)) => BotError::Exited {
                status: format!("exit status: {code}"),
                stderr_tail,
            },
            Some(GuestExit::OutOfFuel { budget, exiting }) => {
                BotError::OutOfFuel { budget, exiting }
            }
            Some(GuestExit::Trapped(trap)) => BotError::Exited {
                status: format!("trapped: {trap}"),
                stderr_tail,
            },
            None => BotError::ClosedStdout { stderr_tail },
        }
    }

    /// Ends the conversation: gives the bot the queued lines and the end of its input, and
    /// runs it up to `limit` of its own time (and its exit budget) to its end. Returns the
    /// fault if it did not end and `ending` asked it to.
    pub async fn finish(mut self, limit: Duration, ending: Ending) -> Option<BotError> {
        let mut fault = None;
        if self.stopped.is_none() {
            let batch = std::mem::take(&mut self.outbox);
            if !batch.is_empty() {
                self.shared.feed(batch, false);
            }
            self.shared.close();
            let timer = OwnTimer {
                started: Instant::now(),
                others_at: self.others(),
                limit,
            };
            // Lines it prints now are lines after the game: nobody reads them.
            let late = loop {
                match self.printed_within(&timer).await {
                    Some(Some(_)) => {}
                    // Its answer budget if it never read the end of its input.
                    Some(None) => match self.ended {
                        Some(GuestExit::OutOfFuel { budget, exiting }) => {
                            break Some(BotError::OutOfFuel { budget, exiting });
                        }
                        _ => break None,
                    },
                    None => break Some(BotError::NoExit { limit }),
                }
            };
            if let Some(late) = late.filter(|_| ending == Ending::Exit) {
                self.record(b'!', &late.with_status());
                fault = Some(late);
            }
        }
        self.kill().await;
        fault
    }

    /// Stops the bot now, where it is.
    pub(crate) async fn kill(mut self) {
        self.run = None;
    }

    /// Records the first fault and stops the bot.
    fn stop(&mut self, fault: BotError) -> BotError {
        if self.stopped.is_none() {
            self.record(b'!', &fault.with_status());
            self.stopped = Some(fault.clone());
            self.run = None;
            self.outbox.clear();
            self.shared.clear_input();
        }
        fault
    }
}

/// The fault of a bot that leaves more than [`QUEUED_INPUT`] of its input unread.
fn unread() -> BotError {
    BotError::BrokenPipe {
        reason: format!("more than {} MiB waiting", QUEUED_INPUT >> 20),
    }
}

/// The seed of a WASI bot's randomness in a round of the game seeded by `game_seed`: the same
/// for the same game, bot and round in every run, so a seeded game plays the same.
pub fn seed(game_seed: u64, name: &str, round: u32) -> u64 {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("{game_seed}\n{name}\n{round}").as_bytes());
    u64::from_le_bytes(digest[..8].try_into().expect("a SHA-256 has 8 bytes"))
}
