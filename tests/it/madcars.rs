//! Mad Cars through the real `koth` binary with real bot processes: whole games, lives and
//! matches, the seed, each kind of bad answer, and a tournament.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::tournament::{koth, leaderboard, query, repo, run_tournament, succeed};

/// A bot folder `root/folder` named `name` running `tests/madcars/bots/player.py` with `args`.
fn player(root: &Path, folder: &str, name: &str, args: &str) -> PathBuf {
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        repo().join("tests/madcars/bots/player.py"),
        dir.join("player.py"),
    )
    .unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = \"{name}\"\nrun = \"python3 player.py {args}\"\ngames = [\"madcars\"]\n"),
    )
    .unwrap();
    dir
}

/// Plays `koth madcars` with `bots` and `extra` arguments into `log_dir`; returns stdout and
/// results.json.
fn game(bots: &[&Path], log_dir: &Path, extra: &[&str]) -> (String, Value) {
    let mut command = koth();
    let folder = log_dir.parent().unwrap();
    crate::support::cpus::own_cpu_locks(&mut command, folder).arg("madcars");
    for bot in bots {
        command.arg("--bot").arg(bot);
    }
    command.args(extra).arg("--log-dir").arg(log_dir);
    let output = succeed(&mut command);
    let results = std::fs::read_to_string(log_dir.join("results.json")).unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        serde_json::from_str(&results).unwrap(),
    )
}

#[test]
fn a_game_is_matches_on_distinct_pairs_until_a_player_has_no_lives() {
    let tmp = tempfile::tempdir().unwrap();
    let one = player(tmp.path(), "one", "One", "random 1");
    let two = player(tmp.path(), "two", "Two", "random 2");
    let (stdout, results) = game(&[&one, &two], &tmp.path().join("g"), &["--seed", "4"]);
    assert!(stdout.starts_with("seed 4\n"), "{stdout}");
    // No banner of the physics library, nor anything else, before koth's own output.
    let matches = results["matches"].as_array().unwrap();
    let lives = &results["lives"];
    let (one_lives, two_lives) = (
        lives["One"].as_u64().unwrap(),
        lives["Two"].as_u64().unwrap(),
    );
    // 9 matches, 5 lives each: the game ends when one has none.
    assert!(one_lives == 0 || two_lives == 0, "{results}");
    let lost = |name: &str| {
        matches
            .iter()
            .filter(|m| m["losers"].as_array().unwrap().iter().any(|l| l == name))
            .count() as u64
    };
    assert_eq!(lost("One"), 5 - one_lives);
    assert_eq!(lost("Two"), 5 - two_lives);
    let mut pairs: Vec<(String, String)> = matches
        .iter()
        .map(|m| (m["map"].to_string(), m["car"].to_string()))
        .collect();
    let count = pairs.len();
    assert!((5..=9).contains(&count), "{count} matches");
    pairs.sort();
    pairs.dedup();
    assert_eq!(pairs.len(), count, "each match on its own (map, car) pair");
    assert!(
        matches.iter().all(|m| m["ticks"].as_u64().unwrap() > 90),
        "{results}"
    );
    let winner = match one_lives.cmp(&two_lives) {
        std::cmp::Ordering::Greater => Value::from("One"),
        std::cmp::Ordering::Less => Value::from("Two"),
        std::cmp::Ordering::Equal => Value::Null,
    };
    assert_eq!(results["winner"], winner);
    assert_eq!(results["result"]["bots"][0]["score"], one_lives as f64);

    // The same seed plays the same game.
    let (_, again) = game(&[&one, &two], &tmp.path().join("again"), &["--seed", "4"]);
    assert_eq!(again["matches"], results["matches"]);
}

