//! Bounded records against a real hostile bot (`tests/bots/huge_lines.py`), which answers a line
//! of 1 MiB at every prompt, or at every prompt after a valid first one: whatever it sends, every
//! file koth writes stays under 8 MiB and koth under 256 MiB of memory, a fault reason quotes only
//! the start of the line with its length, and faults are counted exactly per bot and kind.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::paths_bots;
use paths_bots::script_bot;

const KOTH: &str = env!("CARGO_BIN_EXE_koth");
const FILE_LIMIT: u64 = 8 << 20;
const MEMORY_LIMIT_KIB: u64 = 256 << 10;
/// Prompts per round of a paths game of three bots: two phases of nine turns.
const PROMPTS_PER_ROUND: u64 = 18;

/// The two hostile bots and a polite one, in this order, as bot folders under `dir`.
fn bots(dir: &Path) -> Vec<PathBuf> {
    vec![
        script_bot(dir, "every", "Huge every", "huge_lines.py", "every"),
        script_bot(
            dir,
            "after_first",
            "Huge after first",
            "huge_lines.py",
            "after_first",
        ),
        script_bot(
            dir,
            "polite",
            "Polite",
            "faulty.py",
            "polite koth-test-bounded",
        ),
    ]
}

/// Runs koth with `args` under `/usr/bin/time`; returns its output and its peak memory in KiB.
/// The peak is the largest of koth's and of every process it waited for (its bots): an honest
/// upper bound of koth's own.
fn koth_measured(args: &[&str]) -> (Output, u64) {
    let dir = tempfile::tempdir().unwrap();
    let peak = dir.path().join("peak");
    let output = Command::new("/usr/bin/time")
        .args(["-f", "%M", "-o"])
        .arg(&peak)
        .arg(KOTH)
        .args(args)
        .output()
        .expect("GNU time at /usr/bin/time measures koth's memory");
    assert!(
        output.status.success(),
        "koth {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let peak = std::fs::read_to_string(&peak).unwrap();
    (output, peak.trim().parse().unwrap())
}

/// Every file under `dir`, with its size; asserts each is under [`FILE_LIMIT`].
fn assert_every_file_small(dir: &Path) -> usize {
    let mut files = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files += assert_every_file_small(&path);
        } else {
            let size = std::fs::metadata(&path).unwrap().len();
            assert!(size < FILE_LIMIT, "{} is {size} bytes", path.display());
            files += 1;
        }
    }
    files
}

/// A fault reason for the huge line quotes its first 200 bytes, cut before the character byte
/// 200 is in, and its length.
fn assert_quotes_the_huge_line(reason: &str) {
    let quoted = format!("\"x{}…\" (1048575 bytes)", "é".repeat(99));
    assert!(reason.contains(&quoted), "{reason}");
    assert!(reason.len() < 400, "{} bytes", reason.len());
}

#[test]
fn a_paths_game_with_bots_answering_a_megabyte_at_every_prompt_keeps_small_exact_records() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = bots(tmp.path());
    let out = tmp.path().join("out");
    // Five rounds: enough for koth to have needed far more than 256 MiB when it kept every
    // line it was sent in its fault reasons.
    let rounds = 5;
    let mut args = vec![
        "paths",
        "--rounds",
        "5",
        "--seed",
        "4",
        "--timeout-ms",
        "2000",
    ];
    args.extend(["--log-dir", out.to_str().unwrap()]);
    for bot in &bots {
        args.extend(["--bot", bot.to_str().unwrap()]);
    }
    let (output, peak) = koth_measured(&args);
    assert!(peak < MEMORY_LIMIT_KIB, "koth peaked at {peak} KiB");
    assert!(
        assert_every_file_small(&out) >= 8,
        "the game wrote its files"
    );

    let every = rounds * PROMPTS_PER_ROUND;
    let after_first = every - rounds;
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let counts = |bad_output: u64| {
        serde_json::json!({"timed_out": 0, "crashed": 0, "bad_output": bad_output,
                           "failed_to_start": 0, "benched": 0})
    };
    assert_eq!(
        results["fault_counts"],
        serde_json::json!([counts(every), counts(after_first), counts(0)])
    );
    let faults = results["faults"].as_array().unwrap();
    assert_eq!(faults.len(), 20, "the first ten of each kind per bot");
    for fault in faults {
        assert_quotes_the_huge_line(fault["reason"].as_str().unwrap());
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    for count in [every, after_first] {
        assert!(
            stdout.contains(&format!("{count}  {count} bad_output")),
            "{stdout}"
        );
    }

    // The transcript keeps the start of every huge answer with its length...
    let transcript = std::fs::read_to_string(out.join("transcripts/after_first.txt")).unwrap();
    assert_eq!(
        transcript.matches("… [koth: 1048575 bytes, cut]\n").count() as u64,
        after_first
    );
    // ... and driving the bot with it compares those answers by their start and length.
    let after_first_dir = bots[1].to_str().unwrap();
    let args = ["replay", out.to_str().unwrap(), "--drive", after_first_dir];
    let (output, _) = koth_measured(&[&args[..], &["--as", "Huge after first"]].concat());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!(
            "{after_first} recorded answer(s) were too long to keep whole"
        )) && stdout.contains("identical"),
        "{stdout}"
    );
}

#[test]
fn a_tournament_with_bots_answering_a_megabyte_at_every_prompt_keeps_small_exact_records() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = bots(tmp.path());
    let file = tmp.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"paths\"\nbots = {bots:?}\ngames = 2\nrounds = 2\njobs = 2\nanswer_ms = 2000\n"
        ),
    )
    .unwrap();
    let out = tmp.path().join("t");
    let (_, peak) = koth_measured(&[
        "tournament",
        "run",
        file.to_str().unwrap(),
        "--dir",
        out.to_str().unwrap(),
        "--seed",
        "2",
    ]);
    assert!(peak < MEMORY_LIMIT_KIB, "koth peaked at {peak} KiB");
    assert!(
        assert_every_file_small(&out) >= 2 * 8,
        "the games wrote their files"
    );

    // Each bot plays both games of two rounds.
    let every = 2 * 2 * PROMPTS_PER_ROUND;
    let (output, _) = koth_measured(&["leaderboard", "--format", "json", out.to_str().unwrap()]);
    let board: Value = serde_json::from_slice(&output.stdout).unwrap();
    for standing in board["standings"].as_array().unwrap() {
        let bad_output = match standing["name"].as_str().unwrap() {
            "Huge every" => every,
            "Huge after first" => every - 2 * 2,
            _ => 0,
        };
        assert_eq!(
            standing["faults"],
            serde_json::json!({"timed_out": 0, "crashed": 0, "bad_output": bad_output,
                               "failed_to_start": 0, "benched": 0}),
            "{standing}"
        );
    }
    let db = rusqlite::Connection::open(out.join("results.sqlite")).unwrap();
    let mut kept = db
        .prepare("SELECT faults FROM results WHERE bad_output_faults > 0")
        .unwrap();
    let lists: Vec<String> = kept
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(lists.len(), 4, "two hostile bots in two games");
    for list in lists {
        let faults: Vec<Value> = serde_json::from_str(&list).unwrap();
        assert_eq!(faults.len(), 10, "the first ten bad outputs of the game");
        for fault in faults {
            assert_quotes_the_huge_line(fault["reason"].as_str().unwrap());
        }
    }
}
