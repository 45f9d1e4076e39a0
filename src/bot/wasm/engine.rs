//! The one wasmtime engine of koth, its epoch ticker, and every WASI bot's module compiled once:
//! in memory for this koth, and on disk by content for every koth of this user
//! (`~/.cache/koth/wasm/<digest>.cwasm`), so that a game only instantiates.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use anyhow::Context;
use sha2::{Digest, Sha256};
use wasmtime::{Config, Engine, InstancePre, Linker, Module, OptLevel};

use super::guest::Guest;

/// How often the engine's epoch moves on: a bot that computes hands koth's thread back this
/// often, so that its time limit, and the game's other bots, are not held up longer.
pub(super) const EPOCH_TICK: Duration = Duration::from_millis(10);

/// The largest module koth compiles: a whole language runtime compiled to WASI (CPython's is
/// about 25 MiB) fits; compiling takes koth's own time and memory, many times the module's size.
const MAX_MODULE_BYTES: u64 = 64 << 20;

/// koth's engine: fuel metered (a bot's work is counted in instructions, the same on every
/// machine) and epoch-interrupted (a bot that computes yields at the next tick),
/// Cranelift-compiled.
pub(super) fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let mut config = Config::new();
        config
            .consume_fuel(true)
            .epoch_interruption(true)
            .cranelift_opt_level(OptLevel::Speed)
            .wasm_backtrace_max_frames(None);
        let engine = Engine::new(&config).expect("koth's wasmtime configuration is valid");
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

/// A module as koth last loaded it: its file's size and time, so that a rebuilt module is
/// loaded again, and the module ready to instantiate.
struct Loaded {
    stamp: (u64, Option<SystemTime>),
    ready: Arc<InstancePre<Guest>>,
}

/// The module at `path`, compiled and linked: from this koth's memory if the file is unchanged,
/// else from the disk cache if a module of the same bytes was compiled before, else compiled
/// now (and cached). A module that is not valid WebAssembly, or imports more than WASI preview
/// 1, is an error naming it.
pub(crate) fn load(path: &Path) -> anyhow::Result<Arc<InstancePre<Guest>>> {
    static LOADED: OnceLock<Mutex<HashMap<PathBuf, Loaded>>> = OnceLock::new();
    let loaded = LOADED.get_or_init(Default::default);
    let meta =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    let stamp = (meta.len(), meta.modified().ok());
    if let Some(found) = loaded.lock().unwrap_or_else(|e| e.into_inner()).get(path)
        && found.stamp == stamp
    {
        return Ok(found.ready.clone());
    }
    let module = compile(path)?;
    let ready =
        Arc::new(linker().instantiate_pre(&module).map_err(|e| {
            anyhow::anyhow!("{} cannot run under WASI preview 1: {e}", path.display())
        })?);
    loaded.lock().unwrap_or_else(|e| e.into_inner()).insert(
        path.to_path_buf(),
        Loaded {
            stamp,
            ready: ready.clone(),
        },
    );
    Ok(ready)
}

/// The module at `path`, from the disk cache or compiled into it. The cache's key is the
/// module's bytes and the engine's own compatibility hash (its version and settings), so a
/// cached module is only ever loaded by an engine that could have compiled it.
pub(super) fn compile(path: &Path) -> anyhow::Result<Module> {
    let engine = engine();
    let size = std::fs::metadata(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    anyhow::ensure!(
        size <= MAX_MODULE_BYTES,
        "{} is {} MiB, more than the {} MiB a WASI module may be (koth compiles it in its own \
         process)",
        path.display(),
        size >> 20,
        MAX_MODULE_BYTES >> 20
    );
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut digest = Sha256::new();
    digest.update(&bytes);
    let mut compat = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(&engine.precompile_compatibility_hash(), &mut compat);
    digest.update(std::hash::Hasher::finish(&compat).to_le_bytes());
    let key: String = digest
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let cached = crate::logs::cache_folder("wasm")
        .ok()
        .map(|folder| folder.join(format!("{key}.cwasm")));
    if let Some(cached) = &cached
        // SAFETY: the file is one koth wrote with `Module::serialize` under this key, in a
        // folder private to koth's user, and the key holds the engine's compatibility hash.
        && let Ok(module) = unsafe { Module::deserialize_file(engine, cached) }
    {
        return Ok(module);
    }
    let module = Module::new(engine, &bytes).map_err(|e| {
        anyhow::anyhow!("{} is not a valid WebAssembly module: {e}", path.display())
    })?;
    if let Some(cached) = cached
        && let Ok(serialized) = module.serialize()
    {
        // Written aside and renamed, so that another koth never reads half a module.
        let aside = cached.with_extension(format!("{}.part", std::process::id()));
        if std::fs::write(&aside, serialized).is_ok() {
            let _ = std::fs::rename(&aside, &cached);
        }
    }
    Ok(module)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_module_larger_than_the_cap_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.wasm");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(super::MAX_MODULE_BYTES + 1).unwrap();
        let error = super::compile(&path).unwrap_err().to_string();
        assert!(error.contains("more than the 64 MiB"), "{error}");
    }
}
