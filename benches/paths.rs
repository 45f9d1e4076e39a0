//! Scoring alone at N = 30 (side 1200): 30 randomized searches from every active source of a
//! grid filled as a round would fill it, plus — the expensive case — 30 complete source-to-sink
//! paths, each search of which walks 1200 rows. Target: under 50 ms per round.

use criterion::{Criterion, criterion_group, criterion_main};
use koth::games::paths::rules::{self, Cell, Grid};
use koth::seed;
use rand::RngExt;

/// Bot `b` builds a wandering path from source `40·b` towards a sink, one of the three vertices
/// above the last at each row, never a broken one.
fn add_complete_paths(grid: &mut Grid, bots: usize, rng: &mut seed::Rng) {
    let side = grid.side();
    for bot in 0..bots {
        let mut x = bot * 40;
        for y in 0..side {
            let step = rng.random_range(0..3);
            let Some(next) = (0..3)
                .map(|i| (x + side + (step + i) % 3 - 1) % side)
                .find(|&nx| y == 0 && nx == x || y > 0 && grid.cell((nx, y)) != Cell::Broken)
            else {
                break;
            };
            x = next;
            let mut choices = vec![None; bots];
            choices[bot] = Some((x, y));
            grid.activate(&choices);
        }
    }
}

fn scoring(c: &mut Criterion) {
    let bots = 30;
    let mut grid = rules::random_filled(bots, &mut seed::rng(1, 0));
    add_complete_paths(&mut grid, bots, &mut seed::rng(1, 1));
    let points = grid.score(bots, bots, &mut seed::rng(2, 0)).points;
    // Most of the 30 paths are complete: each pays at least 1200 points per search.
    assert!(points.iter().sum::<u64>() >= (bots * bots * rules::side(bots) / 2) as u64);
    let mut stream = 0;
    c.bench_function("paths score N=30 side=1200", |b| {
        b.iter(|| {
            stream += 1;
            grid.score(bots, bots, &mut seed::rng(2, stream))
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = scoring
}
criterion_main!(benches);
