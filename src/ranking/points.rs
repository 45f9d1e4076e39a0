//! The points model, for a game whose result is its points ([`crate::game::Ranking::Points`]):
//! a seat's points are the game's mean `μ`, plus its player's strength `s_i`, less the mean
//! strength of the opponents at its table, plus noise:
//!
//! `points(seat of i) = μ + s_i − mean(s_j for the others j at the table) + ε`
//!
//! fitted by least squares with a ridge worth [`PRIOR_GAMES`] game at the average, which keeps
//! a player with one game near the average and pins the strengths' sum to 0 (adding a constant
//! to every strength changes no prediction). A player's figure is `μ + s_i`: its expected
//! points per game against a table of average opponents. A player who met only strong
//! opponents scored less than its strength says, and the model gives it back; one who met only
//! weak ones, the other way. A game of one player has no opponents: its points are `μ + s_i`.
//!
//! The 95% interval is ±1.96 standard errors from the normal equations' diagonal (the others'
//! strengths held at their estimates, as the order model's), with each player's own residual
//! variance (pooled with the whole fit's, worth two games), since a steady bot and a
//! wild one are not equally sure after as many games.

use std::collections::HashMap;

use super::Strength;

/// The ridge, in games: each strength is pulled towards the average as much as one game at
/// the average would pull it.
const PRIOR_GAMES: f64 = 1.0;
/// Games' worth of the whole fit's residual variance in each player's own.
const POOLED_GAMES: f64 = 2.0;

/// Games to fit, by player index: every seat's player and points, game after game.
#[derive(Debug, Default, Clone)]
pub struct Games {
    seats: Vec<(usize, f64)>,
    /// Where each game's seats start in `seats`.
    starts: Vec<usize>,
}

impl Games {
    /// Adds a game: each seat's player and points.
    pub fn add(&mut self, seats: &[(usize, f64)]) {
        if seats.is_empty() {
            return;
        }
        self.starts.push(self.seats.len());
        self.seats.extend_from_slice(seats);
    }

    fn each(&self) -> impl Iterator<Item = &[(usize, f64)]> {
        self.starts.iter().enumerate().map(|(k, &start)| {
            let end = self.starts.get(k + 1).copied().unwrap_or(self.seats.len());
            &self.seats[start..end]
        })
    }
}

/// The weight of the opponents' mean strength in a seat's points, `c = 1 / (k − 1)` at a table
/// of `k`; none alone.
fn opponents_weight(k: usize) -> f64 {
    if k > 1 { 1.0 / (k - 1) as f64 } else { 0.0 }
}

/// Fits every player's points per game against average opponents, starting the solver from
/// the strengths `start` (one per player; the last fit's, so a refit after a few more games
/// takes a few steps). Players without games get the game's mean.
pub fn fit_from(games: &Games, start: &[f64]) -> Vec<Strength> {
    let players = start.len();
    let rows = games.seats.len();
    let mu = if rows == 0 {
        0.0
    } else {
        games.seats.iter().map(|s| s.1).sum::<f64>() / rows as f64
    };
    // The normal equations `A s = b`, with A = XᵀX + ridge. A seat's row of X is
    // `(1 + c) e_i − c u`, u the table's players summed, so a table adds
    // `(1 + c)² diag(m) − (1 + c) c m mᵀ` to XᵀX (m: each player's seats at the table).
    let mut diagonal = vec![PRIOR_GAMES; players];
    let mut coupling: HashMap<(usize, usize), f64> = HashMap::new();
    let mut b = vec![0.0; players];
    let mut seen = vec![0u32; players];
    for table in games.each() {
        let k = table.len();
        let c = opponents_weight(k);
        let mut seated: Vec<(usize, f64)> = Vec::with_capacity(k);
        for &(p, _) in table {
            match seated.iter_mut().find(|s| s.0 == p) {
                Some(s) => s.1 += 1.0,
                None => seated.push((p, 1.0)),
            }
        }
        let residual_sum: f64 = table.iter().map(|s| s.1 - mu).sum();
        for &(p, y) in table {
            b[p] += (1.0 + c) * (y - mu);
            seen[p] += 1;
        }
        for (x, &(i, mi)) in seated.iter().enumerate() {
            b[i] -= c * mi * residual_sum;
            diagonal[i] += (1.0 + c) * (1.0 + c) * mi - (1.0 + c) * c * mi * mi;
            for &(j, mj) in &seated[x + 1..] {
                let key = if i < j { (i, j) } else { (j, i) };
                *coupling.entry(key).or_default() -= (1.0 + c) * c * mi * mj;
            }
        }
    }
    let coupling: Vec<(usize, usize, f64)> =
        coupling.into_iter().map(|((i, j), w)| (i, j, w)).collect();
    let times = |x: &[f64]| -> Vec<f64> {
        let mut y: Vec<f64> = x.iter().zip(&diagonal).map(|(x, d)| x * d).collect();
        for &(i, j, w) in &coupling {
            y[i] += w * x[j];
            y[j] += w * x[i];
        }
        y
    };
    let strength = conjugate_gradients(&times, &b, start);
    // Residuals, each player's own and the whole fit's.
    let mut own = vec![0.0; players];
    let mut total = 0.0;
    for table in games.each() {
        let c = opponents_weight(table.len());
        let sum: f64 = table.iter().map(|s| strength[s.0]).sum();
        for &(p, y) in table {
            let predicted = mu + (1.0 + c) * strength[p] - c * sum;
            let e = (y - predicted).powi(2);
            own[p] += e;
            total += e;
        }
    }
    let fitted_players = seen.iter().filter(|&&n| n > 0).count();
    let pooled = total / (rows.saturating_sub(fitted_players).max(1)) as f64;
    (0..players)
        .map(|i| {
            let n = f64::from(seen[i]);
            let variance = (own[i] + POOLED_GAMES * pooled) / (n + POOLED_GAMES);
            Strength {
                theta: strength[i],
                value: mu + strength[i],
                interval: 1.96 * (variance / diagonal[i]).sqrt(),
            }
        })
        .collect()
}

