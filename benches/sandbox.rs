//! What containment costs: starting a bot (spawn, first answer, exit) and one answer's round
//! trip, each contained (`bwrap`, rlimits) and not. The bot is `cat`, which answers every
//! prompt at once with the prompt itself, so what is measured is koth and the sandbox.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use koth::bot::Sandbox;
use koth::bot::sandbox;
use koth::bot::{BotProcess, BotSpec, Ending, StderrLog};

const LIMIT: Duration = Duration::from_secs(5);

fn cat(dir: &std::path::Path) -> BotSpec {
    BotSpec {
        name: "cat".into(),
        dir: dir.to_path_buf(),
        command: vec!["cat".into()],
        build: None,
        origin: "benches/sandbox.rs".into(),
        sandbox: None,
        benched: None,
        data: None,
        protocols: Default::default(),
    }
}

fn containment(c: &mut Criterion) {
    let runtime = koth::game::runtime().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let plain = cat(tmp.path());
    let contained = sandbox::contain(
        std::slice::from_ref(&plain),
        Some(&Sandbox::default()),
        &tmp.path().join("game"),
    )
    .unwrap()
    .remove(0);
    let stderr = StderrLog::discard();
    for (label, spec) in [("plain", &plain), ("contained", &contained)] {
        c.bench_function(&format!("start {label}"), |b| {
            b.iter(|| {
                runtime.block_on(async {
                    let mut bot = BotProcess::spawn(spec, &stderr).unwrap();
                    bot.ask("ready", LIMIT).await.unwrap();
                    bot.finish(LIMIT, Ending::Exit).await;
                })
            })
        });
        let mut bot = runtime.block_on(async { BotProcess::spawn(spec, &stderr).unwrap() });
        c.bench_function(&format!("answer {label}"), |b| {
            b.iter(|| runtime.block_on(bot.ask("NONE", LIMIT)).unwrap())
        });
        runtime.block_on(bot.finish(LIMIT, Ending::Exit));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(5)).sample_size(50);
    targets = containment
}
criterion_main!(benches);
