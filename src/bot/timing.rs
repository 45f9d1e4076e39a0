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
}

fn is_zero(count: &u64) -> bool {
    *count == 0
}

impl AnswerStats {
    /// Adds another process's figures (a bot restarted every round) to these.
    pub(crate) fn merge(&mut self, other: &AnswerStats) {
        self.answers += other.answers;
        self.max_wall_ms = self.max_wall_ms.max(other.max_wall_ms);
        self.total_wall_ms += other.total_wall_ms;
        self.max_cpu_ms = max_option(self.max_cpu_ms, other.max_cpu_ms, f64::max);
        self.total_cpu_ms = max_option(self.total_cpu_ms, other.total_cpu_ms, |a, b| a + b);
        self.near_misses += other.near_misses;
        self.starved_timeouts += other.starved_timeouts;
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
