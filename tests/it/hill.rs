//! The hill through the real `koth` binary: real bot processes (the graded noughts & crosses
//! players of `scripts/graded-ttt`), a real SQLite file, kills and restarts.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::cpus::own_cpu_locks;
use crate::support::signals::default_signals;
use crate::support::tournament::{koth, leaderboard, query, repo, succeed};

/// A graded bot `name` in `root/<folder>`: the perfect move with probability `p`.
pub(crate) fn graded(root: &Path, folder: &str, name: &str, p: f64) -> PathBuf {
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        repo().join("scripts/graded-ttt/graded.py"),
        dir.join("graded.py"),
    )
    .unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = {name:?}\nrun = \"python3 -u graded.py {p}\"\ngames = [\"tictactoe\"]\n"),
    )
    .unwrap();
    dir
}

/// Creates a hill of noughts & crosses in `root/hill`, with `extra` keys.
pub(crate) fn hill(root: &Path, extra: &str) -> PathBuf {
    create_hill(
        root,
        &format!("game = \"tictactoe\"\nrounds = 4\nanswer_ms = 2000\nseed = 3\njobs = 2\n{extra}"),
    )
}

/// Creates a hill in `root/hill` from the hill file `text` (written as `root/hill.toml`).
pub(crate) fn create_hill(root: &Path, text: &str) -> PathBuf {
    let file = root.join("hill.toml");
    std::fs::write(&file, text).unwrap();
    let dir = root.join("hill");
    succeed(
        koth()
            .args(["hill", "create"])
            .arg(&file)
            .arg("--dir")
            .arg(&dir),
    );
    dir
}

pub(crate) fn hill_command(dir: &Path) -> Command {
    let mut command = koth();
    own_cpu_locks(&mut command, dir.parent().unwrap());
    command
}

/// Plays `games` more rated games on the hill in `dir` (`hill run --games`), which must succeed.
fn run_games(dir: &Path, games: u32) -> Output {
    succeed(
        hill_command(dir)
            .args(["hill", "run"])
            .arg(dir)
            .args(["--games", &games.to_string()]),
    )
}

fn add(dir: &Path, bots: &[&Path]) -> Output {
    hill_command(dir)
        .args(["hill", "add"])
        .args(bots)
        .arg("--hill")
        .arg(dir)
        .output()
        .unwrap()
}

