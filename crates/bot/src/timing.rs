//! How a bot's answers went against their time limit: each answer's wall and CPU time, and the
//! figures a match keeps of them.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// An answer line and how long the bot took to give it.
#[derive(Debug, Clone)]
pub struct Answer {
    pub line: String,
    /// From the end of writing the prompt to receiving the line.
    pub wall: Duration,
    /// CPU time the bot used for it, when measured (see [`BotProcess::set_clock`]).
    pub cpu: Option<Duration>,
}

/// How a bot's answers went against their time limit, summed over its processes in a game.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AnswerStats {
    pub answers: u64,
    pub max_wall_ms: f64,
    pub total_wall_ms: f64,
    /// Present when CPU time was measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cpu_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_cpu_ms: Option<f64>,
    /// Answers that took over 80% of the limit on the limit's clock: a bot close to timing out.
    pub near_misses: u64,
    /// Time-outs that were koth's fault: the bot was kept from the CPU by other programs
    /// ([`super::starvation`]). A tournament plays such a game again.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub starved_timeouts: u64,
    /// A WASI bot's fuel per answer: what a budget must allow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuel: Option<FuelStats>,
}

/// The fuel a WASI bot burnt per answer: how many answers, the most, the median, and near misses
/// against its budget (over 80% of it), kept as a histogram so that games and processes merge
/// and the median stays within 1/16 of a power of two of the exact one, in bounded space.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FuelStats {
    pub answers: u64,
    pub max: u64,
    pub total: u64,
    /// Answers that burnt over 80% of the budget.
    pub near_misses: u64,
    /// The budget per answer it played under, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<u64>,
    /// Answers by bucket ([`fuel_bucket`]).
    pub buckets: std::collections::BTreeMap<u16, u64>,
}

/// The histogram bucket of `fuel`: exact below 16, else its power of two and the 4 bits after
/// its leading one (a bucket is 1/16 of a power of two wide).
fn fuel_bucket(fuel: u64) -> u16 {
    if fuel < 16 {
        return fuel as u16;
    }
    let exponent = 63 - fuel.leading_zeros();
    let mantissa = (fuel >> (exponent - 4)) & 15;
    (16 * (exponent - 3) + mantissa as u32) as u16
}

/// The most fuel an answer in `bucket` burnt.
fn bucket_top(bucket: u16) -> u64 {
    if bucket < 16 {
        return u64::from(bucket);
    }
    let (exponent, mantissa) = (u32::from(bucket / 16) + 3, u64::from(bucket % 16));
    ((16 + mantissa + 1) << (exponent - 4)) - 1
}

impl FuelStats {
    pub fn record(&mut self, fuel: u64, budget: Option<u64>) {
        self.answers += 1;
        self.max = self.max.max(fuel);
        self.total = self.total.saturating_add(fuel);
        self.budget = budget;
        if budget.is_some_and(|b| fuel as f64 > 0.8 * b as f64) {
            self.near_misses += 1;
        }
        *self.buckets.entry(fuel_bucket(fuel)).or_default() += 1;
    }

    pub fn merge(&mut self, other: &FuelStats) {
        self.answers += other.answers;
        self.max = self.max.max(other.max);
        self.total = self.total.saturating_add(other.total);
        self.near_misses += other.near_misses;
        self.budget = self.budget.or(other.budget);
        for (bucket, count) in &other.buckets {
            *self.buckets.entry(*bucket).or_default() += count;
        }
    }

    /// The fuel at most `share` (0 to 1) of the answers burnt (the top of its bucket, never
    /// over the maximum): the median at 0.5.
    pub fn quantile(&self, share: f64) -> u64 {
        let wanted = (share * self.answers as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (bucket, count) in &self.buckets {
            seen += count;
            if seen >= wanted {
                return bucket_top(*bucket).min(self.max);
            }
        }
        self.max
    }

    /// The figures a leaderboard shows of these answers.
    pub fn figures(&self) -> FuelFigures {
        let median = self.quantile(0.5);
        let mut shown = format!("{}/{}", fuel_figure(median), fuel_figure(self.max));
        if self.near_misses > 0 {
            shown += &format!(", {} near", self.near_misses);
        }
        FuelFigures {
            answers: self.answers,
            median,
            max: self.max,
            near_misses: self.near_misses,
            budget: self.budget,
            shown,
        }
    }

    /// `median 1.2M, max 3.4M fuel per answer (120 answers), 2 near misses of a budget of 4M`:
    /// what the reports and `koth replay` print of a bot.
    pub fn summary(&self) -> String {
        let mut text = format!(
            "median {}, max {} fuel per answer ({} answers)",
            fuel_figure(self.quantile(0.5)),
            fuel_figure(self.max),
            self.answers
        );
        match self.budget {
            Some(budget) => {
                text += &format!(
                    ", {} near misses (over 80%) of its budget of {}",
                    self.near_misses,
                    fuel_figure(budget)
                )
            }
            None => {
                text += &format!(
                    "; no budget: --answer-fuel {} would leave each answer twice the most it burnt",
                    suggested_budget(self.max)
                )
            }
        }
        text
    }
}

/// A WASI bot's fuel per answer as a leaderboard shows it (its JSON, a cell of its table).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FuelFigures {
    pub answers: u64,
    /// Within 1/16 of a power of two of the exact median ([`FuelStats::quantile`]).
    pub median: u64,
    pub max: u64,
    /// Answers that burnt over 80% of the budget.
    pub near_misses: u64,
    pub budget: Option<u64>,
    /// As a table's cell shows them: `12k/40k` (median/max), with `, 2 near` when answers came
    /// within 20% of the budget; the dashboard shows it as it is.
    pub shown: String,
}

