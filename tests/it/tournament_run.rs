//! Whole tournaments through the real `koth` binary, with the sample paths bots as real
//! processes and the results in a real SQLite file.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::support::cpus;
use crate::support::paths_bots;
use crate::support::tournament;
use cpus::{reported_cpus, stderr_logs};
use paths_bots::cpu_reporting_paths_bots;
use tournament::{
    assert_every_game_once, koth, leaderboard, query, repo, run_tournament, sample_bots, succeed,
    tournament_file,
};

#[test]
fn a_small_tournament_plays_every_game_once_and_ranks_every_bot() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = sample_bots(3);
    let dirs: Vec<&Path> = bots.iter().map(|(d, _)| d.as_path()).collect();
    let file = tournament_file(tmp.path(), &dirs, "games = 6\nrounds = 2\njobs = 2\n");
    let out = tmp.path().join("t");
    let output = run_tournament(&file, &out, &["--seed", "7"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("seed 7"), "the seed is printed: {stdout}");
    assert_every_game_once(&out, 6);
    assert!(out.join("tournament.toml").is_file() && out.join("tournament.log").is_file());
    for game in 0..6 {
        // The game's record stays; its working copies of the bots are gone once it is recorded.
        assert!(out.join(format!("games/{game}/results.json")).is_file());
        assert!(!out.join(format!("games/{game}/bots")).exists());
    }
    let board = leaderboard(&out);
    let standings = board["standings"].as_array().unwrap();
    let mut names: Vec<&str> = standings
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    names.sort();
    let mut expected: Vec<&str> = bots.iter().map(|(_, n)| n.as_str()).collect();
    expected.sort();
    assert_eq!(names, expected);
    for s in standings {
        assert_eq!(s["games"], 6, "every bot plays every game: {s}");
    }
}

#[test]
fn a_tournament_killed_mid_way_resumes_without_losing_or_repeating_a_game() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = sample_bots(3);
    let dirs: Vec<&Path> = bots.iter().map(|(d, _)| d.as_path()).collect();
    let games = 8;
    let file = tournament_file(
        tmp.path(),
        &dirs,
        &format!("games = {games}\nrounds = 3\njobs = 1\nseed = 3\n"),
    );
    let out = tmp.path().join("t");
    let mut child = koth()
        .args(["tournament", "run"])
        .arg(&file)
        .arg("--dir")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once some games are recorded and some are not.
    loop {
        std::thread::sleep(Duration::from_millis(5));
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the tournament ended ({status}) before it could be killed mid-way");
        }
        if !out.join("results.sqlite").is_file() {
            continue;
        }
        let done = query(&out, "SELECT COUNT(*) FROM games WHERE state = 'done'");
        if done >= 1 {
            assert!(done < games, "killed too late");
            break;
        }
    }
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    let done_before_kill = query(&out, "SELECT COUNT(*) FROM games WHERE state = 'done'");
    assert!(done_before_kill < games);

    succeed(koth().args(["tournament", "resume"]).arg(&out));
    assert_every_game_once(&out, games);
    let status = succeed(koth().args(["tournament", "status"]).arg(&out));
    assert!(
        String::from_utf8_lossy(&status.stdout).contains(&format!("{games} of {games} games done"))
    );
}

#[test]
fn a_bot_that_always_crashes_is_recorded_and_flagged_and_the_others_are_rated() {
    let tmp = tempfile::tempdir().unwrap();
    let bots = sample_bots(2);
    let crasher = repo().join("tests/tournament_bots/crasher");
    let mut dirs: Vec<&Path> = bots.iter().map(|(d, _)| d.as_path()).collect();
    dirs.push(&crasher);
    let file = tournament_file(
        tmp.path(),
        &dirs,
        "games = 3\nrounds = 2\njobs = 2\nseed = 1\n",
    );
    let out = tmp.path().join("t");
    run_tournament(&file, &out, &[]);
    assert_every_game_once(&out, 3);
    assert_eq!(
        query(
            &out,
            "SELECT COUNT(*) FROM results r JOIN bots b ON b.id = r.bot
             WHERE b.name = 'Crasher' AND r.status = 'crashed'"
        ),
        3
    );
    let board = leaderboard(&out);
    for s in board["standings"].as_array().unwrap() {
        let crasher = s["name"] == "Crasher";
        assert_eq!(s["flagged"], crasher, "{s}");
        assert_eq!(s["crashed"], if crasher { 3 } else { 0 }, "{s}");
        // Rated from three games: less uncertain than a new rating (25/3).
        assert!(s["uncertainty"].as_f64().unwrap() < 25.0 / 3.0, "{s}");
    }
}

#[test]
fn a_bad_tournament_file_is_one_clear_error_naming_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.toml");
    std::fs::write(
        &file,
        "game = \"paths\"\nbots_dir = \".\"\ngames = 2\nround = 3\n",
    )
    .unwrap();
    let output = koth()
        .args(["tournament", "run"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bad.toml") && stderr.contains("line 4") && stderr.contains("round"),
        "{stderr}"
    );
}

