//! One spelling for one thing, across every command: the address a server listens on is
//! `--serve ADDR` (with `--addr` its other name) wherever koth serves, and a fault kind is spelled
//! in snake case (`crashed`, `bad_output`, `timed_out`) in every help, report, transcript and
//! message, the hill's refusal of a version included.

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::tournament::koth;

/// Every command path of koth (`[]`, `["paths"]`, `["hill", "run"]`…), from its help's command
/// lists.
fn commands() -> Vec<Vec<String>> {
    let mut found = vec![Vec::new()];
    let mut next = 0;
    while next < found.len() {
        let path = found[next].clone();
        next += 1;
        let help = help(&path);
        let Some((_, list)) = help.split_once("Commands:\n") else {
            continue;
        };
        for line in list.lines() {
            // The list ends at the first line not indented as a command's.
            let Some(entry) = line.strip_prefix("  ") else {
                break;
            };
            let Some(name) = entry.split_whitespace().next() else {
                break;
            };
            if name == "help" || entry.starts_with(' ') {
                continue;
            }
            let name = name.trim_end_matches(',');
            let mut sub = path.clone();
            sub.push(name.to_string());
            found.push(sub);
        }
    }
    found
}

fn help(path: &[String]) -> String {
    let output = koth().args(path).arg("--help").output().unwrap();
    assert!(output.status.success(), "koth {path:?} --help failed");
    String::from_utf8(output.stdout).unwrap()
}

/// Words that spell a fault kind another way than the one every output uses.
const OTHER_SPELLINGS: &[&str] = &[
    "Crashed",
    "BadOutput",
    "TimedOut",
    "FailedToStart",
    "bad output",
    "timed out",
    "bad-output",
    "timed-out",
];

#[test]
fn every_command_names_its_address_serve_and_spells_fault_kinds_one_way() {
    let commands = commands();
    let names: BTreeSet<String> = commands.iter().map(|c| c.join(" ")).collect();
    for expected in [
        "serve",
        "tournament run",
        "tournament resume",
        "hill run",
        "paths",
    ] {
        assert!(
            names.contains(expected),
            "no `koth {expected}` in {names:?}"
        );
    }
    let mut serving = Vec::new();
    for path in &commands {
        let help = help(path);
        for other in OTHER_SPELLINGS {
            assert!(
                !help.contains(other),
                "`koth {} --help` spells a fault kind {other:?}",
                path.join(" ")
            );
        }
        if help.contains("ADDR") {
            serving.push(path.join(" "));
            assert!(
                (help.contains("--serve <ADDR>") || help.contains("--serve [<ADDR>]"))
                    && help.contains("[alias: --addr]"),
                "`koth {} --help` takes an address but not as --serve (alias --addr):\n{help}",
                path.join(" ")
            );
        }
    }
    assert!(serving.len() >= 4, "{serving:?}");
    // Either name works, on every command that serves: `koth serve --addr` as before.
    for flag in ["--serve", "--addr"] {
        let output = koth()
            .args(["serve", "/nonexistent-koth-folder", flag, "not-an-address"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !output.status.success() && stderr.contains("invalid value 'not-an-address'"),
            "{flag}: {stderr}"
        );
    }
}

#[test]
fn every_output_folder_is_dir_and_every_hill_command_takes_hill() {
    for path in commands() {
        let help = help(&path);
        let name = path.join(" ");
        // A folder of outputs is `--dir DIR`, never another word (`--log-dir` kept as an alias).
        if help.contains("outputs go") {
            assert!(
                help.contains("--dir <DIR>") && help.contains("[alias: --log-dir]"),
                "`koth {name} --help` names its output folder otherwise:\n{help}"
            );
        }
        assert!(
            !help.contains("--log-dir <"),
            "`koth {name}` spells its folder --log-dir"
        );
        // Every hill command that opens a hill folder takes it as `--hill DIR`.
        let opens_a_hill = path.len() >= 2
            && path[0] == "hill"
            && !["create", "submit", "data", "logs", "author"].contains(&path[1].as_str());
        if opens_a_hill {
            assert!(
                help.contains("--hill <DIR>"),
                "`koth {name}` does not take --hill DIR:\n{help}"
            );
        }
    }
    // The recording flags of the rat race differ by more than a letter.
    let ratrace = help(&["ratrace".to_string()]);
    assert!(
        ratrace.contains("--record-boards <NAME>") && ratrace.contains("--also-record <N>"),
        "{ratrace}"
    );
    // The older names still work.
    let tmp = tempfile::tempdir().unwrap();
    for flag in ["--dir", "--log-dir"] {
        let dir = tmp.path().join(flag.trim_start_matches('-'));
        let output = koth()
            .args([
                "menace", "match", "--x", "random", "--o", "random", "--games", "1",
            ])
            .args(["--seed", "1", flag])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(output.status.success(), "{flag}: {output:?}");
        assert!(dir.join("results.json").is_file(), "{flag}");
    }
}

/// A bot folder `root/<folder>` named `name` for `game`, running `script` with Python.
fn python_bot(
    root: &Path,
    folder: &str,
    name: &str,
    game: &str,
    script: &str,
) -> std::path::PathBuf {
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bot.py"), script).unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = {name:?}\nrun = \"python3 bot.py\"\ngames = [\"{game}\"]\n"),
    )
    .unwrap();
    dir
}

