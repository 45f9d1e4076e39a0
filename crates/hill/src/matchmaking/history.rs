//! [`History`]: the games played so far as matchmaking reads them, and which versions' pairs
//! changed since a [`super::Standing`] last read it.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

use rustc_hash::FxBuildHasher;

use super::ALIKE_PRIOR_GAMES;

/// Two versions' games together: how many, and in how many they scored alike.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Met {
    pub games: u32,
    pub alike: u32,
}

/// The games played so far, as matchmaking reads them: per pair of versions, and per version.
/// Its maps hash with `FxHash`: a choice among 10,000 versions reads them some 50,000 times,
/// and with the standard library's SipHash the reads were most of its time (`perf`,
/// docs/benchmarks.md, the hill at 10,000 versions). Their keys are the hill's own version
/// numbers, not chosen by anyone who could make them collide.
#[derive(Debug)]
pub struct History {
    /// Per pair of versions ([`pair_key`]), their games together: 16 bytes an entry where
    /// `usize`s took 24, for the millions of pairs of a hill of 10,000,000 games.
    pub(super) pairs: HashMap<(u32, u32), Met, FxBuildHasher>,
    pub(super) own: HashMap<usize, Met, FxBuildHasher>,
    /// Per version, its games and how many ended all alike (every seat scoring the same).
    pub(super) presence: HashMap<usize, Met, FxBuildHasher>,
    /// Every game, and how many ended all alike.
    pub(super) outcomes: Met,
    /// Per line-up whose every game ended all alike, as the hash of its versions
    /// ([`lineup_key`], as `paid`), its games: 16 bytes a line-up, where its versions took
    /// a vector's some 70, and a game of many draws leaves millions of such line-ups.
    pub(super) lineups: HashMap<u64, Met, FxBuildHasher>,
    /// Every line-up with a game that did not end all alike, as the hash of its versions
    /// ([`lineup_key`]): with `lineups`, whether a line-up was tried. A hash, not the versions:
    /// a hill of 10,000,000 games has millions of line-ups, each 8 bytes here instead of a
    /// vector's some 60.
    pub(super) paid: Paid,
    /// Which history this is (each new or cloned one its own), for a [`Standing`] computed
    /// from it.
    pub(super) id: u64,
    /// The versions whose pairs changed, in order, since the log was last emptied (`epoch`
    /// counts those times): a [`Standing`] updates only their neighbours' gains.
    pub(super) changed: Vec<usize>,
    pub(super) epoch: u64,
}

/// Versions whose pairs changed that a [`History`] remembers at the most: past it a
/// [`Standing`] computes every gain again, which costs about as much as this many changes.
pub(super) const CHANGES_KEPT: usize = 4096;

/// The number of the next [`History`] made.
static NEXT_HISTORY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Default for History {
    fn default() -> History {
        History {
            pairs: HashMap::default(),
            own: HashMap::default(),
            presence: HashMap::default(),
            outcomes: Met::default(),
            lineups: HashMap::default(),
            paid: Paid::default(),
            id: NEXT_HISTORY.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            changed: Vec::new(),
            epoch: 0,
        }
    }
}

impl Clone for History {
    /// A copy with its own number: what is added to one is not in the other.
    fn clone(&self) -> History {
        History {
            pairs: self.pairs.clone(),
            own: self.own.clone(),
            presence: self.presence.clone(),
            outcomes: self.outcomes,
            lineups: self.lineups.clone(),
            paid: self.paid.clone(),
            ..History::default()
        }
    }
}

impl PartialEq for History {
    /// Whether two histories hold the same games (whichever number and log of changes each
    /// has): a history kept in memory and added to game by game equals one read afresh.
    fn eq(&self, other: &History) -> bool {
        self.pairs == other.pairs
            && self.own == other.own
            && self.presence == other.presence
            && self.outcomes == other.outcomes
            && self.lineups == other.lineups
            && self.paid == other.paid
    }
}