#[test]
fn a_protocol_a_game_does_not_offer_is_one_error_before_the_first_game() {
    let tmp = tempfile::tempdir().unwrap();
    let bot = tmp.path().join("typo");
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        "name = \"Typo\"\nrun = \"python3 x.py\"\ngames = [\"ratrace\"]\n\
         [protocols]\nratrace = \"laen\"\n",
    )
    .unwrap();
    let file = tmp.path().join("typo.toml");
    std::fs::write(
        &file,
        format!("game = \"ratrace\"\nbots = [{bot:?}]\ngames = 3\nsandbox = false\n"),
    )
    .unwrap();
    let out = tmp.path().join("t");
    let output = koth()
        .args(["tournament", "run"])
        .arg(&file)
        .arg("--dir")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    // One line naming the tournament file, the bot (with its bot.toml) and the key.
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    for part in [
        "typo.toml",
        "\"Typo\"",
        "bot.toml",
        "`[protocols] ratrace` of bot",
        "\"laen\"",
        "lean",
    ] {
        assert!(stderr.contains(part), "{part}: {stderr}");
    }
    assert!(!out.exists(), "no game was played, nothing was written");
}

#[test]
fn jobs_is_bounded_with_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    for jobs in [0, 1025] {
        let file = tmp.path().join("jobs.toml");
        std::fs::write(
            &file,
            format!("game = \"paths\"\nbots_dir = \".\"\ngames = 2\njobs = {jobs}\n"),
        )
        .unwrap();
        let output = koth()
            .args(["tournament", "run"])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("jobs.toml")
                && stderr.contains(&format!("`jobs` = {jobs}: give 1 to 1024")),
            "{stderr}"
        );
    }
}

#[test]
fn each_rat_race_match_keeps_to_a_cpu_of_its_own() {
    let cpus = koth::base::cpu::allowed();
    let tmp = tempfile::tempdir().unwrap();
    let bot = tmp.path().join("cpus");
    std::fs::create_dir_all(&bot).unwrap();
    // The script is copied in: a contained bot sees only its own folder.
    std::fs::copy(
        repo().join("tests/ratrace_bots/off_the_edge.py"),
        bot.join("off_the_edge.py"),
    )
    .unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        "name = \"Cpus\"\nrun = \"python3 off_the_edge.py cpus\"\ngames = [\"ratrace\"]\n",
    )
    .unwrap();
    let file = tmp.path().join("t.toml");
    std::fs::write(
        &file,
        format!("game = \"ratrace\"\nbots = [{bot:?}]\ngames = 4\nrounds = 1\njobs = 2\n"),
    )
    .unwrap();
    let out = tmp.path().join("t");
    run_tournament(&file, &out, &["--seed", "1"]);
    assert_every_game_once(&out, 4);
    // What each game's bot was allowed to run on, from the line it wrote to its stderr.
    let seen: Vec<Vec<usize>> = (0..4)
        .map(|game| reported_cpus(&stderr_logs(&out.join(format!("games/{game}")))[0]))
        .collect();
    if cpus.len() < 2 {
        // Too few CPUs for two games at once: placement is left to the OS.
        assert!(seen.iter().all(|s| s == &cpus), "{seen:?}");
        return;
    }
    assert!(seen.iter().all(|s| s.len() == 1), "{seen:?}");
    // The first two games ran at the same time, each on its own CPU.
    assert_ne!(seen[0], seen[1], "{seen:?}");
}

/// The CPUs each bot of game `game` of the tournament in `out` reported.
fn paths_game_cpus(out: &Path, game: usize) -> Vec<Vec<usize>> {
    stderr_logs(&out.join(format!("games/{game}")))
        .iter()
        .map(|log| reported_cpus(log))
        .collect()
}

#[test]
fn paths_games_share_the_cpus_out_and_keep_their_bots_on_their_share() {
    let cpus = koth::base::cpu::allowed();
    let tmp = tempfile::tempdir().unwrap();
    let bots = cpu_reporting_paths_bots(tmp.path(), 2);
    let bots: Vec<&Path> = bots.iter().map(PathBuf::as_path).collect();

    // One game at a time: it has every CPU.
    let file = tournament_file(tmp.path(), &bots, "games = 1\nrounds = 1\njobs = 1\n");
    let out = tmp.path().join("one");
    run_tournament(&file, &out, &["--seed", "1"]);
    assert_eq!(paths_game_cpus(&out, 0), vec![cpus.clone(); 2]);

    // Two at a time: each game and both its bots keep to a CPU of their own.
    let file = tournament_file(tmp.path(), &bots, "games = 4\nrounds = 1\njobs = 2\n");
    let out = tmp.path().join("two");
    run_tournament(&file, &out, &["--seed", "1"]);
    assert_every_game_once(&out, 4);
    let seen: Vec<Vec<Vec<usize>>> = (0..4).map(|game| paths_game_cpus(&out, game)).collect();
    if cpus.len() < 2 {
        // Too few CPUs for two games at once: placement is left to the OS.
        assert!(seen.iter().flatten().all(|s| s == &cpus), "{seen:?}");
        return;
    }
    for game in &seen {
        assert_eq!(game[0].len(), 1, "{seen:?}");
        assert_eq!(
            game[0], game[1],
            "both bots of a game share its CPU: {seen:?}"
        );
    }
    // The first two games ran at the same time, each on its own CPU.
    assert_ne!(seen[0][0], seen[1][0], "{seen:?}");
}
