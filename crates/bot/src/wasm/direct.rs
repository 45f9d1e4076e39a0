//! A WASI module that koth calls directly: a game writes into the module's memory and calls its
//! exported functions with integer arguments, with no text at all (the rat race's direct call,
//! `[protocols] ratrace = "direct"`). Game-agnostic: a game names the exports it calls.
//!
//! The module is compiled once per digest ([`super::engine`]'s cache), and instantiated in a
//! store of its own, called synchronously on the game's thread. It is contained as a WASI line
//! bot is, with less to reach:
//! - WASI preview 1 is linked, so a module built with wasi-libc runs, but it has no files, no
//!   network, no arguments or environment, and nothing to read on stdin; what it prints on
//!   stdout is dropped, its stderr goes to the bot's capped log, and each byte it writes costs
//!   a fuel;
//! - its clocks stand still at 2000-01-01 (its work is counted in fuel, not time), its
//!   randomness is seeded by koth;
//! - its memory is capped (growing past the cap is a trap naming it);
//! - each [`DirectInstance::budget`] sets the fuel for what follows (a turn, say): burning more
//!   is a `timed_out` fault naming the budget, the same on every machine; the wall-clock limit
//!   stays as a backstop, through the engine's epochs.
//!
//! Every trap, fuel out and refusal is a [`BotError`] with its reason; nothing the module does
//! panics koth or stops it.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use wasmtime::{
    CallHook, InstancePre, Linker, Memory, ResourceLimiter, Store, StoreContextMut, Trap,
    TypedFunc, WasmParams, WasmResults,
};
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};
use wasmtime_wasi::{HostMonotonicClock, HostWallClock, WasiCtxBuilder};

use super::engine::{
    Compile, EPOCH_TICK, cached, compile, compile_here, engine, module_bytes, validate,
};
use super::guest::UNLIMITED;
use super::loop_code::{Looped, with_loop};
use crate::{BotError, BotSpec, Clock, Limits, StderrLog};

/// A module ready to be instantiated for direct calls: compiled, and linked with WASI
/// preview 1.
pub struct DirectModule {
    ready: InstancePre<Direct>,
    /// The module's file name, for messages.
    name: String,
    /// The export whose loop koth wrote into the module ([`super::call_loop`]), if it could.
    looped: Option<Looped>,
}

/// What a direct module's store holds: its WASI context, its memory cap, and the bytes it
/// wrote on stdout and stderr since the call hook last charged them.
pub(crate) struct Direct {
    wasi: WasiP1Ctx,
    cap: MemoryCap,
    written: Arc<AtomicU64>,
}

/// The linker of every direct module: WASI preview 1 and nothing else.
fn linker() -> &'static Linker<Direct> {
    static LINKER: OnceLock<Linker<Direct>> = OnceLock::new();
    LINKER.get_or_init(|| {
        let mut linker = Linker::new(engine());
        wasmtime_wasi::p1::add_to_linker_sync(&mut linker, |direct: &mut Direct| &mut direct.wasi)
            .expect("WASI preview 1 links once");
        // A direct call may not wait: its clocks stand still, and a sleep inside WASI would
        // hold the game's thread where the time limit, checked in the module's own code, cannot
        // stop it. `poll_oneoff` (every sleep and wait of WASI preview 1) is a trap naming it.
        linker.allow_shadowing(true);
        linker
            .func_wrap(
                "wasi_snapshot_preview1",
                "poll_oneoff",
                |_: wasmtime::Caller<'_, Direct>,
                 _: i32,
                 _: i32,
                 _: i32,
                 _: i32|
                 -> wasmtime::Result<i32> {
                    Err(wasmtime::format_err!(
                        "waited (poll_oneoff), which a direct call may not"
                    ))
                },
            )
            .expect("poll_oneoff is shadowed once");
        linker
    })
}

impl DirectModule {
    /// The module at `path`, compiled (or from the cache) and linked, with the loop over its
    /// export `looped` written in (see [`CallLoop`](super::CallLoop)) where it can be: always
    /// when `how` lets koth compile it here; for a contained bot, whose module only its build's
    /// contained compiler compiles, when that rewrite is already in the cache, else the module
    /// as its build compiled it. A module that is not valid WebAssembly, or imports more than
    /// WASI preview 1, is an error naming it.
    pub fn load(path: &Path, how: Compile, looped: Looped) -> anyhow::Result<DirectModule> {
        let bytes = module_bytes(path)?;
        let rewritten = with_loop(&bytes, &looped).map_err(|e| {
            anyhow::anyhow!("{} is not a valid WebAssembly module: {e}", path.display())
        })?;
        let (module, looped) = match rewritten {
            Some(rewritten) => match cached(&rewritten) {
                Some(module) => (module, Some(looped)),
                None if how == Compile::Here => {
                    validate(path, &bytes)?;
                    (compile_here(path, &rewritten)?, Some(looped))
                }
                None => (compile(path, how)?, None),
            },
            None => (compile(path, how)?, None),
        };
        let ready = linker().instantiate_pre(&module).map_err(|e| {
            anyhow::anyhow!("{} cannot run under WASI preview 1: {e}", path.display())
        })?;
        Ok(DirectModule {
            ready,
            name: path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default(),
            looped,
        })
    }
}