impl History {
    /// Adds `met` to the pair `a`, `b` (as stored: a count per pair).
    pub fn add(&mut self, a: usize, b: usize, met: Met) {
        if a == b {
            return;
        }
        let pair = self.pairs.entry(pair_key(a, b)).or_default();
        pair.games += met.games;
        pair.alike += met.alike;
        for v in [a, b] {
            let own = self.own.entry(v).or_default();
            own.games += met.games;
            own.alike += met.alike;
        }
        if self.changed.len() + 2 > CHANGES_KEPT {
            self.changed.clear();
            self.epoch += 1;
        }
        self.changed.extend([a, b]);
    }

    /// Room for `pairs` pairs and `barren` barren line-ups, made before they are added: a map
    /// grown as it fills holds its old table and one twice as large at once at each growth,
    /// and the pairs' map of a hill of 10,000,000 games is its largest.
    pub fn reserve(&mut self, pairs: usize, barren: usize) {
        self.pairs.reserve(pairs);
        self.lineups.reserve(barren);
    }

    /// Adds the line-ups `read` gives (each its versions and its games, as the store counts
    /// them: each line-up once), as [`History::add_lineup`] would one by one; `paid` of them
    /// paid at the most, the room their keys are read into. The paid line-ups' keys are held
    /// in a sorted vector ([`Paid`]), not a set.
    pub fn read_lineups(
        &mut self,
        paid: usize,
        read: impl FnOnce(&mut dyn FnMut(&[usize], Met)) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut keys = Vec::with_capacity(paid);
        read(&mut |versions, met| {
            let key = lineup_key(versions);
            if met.games == 0 {
                return;
            }
            if met.alike == met.games {
                let sum = self.lineups.entry(key).or_default();
                sum.games += met.games;
                sum.alike += met.alike;
            } else {
                keys.push(key);
            }
        })?;
        for key in self.paid.iter() {
            keys.push(key);
        }
        self.paid = Paid::of(keys);
        // A line-up read as barren and as paid (two rows of the same versions: one store's
        // keys written apart) is paid, as one added after the other is.
        let paid = &self.paid;
        self.lineups.retain(|key, _| !paid.contains(*key));
        Ok(())
    }

    /// Adds `met` to version `v`'s games (as stored: a count per version).
    pub fn add_presence(&mut self, v: usize, met: Met) {
        let present = self.presence.entry(v).or_default();
        present.games += met.games;
        present.alike += met.alike;
    }

    /// Adds `met` to the count of every game.
    pub fn add_outcomes(&mut self, met: Met) {
        self.outcomes.games += met.games;
        self.outcomes.alike += met.alike;
    }

    /// Adds `met` to the line-up of `versions` (as stored: a count per line-up).
    pub fn add_lineup(&mut self, versions: &[usize], met: Met) {
        let key = lineup_key(versions);
        if self.paid.contains(key) {
            return;
        }
        let mut sum = self.lineups.get(&key).copied().unwrap_or_default();
        sum.games += met.games;
        sum.alike += met.alike;
        self.set_lineup(key, sum);
    }

    /// Keeps the line-up of key `key` ([`lineup_key`]) as its games `met` say: barren, or paid.
    fn set_lineup(&mut self, key: u64, met: Met) {
        if met.games == 0 {
            return;
        }
        if met.alike == met.games {
            self.lineups.insert(key, met);
        } else {
            self.paid.insert(key);
            self.lineups.remove(&key);
        }
    }

    /// Whether the line-up of `versions` has played, and every game of it ended all alike.
    pub(crate) fn barren(&self, versions: &[usize]) -> bool {
        self.lineups.contains_key(&lineup_key(versions))
    }

    /// Whether the line-up of `versions` has played at all.
    pub(crate) fn tried(&self, versions: &[usize]) -> bool {
        let key = lineup_key(versions);
        self.lineups.contains_key(&key) || self.paid.contains(key)
    }

    /// Adds a game: each seat's version and score.
    pub fn record(&mut self, seats: &[(usize, f64)]) {
        let game = self.count(seats);
        let versions: Vec<usize> = seats.iter().map(|s| s.0).collect();
        self.add_lineup(&versions, game);
    }