#[test]
fn one_map_one_car_and_one_match_is_exactly_that_match() {
    let tmp = tempfile::tempdir().unwrap();
    let one = player(tmp.path(), "one", "One", "random 1");
    let two = player(tmp.path(), "two", "Two", "random 2");
    let args = [
        "--matches",
        "1",
        "--map",
        "IslandMap",
        "--car",
        "Bus",
        "--seed",
        "1",
    ];
    let (_, results) = game(&[&one, &two], &tmp.path().join("g"), &args);
    let matches = results["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 1);
    assert_eq!(matches[0]["map"], "IslandMap");
    assert_eq!(matches[0]["car"], "Bus");
    // One life each: whoever lost it lost the game.
    let total: u64 = ["One", "Two"]
        .iter()
        .map(|n| results["lives"][n].as_u64().unwrap())
        .sum();
    assert!(total <= 1, "{results}");

    // Names that are not there are one clear error, before anything is written.
    let out = koth()
        .arg("madcars")
        .arg("--bot")
        .arg(&one)
        .arg("--bot")
        .arg(&two)
        .args(["--map", "Moon", "--log-dir"])
        .arg(tmp.path().join("bad"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no map \"Moon\"") && stderr.contains("PillMap"),
        "{stderr}"
    );
    assert!(!tmp.path().join("bad").exists());
}

/// The faults of the bot `name` in results.json: (kind, reason) pairs, and the counts by kind.
#[test]
fn two_still_cars_meet_the_deadline_on_one_step_both_lose_and_the_match_rests_90_ticks() {
    let tmp = tempfile::tempdir().unwrap();
    let one = player(tmp.path(), "one", "One", "still 1");
    let two = player(tmp.path(), "two", "Two", "still 2");
    let log = tmp.path().join("g");
    let args = [
        "--matches",
        "1",
        "--map",
        "PillMap",
        "--car",
        "Buggy",
        "--seed",
        "1",
    ];
    let (stdout, results) = game(&[&one, &two], &log, &args);
    // Mirror images on a symmetric map: the rising deadline reaches both buttons on one step,
    // and both lose a life, as on the organisers' server.
    let matched = &results["matches"][0];
    assert_eq!(
        matched["losers"],
        serde_json::json!(["One", "Two"]),
        "{results}"
    );
    assert!(stdout.contains("lost by One and Two"), "{stdout}");
    assert_eq!(results["lives"], serde_json::json!({"One": 0, "Two": 0}));
    assert!(results["winner"].is_null(), "a draw: {results}");
    // The bots hear every tick but the 90 rest ticks after the deaths, and the deadline rose
    // over those they heard.
    let sent = lines_sent(&log.join("transcripts/one.txt"));
    let ticks: Vec<Value> = sent
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|m| m["type"] == "tick")
        .collect();
    assert_eq!(matched["ticks"].as_u64().unwrap(), ticks.len() as u64 + 90);
    let deadline = |m: &Value| m["params"]["deadline_position"].as_f64().unwrap();
    assert!(deadline(ticks.last().unwrap()) > deadline(&ticks[0]) + 100.0);
}