/// What an instance is started with.
pub struct DirectSetup {
    /// Where its stderr goes.
    pub stderr: StderrLog,
    /// The most memory it may have, in bytes.
    pub memory_bytes: usize,
    /// The seed of its randomness.
    pub seed: u64,
}

/// An instance of a [`DirectModule`], called on the caller's thread.
pub struct DirectInstance {
    pub(super) store: Store<Direct>,
    pub(super) instance: wasmtime::Instance,
    memory: Memory,
    /// The module's file name, for messages.
    pub(super) name: String,
    /// The export whose loop is written into the module, if one is.
    pub(super) looped: Option<Looped>,
    pub(super) stderr: StderrLog,
    /// The fuel and wall-clock limit of the current budget.
    pub(super) fuel: Option<u64>,
    pub(super) wall: Duration,
}

impl DirectSetup {
    /// The setup of `spec`'s instances, with its memory cap (its containment's, or koth's
    /// default for WASI bots).
    pub fn of(spec: &BotSpec, stderr: StderrLog, seed: u64) -> DirectSetup {
        DirectSetup {
            stderr,
            memory_bytes: super::memory_cap(spec),
            seed,
        }
    }
}

impl DirectInstance {
    /// Instantiates `module` under `setup`, and runs its `_initialize` if it exports one (a
    /// WASI reactor's, which sets up its C library), under a budget of `limits` (see
    /// [`DirectInstance::budget`]). A module without an exported `memory` is refused.
    pub fn start(
        module: &DirectModule,
        setup: DirectSetup,
        limits: &Limits,
    ) -> Result<DirectInstance, BotError> {
        let (fuel, wall) = (limits.answer_fuel, backstop(limits));
        let refused = |reason: String| BotError::Spawn {
            command: module.name.clone(),
            reason,
        };
        let written = Arc::new(AtomicU64::new(0));
        let mut wasi = WasiCtxBuilder::new();
        wasi.stdout(Output {
            log: None,
            written: written.clone(),
        })
        .stderr(Output {
            log: Some(setup.stderr.clone()),
            written: written.clone(),
        })
        .wall_clock(StillClock)
        .monotonic_clock(StillClock);
        let wasi = super::seed_randomness(&mut wasi, setup.seed).build_p1();
        let mut store = Store::new(
            engine(),
            Direct {
                wasi,
                cap: MemoryCap {
                    bytes: setup.memory_bytes,
                },
                written,
            },
        );
        store.limiter(|direct| &mut direct.cap);
        store.call_hook(charge_writes);
        store.epoch_deadline_trap();
        set_budget(&mut store, fuel, wall);
        setup.stderr.begin_process();
        let instance = module
            .ready
            .instantiate(&mut store)
            .map_err(|e| fault(e, fuel, wall, &setup.stderr))?;
        let memory = instance
            .get_memory(&mut store, "memory")
            .ok_or_else(|| refused("it exports no `memory`".into()))?;
        let mut instance = DirectInstance {
            store,
            instance,
            memory,
            name: module.name.clone(),
            looped: module.looped.clone(),
            stderr: setup.stderr,
            fuel,
            wall,
        };
        if let Some(initialize) = instance.optional_func::<(), ()>("_initialize")? {
            instance.call(&initialize, ())?;
        }
        Ok(instance)
    }

    /// The exported function `name` of type `P -> R`; an error naming it if it is missing or of
    /// another type.
    pub fn func<P: WasmParams, R: WasmResults>(
        &mut self,
        name: &str,
    ) -> Result<TypedFunc<P, R>, BotError> {
        self.optional_func(name)?.ok_or_else(|| BotError::Spawn {
            command: self.name.clone(),
            reason: format!("it exports no function `{name}`"),
        })
    }

    /// The exported function `name` of type `P -> R` if there is one; an error naming it if it
    /// is of another type.
    pub fn optional_func<P: WasmParams, R: WasmResults>(
        &mut self,
        name: &str,
    ) -> Result<Option<TypedFunc<P, R>>, BotError> {
        let Some(func) = self.instance.get_func(&mut self.store, name) else {
            return Ok(None);
        };
        func.typed(&self.store)
            .map(Some)
            .map_err(|e| BotError::Spawn {
                command: self.name.clone(),
                reason: format!("its export `{name}` is not of the type koth calls: {e}"),
            })
    }

    /// Starts a budget, as for an answer: the calls from now on may burn `limits`'
    /// [`Limits::answer_fuel`] (unlimited if unset) and take its wall-clock backstop in all.
    pub fn budget(&mut self, limits: &Limits) {
        self.fuel = limits.answer_fuel;
        self.wall = backstop(limits);
        set_budget(&mut self.store, self.fuel, self.wall);
    }

