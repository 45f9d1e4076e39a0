//! The order model, for a game whose result is a placement ([`koth_game::Ranking::Placement`]):
//! an order-independent fit over every game by maximum likelihood. Online ratings (Weng-Lin)
//! move with the order games end in; this fit depends only on which games were played and how
//! they ended.
//!
//! - A game of two is a Bradley–Terry comparison with draws (Davidson's model): with strengths
//!   `π = e^θ`, `P(i beats j) = π_i / D`, `P(draw) = ν √(π_i π_j) / D`, where
//!   `D = π_i + π_j + ν √(π_i π_j)` and `ν` (how drawish the game is) is fitted too.
//! - A game of more is a Plackett–Luce ranking by score; players with equal scores share a
//!   place, each chosen from everyone not placed before (Breslow's handling of ties).
//!
//! A weak normal prior on each `θ` (standard deviation [`PRIOR_SD`], about 520 Elo) keeps a
//! version that has won or lost every game finite; beside the likelihood of even a few games it
//! is negligible. Two-player games are first summed per pair, so a refit costs the number of
//! pairs met, not of games. Intervals are ±1.96 standard errors from the information matrix's
//! diagonal (each strength's error with the others held at their estimates, which a
//! well-connected hill's matchmaking makes close to the full one).

use super::conjugate_gradients;

/// The prior's standard deviation on each log-strength.
const PRIOR_SD: f64 = 3.0;
/// The prior's standard deviation on `log ν`: without it, a pair that only ever drew would
/// send `ν` to infinity, and its draws would say nothing of the two being equal.
const NU_PRIOR_SD: f64 = 2.0;
/// Elo points per unit of log-strength.
pub(crate) const ELO_PER_UNIT: f64 = 400.0 / std::f64::consts::LN_10;
/// The rating of a version of average strength.
pub(crate) const ELO_MEAN: f64 = 1500.0;

use super::Strength;

/// Games to fit, by player index `0..players`.
///
/// Games of two are summed per pair, the pairs held flat and in order (two vectors side by
/// side, 20 bytes a pair), so that a fit walks them as they are: a hill's refit of millions of
/// pairs once held them in a `BTreeMap` (some 60 bytes a pair) copied flat again at each fit (40
/// more), 0.8 GB at 6,000,000 pairs (docs/benchmarks.md, "Eleventh pass (2026-11-30): a
/// placement hill of millions of pairs").
#[derive(Debug, Default, Clone)]
pub struct Games {
    /// Each pair met, `[i, j]` with `i < j`, ascending. In order, so the fit always sums them
    /// in one order: the same games fit the same figures to the bit, run after run, whatever
    /// order they were added in.
    ends: Vec<[u32; 2]>,
    /// Each pair's (i's wins, draws, j's wins), beside its `ends`.
    counts: Vec<[u32; 3]>,
    /// Games of two added since the pairs were last put in order ([`Games::order_pairs`]):
    /// each one's pair and outcome (0 i won, 1 drawn, 2 j won). A game is pushed here, not
    /// looked up, so gathering ten million costs a sort now and then.
    fresh: Vec<([u32; 2], u8)>,
    /// Games of more than two: each a list of places, best first, each place its players.
    rankings: Vec<Vec<Vec<usize>>>,
}

/// Fresh games of two held before they are put in order: at least this many, or half as many
/// as the pairs held (so gathering merges a few times, whatever the count).
const FRESH_AT_MOST: usize = 1 << 20;