pub(crate) fn add_ok(dir: &Path, bots: &[&Path]) -> String {
    let output = add(dir, bots);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn start_run(dir: &Path, extra: &[&str]) -> Child {
    default_signals(&mut hill_command(dir))
        .args(["hill", "run"])
        .arg(dir)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits (at most 60 s) until `sql` counts at least `count`.
fn wait_for(dir: &Path, sql: &str, count: i64) {
    let start = Instant::now();
    loop {
        if dir.join("results.sqlite").exists() && query(dir, sql) >= count {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "waited a minute for {sql} to reach {count}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Games recorded with a seat of version `label` (`name vN`).
fn games_of(label: &str) -> String {
    format!("SELECT COUNT(*) FROM results r JOIN bots b ON b.id = r.bot WHERE b.name = '{label}'")
}

/// Rates the games a stopped hill recorded and had not rated yet (a game that ended as the
/// stop came): the next run does it as it starts, and this one plays no game.
fn rate_what_the_stop_left(dir: &Path) {
    let rated = start_run(dir, &["--games", "0"])
        .wait_with_output()
        .unwrap();
    assert!(rated.status.success(), "{rated:?}");
}

/// Every recorded game counted once, everywhere the hill counts it.
fn assert_counted_once(dir: &Path) {
    let results = query(dir, "SELECT COUNT(*) FROM results");
    let done = query(dir, "SELECT COUNT(*) FROM games WHERE state = 'done'");
    assert_eq!(
        results,
        query(
            dir,
            "SELECT COUNT(*) FROM seats s JOIN games g ON g.idx = s.game WHERE g.state = 'done'"
        ),
        "one result per seat of every game done"
    );
    assert_eq!(
        query(dir, "SELECT COUNT(*) FROM hill_games WHERE rated = 1"),
        done
    );
    assert_eq!(
        query(dir, "SELECT COALESCE(SUM(games), 0) FROM hill_lineups"),
        done,
        "each game's line-up counted once"
    );
    assert_eq!(query(dir, "SELECT COUNT(*) FROM hill_ratings"), results);
    assert_eq!(
        query(dir, "SELECT COALESCE(SUM(games), 0) FROM hill_versions"),
        results
    );
}

/// Stops a run as Ctrl-C would; what it wrote to its terminal's stderr.
fn stop(child: Child) -> String {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn bots_added_while_the_hill_plays_get_games_and_a_new_version_replaces_the_old() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "placement_games = 3\n");
    let strong = graded(tmp.path(), "strong", "Strong", 1.0);
    let weak = graded(tmp.path(), "weak", "Weak", 0.0);
    let out = add_ok(&dir, &[&strong, &weak]);
    assert!(
        out.contains("Strong v1: accepted") && out.contains("Weak v1: accepted"),
        "{out}"
    );
    // Copied into the hill, never used in place: the author's folder may change or go.
    assert_eq!(std::fs::read_dir(dir.join("versions")).unwrap().count(), 2);
    let run = start_run(&dir, &[]);
    wait_for(&dir, "SELECT COUNT(*) FROM games WHERE state = 'done'", 3);
    // A second run of the same hill is refused while the first plays.
    let second = hill_command(&dir)
        .args(["hill", "run"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!second.status.success());
    assert!(String::from_utf8_lossy(&second.stderr).contains("in use by another koth"));

    let middle = graded(tmp.path(), "middle", "Middle", 0.6);
    add_ok(&dir, &[&middle]);
    wait_for(&dir, &games_of("Middle v1"), 3);
    let reasons = query(
        &dir,
        "SELECT COUNT(*) FROM hill_games WHERE reason LIKE 'placement game 1 of 3 for Middle v1%'",
    );
    assert_eq!(
        reasons, 1,
        "its first game was chosen as a placement game, and says so"
    );

    // The same name again, with other contents: its next version.
    std::fs::write(
        weak.join("bot.toml"),
        "name = \"Weak\"\nrun = \"python3 -u graded.py 0.3\"\ngames = [\"tictactoe\"]\n",
    )
    .unwrap();
    let out = add_ok(&dir, &[&weak]);
    assert!(out.contains("Weak v2: accepted"), "{out}");
    let v1_then = query(&dir, &games_of("Weak v1"));
    wait_for(&dir, &games_of("Weak v2"), 3);
    // Games of v1 chosen before v2 arrived may finish (at most `jobs` were running); no more.
    assert!(query(&dir, &games_of("Weak v1")) <= v1_then + 2);
    // The same folder again is not a new version.
    let same = add(&dir, &[&weak]);
    assert!(!same.status.success());
    assert!(String::from_utf8_lossy(&same.stdout).contains("already its current version, v2"));
    stop(run);
    rate_what_the_stop_left(&dir);
    assert_counted_once(&dir);

    let board = leaderboard(&dir);
    let standings = board["standings"].as_array().unwrap();
    let names: Vec<(&str, u64)> = standings
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["version"].as_u64().unwrap()))
        .collect();
    assert_eq!(names.len(), 3, "{board}");
    assert!(
        names.contains(&("Weak", 2)) && !names.contains(&("Weak", 1)),
        "{names:?}"
    );
    for s in standings {
        assert!(s["games"].as_u64().unwrap() >= 3, "{s}");
    }
    // The old version's games stay in the history.
    let status = succeed(koth().args(["hill", "status"]).arg(&dir));
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(status.contains("Weak v1: replaced after"), "{status}");
}

#[test]
fn a_hill_killed_at_any_moment_loses_and_repeats_no_game_nor_half_adds_a_bot() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "sandbox = false\nplacement_games = 2\n");
    let bots: Vec<PathBuf> = (0..3)
        .map(|k| {
            graded(
                tmp.path(),
                &format!("b{k}"),
                &format!("B{k}"),
                k as f64 / 2.0,
            )
        })
        .collect();
    let refs: Vec<&Path> = bots.iter().map(PathBuf::as_path).collect();
    // Killed while adding (copying, building or validating): absent, or whole.
    let mut adding = hill_command(&dir)
        .args(["hill", "add"])
        .args(&refs)
        .arg("--hill")
        .arg(&dir)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    adding.kill().unwrap();
    adding.wait().unwrap();
    let versions = query(&dir, "SELECT COUNT(*) FROM hill_versions");
    assert_eq!(query(&dir, "SELECT COUNT(*) FROM bots"), versions);
    for entry in std::fs::read_dir(dir.join("versions"))
        .into_iter()
        .flatten()
    {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if !name.contains(".partial") {
            assert!(
                query(
                    &dir,
                    &format!("SELECT COUNT(*) FROM hill_versions WHERE digest = '{name}'")
                ) <= 1
            );
        }
    }
    // Added again: those already in are their current version, the rest join.
    let _ = add(&dir, &refs);
    assert_eq!(query(&dir, "SELECT COUNT(*) FROM hill_versions"), 3);

    for round in 0..2 {
        let mut run = start_run(&dir, &[]);
        let before = query(&dir, "SELECT COUNT(*) FROM games WHERE state = 'done'");
        wait_for(
            &dir,
            "SELECT COUNT(*) FROM games WHERE state = 'done'",
            before + 2 + round,
        );
        run.kill().unwrap(); // SIGKILL: no chance to clean up
        run.wait().unwrap();
        // The queue is in the database: chosen games were written before they were played.
        assert!(
            query(
                &dir,
                "SELECT COUNT(*) FROM games WHERE state IN ('pending', 'running')"
            ) > 0
        );
    }
    let done = query(&dir, "SELECT COUNT(*) FROM games WHERE state = 'done'");
    let output = hill_command(&dir)
        .args(["hill", "run"])
        .arg(&dir)
        .args(["--games", "3"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        query(&dir, "SELECT COUNT(*) FROM games WHERE state = 'done'"),
        done + 3
    );
    assert_counted_once(&dir);
    // Each game's seed is the hill's seed and its number's, whenever it was chosen.
    let seeds: Vec<i64> = (0..2)
        .map(|g| query(&dir, &format!("SELECT seed FROM games WHERE idx = {g}")))
        .collect();
    assert_ne!(seeds[0], seeds[1]);
}

#[test]
fn hill_run_games_n_rates_exactly_n_more_games_playing_several_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    // The file's jobs: 2 at once.
    let dir = hill(tmp.path(), "sandbox = false\n");
    let bots: Vec<PathBuf> = (0..3)
        .map(|k| graded(tmp.path(), &format!("b{k}"), &format!("B{k}"), 0.5))
        .collect();
    let refs: Vec<&Path> = bots.iter().map(PathBuf::as_path).collect();
    add_ok(&dir, &refs);
    let rated = "SELECT COUNT(*) FROM hill_games WHERE rated = 1";
    let done = "SELECT COUNT(*) FROM games WHERE state = 'done'";
    let run = |games: &str, extra: &[&str]| {
        succeed(
            hill_command(&dir)
                .args(["hill", "run"])
                .arg(&dir)
                .args(["--games", games])
                .args(extra),
        )
    };
    run("5", &[]);
    assert_eq!(query(&dir, rated), 5);
    // A run stopped while it plays leaves games queued: the next plays them first.
    let playing = start_run(&dir, &["--jobs", "3"]);
    wait_for(&dir, done, 7);
    stop(playing);
    assert!(
        query(
            &dir,
            "SELECT COUNT(*) FROM games WHERE state IN ('pending', 'running')"
        ) > 0
    );
    // Games recorded and not yet rated when it stopped are rated, and not counted.
    let before = query(&dir, done);
    run("4", &["--jobs", "3"]);
    assert_eq!(query(&dir, rated), before + 4);
    run("1", &["--jobs", "3"]);
    assert_eq!(query(&dir, rated), before + 5);
    assert_counted_once(&dir);
}

#[test]
fn a_bot_that_faults_too_often_is_suspended_until_resumed_or_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(
        tmp.path(),
        "sandbox = false\nplacement_games = 2\nsuspend_window = 4\nsuspend_share = 0.2\n",
    );
    let good = graded(tmp.path(), "good", "Good", 1.0);
    let other = graded(tmp.path(), "other", "Other", 0.5);
    // Plays its validation game well, then crashes at its first move in every later game.
    let flaky = tmp.path().join("flaky");
    std::fs::create_dir_all(&flaky).unwrap();
    let counter = tmp.path().join("flaky-games");
    std::fs::write(
        flaky.join("flaky.sh"),
        format!(
            "#!/bin/sh\necho x >> {counter:?}\n\
             if [ $(wc -l < {counter:?}) -gt 2 ]; then exit 3; fi\n\
             exec python3 -u {:?} 1.0\n",
            good.join("graded.py")
        ),
    )
    .unwrap();
    std::fs::write(
        flaky.join("bot.toml"),
        "name = \"Flaky\"\nrun = \"sh flaky.sh\"\ngames = [\"tictactoe\"]\n",
    )
    .unwrap();
    add_ok(&dir, &[&good, &other, &flaky]);
    let suspended = "SELECT COUNT(*) FROM hill_versions WHERE suspended IS NOT NULL";
    let run = start_run(&dir, &["--serve", "127.0.0.1:0"]);
    wait_for(&dir, suspended, 1);
    let status = succeed(koth().args(["hill", "status"]).arg(&dir));
    let status = String::from_utf8_lossy(&status.stdout);
    // The hint is a whole command, as it can be pasted.
    let resume = format!("`koth hill resume-bot \"Flaky\" --hill {}`", dir.display());
    assert!(
        status.contains("Flaky v1 is suspended: faults (crashed") && status.contains(&resume),
        "{status}"
    );
    // Told once, with the command that resumes it, and not listed in the table. (The kings'
    // history may name it: it can win its first games' rounds before it crashes.)
    let told = status.split("\nKings:").next().unwrap_or_default();
    assert_eq!(told.matches("Flaky v1").count(), 1, "{status}");
    // Suspended as soon as it could play none of its first 3 games, not after a window of 4.
    assert!(
        status.contains("in each of its first 3 games (games "),
        "{status}"
    );
    // Listed apart, not ranked: not in the standings, never king, its state "suspended" on the
    // board and on its own record.
    let board = leaderboard(&dir);
    let standings = board["standings"].as_array().unwrap();
    assert!(standings.iter().all(|s| s["name"] != "Flaky"), "{board}");
    assert!(standings.iter().all(|s| s["state"] == "active"), "{board}");
    assert_eq!(board["suspended"][0]["name"], "Flaky", "{board}");
    assert_eq!(board["suspended"][0]["state"], "suspended", "{board}");
    assert!(
        board["suspended"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("crashed")
    );
    assert_ne!(board["king"], "Flaky v1", "{board}");
    // The king, if any, is the table's first (none until the next fit if Flaky was king).
    if !board["king"].is_null() {
        let first = format!(
            "{} v{}",
            standings[0]["name"].as_str().unwrap(),
            standings[0]["version"]
        );
        assert_eq!(board["king"], first.as_str(), "{board}");
    }
    let table =
        String::from_utf8_lossy(&succeed(koth().arg("leaderboard").arg(&dir)).stdout).to_string();
    assert!(table.contains("Suspended:\n  Flaky v1 ("), "{table}");
    // Suspended: no more games of it.
    std::thread::sleep(Duration::from_millis(300));
    let then = query(&dir, &games_of("Flaky v1"));
    wait_for(
        &dir,
        "SELECT COUNT(*) FROM games WHERE state = 'done'",
        query(&dir, "SELECT COUNT(*) FROM games WHERE state = 'done'") + 4,
    );
    assert!(query(&dir, &games_of("Flaky v1")) <= then + 1);

    // Resumed: scheduled again, its faults counted afresh.
    succeed(
        koth()
            .args(["hill", "resume-bot", "Flaky", "--hill"])
            .arg(&dir),
    );
    assert_eq!(query(&dir, suspended), 0);
    let resumed = query(&dir, &games_of("Flaky v1"));
    wait_for(&dir, &games_of("Flaky v1"), resumed + 2);

    // A fixed version brings it back too.
    wait_for(&dir, suspended, 1);
    std::fs::write(
        flaky.join("flaky.sh"),
        format!("exec python3 -u {:?} 1.0\n", good.join("graded.py")),
    )
    .unwrap();
    add_ok(&dir, &[&flaky]);
    wait_for(&dir, &games_of("Flaky v2"), 2);
    // Rolled back by the owner to v1, kept with its games: v2 replaced, v1 scheduled again.
    let rollback = |version: &str| {
        koth()
            .args(["hill", "rollback", "Flaky", version, "--hill"])
            .arg(&dir)
            .output()
            .unwrap()
    };
    let v1_games = query(&dir, &games_of("Flaky v1"));
    let back = rollback("v1");
    let said = String::from_utf8_lossy(&back.stdout);
    assert!(back.status.success(), "{said}");
    assert!(
        said.contains("\"Flaky\" v1 is its active version again in place of v2"),
        "{said}"
    );
    let states = |version: i64| {
        query(
            &dir,
            &format!(
                "SELECT COUNT(*) FROM hill_versions WHERE name = 'Flaky' AND version = {version} \
                 AND state = 'active' AND suspended IS NULL"
            ),
        )
    };
    assert_eq!((states(1), states(2)), (1, 0));
    wait_for(&dir, &games_of("Flaky v1"), v1_games + 1);
    // The same again, or a version it never had: refused, naming what there is.
    let again = rollback("1");
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("is its active version already"));
    let none = rollback("7");
    assert!(!none.status.success());
    assert!(
        String::from_utf8_lossy(&none.stderr).contains("has no v7; its versions are v1, v2"),
        "{}",
        String::from_utf8_lossy(&none.stderr)
    );
    // The owner's terminal told each event as it happened, hints whole.
    let told = stop(run);
    // Stopped, it says how to go on as it was started, serving its pages.
    let going_on = format!("koth hill run {} --serve 127.0.0.1:0", dir.display());
    for line in [
        "koth: Flaky v1 is suspended: faults (crashed",
        &resume,
        "koth: Flaky v1 is scheduled again (resumed)",
        &going_on,
        "koth: Flaky v2 accepted: it replaces v1",
        "koth: Flaky v1 is its bot's active version again (rolled back), in place of v2",
        "is the new king",
    ] {
        assert!(told.contains(line), "{line:?} not in:\n{told}");
    }
    rate_what_the_stop_left(&dir);
    assert_counted_once(&dir);
    let unknown = koth()
        .args(["hill", "retire", "Nobody", "--hill"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no active bot \"Nobody\""));
}

