//! A WASI bot's side of koth: its store (WASI preview 1, its folder and scratch folder, koth's
//! clocks and randomness, its memory and scratch caps), the streams its stdin, stdout and stderr
//! are, and its fuel, set at the moments the bot's budgets start. Its `_start` is one wasmtime
//! async call ([`run`]), polled by koth on the game's own thread: it runs until it waits for its
//! next line (its stdin read is pending), has printed an answer, or has burnt [`YIELD_FUEL`]
//! (about a millisecond) or reached an epoch tick, and then hands the thread back. So a prompt
//! and its answer cross no thread at all.
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
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Waker;
use std::time::{Duration, Instant};

use wasmtime::{CallHook, InstancePre, ResourceLimiter, Store, StoreContextMut, UpdateDeadline};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::{FsPerms, HostMonotonicClock, HostWallClock, WasiCtxBuilder};

use crate::Unanswered;
use crate::{BotError, StderrLog};

mod stdio;

use stdio::{Output, Stdin};

/// The fuel of a bot without a budget: more than it can burn in years.
pub(super) const UNLIMITED: u64 = u64::MAX / 4;

/// The most bytes one write of the bot's takes at once.
pub(super) const WRITE_PERMIT: usize = 64 << 10;

/// How many lines the bot may print ahead of koth's reading them before its writes wait.
const PRINTED_AHEAD: usize = 64;

/// The most input koth queues for a bot that does not read it: far more than any game sends
/// between two answers (a rat race turn of thousands of specimens is a few hundred kB).
pub(super) const QUEUED_INPUT: usize = 64 << 20;

/// The most files and folders a bot's scratch folder may hold.
const SCRATCH_ENTRIES: usize = 4096;

/// How much fuel a bot burns before it hands koth's thread back: about a millisecond's work.
const YIELD_FUEL: u64 = 1_000_000;

/// How often a bot's scratch files are measured at most while it makes calls to WASI.
const SCRATCH_EVERY: Duration = Duration::from_millis(1);

/// Where a WASI bot's wall clock starts: 2000-01-01, plus its fuel burnt.
const WALL_CLOCK_START: Duration = Duration::from_secs(946_684_800);

/// What the bot's stdout gave: a line (or why it is no line), with the fuel it burnt for it if
/// it answered a prompt, and the bot's fuel clock then, in nanoseconds.
pub(super) struct Printed {
    pub line: Result<String, BotError>,
    pub fuel: Option<u64>,
    pub clock_ns: u64,
}

/// How the bot's run ended.
#[derive(Debug, Clone)]
pub(super) enum GuestExit {
    /// `proc_exit`, or returning from `_start` (0).
    Exited(i32),
    /// It burnt its budget: the answer budget, or the exit budget once its input ended.
    OutOfFuel { budget: u64, exiting: bool },
    /// A trap: a fault of its code, or a cap of koth's (its memory), named by wasmtime.
    Trapped(String),
}

/// The budgets a bot's fuel is set to.
#[derive(Debug, Clone, Copy)]
pub(super) struct Budgets {
    pub answer: u64,
    pub exit: u64,
}

/// What koth and the bot's streams and hooks share: its input, its printed lines, and its fuel
/// book, which its stdout reads to tell an answer from a line printed unasked.
#[derive(Default)]
pub(super) struct Shared {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Batches of input lines not yet all read, each with whether it ends in a prompt.
    input: VecDeque<(Vec<u8>, bool)>,
    /// How much of the first batch the bot has read, and the bytes of all batches unread.
    offset: usize,
    queued: usize,
    /// koth closed the bot's input (its game is over).
    closed: bool,
    /// The bot began reading a batch that ends in a prompt.
    prompt_taken: bool,
    /// The bot read the end of its input.
    input_ended: bool,
    /// The stdout line not yet ended, and whether it already ran over [`MAX_LINE`].
    partial: Vec<u8>,
    /// Whether the bot has written anything at all on its stdout.
    stdout_written: bool,
    overlong: bool,
    /// Lines printed and not yet taken by koth.
    printed: VecDeque<Printed>,
    /// The bot printed its answer in this call to WASI: its fuel is set for resting on the way
    /// back, and it hands the thread back to koth, which waits for that answer.
    answered: bool,
    yield_once: bool,
    /// Bytes written since the hook last looked, each a fuel.
    written: u64,
    /// Reads of its stdin and writes to its stdout and stderr so far: a call to WASI that made
    /// none may have written a scratch file.
    stream_calls: u64,
    fuel: FuelBook,
    /// Who waits for the bot: koth's task, woken when the bot can go on.
    waker: Option<Waker>,
}

