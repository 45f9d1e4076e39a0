//! Continuous matchmaking: which versions play the next game, and why. Pure: it sees the active
//! versions as numbers and the games so far as counts per pair, and draws from the generator it
//! is given, so it is tested without a process or a database, and the same hill state and seed
//! choose the same game.
//!
//! Each game is chosen for what its outcome is expected to teach the ranking, estimated from
//! the games already played. A pair's **expected gain** is
//!
//! `P(their order is wrong) × P(a game between them is not alike) / (1 + games they played)`
//!
//! - the first from the ratings (`Φ(−|Δμ| / √(σ₁² + σ₂²))`, ½ for two versions not yet told
//!   apart): Weng-Lin's online μ and σ in a placement game, the points fit's figures in a
//!   points game ([`from_fit`]);
//! - the second from their games together: how often they scored alike (a draw; both scoring
//!   nothing), with a prior worth [`ALIKE_PRIOR_GAMES`] games at the two versions' own rates of
//!   alike games, so a line-up whose games have all ended alike teaches little;
//! - the third because the same line-up again teaches less than a new one.
//!
//! A line-up's gain is the sum of its pairs'. Then:
//! 1. **Placement first**: a version with placement games left plays before anyone else.
//! 2. Otherwise the **focal** version is the one most in need: the one with the most to gain
//!    against a neighbour in rating, with few games, or long unplayed (the last grows without
//!    bound, so no active version is ever starved). Games already queued for a version lower
//!    its need, so one version does not fill the queue.
//! 3. Its **opponents**, one by one, those adding the most expected gain to the line-up (the
//!    focal version's first: a newcomer meets many versions, not the same two; in placement,
//!    those nearest its current rating first, [`PLACEMENT_FOCUS`]), weighed by the
//!    chance that the line-up's game does not end all alike, learnt from the games without each
//!    version it leaves out (a game that pays only with certain players at the table); and now
//!    and then ([`Tuning::far_share`] of games) drawn at random, so far apart versions are
//!    compared too. The reason stored names the line-up's expected gain.
//! 4. **No barren line-up again**: a line-up (the same versions, in any seats) whose every game
//!    ended all alike is not chosen again while another is untried, however the estimates above
//!    were skewed (a version's crashes, a suspension): the best untried line-up one change away
//!    is played instead ([`unbarren`]). Once none is found untried, the barren line-up is
//!    weighed by its expected gain like any other: two versions that drew their one game,
//!    each beaten by all the rest, are only told apart by playing again.

use rand::RngExt;
use rand::seq::SliceRandom;

use koth_game::seed::Rng;

mod history;
mod standing;
pub use history::{History, Met};
pub use standing::Standing;

/// An active version as matchmaking sees it.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub id: usize,
    /// Its label in the reason given (`name v2`).
    pub label: String,
    /// Its rating and the rating's uncertainty, as Weng-Lin's (σ 25/3 with no games): the
    /// online rating in a placement game, the points fit's figure in a points game
    /// ([`from_fit`]).
    pub mu: f64,
    pub sigma: f64,
    /// Games it has played (rated) so far.
    pub games: u32,
    /// The hill's number of games chosen when it last played, if it has.
    pub last_chosen: Option<u32>,
    /// Games of it in the queue, chosen but not finished.
    pub queued: u32,
}

/// How matchmaking weighs its aims (the hill file's keys).
#[derive(Debug, Clone, Copy)]
pub struct Tuning {
    /// Games a new version plays before others are chosen for their own sake.
    pub placement_games: u32,
    /// The share of games against an opponent drawn at random instead of a near one.
    pub far_share: f64,
}

/// The game chosen: its seats (version ids; the first is the focal version) and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub seats: Vec<usize>,
    pub reason: String,
}

/// Random line-ups drawn, at the most, looking for one untried once no single change of the
/// chosen one is (issue 37's rule: a line-up whose every game ended alike is not played
/// again while another is untried).
const UNTRIED_DRAWS: usize = 256;

/// Games' worth of the two versions' own rates in a pair's chance of an alike game.
const ALIKE_PRIOR_GAMES: f64 = 2.0;
/// Neighbours on each side in rating whose order a version's need looks at.
const NEIGHBOURS: usize = 4;
/// How near its current rating a version in placement looks for opponents, at the narrowest:
/// the distance in rating is read against `(σ / START_SIGMA)⁴` of the pair's σ, but not less
/// than this share. A newcomer's own σ is wide, and read whole it makes nearly every version
/// look as unsure against it, so its placement games spread as a round robin's would. As its
/// games teach its rating (σ shrinks: to about two thirds of the start in a few games), the
/// search narrows to its current estimate, as adaptive testing asks each question where the
/// examinee's answer is least certain: each placement game is played where it tells the most.
/// A newcomer nothing is known of yet (σ as at the start) still meets many, and with all tied
/// every version is as near. `benches/hill.rs`, seeds 1–120, games to rank 16 new players
/// (median, mean): a placement game 0.5 apart 136, 140 before, 120, 134 now; a points game of
/// three 88, 97 before, 72, 88 now. Narrowing from the first game helped as much but made a
/// newcomer meet the same few (a fifth of σ), and the exponent 2 and 8 measured worse.
const PLACEMENT_FOCUS: f64 = 0.2;
/// A version's σ at the start (Weng-Lin's 25/3): a newcomer's, and a new version's of a known
/// bot (its rating is inherited with the starting uncertainty).
const START_SIGMA: f64 = 25.0 / 3.0;

