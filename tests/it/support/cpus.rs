//! What a test bot started in `cpus` mode reports: the CPUs it was allowed to run on
//! (`tests/ratrace_bots/off_the_edge.py cpus`, `tests/bots/faulty.py cpus`).

use std::path::Path;
use std::process::Command;

/// Gives a koth run the CPU locks of its test, in `dir` (a folder of the test's own): koth
/// processes claim the CPUs they pin to in `$XDG_RUNTIME_DIR/koth`, and a test that checks
/// where its bots ran must not find its CPUs taken by the tests running beside it.
pub fn own_cpu_locks<'c>(command: &'c mut Command, dir: &Path) -> &'c mut Command {
    command.env("XDG_RUNTIME_DIR", dir)
}

/// The CPUs listed on the `cpus …` line the player wrote to its stderr log at `log`.
pub fn reported_cpus(log: &Path) -> Vec<usize> {
    let text = std::fs::read_to_string(log).unwrap();
    let line = text.lines().find(|l| l.starts_with("cpus")).unwrap();
    line.split_whitespace()
        .skip(1)
        .map(|cpu| cpu.parse().unwrap())
        .collect()
}

/// The stderr files of a match's bots in its log folder `log_dir` (`stderr/<bot>.log`, one per
/// seat), by name.
pub fn stderr_logs(log_dir: &Path) -> Vec<std::path::PathBuf> {
    let mut logs: Vec<_> = std::fs::read_dir(log_dir.join("stderr"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    logs.sort();
    logs
}