/// Copies the folder `from` to `to`, files and folders, skipping what is gone by the time it is
/// read: a copy taken of a hill that plays on.
fn copy_while_it_changes(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    for entry in entries.flatten() {
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => copy_while_it_changes(&source, &target),
            Ok(kind) if kind.is_symlink() => {
                if let Ok(link) = std::fs::read_link(&source) {
                    std::os::unix::fs::symlink(link, &target).unwrap();
                }
            }
            Ok(_) => match std::fs::copy(&source, &target) {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => panic!("copying {}: {e}", source.display()),
            },
            Err(_) => {}
        }
    }
}

#[test]
fn a_backup_taken_while_the_hill_plays_restores_into_a_copy_that_plays_on() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "");
    let strong = graded(tmp.path(), "strong", "Strong", 1.0);
    let weak = graded(tmp.path(), "weak", "Weak", 0.0);
    add_ok(&dir, &[&strong, &weak]);
    let run = start_run(&dir, &[]);
    let done = "SELECT COUNT(*) FROM games WHERE state = 'done'";
    wait_for(&dir, done, 3);
    let file = tmp.path().join("hill-backup.sqlite");
    let backup = succeed(
        koth()
            .args(["hill", "backup"])
            .arg(&dir)
            .arg("--to")
            .arg(&file),
    );
    let said = String::from_utf8_lossy(&backup.stdout);
    assert!(said.contains("koth hill restore"), "{said}");
    // The versions' and games' folders, copied while the hill still plays (a game's folder
    // may go between reading a folder and copying its files: what went is not copied).
    let copy = tmp.path().join("copy");
    copy_while_it_changes(&dir, &copy);
    // A running hill's database is not replaced under it.
    let refused = koth()
        .args(["hill", "restore"])
        .arg(&dir)
        .arg("--from")
        .arg(&file)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("in use by another koth"));
    wait_for(&dir, done, 6);
    stop(run);

    succeed(
        koth()
            .args(["hill", "restore"])
            .arg(&copy)
            .arg("--from")
            .arg(&file),
    );
    let restored = query(&copy, done);
    assert!(restored >= 3, "{restored}");
    // The backup may fall between a game's record and its rating: the copy's run rates such a
    // game when it starts, so every game is counted once after it.
    run_games(&copy, 3);
    assert!(query(&copy, done) >= restored + 3);
    assert_counted_once(&copy);
}

