//! The Grid-Routing Battle ("paths"); its rules are in `docs/games/paths.md`.
//!
//! - [`rules`]: the grid, the phases and the scoring search (pure).
//! - [`protocol`]: every line exchanged with a bot, parsed and displayed.
//! - [`play`]: the match loop over bot processes, faults and outputs.
//! - [`log`]: `graphical_log.txt` and `results.json`.
//! - [`cli`]: `koth paths`.

pub mod cli;
pub mod log;
pub(crate) mod play;
pub mod protocol;
pub mod rules;
pub mod viewer;

use koth_game::{BoxFuture, Game, MatchResult, MatchSetup, Ranking};

/// The paths game, as the tournament runner sees it.
pub struct Paths;

impl Game for Paths {
    fn name(&self) -> &'static str {
        "paths"
    }

    fn players(&self) -> (usize, usize) {
        (1, rules::MAX_BOTS)
    }

    /// The original challenge ranks bots by their total points.
    fn ranking(&self) -> Ranking {
        Ranking::Points
    }

    /// Played like `koth paths` plays it: on a single-threaded runtime of its own, on a thread
    /// kept to the match's CPUs together with its bots, as `koth paths --cpu` does.
    fn play<'a>(&'a self, setup: &'a MatchSetup) -> BoxFuture<'a, anyhow::Result<MatchResult>> {
        let setup = setup.clone();
        Box::pin(koth_game::play_placed(
            setup.cpus.clone(),
            move || async move { Ok(play::play(&setup).await?.0) },
        ))
    }
}