impl Games {
    /// Adds a game: each seat's player and score (higher is better).
    pub fn add(&mut self, seats: &[(usize, f64)]) {
        match seats {
            [] | [_] => {}
            [(a, sa), (b, sb)] => {
                if a == b {
                    return;
                }
                let (i, j, si, sj) = if a < b {
                    (*a, *b, *sa, *sb)
                } else {
                    (*b, *a, *sb, *sa)
                };
                let outcome = if si > sj {
                    0
                } else if si == sj {
                    1
                } else {
                    2
                };
                // No fit holds 2^32 players (its vectors alone would take 32 GiB each): a
                // larger index is as far out of the fit's range as it was before.
                let player = |p: usize| u32::try_from(p).unwrap_or(u32::MAX);
                self.fresh.push(([player(i), player(j)], outcome));
                if self.fresh.len() >= FRESH_AT_MOST.max(self.ends.len() / 2) {
                    self.order_pairs();
                }
            }
            _ => {
                let mut sorted = seats.to_vec();
                sorted.sort_by(|x, y| y.1.total_cmp(&x.1));
                let mut places: Vec<Vec<usize>> = Vec::new();
                let mut last = f64::NAN;
                for (player, score) in sorted {
                    match places.last_mut() {
                        Some(place) if score == last => place.push(player),
                        _ => places.push(vec![player]),
                    }
                    last = score;
                }
                if places.len() > 1 || places[0].len() > 1 {
                    self.rankings.push(places);
                }
            }
        }
    }

    /// Puts the games of two added since into the pairs held, in order: a pair met before has
    /// its counts added to in place, a new one is merged into its place. Called once the games
    /// are gathered and after more are added (a fit of games not yet in order puts a copy in
    /// order first).
    pub fn order_pairs(&mut self) {
        if self.fresh.is_empty() {
            return;
        }
        self.fresh.sort_unstable_by_key(|&(pair, _)| pair);
        let mut new: Vec<([u32; 2], [u32; 3])> = Vec::new();
        let mut from = 0;
        for run in self.fresh.chunk_by(|a, b| a.0 == b.0) {
            let pair = run[0].0;
            let mut counts = [0u32; 3];
            for &(_, outcome) in run {
                counts[usize::from(outcome)] += 1;
            }
            from = position_from(&self.ends, from, pair);
            if self.ends.get(from) == Some(&pair) {
                for (held, more) in self.counts[from].iter_mut().zip(counts) {
                    *held += more;
                }
            } else {
                new.push((pair, counts));
            }
        }
        self.fresh = Vec::new();
        self.merge(&new);
    }

    /// Merges pairs not held before (`new`, ascending) into their places, from the back, in
    /// place: the vectors grow by exactly as many (a doubling's room would be half again the
    /// pairs' size, at millions of pairs).
    fn merge(&mut self, new: &[([u32; 2], [u32; 3])]) {
        let mut held = self.ends.len();
        self.ends.reserve_exact(new.len());
        self.counts.reserve_exact(new.len());
        self.ends.resize(held + new.len(), [0; 2]);
        self.counts.resize(held + new.len(), [0; 3]);
        let mut write = self.ends.len();
        for &(pair, counts) in new.iter().rev() {
            while held > 0 && self.ends[held - 1] > pair {
                held -= 1;
                write -= 1;
                self.ends[write] = self.ends[held];
                self.counts[write] = self.counts[held];
            }
            write -= 1;
            self.ends[write] = pair;
            self.counts[write] = counts;
        }
    }

    /// How many distinct pairs of players the games of two were between, of those put in
    /// order ([`Games::order_pairs`]).
    pub fn pair_count(&self) -> usize {
        self.ends.len()
    }

    /// The pairs as a fit walks them: each pair's players and counts, in order.
    fn pairs(&self) -> impl Iterator<Item = ((usize, usize), [f64; 3])> + '_ {
        self.ends
            .iter()
            .zip(&self.counts)
            .map(|(&[i, j], counts)| ((i as usize, j as usize), counts.map(f64::from)))
    }
}

/// The first place at or past `from` in `ends` (ascending) whose pair is not below `pair`: a
/// gallop from `from`, then a binary search, so that a walk of ascending pairs costs the log
/// of each step, not of the whole.
fn position_from(ends: &[[u32; 2]], from: usize, pair: [u32; 2]) -> usize {
    let rest = &ends[from..];
    let mut bound = 1;
    while bound < rest.len() && rest[bound] < pair {
        bound *= 2;
    }
    let low = bound / 2;
    let high = (bound + 1).min(rest.len());
    from + low + rest[low..high].partition_point(|&held| held < pair)
}