/// The bot's fuel: the budget it was last set to, and the fuel it burnt before that.
#[derive(Debug, Default)]
struct FuelBook {
    phase: Phase,
    set: u64,
    burnt_before: u64,
    /// Its fuel as it last called into WASI (WASI costs no fuel but for its writes).
    left_at_call: u64,
}

impl FuelBook {
    /// The fuel burnt since the bot started, with `left` in its tank.
    fn burnt(&self, left: u64) -> u64 {
        self.burnt_before + self.set.saturating_sub(left)
    }

    /// Sets the budget of `phase`, with `left` in the tank now; returns the fuel to set.
    fn refuel(&mut self, left: u64, phase: Phase, budgets: Budgets) -> u64 {
        self.burnt_before = self.burnt(left);
        self.phase = phase;
        self.set = match phase {
            Phase::Resting | Phase::Answering => budgets.answer,
            Phase::Exiting => budgets.exit,
        };
        self.set
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Gives the bot `bytes` to read; `prompt` says they end in a prompt. Returns the bytes
    /// now queued, which the bot has not read.
    pub(super) fn feed(&self, bytes: Vec<u8>, prompt: bool) -> usize {
        let mut state = self.lock();
        state.queued += bytes.len();
        state.input.push_back((bytes, prompt));
        state.wake();
        state.queued
    }

    /// Closes the bot's input: it reads its end once it has read the rest.
    pub(super) fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        state.wake();
    }

    /// The oldest line the bot printed that koth has not taken.
    pub(super) fn take_printed(&self) -> Option<Printed> {
        let mut state = self.lock();
        let printed = state.printed.pop_front();
        if printed.is_some() {
            state.wake();
        }
        printed
    }

    /// What the bot has written of an answer not come: nothing at all (`flush` is how its
    /// language flushes), or a line without its newline.
    pub(super) fn unanswered(&self, flush: Option<&'static str>) -> Unanswered {
        let state = self.lock();
        if !state.stdout_written {
            Unanswered::Nothing { flush }
        } else if !state.partial.is_empty() {
            Unanswered::Unended {
                start: crate::quote(&String::from_utf8_lossy(&state.partial)),
            }
        } else {
            Unanswered::Answered
        }
    }

    /// Forgets the input not yet read (a stopped bot's).
    pub(super) fn clear_input(&self) {
        let mut state = self.lock();
        state.input.clear();
        state.offset = 0;
        state.queued = 0;
    }
}

impl State {
    fn wake(&mut self) {
        if let Some(waker) = self.waker.take() {
            waker.wake();
        }
    }

    /// Waits, through `waker`, for koth to change what the bot waits on.
    fn wait(&mut self, waker: &Waker) {
        match &mut self.waker {
            Some(old) => old.clone_from(waker),
            None => self.waker = Some(waker.clone()),
        }
    }

