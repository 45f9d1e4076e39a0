//! Where a match runs: koth's one way to build an async runtime, and a thread of its own kept
//! to the match's CPUs.

use std::future::Future;

use anyhow::Context;

/// koth's async runtime, the only one it builds: each match runs on one, on a thread of its own,
/// and a tournament schedules its matches on one. One thread is enough: koth only waits on
/// pipes (and a tournament on its matches' threads), and a single-threaded runtime costs far
/// less CPU per answer than a work-stealing one waking threads for every line.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Plays the match `make_match` returns on a [`runtime`] on a thread of its own, kept
/// with the bots it starts to `cpus` ([`koth_base::cpu::run_placed`]), and awaits its result.
pub async fn play_placed<T, M>(
    cpus: Vec<usize>,
    make_match: impl FnOnce() -> M + Send + 'static,
) -> anyhow::Result<T>
where
    T: Send + 'static,
    M: Future<Output = anyhow::Result<T>>,
{
    koth_base::cpu::run_placed(cpus, move || runtime()?.block_on(make_match())).await
}
