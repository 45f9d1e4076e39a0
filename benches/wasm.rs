//! What a WASI bot costs against a process (docs/wasm.md has the figures): starting one for a
//! game (instantiation from the compiled module, to its first answer), one answer's round trip,
//! and what fuel metering costs a C bot's work. The bot is `benches/wasi/echo.c`, built natively
//! with gcc and to WASI with clang, so both kinds run the same code; the work is
//! `benches/wasi/work.c`, run by wasmtime with and without fuel metering.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use koth::bot::{BotProcess, BotSpec, Ending, Limits, StderrLog, WASI_COMMAND, wasm::WasmBot};

const LIMIT: Duration = Duration::from_secs(5);

/// Compiles `source` (in benches/wasi/) with `compiler` and `args` to `out`.
fn build(compiler: &str, args: &[&str], source: &str, out: &Path) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/wasi")
        .join(source);
    let status = Command::new(compiler)
        .args(args)
        .arg("-o")
        .arg(out)
        .arg(source)
        .status()
        .unwrap_or_else(|e| panic!("{compiler}: {e}"));
    assert!(status.success(), "{compiler} failed");
}

fn spec(dir: &Path, command: Vec<String>) -> BotSpec {
    BotSpec {
        name: "echo".into(),
        dir: dir.to_path_buf(),
        command,
        build: None,
        origin: "benches/wasm.rs".into(),
        sandbox: None,
        benched: None,
        data: None,
        protocols: Default::default(),
    }
}

fn start_and_answer(c: &mut Criterion) {
    let runtime = koth::game::runtime().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    build("gcc", &["-O2"], "echo.c", &tmp.path().join("echo"));
    build(
        "clang",
        &["--target=wasm32-wasi", "-O2"],
        "echo.c",
        &tmp.path().join("echo.wasm"),
    );
    let process = spec(tmp.path(), vec!["./echo".into()]);
    let wasi = spec(tmp.path(), vec![WASI_COMMAND.into(), "echo.wasm".into()]);
    let module = tmp.path().join("echo.wasm");
    let scratch = tempfile::tempdir().unwrap();
    let stderr = StderrLog::discard();
    let limits = Limits::uniform(LIMIT);
    // Compiled once, as a game's bot is before the game.
    drop(WasmBot::start(&wasi, &module, scratch.path(), &stderr, &limits, 1).unwrap());

    c.bench_function("start process", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let mut bot = BotProcess::spawn(&process, &stderr).unwrap();
                bot.ask("ready", LIMIT).await.unwrap();
                bot.finish(LIMIT, Ending::Exit).await;
            })
        })
    });
    c.bench_function("start wasi", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let mut bot =
                    WasmBot::start(&wasi, &module, scratch.path(), &stderr, &limits, 1).unwrap();
                bot.ask("ready", LIMIT).await.unwrap();
                bot.finish(LIMIT, Ending::Exit).await;
            })
        })
    });

    let mut bot = runtime.block_on(async { BotProcess::spawn(&process, &stderr).unwrap() });
    c.bench_function("answer process", |b| {
        b.iter(|| runtime.block_on(bot.ask("NONE", LIMIT)).unwrap())
    });
    runtime.block_on(bot.finish(LIMIT, Ending::Exit));
    let mut bot = WasmBot::start(&wasi, &module, scratch.path(), &stderr, &limits, 1).unwrap();
    c.bench_function("answer wasi", |b| {
        b.iter(|| runtime.block_on(bot.ask("NONE", LIMIT)).unwrap())
    });
    runtime.block_on(bot.finish(LIMIT, Ending::Exit));
}

/// `work(seed)` of benches/wasi/work.c in an engine with fuel metering or without.
fn fuel(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let module = tmp.path().join("work.wasm");
    build(
        "clang",
        &[
            "--target=wasm32-wasi",
            "-O2",
            "-nostartfiles",
            "-Wl,--no-entry",
            "-Wl,--export=work",
        ],
        "work.c",
        &module,
    );
    for metered in [false, true] {
        let mut config = wasmtime::Config::new();
        // As koth's engine, but for the fuel.
        config.consume_fuel(metered).epoch_interruption(true);
        let engine = wasmtime::Engine::new(&config).unwrap();
        let compiled = wasmtime::Module::from_file(&engine, &module).unwrap();
        let mut store = wasmtime::Store::new(&engine, ());
        store.set_epoch_deadline(u64::MAX / 2);
        if metered {
            store.set_fuel(u64::MAX / 2).unwrap();
        }
        let instance = wasmtime::Instance::new(&mut store, &compiled, &[]).unwrap();
        let work = instance
            .get_typed_func::<i32, i32>(&mut store, "work")
            .unwrap();
        let label = if metered { "metered" } else { "unmetered" };
        let mut seed = 0;
        c.bench_function(&format!("work {label}"), |b| {
            b.iter(|| {
                seed += 1;
                work.call(&mut store, seed).unwrap()
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(5)).sample_size(50);
    targets = start_and_answer, fuel
}
criterion_main!(benches);
