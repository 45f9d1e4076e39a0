//! Whether a late answer was koth's fault: a bot that waited for a CPU other programs held (a
//! second koth pinned to its CPU, a compiler) lost time it was owed, and its time-out must not
//! count against it.
//!
//! The rule, for a time-out on the wall clock (or the CPU clock's wall-clock backstop): from a
//! moment after the prompt ([`SAMPLE_AFTER`]) to the time-out, koth adds up
//! - how long koth's own thread was ready to run but waited for a CPU: its answer arrived but
//!   koth could not read it, and the bot cannot make koth wait (bots run as `SCHED_BATCH`, which
//!   a waking koth pre-empts at once);
//! - how long the bot's main thread was ready to run but waited for a CPU;
//!
//! each less the CPU time the bot's other threads and processes (its whole control group, or
//! its process tree) used meanwhile: a bot whose threads or children keep it, or koth, from the
//! CPU is the bot's own doing, and subtracting all of their time errs towards the bot's fault.
//!
//! When that sum is more than [`STARVED_SHARE`] of the time allowed, the time-out is koth's
//! (`BotError::Starved`): a tournament plays the game again. A bot that is simply slow waits
//! for no CPU, so its time-out stays its own, however loaded the machine; a bot that forks
//! children to spin beside it, pinned to koth's CPU, has their CPU time taken off both waits,
//! so its time-outs are its own too. The figures come from the kernel's run-queue accounting
//! (`/proc/<task>/schedstat`: time on a CPU and time waiting for one, in nanoseconds); where the
//! kernel gives none, every time-out is the bot's, as before.

use std::time::Duration;

/// How long after the prompt koth first reads the run-queue figures. Most answers come sooner
/// and cost nothing to check; a time-out's first moments are left out of the sum, which only
/// makes the rule stricter.
pub(crate) const SAMPLE_AFTER: Duration = Duration::from_millis(1);

/// A time-out is koth's fault when the wait for a CPU during it was more than this share of the
/// time allowed: two runs pinned to one CPU take half of it each, while a machine's ordinary
/// background takes a few percent.
pub(crate) const STARVED_SHARE: f64 = 0.25;

/// The run-queue figures of koth's thread and a bot at one moment.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Waits {
    /// Nanoseconds koth's thread has waited for a CPU.
    koth_waited: u64,
    /// Nanoseconds the bot's main thread has run and waited for a CPU.
    bot_ran: u64,
    bot_waited: u64,
    /// CPU time of the whole bot: every thread and process of it (its control group).
    bot_cpu: Duration,
}

impl Waits {
    /// The figures now, for the calling thread (the one awaiting the answer) and the bot whose
    /// main process is `pid` and whose processes have used `bot_cpu` in all; `None` where the
    /// kernel does not keep them or the bot is gone.
    pub(crate) fn now(pid: i32, bot_cpu: Duration) -> Option<Waits> {
        let (_, koth_waited) = schedstat("/proc/thread-self/schedstat")?;
        let (bot_ran, bot_waited) = schedstat(&format!("/proc/{pid}/schedstat"))?;
        Some(Waits {
            koth_waited,
            bot_ran,
            bot_waited,
            bot_cpu,
        })
    }

    /// How long koth and the bot `pid` waited for a CPU that others held since `self` was taken
    /// (see the module's rule); `None` if the figures cannot be read now.
    pub(crate) fn starved_since(&self, pid: i32, bot_cpu: Duration) -> Option<CpuWaits> {
        Some(self.starved_until(&Waits::now(pid, bot_cpu)?))
    }

    fn starved_until(&self, now: &Waits) -> CpuWaits {
        let ns = |later: u64, earlier: u64| Duration::from_nanos(later.saturating_sub(earlier));
        let bot_others = now
            .bot_cpu
            .saturating_sub(self.bot_cpu)
            .saturating_sub(ns(now.bot_ran, self.bot_ran));
        // Each wait less what the bot's own other threads and processes ran meanwhile: the
        // most of it they can explain, whichever CPU each was on.
        CpuWaits {
            koth: ns(now.koth_waited, self.koth_waited).saturating_sub(bot_others),
            bot: ns(now.bot_waited, self.bot_waited).saturating_sub(bot_others),
        }
    }
}

