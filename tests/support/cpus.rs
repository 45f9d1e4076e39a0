//! What a test bot started in `cpus` mode reports: the CPUs it was allowed to run on
//! (`tests/ratrace_bots/off_the_edge.py cpus`, `tests/bots/faulty.py cpus`).

use std::path::{Path, PathBuf};

/// The CPUs listed on the `cpus …` line the player wrote to its stderr log at `log`.
pub fn reported_cpus(log: &Path) -> Vec<usize> {
    let text = std::fs::read_to_string(log).unwrap();
    let line = text.lines().find(|l| l.starts_with("cpus")).unwrap();
    line.split_whitespace()
        .skip(1)
        .map(|cpu| cpu.parse().unwrap())
        .collect()
}

/// `count` paths bot folders under `dir` (`cpus-0`, `cpus-1`, …), each with a bot.toml running
/// `tests/bots/faulty.py cpus`: bots that play quietly and report their CPUs.
#[allow(dead_code)] // not every test binary that includes this file plays paths
pub fn cpu_reporting_paths_bots(dir: &Path, count: usize) -> Vec<PathBuf> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bots/faulty.py");
    (0..count)
        .map(|i| {
            let bot = dir.join(format!("cpus-{i}"));
            std::fs::create_dir_all(&bot).unwrap();
            let manifest = format!(
                "name = \"Cpus {i}\"\nrun = \"python3 {} cpus\"\ngames = [\"paths\"]\n",
                script.display()
            );
            std::fs::write(bot.join("bot.toml"), manifest).unwrap();
            bot
        })
        .collect()
}
