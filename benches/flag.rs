//! GA speed on the seed's level: generations per second (population 100, chromosomes of 51
//! genes), without stopping at a solution so every iteration does the same work.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use koth::games::flag::ga::{self, Params};
use koth::games::flag::rules::Level;
use koth::seed;

const GENERATIONS: u32 = 200;

fn generations_per_second(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("levels/flag/5-seed-6x6.txt");
    let level = Level::load(&path).expect("the seed's level is shipped");
    let params = Params {
        generations: GENERATIONS,
        stop_when_solved: false,
        ..Params::default()
    };
    let mut group = c.benchmark_group("flag");
    group.throughput(Throughput::Elements(u64::from(GENERATIONS)));
    group.sample_size(10);
    group.warm_up_time(std::time::Duration::from_secs(1));
    group.measurement_time(std::time::Duration::from_secs(5));
    group.bench_function("ga_generations_seed_6x6", |b| {
        b.iter(|| ga::run(black_box(&level), &params, &mut seed::rng(1, 0), |_| {}))
    });
    group.finish();
}

criterion_group!(benches, generations_per_second);
criterion_main!(benches);