    /// A line the bot's stdout ended: an answer if the bot was answering a prompt (with the
    /// fuel it burnt for it), else a line printed unasked.
    fn print(&mut self, line: Result<String, BotError>) {
        let left = self.fuel.left_at_call;
        let answering = self.fuel.phase == Phase::Answering && !self.answered;
        self.printed.push_back(Printed {
            line,
            fuel: answering.then(|| self.fuel.set.saturating_sub(left)),
            clock_ns: self.fuel.burnt(left),
        });
        if answering {
            self.answered = true;
            self.yield_once = true;
        }
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Phase {
    /// Starting, or between an answer and the next prompt: the answer budget.
    #[default]
    Resting,
    /// From taking a prompt to its answer's newline: the answer budget.
    Answering,
    /// After the end of its input: the exit budget.
    Exiting,
}

/// A WASI bot's store data.
pub struct Guest {
    pub(super) wasi: WasiP1Ctx,
    /// The most memory and scratch files the bot may have together, in bytes, and its
    /// memory now.
    cap_bytes: usize,
    memory_bytes: usize,
    /// Its scratch folder, the bytes its files held when last measured, when that measure
    /// ended and how long it took.
    scratch: PathBuf,
    /// A learning bot's data folder, counted with its scratch files.
    data: Option<PathBuf>,
    scratch_bytes: usize,
    measured: Instant,
    measuring: Duration,
    /// Whether it has made a call to WASI that may have written a scratch file since, and its
    /// stream calls as it made its last call.
    may_have_written: bool,
    stream_calls_seen: u64,
    shared: Arc<Shared>,
    budgets: Budgets,
    clock: Arc<AtomicU64>,
}

/// What a WASI bot is started with.
pub(super) struct Setup<'a> {
    pub module_name: &'a str,
    pub dir: &'a Path,
    pub scratch: &'a Path,
    /// A learning bot's data folder, read-write at `/data`, measured with its scratch files.
    pub data: Option<&'a Path>,
    pub stderr: StderrLog,
    pub cap_bytes: usize,
    pub budgets: Budgets,
    pub seed: u64,
}

/// A store in `engine` for `setup`'s bot, with its WASI context, caps, fuel and hooks, sharing
/// `shared` with koth.
pub(super) fn store(
    engine: &wasmtime::Engine,
    setup: Setup<'_>,
    shared: &Arc<Shared>,
) -> anyhow::Result<Store<Guest>> {
    let clock = Arc::new(AtomicU64::new(0));
    // WASI may not block the game's thread (`allow_blocking_current_thread` stays off): else
    // a bot's `sleep` would be a `std::thread::sleep` there, holding the game and its timers.
    // So its sleep is a timer that hands the thread back, and its file work runs on tokio's
    // blocking threads.
    let mut wasi = WasiCtxBuilder::new();
    wasi.stdin(Stdin(shared.clone()))
        .stdout(Output::Stdout(shared.clone()))
        .stderr(Output::Stderr(shared.clone(), setup.stderr))
        .arg(setup.module_name)
        .wall_clock(FuelClock(clock.clone()))
        .monotonic_clock(FuelClock(clock.clone()));
    let wasi = super::seed_randomness(&mut wasi, setup.seed)
        .preopened_dir(setup.dir, ".", FsPerms::ReadOnly)
        .and_then(|builder| builder.preopened_dir(setup.scratch, "/tmp", FsPerms::ReadWrite))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    if let Some(data) = setup.data {
        wasi.preopened_dir(data, crate::data::WASI_DATA, FsPerms::ReadWrite)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let wasi = wasi.build_p1();
    shared.lock().fuel.set = setup.budgets.answer;
    let mut store = Store::new(
        engine,
        Guest {
            wasi,
            cap_bytes: setup.cap_bytes,
            memory_bytes: 0,
            scratch: setup.scratch.to_path_buf(),
            data: setup.data.map(Path::to_path_buf),
            scratch_bytes: 0,
            measured: Instant::now(),
            measuring: Duration::ZERO,
            may_have_written: false,
            stream_calls_seen: 0,
            shared: shared.clone(),
            budgets: setup.budgets,
            clock,
        },
    );
    store.limiter(|guest| guest);
    store
        .set_fuel(setup.budgets.answer)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    // A bot that computes hands the thread back every YIELD_FUEL (so koth's timers, the
    // answers of the game's other bots and their turns go on), and at every epoch tick, where
    // its scratch files are measured against its cap too.
    store
        .fuel_async_yield_interval(Some(YIELD_FUEL))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    store.set_epoch_deadline(1);
    store.epoch_deadline_callback(|mut ctx| {
        let guest = ctx.data_mut();
        if guest.scratch_due() {
            guest.check_scratch()?;
        }
        Ok(UpdateDeadline::Yield(1))
    });
    store.call_hook(on_call);
    Ok(store)
}

impl Guest {
    /// Whether its scratch files are to be measured now, between answers: once it may have
    /// written one, [`SCRATCH_EVERY`] after the last measure, and ten times as long as that
    /// measure took (a bot of thousands of files must not make koth spend its time measuring
    /// them after each of its calls).
    fn scratch_due(&self) -> bool {
        self.may_have_written && self.measured.elapsed() >= SCRATCH_EVERY.max(self.measuring * 10)
    }

    /// The bot's scratch files and memory against its cap: a trap naming the cap when over.
    fn check_scratch(&mut self) -> wasmtime::Result<()> {
        self.may_have_written = false;
        let started = Instant::now();
        let used = scratch_use(&self.scratch).and_then(|scratch| {
            let data = self.data.as_deref().map_or(Ok(0), scratch_use)?;
            Ok(scratch + data)
        });
        self.measured = Instant::now();
        self.measuring = self.measured - started;
        self.scratch_bytes = used
            .map_err(|e| wasmtime::format_err!("{e}"))?
            .try_into()
            .unwrap_or(usize::MAX);
        self.within_cap(self.memory_bytes)
    }

    fn within_cap(&self, memory_bytes: usize) -> wasmtime::Result<()> {
        if memory_bytes.saturating_add(self.scratch_bytes) > self.cap_bytes {
            return Err(wasmtime::format_err!(
                "its memory and scratch files reached its cap of {} MiB",
                self.cap_bytes >> 20
            ));
        }
        Ok(())
    }
}

/// The bytes of the files under `dir` by their length (a sparse file counts whole), without
/// following links; more than [`SCRATCH_ENTRIES`] files and folders is an error.
fn scratch_use(dir: &Path) -> Result<u64, String> {
    let mut bytes = 0u64;
    let mut entries = 0usize;
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(listing) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in listing.flatten() {
            entries += 1;
            if entries > SCRATCH_ENTRIES {
                return Err(format!(
                    "made more than {SCRATCH_ENTRIES} files in its scratch folder"
                ));
            }
            let Ok(meta) = entry.metadata() else {
                continue;
            };
            if meta.is_dir() {
                folders.push(entry.path());
            } else {
                bytes = bytes.saturating_add(meta.len());
            }
        }
    }
    Ok(bytes)
}

/// The bot's cap: growing its memory past what its scratch files leave is a trap that names
/// the cap (a `malloc` failing would only be an abort without a reason).
impl ResourceLimiter for Guest {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.within_cap(desired)?;
        let grows = maximum.is_none_or(|maximum| desired <= maximum);
        if grows {
            self.memory_bytes = desired;
        }
        Ok(grows)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(super::table_may_grow(desired, maximum))
    }
}

