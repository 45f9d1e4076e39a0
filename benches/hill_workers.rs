//! Many hill workers on one PostgreSQL (`scripts/bench-hill-workers.sh` sets the hill up and
//! runs this): `--workers` threads, each with its own connection and claimant as a
//! `koth worker` process has, claim the queue's games and record a result for each through
//! koth's own [`Store::claim`] and [`Store::record_result`], the statements a hill's worker
//! runs per game, playing no game (each seat scores its seat's number). Each claim's and each
//! record's wall time is kept; the median and the 95th percentile of each are printed, with the
//! games recorded and the run's wall time. Bounded: it stops when the queue is empty or after
//! `--seconds`. `--game-ms` is the time a worker takes to play its game between the claim and
//! the record (0: none, the tight loop whose figure is the database's throughput); a real
//! worker plays one, so its statements meet fewer others at once. With a game's time the
//! workers start spread over it (worker `i` of `n` after `i/n` of a game): real workers' games
//! end when they end, where fifty started at one instant with games of one length would claim
//! and record in bursts of fifty, each statement waiting for the forty-nine before it, for as
//! long as the run lasts. Halfway through each game a worker also times a bare round trip
//! (`SELECT 1` on its connection): the floor every statement pays on this machine at that
//! moment, its wake-ups and its wait for a core; and a bare durable commit (a row inserted into
//! `public.koth_bench_flush`, a table the script makes), the floor of every write that waits
//! for the disk, as a record does. Beside them a claim's and a record's own cost shows.
//!   cargo bench --bench hill_workers -- --url URL --name NAME [--workers 50] [--seconds 30]
//!     [--game-ms 0]

use std::time::{Duration, Instant};

use koth::bot::{AnswerStats, FaultLog};
use koth::game::{BotResult, MatchResult};
use koth::tournament::store::sql::Connection;
use koth::tournament::store::{Changes, Claimant, Store};

/// What one worker measured: each claim's, each record's, each bare round trip's and each bare
/// durable commit's wall time.
#[derive(Default)]
struct Times {
    claims: Vec<Duration>,
    records: Vec<Duration>,
    round_trips: Vec<Duration>,
    flushes: Vec<Duration>,
}

fn main() -> anyhow::Result<()> {
    let mut url = None;
    let mut name = None;
    let (mut workers, mut seconds, mut game_ms) = (50usize, 30u64, 0.0f64);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--url" => url = args.next(),
            "--name" => name = args.next(),
            "--workers" => workers = args.next().unwrap_or_default().parse()?,
            "--seconds" => seconds = args.next().unwrap_or_default().parse()?,
            "--game-ms" => game_ms = args.next().unwrap_or_default().parse()?,
            // `cargo bench` passes `--bench`.
            _ => {}
        }
    }
    let (Some(url), Some(name)) = (url, name) else {
        anyhow::bail!(
            "usage: hill_workers --url URL --name NAME [--workers N] [--seconds S] [--game-ms MS]"
        );
    };
    let game = Duration::from_secs_f64(game_ms / 1000.0);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let empty = tempfile::tempdir()?;
    let start = Instant::now();
    let times: Vec<Times> = std::thread::scope(|scope| {
        let running: Vec<_> = (0..workers)
            .map(|i| {
                let start = game.mul_f64(i as f64 / workers as f64);
                let (url, name, dir) = (&url, &name, empty.path());
                scope.spawn(move || work(url, name, start, deadline, game, dir))
            })
            .collect();
        running
            .into_iter()
            .map(|w| w.join().expect("a worker thread panicked"))
            .collect::<anyhow::Result<_>>()
    })?;
    let wall = start.elapsed();
    let mut claims: Vec<Duration> = times.iter().flat_map(|t| t.claims.clone()).collect();
    let mut records: Vec<Duration> = times.iter().flat_map(|t| t.records.clone()).collect();
    let mut round_trips: Vec<Duration> = times.iter().flat_map(|t| t.round_trips.clone()).collect();
    let mut flushes: Vec<Duration> = times.iter().flat_map(|t| t.flushes.clone()).collect();
    println!(
        "{workers} workers, each game played in {game_ms} ms, {} games recorded in {:.1} s \
         ({:.0} games/s)",
        records.len(),
        wall.as_secs_f64(),
        records.len() as f64 / wall.as_secs_f64()
    );
    for (what, list) in [
        ("claim", &mut claims),
        ("record", &mut records),
        ("SELECT 1", &mut round_trips),
        ("a durable INSERT", &mut flushes),
    ] {
        list.sort_unstable();
        println!(
            "  {what}: median {:.2} ms, p95 {:.2} ms, max {:.2} ms ({} timed)",
            ms(quantile(list, 0.5)),
            ms(quantile(list, 0.95)),
            ms(list.last().copied().unwrap_or_default()),
            list.len()
        );
    }
    Ok(())
}

/// One worker: after `start`, claims, plays for `game`, and records until the queue is empty
/// or `deadline`.
fn work(
    url: &str,
    name: &str,
    start: Duration,
    deadline: Instant,
    game_time: Duration,
    dir: &std::path::Path,
) -> anyhow::Result<Times> {
    let store = Store::open_postgres(url, name)?;
    std::thread::sleep(start);
    let claimant = Claimant::new(600);
    let mut times = Times::default();
    while Instant::now() < deadline {
        let started = Instant::now();
        let Some(claimed) = store.claim(&claimant, &[], 3)? else {
            break;
        };
        times.claims.push(started.elapsed());
        std::thread::sleep(game_time / 2);
        let connection: &dyn Connection = &store;
        let started = Instant::now();
        connection.value("SELECT 1", &[])?;
        times.round_trips.push(started.elapsed());
        let started = Instant::now();
        connection.execute("INSERT INTO public.koth_bench_flush VALUES (1)", &[])?;
        times.flushes.push(started.elapsed());
        std::thread::sleep(game_time / 2);
        let game = &claimed.game;
        let bots = (0..game.seats.len())
            .map(|seat| {
                let name = format!("seat {seat}");
                BotResult::new(
                    &name,
                    seat as f64,
                    &FaultLog::default(),
                    AnswerStats::default(),
                )
            })
            .collect();
        let result = MatchResult {
            game: "tictactoe".into(),
            seed: game.seed,
            bots,
        };
        let changes = Changes {
            streaks: &[],
            data: &[],
        };
        let started = Instant::now();
        store.record_result(game, claimed.attempt, &result, 5.0, dir, &changes)?;
        times.records.push(started.elapsed());
    }
    Ok(times)
}

/// The `q` quantile of `sorted` (nearest rank).
fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