/// Half the width of the 95% interval of a player without games: the prior's alone.
pub const UNPLAYED_INTERVAL: f64 = 1.96 * PRIOR_SD * ELO_PER_UNIT;

/// Fits every player's strength on the Elo scale (1500 average, 400 points for 10:1 odds);
/// players without games get the prior's (average, wide).
pub fn fit(players: usize, games: &Games) -> Vec<Strength> {
    fit_from(games, &vec![0.0; players])
}

/// [`fit`] starting from the log-strengths `start` (one per player; the last fit's, so a refit
/// after a few more games takes a few steps): the same optimum, reached sooner.
///
/// Each step is Newton's on every strength and `log ν` together, its system solved by conjugate
/// gradients on the sparse curvature (a pair's games couple only its two players): the field's
/// standard method for a Bradley–Terry fit of many players (a "truncated Newton" step; the
/// points fit takes the same). A step on each strength alone, with the others held, moved what
/// one end of a long chain of neighbours learnt across to the other only a few places a step:
/// at 10,000 versions it had not converged in 500 steps and six minutes (docs/benchmarks.md,
/// the hill at 10,000 versions). The whole step takes a handful whatever the chain's length.
pub fn fit_from(games: &Games, start: &[f64]) -> Vec<Strength> {
    if !games.fresh.is_empty() {
        let mut ordered = games.clone();
        ordered.order_pairs();
        return fit_from(&ordered, start);
    }
    let players = start.len();
    let mut theta = start.to_vec();
    let mut log_nu = 0.0_f64;
    let has_draws = games.counts.iter().any(|c| c[1] > 0);
    let mut current = log_likelihood(&theta, log_nu, has_draws, games);
    for _ in 0..NEWTON_STEPS {
        let curvature = Curvature::at(&theta, log_nu, has_draws, games);
        let step = curvature.newton_step();
        let (steps, nu_step) = step.split_at(players);
        let nu_step = nu_step[0];
        // The likelihood is concave, so the whole step rises unless the quadratic is far from
        // it (the first steps from a poor start): halve it until the likelihood rises.
        let mut scale = 1.0;
        let moved = loop {
            let trial: Vec<f64> = theta
                .iter()
                .zip(steps)
                .map(|(t, s)| t + scale * s)
                .collect();
            let trial_nu = log_nu + scale * nu_step;
            let value = log_likelihood(&trial, trial_nu, has_draws, games);
            if value >= current - 1e-12 {
                theta = trial;
                log_nu = trial_nu;
                current = value;
                break scale;
            }
            scale /= 2.0;
            if scale < 1e-6 {
                break 0.0;
            }
        };
        let largest = step.iter().fold(0.0_f64, |m, s| m.max(s.abs()));
        if moved == 0.0 || largest * moved < 1e-7 {
            break;
        }
    }
    let curvature = Curvature::at(&theta, log_nu, has_draws, games);
    let mean = theta.iter().sum::<f64>() / players.max(1) as f64;
    theta
        .iter()
        .zip(&curvature.diagonal)
        .map(|(t, h)| Strength {
            theta: t - mean,
            value: ELO_MEAN + (t - mean) * ELO_PER_UNIT,
            interval: 1.96 / h.sqrt() * ELO_PER_UNIT,
        })
        .collect()
}

/// Newton's steps at most: each takes the whole curvature, so a fit ends in a handful.
const NEWTON_STEPS: usize = 100;

/// The Davidson probabilities of a pair: (i wins, draw, j wins).
fn pair_probabilities(ti: f64, tj: f64, log_nu: f64) -> [f64; 3] {
    let m = ti.max(tj);
    let (pi, pj) = ((ti - m).exp(), (tj - m).exp());
    let pd = (log_nu + (ti + tj) / 2.0 - m).exp();
    let d = pi + pj + pd;
    [pi / d, pd / d, pj / d]
}