#[test]
fn a_graded_pool_is_ranked_in_its_true_order() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "sandbox = false\nplacement_games = 4\n");
    let strengths = [0.0, 0.5, 1.0];
    let bots: Vec<PathBuf> = strengths
        .iter()
        .map(|p| graded(tmp.path(), &format!("p{p}"), &format!("p={p}"), *p))
        .collect();
    let refs: Vec<&Path> = bots.iter().map(PathBuf::as_path).collect();
    add_ok(&dir, &refs);
    run_games(&dir, 36);
    let board = leaderboard(&dir);
    let order: Vec<&str> = board["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["p=1", "p=0.5", "p=0"], "{board}");
    // The king is the table's first, crowned once its lead is clear.
    assert_eq!(board["king"], "p=1 v1", "{board}");
    assert_eq!(board["ranking"], "placement", "{board}");
    for s in board["standings"].as_array().unwrap() {
        assert!(s["low"].as_f64().unwrap() < s["rating"].as_f64().unwrap());
    }
}

#[test]
fn two_perfect_players_are_level_and_no_lead_of_nothing_is_told() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(tmp.path(), "sandbox = false\nplacement_games = 2\n");
    let bots = [
        graded(tmp.path(), "a", "A", 1.0),
        graded(tmp.path(), "b", "B", 1.0),
    ];
    add_ok(&dir, &[&bots[0], &bots[1]]);
    run_games(&dir, 4);
    // Every game a draw: the two are fitted alike, and the board says so in words.
    let board = leaderboard(&dir);
    assert!(board["lead"]["by"].as_f64().unwrap().abs() < 0.5, "{board}");
    let table =
        String::from_utf8_lossy(&succeed(koth().arg("leaderboard").arg(&dir)).stdout).to_string();
    let second = board["lead"]["second"].as_str().unwrap();
    assert!(
        table.contains(&format!("(level with {second} (their intervals overlap))")),
        "{table}"
    );
    assert!(!table.contains(" by 0,"), "{table}");
}

