//! The statistics koth reports, in one place: means, medians and 95% intervals, for the
//! leaderboard's standings and the rat race's runs alike; Elo and the sequential probability
//! ratio test, for a gauntlet's verdicts.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The average; 0 for none.
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// The middle value (the mean of the two middle ones for an even count); 0 for none.
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// Half the width of the 95% confidence interval of the mean of `values`, with Student's t:
/// leaderboards and runs often hold a handful of games, where the normal 1.96 claims more
/// certainty than there is (12.7 is right for two values). `None` below two values.
pub fn interval95(values: &[f64]) -> Option<f64> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let m = mean(values);
    let variance = values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .expect("one degree of freedom or more")
        .inverse_cdf(0.975);
    Some(t * (variance / n as f64).sqrt())
}

/// A geometric mean with its 95% interval, for scores that multiply or spread over orders of
/// magnitude: the arithmetic mean of the logarithms and its interval, brought back (so the
/// interval is not symmetric).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeometricMean {
    pub mean: f64,
    /// `(low, high)`; absent below two values.
    pub interval: Option<(f64, f64)>,
}

/// The geometric mean of `values`, each clamped to a tiny positive number first so that a zero
/// cannot turn the mean into nothing; 1 for none.
pub fn geometric_mean(values: &[f64]) -> GeometricMean {
    let logs: Vec<f64> = values.iter().map(|v| v.max(1e-9).ln()).collect();
    let m = mean(&logs);
    GeometricMean {
        mean: m.exp(),
        interval: interval95(&logs).map(|h| ((m - h).exp(), (m + h).exp())),
    }
}

