//! The one wasmtime engine of koth, its epoch ticker, and every WASI bot's module compiled once:
//! in memory for this koth, and on disk by content for every koth of this user
//! (`~/.cache/koth/wasm/<digest>.cwasm`), so that a game only instantiates.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use anyhow::Context;
use sha2::{Digest, Sha256};
use wasmtime::{Config, Engine, Inlining, InstancePre, Linker, Module, OptLevel};

use super::guest::Guest;

/// How often the engine's epoch moves on: a bot that computes hands koth's thread back this
/// often, so that its time limit, and the game's other bots, are not held up longer.
pub(super) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// The largest module koth compiles: a whole language runtime compiled to WASI (CPython's is
/// about 25 MiB) fits; compiling takes koth's own time and memory, many times the module's size.
const MAX_MODULE_BYTES: u64 = 64 << 20;

/// koth's engine settings: fuel metered (a bot's work is counted in instructions, the same on
/// every machine) and epoch-interrupted (a bot that computes yields at the next tick),
/// Cranelift-compiled, with calls within a module inlined where small enough (wasmtime's
/// bound: a caller grows to 2,000 bytes of WebAssembly at most), so that the loop koth writes
/// into a directly called module ([`super::call_loop`]) runs the called function in its own
/// body, with no call, stack-limit check or context switch per item. The contained compiler
/// ([`compile_to`]) uses the same, so what it compiles loads here.
fn config() -> Config {
    let mut config = Config::new();
    config
        .consume_fuel(true)
        .epoch_interruption(true)
        .cranelift_opt_level(OptLevel::Speed)
        .compiler_inlining(Inlining::Yes)
        .wasm_backtrace_max_frames(None);
    config
}

/// koth's engine, with its epoch ticker.
pub(super) fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let engine = Engine::new(&config()).expect("koth's wasmtime configuration is valid");
        let ticking = engine.clone();
        std::thread::Builder::new()
            .name("wasm-epoch".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(EPOCH_TICK);
                    ticking.increment_epoch();
                }
            })
            .expect("a thread can be started");
        engine
    })
}

/// The linker every WASI bot is instantiated with: WASI preview 1 and nothing else, async (a
/// bot waiting for its input hands koth's thread back).
fn linker() -> &'static Linker<Guest> {
    static LINKER: OnceLock<Linker<Guest>> = OnceLock::new();
    LINKER.get_or_init(|| {
        let mut linker = Linker::new(engine());
        wasmtime_wasi::p1::add_to_linker_async(&mut linker, |guest: &mut Guest| &mut guest.wasi)
            .expect("WASI preview 1 links once");
        linker
    })
}

/// Where a module may be compiled when it is not in the disk cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compile {
    /// In koth's own process: a bot koth runs uncontained, its author's own.
    Here,
    /// Nowhere: a contained bot's module is compiled by a contained child before its first
    /// game (`build::prepare`), since compiling a stranger's module can take gigabytes and
    /// minutes (Cranelift's cost grows faster than a function's size); here it is only loaded.
    CachedOnly,
}

impl Compile {
    /// Where `bot`'s module may be compiled: here only if it runs uncontained.
    pub fn for_bot(bot: &crate::BotSpec) -> Compile {
        match bot.sandbox {
            Some(_) => Compile::CachedOnly,
            None => Compile::Here,
        }
    }
}

/// The most compiled code koth keeps loaded for modules not in use: past it, the modules used
/// longest ago are dropped (and loaded again from the disk cache when next needed).
const LOADED_BYTES_KEPT: u64 = 512 << 20;

/// A module as koth last loaded it: its file's size and time, so that a rebuilt module is
/// loaded again, the module ready to instantiate, its compiled size and when it was last used.
struct Loaded {
    stamp: (u64, Option<SystemTime>),
    ready: Arc<InstancePre<Guest>>,
    bytes: u64,
    used: u64,
}

/// The modules koth has loaded, kept up to [`LOADED_BYTES_KEPT`] bytes of compiled code.
#[derive(Default)]
struct LoadedModules {
    by_path: HashMap<PathBuf, Loaded>,
    clock: u64,
}

impl LoadedModules {
    fn get(
        &mut self,
        path: &Path,
        stamp: (u64, Option<SystemTime>),
    ) -> Option<Arc<InstancePre<Guest>>> {
        self.clock += 1;
        let found = self
            .by_path
            .get_mut(path)
            .filter(|found| found.stamp == stamp)?;
        found.used = self.clock;
        Some(found.ready.clone())
    }

    fn insert(&mut self, path: &Path, loaded: Loaded) {
        self.by_path.insert(path.to_path_buf(), loaded);
        let mut total: u64 = self.by_path.values().map(|l| l.bytes).sum();
        while total > LOADED_BYTES_KEPT && self.by_path.len() > 1 {
            let Some(oldest) = self
                .by_path
                .iter()
                .min_by_key(|(_, l)| l.used)
                .map(|(path, _)| path.clone())
            else {
                break;
            };
            if let Some(dropped) = self.by_path.remove(&oldest) {
                total -= dropped.bytes;
            }
        }
    }
}

