//! The run's score from its boards' points.

use serde::Serialize;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Summary {
    pub boards: usize,
    /// The run's score: exp of the mean of ln(points).
    pub geometric_mean: f64,
    /// 95% interval of the geometric mean: exp(mean ± 1.96·sd/√n) of ln(points).
    pub interval: (f64, f64),
    pub share_of_ones: f64,
    pub median: f64,
}

impl Summary {
    pub fn of(points: &[u64]) -> Summary {
        let n = points.len();
        if n == 0 {
            return Summary {
                boards: 0,
                geometric_mean: 1.0,
                interval: (1.0, 1.0),
                share_of_ones: 0.0,
                median: 1.0,
            };
        }
        let logs: Vec<f64> = points.iter().map(|&p| (p as f64).ln()).collect();
        let mean_log = mean(&logs);
        let variance = if n > 1 {
            logs.iter().map(|l| (l - mean_log).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        let half_width = 1.96 * variance.sqrt() / (n as f64).sqrt();
        let median = median(&points.iter().map(|&p| p as f64).collect::<Vec<_>>());
        Summary {
            boards: n,
            geometric_mean: mean_log.exp(),
            interval: ((mean_log - half_width).exp(), (mean_log + half_width).exp()),
            share_of_ones: points.iter().filter(|&&p| p == 1).count() as f64 / n as f64,
            median,
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometric_mean_share_of_ones_and_median() {
        let s = Summary::of(&[1, 4, 16, 4]);
        assert!((s.geometric_mean - 4.0).abs() < 1e-9);
        assert_eq!(s.share_of_ones, 0.25);
        assert_eq!(s.median, 4.0);
        assert!(s.interval.0 < 4.0 && s.interval.1 > 4.0);
        let same = Summary::of(&[7, 7, 7]);
        assert!((same.geometric_mean - 7.0).abs() < 1e-9);
        assert!((same.interval.0 - 7.0).abs() < 1e-9 && (same.interval.1 - 7.0).abs() < 1e-9);
    }
}
