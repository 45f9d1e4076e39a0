//! A shared hill's games played by `koth worker` on any machine: the worker claims them as it
//! claims a tournament's (leases renewed while it plays, a dead worker's games back in the
//! queue when its lease runs out), gets each version's files from the database by digest into
//! its own folder, and records each result for its attempt. It only plays: the hill's `hill
//! run` chooses the games and rates each one recorded, once.

use std::path::Path;

use koth_tournament::store::{Claimant, Store};
use koth_tournament::worker::Playing;

use super::Hill;
use super::run::{self, Role};

/// A shared hill as a worker plays it.
struct HillWorker {
    hill: Hill,
    claimant: Claimant,
    jobs: usize,
    /// Versions whose files this worker could not get: their games are left to others.
    refused: Vec<usize>,
}

/// Joins the entry of `store` as a worker if it is a hill, with `work` as this worker's folder
/// for it (its versions' files and its games); gives the store back if it is a tournament.
/// Handed to `koth worker` by `main.rs`.
pub fn join(
    store: Store,
    work: &Path,
    claimant: &Claimant,
    jobs: Option<usize>,
) -> anyhow::Result<Result<Box<dyn Playing>, Store>> {
    if !super::is_hill(&store)? {
        return Ok(Err(store));
    }
    let hill = Hill::in_store(store, work.to_path_buf())?;
    hill.make_folder()?;
    if hill.config.game.sandbox().is_some() {
        koth_bot::sandbox::check_available()?;
    }
    let jobs = jobs.unwrap_or_else(|| hill.config.game.jobs()).max(1);
    Ok(Ok(Box::new(HillWorker {
        hill,
        claimant: claimant.clone(),
        jobs,
        refused: Vec::new(),
    })))
}

impl Playing for HillWorker {
    fn play_claimable(&mut self) -> anyhow::Result<u32> {
        let runtime = koth_game::runtime()?;
        runtime.block_on(run::play(
            &self.hill,
            self.jobs,
            &self.claimant,
            Role::Worker,
            &mut self.refused,
        ))?;
        self.hill.store.unplayed(&self.refused)
    }

    fn seed(&self) -> u64 {
        self.hill.seed
    }
}
