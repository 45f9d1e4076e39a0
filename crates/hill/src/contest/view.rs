//! The contest as its pages, `/api/hill` and `koth contest status` show it.

use std::path::Path;

use serde::Serialize;

use koth_tournament::store::{GameState, Store};

use super::{FinalResult, Phase, closes_at, manifest, now, phase, result, rfc3339};
use crate::store::contest as db;

/// The contest as its pages, `/api/hill` and `koth contest status` show it.
#[derive(Debug, Clone, Serialize)]
pub struct View {
    pub phase: Phase,
    pub closes: String,
    /// Seconds until the close (none once closed).
    pub closes_in_s: Option<i64>,
    pub closed_by_hand: bool,
    pub finalists: usize,
    pub budget: u32,
    pub manifest_sha256: Option<String>,
    /// The finalists once frozen, by place at the close.
    pub field: Vec<String>,
    /// Final games scored and queued or running.
    pub final_games_done: u32,
    pub final_games_left: u32,
    pub rounds: u32,
    pub result: Option<FinalResult>,
}

/// The contest of the hill of `store` (folder `dir`), if its file declares one.
pub fn view(store: &Store, dir: &Path) -> anyhow::Result<Option<View>> {
    let Some(contest) = crate::file_of(store, dir)?.contest else {
        return Ok(None);
    };
    let (at, by_hand) = closes_at(&contest, store)?;
    let manifest = manifest(store)?;
    let games = db::final_games(store)?;
    let done = games.iter().filter(|g| g.state == GameState::Done).count() as u32;
    let left = games
        .iter()
        .filter(|g| matches!(g.state, GameState::Pending | GameState::Running))
        .count() as u32;
    Ok(Some(View {
        phase: phase(&contest, store)?,
        closes: rfc3339(at),
        closes_in_s: Some(at - now()).filter(|&s| s > 0),
        closed_by_hand: by_hand,
        finalists: contest.finalists,
        budget: contest.budget,
        manifest_sha256: manifest.as_ref().map(|(_, sha)| sha.clone()),
        field: manifest
            .map(|(m, _)| {
                m.finalists
                    .iter()
                    .map(|f| format!("{} v{}", f.name, f.version))
                    .collect()
            })
            .unwrap_or_default(),
        final_games_done: done,
        final_games_left: left,
        rounds: games.iter().map(|g| g.round).max().unwrap_or(0),
        result: result(store)?.map(|(r, _)| r),
    }))
}
