//! A WASI bot's side of koth: its store (WASI preview 1, its folder and scratch folder, koth's
//! clocks and randomness, its memory cap), the streams its stdin, stdout and stderr are, and its
//! fuel, set at the moments the bot's budgets start. It runs on a thread of its own
//! ([`run`]), blocked in its stdin read while it waits for its next line.
//!
//! Fuel is set by a call hook ([`wasmtime::Store::call_hook`]) as the bot returns from WASI:
//! - to the answer budget when the bot takes the first bytes of a prompt (the lines sent before
//!   it included), and again when it has written its answer's newline (its work until the next
//!   prompt has a budget of its own);
//! - to the exit budget when it reads the end of its input.
//!
//! Without budgets, the fuel is unlimited, and still counted. Every byte the bot writes costs a
//! fuel too, so that a bot cannot spend the host's time for free. The bot's clocks read its
//! fuel burnt so far, one fuel a nanosecond, so its sense of time is the same on every machine.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use tokio::sync::{mpsc, oneshot};
use wasmtime::{CallHook, InstancePre, ResourceLimiter, Store, StoreContextMut};
use wasmtime_wasi::cli::{IsTerminal, StdinStream, StdoutStream};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::p2::{InputStream, OutputStream, Pollable, StreamError, StreamResult};
use wasmtime_wasi::{FsPerms, HostMonotonicClock, HostWallClock, WasiCtxBuilder};

use crate::bot::StderrLog;
use crate::bot::lines::MAX_LINE;

/// The fuel of a bot without a budget: more than it can burn in years.
pub(super) const UNLIMITED: u64 = u64::MAX / 4;

/// The most bytes one write of the bot's takes at once.
const WRITE_PERMIT: usize = 64 << 10;

/// Where a WASI bot's wall clock starts: 2000-01-01, plus its fuel burnt.
const WALL_CLOCK_START: Duration = Duration::from_secs(946_684_800);

/// What the bot's stdout gave: a line (or why it is no line), with the fuel it burnt for it if
/// it answered a prompt, and the bot's fuel clock then, in nanoseconds.
pub(super) struct Printed {
    pub line: Result<String, crate::bot::BotError>,
    pub fuel: Option<u64>,
    pub clock_ns: u64,
}

/// How the bot's run ended.
#[derive(Debug, Clone)]
pub(super) enum Ended {
    /// `proc_exit`, or returning from `_start` (0).
    Exited(i32),
    /// It burnt its budget: the answer budget, or the exit budget once its input ended.
    OutOfFuel { budget: u64, exiting: bool },
    /// A trap: a fault of its code, or a cap of koth's (its memory), named by wasmtime.
    Trapped(String),
    /// koth stopped it.
    Killed,
}

/// The budgets a bot's fuel is set to.
#[derive(Debug, Clone, Copy)]
pub(super) struct Budgets {
    pub answer: u64,
    pub exit: u64,
}

/// What koth and the bot's thread share: its input, and what the streams saw that the call
/// hook acts on.
#[derive(Default)]
pub(super) struct Shared {
    state: Mutex<State>,
    input_ready: Condvar,
}

#[derive(Default)]
struct State {
    /// Batches of input lines not yet all read, each with whether it ends in a prompt.
    input: VecDeque<(Vec<u8>, bool)>,
    /// How much of the first batch the bot has read.
    offset: usize,
    /// koth closed the bot's input (its game is over).
    closed: bool,
    /// koth stopped the bot.
    killed: bool,
    /// The bot began reading a batch that ends in a prompt.
    prompt_taken: bool,
    /// The bot read the end of its input.
    input_ended: bool,
    /// The stdout line not yet ended, and whether it already ran over [`MAX_LINE`].
    partial: Vec<u8>,
    overlong: bool,
    /// Lines ended since the hook last looked.
    lines: Vec<Result<String, crate::bot::BotError>>,
    /// Bytes written since the hook last looked, each a fuel.
    written: u64,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Gives the bot `bytes` to read; `prompt` says they end in a prompt.
    pub(super) fn feed(&self, bytes: Vec<u8>, prompt: bool) {
        self.lock().input.push_back((bytes, prompt));
        self.input_ready.notify_all();
    }

