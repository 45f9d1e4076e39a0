//! A bot compiled to WebAssembly (WASI preview 1), run inside koth's own process by wasmtime:
//! `bot.toml`'s `wasm = "bot.wasm"` (the command `koth-wasi bot.wasm`, see
//! [`super::spec::WASI_COMMAND`]).
//!
//! A [`WasmBot`] is to a WASI bot what a [`super::BotProcess`] is to a process, with the same
//! calls, so the seat, the transcript, the faults and `koth replay --drive` treat both alike.
//! The bot runs on a thread of its own, blocked in its stdin read while it waits for its next
//! line, and is contained by construction:
//! - no network, no environment, no files but its own folder read-only at `.` and a private
//!   scratch folder read-write at `/tmp` (the seat's, kept for the match: a game's private
//!   file, paths' `data.txt`, is there);
//! - its clocks read its fuel burnt (one fuel a nanosecond, from 2000-01-01 on the wall
//!   clock), its randomness is seeded by koth, so a game is the same on every machine;
//! - its memory capped (a trap naming the cap), its stderr kept and capped as a process's.
//!
//! Its work is counted in fuel (see [`guest`]): with [`super::Limits::answer_fuel`] an answer
//! that burns more is a `timed_out` fault naming the budget, the same on every machine; the
//! answer's wall-clock limit stays as a backstop. Its transcript's times are its fuel clock's,
//! in milliseconds, so its transcript is the same on every machine too.

mod direct;
mod engine;
mod guest;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

pub(crate) use direct::{CallLoop, DirectInstance, DirectModule, DirectSetup};
pub(crate) use engine::load;
use guest::{Budgets, Ended, Printed, Setup, Shared, UNLIMITED};

use super::clock::{Ending, STARTUP_GRACE};
use super::process::Asked;
use super::{Answer, AnswerStats, BotError, BotSpec, Clock, Limits, StderrLog, Transcript};

/// A WASI bot's memory cap when no containment names one: 1 GiB, far more than a bot of koth's
/// games needs (a 32-bit module can address 4 GiB).
const DEFAULT_MEMORY_MB: u64 = 1024;

/// How many lines the bot may print ahead of koth's reading them before its writes wait.
const PRINTED_AHEAD: usize = 64;

/// A running WASI bot.
pub struct WasmBot {
    shared: Arc<Shared>,
    printed: mpsc::Receiver<Printed>,
    ended: Option<oneshot::Receiver<Ended>>,
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
}