/// The penalised log-likelihood; without draws in the data, `ν` plays no part.
fn log_likelihood(theta: &[f64], log_nu: f64, has_draws: bool, games: &Games) -> f64 {
    let mut total = -theta.iter().map(|t| t * t).sum::<f64>() / (2.0 * PRIOR_SD * PRIOR_SD);
    let log_nu = if has_draws {
        total -= log_nu * log_nu / (2.0 * NU_PRIOR_SD * NU_PRIOR_SD);
        log_nu
    } else {
        f64::NEG_INFINITY
    };
    for ((i, j), counts) in games.pairs() {
        let p = pair_probabilities(theta[i], theta[j], log_nu);
        for (count, p) in counts.iter().zip(p) {
            if *count > 0.0 {
                total += count * p.ln();
            }
        }
    }
    for places in &games.rankings {
        let mut remaining: Vec<usize> = places.iter().flatten().copied().collect();
        for place in places {
            let m = remaining.iter().map(|&r| theta[r]).fold(f64::MIN, f64::max);
            let log_sum = m + remaining
                .iter()
                .map(|&r| (theta[r] - m).exp())
                .sum::<f64>()
                .ln();
            for &p in place {
                total += theta[p] - log_sum;
            }
            remaining.retain(|r| !place.contains(r));
        }
    }
    total
}

/// The penalised log-likelihood's gradient and curvature (minus its second derivatives) at one
/// point, in the unknowns θ (one per player) and `log ν` (the last). The curvature is kept as
/// its parts, so that its product with a vector costs one walk of the pairs and the games of
/// more, never a dense matrix.
struct Curvature<'g> {
    gradient: Vec<f64>,
    /// The curvature's diagonal: each unknown's with the others held.
    diagonal: Vec<f64>,
    /// The pairs' players, as the games hold them.
    ends: &'g [[u32; 2]],
    /// Each pair's `n ∂a_i/∂θ_i`, beside its `ends`: it couples `θ_i` and `θ_j` by minus that
    /// much.
    pair_weights: Vec<f64>,
    /// Each pair's coupling of `θ_i` with `log ν` (`θ_j`'s is its opposite).
    nu_couplings: Vec<f64>,
    /// Each place of a game of more: how many share it, and every player still to place with
    /// its chance of being chosen (Plackett–Luce's `k (diag(s) − s sᵀ)` over them).
    stages: Vec<(f64, Vec<(usize, f64)>)>,
}

