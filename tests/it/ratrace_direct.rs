//! The rat race's direct call (issue 31, point 5): a WASI module whose move function koth calls
//! per specimen, with no text. The sample `bots/wasi/ratrace-colorscore`, built by its build
//! step, scores what the built-in `colorscore-first` scores, board by board; a hostile module
//! (a move that never returns, traps, answers no move, sleeps, allocates or writes to stderr
//! without end) ends each board with a bounded fault and its reason while the run goes on; a module without the move
//! function is refused before any board.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::tournament::{koth, leaderboard, repo, run_tournament, succeed};

/// `koth ratrace` with `args` into `log`, with koth's cache folder beside it.
fn ratrace(log: &Path, args: &[&str]) -> Output {
    koth()
        .env("XDG_CACHE_HOME", log.parent().unwrap().join("cache"))
        .arg("ratrace")
        .args(args)
        .args(["--no-pin", "--log-dir"])
        .arg(log)
        .output()
        .unwrap()
}

/// The boards of a successful run.
fn boards(log: &Path, args: &[&str]) -> Vec<Value> {
    let output = ratrace(log, args);
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(log.join("results.json")).unwrap()).unwrap();
    results["boards"].as_array().unwrap().clone()
}

/// A copy of the sample `bots/wasi/ratrace-colorscore` in `root`, its sources only.
fn sample(root: &Path) -> PathBuf {
    let bot = root.join("ratrace-colorscore");
    std::fs::create_dir_all(&bot).unwrap();
    for file in ["bot.toml", "colorscore.c"] {
        let from = repo().join("bots/wasi/ratrace-colorscore").join(file);
        std::fs::copy(from, bot.join(file)).unwrap();
    }
    bot
}

#[test]
fn the_sample_through_the_direct_call_scores_as_the_built_in_player_board_by_board() {
    let root = tempfile::tempdir().unwrap();
    let bot = sample(root.path());
    let seeded = ["--boards", "4", "--seed", "5"];
    let built_in = boards(
        &root.path().join("built-in"),
        &[&["--player", "colorscore-first"], &seeded[..]].concat(),
    );
    let bot_arg = bot.to_str().unwrap();
    let direct = boards(
        &root.path().join("direct"),
        &[
            &["--bot", bot_arg, "--answer-fuel", "100000000"],
            &seeded[..],
        ]
        .concat(),
    );
    assert!(bot.join("colorscore.wasm").is_file(), "built by its step");
    let points = |boards: &[Value]| -> Vec<(u64, u64)> {
        boards
            .iter()
            .map(|b| (b["seed"].as_u64().unwrap(), b["points"].as_u64().unwrap()))
            .collect()
    };
    assert_eq!(points(&direct), points(&built_in));
    assert!(direct.iter().all(|b| b["error"].is_null()), "{direct:?}");
    // Boards that go somewhere, so the test says something; no text crossed.
    assert!(
        points(&built_in).iter().any(|&(_, p)| p > 100),
        "{:?}",
        points(&built_in)
    );
    assert!(direct.iter().all(|b| b["bytes_sent"].is_null()));
}

/// A bot folder `root/name` of the hostile player built with `-D<define>`.
fn hostile(root: &Path, name: &str, define: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    succeed(
        Command::new("clang")
            .args(["--target=wasm32-wasi", "-O2", "-mexec-model=reactor"])
            .arg(format!("-D{define}"))
            .arg("-o")
            .arg(dir.join("bot.wasm"))
            .arg(repo().join("tests/wasi_bots/ratrace_hostile.c")),
    );
    std::fs::write(
        dir.join("bot.toml"),
        format!(
            "name = \"{name}\"\nwasm = \"bot.wasm\"\ngames = [\"ratrace\"]\n\n\
             [protocols]\nratrace = \"direct\"\n"
        ),
    )
    .unwrap();
    dir
}

/// A hostile player's case: its name, its misdeed (`-D`), koth's limits, and the fault's kind
/// and words of its reason.
type Case<'a> = (&'a str, &'a str, &'a [&'a str], &'a str, &'a [&'a str]);