/// A version's `mu` and `sigma` from the ranking's fit: its figure and half its interval's
/// width (`value`, `interval`), on the scale where a version without games (`unplayed`, the
/// fit's interval for one, positive) has Weng-Lin's starting σ, so every rule here reads both
/// alike.
///
/// A points game's matchmaking reads the points fit, not the online rating: Weng-Lin is an
/// order model, fed only each game's places, so it cannot tell a version that wins by ten
/// points from one that wins by one, nor two that score nothing from two that tie at five;
/// the fit is what the table shows, and the order matchmaking is there to settle.
/// `benches/hill.rs`, 16 new players of a points game of three, neighbours 0.25 apart: games
/// until τ ≥ 0.9 (median, mean) on seeds 1–40 72, 87 with the online rating, 64, 80 with the
/// fit; on seeds 1001–1120 88, 95 and 72, 79 (a round robin 96, 131 and 96, 122).
/// A placement game keeps the online rating: it is an online fit of the same order model, and
/// measured as well or better (seeds 1001–1120, 0.5 apart 128, 133 against 128, 134 with the
/// fit; 0.25 apart 360, 373 against 376, 399).
pub fn from_fit(value: f64, interval: f64, unplayed: f64) -> (f64, f64) {
    let scale = START_SIGMA / unplayed;
    (value * scale, interval * scale)
}

/// The standard normal's distribution function.
fn phi(x: f64) -> f64 {
    0.5 * statrs::function::erf::erfc(-x / std::f64::consts::SQRT_2)
}

/// The chance that `a` and `b` do not score alike in their next game together, from their
/// games together (`met`) with a prior worth [`ALIKE_PRIOR_GAMES`] at their own rates.
fn unlike(a: &Candidate, b: &Candidate, met: Met, history: &History) -> f64 {
    let prior = (history.alike_rate(a.id) + history.alike_rate(b.id)) / 2.0;
    1.0 - (f64::from(met.alike) + ALIKE_PRIOR_GAMES * prior)
        / (f64::from(met.games) + ALIKE_PRIOR_GAMES)
}

/// The expected gain of a game between `a` and `b` (module doc), their distance in rating read
/// against `focus` times their σ (1, or narrower for a version in placement:
/// [`PLACEMENT_FOCUS`]).
fn gain(a: &Candidate, b: &Candidate, history: &History, focus: f64) -> f64 {
    let met = history.met(a.id, b.id);
    let spread = focus * (a.sigma.powi(2) + b.sigma.powi(2)).sqrt();
    let unsure = phi(-(a.mu - b.mu).abs() / spread.max(1e-9));
    unsure * unlike(a, b, met, history) / (1.0 + f64::from(met.games))
}

/// The chance that a game of the line-up `seated`, with `free` seats still to fill, does not end
/// with every seat alike: one less the likeliest all-alike among the games without one of the
/// versions it must leave out (`absent`: each active version's chance of an all-alike game
/// without it, likeliest first; the free seats taken by the likeliest). Some games
/// pay only with certain players at the table (with the original Grid-Routing Battle bots, a
/// game pays anyone only when both Funnelweb and Connector play): a line-up without one of
/// them teaches nothing, however unsure its order, and far ahead in rating they would otherwise
/// be the first left out. Pairs cannot say so: each of them met the other with and without.
fn pays(seated: &[usize], free: usize, absent: &[(f64, usize)]) -> f64 {
    absent
        .iter()
        .filter(|(_, k)| !seated.contains(k))
        .nth(free)
        .map_or(1.0, |(alike, _)| 1.0 - alike)
}

/// Chooses the next game among `active` for `players` seats, as game number `next` of the hill,
/// from the games so far (`history`). `None` if there are fewer active versions than seats.
/// The same as [`Standing::choose`] with a new standing: every gain is computed afresh.
pub fn choose(
    active: &[Candidate],
    players: usize,
    next: u32,
    tuning: Tuning,
    history: &History,
    rng: &mut Rng,
) -> Option<Choice> {
    Standing::default().choose(active, players, next, tuning, history, rng)
}

