//! The [`Standing`]: what a choice keeps between games, the versions in rating order and each
//! one's best gain against a neighbour, brought up to date where a game changed them.

use std::collections::HashMap;

use rustc_hash::FxBuildHasher;

use super::{Candidate, History, NEIGHBOURS, gain};

/// What a choice reads of every active version that a game changes for a few only: the
/// versions in rating order and each one's best gain against a neighbour in it. Kept between
/// choices, it is updated only for the versions whose rating or pairs changed and their
/// neighbours, so a choice among 10,000 versions does not compute 40,000 gains again; the
/// choice made with it is the one [`choose`] makes (the tests compare them).
#[derive(Debug, Default)]
pub struct Standing {
    /// The history it was computed from: its number, its log's epoch and length then.
    pub(super) seen: Option<(u64, u64, usize)>,
    /// Each active version's id, μ and σ then, and each id's index in it.
    pub(super) versions: Vec<(usize, f64, f64)>,
    pub(super) index: HashMap<usize, usize, FxBuildHasher>,
    /// The active versions (indices) by rating, and each one's place in that order.
    pub(super) order: Vec<usize>,
    pub(super) place: Vec<usize>,
    /// Each version's best gain against a neighbour in rating, and that neighbour (`usize::MAX`
    /// for none).
    pub(super) best: Vec<(f64, usize)>,
}

impl Standing {
    /// Brings the order and the best gains up to `active` and `history`: computed afresh for
    /// another list of versions or another history (or one that forgot its changes), else
    /// again only where a version's rating or pairs changed, within [`NEIGHBOURS`] of it.
    pub(super) fn update(&mut self, active: &[Candidate], history: &History) {
        let same = self.versions.len() == active.len()
            && self.versions.iter().zip(active).all(|(v, c)| v.0 == c.id);
        let changed = match self.seen {
            Some((id, epoch, seen)) if same && id == history.id && epoch == history.epoch => {
                &history.changed[seen..]
            }
            _ => return self.rebuild(active, history),
        };
        let mut dirty: Vec<usize> = changed
            .iter()
            .filter_map(|v| self.index.get(v).copied())
            .collect();
        let mut moved = false;
        for (k, c) in active.iter().enumerate() {
            let (_, mu, sigma) = self.versions[k];
            if mu.to_bits() != c.mu.to_bits() || sigma.to_bits() != c.sigma.to_bits() {
                dirty.push(k);
                moved |= mu.to_bits() != c.mu.to_bits();
                self.versions[k] = (c.id, c.mu, c.sigma);
            }
        }
        // The places whose neighbours changed: those of the dirty versions, and every place
        // the order changed at.
        let mut places = Vec::new();
        if moved {
            let before = self.order.clone();
            self.order.sort_by(|&a, &b| by_rating(active, a, b));
            for (at, (&was, &is)) in before.iter().zip(&self.order).enumerate() {
                if was != is {
                    places.push(at);
                    self.place[is] = at;
                }
            }
        }
        places.extend(dirty.iter().map(|&k| self.place[k]));
        let n = self.order.len();
        let mut again: Vec<usize> = places
            .iter()
            .flat_map(|&at| at.saturating_sub(NEIGHBOURS)..(at + NEIGHBOURS + 1).min(n))
            .collect();
        again.sort_unstable();
        again.dedup();
        for at in again {
            self.best[self.order[at]] = best_neighbour(active, history, &self.order, at);
        }
        self.seen = Some((history.id, history.epoch, history.changed.len()));
    }

    /// Computes the order and every best gain afresh, each neighbouring pair's gain once.
    fn rebuild(&mut self, active: &[Candidate], history: &History) {
        self.versions = active.iter().map(|c| (c.id, c.mu, c.sigma)).collect();
        self.index = active.iter().enumerate().map(|(k, c)| (c.id, k)).collect();
        self.order = (0..active.len()).collect();
        self.order.sort_by(|&a, &b| by_rating(active, a, b));
        self.place = vec![0; active.len()];
        for (at, &k) in self.order.iter().enumerate() {
            self.place[k] = at;
        }
        self.best = best_neighbours(active, history, &self.order);
        self.seen = Some((history.id, history.epoch, history.changed.len()));
    }
}

/// The order of versions `a` and `b` (indices in `active`) by rating, the first of equals first.
fn by_rating(active: &[Candidate], a: usize, b: usize) -> std::cmp::Ordering {
    active[a].mu.total_cmp(&active[b].mu).then(a.cmp(&b))
}

/// Each version's best gain against its neighbours in rating (the order that matters, `order`:
/// indices by rating), with the index of that neighbour (`usize::MAX` for none): the first of
/// equals as [`best_neighbour`] walks them.
fn best_neighbours(active: &[Candidate], history: &History, order: &[usize]) -> Vec<(f64, usize)> {
    let mut best = vec![(0.0_f64, usize::MAX); active.len()];
    for (at, &k) in order.iter().enumerate() {
        for &o in &order[at + 1..(at + 1 + NEIGHBOURS).min(order.len())] {
            let g = gain(&active[k], &active[o], history, 1.0);
            if g > best[k].0 {
                best[k] = (g, o);
            }
            if g > best[o].0 {
                best[o] = (g, k);
            }
        }
    }
    best
}

/// The best gain of the version at place `at` of `order` against its neighbours, and that
/// neighbour, as [`best_neighbours`] finds it: those below first, each from the farthest.
fn best_neighbour(
    active: &[Candidate],
    history: &History,
    order: &[usize],
    at: usize,
) -> (f64, usize) {
    let k = order[at];
    let mut best = (0.0_f64, usize::MAX);
    let from = at.saturating_sub(NEIGHBOURS);
    for (near, &o) in order
        .iter()
        .enumerate()
        .take(at + NEIGHBOURS + 1)
        .skip(from)
    {
        let g = match near.cmp(&at) {
            std::cmp::Ordering::Less => gain(&active[o], &active[k], history, 1.0),
            std::cmp::Ordering::Equal => continue,
            std::cmp::Ordering::Greater => gain(&active[k], &active[o], history, 1.0),
        };
        if g > best.0 {
            best = (g, o);
        }
    }
    best
}
