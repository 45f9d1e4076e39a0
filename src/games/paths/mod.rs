//! The Grid-Routing Battle ("paths"); its rules are `../shared/spec/paths.md`.

pub mod cli;

use crate::game::{BoxFuture, Game, MatchResult, MatchSetup};

/// The paths game, as the tournament runner sees it.
pub struct Paths;

impl Game for Paths {
    fn name(&self) -> &'static str {
        "paths"
    }

    fn players(&self) -> (usize, usize) {
        (1, 62)
    }

    fn play<'a>(&'a self, _setup: &'a MatchSetup) -> BoxFuture<'a, anyhow::Result<MatchResult>> {
        Box::pin(async { anyhow::bail!("paths is not built yet") })
    }
}