impl Standing {
    /// Chooses the next game as [`choose`] does, reading the gains this standing keeps where
    /// neither the versions' ratings nor their pairs changed since the last choice.
    pub fn choose(
        &mut self,
        active: &[Candidate],
        players: usize,
        next: u32,
        tuning: Tuning,
        history: &History,
        rng: &mut Rng,
    ) -> Option<Choice> {
        if active.len() < players.max(1) {
            return None;
        }
        self.update(active, history);
        let absent = likeliest_alike_without(active, history, players + 1);
        let (focal, focal_reason) = focal_version(active, players, next, tuning, &self.best);
        let me = &active[focal];
        let focus = if me.games + me.queued < tuning.placement_games {
            (me.sigma / START_SIGMA)
                .min(1.0)
                .powi(4)
                .max(PLACEMENT_FOCUS)
        } else {
            1.0
        };
        let field = Field {
            active,
            history,
            absent: &absent,
        };
        let (mut seated, far) = self.seat(field, focal, players, focus, tuning, rng);
        let lineup_gain = |seated: &[usize]| -> f64 {
            seated
                .iter()
                .enumerate()
                .flat_map(|(x, &a)| seated[x + 1..].iter().map(move |&b| (a, b)))
                .map(|(a, b)| gain(&active[a], &active[b], history, 1.0))
                .sum::<f64>()
                * pays(seated, 0, &absent)
        };
        let ids =
            |seated: &[usize]| -> Vec<usize> { seated.iter().map(|&k| active[k].id).collect() };
        let mut how = if far {
            "drawn at random, to compare far ratings"
        } else {
            "the line-up expected to teach the most"
        };
        if history.barren(&ids(&seated))
            && let Some(other) = unbarren(&seated, active.len(), history, &ids, &lineup_gain, rng)
        {
            seated = other;
            how = "the line-up expected to teach the most was played before and every game of \
                   it ended alike";
        }
        let gained = lineup_gain(&seated);
        let names: Vec<&str> = seated[1..]
            .iter()
            .map(|&k| active[k].label.as_str())
            .collect();
        let reason = format!(
            "{focal_reason}; against {} ({how}; expected gain {gained:.3})",
            names.join(", "),
        );
        let mut seats: Vec<usize> = seated.iter().map(|&k| active[k].id).collect();
        // No version always sits first (X in noughts & crosses moves first).
        seats.shuffle(rng);
        Some(Choice { seats, reason })
    }

    /// The line-up around the `focal` version (indices in `active`, the focal version first)
    /// and whether it was drawn at random: its opponents those that teach the most
    /// ([`Lineup::seat_teaching_most`]), or, [`Tuning::far_share`] of the time, drawn at
    /// random. The others are shuffled first either way: ties are broken in that order.
    fn seat(
        &self,
        field: Field,
        focal: usize,
        players: usize,
        focus: f64,
        tuning: Tuning,
        rng: &mut Rng,
    ) -> (Vec<usize>, bool) {
        let Field {
            active,
            history,
            absent,
        } = field;
        let mut others: Vec<usize> = (0..active.len()).filter(|&k| k != focal).collect();
        // Ties (equal ratings, no games) in a seeded random order.
        others.shuffle(rng);
        let far = rng.random_bool(tuning.far_share.clamp(0.0, 1.0));
        let mut seated = vec![focal];
        if far {
            seated.extend(others.iter().take(players - 1));
            return (seated, far);
        }
        let mut drawn = vec![usize::MAX; active.len()];
        for (at, &k) in others.iter().enumerate() {
            drawn[k] = at;
        }
        let lineup = Lineup {
            active,
            history,
            absent,
            order: &self.order,
            place: &self.place,
            drawn: &drawn,
        };
        lineup.seat_teaching_most(&mut seated, players, focus);
        (seated, far)
    }
}

/// Each active version's chance of an all-alike game without it, with its index, the likeliest
/// first (the first of equals first), the first `kept` only: [`pays`] reads no further than the
/// line-up's size and its free seats.
fn likeliest_alike_without(
    active: &[Candidate],
    history: &History,
    kept: usize,
) -> Vec<(f64, usize)> {
    let mut absent: Vec<(f64, usize)> = (0..active.len())
        .map(|k| (history.alike_without(active[k].id), k))
        .collect();
    let likelier = |a: &(f64, usize), b: &(f64, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    if kept < absent.len() {
        absent.select_nth_unstable_by(kept, likelier);
        absent.truncate(kept);
    }
    absent.sort_by(likelier);
    absent
}

/// The version that needs a game the most (the first of equals), and why. A version in
/// placement needs one before any other; else its need is what a game would teach (`best`, its
/// best gain against a neighbour), how few games it has and how long it has not played, less
/// its games already queued.
fn focal_version(
    active: &[Candidate],
    players: usize,
    next: u32,
    tuning: Tuning,
    best: &[(f64, usize)],
) -> (usize, String) {
    let n = active.len() as f64;
    // Each version's need of a game, and its terms; the reason is written for the one chosen
    // only (writing one for each of 10,000 versions cost more than the rest of the choice).
    let need = |k: usize| -> (f64, Option<[f64; 3]>) {
        let c = &active[k];
        let queued = f64::from(c.queued);
        if c.games + c.queued < tuning.placement_games {
            return (1000.0 - queued, None);
        }
        // A gain is at most ½; doubled, it weighs as the other terms.
        let teach = 2.0 * best[k].0;
        let few = 0.5 / (1.0 + f64::from(c.games) / 10.0);
        // A version plays about every n / players games: idle is measured in those, and grows
        // without bound, so every active version is chosen in its turn.
        let idle = c
            .last_chosen
            .map_or(n, |last| f64::from(next - last.min(next)))
            / (n / players as f64)
            / 4.0;
        (teach + few + idle - queued, Some([teach, few, idle]))
    };
    let (focal, (_, terms)) = (0..active.len())
        .map(|k| (k, need(k)))
        .max_by(|a, b| a.1.0.total_cmp(&b.1.0).then(b.0.cmp(&a.0)))
        .expect("at least one candidate");
    let c = &active[focal];
    let Some([teach, few, idle]) = terms else {
        let reason = format!(
            "placement game {} of {} for {}",
            c.games + c.queued + 1,
            tuning.placement_games,
            c.label
        );
        return (focal, reason);
    };
    let teaching = match active.get(best[focal].1) {
        Some(o) => format!(
            "its order against {} is the most likely to be settled by a game",
            o.label
        ),
        None => "its order against its neighbours is unsure".into(),
    };
    let terms = [
        (teach, teaching.as_str()),
        (few, "it has few games"),
        (idle, "it has not played for long"),
    ];
    let (_, why) = terms
        .iter()
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .expect("three terms");
    let reason = format!("{} ({} games, σ {:.2}): {why}", c.label, c.games, c.sigma);
    (focal, reason)
}

/// What a line-up is seated from: the active versions, their games so far, and each one's
/// chance of an all-alike game without it ([`likeliest_alike_without`]).
#[derive(Clone, Copy)]
struct Field<'a> {
    active: &'a [Candidate],
    history: &'a History,
    absent: &'a [(f64, usize)],
}