    /// Adds a game as the store counted it when it was rated (each seat's version and score),
    /// its line-up's count now in the store beside it (`lineup`): the store's count says
    /// whether the line-up is barren or paid.
    pub fn record_rated(&mut self, seats: &[(usize, f64)], lineup: Met) {
        self.count(seats);
        let versions: Vec<usize> = seats.iter().map(|s| s.0).collect();
        self.set_lineup(lineup_key(&versions), lineup);
    }

    /// Counts a game of `seats` (each seat's version and score) for its pairs, each version
    /// present and every game; returns the game as a line-up counts it.
    fn count(&mut self, seats: &[(usize, f64)]) -> Met {
        let alike = u32::from(seats.iter().all(|s| s.1 == seats[0].1));
        let game = Met { games: 1, alike };
        let mut present: Vec<usize> = seats.iter().map(|s| s.0).collect();
        present.sort_unstable();
        present.dedup();
        for v in present {
            self.add_presence(v, game);
        }
        self.add_outcomes(game);
        for (k, &(a, sa)) in seats.iter().enumerate() {
            for &(b, sb) in &seats[k + 1..] {
                let alike = u32::from(sa == sb);
                self.add(a, b, Met { games: 1, alike });
            }
        }
        game
    }

    pub(super) fn met(&self, a: usize, b: usize) -> Met {
        self.pairs.get(&pair_key(a, b)).copied().unwrap_or_default()
    }

    /// The chance that a game without version `v` ends all alike: from the games it did not
    /// play, with a prior worth [`ALIKE_PRIOR_GAMES`] at the rate of every game (Laplace's rule:
    /// ½ before any game).
    pub(super) fn alike_without(&self, v: usize) -> f64 {
        let present = self.presence.get(&v).copied().unwrap_or_default();
        let all = self.outcomes;
        let rate = (f64::from(all.alike) + 1.0) / (f64::from(all.games) + 2.0);
        let games = f64::from(all.games.saturating_sub(present.games));
        let alike = f64::from(all.alike.saturating_sub(present.alike));
        (alike + ALIKE_PRIOR_GAMES * rate) / (games + ALIKE_PRIOR_GAMES)
    }

    /// How often a version's pairings end alike (Laplace's rule: ½ before any game).
    pub(super) fn alike_rate(&self, v: usize) -> f64 {
        let own = self.own.get(&v).copied().unwrap_or_default();
        (f64::from(own.alike) + 1.0) / (f64::from(own.games) + 2.0)
    }
}

/// The keys ([`lineup_key`]) of the line-ups with a game that did not end all alike: those
/// read from the store ([`History::read_lineups`]) in a sorted vector, 8 bytes a line-up, found
/// through an index of where each run of keys of the same leading bits begins (the keys are
/// SipHashes, spread evenly: a run holds a few); those added since in a set. A set of them all
/// took 9 bytes a bucket in a table of a power of two buckets at most 7/8 full: 151 MB for
/// the 9.9 million line-ups of a points hill of 10,000,000 games, where these take 87 MB.
#[derive(Debug, Clone, Default)]
pub(super) struct Paid {
    read: Vec<u64>,
    /// Where the keys of each value of their leading bits begin in `read`, and its end:
    /// `read[starts[p]..starts[p + 1]]` are those whose leading bits are `p`.
    starts: Vec<usize>,
    /// How far a key is shifted right to its leading bits.
    shift: u32,
    added: HashSet<u64, FxBuildHasher>,
}

/// Keys of [`Paid::read`] a run of its index holds, on average: a lookup reads a run, an
/// entry of the index costs as much as one key.
const KEYS_A_RUN: usize = 8;

impl Paid {
    /// The set of `keys` (in any order, repeats allowed).
    fn of(mut keys: Vec<u64>) -> Paid {
        keys.sort_unstable();
        keys.dedup();
        keys.shrink_to_fit();
        let bits = (keys.len() / KEYS_A_RUN).max(1).ilog2();
        let shift = u64::BITS - bits;
        let runs = 1usize << bits;
        let mut starts = Vec::with_capacity(runs + 1);
        let mut at = 0;
        for run in 0..runs {
            while at < keys.len() && run_of(keys[at], shift) < run {
                at += 1;
            }
            starts.push(at);
        }
        starts.push(keys.len());
        Paid {
            read: keys,
            starts,
            shift,
            added: HashSet::default(),
        }
    }