/// A planned Grid-Routing Battle bot `name` in `root/<name>` (`scripts/planned-paths`): one role
/// a round, so what it scores against each other planned bot is known exactly.
fn planned(root: &Path, name: &str, plan: &str) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        repo().join("scripts/planned-paths/planned.py"),
        dir.join("planned.py"),
    )
    .unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = {name:?}\nrun = \"python3 planned.py {plan}\"\ngames = [\"paths\"]\n"),
    )
    .unwrap();
    dir
}

#[test]
fn a_points_game_is_ranked_by_points_where_an_order_model_sees_a_tie() {
    // Three planned bots in games of two, eleven rounds (scripts/planned-paths: L with T scores
    // 8 and 2, L with U 6 and 6, anything else 0): A beats B 8–2, B beats C 32–26, C beats A
    // 42–18. Each wins one pairing, so by places they are alike; by points C scores most
    // (34 a game against the other two), then B (17), then A (13), and C outscores its table by
    // the most, A by the least.
    let tmp = tempfile::tempdir().unwrap();
    let dir = create_hill(
        tmp.path(),
        "game = \"paths\"\nplayers_per_game = 2\nrounds = 11\nanswer_ms = 2000\nseed = 3\n\
         jobs = 1\nsandbox = false\nplacement_games = 2\n",
    );
    let bots = [
        planned(tmp.path(), "A", "TTTTTLLIIII"),
        planned(tmp.path(), "B", "IIIIILTUUUU"),
        planned(tmp.path(), "C", "LLLLLTILLLL"),
    ];
    let refs: Vec<&Path> = bots.iter().map(PathBuf::as_path).collect();
    add_ok(&dir, &refs);
    run_games(&dir, 6);
    let board = leaderboard(&dir);
    assert_eq!(board["ranking"], "points", "{board}");
    let order: Vec<&str> = board["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["C", "B", "A"], "{board}");
    // The king is the table's first (each has played its two placement games), however sure
    // its lead; the lead says how sure, here and in the table's title.
    assert_eq!(
        board["king"], "C v1",
        "the king is the table's first: {board}"
    );
    let lead = &board["lead"];
    assert_eq!(lead["first"], "C v1", "{board}");
    assert_eq!(lead["second"], "B v1", "{board}");
    let (by, interval) = (
        lead["by"].as_f64().unwrap(),
        lead["interval"].as_f64().unwrap(),
    );
    assert!(by > 0.0 && interval > 0.0, "{board}");
    // Sure by the intervals the table shows: the king's lies wholly above the runner-up's.
    let standings = board["standings"].as_array().unwrap();
    let apart = standings[0]["low"].as_f64().unwrap() > standings[1]["high"].as_f64().unwrap();
    assert_eq!(lead["sure"], apart, "{board}");
    let table =
        String::from_utf8_lossy(&succeed(koth().arg("leaderboard").arg(&dir)).stdout).to_string();
    let king_line = format!(
        "king: C v1 (leads B v1 by {by:.2}, {})",
        if apart {
            "sure (their intervals are apart)"
        } else {
            "not yet sure (their intervals overlap)"
        }
    );
    assert!(table.contains(&king_line), "{king_line}\n{table}");

    // The same games, as an order model reads them: every pairing was won by each side in
    // turn, so it tells the three apart by no more than its own uncertainty.
    let db = rusqlite::Connection::open(dir.join("results.sqlite")).unwrap();
    // Matchmaking reads this fit (a points game's places alone would tie the three): stored
    // with it, the interval of a version without games, where a version not yet fitted
    // starts; every version with games is surer.
    let unplayed: f64 = db
        .query_row("SELECT value FROM meta WHERE key = 'unplayed'", [], |r| {
            r.get::<_, String>(0)
        })
        .unwrap()
        .parse()
        .unwrap();
    let widest: f64 = db
        .query_row("SELECT MAX(half_width) FROM hill_fit", [], |r| r.get(0))
        .unwrap();
    assert!(unplayed > widest && widest > 0.0, "{unplayed} {widest}");
    let mut games: std::collections::BTreeMap<i64, Vec<(usize, f64)>> = Default::default();
    let mut rows = db
        .prepare("SELECT game, bot, score FROM results ORDER BY game, seat")
        .unwrap();
    let rows = rows
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, f64>(2)?,
            ))
        })
        .unwrap();
    let mut players = 0;
    for row in rows {
        let (game, version, score) = row.unwrap();
        let player = usize::try_from(version).unwrap();
        players = players.max(player + 1);
        games.entry(game).or_default().push((player, score));
    }
    assert_eq!(games.len(), 6);
    let mut placement = koth::ranking::Games::new(koth::ranking::Ranking::Placement);
    for seated in games.values() {
        placement.add(seated);
    }
    let fitted =
        koth::ranking::fit(&placement, &vec![koth::ranking::Start::default(); players]).strengths;
    let (low, high) = fitted.iter().fold((f64::MAX, f64::MIN), |(lo, hi), s| {
        (lo.min(s.value), hi.max(s.value))
    });
    let narrowest = fitted.iter().map(|s| s.interval).fold(f64::MAX, f64::min);
    assert!(
        high - low < narrowest,
        "an order model tells the cycle apart: {fitted:?}"
    );
}

