//! Running `koth ratrace` for a test: the real binary, real result files.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Runs `koth ratrace` with `args` into the log folder `log`; returns stdout and results.json.
pub fn ratrace(log: &Path, args: &[&str]) -> (String, Value) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_koth"));
    let output = super::cpus::own_cpu_locks(&mut command, log)
        .arg("ratrace")
        .args(args)
        .arg("--log-dir")
        .arg(log)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "koth failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let results = std::fs::read_to_string(log.join("results.json")).unwrap();
    (stdout, serde_json::from_str(&results).unwrap())
}

/// A rat-race run of one board, recorded, whose bot moves every specimen right for five turns
/// (saying so on stderr) and answers garbage in turn 6.
pub fn faulty_rat_race(dir: &Path) -> PathBuf {
    let log = dir.join("run");
    let player = format!(
        "python3 {} garbage 6",
        super::tournament::repo()
            .join("tests/ratrace_bots/faulty.py")
            .display()
    );
    let (_, results) = ratrace(
        &log,
        &[
            "--bot-cmd",
            &player,
            "--boards",
            "1",
            "--seed",
            "9",
            "--also-record",
            "1",
        ],
    );
    assert_eq!(results["boards"][0]["turns"], 6, "{results}");
    log
}