/// What seating a line-up reads: the active versions, the games so far, each version's chance
/// of an all-alike game without it (as [`pays`] reads it), the versions by rating (`order`,
/// each one's `place` in it) and each one's place in the seeded random order ties are broken
/// by (`drawn`).
struct Lineup<'a> {
    active: &'a [Candidate],
    history: &'a History,
    absent: &'a [(f64, usize)],
    order: &'a [usize],
    place: &'a [usize],
    drawn: &'a [usize],
}

/// How a seated version's term bounds the gain of any version not yet weighed: its weight in
/// the line-up's gain, its σ read with the widest σ of all (the spread no pair of it is
/// wider than), and the next places below and above it in rating order not yet weighed.
struct Reach {
    weight: f64,
    spread: f64,
    below: usize,
    above: usize,
}

impl Lineup<'_> {
    /// Seats beside the focal version (`seated[0]`), one by one until `players` sit, the
    /// opponent that makes the line-up teach the most: the gain of its pairs (with the focal
    /// version's counted twice, read with `focus`: its own uncertainty is what it was chosen
    /// for) weighed by the chance that its game does not end all alike (`absent`, as [`pays`]
    /// reads it), the first in `drawn` order of equals. A version without which no game pays
    /// is seated for the pairs it lets teach, not its own.
    ///
    /// The opponents are weighed outward from each seated version in rating order, the nearer
    /// first, and no further once no version left can beat the best found: a pair's gain is at
    /// most its chance of being in the wrong order, `Φ(−distance / spread)`, which only falls
    /// with the distance, and the chance of paying is at most 1 (so the bound is exact, not a
    /// guess: the same version is seated as by weighing every one).
    fn seat_teaching_most(&self, seated: &mut Vec<usize>, players: usize, focus: f64) {
        let active = self.active;
        let widest = active.iter().map(|c| c.sigma).fold(0.0, f64::max);
        let mut pairs = 0.0;
        while seated.len() < players {
            let with_pairs = |o: usize| {
                pairs
                    + 2.0 * gain(&active[seated[0]], &active[o], self.history, focus)
                    + seated[1..]
                        .iter()
                        .map(|&s| gain(&active[s], &active[o], self.history, 1.0))
                        .sum::<f64>()
            };
            // The line-up with each candidate in its last seat in turn (one vector for all).
            let mut with = seated.clone();
            with.push(usize::MAX);
            let free = players - with.len();
            let mut reach: Vec<Reach> = seated
                .iter()
                .enumerate()
                .map(|(x, &s)| {
                    let (weight, focus) = if x == 0 { (2.0, focus) } else { (1.0, 1.0) };
                    let spread = focus * (active[s].sigma.powi(2) + widest.powi(2)).sqrt();
                    Reach {
                        weight,
                        spread: spread.max(1e-9),
                        below: self.place[s],
                        above: self.place[s],
                    }
                })
                .collect();
            // The best so far: its weighed gain, its place in `drawn`, its index.
            let mut best: Option<(f64, usize, usize)> = None;
            while let Some((bound, x, down)) = self.nearest(seated, &reach, pairs) {
                // A little room above the bound for the error function's last bit.
                if best.is_some_and(|(g, _, _)| bound * (1.0 + 1e-9) < g) {
                    break;
                }
                let o = if down {
                    reach[x].below -= 1;
                    self.order[reach[x].below]
                } else {
                    reach[x].above += 1;
                    self.order[reach[x].above]
                };
                if seated.contains(&o) {
                    continue;
                }
                *with.last_mut().expect("a seat") = o;
                let g = with_pairs(o) * pays(&with, free, self.absent)
                    - 0.001 * f64::from(active[o].queued);
                if best.is_none_or(|(b, at, _)| g > b || (g == b && self.drawn[o] < at)) {
                    best = Some((g, self.drawn[o], o));
                }
            }
            let pick = best.expect("enough candidates").2;
            pairs = with_pairs(pick);
            seated.push(pick);
        }
    }

    /// The most any version not yet weighed can add to the line-up (`pairs` and each seated
    /// version's most against it, from the nearest distance left on either side of it), with
    /// the seated version (its index in `seated`) and the side (below: `true`) of the next
    /// version to weigh: the one whose term is the largest. `None` once every version is weighed.
    fn nearest(&self, seated: &[usize], reach: &[Reach], pairs: f64) -> Option<(f64, usize, bool)> {
        let mut bound = pairs;
        let mut next: Option<(f64, usize, bool)> = None;
        for (x, r) in reach.iter().enumerate() {
            let mu = self.active[seated[x]].mu;
            let down = (r.below > 0).then(|| mu - self.active[self.order[r.below - 1]].mu);
            let up = (r.above + 1 < self.order.len())
                .then(|| self.active[self.order[r.above + 1]].mu - mu);
            let (distance, below) = match (down, up) {
                (Some(d), Some(u)) if d <= u => (d, true),
                (_, Some(u)) => (u, false),
                (Some(d), None) => (d, true),
                (None, None) => continue,
            };
            let term = r.weight * phi(-distance / r.spread);
            bound += term;
            if next.is_none_or(|(t, _, _)| term > t) {
                next = Some((term, x, below));
            }
        }
        next.map(|(_, x, below)| (bound, x, below))
    }
}

