//! Where koth's threads, and so the bots they start, run. A game that is one long exchange
//! between koth and a single bot (a rat-race board is 10,000 round trips) goes about twice as
//! fast with both on one CPU: on separate CPUs every turn wakes a sleeping CPU, which on a
//! virtual machine costs as much again as the turn's work, while on one CPU the two simply take
//! turns. Both helpers are best effort: a refusal leaves things as they were.

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

/// Keeps the calling thread on `cpu`. Processes it starts from now on inherit the placement.
pub fn pin_current_thread(cpu: usize) {
    let mut one = CpuSet::new();
    if one.set(cpu).is_ok() {
        let _ = sched_setaffinity(Pid::from_raw(0), &one);
    }
}