impl<'g> Curvature<'g> {
    fn at(theta: &[f64], log_nu: f64, has_draws: bool, games: &'g Games) -> Curvature<'g> {
        let players = theta.len();
        let prior = 1.0 / (PRIOR_SD * PRIOR_SD);
        let nu_prior = 1.0 / (NU_PRIOR_SD * NU_PRIOR_SD);
        let mut gradient: Vec<f64> = theta.iter().map(|t| -t * prior).collect();
        let mut diagonal = vec![prior; players];
        let mut pair_weights = Vec::with_capacity(games.ends.len());
        let mut nu_couplings = Vec::with_capacity(games.ends.len());
        let (mut nu_gradient, mut nu_curvature) = (-log_nu * nu_prior, nu_prior);
        for ((i, j), [wins, draws, losses]) in games.pairs() {
            let n = wins + draws + losses;
            let [pi, pd, pj] = pair_probabilities(theta[i], theta[j], log_nu);
            let (ai, aj) = (pi + pd / 2.0, pj + pd / 2.0);
            gradient[i] += wins + draws / 2.0 - n * ai;
            gradient[j] += losses + draws / 2.0 - n * aj;
            // `pi + pd/4 − ai²` and `pj + pd/4 − aj²` are equal (`ai + aj = 1`): the pair's
            // likelihood moves with `θ_i − θ_j` alone.
            let weight = n * (pi + pd / 4.0 - ai * ai);
            diagonal[i] += weight;
            diagonal[j] += weight;
            pair_weights.push(weight);
            nu_gradient += draws - n * pd;
            nu_curvature += n * pd * (1.0 - pd);
            nu_couplings.push(n * pd * (pj - pi) / 2.0);
        }
        let mut stages = Vec::new();
        for places in &games.rankings {
            let mut remaining: Vec<usize> = places.iter().flatten().copied().collect();
            for place in places {
                let m = remaining.iter().map(|&r| theta[r]).fold(f64::MIN, f64::max);
                let sum: f64 = remaining.iter().map(|&r| (theta[r] - m).exp()).sum();
                let k = place.len() as f64;
                let shares: Vec<(usize, f64)> = remaining
                    .iter()
                    .map(|&r| (r, (theta[r] - m).exp() / sum))
                    .collect();
                for &(r, share) in &shares {
                    gradient[r] -= k * share;
                    diagonal[r] += k * share * (1.0 - share);
                }
                for &p in place {
                    gradient[p] += 1.0;
                }
                stages.push((k, shares));
                remaining.retain(|r| !place.contains(r));
            }
        }
        if has_draws {
            gradient.push(nu_gradient);
            diagonal.push(nu_curvature);
        } else {
            // Without draws `ν` plays no part: its row is the identity, its step zero.
            gradient.push(0.0);
            diagonal.push(1.0);
            nu_couplings.fill(0.0);
        }
        Curvature {
            gradient,
            diagonal,
            ends: &games.ends,
            pair_weights,
            nu_couplings,
            stages,
        }
    }

    /// The curvature times `v`.
    fn times(&self, v: &[f64]) -> Vec<f64> {
        let nu = v.len() - 1;
        let mut product: Vec<f64> = self.diagonal.iter().zip(v).map(|(d, v)| d * v).collect();
        let pairs = self
            .ends
            .iter()
            .zip(&self.pair_weights)
            .zip(&self.nu_couplings);
        for ((&[i, j], &weight), &coupling) in pairs {
            let (i, j) = (i as usize, j as usize);
            product[i] -= weight * v[j];
            product[j] -= weight * v[i];
            product[i] += coupling * v[nu];
            product[j] -= coupling * v[nu];
            product[nu] += coupling * (v[i] - v[j]);
        }
        for (k, shares) in &self.stages {
            let mean: f64 = shares.iter().map(|&(r, s)| s * v[r]).sum();
            for &(r, s) in shares {
                // The diagonal's `k s (1 − s)` is already in; the rest of `k s (v_r − s·v)`.
                product[r] -= k * s * (mean - s * v[r]);
            }
        }
        product
    }

    /// Newton's step: the curvature's system solved by conjugate gradients, scaled by the
    /// diagonal (Jacobi's preconditioner) so that a version of a thousand games and one of ten
    /// converge alike. Far from the optimum the step is solved only roughly (its residual the
    /// square root of the gradient's size, at most half of it: Eisenstat and Walker's forcing
    /// term), since the next step corrects it; near it, as closely as the gradient is small.
    fn newton_step(&self) -> Vec<f64> {
        let scale: Vec<f64> = self.diagonal.iter().map(|d| 1.0 / d.sqrt()).collect();
        let scaled = |v: &[f64]| -> Vec<f64> { v.iter().zip(&scale).map(|(v, s)| v * s).collect() };
        let b = scaled(&self.gradient);
        let size = b.iter().map(|b| b * b).sum::<f64>().sqrt();
        let y = conjugate_gradients(
            &|y| scaled(&self.times(&scaled(y))),
            &b,
            &vec![0.0; b.len()],
            size.sqrt().min(0.5),
        );
        scaled(&y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// Games among `strengths.len()` players drawn from Davidson's model.
    fn simulated(strengths: &[f64], games: usize, seed: u64) -> Vec<(usize, usize, f64, f64)> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let n = strengths.len();
        (0..games)
            .map(|_| {
                let i = rng.random_range(0..n);
                let j = (i + rng.random_range(1..n)) % n;
                let [pi, pd, _] = pair_probabilities(strengths[i], strengths[j], 0.0);
                let u: f64 = rng.random();
                let (si, sj) = if u < pi {
                    (1.0, 0.0)
                } else if u < pi + pd {
                    (0.5, 0.5)
                } else {
                    (0.0, 1.0)
                };
                (i, j, si, sj)
            })
            .collect()
    }

    #[test]
    fn the_fit_finds_the_true_order_and_the_same_figures_to_the_bit_whatever_the_games_order() {
        let strengths = [-1.5, -0.75, 0.0, 0.75, 1.5];
        let mut played = simulated(&strengths, 2000, 3);
        let mut games = Games::default();
        for &(i, j, si, sj) in &played {
            games.add(&[(i, si), (j, sj)]);
        }
        let fitted = fit(5, &games);
        for w in fitted.windows(2) {
            assert!(w[0].value < w[1].value, "{fitted:?}");
        }
        // Strength 0.75 apart is 326 Elo: each gap is found within its intervals.
        for (k, s) in fitted.iter().enumerate() {
            let truth = ELO_MEAN + strengths[k] * ELO_PER_UNIT;
            assert!(
                (s.value - truth).abs() < s.interval,
                "{k}: {s:?} vs {truth}"
            );
            assert!(s.interval > 10.0 && s.interval < 120.0, "{s:?}");
        }
        played.reverse();
        let mut reversed = Games::default();
        for &(i, j, si, sj) in &played {
            reversed.add(&[(j, sj), (i, si)]);
        }
        // To the bit: a hill resumed, or fitted on another machine, shows the same figures.
        let again = fit(5, &reversed);
        assert_eq!(fitted, again);
        // Started from a previous fit, the same optimum (to a hundredth of an Elo point).
        let start: Vec<f64> = [0.4, -0.2, 0.0, 0.1, 0.3].to_vec();
        for (a, b) in fitted.iter().zip(&fit_from(&reversed, &start)) {
            assert!((a.value - b.value).abs() < 0.01, "{a:?} {b:?}");
        }
    }

    #[test]
    fn pairs_put_in_order_at_any_time_hold_what_a_map_of_pairs_sums_and_fit_alike() {
        let strengths = [-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5];
        let played = simulated(&strengths, 3000, 7);
        // The map of pairs the games were held in until 2026-11-30.
        let mut map: std::collections::BTreeMap<[u32; 2], [u32; 3]> = Default::default();
        for &(i, j, si, sj) in &played {
            let (key, outcome) = if i < j { ([i, j], si) } else { ([j, i], sj) };
            let key = key.map(|p| p as u32);
            map.entry(key).or_default()[if outcome == 1.0 {
                0
            } else if outcome == 0.5 {
                1
            } else {
                2
            }] += 1;
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut first: Option<Vec<Strength>> = None;
        for trial in 0..6 {
            let mut order = played.clone();
            if trial > 0 {
                for k in (1..order.len()).rev() {
                    order.swap(k, rng.random_range(0..=k));
                }
            }
            let mut games = Games::default();
            for (n, &(i, j, si, sj)) in order.iter().enumerate() {
                games.add(&[(i, si), (j, sj)]);
                // Put in order now and then, as a hill's refit does after each read.
                if trial > 1 && rng.random_bool(0.01 * trial as f64) {
                    games.order_pairs();
                    assert!(games.fresh.is_empty(), "after {n}");
                }
            }
            if trial % 2 == 0 {
                games.order_pairs();
            }
            // A fit of games not all in order puts a copy in order.
            let fitted = fit(strengths.len(), &games);
            games.order_pairs();
            let held: Vec<([u32; 2], [u32; 3])> = games
                .ends
                .iter()
                .copied()
                .zip(games.counts.iter().copied())
                .collect();
            let summed: Vec<([u32; 2], [u32; 3])> = map.iter().map(|(&k, &c)| (k, c)).collect();
            assert_eq!(held, summed, "trial {trial}");
            assert_eq!(games.pair_count(), map.len());
            match &first {
                Some(first) => assert_eq!(first, &fitted, "trial {trial}"),
                None => first = Some(fitted),
            }
        }
    }

    #[test]
    fn a_gallop_finds_each_pairs_place_from_anywhere_before_it() {
        let ends: Vec<[u32; 2]> = (0..40u32).map(|k| [k / 7, 2 * (k % 7) + 1]).collect();
        for from in 0..=ends.len() {
            for i in 0..7 {
                for j in 0..16 {
                    let pair = [i, j];
                    let place = ends.partition_point(|&e| e < pair).max(from);
                    assert_eq!(position_from(&ends, from, pair), place, "{from} {pair:?}");
                }
            }
        }
    }

    /// The coordinate-wise derivatives the fit took before its steps took the whole curvature
    /// (kept here as the reference the new ones must equal).
    fn derivatives_before(
        theta: &[f64],
        log_nu: f64,
        games: &Games,
    ) -> (Vec<f64>, Vec<f64>, f64, f64) {
        let prior = 1.0 / (PRIOR_SD * PRIOR_SD);
        let mut gradient: Vec<f64> = theta.iter().map(|t| -t * prior).collect();
        let mut curvature = vec![prior; theta.len()];
        let (mut nu_g, mut nu_h) = (0.0, 0.0);
        for ((i, j), [wins, draws, losses]) in games.pairs() {
            let n = wins + draws + losses;
            let [pi, pd, pj] = pair_probabilities(theta[i], theta[j], log_nu);
            let (ai, aj) = (pi + pd / 2.0, pj + pd / 2.0);
            gradient[i] += wins + draws / 2.0 - n * ai;
            gradient[j] += losses + draws / 2.0 - n * aj;
            curvature[i] += n * (pi + pd / 4.0 - ai * ai);
            curvature[j] += n * (pj + pd / 4.0 - aj * aj);
            nu_g += draws - n * pd;
            nu_h += n * pd * (1.0 - pd);
        }
        for places in &games.rankings {
            let mut remaining: Vec<usize> = places.iter().flatten().copied().collect();
            for place in places {
                let m = remaining.iter().map(|&r| theta[r]).fold(f64::MIN, f64::max);
                let sum: f64 = remaining.iter().map(|&r| (theta[r] - m).exp()).sum();
                let k = place.len() as f64;
                for &r in &remaining {
                    let share = (theta[r] - m).exp() / sum;
                    gradient[r] -= k * share;
                    curvature[r] += k * share * (1.0 - share);
                }
                for &p in place {
                    gradient[p] += 1.0;
                }
                remaining.retain(|r| !place.contains(r));
            }
        }
        (gradient, curvature, nu_g, nu_h)
    }

    /// Random games of two (with draws) and of four (with shared places) among six players.
    fn random_games(seed: u64) -> Games {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut games = Games::default();
        for _ in 0..200 {
            let seats = if rng.random_bool(0.7) { 2 } else { 4 };
            let mut players: Vec<usize> = (0..6).collect();
            for k in 0..seats {
                let pick = rng.random_range(k..6);
                players.swap(k, pick);
            }
            let seated: Vec<(usize, f64)> = players[..seats]
                .iter()
                .map(|&p| (p, f64::from(rng.random_range(0..3u8))))
                .collect();
            games.add(&seated);
        }
        games.order_pairs();
        games
    }

    #[test]
    fn the_whole_curvature_has_the_coordinatewise_derivatives_and_is_the_likelihoods_own() {
        for seed in 0..5 {
            let games = random_games(seed);
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(100 + seed);
            let theta: Vec<f64> = (0..6).map(|_| rng.random_range(-1.5..1.5)).collect();
            let log_nu: f64 = rng.random_range(-1.0..1.0);
            let curvature = Curvature::at(&theta, log_nu, true, &games);
            // The same gradient and diagonal as the derivatives the fit took before.
            let (gradient, diagonal, nu_g, nu_h) = derivatives_before(&theta, log_nu, &games);
            let nu_prior = 1.0 / (NU_PRIOR_SD * NU_PRIOR_SD);
            let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * (1.0 + a.abs());
            for k in 0..6 {
                assert!(close(curvature.gradient[k], gradient[k]), "{k}");
                assert!(close(curvature.diagonal[k], diagonal[k]), "{k}");
            }
            assert!(close(curvature.gradient[6], nu_g - log_nu * nu_prior));
            assert!(close(curvature.diagonal[6], nu_h + nu_prior));
            // Each column of the whole curvature is minus the gradient's change (central
            // differences of the log-likelihood's own gradient).
            let h = 1e-5;
            for k in 0..7 {
                let moved = |by: f64| {
                    let mut t = theta.clone();
                    let mut nu = log_nu;
                    if k < 6 {
                        t[k] += by;
                    } else {
                        nu += by;
                    }
                    Curvature::at(&t, nu, true, &games).gradient
                };
                let (up, down) = (moved(h), moved(-h));
                let mut unit = vec![0.0; 7];
                unit[k] = 1.0;
                let column = curvature.times(&unit);
                for r in 0..7 {
                    let numeric = -(up[r] - down[r]) / (2.0 * h);
                    assert!(
                        (column[r] - numeric).abs() < 1e-5 * (1.0 + numeric.abs()),
                        "seed {seed}, ({r}, {k}): {} against {numeric}",
                        column[r]
                    );
                }
            }
        }
    }

    #[test]
    fn the_fit_ends_where_the_coordinatewise_derivatives_are_zero() {
        // The old fit's fixed point: every θ's and `log ν`'s derivative zero. The likelihood's
        // gradient sums to zero over the θ, so at the optimum the prior's does too and the θ's
        // mean is zero: the fit's shown θ (less their mean) are the optimum's own.
        let nu_prior = 1.0 / (NU_PRIOR_SD * NU_PRIOR_SD);
        for seed in 0..5 {
            let games = random_games(seed);
            let theta: Vec<f64> = fit(6, &games).iter().map(|s| s.theta).collect();
            // `log ν` at its optimum given the θ, by its own Newton steps.
            let mut log_nu = 0.0;
            for _ in 0..100 {
                let (_, _, g, h) = derivatives_before(&theta, log_nu, &games);
                log_nu += (g - log_nu * nu_prior) / (h + nu_prior);
            }
            let (gradient, _, g, _) = derivatives_before(&theta, log_nu, &games);
            assert!((g - log_nu * nu_prior).abs() < 1e-6, "seed {seed}: {g}");
            for (k, g) in gradient.iter().enumerate() {
                assert!(g.abs() < 1e-6, "seed {seed}, player {k}: {g}");
            }
        }
    }

    #[test]
    fn an_unbeaten_player_stays_finite_and_an_unplayed_one_is_average_and_unsure() {
        let mut games = Games::default();
        for _ in 0..5 {
            games.add(&[(0, 1.0), (1, 0.0)]);
        }
        let fitted = fit(3, &games);
        assert!(fitted[0].value.is_finite() && fitted[0].value > fitted[1].value);
        assert!(fitted[2].interval > fitted[0].interval);
        assert!((fitted[2].value - ELO_MEAN).abs() < 1.0, "{fitted:?}");
    }

    #[test]
    fn games_of_four_are_ranked_by_plackett_luce_with_ties_sharing_a_place() {
        let mut games = Games::default();
        for round in 0..60 {
            // 3 usually first, 0 usually last; 1 and 2 tie for the middle.
            let mut seats = vec![(0, 0.0), (1, 1.0), (2, 1.0), (3, 2.0)];
            if round % 5 == 0 {
                seats[0].1 = 3.0;
            }
            games.add(&seats);
        }
        let fitted = fit(4, &games);
        assert!(fitted[3].value > fitted[1].value && fitted[1].value > fitted[0].value);
        assert!(
            (fitted[1].value - fitted[2].value).abs() < 1e-6,
            "{fitted:?}"
        );
    }
}