    /// Calls `func` with `args` under the current budget. A trap, the fuel or the wall-clock
    /// limit running out is an error with its reason; the instance should not be called again.
    #[inline]
    pub fn call<P: WasmParams, R: WasmResults>(
        &mut self,
        func: &TypedFunc<P, R>,
        args: P,
    ) -> Result<R, BotError> {
        func.call(&mut self.store, args)
            .map_err(|e| fault(e, self.fuel, self.wall, &self.stderr))
    }

    /// Writes `bytes` into the module's memory at `address`; the reason if they do not fit.
    pub fn write(&mut self, address: u32, bytes: &[u8]) -> Result<(), String> {
        let size = self.memory.data_size(&self.store);
        self.memory
            .write(&mut self.store, address as usize, bytes)
            .map_err(|_| {
                format!(
                    "address {address} cannot take {} bytes: its memory has {size}",
                    bytes.len()
                )
            })
    }
}

/// The wall-clock limit of a budget under `limits`: the answer's, or the CPU clock's backstop if
/// longer (a direct call's work is counted in fuel, not CPU time).
fn backstop(limits: &Limits) -> Duration {
    match limits.clock {
        Clock::Wall => limits.answer,
        Clock::Cpu { backstop } => backstop.max(limits.answer),
    }
}

/// Sets `store`'s fuel to `fuel` (unlimited if `None`) and its epoch deadline `wall` from now.
fn set_budget(store: &mut Store<Direct>, fuel: Option<u64>, wall: Duration) {
    store
        .set_fuel(fuel.unwrap_or(UNLIMITED))
        .expect("koth's engine meters fuel");
    // One tick more than the limit holds, since the first may come at once. wasmtime adds the
    // deadline to the engine's current epoch, so it is held where the sum cannot wrap round to
    // a deadline already past.
    let ticks = wall.as_nanos().div_ceil(EPOCH_TICK.as_nanos()) + 1;
    store.set_epoch_deadline(u64::try_from(ticks).map_or(u64::MAX / 2, |t| t.min(u64::MAX / 2)));
}

/// The fault a failed call is, under the budget of `fuel` and `wall`.
pub(super) fn fault(
    error: wasmtime::Error,
    fuel: Option<u64>,
    wall: Duration,
    stderr: &StderrLog,
) -> BotError {
    match error.downcast_ref::<Trap>() {
        Some(Trap::OutOfFuel) => BotError::OutOfFuel {
            budget: fuel.unwrap_or(UNLIMITED),
            exiting: false,
        },
        Some(Trap::Interrupt) => BotError::Timeout {
            limit: wall,
            grace: Duration::ZERO,
            // A direct call answers by returning, not on its stdout.
            stdout: crate::Unanswered::Answered,
        },
        _ => BotError::Exited {
            status: format!("trapped: {}", crate::cut_line(&format!("{error:#}"), 300)),
            stderr_tail: stderr.tail(),
        },
    }
}

/// A memory cap: growing past it is a trap that names it (a `malloc` failing would only be an
/// abort without a reason). Tables are capped at a million entries.
struct MemoryCap {
    bytes: usize,
}

impl ResourceLimiter for MemoryCap {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.bytes {
            return Err(wasmtime::format_err!(
                "reached its memory cap of {} MiB",
                self.bytes >> 20
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
        Ok(super::table_may_grow(desired, maximum))
    }
}

/// The call hook: on the way back from WASI, each byte the module wrote costs a fuel, so that
/// it cannot spend koth's time for free.
fn charge_writes(mut ctx: StoreContextMut<'_, Direct>, hook: CallHook) -> wasmtime::Result<()> {
    if let CallHook::ReturningFromHost = hook {
        let written = ctx.data().written.swap(0, Ordering::Relaxed);
        if written > 0 {
            let left = ctx.get_fuel()?;
            ctx.set_fuel(left.saturating_sub(written))?;
        }
    }
    Ok(())
}

/// The module's stdout (dropped) or stderr (its capped log), counting the bytes written.
#[derive(Clone)]
struct Output {
    log: Option<StderrLog>,
    written: Arc<AtomicU64>,
}

#[wasmtime_wasi::async_trait]
impl Pollable for Output {
    async fn ready(&mut self) {}
}

impl OutputStream for Output {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.written
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        if let Some(log) = &self.log {
            log.write(&bytes);
        }
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(super::guest::WRITE_PERMIT)
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

/// Clocks that stand still at 2000-01-01: a direct call's work is counted in fuel, and its
/// sense of time is the same on every machine.
struct StillClock;

/// 2000-01-01, as a duration since 1970.
const STILL_AT: Duration = Duration::from_secs(946_684_800);

impl HostMonotonicClock for StillClock {
    fn resolution(&self) -> u64 {
        1
    }

    fn now(&self) -> u64 {
        0
    }
}

impl HostWallClock for StillClock {
    fn resolution(&self) -> Duration {
        Duration::from_nanos(1)
    }

    fn now(&self) -> Duration {
        STILL_AT
    }
}