/// The expected score (1 a win, ½ a draw) of a player `elo` logistic Elo points stronger than
/// its opponent: 1 / (1 + 10^(−elo/400)).
pub(crate) fn elo_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The logistic Elo difference that a mean score shows: the inverse of [`elo_score`]; infinite
/// for a score of 0 or 1.
pub fn score_elo(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The bounds of a sequential probability ratio test with error rates `alpha` (accepting H1
/// when H0 holds) and `beta` (the reverse): H0 is accepted once the log-likelihood ratio falls
/// to the first, H1 once it rises to the second (Wald).
pub fn sprt_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// The log-likelihood ratio of H1 "the player is `elo1` stronger" against H0 "`elo0` stronger",
/// from `counts[i]` observations of the score `values[i]` (each in 0..=1: a game's score, or a
/// pair's mean). This is the generalised SPRT that chess-engine testers use (fishtest,
/// fastchess): under each hypothesis the outcomes keep the distribution observed, reshaped by
/// maximum likelihood to have that hypothesis' expected score, and the ratio compares the two.
/// Unlike a fixed win/draw model it holds for any game's outcomes. An outcome never seen counts
/// as 0.001 of an observation, as theirs do, so the first results cannot claim certainty.
pub fn sprt_llr(values: &[f64], counts: &[u64], elo0: f64, elo1: f64) -> f64 {
    let seen: u64 = counts.iter().sum();
    if seen == 0 {
        return 0.0;
    }
    let counts: Vec<f64> = counts.iter().map(|&c| (c as f64).max(1e-3)).collect();
    let total: f64 = counts.iter().sum();
    let observed: Vec<f64> = counts.iter().map(|c| c / total).collect();
    let under = |elo: f64| reshaped(values, &observed, elo_score(elo));
    let (h0, h1) = (under(elo0), under(elo1));
    total
        * observed
            .iter()
            .zip(h0.iter().zip(&h1))
            .map(|(p, (p0, p1))| p * (p1.ln() - p0.ln()))
            .sum::<f64>()
}

/// The distribution closest (in likelihood) to `observed` over `values` whose mean is `mean`:
/// `p_i / (1 + x (v_i − mean))`, with `x` the root of Σ p_i (v_i − mean) / (1 + x (v_i − mean))
/// = 0. That sum falls steadily across the `x` that keep every weight positive, so bisection
/// finds its root. Needs the smallest value below `mean` and the largest above.
fn reshaped(values: &[f64], observed: &[f64], mean: f64) -> Vec<f64> {
    let (low, high) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
            (l.min(v), h.max(v))
        });
    let slope = |x: f64| -> f64 {
        values
            .iter()
            .zip(observed)
            .map(|(v, p)| p * (v - mean) / (1.0 + x * (v - mean)))
            .sum()
    };
    let (mut lo, mut hi) = (-1.0 / (high - mean), 1.0 / (mean - low));
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if slope(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let x = (lo + hi) / 2.0;
    values
        .iter()
        .zip(observed)
        .map(|(v, p)| p / (1.0 + x * (v - mean)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_uses_students_t() {
        // Two values: t(1) = 12.706; many values: close to the normal 1.96.
        let half = interval95(&[1.0, 3.0]).unwrap();
        assert!((half - 12.706).abs() < 1e-3, "{half}");
        let many: Vec<f64> = (0..1000).map(|i| (i % 2) as f64).collect();
        let sd = (250.0 / 999.0f64).sqrt();
        let half = interval95(&many).unwrap();
        assert!(
            (half / (sd / 1000f64.sqrt()) - 1.9623).abs() < 1e-3,
            "{half}"
        );
        assert_eq!(interval95(&[5.0]), None);
    }

    #[test]
    fn geometric_mean_and_its_interval_around_it() {
        let g = geometric_mean(&[1.0, 4.0, 16.0, 4.0]);
        assert!((g.mean - 4.0).abs() < 1e-9);
        let (low, high) = g.interval.unwrap();
        assert!(low < 4.0 && high > 4.0);
        let same = geometric_mean(&[7.0, 7.0, 7.0]);
        assert!((same.mean - 7.0).abs() < 1e-9);
        assert_eq!(
            same.interval.map(|(l, h)| (l.round(), h.round())),
            Some((7.0, 7.0))
        );
        assert_eq!(geometric_mean(&[]).mean, 1.0);
        assert_eq!(median(&[3.0, 1.0, 2.0, 10.0]), 2.5);
    }

    #[test]
    fn elo_and_score_are_inverses() {
        assert_eq!(elo_score(0.0), 0.5);
        assert!((elo_score(400.0) - 10.0 / 11.0).abs() < 1e-12);
        for elo in [-300.0, -5.0, 0.0, 42.0, 700.0] {
            assert!((score_elo(elo_score(elo)) - elo).abs() < 1e-9);
        }
        assert_eq!(score_elo(1.0), f64::INFINITY);
    }

    #[test]
    fn the_sprt_leans_to_the_hypothesis_the_results_fit() {
        let (lower, upper) = sprt_bounds(0.05, 0.05);
        assert!((upper - 19f64.ln()).abs() < 1e-12 && (lower + upper).abs() < 1e-12);
        let values = [0.0, 0.5, 1.0];
        // Scoring exactly elo1's expectation: the ratio grows with every game, and faster with
        // more games at the same rate.
        let s1 = elo_score(50.0);
        let counts = |n: u64| {
            let wins = (s1 * n as f64).round() as u64;
            [n - wins, 0, wins]
        };
        let few = sprt_llr(&values, &counts(100), 0.0, 50.0);
        let many = sprt_llr(&values, &counts(1000), 0.0, 50.0);
        assert!(few > 0.0 && many > 5.0 * few, "{few} {many}");
        // Even results favour H0; no results say nothing.
        assert!(sprt_llr(&values, &[40, 20, 40], 0.0, 50.0) < 0.0);
        assert_eq!(sprt_llr(&values, &[0, 0, 0], 0.0, 50.0), 0.0);
        // Winning every game is strong evidence, but a few wins are not yet certainty.
        let one = sprt_llr(&values, &[0, 0, 1], 0.0, 50.0);
        assert!(one > 0.0 && one < upper, "{one}");
        assert!(sprt_llr(&values, &[0, 0, 40], 0.0, 50.0) > upper);
    }

    #[test]
    fn reshaping_keeps_a_distribution_that_already_has_the_mean() {
        let values = [0.0, 0.25, 0.5, 0.75, 1.0];
        let observed = [0.1, 0.2, 0.4, 0.2, 0.1];
        let same = reshaped(&values, &observed, 0.5);
        for (a, b) in same.iter().zip(&observed) {
            assert!((a - b).abs() < 1e-9);
        }
        let moved = reshaped(&values, &observed, 0.6);
        let mean: f64 = values.iter().zip(&moved).map(|(v, p)| v * p).sum();
        assert!((mean - 0.6).abs() < 1e-9 && (moved.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
}