/// A line-up of as many of the `active` (by index) as `seated` that was never tried: the best
/// by `lineup_gain` of those one change away (the focal version kept first where it can be),
/// else the first of [`UNTRIED_DRAWS`] drawn at random; none if none drawn is untried (then the
/// barren line-up is played on its gain: a draw between two players nobody else can tell apart
/// is worth repeating once every other pairing has been tried).
fn unbarren(
    seated: &[usize],
    active: usize,
    history: &History,
    ids: &dyn Fn(&[usize]) -> Vec<usize>,
    lineup_gain: &dyn Fn(&[usize]) -> f64,
    rng: &mut Rng,
) -> Option<Vec<usize>> {
    // The focal version is given up only when no change keeps it.
    for seats in [1..seated.len(), 0..1] {
        let mut best: Option<(f64, Vec<usize>)> = None;
        for at in seats {
            for k in (0..active).filter(|k| !seated.contains(k)) {
                let mut other = seated.to_vec();
                other[at] = k;
                if history.tried(&ids(&other)) {
                    continue;
                }
                let g = lineup_gain(&other);
                if best.as_ref().is_none_or(|(b, _)| g > *b) {
                    best = Some((g, other));
                }
            }
        }
        if let Some((_, other)) = best {
            return Some(other);
        }
    }
    let mut all: Vec<usize> = (0..active).collect();
    (0..UNTRIED_DRAWS).find_map(|_| {
        all.shuffle(rng);
        let drawn = all[..seated.len()].to_vec();
        (!history.tried(&ids(&drawn))).then_some(drawn)
    })
}

#[cfg(test)]
mod tests {
    use super::history::{CHANGES_KEPT, lineup};
    use super::*;

    /// The full walk the bounded search replaced: every version weighed, for the tests that
    /// the search seats the same.
    fn seat_teaching_most_by_every_version(
        active: &[Candidate],
        history: &History,
        absent: &[(f64, usize)],
        seated: &mut Vec<usize>,
        others: &[usize],
        players: usize,
        focus: f64,
    ) {
        let me = &active[seated[0]];
        let mut pairs = 0.0;
        while seated.len() < players {
            let with_pairs = |o: usize| {
                pairs
                    + 2.0 * gain(me, &active[o], history, focus)
                    + seated[1..]
                        .iter()
                        .map(|&s| gain(&active[s], &active[o], history, 1.0))
                        .sum::<f64>()
            };
            // The line-up with each candidate in its last seat in turn (one vector for all).
            let mut with = seated.clone();
            with.push(usize::MAX);
            let free = players - with.len();
            let pick = others
                .iter()
                .copied()
                .filter(|o| !seated.contains(o))
                .fold(None, |best: Option<(usize, f64)>, o| {
                    *with.last_mut().expect("a seat") = o;
                    let g = with_pairs(o) * pays(&with, free, absent)
                        - 0.001 * f64::from(active[o].queued);
                    match best {
                        Some((_, b)) if b >= g => best,
                        _ => Some((o, g)),
                    }
                })
                .expect("enough candidates")
                .0;
            pairs = with_pairs(pick);
            seated.push(pick);
        }
    }

    /// A random hill of `n` versions: ratings spread or tied (a few values), σ from sure to
    /// new, games among random line-ups of two and three, scores often alike.
    fn random_hill(seed: u64, n: usize) -> (Vec<Candidate>, History) {
        let mut rng = koth_game::seed::rng(seed, 1);
        let tied = rng.random_bool(0.3);
        let active: Vec<Candidate> = (0..n)
            .map(|k| Candidate {
                id: 3 * k + 1,
                label: format!("bot{k} v1"),
                mu: if tied {
                    f64::from(rng.random_range(0..4)) * 2.0
                } else {
                    rng.random_range(0.0..50.0)
                },
                sigma: rng.random_range(0.5..START_SIGMA),
                games: rng.random_range(0..30),
                last_chosen: rng.random_bool(0.8).then(|| rng.random_range(0..100)),
                queued: rng.random_range(0..2),
            })
            .collect();
        let mut history = History::default();
        for _ in 0..rng.random_range(0..4 * n) {
            let seats: Vec<(usize, f64)> = (0..rng.random_range(2..4))
                .map(|_| {
                    let v = active[rng.random_range(0..n)].id;
                    (v, f64::from(rng.random_range(0..3)))
                })
                .collect();
            history.record(&seats);
        }
        (active, history)
    }

