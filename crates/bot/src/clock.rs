//! Time limits for a bot's answers and the clocks they are measured on.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The longest time limit koth takes, in milliseconds (an hour): a limit guards against a hung
/// bot, and deadlines are computed by adding limits to the clock.
pub const MAX_LIMIT_MS: u64 = 3_600_000;

/// Extra time for a process's first answer, which also pays for starting the process: an
/// interpreter or a JVM on a busy machine can take longer to start than a whole answer limit,
/// and arenas (CodinGame, Halite) give the first turn more time for the same reason.
pub(crate) const STARTUP_GRACE: Duration = Duration::from_secs(2);

/// What a bot must do once its game is over and its input closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ending {
    /// Exit within the exit limit: the game's protocol asks for it, and a late exit is a
    /// fault (`did not exit within …`).
    #[default]
    Exit,
    /// Nothing: the game's original protocol never asked its bots to exit (its server dropped
    /// them), and a bot written for it may loop on end of input. It still has the exit limit,
    /// then its processes are ended, and nothing is recorded against it.
    Dropped,
}

/// Time limits for one bot's answers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// From writing a prompt to reading the answer line.
    pub answer: Duration,
    /// From the last message (or end of input) to the process's exit.
    pub exit: Duration,
    /// Which clock `answer` is measured on.
    pub clock: Clock,
    /// The fuel (WebAssembly instructions, about one a nanosecond) a WASI bot may burn for an
    /// answer ([`super::wasm`]); `answer` stays its wall-clock backstop. Processes have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_fuel: Option<u64>,
    /// The fuel a WASI bot may burn from the end of its input to its exit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_fuel: Option<u64>,
}

/// The clock a time limit is measured on.
///
/// Wall time is what the original controllers used, and is right when each bot has a core to
/// itself. When games run in parallel, bots compete for cores and a slow wall clock punishes a
/// bot for its neighbours; CPU time (user + system, all the bot's threads, see [`cpu_time`])
/// measures only the bot's own work. A bot that sleeps or blocks uses no CPU, so the CPU clock
/// keeps a wall-clock backstop.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Clock {
    Wall,
    Cpu { backstop: Duration },
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            answer: Duration::from_secs(1),
            exit: Duration::from_secs(1),
            clock: Clock::Wall,
            answer_fuel: None,
            exit_fuel: None,
        }
    }
}

impl Limits {
    /// The same limit for answers and for exiting, as the original controllers had.
    pub fn uniform(limit: Duration) -> Limits {
        Limits {
            answer: limit,
            exit: limit,
            clock: Clock::Wall,
            answer_fuel: None,
            exit_fuel: None,
        }
    }
}

/// CPU time (user + system) used so far by process `pid`, every thread of it (a JVM's compiler
/// threads included) but not its children; `None` once the process is gone.
///
/// Read from the kernel's CPU-time clock of the process (`clock_getcpuclockid`), which counts in
/// nanoseconds: `/proc/<pid>/stat` counts in clock ticks of 10 ms, too coarse for answers that
/// take a few milliseconds, and reading it costs an open and a parse per answer.
pub fn cpu_time(pid: i32) -> Option<Duration> {
    let clock = nix::time::clock_getcpuclockid(nix::unistd::Pid::from_raw(pid)).ok()?;
    nix::time::clock_gettime(clock).ok().map(Duration::from)
}

/// CPU time (user + system) used so far by process `pid` and every process below it (its
/// children and theirs, found through `/proc/<pid>/task/<tid>/children`, and those it already
/// waited for, in whole clock ticks): what a bot without a control group of its own used in all.
/// A child that left the tree (a double-forked daemon) is not counted, but an uncontained bot's
/// daemon is outside every rule anyway.
pub(crate) fn tree_cpu_time(pid: i32) -> Option<Duration> {
    let mut total = cpu_time(pid)? + reaped_children_time(pid).unwrap_or_default();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Some(total);
    };
    for task in tasks.flatten() {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for child in children.split_whitespace().filter_map(|c| c.parse().ok()) {
            total += tree_cpu_time(child).unwrap_or_default();
        }
    }
    Some(total)
}

/// The CPU time of the children process `pid` has waited for (`cutime` + `cstime` of
/// `/proc/<pid>/stat`, in clock ticks).
fn reaped_children_time(pid: i32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command's name, which may itself hold spaces and parentheses.
    let fields: Vec<&str> = stat.rsplit_once(") ")?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(13)?.parse::<u64>().ok()? + fields.get(14)?.parse::<u64>().ok()?;
    let per_second = nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .filter(|&t| t > 0)? as u64;
    Some(Duration::from_nanos(ticks * 1_000_000_000 / per_second))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_counts_a_process_in_finer_steps_than_clock_ticks() {
        // This test's own process: spin until its CPU clock moves, and see it move by less than
        // the 10 ms a clock tick would show.
        let me = std::process::id() as i32;
        let start = cpu_time(me).expect("a live process has a CPU clock");
        let mut now = start;
        while now == start {
            now = cpu_time(me).expect("still alive");
        }
        assert!(now - start < Duration::from_millis(10), "{:?}", now - start);
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id() as i32;
        child.wait().unwrap();
        assert_eq!(cpu_time(gone), None, "a process reaped has no clock");
    }
}
