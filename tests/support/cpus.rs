//! What a test bot started in `cpus` mode reports: the CPUs it was allowed to run on
//! (`tests/ratrace_bots/off_the_edge.py cpus`, `tests/bots/faulty.py cpus`).

use std::path::Path;

/// The CPUs listed on the `cpus …` line the player wrote to its stderr log at `log`.
pub fn reported_cpus(log: &Path) -> Vec<usize> {
    let text = std::fs::read_to_string(log).unwrap();
    let line = text.lines().find(|l| l.starts_with("cpus")).unwrap();
    line.split_whitespace()
        .skip(1)
        .map(|cpu| cpu.parse().unwrap())
        .collect()
}