    #[test]
    fn the_bounded_search_seats_the_versions_weighing_every_one_seats() {
        for seed in 0..400 {
            let mut rng = koth_game::seed::rng(seed, 2);
            let n = rng.random_range(3..70);
            let (active, history) = random_hill(seed, n);
            let players = rng.random_range(2..=n.min(5));
            let focal = rng.random_range(0..n);
            let focus = rng.random_range(0.2..=1.0);
            let mut others: Vec<usize> = (0..n).filter(|&k| k != focal).collect();
            others.shuffle(&mut rng);
            let mut every: Vec<(f64, usize)> = (0..n)
                .map(|k| (history.alike_without(active[k].id), k))
                .collect();
            every.sort_by(|a, b| b.0.total_cmp(&a.0));
            let absent = likeliest_alike_without(&active, &history, players + 1);
            assert_eq!(absent, every[..absent.len()], "seed {seed}");
            let mut standing = Standing::default();
            standing.update(&active, &history);
            let mut drawn = vec![usize::MAX; n];
            for (at, &k) in others.iter().enumerate() {
                drawn[k] = at;
            }
            let lineup = Lineup {
                active: &active,
                history: &history,
                absent: &absent,
                order: &standing.order,
                place: &standing.place,
                drawn: &drawn,
            };
            let mut bounded = vec![focal];
            lineup.seat_teaching_most(&mut bounded, players, focus);
            let mut walked = vec![focal];
            seat_teaching_most_by_every_version(
                &active,
                &history,
                &every,
                &mut walked,
                &others,
                players,
                focus,
            );
            assert_eq!(bounded, walked, "seed {seed}, {players} players");
        }
    }

    #[test]
    fn a_standing_kept_between_games_chooses_as_one_computed_afresh() {
        for seed in 0..40 {
            let mut rng = koth_game::seed::rng(seed, 3);
            let n = rng.random_range(5..90);
            let (mut active, mut history) = random_hill(seed, n);
            let players = rng.random_range(2..=n.min(4));
            let mut standing = Standing::default();
            for next in 100..160 {
                let kept = standing.choose(
                    &active,
                    players,
                    next,
                    TUNING,
                    &history,
                    &mut koth_game::seed::rng(seed, u64::from(next)),
                );
                let afresh = choose(
                    &active,
                    players,
                    next,
                    TUNING,
                    &history,
                    &mut koth_game::seed::rng(seed, u64::from(next)),
                );
                assert_eq!(kept, afresh, "seed {seed}, game {next}");
                let seats = kept.expect("a game").seats;
                // The game played: its versions' ratings move (or not), its pairs are added.
                let scores: Vec<(usize, f64)> = seats
                    .iter()
                    .map(|&v| (v, f64::from(rng.random_range(0..3))))
                    .collect();
                history.record(&scores);
                for c in active.iter_mut().filter(|c| seats.contains(&c.id)) {
                    c.games += 1;
                    c.last_chosen = Some(next);
                    if rng.random_bool(0.7) {
                        c.mu += rng.random_range(-3.0..3.0);
                        c.sigma *= 0.97;
                    }
                }
                // Now and then every rating moves (a refit), or more pairs are added than a
                // history remembers.
                if next % 17 == 0 {
                    for c in &mut active {
                        c.mu += rng.random_range(-1.0..1.0);
                    }
                }
                if next == 130 {
                    for _ in 0..CHANGES_KEPT {
                        let (a, b) = (rng.random_range(0..n), rng.random_range(0..n));
                        history.add(active[a].id, active[b].id, Met { games: 1, alike: 0 });
                    }
                }
            }
        }
    }

    fn settled(n: usize) -> Vec<Candidate> {
        (0..n)
            .map(|k| Candidate {
                id: k,
                label: format!("bot{k} v1"),
                mu: 15.0 + k as f64,
                sigma: 2.0,
                games: 50,
                last_chosen: Some(100),
                queued: 0,
            })
            .collect()
    }

    fn newcomer(id: usize, mu: f64) -> Candidate {
        Candidate {
            id,
            label: "new v1".into(),
            mu,
            sigma: START_SIGMA,
            games: 0,
            last_chosen: None,
            queued: 0,
        }
    }

    const TUNING: Tuning = Tuning {
        placement_games: 10,
        far_share: 0.1,
    };

