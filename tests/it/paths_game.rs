//! Whole games of `koth paths` with the real sample bots, in throw-away copies of the bot folders
//! (each game empties and writes the bots' data.txt, so parallel tests must not share them).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::support::arena;
use arena::arena;

use crate::support::cpus;
use crate::support::paths_bots;
use cpus::{own_cpu_locks, reported_cpus};
use paths_bots::cpu_reporting_paths_bots;

const KOTH: &str = env!("CARGO_BIN_EXE_koth");

fn koth(dir: &Path, args: &[&str]) -> Output {
    own_cpu_locks(&mut Command::new(KOTH), dir)
        .arg("paths")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// Plays a game in `dir` and returns its log folder; generous time limits keep a loaded
/// machine from turning into faults.
fn play(dir: &Path, extra: &[&str]) -> PathBuf {
    let out = dir.join("out");
    let mut args = vec!["--rounds", "3", "--timeout-ms", "10000", "--log-dir"];
    args.push(out.to_str().unwrap());
    args.extend(extra);
    let output = koth(dir, &args);
    assert!(
        output.status.success(),
        "koth failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    out
}

fn results(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap()
}

fn numbers(value: &Value) -> Vec<u64> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

#[test]
fn a_game_among_the_sample_bots_leaves_consistent_outputs() {
    let arena = arena();
    let data = arena.path().join("bots/paths-random-builder/data.txt");
    std::fs::write(&data, "100").unwrap();
    let out = play(arena.path(), &["--seed", "11"]);
    // The bot counts rounds in data.txt: emptied when the game starts, kept between rounds.
    assert_eq!(std::fs::read_to_string(&data).unwrap(), "3");
    let results = results(&out);
    let names: Vec<&str> = results["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 4, "every sample bot plays");
    let points: Vec<Vec<u64>> = results["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(numbers)
        .collect();
    assert_eq!(points.len(), 3);
    let totals = numbers(&results["totals"]);
    for (bot, total) in totals.iter().enumerate() {
        assert_eq!(*total, points.iter().map(|p| p[bot]).sum::<u64>());
    }
    assert!(
        totals.iter().sum::<u64>() > 0,
        "the sample bots build paths"
    );
    assert_eq!(
        results["faults"],
        Value::Array(vec![]),
        "sample bots commit no fault"
    );

    let log = std::fs::read_to_string(out.join("graphical_log.txt")).unwrap();
    let side = results["side"].as_u64().unwrap() as usize;
    assert_eq!(side, 21);
    let round_results: Vec<Vec<u64>> = log
        .lines()
        .filter_map(|l| l.strip_prefix("  Results: "))
        .map(|l| l.split(' ').map(|p| p.parse().unwrap()).collect())
        .collect();
    assert_eq!(round_results, points);
    let grid_rows = log
        .lines()
        .filter(|l| l.len() == side + 2 && !l.contains(':') && !l.contains("Round"))
        .count();
    assert_eq!(grid_rows, 3 * side, "one S-row grid per round");
    let final_part = log.split("Final results:\n").nth(1).unwrap();
    for (name, total) in names.iter().zip(&totals) {
        assert!(
            final_part.contains(&format!("  {name}: {total}\n")),
            "{log}"
        );
    }
    for folder in [
        "paths-random-builder",
        "paths-column",
        "paths-destroyer",
        "paths-checkpoint",
    ] {
        assert!(out.join("stderr").join(format!("{folder}.log")).is_file());
    }
}

#[test]
fn the_same_seed_replays_the_same_game() {
    let (first, second) = (arena(), arena());
    let a = play(first.path(), &["--seed", "5"]);
    let b = play(second.path(), &["--seed", "5"]);
    assert_eq!(results(&a)["points"], results(&b)["points"]);
    assert_eq!(results(&a)["totals"], results(&b)["totals"]);
    assert_eq!(
        std::fs::read_to_string(a.join("graphical_log.txt")).unwrap(),
        std::fs::read_to_string(b.join("graphical_log.txt")).unwrap()
    );
}

#[test]
fn the_original_bots_txt_format_is_read() {
    let arena = arena();
    let out = play(arena.path(), &["--bots-file", "bots.txt", "--seed", "3"]);
    let results = results(&out);
    assert_eq!(
        results["bots"],
        serde_json::json!(["Random Builder", "Column", "Destroyer", "Checkpoint"]),
        "bot-list order is the file's order"
    );
    assert_eq!(results["faults"], Value::Array(vec![]));
}

#[test]
fn malformed_and_off_grid_answers_are_faults_but_the_bot_plays_on() {
    let arena = arena();
    let bad = arena.path().join("bots/bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(
        bad.join("bot.toml"),
        "name = \"Bad\"\nrun = \"bash bad.sh\"\ngames = [\"paths\"]\n",
    )
    .unwrap();
    // Off the grid when destroying, gibberish when activating, exits on SCORE.
    std::fs::write(
        bad.join("bad.sh"),
        "while read -r w rest; do case $w in DESTROY) echo 'VERTEX 99,0';; \
         ACTIVATE) echo 'build please';; SCORE) exit 0;; esac; done\n",
    )
    .unwrap();
    let out = play(
        arena.path(),
        &[
            "--bot",
            "bots/bad",
            "--bot",
            "bots/paths-checkpoint",
            "--seed",
            "1",
        ],
    );
    let results = results(&out);
    // 2 bots: 4 turns × 2 phases × 3 rounds, every answer a fault, none stopping the bot; all
    // are counted, the first ten kept.
    assert_eq!(results["fault_counts"][0]["bad_output"], 24, "{results}");
    let faults = results["faults"].as_array().unwrap().clone();
    assert_eq!(faults.len(), 10, "{faults:?}");
    assert!(
        faults
            .iter()
            .all(|f| f["bot"] == "Bad" && f["kind"] == "bad_output")
    );
    let reasons: Vec<&str> = faults
        .iter()
        .map(|f| f["reason"].as_str().unwrap())
        .collect();
    assert!(reasons.contains(&"DESTROY 0: VERTEX 99,0 is off the grid (x and y run from 0 to 4)"));
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with("ACTIVATE 3: ") && r.contains("\"build please\""))
    );
}

fn fails_with(dir: &Path, args: &[&str], expected: &[&str]) {
    let output = koth(dir, args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "koth should fail for {args:?}");
    for part in expected {
        assert!(stderr.contains(part), "{part:?} not in {stderr:?}");
    }
}

#[test]
fn bad_bot_lists_fail_with_a_message_naming_the_culprit() {
    let arena = arena();
    let dir = arena.path();
    std::fs::write(dir.join("missing.txt"), "Ghost\nno-such-folder\n./ghost\n").unwrap();
    fails_with(
        dir,
        &["--bots-file", "missing.txt"],
        &["missing.txt:2", "Ghost", "does not exist"],
    );

    std::fs::write(
        dir.join("incomplete.txt"),
        "# one bot and a half\nColumn\npaths-column\n./column\nDestroyer\npaths-destroyer\n",
    )
    .unwrap();
    fails_with(
        dir,
        &["--bots-file", "incomplete.txt"],
        &["incomplete.txt:5", "Destroyer", "incomplete"],
    );

    let typo = dir.join("bots/typo");
    std::fs::create_dir_all(&typo).unwrap();
    std::fs::write(
        typo.join("bot.toml"),
        "name = \"Typo\"\nrun = \"bash x.sh\"\ngame = [\"paths\"]\n",
    )
    .unwrap();
    fails_with(
        dir,
        &["--bot", "bots/typo"],
        &["bots/typo/bot.toml", "game"],
    );

    std::fs::write(
        dir.join("nocommand.txt"),
        "Nobody\npaths-column\nno-such-program-xyz\n",
    )
    .unwrap();
    fails_with(
        dir,
        &["--bots-file", "nocommand.txt"],
        &["Nobody", "nocommand.txt:1", "no-such-program-xyz"],
    );
}

#[test]
fn a_game_of_no_rounds_is_refused() {
    let arena = arena();
    fails_with(
        arena.path(),
        &["--rounds", "0"],
        &["--rounds", "0 is not in 1.."],
    );
}

#[test]
fn a_game_given_a_cpu_keeps_every_bot_there() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = cpu_reporting_paths_bots(tmp.path(), 2);
    let cpu = *koth::base::cpu::allowed().last().unwrap();
    let cpu_arg = cpu.to_string();
    let mut args = vec!["--cpu", &cpu_arg];
    for bot in &bots {
        args.extend(["--bot", bot.to_str().unwrap()]);
    }
    let out = play(tmp.path(), &args);
    for slug in ["cpus-0", "cpus-1"] {
        let log = out.join(format!("stderr/{slug}.log"));
        assert_eq!(reported_cpus(&log), vec![cpu], "{slug}");
    }
    // Every round's processes are new: the placement holds for all of them.
    let text = std::fs::read_to_string(out.join("stderr/cpus-0.log")).unwrap();
    assert_eq!(text.matches("cpus").count(), 3, "{text}");
}

#[test]
fn a_cpu_koth_may_not_use_is_refused() {
    let arena = arena();
    fails_with(
        arena.path(),
        &["--cpu", "4095"],
        &["--cpu", "CPU 4095 is not one koth may use here"],
    );
}
