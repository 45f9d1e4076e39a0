//! Noughts & crosses with real bot processes: the sample bots, and small bots under
//! `tests/menace_bots/` that move illegally, crash or answer too late.

use std::path::PathBuf;
use std::process::Command;

use koth::bot::BotStatus;
use koth::bot::{FaultKind, Limits};
use koth::game::MatchSetup;

fn koth_menace(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_koth"))
        .arg("menace")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("koth runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{args:?}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The lines reporting a game lost by a fault.
fn fault_lines(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| l.starts_with("game ") && l.contains("lost by fault"))
        .collect()
}

#[test]
fn an_illegal_move_loses_the_game_with_its_reason() {
    let out = koth_menace(&[
        "match",
        "--x",
        "menace",
        "--o",
        "tests/menace_bots/illegal",
        "--games",
        "3",
        "--seed",
        "5",
        "--timeout-ms",
        "10000",
    ]);
    // The bot always answers the centre, so each game its second answer is on a taken square
    // (or its first, if MENACE took the centre).
    let faults = fault_lines(&out);
    assert_eq!(faults.len(), 3, "{out}");
    for line in faults {
        assert!(line.contains("X wins"), "{line}");
        assert!(
            line.contains("answered \"4\" as O: square 4 is taken"),
            "{line}"
        );
    }
    assert!(out.contains("X MENACE wins 3"), "{out}");
}

#[test]
fn a_crash_loses_the_game_and_the_bot_restarts_for_the_next() {
    let out = koth_menace(&[
        "match",
        "--x",
        "random",
        "--o",
        "tests/menace_bots/crash",
        "--games",
        "2",
        "--seed",
        "5",
        "--timeout-ms",
        "10000",
    ]);
    let faults = fault_lines(&out);
    assert_eq!(faults.len(), 2, "{out}");
    for line in faults {
        // Whether the exit status is in before koth gives up waiting for it depends on the
        // machine's load; either way it is a crash while an answer was expected.
        assert!(
            line.contains("at move 2: exited") || line.contains("at move 2: closed its stdout"),
            "{line}"
        );
        assert!(line.contains("while an answer was expected"), "{line}");
        // Restarted: the second game's fault is its own, not "stopped earlier".
        assert!(!line.contains("stopped earlier"), "{line}");
    }
}

#[test]
fn a_slow_bot_loses_by_timeout() {
    let out = koth_menace(&[
        "match",
        "--x",
        "perfect",
        "--o",
        "tests/menace_bots/slow",
        "--games",
        "2",
        "--seed",
        "5",
        "--timeout-ms",
        "400",
    ]);
    let faults = fault_lines(&out);
    assert_eq!(faults.len(), 2, "{out}");
    for line in faults {
        assert!(line.contains("no answer within 400 ms"), "{line}");
        assert!(!line.contains("stopped earlier"), "{line}");
    }
    assert!(out.contains("faults: 2"), "{out}");
}

#[test]
fn sample_bots_never_lose_to_random_and_draw_each_other() {
    let out = koth_menace(&[
        "match",
        "--x",
        "bots/ttt-python",
        "--o",
        "bots/ttt-js",
        "--games",
        "2",
        "--seed",
        "5",
        "--timeout-ms",
        "10000",
    ]);
    assert!(out.contains("faults: 0"), "{out}");
    assert!(out.contains("draws 2"), "{out}");
    let out = koth_menace(&[
        "match",
        "--x",
        "random",
        "--o",
        "bots/ttt-js",
        "--games",
        "10",
        "--seed",
        "5",
        "--timeout-ms",
        "10000",
    ]);
    assert!(out.contains("faults: 0"), "{out}");
    assert!(out.contains("X random wins 0"), "{out}");
}

#[test]
fn training_against_perfect_learns_to_draw() {
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("curve.svg");
    let out = koth_menace(&[
        "train",
        "--games",
        "1000",
        "--opponent",
        "perfect",
        "--block",
        "500",
        "--seed",
        "2",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    let rows: Vec<Vec<u32>> = out
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| {
            l.split_whitespace()
                .skip(1)
                .map(|w| w.parse().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert_eq!(rows[0][0] + rows[1][0], 0, "nobody beats perfect: {out}");
    assert!(rows[0][2] > 0, "untrained MENACE loses some: {out}");
    assert!(rows[1][2] < rows[0][2], "and learns: {out}");
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("polyline"), "{svg}");
}

/// The tournament side: two bot folders through `Game`, sides swapped every game.
#[test]
fn tictactoe_game_scores_wins_and_half_draws_and_records_faults() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bots = vec![
        koth::bot::roster::load_bot(&root.join("bots/ttt-python")).unwrap(),
        koth::bot::roster::load_bot(&root.join("tests/menace_bots/illegal")).unwrap(),
    ];
    let log_dir = tempfile::tempdir().unwrap();
    let setup = MatchSetup {
        rounds: Some(4),
        ..MatchSetup::new(
            bots,
            9,
            log_dir.path().to_path_buf(),
            Limits::uniform(std::time::Duration::from_secs(10)),
        )
    };
    let game = crate::support::koth_game("tictactoe");
    let runtime = koth::game::runtime().unwrap();
    let result = runtime.block_on(game.play(&setup)).unwrap();
    let [python, centre] = &result.bots[..] else {
        panic!("two results")
    };
    // The centre bot either plays an illegal centre or loses to win-or-block; it never scores.
    assert_eq!(centre.score, 0.0, "{result:?}");
    assert_eq!(python.score, 4.0, "{result:?}");
    assert_eq!(centre.status, BotStatus::BadOutput);
    assert!(!centre.faults.is_empty());
    for fault in &centre.faults {
        assert_eq!(fault.kind, FaultKind::BadOutput);
        assert!(fault.round.is_some() && fault.turn.is_some());
        assert!(fault.reason.contains("is taken"), "{fault:?}");
    }
    assert!(python.faults.is_empty());
    assert!(log_dir.path().join("stderr/illegal.log").exists());
}

/// In a tournament a match keeps to one CPU of its share, with both bots.
#[test]
fn a_tictactoe_match_keeps_to_one_cpu_of_its_share() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let log_dir = tempfile::tempdir().unwrap();
    // Both seats are the same bot, staged twice as a tournament does.
    let mut bots = Vec::new();
    for seat in ["x", "o"] {
        let dir = log_dir.path().join(seat);
        std::fs::create_dir_all(&dir).unwrap();
        for file in ["bot.toml", "first_free.py"] {
            let from = root.join("tests/menace_bots/cpus").join(file);
            std::fs::copy(from, dir.join(file)).unwrap();
        }
        let mut bot = koth::bot::roster::load_bot(&dir).unwrap();
        bot.name = format!("Cpus {seat}");
        bots.push(bot);
    }
    let cpus = koth::base::cpu::allowed();
    let setup = MatchSetup {
        rounds: Some(2),
        cpus: cpus.clone(),
        ..MatchSetup::new(
            bots,
            9,
            log_dir.path().to_path_buf(),
            Limits::uniform(std::time::Duration::from_secs(10)),
        )
    };
    let game = crate::support::koth_game("tictactoe");
    let runtime = koth::game::runtime().unwrap();
    runtime.block_on(game.play(&setup)).unwrap();
    for seat in ["x", "o"] {
        let log = log_dir.path().join(format!("stderr/{seat}.log"));
        let text = std::fs::read_to_string(&log).unwrap();
        let line = text.lines().find(|l| l.starts_with("cpus")).unwrap();
        assert_eq!(line, format!("cpus {}", cpus[0]), "{seat}");
    }
}

#[test]
fn alternating_games_say_which_side_was_x_and_which_o() {
    let tmp = tempfile::tempdir().unwrap();
    let output = crate::support::tournament::koth()
        .args(["menace", "match", "--x", "random", "--o", "perfect"])
        .args(["--games", "2", "--alternate", "--seed", "1", "--dir"])
        .arg(tmp.path().join("out"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("game 1 (X random, O perfect): "),
        "{stdout}"
    );
    assert!(
        stdout.contains("game 2 (X perfect, O random): "),
        "{stdout}"
    );
}

#[test]
fn two_bots_of_one_name_are_refused_before_either_is_built() {
    let tmp = tempfile::tempdir().unwrap();
    let output = crate::support::tournament::koth()
        .args(["menace", "match", "--games", "2"])
        .args(["--x", "bots/ttt-js", "--o", "bots/ttt-js", "--dir"])
        .arg(tmp.path().join("out"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("two bots are called \"Fork Hunter (JS)\"")
            && stderr.contains("names must be unique"),
        "{stderr}"
    );
    assert!(
        !tmp.path().join("out").exists(),
        "no log folder for a refused match"
    );
}