impl WasmBot {
    /// Starts the WASI bot `spec` with its scratch folder `scratch`, under `limits`' fuel
    /// budgets, its randomness seeded by `seed` (a benched bot is refused before, by
    /// [`super::running::Running::start`]).
    pub fn start(
        spec: &BotSpec,
        module: &Path,
        scratch: &Path,
        stderr: &StderrLog,
        limits: &Limits,
        seed: u64,
    ) -> Result<WasmBot, BotError> {
        let spawn_error = |reason| BotError::spawn(spec, reason);
        let ready = load(module).map_err(|e| spawn_error(format!("{e:#}")))?;
        let memory_mb = spec
            .sandbox
            .as_ref()
            .map_or(DEFAULT_MEMORY_MB, |s| s.memory_mb);
        let shared = Arc::new(Shared::default());
        let (printing, printed) = mpsc::channel(PRINTED_AHEAD);
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
                stderr: stderr.clone(),
                memory_bytes: usize::try_from(memory_mb << 20).unwrap_or(usize::MAX),
                budgets: Budgets {
                    answer: limits.answer_fuel.unwrap_or(UNLIMITED),
                    exit: limits.exit_fuel.unwrap_or(UNLIMITED),
                },
                seed,
            },
            &shared,
            printing,
        )
        .map_err(|e| spawn_error(format!("{e:#}")))?;
        let (ending, ended) = oneshot::channel();
        std::thread::Builder::new()
            .name(format!("wasm {}", spec.name))
            .spawn(move || guest::run(&ready, store, ending))
            .map_err(|e| spawn_error(e.to_string()))?;
        Ok(WasmBot {
            shared,
            printed,
            ended: Some(ended),
            outbox: Vec::new(),
            stopped: None,
            stderr: stderr.clone(),
            clock: Clock::Wall,
            stats: AnswerStats::default(),
            first_answer: true,
            transcript: None,
            clock_ms: 0,
            answer_fuel: limits.answer_fuel,
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
        self.shared.feed(batch, true);
        Ok(Asked::at_once(limit, grace))
    }

    /// Gives the bot `prompt` and waits up to `limit` for its answer (benchmarks ask so; games
    /// through their seat).
    pub async fn ask(&mut self, prompt: &str, limit: Duration) -> Result<Answer, BotError> {
        let asked = self.prompt(prompt, limit)?;
        self.answer(asked).await
    }

    /// Waits for the answer to the prompt `asked` came from: within its fuel budget, and
    /// within the wall-clock limit as a backstop.
    pub(crate) async fn answer(&mut self, asked: Asked) -> Result<Answer, BotError> {
        let (started, limit, grace) = asked.timing();
        let allowed = limit + grace;
        let wait = match self.clock {
            Clock::Wall => allowed,
            Clock::Cpu { backstop } => backstop.max(allowed),
        };
        // Lines the bot printed unasked (before it took the prompt) are dropped, as a
        // process's are; being told apart by when the bot printed them, not by when koth read
        // them, they are the same lines on every machine.
        let answer = async {
            loop {
                match self.printed.recv().await {
                    Some(Printed {
                        line: Ok(_),
                        fuel: None,
                        clock_ns,
                    }) => self.clock_ms = clock_ns / 1_000_000,
                    other => return other,
                }
            }
        };
        let result = match tokio::time::timeout_at((started + wait).into(), answer).await {
            Ok(Some(printed)) => {
                self.clock_ms = printed.clock_ns / 1_000_000;
                match printed.line {
                    Ok(line) => {
                        self.record(b'<', &line);
                        let answer = Answer {
                            wall: started.elapsed(),
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
                        Ok(answer)
                    }
                    Err(error) => Err(error),
                }
            }
            Ok(None) => Err(self.ended_error().await),
            Err(_) => Err(BotError::Timeout {
                limit: if self.clock == Clock::Wall {
                    limit
                } else {
                    wait
                },
                grace: if self.clock == Clock::Wall {
                    grace
                } else {
                    Duration::ZERO
                },
            }),
        };
        result.map_err(|e| self.stop(e))
    }

    /// Why the bot's stdout closed: how its run ended.
    async fn ended_error(&mut self) -> BotError {
        let how = match self.ended.take() {
            Some(ended) => ended.await.unwrap_or(Ended::Killed),
            None => Ended::Killed,
        };
        let stderr_tail = self.stderr.tail();
        match how {
            Ended::Exited(code) => BotError::Exited {
                status: format!("exit status: {code}"),
                stderr_tail,
            },
            Ended::OutOfFuel { budget, exiting } => BotError::OutOfFuel { budget, exiting },
            Ended::Trapped(trap) => BotError::Exited {
                status: format!("trapped: {trap}"),
                stderr_tail,
            },
            Ended::Killed => BotError::ClosedStdout { stderr_tail },
        }
    }

    /// Ends the conversation: gives the bot the queued lines and the end of its input, and
    /// waits up to `limit` (and its exit budget) for it to end. Returns the fault if it did not
    /// and `ending` asked it to.
    pub async fn finish(mut self, limit: Duration, ending: Ending) -> Option<BotError> {
        let mut fault = None;
        if self.stopped.is_none() {
            let batch = std::mem::take(&mut self.outbox);
            if !batch.is_empty() {
                self.shared.feed(batch, false);
            }
            self.shared.close();
            let exit = async {
                while self.printed.recv().await.is_some() {}
                match self.ended.take() {
                    Some(ended) => ended.await.unwrap_or(Ended::Killed),
                    None => Ended::Killed,
                }
            };
            let late = match tokio::time::timeout(limit, exit).await {
                // Its answer budget if it never read the end of its input.
                Ok(Ended::OutOfFuel { budget, exiting }) => {
                    Some(BotError::OutOfFuel { budget, exiting })
                }
                Ok(_) => None,
                Err(_) => Some(BotError::NoExit { limit }),
            };
            if let Some(late) = late.filter(|_| ending == Ending::Exit) {
                self.record(b'!', &late.with_status());
                fault = Some(late);
            }
        }
        self.kill().await;
        fault
    }

    /// Stops the bot now and waits (a moment at most) for its thread to end.
    pub(crate) async fn kill(mut self) {
        self.shared.kill();
        self.printed.close();
        if let Some(ended) = self.ended.take() {
            let _ = tokio::time::timeout(Duration::from_secs(1), ended).await;
        }
    }

    /// Records the first fault and stops the bot.
    fn stop(&mut self, fault: BotError) -> BotError {
        if self.stopped.is_none() {
            self.record(b'!', &fault.with_status());
            self.stopped = Some(fault.clone());
            self.shared.kill();
            self.outbox.clear();
        }
        fault
    }
}

impl Drop for WasmBot {
    fn drop(&mut self) {
        // A bot dropped without finish() (a game that bailed out, a panic) must not outlive it.
        self.shared.kill();
    }
}

/// The seed of a WASI bot's randomness in a round: the same for the same bot and round in
/// every run, so a seeded game plays the same.
pub(crate) fn seed(name: &str, round: u32) -> u64 {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("{name}\n{round}").as_bytes());
    u64::from_le_bytes(digest[..8].try_into().expect("a SHA-256 has 8 bytes"))
}
