//! Nim, the example game added by ARCHITECTURE.md's recipe (its folder and one registry line):
//! a tournament plays it with its option from the tournament file, `results.json` holds what the
//! generic tools read, `koth replay --text` tells its games (answers, faults, stderr), and a bot whose
//! bot.toml does not list a game is refused by that game's command.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::tournament::{koth, query, repo, run_tournament};

/// A Nim bot folder named `name` playing `mode` (see tests/nim_bots/nim.py).
pub(crate) fn nim_bot(root: &Path, name: &str, mode: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(repo().join("tests/nim_bots/nim.py"), dir.join("nim.py")).unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = \"{name}\"\nrun = \"python3 nim.py {mode}\"\ngames = [\"nim\"]\n"),
    )
    .unwrap();
    dir
}

/// A tournament file in `dir` of `game` between `bots`, ending with `extra`.
fn tournament_file(dir: &Path, game: &str, bots: &[&Path], extra: &str) -> PathBuf {
    let list: Vec<String> = bots.iter().map(|b| format!("{b:?}")).collect();
    let path = dir.join("t.toml");
    let text = format!(
        "game = \"{game}\"\nbots = [{}]\ngames = 1\nsandbox = false\n{extra}",
        list.join(", ")
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_tournament_of_the_example_game_takes_its_option_from_the_file() {
    let root = tempfile::tempdir().unwrap();
    let perfect = nim_bot(root.path(), "perfect", "perfect");
    let greedy = nim_bot(root.path(), "greedy", "greedy");
    // A heap of 5: who moves first takes 1 and wins with perfect play; greedy always takes 3.
    let file = tournament_file(
        root.path(),
        "nim",
        &[&perfect, &greedy],
        "rounds = 4\n[options]\nheap = 5\n",
    );
    let out = root.path().join("t");
    run_tournament(&file, &out, &[]);
    assert_eq!(query(&out, "SELECT COUNT(*) FROM results"), 2);
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("games/0/results.json")).unwrap())
            .unwrap();
    assert_eq!(results["result"]["game"], "nim");
    let games = results["games"].as_array().unwrap();
    assert_eq!(games.len(), 4);
    // The bots take turns to move first, and perfect wins every game: as the first player it
    // takes 1 (leaving 4); as the second, greedy's 3 leaves it 2 to take.
    let firsts: Vec<&str> = games.iter().map(|g| g["first"].as_str().unwrap()).collect();
    assert_eq!(firsts[0], firsts[2]);
    assert_ne!(firsts[0], firsts[1]);
    for game in games {
        let (taken, winner) = if game["first"] == "perfect" {
            (serde_json::json!([1, 3, 1]), "first")
        } else {
            (serde_json::json!([3, 2]), "second")
        };
        assert_eq!(
            (&game["taken"], game["winner"].as_str()),
            (&taken, Some(winner)),
            "{game}"
        );
    }
    let score = |bot: &str| {
        results["result"]["bots"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == bot)
            .unwrap()["score"]
            .as_f64()
            .unwrap()
    };
    assert_eq!((score("perfect"), score("greedy")), (4.0, 0.0));

    // The replay hook: the text view tells each game in a line.
    let replay = koth()
        .arg("replay")
        .arg(out.join("games/0"))
        .arg("--text")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(replay.status.success(), "{text}");
    assert!(
        text.contains(": perfect moves first; taken 1 3 1; the first player wins"),
        "{text}"
    );
}

/// `koth replay --text` of a Nim match tells a game as the other games' text views tell a turn:
/// every answer with its time, the faults, and each bot's stderr lines.
#[test]
fn a_nim_game_s_text_replay_tells_its_answers_faults_and_stderr() {
    let root = tempfile::tempdir().unwrap();
    let perfect = nim_bot(root.path(), "perfect", "perfect");
    let greedy = nim_bot(root.path(), "greedy", "greedy");
    // A heap of 2: greedy's 3 is a fault in the game it opens.
    let file = tournament_file(
        root.path(),
        "nim",
        &[&perfect, &greedy],
        "rounds = 2\n[options]\nheap = 2\n",
    );
    let out = root.path().join("t");
    run_tournament(&file, &out, &[]);
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("games/0/results.json")).unwrap())
            .unwrap();
    let faulted = results["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["first"] == "greedy")
        .unwrap()["game"]
        .as_u64()
        .unwrap();
    let told = koth()
        .arg("replay")
        .arg(out.join("games/0"))
        .args(["--text", "--round", &faulted.to_string()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&told.stdout);
    assert!(told.status.success(), "{text}");
    assert!(text.starts_with("Nim: "), "{text}");
    assert!(
        text.contains(&format!("answers in game {faulted}:\n")),
        "{text}"
    );
    // Its one answer, with its time in ms: move, bot, ms, what it answered.
    let answer = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|w| w.len() == 4 && w[0] == "1" && w[1] == "greedy" && w[3] == "3")
        .unwrap_or_else(|| panic!("no answer of greedy's: {text}"));
    assert!(answer[2].parse::<u64>().is_ok(), "{answer:?}");
    assert!(
        text.contains(&format!("game {faulted} move 1: greedy bad_output: ")),
        "{text}"
    );
    assert!(text.contains("stderr: greedy:\n"), "{text}");
    assert!(text.contains("  heap 2: taking 3\n"), "{text}");
    assert!(
        text.contains("stderr: perfect:\n  heap 2: taking 2\n"),
        "{text}"
    );
}

#[test]
fn a_game_option_the_game_does_not_have_is_refused_by_name() {
    let root = tempfile::tempdir().unwrap();
    let a = nim_bot(root.path(), "a", "one");
    let b = nim_bot(root.path(), "b", "one");
    for (game, options, message) in [
        ("nim", "heap = 0", "[options]: `heap` = 0"),
        ("nim", "heap = 5\nmaps = []", "nim has no option `maps`"),
        (
            "tictactoe",
            "heap = 5",
            "tictactoe has no options, and `heap` is given",
        ),
    ] {
        let file = tournament_file(
            root.path(),
            game,
            &[&a, &b],
            &format!("[options]\n{options}\n"),
        );
        let out = root.path().join("t");
        let output = koth()
            .args(["tournament", "run"])
            .arg(&file)
            .arg("--dir")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{stderr}");
        assert!(!out.exists(), "no tournament folder for a refused file");
    }
}

#[test]
fn a_bot_that_does_not_list_the_game_is_refused_before_the_first_game() {
    let root = tempfile::tempdir().unwrap();
    let nim = nim_bot(root.path(), "nimmer", "one");
    let logs = root.path().join("logs");
    let output = koth()
        .args(["menace", "match", "--x", "random", "--o"])
        .arg(&nim)
        .arg("--log-dir")
        .arg(&logs)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bot \"nimmer\"") && stderr.contains("does not play tictactoe"),
        "{stderr}"
    );
    assert!(stderr.contains("--any-game"), "{stderr}");
    assert!(!logs.exists(), "nothing is written for a refused bot");
    // Said on purpose, the bot plays (and loses every game it cannot answer).
    let output = koth()
        .args([
            "tictactoe",
            "match",
            "--x",
            "random",
            "--games",
            "1",
            "--any-game",
            "--timeout-ms",
            "500",
            "--o",
        ])
        .arg(&nim)
        .arg("--log-dir")
        .arg(&logs)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let results = std::fs::read_to_string(logs.join("results.json")).unwrap();
    assert!(results.contains("\"nimmer\""), "{results}");
}
