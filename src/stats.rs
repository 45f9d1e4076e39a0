//! The statistics koth reports, in one place: means, medians and 95% intervals, for the
//! leaderboard's standings and the rat race's runs alike.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The average; 0 for none.
pub(crate) fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// The middle value (the mean of the two middle ones for an even count); 0 for none.
pub(crate) fn median(values: &[f64]) -> f64 {
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
pub(crate) fn interval95(values: &[f64]) -> Option<f64> {
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
pub(crate) struct GeometricMean {
    pub(crate) mean: f64,
    /// `(low, high)`; absent below two values.
    pub(crate) interval: Option<(f64, f64)>,
}

/// The geometric mean of `values`, each clamped to a tiny positive number first so that a zero
/// cannot turn the mean into nothing; 1 for none.
pub(crate) fn geometric_mean(values: &[f64]) -> GeometricMean {
    let logs: Vec<f64> = values.iter().map(|v| v.max(1e-9).ln()).collect();
    let m = mean(&logs);
    GeometricMean {
        mean: m.exp(),
        interval: interval95(&logs).map(|h| ((m - h).exp(), (m + h).exp())),
    }
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
}
