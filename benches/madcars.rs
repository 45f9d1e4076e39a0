//! Mad Cars' physics without bots: ticks per second of one match (IslandHoleMap with the Buggy,
//! both cars on the scripted schedule of `tests/madcars/bots/schedule.py`: 1,013 ticks), to
//! hold against the organisers' own runner on the same match (docs/benchmarks.md).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use koth::games::madcars::protocol::Command;
use koth::games::madcars::scripted_match;

/// `schedule.py`'s command: held 23 ticks at a time, from a small linear congruential sequence.
fn schedule(player: usize, tick: u32) -> Command {
    let player = player as u64 + 1;
    let mut state = (player * 7919 + u64::from(tick / 23) * 104_729) % 2_147_483_647;
    state = (state * 48_271) % 2_147_483_647;
    [Command::Left, Command::Right, Command::Stop][(state % 3) as usize]
}

fn ticks_per_second(c: &mut Criterion) {
    let ticks = scripted_match("IslandHoleMap", "Buggy", schedule).expect("libchipmunk7");
    let mut group = c.benchmark_group("madcars");
    group.throughput(Throughput::Elements(u64::from(ticks)));
    group.sample_size(10);
    group.bench_function("physics_ticks_island_hole_buggy", |b| {
        b.iter(|| scripted_match("IslandHoleMap", "Buggy", schedule).unwrap())
    });
    group.finish();
}

criterion_group!(benches, ticks_per_second);
criterion_main!(benches);
