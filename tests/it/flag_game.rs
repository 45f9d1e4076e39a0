//! `koth flag` end to end: the real binary, the shipped levels and real bot processes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn koth(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_koth"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("koth runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn level(name: &str) -> String {
    format!("levels/flag/{name}.txt")
}

#[test]
fn exact_prints_the_optimum_and_proves_the_unsolvable_level() {
    let out = koth(&["flag", "exact", &level("5-seed-6x6")]);
    assert!(out.status.success());
    assert!(
        stdout(&out).contains("solved in 37 moves"),
        "{}",
        stdout(&out)
    );
    let out = koth(&["flag", "exact", &level("unsolvable-seed-flag-by-start")]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("has no solution"), "{}", stdout(&out));
}

#[test]
fn solve_runs_the_ga_writes_plot_and_history_and_compares_with_the_optimum() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().to_str().unwrap();
    let args = [
        "flag",
        "solve",
        "levels/flag/1-ring.txt",
        "--seed",
        "5",
        "--no-animate",
        "--log-dir",
        logs,
    ];
    let out = koth(&args);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("seed 5"), "{text}");
    assert!(text.contains("solved at generation"), "{text}");
    assert!(text.contains("solved in 8 moves (shortest)"), "{text}");
    let svg = std::fs::read_to_string(dir.path().join("progress.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.contains("fitness"));
    let history = std::fs::read_to_string(dir.path().join("history.csv")).unwrap();
    assert!(history.starts_with("generation,best_fitness,best_steps,restarted\n0,"));
    // The same seed gives the same run.
    let again = koth(&args);
    assert_eq!(stdout(&again), text);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("history.csv")).unwrap(),
        history
    );
}

#[test]
fn a_broken_level_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.txt");
    std::fs::write(&path, "flag-value -3\ns1F\n1x1\n").unwrap();
    let out = koth(&["flag", "exact", path.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.txt") && err.contains("line 3"), "{err}");
}

#[test]
fn the_sample_bot_solves_every_solvable_level() {
    let dir = tempfile::tempdir().unwrap();
    let levels: Vec<String> = [
        "1-ring",
        "2-dark-centre",
        "3-grey-pillars",
        "4-hollow",
        "5-seed-6x6",
        "unsolvable-seed-flag-by-start",
    ]
    .iter()
    .map(|l| level(l))
    .collect();
    let mut args = vec!["flag", "play"];
    args.extend(levels.iter().map(String::as_str));
    // The unsolvable level's search takes the solver some 0.9 s of CPU: 20 s, not the default
    // 5, so that a loaded machine's wait for a CPU (4.2 s of 5 in one CI run) cannot end it.
    args.extend([
        "--bot",
        "bots/flag-solver-py",
        "--log-dir",
        dir.path().to_str().unwrap(),
        "--timeout-ms",
        "20000",
    ]);
    let out = koth(&args);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("5 of 6 levels solved (finished)"), "{text}");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("results.json")).unwrap())
            .unwrap();
    let per_level = results["levels"].as_array().unwrap();
    assert_eq!(per_level.len(), 6);
    assert!(per_level[..5].iter().all(|l| l["solved"] == true));
    assert_eq!(per_level[5]["solved"], false);
    assert_eq!(per_level[5]["moves"], "");
    assert!(
        results["result"]["bots"][0]["faults"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

/// A bot folder running `script` with bash.
pub(crate) fn script_bot(root: &Path, name: &str, script: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bot.sh"), script).unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = \"{name}\"\nrun = \"bash bot.sh\"\ngames = [\"flag\"]\n"),
    )
    .unwrap();
    dir
}

/// Plays the two easy levels with `bot`; returns koth's output and results.json.
pub(crate) fn play_with(bot: &Path, logs: &Path) -> (String, serde_json::Value) {
    let out = koth(&[
        "flag",
        "play",
        &level("1-ring"),
        &level("2-dark-centre"),
        "--bot",
        bot.to_str().unwrap(),
        "--timeout-ms",
        "500",
        "--log-dir",
        logs.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "a bot's fault is not koth's error: {text}"
    );
    let results =
        serde_json::from_str(&std::fs::read_to_string(logs.join("results.json")).unwrap()).unwrap();
    (text, results)
}

#[test]
fn garbage_timeouts_and_crashes_are_recorded_faults() {
    let root = tempfile::tempdir().unwrap();
    // Answers every level with a letter that is not a move.
    let garbage = script_bot(
        root.path(),
        "garbage",
        "while read -r line; do [ \"$line\" = SOLVE ] && echo DURX; done\n",
    );
    // Solves the first level, then never answers again.
    let sleeper = script_bot(
        root.path(),
        "sleeper",
        "n=0; while read -r line; do if [ \"$line\" = SOLVE ]; then n=$((n+1)); \
         if [ $n = 1 ]; then echo DURRDDLL; else sleep 30; fi; fi; done\n",
    );
    // Dies before answering.
    let crasher = script_bot(
        root.path(),
        "crasher",
        "read -r line; echo oops >&2; exit 3\n",
    );

    let (text, results) = play_with(&garbage, &root.path().join("g"));
    let bot = &results["result"]["bots"][0];
    assert_eq!(bot["faults"][0]["kind"], "bad_output", "{text}");
    let reason = bot["faults"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("'X'") && reason.contains("1-ring"),
        "{reason}"
    );
    assert_eq!(bot["score"], 0.0);
    assert_eq!(bot["status"], "bad_output");

    let (text, results) = play_with(&sleeper, &root.path().join("s"));
    let bot = &results["result"]["bots"][0];
    assert_eq!(bot["faults"][0]["kind"], "timed_out", "{text}");
    assert_eq!(bot["faults"][0]["round"], 2);
    assert_eq!(
        bot["score"], 1.0,
        "the first level was solved before the timeout"
    );

    let (text, results) = play_with(&crasher, &root.path().join("c"));
    let bot = &results["result"]["bots"][0];
    assert_eq!(bot["faults"][0]["kind"], "crashed", "{text}");
    let reason = bot["faults"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("oops"), "{reason}");
}