    fn contains(&self, key: u64) -> bool {
        if self.added.contains(&key) {
            return true;
        }
        let run = run_of(key, self.shift);
        match (self.starts.get(run), self.starts.get(run + 1)) {
            (Some(&from), Some(&to)) => self.read[from..to].contains(&key),
            _ => false,
        }
    }

    fn insert(&mut self, key: u64) {
        if !self.contains(key) {
            self.added.insert(key);
        }
    }

    fn len(&self) -> usize {
        self.read.len() + self.added.len()
    }

    fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.read.iter().chain(&self.added).copied()
    }
}

/// The run of [`Paid`]'s index that `key` is in: its leading bits (none, when it holds one run).
fn run_of(key: u64, shift: u32) -> usize {
    key.checked_shr(shift).unwrap_or(0) as usize
}

impl PartialEq for Paid {
    /// Whether both hold the same keys, however each holds them.
    fn eq(&self, other: &Paid) -> bool {
        self.len() == other.len() && self.iter().all(|key| other.contains(key))
    }
}

/// A line-up's versions as [`History`] hashes them into its key: ascending, each once.
pub(super) fn lineup(versions: &[usize]) -> Vec<usize> {
    let mut key = versions.to_vec();
    key.sort_unstable();
    key.dedup();
    key
}

/// A line-up's key in [`History::lineups`] and [`History::paid`]: its versions (ascending,
/// each once) hashed with SipHash, made to keep distinct keys apart (FxHash, fast for the
/// other maps' keys, is not: there a collision costs a probe, here it would take an untried
/// line-up for a tried one). Fixed keys: the same line-up, the same key, in every run.
fn lineup_key(versions: &[usize]) -> u64 {
    BuildHasherDefault::<DefaultHasher>::default().hash_one(lineup(versions))
}

/// A pair's key in [`History::pairs`]: its versions, the lower first, as `u32`s. A hill's
/// version numbers are its rows' ids, counted from 0: four billion versions are out of reach.
fn pair_key(a: usize, b: usize) -> (u32, u32) {
    let id = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
    (id(a.min(b)), id(a.max(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Line-ups read at once hold what they hold added one by one: the paid ones' sorted keys
    /// and their index find every key and no other, of every size of index, whatever the
    /// order the store gives them in; a line-up read as barren and as paid is paid.
    #[test]
    fn line_ups_read_at_once_are_those_added_one_by_one() {
        for count in [0usize, 1, 7, 8, 9, 100, 5000] {
            let lineups: Vec<(Vec<usize>, Met)> = (0..count)
                .map(|k| {
                    let alike = if k % 3 == 0 { 2 } else { 1 };
                    (vec![k, k + 1, k + 7], Met { games: 2, alike })
                })
                .chain([(vec![4, 5, 11], Met { games: 1, alike: 1 })])
                .collect();
            let mut one_by_one = History::default();
            for (versions, met) in &lineups {
                one_by_one.add_lineup(versions, *met);
            }
            let mut read = History::default();
            read.add_lineup(&[1, 2], Met { games: 1, alike: 0 });
            read.read_lineups(count, |add| {
                for (versions, met) in lineups.iter().rev() {
                    add(versions, *met);
                }
                Ok(())
            })
            .unwrap();
            one_by_one.add_lineup(&[1, 2], Met { games: 1, alike: 0 });
            assert!(read == one_by_one, "{count}");
            for (versions, met) in &lineups {
                let paid = met.alike < met.games || versions == &[4, 5, 11] && count > 4;
                assert!(read.tried(versions), "{count} {versions:?}");
                assert_eq!(read.barren(versions), !paid, "{count} {versions:?}");
            }
            assert!(read.tried(&[2, 1]) && !read.barren(&[1, 2]));
            for k in 0..count + 10 {
                assert!(!read.tried(&[k, k + 2, k + 5]), "{count} {k}");
            }
        }
    }
}