/// The module at `path`, compiled and linked: from this koth's memory if the file is unchanged,
/// else from the disk cache if a module of the same bytes was compiled before, else compiled
/// now (and cached) where `compile` allows. A module that is not valid WebAssembly, or imports
/// more than WASI preview 1, is an error naming it.
pub fn load(path: &Path, compile: Compile) -> anyhow::Result<Arc<InstancePre<Guest>>> {
    static LOADED: OnceLock<Mutex<LoadedModules>> = OnceLock::new();
    let loaded = LOADED.get_or_init(Default::default);
    let meta =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    let stamp = (meta.len(), meta.modified().ok());
    if let Some(ready) = loaded
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(path, stamp)
    {
        return Ok(ready);
    }
    let module = self::compile(path, compile)?;
    let ready =
        Arc::new(linker().instantiate_pre(&module).map_err(|e| {
            anyhow::anyhow!("{} cannot run under WASI preview 1: {e}", path.display())
        })?);
    let range = module.image_range();
    let bytes = (range.end as usize).saturating_sub(range.start as usize) as u64;
    let mut loaded = loaded.lock().unwrap_or_else(|e| e.into_inner());
    let used = loaded.clock;
    loaded.insert(
        path,
        Loaded {
            stamp,
            ready: ready.clone(),
            bytes,
            used,
        },
    );
    Ok(ready)
}

/// The bytes of the module at `path`, refused past [`MAX_MODULE_BYTES`] before they are read.
pub(super) fn module_bytes(path: &Path) -> anyhow::Result<Vec<u8>> {
    let size = std::fs::metadata(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    anyhow::ensure!(
        size <= MAX_MODULE_BYTES,
        "{} is {} MiB, more than the {} MiB a WASI module may be",
        path.display(),
        size >> 20,
        MAX_MODULE_BYTES >> 20
    );
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Where the disk cache keeps the compiled module of the module at `path`. The key is the
/// module's bytes and the engine's own compatibility hash (its version and settings), so a
/// cached module is only ever loaded by an engine that could have compiled it.
pub fn cache_file(path: &Path) -> anyhow::Result<PathBuf> {
    cache_file_of(&module_bytes(path)?)
}

/// Where the disk cache keeps the compiled module of `bytes` (see [`cache_file`]).
fn cache_file_of(bytes: &[u8]) -> anyhow::Result<PathBuf> {
    let mut digest = Sha256::new();
    digest.update(bytes);
    let mut compat = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(&engine().precompile_compatibility_hash(), &mut compat);
    digest.update(std::hash::Hasher::finish(&compat).to_le_bytes());
    let key: String = digest
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(koth_base::logs::cache_folder("wasm")?.join(format!("{key}.cwasm")))
}

/// The module at `path`, from the disk cache or, where `compile` allows, compiled into it.
pub(super) fn compile(path: &Path, compile: Compile) -> anyhow::Result<Module> {
    let bytes = module_bytes(path)?;
    if let Some(module) = cached(&bytes) {
        return Ok(module);
    }
    if compile == Compile::CachedOnly {
        anyhow::bail!(
            "{} was not compiled before its game (a contained bot's module is compiled in its \
             build step)",
            path.display()
        );
    }
    compile_here(path, &bytes)
}

/// The compiled module of `bytes` from the disk cache, if it is there.
pub(super) fn cached(bytes: &[u8]) -> Option<Module> {
    let cached = cache_file_of(bytes).ok()?;
    // SAFETY: the file is one koth wrote with `Module::serialize` (here, or in its contained
    // compiler, `compile_to`) under this key, in a folder private to koth's user, and the key
    // holds the engine's compatibility hash.
    unsafe { Module::deserialize_file(engine(), cached) }.ok()
}

/// `bytes` (the module at `path`, or koth's rewrite of it) compiled in koth's own process, and
/// kept in the disk cache.
pub(super) fn compile_here(path: &Path, bytes: &[u8]) -> anyhow::Result<Module> {
    let module = Module::new(engine(), bytes).map_err(|e| {
        anyhow::anyhow!("{} is not a valid WebAssembly module: {e}", path.display())
    })?;
    if let Ok(cached) = cache_file_of(bytes)
        && let Ok(serialized) = module.serialize()
    {
        write_aside(&cached, &serialized);
    }
    Ok(module)
}

/// Checks that `bytes` (the module at `path`) are a valid module for koth's engine, before
/// koth compiles a rewrite of them (which could make valid what was not).
pub(super) fn validate(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    Module::validate(engine(), bytes)
        .map_err(|e| anyhow::anyhow!("{} is not a valid WebAssembly module: {e}", path.display()))
}

/// Writes `bytes` to `file` aside and renames it into place, so that another koth never reads
/// half a module.
fn write_aside(file: &Path, bytes: &[u8]) -> bool {
    let aside = file.with_extension(format!("{}.part", std::process::id()));
    std::fs::write(&aside, bytes).is_ok() && std::fs::rename(&aside, file).is_ok()
}

/// What koth's contained compiler runs (`koth compile-wasm MODULE OUT`, in a build's sandbox
/// and under its caps): compiles `module` with koth's engine settings and writes the compiled
/// module to `out`. Nothing else: no cache, no epoch ticker.
pub fn compile_to(module: &Path, out: &Path) -> anyhow::Result<()> {
    let engine = Engine::new(&config())?;
    let compiled = engine
        .precompile_module(&module_bytes(module)?)
        .map_err(|e| {
            anyhow::anyhow!(
                "{} is not a valid WebAssembly module: {e}",
                module.display()
            )
        })?;
    anyhow::ensure!(
        write_aside(out, &compiled),
        "cannot write {}",
        out.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_module_larger_than_the_cap_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.wasm");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(super::MAX_MODULE_BYTES + 1).unwrap();
        let error = super::compile(&path, super::Compile::Here)
            .unwrap_err()
            .to_string();
        assert!(error.contains("more than the 64 MiB"), "{error}");
    }
}