    /// Closes the bot's input: it reads its end once it has read the rest.
    pub(super) fn close(&self) {
        self.lock().closed = true;
        self.input_ready.notify_all();
    }

    /// Stops the bot: at its next read, or the engine's next epoch if it computes.
    pub(super) fn kill(&self) {
        self.lock().killed = true;
        self.input_ready.notify_all();
    }

    fn killed(&self) -> bool {
        self.lock().killed
    }
}

/// A bot's stdin: the batches koth feeds it. Reading blocks the bot's thread until there is
/// input, its end, or koth stops the bot.
#[derive(Clone)]
struct Stdin(Arc<Shared>);

#[wasmtime_wasi::async_trait]
impl Pollable for Stdin {
    async fn ready(&mut self) {
        let mut state = self.0.lock();
        while state.input.is_empty() && !state.closed && !state.killed {
            state = self
                .0
                .input_ready
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl InputStream for Stdin {
    fn read(&mut self, size: usize) -> StreamResult<Bytes> {
        let mut state = self.0.lock();
        if state.killed {
            return Err(StreamError::trap("stopped by koth"));
        }
        let offset = state.offset;
        let Some((batch, prompt)) = state.input.front() else {
            if state.closed {
                state.input_ended = true;
                return Err(StreamError::Closed);
            }
            return Ok(Bytes::new());
        };
        let prompt = *prompt && offset == 0;
        let end = batch.len().min(offset + size);
        let bytes = Bytes::copy_from_slice(&batch[offset..end]);
        if end == batch.len() {
            state.input.pop_front();
            state.offset = 0;
        } else {
            state.offset = end;
        }
        state.prompt_taken |= prompt;
        Ok(bytes)
    }
}

impl IsTerminal for Stdin {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdinStream for Stdin {
    fn p2_stream(&self) -> Box<dyn InputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncRead + Send + Sync> {
        // Only WASI preview 3 reads this; koth links preview 1 alone.
        Box::new(tokio::io::empty())
    }
}

/// A bot's stdout or stderr: stdout is cut into lines for koth, stderr goes to its capped log.
#[derive(Clone)]
enum Output {
    Stdout(Arc<Shared>),
    Stderr(Arc<Shared>, StderrLog),
}

#[wasmtime_wasi::async_trait]
impl Pollable for Output {
    async fn ready(&mut self) {}
}

impl OutputStream for Output {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        match self {
            Output::Stdout(shared) => {
                let mut state = shared.lock();
                state.written += bytes.len() as u64;
                let mut rest = &bytes[..];
                while let Some(end) = memchr::memchr(b'\n', rest) {
                    let mut line = std::mem::take(&mut state.partial);
                    line.extend_from_slice(&rest[..end]);
                    rest = &rest[end + 1..];
                    if std::mem::take(&mut state.overlong) {
                        continue;
                    }
                    let line = line.strip_suffix(b"\r").unwrap_or(&line);
                    let line = if line.len() > MAX_LINE {
                        Err(crate::bot::BotError::LineTooLong { max: MAX_LINE })
                    } else {
                        String::from_utf8(line.to_vec()).map_err(|_| crate::bot::BotError::NotUtf8)
                    };
                    state.lines.push(line);
                }
                if !state.overlong {
                    state.partial.extend_from_slice(rest);
                    if state.partial.len() > MAX_LINE {
                        state.partial = Vec::new();
                        state.overlong = true;
                        state
                            .lines
                            .push(Err(crate::bot::BotError::LineTooLong { max: MAX_LINE }));
                    }
                }
            }
            Output::Stderr(shared, log) => {
                shared.lock().written += bytes.len() as u64;
                log.write(&bytes);
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(WRITE_PERMIT)
    }
}

impl IsTerminal for Output {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for Output {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        // Only WASI preview 3 writes here; koth links preview 1 alone.
        Box::new(tokio::io::sink())
    }
}

/// The bot's clocks: its fuel burnt so far, in nanoseconds.
#[derive(Clone)]
struct FuelClock(Arc<AtomicU64>);

impl HostMonotonicClock for FuelClock {
    fn resolution(&self) -> u64 {
        1
    }

    fn now(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

impl HostWallClock for FuelClock {
    fn resolution(&self) -> Duration {
        Duration::from_nanos(1)
    }

    fn now(&self) -> Duration {
        WALL_CLOCK_START + Duration::from_nanos(self.0.load(Ordering::Relaxed))
    }
}

/// Which budget the bot's fuel was last set to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Starting, or between an answer and the next prompt: the answer budget.
    Resting,
    /// From taking a prompt to its answer's newline: the answer budget.
    Answering,
    /// After the end of its input: the exit budget.
    Exiting,
}

/// A WASI bot's store data.
pub(crate) struct Guest {
    pub(super) wasi: WasiP1Ctx,
    /// The most memory the bot may have, in bytes.
    memory_bytes: usize,
    shared: Arc<Shared>,
    printed: mpsc::Sender<Printed>,
    budgets: Budgets,
    phase: Phase,
    /// The fuel last set, and all the fuel burnt before it was.
    fuel_set: u64,
    burnt_before: u64,
    clock: Arc<AtomicU64>,
}

/// What a WASI bot is started with.
pub(super) struct Setup<'a> {
    pub module_name: &'a str,
    pub dir: &'a Path,
    pub scratch: &'a Path,
    pub stderr: StderrLog,
    pub memory_bytes: usize,
    pub budgets: Budgets,
    pub seed: u64,
}

/// A store in `engine` for `setup`'s bot, with its WASI context, caps, fuel and hooks, sharing
/// `shared` and printing to `printed`.
pub(super) fn store(
    engine: &wasmtime::Engine,
    setup: Setup<'_>,
    shared: &Arc<Shared>,
    printed: mpsc::Sender<Printed>,
) -> anyhow::Result<Store<Guest>> {
    let clock = Arc::new(AtomicU64::new(0));
    let wasi = WasiCtxBuilder::new()
        .stdin(Stdin(shared.clone()))
        .stdout(Output::Stdout(shared.clone()))
        .stderr(Output::Stderr(shared.clone(), setup.stderr))
        .arg(setup.module_name)
        .allow_blocking_current_thread(true)
        .wall_clock(FuelClock(clock.clone()))
        .monotonic_clock(FuelClock(clock.clone()))
        .secure_random(ChaCha8Rng::seed_from_u64(setup.seed))
        .insecure_random(ChaCha8Rng::seed_from_u64(setup.seed.rotate_left(32)))
        .insecure_random_seed(u128::from(setup.seed))
        .preopened_dir(setup.dir, ".", FsPerms::ReadOnly)
        .and_then(|builder| builder.preopened_dir(setup.scratch, "/tmp", FsPerms::ReadWrite))
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .build_p1();
    let mut store = Store::new(
        engine,
        Guest {
            wasi,
            memory_bytes: setup.memory_bytes,
            shared: shared.clone(),
            printed,
            budgets: setup.budgets,
            phase: Phase::Resting,
            fuel_set: setup.budgets.answer,
            burnt_before: 0,
            clock,
        },
    );
    store.limiter(|guest| guest);
    store
        .set_fuel(setup.budgets.answer)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    store.set_epoch_deadline(1);
    store.epoch_deadline_callback(|ctx| {
        if ctx.data().shared.killed() {
            Err(wasmtime::format_err!("stopped by koth"))
        } else {
            Ok(wasmtime::UpdateDeadline::Continue(1))
        }
    });
    store.call_hook(on_call);
    Ok(store)
}

/// The bot's memory cap: growing past it is a trap that names it (a `malloc` failing would
/// only be an abort without a reason). Tables are capped at a million entries.
impl ResourceLimiter for Guest {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_bytes {
            return Err(wasmtime::format_err!(
                "reached its memory cap of {} MiB",
                self.memory_bytes >> 20
            ));
        }
        Ok(maximum.is_none_or(|maximum| desired <= maximum))
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 1 << 20 && maximum.is_none_or(|maximum| desired <= maximum))
    }
}

/// The call hook: keeps the bot's clock, and on the way back from WASI charges its writes,
/// hands its lines to koth and sets its fuel where a budget starts (see the module's
/// documentation).
fn on_call(mut ctx: StoreContextMut<'_, Guest>, hook: CallHook) -> wasmtime::Result<()> {
    match hook {
        CallHook::CallingHost => {
            let left = ctx.get_fuel()?;
            let guest = ctx.data();
            guest.clock.store(guest.burnt(left), Ordering::Relaxed);
            Ok(())
        }
        CallHook::ReturningFromHost => {
            let (lines, written, prompt_taken, input_ended) = {
                let mut state = ctx.data().shared.lock();
                (
                    std::mem::take(&mut state.lines),
                    std::mem::take(&mut state.written),
                    std::mem::take(&mut state.prompt_taken),
                    std::mem::take(&mut state.input_ended),
                )
            };
            if written > 0 {
                let left = ctx.get_fuel()?;
                ctx.set_fuel(left.saturating_sub(written))?;
            }
            for line in lines {
                let left = ctx.get_fuel()?;
                let guest = ctx.data_mut();
                let answering = guest.phase == Phase::Answering;
                let printed = Printed {
                    line,
                    fuel: answering.then(|| guest.fuel_set - left),
                    clock_ns: guest.burnt(left),
                };
                if guest.printed.blocking_send(printed).is_err() {
                    return Err(wasmtime::format_err!("stopped by koth"));
                }
                if answering {
                    refuel(&mut ctx, Phase::Resting)?;
                }
            }
            if prompt_taken {
                refuel(&mut ctx, Phase::Answering)?;
            }
            if input_ended && ctx.data().phase != Phase::Exiting {
                refuel(&mut ctx, Phase::Exiting)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

impl Guest {
    /// The fuel burnt since the bot started, with `left` in its tank.
    fn burnt(&self, left: u64) -> u64 {
        self.burnt_before + self.fuel_set.saturating_sub(left)
    }
}

/// Sets the bot's fuel to the budget of `phase`.
fn refuel(ctx: &mut StoreContextMut<'_, Guest>, phase: Phase) -> wasmtime::Result<()> {
    let left = ctx.get_fuel()?;
    let guest = ctx.data_mut();
    guest.burnt_before = guest.burnt(left);
    guest.phase = phase;
    guest.fuel_set = match phase {
        Phase::Resting | Phase::Answering => guest.budgets.answer,
        Phase::Exiting => guest.budgets.exit,
    };
    let fuel = guest.fuel_set;
    ctx.set_fuel(fuel)
}

/// Runs the bot's `_start` in `store` to its end, on the calling thread (the bot's own), and
/// says how it ended.
pub(super) fn run(
    ready: &InstancePre<Guest>,
    mut store: Store<Guest>,
    ended: oneshot::Sender<Ended>,
) {
    let result = ready.instantiate(&mut store).and_then(|instance| {
        instance
            .get_typed_func::<(), ()>(&mut store, "_start")?
            .call(&mut store, ())
    });
    let how = match result {
        Ok(()) => Ended::Exited(0),
        Err(error) => {
            let guest = store.data();
            if let Some(exit) = error.downcast_ref::<wasmtime_wasi::I32Exit>() {
                Ended::Exited(exit.0)
            } else if guest.shared.killed() {
                Ended::Killed
            } else if error.downcast_ref::<wasmtime::Trap>() == Some(&wasmtime::Trap::OutOfFuel) {
                let exiting = guest.phase == Phase::Exiting;
                Ended::OutOfFuel {
                    budget: if exiting {
                        guest.budgets.exit
                    } else {
                        guest.budgets.answer
                    },
                    exiting,
                }
            } else {
                Ended::Trapped(crate::bot::cut_line(&format!("{error:#}"), 300).into_owned())
            }
        }
    };
    // Its stdout closes here, after the last line it printed.
    drop(store);
    let _ = ended.send(how);
}