impl FuelFigures {
    /// The cell of `fuel` in a table: its figures, or `—` for a process.
    pub fn cell(fuel: Option<&FuelFigures>) -> String {
        fuel.map_or("—".to_string(), |f| f.shown.clone())
    }

    /// The four CSV fields `fuel_median,fuel_max,fuel_near_misses,fuel_budget` of a bot's
    /// figures, empty for a process (as for any figure it does not have).
    pub fn csv_fields(fuel: Option<&FuelFigures>) -> String {
        let field = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
        [
            field(fuel.map(|f| f.median)),
            field(fuel.map(|f| f.max)),
            field(fuel.map(|f| f.near_misses)),
            field(fuel.and_then(|f| f.budget)),
        ]
        .join(",")
    }
}

/// A budget twice `max`, rounded up to two significant digits: room for a bot's worst answer
/// on another seed.
pub fn suggested_budget(max: u64) -> u64 {
    let twice = max.saturating_mul(2).max(1000);
    let scale = 10u64.pow(twice.ilog10().saturating_sub(1));
    twice.div_ceil(scale) * scale
}

/// Fuel as a person reads it: `950`, `12k`, `3.4M`, `1.2G`.
fn fuel_figure(fuel: u64) -> String {
    let f = fuel as f64;
    match fuel {
        0..1_000 => fuel.to_string(),
        1_000..1_000_000 => format!("{:.3}k", f / 1e3),
        1_000_000..1_000_000_000 => format!("{:.3}M", f / 1e6),
        _ => format!("{:.3}G", f / 1e9),
    }
    .replace(".000", "")
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

impl AnswerStats {
    /// Adds another process's figures (a bot restarted every round) to these.
    pub fn merge(&mut self, other: &AnswerStats) {
        self.answers += other.answers;
        self.max_wall_ms = self.max_wall_ms.max(other.max_wall_ms);
        self.total_wall_ms += other.total_wall_ms;
        self.max_cpu_ms = max_option(self.max_cpu_ms, other.max_cpu_ms, f64::max);
        self.total_cpu_ms = max_option(self.total_cpu_ms, other.total_cpu_ms, |a, b| a + b);
        self.near_misses += other.near_misses;
        self.starved_timeouts += other.starved_timeouts;
        match (&mut self.fuel, &other.fuel) {
            (Some(mine), Some(theirs)) => mine.merge(theirs),
            (mine @ None, Some(theirs)) => *mine = Some(theirs.clone()),
            _ => {}
        }
    }

    /// A WASI bot's answer that burnt `fuel`, under `budget` if it had one.
    pub(crate) fn record_fuel(&mut self, fuel: u64, budget: Option<u64>) {
        self.fuel.get_or_insert_default().record(fuel, budget);
    }

    pub(super) fn record(&mut self, answer: &Answer, used: Duration, limit: Duration) {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        self.answers += 1;
        self.max_wall_ms = self.max_wall_ms.max(ms(answer.wall));
        self.total_wall_ms += ms(answer.wall);
        if let Some(cpu) = answer.cpu {
            self.max_cpu_ms = Some(self.max_cpu_ms.unwrap_or(0.0).max(ms(cpu)));
            self.total_cpu_ms = Some(self.total_cpu_ms.unwrap_or(0.0) + ms(cpu));
        }
        if used.as_secs_f64() > 0.8 * limit.as_secs_f64() {
            self.near_misses += 1;
        }
    }
}

fn max_option(a: Option<f64>, b: Option<f64>, f: impl Fn(f64, f64) -> f64) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(f(a, b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuel_buckets_are_a_sixteenth_of_a_power_of_two_and_merge() {
        for fuel in [0, 1, 15, 16, 17, 31, 32, 1000, 123_456_789, u64::MAX / 3] {
            let bucket = fuel_bucket(fuel);
            assert!(bucket_top(bucket) >= fuel, "{fuel}");
            assert!(bucket == 0 || bucket_top(bucket - 1) < fuel, "{fuel}");
            assert!(
                bucket_top(bucket) as f64 <= fuel as f64 * 1.07 + 1.0,
                "{fuel}"
            );
        }
        let (mut a, mut b) = (FuelStats::default(), FuelStats::default());
        for fuel in 1..=100 {
            a.record(fuel * 1000, Some(100_000));
        }
        b.record(5_000_000, Some(100_000));
        a.merge(&b);
        assert_eq!((a.answers, a.max, a.near_misses), (101, 5_000_000, 21));
        let median = a.quantile(0.5);
        assert!((51_000..=54_000).contains(&median), "{median}");
        assert_eq!(suggested_budget(5_000_000), 10_000_000);
        assert_eq!(suggested_budget(123_456), 250_000);
        assert!(a.summary().starts_with("median 5"), "{}", a.summary());
        assert_eq!(a.figures().max, 5_000_000);
        assert!(
            a.figures().shown.ends_with("/5M, 21 near"),
            "{}",
            a.figures().shown
        );
    }
}