fn assert_one_spelling(what: &str, text: &str) {
    for other in OTHER_SPELLINGS {
        assert!(
            !text.contains(other),
            "{what} spells a kind {other:?}:\n{text}"
        );
    }
}

/// A game's report, results and transcripts, and the hill's refusal of a version, spell each
/// fault kind as `results.json` does.
#[test]
fn every_output_spells_a_fault_kind_as_results_do() {
    let root = tempfile::tempdir().unwrap();
    let crash = "import sys\nsys.stdin.readline()\nsys.exit(3)\n";
    let garbage = "import sys\nfor line in sys.stdin:\n    \
                   if line.startswith(('DESTROY', 'ACTIVATE')):\n        \
                   print('garbage', flush=True)\n";
    let crashing = python_bot(root.path(), "crash", "Crash", "paths", crash);
    let babbling = python_bot(root.path(), "garbage", "Garbage", "paths", garbage);
    let log = root.path().join("game");
    let output = koth()
        .args(["paths", "--rounds", "1", "--seed", "1", "--log-dir"])
        .arg(&log)
        .arg("--bot")
        .arg(&crashing)
        .arg("--bot")
        .arg(&babbling)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{report}");
    assert!(
        report.contains(": crashed: DESTROY 0: exited") && report.contains(": bad_output: "),
        "{report}"
    );
    assert_one_spelling("the report", &report);
    let results = std::fs::read_to_string(log.join("results.json")).unwrap();
    assert!(results.contains("\"crashed\"") && results.contains("\"bad_output\""));
    let transcript = std::fs::read_to_string(log.join("transcripts/crash.txt")).unwrap();
    assert!(transcript.contains(" crashed: exited"), "{transcript}");
    assert_one_spelling("a transcript", &transcript);

    // The hill refuses a version whose validation game had faults, naming the first.
    let file = root.path().join("hill.toml");
    std::fs::write(&file, "game = \"tictactoe\"\nrounds = 2\nseed = 3\n").unwrap();
    let hill = root.path().join("hill");
    let created = koth()
        .args(["hill", "create"])
        .arg(&file)
        .arg("--dir")
        .arg(&hill)
        .status()
        .unwrap();
    assert!(created.success());
    let crashing = python_bot(root.path(), "ttt-crash", "Crash", "tictactoe", crash);
    let output = crate::hill::hill_command(&hill)
        .args(["hill", "add"])
        .arg(&crashing)
        .arg("--hill")
        .arg(&hill)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!output.status.success(), "{said}");
    assert!(said.contains("had faults: crashed: "), "{said}");
    assert_one_spelling("the hill's refusal", &said);
}

/// Every count of a game's own command says in its help what one is: `--rounds` of paths, the
/// `--games` of noughts & crosses, the rat race's `--boards`, Mad Cars' `--matches`.
#[test]
fn every_count_flag_says_what_one_is() {
    let mut counts = Vec::new();
    for path in commands() {
        let help = help(&path);
        for (flag, unit) in [
            ("--rounds <N>", "round"),
            ("--games <N>", "game"),
            ("--boards <N>", "board"),
            ("--matches <N>", "match"),
        ] {
            let Some((_, after)) = help.split_once(flag) else {
                continue;
            };
            // The flag's own description: up to the next option.
            let said = after.split("\n  -").next().unwrap_or(after);
            let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                said.contains(&format!("one {unit} is")),
                "`koth {} {flag}` does not say what one {unit} is: {said}",
                path.join(" ")
            );
            counts.push(format!("{} {flag}", path.join(" ")));
        }
    }
    assert!(counts.len() >= 4, "{counts:?}");
}