#[test]
fn a_new_hill_with_fewer_bots_than_a_game_seats_plays_them_all() {
    // paths takes 2 or more: a hill of seven a game with two bots plays games of two.
    let tmp = tempfile::tempdir().unwrap();
    let dir = create_hill(
        tmp.path(),
        "game = \"paths\"\nplayers_per_game = 7\nrounds = 1\nanswer_ms = 2000\nseed = 3\n\
         jobs = 1\nsandbox = false\n",
    );
    let bots = [
        planned(tmp.path(), "Low", "L"),
        planned(tmp.path(), "Top", "T"),
    ];
    let refs: Vec<&Path> = bots.iter().map(PathBuf::as_path).collect();
    add_ok(&dir, &refs);
    run_games(&dir, 2);
    assert_eq!(query(&dir, "SELECT COUNT(*) FROM results"), 4);
    // L with T: 8 points and 2, each game.
    assert_eq!(
        query(&dir, "SELECT CAST(SUM(score) AS INTEGER) FROM results"),
        20
    );
    // Two games of the default 10 placement games each: listed, placing, not ranked; no king.
    let board = leaderboard(&dir);
    assert_eq!(board["placement_games"], 10, "{board}");
    assert!(board["king"].is_null(), "{board}");
    for standing in board["standings"].as_array().unwrap() {
        assert!(standing["rank"].is_null(), "{board}");
        assert_eq!(standing["state"], "placing", "{board}");
    }
    let table =
        String::from_utf8_lossy(&succeed(koth().arg("leaderboard").arg(&dir)).stdout).to_string();
    assert!(table.contains("2 of 10 (placing)"), "{table}");
    // A third bot: games of three now. Every count is the games table's, whatever the seats.
    let third = planned(tmp.path(), "Mid", "L");
    add_ok(&dir, &[&third]);
    run_games(&dir, 2);
    assert_eq!(query(&dir, "SELECT COUNT(*) FROM results"), 10);
    let done = query(&dir, "SELECT COUNT(*) FROM games WHERE state = 'done'");
    assert_eq!(done, 4);
    assert_eq!(leaderboard(&dir)["games_done"], done, "koth leaderboard");
    let status = succeed(koth().args(["hill", "status"]).arg(&dir));
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(
        status.contains(&format!(": {done} games played;")),
        "{status}"
    );
}