/// The call hook: keeps the bot's clock and the fuel its lines are counted from, and on the
/// way back from WASI charges its writes and sets its fuel where a budget starts (see the
/// module's documentation).
fn on_call(mut ctx: StoreContextMut<'_, Guest>, hook: CallHook) -> wasmtime::Result<()> {
    match hook {
        CallHook::CallingHost => {
            let left = ctx.get_fuel()?;
            let guest = ctx.data_mut();
            let mut state = guest.shared.lock();
            guest.stream_calls_seen = state.stream_calls;
            state.fuel.left_at_call = left;
            guest.clock.store(state.fuel.burnt(left), Ordering::Relaxed);
            Ok(())
        }
        CallHook::ReturningFromHost => {
            let mut left = ctx.get_fuel()?;
            let guest = ctx.data_mut();
            let budgets = guest.budgets;
            let before = left;
            let mut prompted = false;
            {
                let mut state = guest.shared.lock();
                guest.may_have_written |= state.stream_calls == guest.stream_calls_seen;
                left = left.saturating_sub(std::mem::take(&mut state.written));
                if std::mem::take(&mut state.answered) {
                    left = state.fuel.refuel(left, Phase::Resting, budgets);
                }
                if std::mem::take(&mut state.prompt_taken) {
                    left = state.fuel.refuel(left, Phase::Answering, budgets);
                    prompted = true;
                }
                if std::mem::take(&mut state.input_ended) && state.fuel.phase != Phase::Exiting {
                    left = state.fuel.refuel(left, Phase::Exiting, budgets);
                }
            }
            if left != before {
                ctx.set_fuel(left)?;
            }
            if prompted {
                // Its tick starts with its prompt: the epochs that passed while it waited
                // are not its own.
                ctx.set_epoch_deadline(1);
            }
            // Its scratch files are measured as it starts an answer, and otherwise as often as
            // `scratch_due` allows (and at its epoch ticks), once it may have written one.
            let guest = ctx.data_mut();
            if (prompted && guest.may_have_written) || guest.scratch_due() {
                guest.check_scratch()?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Runs the bot's `_start` in `store` to its end, as koth polls it, and says how it ended.
/// Dropped before, it stops the bot where it was.
pub(super) async fn run(ready: Arc<InstancePre<Guest>>, mut store: Store<Guest>) -> GuestExit {
    let result = async {
        let instance = ready.instantiate_async(&mut store).await?;
        instance
            .get_typed_func::<(), ()>(&mut store, "_start")?
            .call_async(&mut store, ())
            .await
    }
    .await;
    match result {
        Ok(()) => GuestExit::Exited(0),
        Err(error) => {
            if let Some(exit) = error.downcast_ref::<wasmtime_wasi::I32Exit>() {
                GuestExit::Exited(exit.0)
            } else if error.downcast_ref::<wasmtime::Trap>() == Some(&wasmtime::Trap::OutOfFuel) {
                let exiting = store.data().shared.lock().fuel.phase == Phase::Exiting;
                let budgets = store.data().budgets;
                GuestExit::OutOfFuel {
                    budget: if exiting {
                        budgets.exit
                    } else {
                        budgets.answer
                    },
                    exiting,
                }
            } else {
                GuestExit::Trapped(crate::cut_line(&format!("{error:#}"), 300).into_owned())
            }
        }
    }
}
