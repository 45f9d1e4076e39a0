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

use std::collections::BTreeMap;

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
#[derive(Debug, Default, Clone)]
pub struct Games {
    /// `(i, j)` with `i < j` → (i's wins, draws, j's wins). Ordered, so the fit always sums
    /// them in one order: the same games fit the same figures to the bit, run after run (a
    /// hash map's order changes from one map to the next, and the figures' last bits with it).
    pairs: BTreeMap<(usize, usize), [f64; 3]>,
    /// Games of more than two: each a list of places, best first, each place its players.
    rankings: Vec<Vec<Vec<usize>>>,
}

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
                let counts = self.pairs.entry((i, j)).or_default();
                let outcome = if si > sj {
                    0
                } else if si == sj {
                    1
                } else {
                    2
                };
                counts[outcome] += 1.0;
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
pub fn fit_from(games: &Games, start: &[f64]) -> Vec<Strength> {
    let players = start.len();
    let mut theta = start.to_vec();
    let mut log_nu = 0.0_f64;
    let has_draws = games.pairs.values().any(|c| c[1] > 0.0);
    let mut current = log_likelihood(&theta, log_nu, has_draws, games);
    for _ in 0..500 {
        let (gradient, curvature) = derivatives(&theta, log_nu, games);
        let steps: Vec<f64> = gradient
            .iter()
            .zip(&curvature)
            .map(|(g, h)| g / h)
            .collect();
        // The draw parameter's own Newton step.
        let nu_step = if has_draws {
            let (g, h) = nu_derivatives(&theta, log_nu, games);
            let prior = 1.0 / (NU_PRIOR_SD * NU_PRIOR_SD);
            (g - log_nu * prior) / (h + prior)
        } else {
            0.0
        };
        // A Newton step on each coordinate at once can overshoot where players are coupled:
        // halve it until the likelihood rises.
        let mut scale = 1.0;
        let moved = loop {
            let trial: Vec<f64> = theta
                .iter()
                .zip(&steps)
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
        let largest = steps
            .iter()
            .chain([&nu_step])
            .fold(0.0_f64, |m, s| m.max(s.abs()));
        if moved == 0.0 || largest * moved < 1e-7 {
            break;
        }
    }
    let (_, curvature) = derivatives(&theta, log_nu, games);
    let mean = theta.iter().sum::<f64>() / players.max(1) as f64;
    theta
        .iter()
        .zip(curvature)
        .map(|(t, h)| Strength {
            theta: t - mean,
            value: ELO_MEAN + (t - mean) * ELO_PER_UNIT,
            interval: 1.96 / h.sqrt() * ELO_PER_UNIT,
        })
        .collect()
}

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
    for (&(i, j), counts) in &games.pairs {
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

/// Each θ's gradient and curvature (minus the second derivative, > 0) of the penalised
/// log-likelihood.
fn derivatives(theta: &[f64], log_nu: f64, games: &Games) -> (Vec<f64>, Vec<f64>) {
    let prior = 1.0 / (PRIOR_SD * PRIOR_SD);
    let mut gradient: Vec<f64> = theta.iter().map(|t| -t * prior).collect();
    let mut curvature = vec![prior; theta.len()];
    for (&(i, j), &[wins, draws, losses]) in &games.pairs {
        let n = wins + draws + losses;
        let [pi, pd, pj] = pair_probabilities(theta[i], theta[j], log_nu);
        let (ai, aj) = (pi + pd / 2.0, pj + pd / 2.0);
        gradient[i] += wins + draws / 2.0 - n * ai;
        gradient[j] += losses + draws / 2.0 - n * aj;
        curvature[i] += n * (pi + pd / 4.0 - ai * ai);
        curvature[j] += n * (pj + pd / 4.0 - aj * aj);
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
    (gradient, curvature)
}

/// The gradient and curvature of the log-likelihood in `log ν`.
fn nu_derivatives(theta: &[f64], log_nu: f64, games: &Games) -> (f64, f64) {
    let (mut g, mut h) = (0.0, 0.0);
    for (&(i, j), &[wins, draws, losses]) in &games.pairs {
        let n = wins + draws + losses;
        let [_, pd, _] = pair_probabilities(theta[i], theta[j], log_nu);
        g += draws - n * pd;
        h += n * pd * (1.0 - pd);
    }
    (g, h)
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