#[test]
fn a_hill_lists_the_languages_it_offers_and_refuses_a_bot_using_another_or_a_full_path() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hill(
        tmp.path(),
        "sandbox = false\nlanguages = [\"python3\", \"sh\"]\n",
    );
    let graded_bot = graded(tmp.path(), "good", "Good", 1.0);
    // A bot in a language the hill does not offer, and one naming its interpreter by a path.
    let bash = tmp.path().join("bash-bot");
    std::fs::create_dir_all(&bash).unwrap();
    std::fs::write(
        bash.join("bot.toml"),
        "name = \"Bash\"\nrun = \"bash bot.sh\"\ngames = [\"tictactoe\"]\n",
    )
    .unwrap();
    let pathed = tmp.path().join("pathed");
    std::fs::create_dir_all(&pathed).unwrap();
    std::fs::copy(graded_bot.join("graded.py"), pathed.join("graded.py")).unwrap();
    std::fs::write(
        pathed.join("bot.toml"),
        "name = \"Pathed\"\nrun = \"/usr/bin/python3 -u graded.py 1.0\"\n\
         games = [\"tictactoe\"]\n",
    )
    .unwrap();
    let output = add(&dir, &[&graded_bot, &bash, &pathed]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!output.status.success(), "{said}");
    assert!(
        said.contains(
            "its command uses `bash`, which this hill does not offer (it offers python3, sh)"
        ),
        "{said}"
    );
    assert!(
        said.contains(
            "its command names the program /usr/bin/python3 by a full path: name the language \
             instead (this hill offers python3, sh)"
        ),
        "{said}"
    );
    assert_eq!(
        query(&dir, "SELECT COUNT(*) FROM hill_versions"),
        1,
        "{said}"
    );

    // `hill status` and `/api/hill` list them with their versions.
    let status = succeed(koth().args(["hill", "status"]).arg(&dir));
    let status = String::from_utf8_lossy(&status.stdout);
    let listed = status
        .split_once("Languages offered")
        .unwrap_or_else(|| panic!("{status}"))
        .1;
    assert!(listed.contains("\n  python3  Python 3."), "{status}");
    assert!(listed.contains("\n  sh "), "{status}");
    let (_server, port) = crate::dashboard::serve(&dir);
    let (head, body) = crate::dashboard::get(port, "/api/hill");
    assert!(head.contains(" 200 "), "{head}: {body}");
    let api: serde_json::Value = serde_json::from_str(&body).unwrap();
    let languages = api["languages"].as_array().unwrap();
    let names: Vec<&str> = languages
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["python3", "sh"], "{api}");
    assert!(
        languages[0]["version"]
            .as_str()
            .is_some_and(|v| v.starts_with("Python 3.")),
        "{api}"
    );
}

