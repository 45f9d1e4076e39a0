//! Seeds for every randomised run.
//!
//! All randomness in koth comes from [`ChaCha8Rng`]: its output for a given seed is fixed by its
//! specification, so a seeded run replays the same after upgrades of `rand` (unlike `StdRng`,
//! whose algorithm may change between versions).

use rand::SeedableRng;
pub use rand_chacha::ChaCha8Rng as Rng;

/// The seed to use: the one given, or a fresh random one. Either way the caller prints it, so a
/// run can always be repeated.
pub fn choose(given: Option<u64>) -> u64 {
    given.unwrap_or_else(rand::random)
}

/// A generator for `seed`, split into independent `stream`s (one per board, round, …) so that
/// parallel work draws the same numbers whatever order it runs in.
pub fn rng(seed: u64, stream: u64) -> Rng {
    let mut rng = Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng
}