fn faults(results: &Value, name: &str) -> (Vec<(String, String)>, Value) {
    let bot = results["result"]["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == name)
        .unwrap();
    let kept = bot["faults"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["kind"].as_str().unwrap().to_string(),
                f["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (kept, bot["fault_counts"].clone())
}

#[test]
fn each_bad_answer_is_a_fault_with_the_organisers_effect_on_the_car() {
    let tmp = tempfile::tempdir().unwrap();
    let good = player(tmp.path(), "good", "Good", "random 1");
    let one_match = [
        "--matches",
        "1",
        "--map",
        "PillMap",
        "--car",
        "Buggy",
        "--seed",
        "2",
        "--timeout-ms",
        "500",
    ];
    // Lines that are not JSON, or name no command: the car is driven at random, the bot plays
    // on, and every such answer is counted.
    for mode in ["garbage", "unknown"] {
        let bad = player(tmp.path(), mode, "Bad", &format!("{mode} 3 5"));
        let (_, results) = game(&[&good, &bad], &tmp.path().join(mode), &one_match);
        let (kept, counts) = faults(&results, "Bad");
        let ticks = results["ticks"].as_u64().unwrap();
        assert!(
            counts["bad_output"].as_u64().unwrap() > 50,
            "{mode}: {counts}"
        );
        assert!(counts["bad_output"].as_u64().unwrap() < ticks);
        assert_eq!(kept.len(), 10, "{mode}: the first ten are kept");
        assert!(
            kept.iter().all(|(kind, _)| kind == "bad_output"),
            "{kept:?}"
        );
        let (good_faults, _) = faults(&results, "Good");
        assert!(good_faults.is_empty());
    }
    // {}, a crash, or silence: the bot is disconnected at once, its car braked, and the game
    // goes on to its end without it.
    for (mode, kind) in [
        ("empty", "bad_output"),
        ("crash", "crashed"),
        ("silent", "timed_out"),
    ] {
        let bad = player(tmp.path(), mode, "Bad", &format!("{mode} 3 5"));
        let (_, results) = game(&[&good, &bad], &tmp.path().join(mode), &one_match);
        let (kept, counts) = faults(&results, "Bad");
        assert_eq!(
            kept.len(),
            1,
            "{mode}: one fault, then no more messages: {kept:?}"
        );
        assert_eq!(kept[0].0, kind, "{mode}: {kept:?}");
        assert_eq!(counts[kind], 1);
        assert_eq!(results["matches"].as_array().unwrap().len(), 1);
        let transcript = std::fs::read_to_string(
            tmp.path()
                .join(mode)
                .join("transcripts/".to_string() + mode + ".txt"),
        )
        .unwrap();
        let ticks_sent = transcript
            .lines()
            .filter(|l| l.contains("\"type\": \"tick\""))
            .count();
        assert_eq!(ticks_sent, 5, "{mode}: no tick after the fault");
    }
}

#[test]
fn a_bot_looping_on_end_of_input_is_ended_after_the_game_without_a_fault() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = format!("koth-madcars-spin-{}", std::process::id());
    let good = player(tmp.path(), "good", "Good", "random 1");
    // Reads end of input and spins on its last line, as 2018's C++ bots do: the organisers'
    // server never asked a bot to exit.
    let spinner = player(
        tmp.path(),
        "spinner",
        "Spinner",
        &format!("spin 2 0 {marker}"),
    );
    let log = tmp.path().join("g");
    let one_match = [
        "--matches",
        "1",
        "--map",
        "PillMap",
        "--car",
        "Buggy",
        "--seed",
        "2",
        "--timeout-ms",
        "300",
    ];
    let (stdout, results) = game(&[&good, &spinner], &log, &one_match);
    for name in ["Good", "Spinner"] {
        let (kept, counts) = faults(&results, name);
        assert!(kept.is_empty(), "{name}: {kept:?}");
        assert_eq!(counts["timed_out"], 0, "{name}: {counts}");
    }
    assert!(!stdout.contains("did not exit"), "{stdout}");
    let transcript = std::fs::read_to_string(log.join("transcripts/spinner.txt")).unwrap();
    assert!(transcript.contains("# no exit expected\n"), "{transcript}");
    assert!(
        !transcript.lines().any(|l| l.starts_with("! ")),
        "{transcript}"
    );
    assert!(
        crate::support::survivors::survivors(&marker).is_empty(),
        "the spinning bot was ended with the game"
    );
    // Driven again, the spinning bot is held to the same: no difference at the end.
    let out = koth()
        .arg("replay")
        .arg(&log)
        .args(["--drive"])
        .arg(&spinner)
        .args(["--as", "Spinner"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("identical"), "{text}");
}

#[test]
fn mad_cars_runs_in_a_tournament_with_ratings() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = [
        player(tmp.path(), "a", "A", "random 1"),
        player(tmp.path(), "b", "B", "random 2"),
        player(tmp.path(), "c", "C", "random 3"),
    ];
    let list: Vec<String> = bots.iter().map(|b| format!("{b:?}")).collect();
    let file = tmp.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"madcars\"\nbots = [{}]\ngames = 3\nrounds = 1\nplayers_per_game = 2\n\
             seed = 9\nanswer_ms = 1000\n",
            list.join(", ")
        ),
    )
    .unwrap();
    let out = tmp.path().join("t");
    run_tournament(&file, &out, &[]);
    assert_eq!(
        query(&out, "SELECT COUNT(*) FROM games WHERE state = 'done'"),
        3
    );
    assert_eq!(
        query(
            &out,
            "SELECT COUNT(*) FROM results WHERE status = 'finished'"
        ),
        6
    );
    // One match per game, one life each: exactly one bot of each game lost its life, or both.
    assert!(query(&out, "SELECT CAST(SUM(score) AS INTEGER) FROM results") <= 3);
    let game0: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("games/0/results.json")).unwrap())
            .unwrap();
    assert_eq!(game0["matches"].as_array().unwrap().len(), 1);
    let board = leaderboard(&out);
    assert_eq!(board["standings"].as_array().unwrap().len(), 3, "{board}");
    // Results by map and car: every bot's every match, and the lives the store says were lost.
    let rows = board["breakdown"]["rows"].as_array().unwrap();
    let column = |c: usize| -> i64 {
        rows.iter()
            .map(|r| r[c].as_str().unwrap().parse::<i64>().unwrap())
            .sum()
    };
    assert_eq!(column(3), 6, "3 games of one match, 2 bots each: {rows:?}");
    let lives_left = query(&out, "SELECT CAST(SUM(score) AS INTEGER) FROM results");
    assert_eq!(column(4), 6 - lives_left);
    let table = String::from_utf8(succeed(koth().arg("leaderboard").arg(&out)).stdout).unwrap();
    assert!(table.contains("By map and car"), "{table}");
}