#[test]
fn a_hostile_direct_player_ends_each_board_with_a_bounded_fault_and_the_run_goes_on() {
    let root = tempfile::tempdir().unwrap();
    let fuel = ["--answer-fuel", "20000000", "--timeout-ms", "5000"];
    let cases: [Case; 7] = [
        (
            "loop",
            "LOOP",
            &fuel,
            "timed_out",
            &["ran out of fuel", "budget of 20000000 fuel"],
        ),
        (
            "loop-unmetered",
            "LOOP",
            &["--timeout-ms", "200"],
            "timed_out",
            &["no answer within 200 ms"],
        ),
        ("trap", "TRAP", &fuel, "crashed", &["unreachable"]),
        (
            "invalid",
            "INVALID",
            &fuel,
            "bad_output",
            &["ratrace_move answered 9 for specimen 1 of 15"],
        ),
        (
            "allocate",
            "ALLOCATE",
            &fuel,
            "crashed",
            &["memory cap of 1024 MiB"],
        ),
        // A sleep would hold the job's thread beyond the time limit's reach.
        ("sleep", "SLEEP", &fuel, "crashed", &["poll_oneoff"]),
        // Each byte written costs a fuel.
        (
            "stderr",
            "STDERR",
            &fuel,
            "timed_out",
            &["budget of 20000000 fuel"],
        ),
    ];
    let runs: Vec<Vec<Value>> = std::thread::scope(|scope| {
        let runs: Vec<_> = cases
            .iter()
            .map(|&(name, define, limits, _, _)| {
                let root = root.path();
                scope.spawn(move || {
                    let bot = hostile(root, name, define);
                    let mut args = vec!["--bot", bot.to_str().unwrap(), "--boards", "2"];
                    args.extend(limits);
                    boards(&root.join(format!("run-{name}")), &args)
                })
            })
            .collect();
        runs.into_iter().map(|run| run.join().unwrap()).collect()
    });
    for ((name, _, _, kind, words), boards) in cases.iter().zip(runs) {
        let stderr = root.path().join(format!("run-{name}/stderr/{name}.log"));
        let stderr_bytes = std::fs::metadata(&stderr).unwrap().len();
        assert!(
            stderr_bytes <= (1 << 20) + 100,
            "{name}: {stderr_bytes} bytes"
        );
        // Both boards were played, each ended in turn 1 by the fault, with its reason.
        assert_eq!(boards.len(), 2, "{name}");
        for board in &boards {
            assert_eq!(board["fault_kind"], *kind, "{name}: {board}");
            assert_eq!(board["turns"], 1, "{name}: {board}");
            let error = board["error"].as_str().unwrap();
            assert!(error.len() < 600, "{name}: {error}");
            for word in *words {
                assert!(error.contains(word), "{name}: {error}");
            }
        }
    }
}

#[test]
fn a_module_without_the_move_function_is_refused_before_any_board() {
    let root = tempfile::tempdir().unwrap();
    let bot = hostile(root.path(), "missing", "MISSING");
    let log = root.path().join("run");
    let output = ratrace(&log, &["--bot", bot.to_str().unwrap(), "--boards", "2"]);
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("bot.toml"), "{said}");
    assert!(
        said.contains("exports no function `ratrace_move`"),
        "{said}"
    );
    assert!(!log.exists(), "nothing written: {said}");
    // A process bot cannot ask for the direct call.
    let process = root.path().join("process");
    std::fs::create_dir_all(&process).unwrap();
    std::fs::write(
        process.join("bot.toml"),
        "name = \"process\"\nrun = \"true\"\ngames = [\"ratrace\"]\n\n[protocols]\nratrace = \"direct\"\n",
    )
    .unwrap();
    let output = ratrace(&log, &["--bot", process.to_str().unwrap()]);
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("bot.toml"), "{said}");
    assert!(said.contains("`wasm = \"bot.wasm\"`"), "{said}");
}

#[test]
fn a_tournament_plays_direct_players_and_counts_their_faults() {
    let root = tempfile::tempdir().unwrap();
    let bots = [sample(root.path()), hostile(root.path(), "trap", "TRAP")];
    let file = root.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"ratrace\"\nbots = {bots:?}\nplayers_per_game = 1\ngames = 2\nrounds = 2\n\
             jobs = 1\nanswer_fuel = 100000000\n"
        ),
    )
    .unwrap();
    let out = root.path().join("t");
    run_tournament(&file, &out, &["--seed", "1"]);
    let board = leaderboard(&out);
    let standing = |name: &str| {
        board["standings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {board}"))
            .clone()
    };
    let sample = standing("ColorScore direct (WASI)");
    assert_eq!(sample["finished"], 1, "{sample}");
    let trap = standing("trap");
    // A fault per board, each ending its board; the game was played to its end.
    assert_eq!(trap["faults"]["crashed"], 2, "{trap}");
    assert_eq!(board["games_done"], 2, "{board}");
}