/// A Grid-Routing Battle bot that answers `NONE` to everything, and exits at once (a crash)
/// when a round seats `crash_at` bots.
fn crashes_at(root: &Path, name: &str, crash_at: usize) -> PathBuf {
    let dir = root.join(name.to_lowercase());
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("bot.py"),
        format!(
            "import sys\nfor line in sys.stdin:\n    w = line.split()\n    \
             if w and w[0] == 'BEGIN' and int(w[1]) == {crash_at}:\n        sys.exit(3)\n    \
             if w and w[0] in ('DESTROY', 'ACTIVATE'):\n        print('NONE', flush=True)\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = {name:?}\nrun = \"python3 -u bot.py\"\ngames = [\"paths\"]\n"),
    )
    .unwrap();
    dir
}

#[test]
fn a_hill_seats_no_game_below_min_players_and_validates_a_newcomer_at_both_sizes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = create_hill(
        tmp.path(),
        "game = \"paths\"\nplayers_per_game = 4\nmin_players = 3\nrounds = 2\n\
         answer_ms = 2000\nseed = 3\njobs = 1\nsandbox = false\n",
    );
    // Plays at 3 seats, crashes at 4: refused at validation, the size named, never ranked.
    let refused = add(&dir, &[&crashes_at(tmp.path(), "Four", 4)]);
    let said = String::from_utf8_lossy(&refused.stdout);
    assert!(!refused.status.success(), "{said}");
    assert!(
        said.contains("Four: refused") && said.contains("its validation game of 4 seats"),
        "{said}"
    );
    // The same at the fewest.
    let refused = add(&dir, &[&crashes_at(tmp.path(), "Three", 3)]);
    let said = String::from_utf8_lossy(&refused.stdout);
    assert!(said.contains("its validation game of 3 seats"), "{said}");
    // Two that play at any size: fewer than `min_players`, so no game is seated; the run
    // says it waits, and plays once a third arrives, never at two.
    add_ok(
        &dir,
        &[
            &crashes_at(tmp.path(), "Calm", 9),
            &crashes_at(tmp.path(), "Quiet", 9),
        ],
    );
    let run = start_run(&dir, &[]);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(query(&dir, "SELECT COUNT(*) FROM games"), 0);
    // `hill status` and the board (so `/api/hill` and the page) say why nothing plays.
    let waits = "waits for bots: 2 versions scheduled, each game needs 3";
    let status = succeed(koth().args(["hill", "status"]).arg(&dir));
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(status.contains(&format!("The hill {waits}")), "{status}");
    let board = leaderboard(&dir);
    assert_eq!(board["waiting"]["scheduled"], 2, "{board}");
    assert_eq!(board["waiting"]["needs"], 3, "{board}");
    add_ok(&dir, &[&crashes_at(tmp.path(), "Still", 9)]);
    wait_for(&dir, "SELECT COUNT(*) FROM games WHERE state = 'done'", 2);
    assert!(leaderboard(&dir)["waiting"].is_null());
    let told = stop(run);
    assert!(told.contains(&format!("the hill {waits}")), "{told}");
    assert_eq!(
        query(
            &dir,
            "SELECT COUNT(*) FROM (SELECT game FROM seats GROUP BY game HAVING COUNT(*) < 3)"
        ),
        0,
        "a game seated below min_players"
    );
}
