//! `koth ratrace` end to end: real processes, real result files.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::support::cpus;
use crate::support::ratrace;
use cpus::{reported_cpus, stderr_logs};
use ratrace::ratrace;

fn koth() -> Command {
    Command::new(env!("CARGO_BIN_EXE_koth"))
}

/// Runs `koth ratrace` with `args` into a fresh log folder; returns stdout and results.json.
fn run(args: &[&str]) -> (String, Value) {
    ratrace(tempfile::tempdir().unwrap().path(), args)
}

/// The command running the test player `tests/ratrace_bots/<script>` in `mode`.
fn test_bot(script: &str, mode: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/ratrace_bots")
        .join(script);
    format!("python3 {} {mode}", script.display())
}

fn faulty(mode: &str) -> String {
    test_bot("faulty.py", mode)
}

/// A bad answer on board 0 ends that board with an error naming the player, board, turn and
/// what was wrong; board 1 is played by a new process and ends normally.
fn check_fault(mode: &str, extra: &[&str], kind: &str, expected: &str) {
    let command = faulty(mode);
    let mut args = vec!["--bot-cmd", &command, "--boards", "2", "--seed", "9"];
    args.extend_from_slice(extra);
    let (stdout, results) = run(&args);
    let boards = results["boards"].as_array().unwrap();
    assert_eq!(boards.len(), 2);
    let error = boards[0]["error"]
        .as_str()
        .expect("board 0 records an error");
    assert!(
        error.contains("faulty.py") && error.contains("board 0, turn 1"),
        "{error}"
    );
    assert!(error.contains(expected), "{error}");
    assert_eq!(boards[0]["fault_kind"], kind);
    assert_eq!(boards[0]["turns"], 1);
    assert!(stdout.contains("ERROR: "), "{stdout}");
    assert!(boards[1]["error"].is_null(), "{}", boards[1]);
    assert_eq!(boards[1]["turns"], 1);
    assert_eq!(boards[1]["points"], 1);
    assert_eq!(results["faults"], 1);
}

#[test]
fn a_wrong_number_of_moves_ends_the_board() {
    check_fault(
        "count",
        &[],
        "bad_output",
        "answered 14 moves for 15 specimens",
    );
}

#[test]
fn a_move_out_of_range_ends_the_board() {
    check_fault("range", &[], "bad_output", "move 1 is \"2,0\"");
}

#[test]
fn garbage_ends_the_board() {
    check_fault("garbage", &[], "bad_output", "move 1 is \"hello\"");
}

#[test]
fn a_crash_ends_the_board() {
    check_fault("crash", &[], "crashed", "exited");
}

#[test]
fn a_late_answer_ends_the_board() {
    // The first answer of a process also gets the bot layer's start-up grace on top of 300 ms.
    check_fault(
        "slow",
        &["--timeout-ms", "300"],
        "timed_out",
        "no answer within",
    );
}

#[test]
fn boards_score_the_same_whatever_the_number_of_jobs() {
    let points = |jobs: &str| {
        let (_, results) = run(&[
            "--player",
            "colorscore",
            "--boards",
            "3",
            "--seed",
            "11",
            "--jobs",
            jobs,
        ]);
        let boards = results["boards"].as_array().unwrap().clone();
        boards
            .iter()
            .map(|b| (b["seed"].as_u64().unwrap(), b["points"].as_u64().unwrap()))
            .collect::<Vec<_>>()
    };
    let one = points("1");
    assert_eq!(one.len(), 3);
    assert_eq!(one, points("2"));
}

#[test]
fn the_c_sample_player_plays_a_whole_board() {
    let bot = Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/ratrace-colorscore-c");
    let (stdout, results) = run(&[
        "--bot",
        bot.to_str().unwrap(),
        "--boards",
        "1",
        "--seed",
        "1",
        "--plot",
    ]);
    let board = &results["boards"][0];
    assert!(board["error"].is_null(), "{board}");
    assert_eq!(board["turns"], 10_000, "{stdout}");
    assert_eq!(results["player"], "ColorScore (C)");
}

#[test]
fn a_board_counts_the_cpu_time_of_its_bot() {
    let command = test_bot("off_the_edge.py", "busy");
    // A generous limit: on a loaded machine the bot's start and its 0.3 s of CPU can take more
    // than a second of wall time, and this test is about the count, not the limit.
    let (stdout, results) = run(&[
        "--bot-cmd",
        &command,
        "--boards",
        "2",
        "--seed",
        "3",
        "--timeout-ms",
        "10000",
    ]);
    // The bot's 0.3 s of CPU on the board's one turn is in the board's CPU time, which koth's
    // own share (a track and one turn) barely adds to.
    for board in results["boards"].as_array().unwrap() {
        let cpu = board["cpu_seconds"].as_f64().unwrap();
        let wall = board["seconds"].as_f64().unwrap();
        assert!((0.28..0.6).contains(&cpu), "{board}");
        assert!(cpu <= wall + 0.02, "{board}");
    }
    assert!(stdout.contains("per board: wall median"), "{stdout}");
}

/// The CPUs each job's bot process may run on, from the stderr logs of a two-job run.
fn bot_cpus(extra: &[&str]) -> Vec<Vec<usize>> {
    let command = test_bot("off_the_edge.py", "cpus");
    let logs = tempfile::tempdir().unwrap();
    let mut args = vec!["--bot-cmd", &command, "--boards", "2", "--jobs", "2"];
    args.extend_from_slice(extra);
    ratrace(logs.path(), &args);
    // A seat per job, each with its stderr file.
    let seats = stderr_logs(logs.path());
    assert_eq!(seats.len(), 2, "{seats:?}");
    seats.iter().map(|log| reported_cpus(log)).collect()
}

#[test]
fn each_job_and_its_bot_get_a_cpu_of_their_own_unless_told_not_to() {
    let available = std::thread::available_parallelism().unwrap().get();
    let pinned = bot_cpus(&[]);
    if available >= 2 {
        assert_eq!(pinned[0].len(), 1, "{pinned:?}");
        assert_eq!(pinned[1].len(), 1, "{pinned:?}");
        assert_ne!(pinned[0], pinned[1]);
    } else {
        // Not enough CPUs for a job each: the scheduler places them.
        assert_eq!(pinned[0].len(), available, "{pinned:?}");
    }
    for cpus in bot_cpus(&["--no-pin"]) {
        assert_eq!(cpus.len(), available, "{cpus:?}");
    }
}

#[test]
fn dump_track_prints_the_board_track() {
    let output = koth()
        .args(["ratrace", "--seed", "5", "--dump-track", "2"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.starts_with("seed 5\nboard 2 seed "), "{text}");
    let hex_rows = text
        .lines()
        .filter(|l| l.len() == 55 && l[2..].chars().all(|c| c.is_ascii_hexdigit()))
        .count();
    assert_eq!(hex_rows, 15, "{text}");
    assert!(text.contains("start cells: "));
}