/// How long koth's thread and the bot's main thread each waited for a CPU that others held
/// during one answer (or exit). Each is one thread's wait within the time allowed, so never
/// more than it; the rule adds the two, so their sum may be, and a reason names them apart.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuWaits {
    pub koth: Duration,
    pub bot: Duration,
}

impl CpuWaits {
    fn total(self) -> Duration {
        self.koth + self.bot
    }
}

/// `the bot waited 1800 ms and koth 1775 ms`, as a starved time-out's reason says.
impl std::fmt::Display for CpuWaits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the bot waited {} ms and koth {} ms",
            self.bot.as_millis(),
            self.koth.as_millis()
        )
    }
}

/// Whether `waited` for a CPU out of `allowed` makes a time-out koth's fault.
pub(crate) fn starved(waited: CpuWaits, allowed: Duration) -> bool {
    waited.total().as_secs_f64() > STARVED_SHARE * allowed.as_secs_f64()
}

/// A task's time on a CPU and time waiting for one, in nanoseconds: the first two fields of a
/// `schedstat` file.
fn schedstat(path: &str) -> Option<(u64, u64)> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut fields = text.split_whitespace().map(|f| f.parse::<u64>().ok());
    Some((fields.next()??, fields.next()??))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn waits(koth_waited: u64, bot_ran: u64, bot_waited: u64, bot_cpu: u64) -> Waits {
        Waits {
            koth_waited: koth_waited * MS,
            bot_ran: bot_ran * MS,
            bot_waited: bot_waited * MS,
            bot_cpu: Duration::from_millis(bot_cpu),
        }
    }

    #[test]
    fn a_bot_kept_from_the_cpu_by_others_is_starved() {
        // Over a second: the bot ran 500 ms and waited 500 ms while another run had the CPU.
        let waited = waits(0, 0, 0, 0).starved_until(&waits(0, 500, 500, 500));
        assert_eq!(waited.total(), Duration::from_millis(500));
        assert!(starved(waited, Duration::from_secs(1)));
    }

    #[test]
    fn a_bot_kept_from_the_cpu_by_its_own_threads_is_not() {
        // Its main thread waited 600 ms while its other threads used 600 ms of CPU.
        let waited = waits(0, 0, 0, 0).starved_until(&waits(0, 400, 600, 1000));
        assert_eq!(waited.total(), Duration::ZERO);
        assert!(!starved(waited, Duration::from_secs(1)));
    }

    #[test]
    fn a_bot_whose_own_children_keep_it_and_koth_from_the_cpu_is_not() {
        // A bot pinned to koth's CPU with 8 spinning children, over 300 ms: koth's thread and
        // the bot's main thread waited nearly all of it, and the bot's processes used the CPU
        // they waited for. Judged on the main thread alone, it was "starved".
        let waited = waits(0, 0, 0, 0).starved_until(&waits(280, 30, 270, 300));
        assert_eq!(waited.total(), Duration::from_millis(10));
        assert!(!starved(waited, Duration::from_millis(300)));
    }

    #[test]
    fn koths_own_wait_counts_and_a_little_background_does_not() {
        let late_read = waits(10, 0, 0, 0).starved_until(&waits(400, 900, 0, 900));
        assert!(starved(late_read, Duration::from_secs(1)), "{late_read:?}");
        let background = waits(0, 0, 0, 0).starved_until(&waits(20, 950, 30, 950));
        assert!(
            !starved(background, Duration::from_secs(1)),
            "{background:?}"
        );
    }

    #[test]
    fn a_reason_names_each_wait_within_the_limit() {
        // Both threads kept from the CPU most of a 1000 ms answer: 1700 ms in all, but each
        // wait is within the limit, and the reason says each.
        let waited = waits(0, 0, 0, 0).starved_until(&waits(850, 150, 850, 150));
        assert!(starved(waited, Duration::from_secs(1)));
        let error = crate::BotError::Starved {
            limit: Duration::from_secs(1),
            waited,
        };
        assert_eq!(
            error.to_string(),
            "no answer within 1000 ms, but the bot waited 850 ms and koth 850 ms of that for \
             a CPU other programs held: koth's fault, not the bot's"
        );
    }

    #[test]
    fn this_kernel_keeps_the_figures() {
        assert!(Waits::now(std::process::id() as i32, Duration::ZERO).is_some());
    }
}
