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

/// A bad answer on the first board ends that board with an error naming the player, board (from
/// 1, as a person counts), turn and what was wrong; the second is played by a new process and
/// ends normally.
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
        error.contains("faulty.py") && error.contains("board 1, turn 1"),
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
fn lean_answers_are_checked_move_by_move() {
    let lean = ["--protocol", "lean"];
    check_fault(
        "lean-count",
        &lean,
        "bad_output",
        "answered 14 characters for 15 specimens: \"33333333333333\"",
    );
    check_fault(
        "lean-range",
        &lean,
        "bad_output",
        "move 1 is \"9\", not a digit 0 to 8",
    );
    check_fault("lean-garbage", &lean, "bad_output", "move 1 is \"h\"");
}

#[test]
fn an_unknown_protocol_is_one_error_naming_the_bot() {
    let output = koth()
        .args(["ratrace", "--bot-cmd", "true", "--protocol", "fast"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bot \"true\"")
            && stderr
                .contains("the rat race has no protocol \"fast\" (there are: text, lean, direct)"),
        "{stderr}"
    );
}

/// Compiles the sample C bot in `folder` (its source `source`) into `into`; returns the binary.
fn compile_sample(folder: &str, source: &str, into: &Path) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("bots")
        .join(folder);
    let binary = into.join(folder);
    let status = Command::new("gcc")
        .args(["-O2", "-o"])
        .arg(&binary)
        .arg(dir.join(source))
        .status()
        .unwrap();
    assert!(status.success(), "gcc failed on {folder}/{source}");
    binary.to_str().unwrap().to_string()
}

/// The same boards, played by one deterministic ColorScore (ties to the first tied move)
/// built in, as a C bot through the text protocol, and as a C bot through the lean protocol:
/// the same points board by board, and the lean protocol sends a fraction of the bytes.
#[test]
fn the_same_game_built_in_and_through_either_protocol() {
    let bins = tempfile::tempdir().unwrap();
    let text = format!(
        "{} first",
        compile_sample("ratrace-colorscore-c", "colorscore.c", bins.path())
    );
    let lean = format!(
        "{} first",
        compile_sample("ratrace-lean-c", "lean.c", bins.path())
    );
    let boards = |args: &[&str]| {
        let mut args = args.to_vec();
        args.extend(["--boards", "4", "--seed", "5"]);
        let (stdout, results) = run(&args);
        assert_eq!(results["faults"], 0, "{stdout}");
        results["boards"].as_array().unwrap().clone()
    };
    let points = |boards: &[Value]| -> Vec<u64> {
        boards
            .iter()
            .map(|b| b["points"].as_u64().unwrap())
            .collect()
    };
    let bytes = |boards: &[Value]| -> u64 {
        boards
            .iter()
            .map(|b| b["bytes_sent"].as_u64().unwrap())
            .sum()
    };
    let built_in = boards(&["--player", "colorscore-first"]);
    let through_text = boards(&["--bot-cmd", &text]);
    let through_lean = boards(&["--bot-cmd", &lean, "--protocol", "lean"]);
    assert_eq!(points(&through_text), points(&built_in));
    assert_eq!(points(&through_lean), points(&built_in));
    // Boards that go somewhere, so the test says something.
    assert!(
        points(&built_in).iter().any(|&p| p > 100),
        "{:?}",
        points(&built_in)
    );
    assert!(built_in.iter().all(|b| b["bytes_sent"].is_null()));
    let (text_bytes, lean_bytes) = (bytes(&through_text), bytes(&through_lean));
    assert!(
        lean_bytes * 4 <= text_bytes,
        "lean {lean_bytes} bytes, text {text_bytes}"
    );
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
    // Board 2 is the second: the seed stored for board 1 (from 0) in a run of seed 5.
    let run = koth()
        .args([
            "ratrace",
            "--player",
            "colorscore",
            "--boards",
            "2",
            "--seed",
            "5",
        ])
        .output()
        .unwrap();
    let run = String::from_utf8(run.stdout).unwrap();
    let dumped = text
        .lines()
        .nth(1)
        .unwrap()
        .trim_start_matches("board 2 seed ");
    let second = run
        .lines()
        .find(|l| l.starts_with("board   2 seed "))
        .unwrap_or_else(|| panic!("{run}"));
    assert!(
        second.contains(&format!(" seed {dumped:>20} ")),
        "{second} / {dumped}"
    );
    let zero = koth()
        .args(["ratrace", "--seed", "5", "--dump-track", "0"])
        .output()
        .unwrap();
    assert!(!zero.status.success());
    assert!(
        String::from_utf8_lossy(&zero.stderr).contains("--dump-track 0: boards count from 1"),
        "{zero:?}"
    );
    let hex_rows = text
        .lines()
        .filter(|l| l.len() == 55 && l[2..].chars().all(|c| c.is_ascii_hexdigit()))
        .count();
    assert_eq!(hex_rows, 15, "{text}");
    assert!(text.contains("start cells: "));
}