/// The lines koth sent a bot, from its transcript (`>` and `?` lines).
fn lines_sent(transcript: &Path) -> String {
    let text = koth::bot::Transcript::read(transcript).unwrap();
    text.lines()
        .filter(|l| l.starts_with("> ") || l.starts_with("? "))
        .map(|l| l.splitn(3, ' ').nth(2).unwrap())
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The commands a bot answers to `input`, run in its folder with `command`.
fn commands(folder: &Path, command: &[&str], input: &str) -> Vec<String> {
    use std::io::Write;
    let mut child = std::process::Command::new(command[0])
        .args(&command[1..])
        .current_dir(folder)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["command"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn the_sample_bots_in_three_languages_drive_alike_and_beat_a_random_driver() {
    let tmp = tempfile::tempdir().unwrap();
    let python = repo().join("bots/madcars-keepaway-py");
    let random = player(tmp.path(), "random", "Random", "random 7");
    // A whole game of the Python sample, then its input fed to all three versions.
    let (_, _) = game(&[&python, &random], &tmp.path().join("g"), &["--seed", "3"]);
    let input = lines_sent(&tmp.path().join("g/transcripts/madcars-keepaway-py.txt"));
    let c = tmp.path().join("c");
    std::fs::create_dir(&c).unwrap();
    std::fs::copy(
        repo().join("bots/madcars-keepaway-c/keepaway.c"),
        c.join("keepaway.c"),
    )
    .unwrap();
    succeed(
        std::process::Command::new("gcc")
            .args(["-O2", "-o", "keepaway", "keepaway.c", "-lm"])
            .current_dir(&c),
    );
    let by_python = commands(&python, &["python3", "keepaway.py"], &input);
    assert!(by_python.len() > 500, "{} ticks", by_python.len());
    let js = repo().join("bots/madcars-keepaway-js");
    assert_eq!(commands(&js, &["node", "keepaway.js"], &input), by_python);
    assert_eq!(commands(&c, &["./keepaway"], &input), by_python);

    // One match on every (map, car) pair, on each side: Keep Away wins most of them.
    let (mut won, mut lost) = (0, 0);
    for map in [
        "PillMap",
        "PillHubbleMap",
        "PillHillMap",
        "PillCarcassMap",
        "IslandMap",
        "IslandHoleMap",
    ] {
        for car in ["Buggy", "Bus", "SquareWheelsBuggy"] {
            for bots in [
                [python.as_path(), random.as_path()],
                [random.as_path(), python.as_path()],
            ] {
                let log = tmp.path().join(format!("{map}-{car}-{}", won + lost));
                let args = ["--matches", "1", "--map", map, "--car", car, "--seed", "1"];
                let (_, results) = game(&bots, &log, &args);
                match results["winner"].as_str() {
                    Some("Keep Away (Python)") => won += 1,
                    Some(_) => lost += 1,
                    None => {}
                }
            }
        }
    }
    assert!(won > 2 * lost, "won {won}, lost {lost} of 36");
}

/// The organisers' own server code, with their Chipmunk (7.0.1, as pymunk 5.3.2 bundles it,
/// built without -ffast-math as Debian builds Chipmunk), driving both cars by
/// `tests/madcars/bots/schedule.py`, sent player 1 these lines, one match per (map, car)
/// pair: `tests/madcars/reference.jsonl.gz`, recorded by `scripts/madcars-reference-run.py`.
fn reference_runs() -> Vec<(String, Vec<String>)> {
    use std::io::Read;
    let file = std::fs::File::open(repo().join("tests/madcars/reference.jsonl.gz")).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap();
    let mut runs: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines() {
        match line.strip_prefix("# ") {
            Some(pair) => runs.push((pair.to_string(), Vec::new())),
            None => runs.last_mut().unwrap().1.push(line.to_string()),
        }
    }
    runs
}

#[test]
fn every_map_and_car_steps_as_on_the_organisers_server_to_the_last_bit() {
    let tmp = tempfile::tempdir().unwrap();
    let scripted = |player: u32| {
        let dir = tmp.path().join(format!("s{player}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(
            repo().join("tests/madcars/bots/schedule.py"),
            dir.join("schedule.py"),
        )
        .unwrap();
        std::fs::write(
            dir.join("bot.toml"),
            format!(
                "name = \"Scripted {player}\"\nrun = \"python3 schedule.py {player}\"\n\
                 games = [\"madcars\"]\n"
            ),
        )
        .unwrap();
        dir
    };
    let (one, two) = (scripted(1), scripted(2));
    let runs = reference_runs();
    assert_eq!(runs.len(), 18);
    for (pair, expected) in runs {
        let (map, car) = pair.split_once(',').unwrap();
        let log = tmp.path().join(&pair);
        let args = ["--matches", "1", "--map", map, "--car", car, "--seed", "1"];
        game(&[&one, &two], &log, &args);
        let sent: Vec<String> = lines_sent(&log.join("transcripts/s1.txt"))
            .lines()
            .map(str::to_string)
            .collect();
        if let Some(at) =
            (0..expected.len().max(sent.len())).find(|&i| expected.get(i) != sent.get(i))
        {
            panic!(
                "{pair}: line {at} of {} differs\n organisers: {:?}\n koth:       {:?}",
                expected.len(),
                expected.get(at),
                sent.get(at)
            );
        }
    }
}

#[test]
fn a_game_s_replay_shows_each_tick_in_chromium_and_sums_up_in_the_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let good = player(tmp.path(), "good", "Good", "random 1");
    let bad = player(tmp.path(), "bad", "Bad", "garbage 3 40");
    let log = tmp.path().join("g");
    let args = ["--matches", "3", "--seed", "5"];
    let (report, results) = game(&[&good, &bad], &log, &args);
    let lines = koth::games::madcars::replay::read(&log.join("replay.jsonl.gz")).unwrap();
    assert_eq!(lines[0]["bots"], serde_json::json!(["Good", "Bad"]));
    let matches = lines.iter().filter(|l| l["map"].is_string()).count();
    assert_eq!(matches, results["matches"].as_array().unwrap().len());
    let ticks: Vec<&Value> = lines.iter().filter(|l| l["t"].is_u64()).collect();
    assert_eq!(
        ticks.len() as u64,
        results["ticks"].as_u64().unwrap(),
        "every tick"
    );

    // The terminal summary: each match, and the bad bot's faults with their ticks; then the
    // story of a match's last ticks, as `--text` tells every game's: each answer with its time,
    // the faults, each bot's stderr.
    let summary = succeed(koth().arg("replay").arg(&log).arg("--text")).stdout;
    let summary = String::from_utf8(summary).unwrap();
    assert!(
        summary.starts_with("Mad Cars: Good against Bad\n  match 1: "),
        "{summary}"
    );
    assert!(
        summary.contains("Bad: answered \"not json\", which is not JSON"),
        "{summary}"
    );
    assert!(
        summary.contains("answers in match 1 (its last 10 ticks up to "),
        "{summary}"
    );
    let answer = |bot: &str, said: &str| {
        summary.lines().any(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.len() >= 4
                && words[1] == bot
                && words[2].parse::<u64>().is_ok()
                && l.contains(said)
        })
    };
    assert!(answer("Good", "{\"command\": "), "{summary}");
    assert!(answer("Bad", "not json"), "{summary}");
    assert!(summary.contains("Bad bad_output: answered"), "{summary}");
    assert!(
        summary.contains("stderr: Bad:\n  garbage from tick 40\n"),
        "{summary}"
    );
    // The first fault at one tick everywhere a person reads it, counted from 1 (the replay
    // stores ticks from 0): the report, the summary and the story's faults.
    let first_fault = ticks
        .iter()
        .find(|l| l["a"][1]["f"].is_string())
        .and_then(|l| l["t"].as_u64())
        .expect("Bad faults");
    let tick = first_fault + 1;
    assert!(
        report.contains(&format!("Bad (round 1, turn {tick}): bad_output")),
        "{report}"
    );
    assert!(
        summary.contains(&format!("  tick {tick}: Bad: ")),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("match 1 tick {tick}: Bad bad_output")),
        "{summary}"
    );
    assert!(
        summary.contains("stderr: Good:\n  (nothing)\n"),
        "{summary}"
    );
    // Another match's story, up to a tick of its own: the answers of that tick are its last.
    let second = lines
        .iter()
        .skip_while(|l| !l["map"].is_string())
        .skip(1)
        .skip_while(|l| !l["map"].is_string())
        .nth(20)
        .and_then(|l| l["t"].as_u64())
        .expect("a second match of at least 20 ticks");
    // Stored from 0, read and typed from 1, as the report counts.
    let second = second + 1;
    let story = succeed(koth().arg("replay").arg(&log).args([
        "--text",
        "--round",
        "2",
        "--turn",
        &second.to_string(),
    ]))
    .stdout;
    let story = String::from_utf8(story).unwrap();
    assert!(
        story.contains(&format!(
            "answers in match 2 (its last 10 ticks up to {second})"
        )),
        "{story}"
    );
    let told: Vec<u64> = story
        .lines()
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect();
    assert_eq!(told.last(), Some(&second), "{story}");

    // The web viewer at tick 60 of the game: the HUD says what the replay says.
    let page = tmp.path().join("game.html");
    succeed(koth().arg("replay").arg(&log).arg("--html").arg(&page));
    let at = ticks.iter().find(|l| l["t"] == 59).unwrap();
    let url = format!("file://{}?tick=60", page.display());
    let profile = tmp.path().join("profile");
    let dom = crate::replay::chromium(&profile, &["--dump-dom"], &url).stdout;
    let dom = String::from_utf8_lossy(&dom);
    let shown = |id: &str| {
        let start = dom
            .find(&format!("id=\"{id}\">"))
            .unwrap_or_else(|| panic!("no #{id}: {dom}"));
        let text = &dom[start + id.len() + 6..];
        text[..text.find('<').unwrap()].to_string()
    };
    assert_eq!(shown("tick"), "60");
    assert_eq!(shown("map"), results["matches"][0]["map"].as_str().unwrap());
    assert_eq!(shown("car"), results["matches"][0]["car"].as_str().unwrap());
    assert_eq!(shown("cmd-0"), at["a"][0]["c"].as_str().unwrap());
    assert_eq!(shown("debug-0"), at["a"][0]["d"].as_str().unwrap());
    assert_eq!(shown("cmd-1"), at["a"][1]["c"].as_str().unwrap());
    assert_eq!(shown("lives-0"), "2");
    // The bad bot's faults so far in the match, from tick 40 on.
    assert!(dom.matches("class=\"fault\"").count() >= 20, "{dom}");
    assert!(dom.contains("Bad: answered \"not json\""), "{dom}");
}

#[test]
fn a_tournament_asking_more_matches_than_pairs_is_one_clear_error_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("t.toml");
    let bots = [
        player(tmp.path(), "a", "A", "random 1"),
        player(tmp.path(), "b", "B", "random 2"),
    ];
    std::fs::write(
        &file,
        format!(
            "game = \"madcars\"\nbots = [{:?}, {:?}]\ngames = 2\nrounds = 19\n",
            bots[0], bots[1]
        ),
    )
    .unwrap();
    let out = koth()
        .args(["tournament", "run"])
        .arg(&file)
        .arg("--dir")
        .arg(tmp.path().join("t"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("t.toml")
            && stderr.contains("`rounds` = 19")
            && stderr.contains("18 distinct pairs"),
        "{stderr}"
    );
    assert!(!tmp.path().join("t").exists());
}

#[test]
fn cpu_keeps_koth_and_both_bots_on_one_cpu() {
    let tmp = tempfile::tempdir().unwrap();
    let one = player(tmp.path(), "one", "One", "cpus 1");
    let two = player(tmp.path(), "two", "Two", "cpus 2");
    // The last CPU koth may use: not the first, where an unpinned process would sit anyway.
    let cpu = *koth::base::cpu::allowed().last().unwrap();
    let log = tmp.path().join("g");
    let args = ["--matches", "1", "--seed", "1", "--cpu", &cpu.to_string()];
    game(&[&one, &two], &log, &args);
    let logs = crate::support::cpus::stderr_logs(&log);
    assert_eq!(logs.len(), 2);
    for log in logs {
        assert_eq!(
            crate::support::cpus::reported_cpus(&log),
            vec![cpu],
            "{}",
            log.display()
        );
    }
}