    /// Plays `games` choices of `players` seats, each finished at once with the scores
    /// `score` gives (by version id), updating what matchmaking sees.
    fn simulate(
        active: &mut [Candidate],
        players: usize,
        games: u32,
        first: u32,
        history: &mut History,
        score: impl Fn(usize) -> f64,
    ) -> Vec<Choice> {
        let mut rng = koth_game::seed::rng(5, 0);
        (first..first + games)
            .map(|next| {
                let choice = choose(active, players, next, TUNING, history, &mut rng).unwrap();
                for c in active.iter_mut().filter(|c| choice.seats.contains(&c.id)) {
                    c.games += 1;
                    c.last_chosen = Some(next);
                }
                let seats: Vec<(usize, f64)> =
                    choice.seats.iter().map(|&s| (s, score(s))).collect();
                history.record(&seats);
                choice
            })
            .collect()
    }

    #[test]
    fn a_new_version_plays_its_placement_games_first_nearest_first_then_against_many() {
        let mut active = settled(12);
        active.push(newcomer(12, 20.0));
        let mut history = History::default();
        let choices = simulate(&mut active, 2, 10, 101, &mut history, |s| s as f64);
        for (k, choice) in choices.iter().enumerate() {
            assert!(choice.seats.contains(&12), "{choice:?}");
            assert!(
                choice
                    .reason
                    .starts_with(&format!("placement game {} of 10 for new v1", k + 1)),
                "{choice:?}"
            );
            assert!(choice.reason.contains("expected gain"), "{choice:?}");
        }
        // Its first opponent is the nearest in rating (bot5, at exactly 20), unless drawn far.
        let first = &choices[0];
        assert!(
            first.seats.contains(&5) || first.reason.contains("at random"),
            "{first:?}"
        );
        // And it meets many, not the same few again.
        let mut met: Vec<usize> = choices.iter().flat_map(|c| c.seats.clone()).collect();
        met.sort();
        met.dedup();
        assert!(met.len() > 8, "{met:?}");
    }

    #[test]
    fn a_fit_s_figures_are_read_on_weng_lin_s_scale_and_choose_as_the_same_ratings_would() {
        // A version without games starts where Weng-Lin's does, whatever the fit's unit.
        assert_eq!(from_fit(3.0, 12.0, 12.0).1, START_SIGMA);
        // Points per game with intervals: the same figures in tenths (another unit) choose the
        // same game, since only distances against uncertainties count.
        let fitted = [(4.0, 0.5), (3.0, 0.4), (2.9, 0.4), (1.0, 0.9), (2.0, 2.5)];
        let candidates = |unit: f64| -> Vec<Candidate> {
            fitted
                .iter()
                .enumerate()
                .map(|(k, &(value, interval))| {
                    let (mu, sigma) = from_fit(value * unit, interval * unit, 2.5 * unit);
                    Candidate {
                        mu,
                        sigma,
                        games: 40,
                        last_chosen: Some(90),
                        ..newcomer(k, 0.0)
                    }
                })
                .collect()
        };
        let history = History::default();
        for next in 100..120 {
            let chosen: Vec<Choice> = [1.0, 10.0]
                .iter()
                .map(|&unit| {
                    let mut rng = koth_game::seed::rng(9, u64::from(next));
                    choose(&candidates(unit), 2, next, TUNING, &history, &mut rng).unwrap()
                })
                .collect();
            assert_eq!(chosen[0].seats, chosen[1].seats, "{chosen:?}");
        }
    }

    #[test]
    fn with_every_version_tied_a_newcomer_meets_at_least_half_within_its_placement() {
        // Eight versions all tied (as when every game ended 0-0-0), games of three.
        let mut active: Vec<Candidate> = settled(8)
            .into_iter()
            .map(|c| Candidate { mu: 25.0, ..c })
            .collect();
        active.push(newcomer(8, 25.0));
        let mut history = History::default();
        let choices = simulate(&mut active, 3, 10, 101, &mut history, |_| 0.0);
        let mut met: Vec<usize> = choices
            .iter()
            .flat_map(|c| c.seats.clone())
            .filter(|&s| s != 8)
            .collect();
        met.sort();
        met.dedup();
        assert!(met.len() >= 4, "met {met:?} of 8: {choices:#?}");
    }

    #[test]
    fn a_line_up_whose_games_all_ended_alike_is_not_repeated_while_others_are_untried() {
        // Four tied versions; 0, 1 and 2 have met 20 times, every game alike (0-0-0).
        let mut active: Vec<Candidate> = settled(4)
            .into_iter()
            .map(|c| Candidate { mu: 25.0, ..c })
            .collect();
        let mut history = History::default();
        for _ in 0..20 {
            history.record(&[(0, 0.0), (1, 0.0), (2, 0.0)]);
        }
        let choices = simulate(&mut active, 3, 12, 101, &mut history, |s| s as f64);
        for choice in &choices {
            let mut seats = choice.seats.clone();
            seats.sort();
            assert_ne!(seats, [0, 1, 2], "{choice:?}");
        }
    }

