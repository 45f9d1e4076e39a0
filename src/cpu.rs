//! Where koth's threads, and so the bots they start, run. A game that is one long exchange
//! between koth and a single bot (a rat-race board is 10,000 round trips) goes about twice as
//! fast with both on one CPU: on separate CPUs every turn wakes a sleeping CPU, which on a
//! virtual machine costs as much again as the turn's work, while on one CPU the two simply take
//! turns. A paths game on one CPU costs koth a quarter less per turn for the same reason. The
//! helpers are best effort: a refusal leaves things as they were.

use nix::sched::{CpuSet, sched_getaffinity, sched_setaffinity};
use nix::unistd::Pid;

/// The CPUs this thread may run on, in increasing order.
pub fn allowed() -> Vec<usize> {
    let Ok(set) = sched_getaffinity(Pid::from_raw(0)) else {
        return Vec::new();
    };
    (0..CpuSet::count())
        .filter(|&cpu| set.is_set(cpu).unwrap_or(false))
        .collect()
}

/// Reads a CPU number given on the command line, which must be one koth may run on.
pub(crate) fn parse_cpu(text: &str) -> Result<usize, String> {
    let cpu: usize = text
        .parse()
        .map_err(|_| format!("`{text}` is not a CPU number"))?;
    let allowed = allowed();
    if allowed.contains(&cpu) {
        Ok(cpu)
    } else {
        let list: Vec<String> = allowed.iter().map(usize::to_string).collect();
        Err(format!(
            "CPU {cpu} is not one koth may use here (these are: {})",
            list.join(", ")
        ))
    }
}

/// Keeps the calling thread on `cpus` (nothing changes for an empty list). Processes it starts
/// from now on inherit the placement.
pub(crate) fn pin_current_thread(cpus: &[usize]) {
    let mut set = CpuSet::new();
    for &cpu in cpus {
        if set.set(cpu).is_err() {
            return;
        }
    }
    if !cpus.is_empty() {
        let _ = sched_setaffinity(Pid::from_raw(0), &set);
    }
}

/// Runs `match_body` on a thread of its own, kept to `cpus` (anywhere, if empty), and awaits
/// its result. For a match that blocks its thread for its whole length (a rat-race engine) or
/// drives its bots from a runtime of its own (a paths game): the placement must not fall on a
/// thread of the caller's runtime, which other matches share.
pub(crate) async fn run_placed<T: Send + 'static>(
    cpus: Vec<usize>,
    match_body: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<T> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        pin_current_thread(&cpus);
        let _ = sender.send(match_body());
    });
    match receiver.await {
        Ok(result) => result,
        // The sender is dropped without a send only when the body panicked.
        Err(_) => anyhow::bail!("the match thread panicked"),
    }
}