/// Solves `A x = b` for a symmetric positive definite `A` (given as its product), from `start`.
fn conjugate_gradients(times: &dyn Fn(&[f64]) -> Vec<f64>, b: &[f64], start: &[f64]) -> Vec<f64> {
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
    let mut x = start.to_vec();
    let ax = times(&x);
    let mut r: Vec<f64> = b.iter().zip(&ax).map(|(b, a)| b - a).collect();
    let mut p = r.clone();
    let mut rr = dot(&r, &r);
    let goal = 1e-20 * dot(b, b).max(1e-300);
    for _ in 0..(10 * b.len()).max(100) {
        if rr <= goal {
            break;
        }
        let ap = times(&p);
        let alpha = rr / dot(&p, &ap);
        for k in 0..x.len() {
            x[k] += alpha * p[k];
            r[k] -= alpha * ap[k];
        }
        let next = dot(&r, &r);
        for k in 0..p.len() {
            p[k] = r[k] + next / rr * p[k];
        }
        rr = next;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn two_player_points_are_found_with_the_opponents_taken_out() {
        // Player i scores 10·i on average, minus what its opponent takes from it.
        let strengths = [0.0, 10.0, 20.0, 30.0];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut games = Games::default();
        for _ in 0..400 {
            let i = rng.random_range(0..4);
            let j = (i + rng.random_range(1..4)) % 4;
            let noise = |rng: &mut rand_chacha::ChaCha8Rng| rng.random_range(-5.0..5.0);
            let yi = 50.0 + strengths[i] - strengths[j] + noise(&mut rng);
            let yj = 50.0 + strengths[j] - strengths[i] + noise(&mut rng);
            games.add(&[(i, yi), (j, yj)]);
        }
        let fitted = fit_from(&games, &[0.0; 4]);
        for (k, f) in fitted.iter().enumerate() {
            let truth = 50.0 + strengths[k] - 15.0;
            // The interval holds the others at their estimates, so it is a little narrow in a
            // pool this small: within two of it.
            assert!(
                (f.value - truth).abs() < 2.0 * f.interval,
                "{k}: {f:?} vs {truth}"
            );
            assert!(f.interval > 0.1 && f.interval < 3.0, "{f:?}");
        }
        // From another start, the same optimum.
        let again = fit_from(&games, &[5.0, -3.0, 1.0, 0.0]);
        for (a, b) in fitted.iter().zip(&again) {
            assert!((a.value - b.value).abs() < 1e-6, "{a:?} {b:?}");
        }
    }

    #[test]
    fn a_player_that_met_only_strong_opponents_is_not_punished_for_it() {
        // 0 and 1 are equal; 0 always meets the strong 2, 1 always the weak 3.
        let mut games = Games::default();
        for round in 0..50 {
            let wobble = f64::from(round % 3);
            games.add(&[(0, 5.0 + wobble), (2, 15.0)]);
            games.add(&[(1, 15.0 + wobble), (3, 5.0)]);
            // 2 and 3 meet too, so their gap is measured.
            games.add(&[(2, 20.0), (3, 0.0)]);
        }
        let fitted = fit_from(&games, &[0.0; 4]);
        assert!(
            (fitted[0].value - fitted[1].value).abs() < 0.5,
            "{fitted:?}"
        );
        assert!(fitted[2].value > fitted[0].value + 3.0, "{fitted:?}");
    }

    #[test]
    fn a_player_without_games_gets_the_mean_and_one_alone_its_own_mean() {
        let mut games = Games::default();
        for _ in 0..20 {
            games.add(&[(0, 4.0)]);
            games.add(&[(1, 8.0)]);
        }
        let fitted = fit_from(&games, &[0.0; 3]);
        assert!((fitted[2].value - 6.0).abs() < 1e-9, "{fitted:?}");
        // Ridge of one game: 20 games at 4 and one at the mean 6.
        assert!((fitted[0].value - (6.0 - 2.0 * 20.0 / 21.0)).abs() < 1e-6);
        assert!(fitted[1].value > fitted[0].value);
    }
}