/// One numbering: a fault is at the same round and turn, counted from 1, in the game's report,
/// `koth replay --drive`, `koth replay --round R --turn T --text` and the web page, though paths
/// stores both from 0. The bot printed a debug line before its answer: the fault says where
/// debug output goes, and the transcript keeps the answer it dropped.
#[test]
fn a_fault_is_at_one_round_and_turn_everywhere() {
    let root = tempfile::tempdir().unwrap();
    // A debug line before its answer at the third DESTROY (`DESTROY 2`) of the first round
    // only: the first time, it leaves a mark in its folder.
    let debugging = "import os, sys\n\
                     mark = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'faulted')\n\
                     for line in sys.stdin:\n    \
                     words = line.split()\n    \
                     if words and words[0] in ('DESTROY', 'ACTIVATE'):\n        \
                     if words[0] == 'DESTROY' and words[1] == '2' and not os.path.exists(mark):\n            \
                     open(mark, 'w').close()\n            \
                     print('thinking about turn 2')\n        \
                     print('NONE', flush=True)\n";
    let quiet = "import sys\nfor line in sys.stdin:\n    \
                 if line.startswith(('DESTROY', 'ACTIVATE')):\n        \
                 print('NONE', flush=True)\n";
    let bot = python_bot(root.path(), "debugging", "Debugging", "paths", debugging);
    let other = python_bot(root.path(), "quiet", "Quiet", "paths", quiet);
    let log = root.path().join("game");
    let output = koth()
        .args(["paths", "--rounds", "2", "--seed", "1", "--dir"])
        .arg(&log)
        .arg("--bot")
        .arg(&bot)
        .arg("--bot")
        .arg(&other)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{report}");
    // Stored from 0: round 0, turn 2 (of the 4 turns of two bots' rounds).
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(log.join("results.json")).unwrap()).unwrap();
    let fault = &results["faults"][0];
    assert_eq!(
        (&fault["round"], &fault["turn"]),
        (&0.into(), &2.into()),
        "{results}"
    );
    assert_eq!(results["faults"].as_array().unwrap().len(), 1, "{results}");
    // Read from 1: round 1, turn 3, and where debug output goes.
    assert!(
        report.contains(
            "Debugging (round 1, turn 3): bad_output: DESTROY 2: expected `VERTEX x,y` or \
             `NONE`, got \"thinking about turn 2\" (an answer is one line on stdout; debug \
             output goes to stderr)"
        ),
        "{report}"
    );
    // The answer it printed after the debug line was dropped, and its transcript shows it.
    let transcript = std::fs::read_to_string(log.join("transcripts/debugging.txt")).unwrap();
    assert!(
        transcript.contains("< ") && transcript.contains("# dropped, printed unasked: NONE\n"),
        "{transcript}"
    );

    // Driven by a bot that answers NONE throughout, it differs there first.
    let drive = koth()
        .args(["replay", "--as", "Debugging", "--drive"])
        .arg(&other)
        .arg(&log)
        .output()
        .unwrap();
    let driven = String::from_utf8_lossy(&drive.stdout);
    assert!(!drive.status.success(), "{driven}");
    assert!(
        driven.contains("round 1, turn 3 (transcript line "),
        "{driven}"
    );
    // Only round 1 is compared when asked: the same place; rounds count from 1.
    let drive = koth()
        .args(["replay", "--as", "Debugging", "--round", "1", "--drive"])
        .arg(&other)
        .arg(&log)
        .output()
        .unwrap();
    let driven = String::from_utf8_lossy(&drive.stdout);
    assert!(
        driven.contains("round 1, turn 3 (transcript line "),
        "{driven}"
    );
    let drive = koth()
        .args(["replay", "--as", "Debugging", "--round", "0", "--drive"])
        .arg(&other)
        .arg(&log)
        .output()
        .unwrap();
    let refused = String::from_utf8_lossy(&drive.stderr);
    assert!(
        !drive.status.success() && refused.contains("--round counts from 1"),
        "{refused}"
    );

    // The text replay of round 1 just after turn 3 shows the fault in that turn.
    let replay = koth()
        .args(["replay", "--round", "1", "--turn", "3", "--text"])
        .arg(&log)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(replay.status.success(), "{text}");
    assert!(
        text.starts_with("Round 1 of 2, after turn 3 of 4"),
        "{text}"
    );
    assert!(
        text.contains("faults in turn 3 (1 in the game)") && text.contains("thinking about"),
        "{text}"
    );
    // Round 2 has no fault, and there is no round 3.
    let replay = koth()
        .args(["replay", "--round", "2", "--turn", "3", "--text"])
        .arg(&log)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(
        text.starts_with("Round 2 of 2, after turn 3 of 4"),
        "{text}"
    );
    assert!(!text.contains("thinking about"), "{text}");
    let replay = koth()
        .args(["replay", "--round", "3", "--text"])
        .arg(&log)
        .output()
        .unwrap();
    let refused = String::from_utf8_lossy(&replay.stderr);
    assert!(
        refused.contains("no round 3: the log has rounds 1 to 2"),
        "{refused}"
    );

    // The web page, drawn by headless Chromium, opened where the report placed the fault:
    // round 1 just after turn 3, with the fault listed at that place.
    let page = root.path().join("page.html");
    let written = koth()
        .args(["replay", "--html"])
        .arg(&page)
        .arg(&log)
        .output()
        .unwrap();
    assert!(written.status.success(), "{written:?}");
    let url = format!("file://{}?round=1&turn=3", page.display());
    let profile = root.path().join("chromium-profile");
    let dom = crate::replay::chromium(&profile, &["--dump-dom"], &url);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(dom.contains(r#"<span id="round">1</span>"#), "{dom}");
    assert!(dom.contains(r#"<span id="turn">3</span>"#), "{dom}");
    assert!(dom.contains("Answers in turn 3"), "{dom}");
    assert!(dom.contains("round 1 turn 3: Debugging"), "{dom}");
}