    #[test]
    fn a_drawn_pair_plays_again_once_every_other_pair_was_tried() {
        // Three versions, games of two: 2 beat 0 and 1 in each of their ten games, and the one
        // game of 0 and 1 was a draw. Only a game between 0 and 1 can tell them apart (the
        // original hill test's graded bots met this: 35 of 36 games went to the strongest).
        let mut active: Vec<Candidate> = settled(3)
            .into_iter()
            .map(|c| Candidate {
                mu: if c.id == 2 { 40.0 } else { 20.0 },
                sigma: 4.0,
                ..c
            })
            .collect();
        let mut history = History::default();
        history.record(&[(0, 1.0), (1, 1.0)]);
        for _ in 0..10 {
            history.record(&[(0, 0.0), (2, 2.0)]);
            history.record(&[(1, 0.0), (2, 2.0)]);
        }
        let choices = simulate(&mut active, 2, 6, 101, &mut history, |_| 1.0);
        let drawn_pair = choices
            .iter()
            .filter(|c| lineup(&c.seats) == [0, 1])
            .count();
        assert!(drawn_pair >= 3, "{choices:#?}");
    }

    #[test]
    fn a_line_up_is_tried_once_played_whatever_its_size_and_outcome() {
        let mut history = History::default();
        // A table of three pays; a table of two, of versions that met at it, is still untried.
        history.record(&[(0, 3.0), (1, 1.0), (2, 0.0)]);
        assert!(history.tried(&[2, 0, 1]) && !history.barren(&[0, 1, 2]));
        assert!(!history.tried(&[0, 1]));
        history.record(&[(1, 0.0), (0, 0.0)]);
        assert!(history.tried(&[0, 1]) && history.barren(&[1, 0]));
        // A barren line-up that pays once is tried and never barren again.
        history.record(&[(0, 1.0), (1, 0.0)]);
        history.record(&[(0, 0.0), (1, 0.0)]);
        assert!(history.tried(&[0, 1]) && !history.barren(&[0, 1]));
        assert!(!history.tried(&[0, 3]) && !history.tried(&[0, 1, 3]));
    }

    #[test]
    fn while_every_game_ends_alike_no_line_up_is_played_twice_before_each_is_tried() {
        // Eight versions, seven a game: eight line-ups. Every game scores nothing for anyone
        // (as after crashes), whatever the ratings and the random draws say.
        for players in [7, 2] {
            let mut active = settled(8);
            let mut history = History::default();
            let lineups = if players == 7 { 8 } else { 28 };
            let choices = simulate(&mut active, players, lineups, 101, &mut history, |_| 0.0);
            let mut seen: Vec<Vec<usize>> = choices.iter().map(|c| lineup(&c.seats)).collect();
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len(), lineups as usize, "{choices:?}");
        }
    }

    #[test]
    fn a_line_up_holds_the_pair_without_which_no_game_pays() {
        // Eight versions, seven a game; 0 and 1 lead far ahead in rating, and a game paid
        // anyone only when both played (the original Funnelweb and Connector): the line-ups
        // without both ended all alike.
        let mut active: Vec<Candidate> = settled(8)
            .into_iter()
            .map(|c| match c.id {
                0 | 1 => Candidate { mu: 40.0, ..c },
                _ => c,
            })
            .collect();
        let mut history = History::default();
        for left_out in 0..8 {
            for _ in 0..3 {
                let pays = left_out > 1;
                let seats: Vec<(usize, f64)> = (0..8)
                    .filter(|&v| v != left_out)
                    .map(|v| (v, if pays { 100.0 - v as f64 } else { 0.0 }))
                    .collect();
                history.record(&seats);
            }
        }
        let choices = simulate(&mut active, 7, 20, 101, &mut history, |s| 100.0 - s as f64);
        for choice in &choices {
            assert!(
                choice.seats.contains(&0) && choice.seats.contains(&1),
                "{choice:?}"
            );
        }
    }

    #[test]
    fn every_version_plays_regularly_and_none_is_starved() {
        let mut active = settled(20);
        // One very sure, long-played version: it must still be chosen.
        active[0].sigma = 0.5;
        active[0].games = 10_000;
        let mut history = History::default();
        let choices = simulate(&mut active, 2, 400, 101, &mut history, |s| s as f64);
        for c in &active {
            let played = choices.iter().filter(|ch| ch.seats.contains(&c.id)).count();
            assert!(played >= 15, "{} played {played} of 400 games", c.label);
        }
        // The longest gap between two games of any version stays bounded.
        for c in &active {
            let at: Vec<usize> = (0..choices.len())
                .filter(|&k| choices[k].seats.contains(&c.id))
                .collect();
            let gap = at.windows(2).map(|w| w[1] - w[0]).max().unwrap();
            assert!(gap <= 60, "{} waited {gap} games", c.label);
        }
        let far = choices
            .iter()
            .filter(|c| c.reason.contains("at random"))
            .count();
        assert!((15..=70).contains(&far), "{far} far games of 400");
    }

    #[test]
    fn queued_games_spread_the_queue_and_too_few_versions_choose_nothing() {
        let mut active = settled(6);
        active[2].queued = 3;
        let mut rng = koth_game::seed::rng(1, 0);
        let history = History::default();
        let choice = choose(&active, 2, 101, TUNING, &history, &mut rng).unwrap();
        assert!(!choice.seats.contains(&2), "{choice:?}");
        assert_eq!(
            choose(&active[..1], 2, 101, TUNING, &history, &mut rng),
            None
        );
        let four = choose(&active, 4, 101, TUNING, &history, &mut rng).unwrap();
        let mut seats = four.seats.clone();
        seats.sort();
        seats.dedup();
        assert_eq!(seats.len(), 4);
    }
}
