//! A hill in a real PostgreSQL server (`support::postgres`), played by its `hill run` and two
//! `koth worker` processes that share no folder with it: each gets the versions' files from the
//! database by digest. Every game is recorded once and rated once, whatever is killed.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::dashboard::Killed;
use crate::hill::graded;
use crate::support::cpus::own_cpu_locks;
use crate::support::postgres;
use crate::support::signals::default_signals;
use crate::support::survivors::wait_for_none_working_in;
use crate::support::tournament::{koth, succeed};
use crate::workers::{count, finished};

/// A noughts & crosses bot `name` in `root/<folder>` that thinks `ms` before each move (the
/// first free square), so its games last long enough to kill a worker in one; with `only_in`,
/// only when it plays in that folder (a machine's `--dir`, made slow), and at once elsewhere.
fn slow(root: &Path, folder: &str, name: &str, ms: u32, only_in: Option<&Path>) -> PathBuf {
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("slow.py"),
        format!(
            "import os, sys, time\n\
             pause = {}\n\
             if len(sys.argv) > 1 and not os.getcwd().startswith(sys.argv[1] + '/'):\n\
             \x20   pause = 0\n\
             for line in sys.stdin:\n\
             \x20   words = line.split()\n\
             \x20   if words and words[0] == 'MOVE':\n\
             \x20       time.sleep(pause)\n\
             \x20       print(words[1].index('.'), flush=True)\n",
            f64::from(ms) / 1000.0
        ),
    )
    .unwrap();
    // The folder as the bot's `getcwd` names it: links resolved.
    let run = match only_in {
        Some(folder) => format!(
            "python3 -u slow.py {}",
            folder.canonicalize().unwrap().display()
        ),
        None => "python3 -u slow.py".to_string(),
    };
    std::fs::write(
        dir.join("bot.toml"),
        format!("name = {name:?}\nrun = {run:?}\ngames = [\"tictactoe\"]\n"),
    )
    .unwrap();
    dir
}

/// A `koth` command with the CPU locks of this test's own (tests run side by side).
fn command(root: &Path) -> Command {
    let mut command = koth();
    own_cpu_locks(&mut command, root);
    command
}

/// A `koth worker --wait` of `url`, its `--root` an empty folder, playing `jobs` games at once
/// in `dir`.
fn worker(root: &Path, url: &str, dir: &Path, jobs: u32) -> Child {
    let empty = root.join("empty-root");
    std::fs::create_dir_all(&empty).unwrap();
    default_signals(&mut command(root))
        .args([
            "worker",
            "--db",
            url,
            "--lease-s",
            "3",
            "--jobs",
            &jobs.to_string(),
            "--wait",
        ])
        .arg("--root")
        .arg(&empty)
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// `hill run` of hill `name` of `url` in `dir` until `games` more games are rated.
fn hill_run(root: &Path, url: &str, name: &str, dir: &Path, games: u32) -> Child {
    command(root)
        .args([
            "hill",
            "run",
            "--db",
            url,
            name,
            "--jobs",
            "1",
            "--lease-s",
            "3",
        ])
        .arg("--games")
        .arg(games.to_string())
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits (at most `limit`) until `sql` counts at least `at_least`.
fn wait_for(url: &str, name: &str, sql: &str, at_least: i64, limit: Duration) {
    let start = Instant::now();
    while count(url, name, sql) < at_least {
        assert!(
            start.elapsed() < limit,
            "waited {limit:?} for {sql} to reach {at_least}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn signal(child: &Child, signal: nix::sys::signal::Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), signal).unwrap();
}

/// A game of the slow bot's (which lasts seconds), for [`kill_while_playing`].
const SLOW_GAME: &str = "EXISTS (SELECT 1 FROM seats s JOIN bots b ON b.id = s.bot \
                         WHERE s.game = games.idx AND b.name = 'Slow v1')";

/// Kills `child` (a worker or a hill run of hill `name`, its games in folder `dir`) with kill -9
/// once it plays a game that `which` (a condition on `games`) holds for, checks that no bot of
/// its outlives it, and returns that game's index. A claimed game is played once its folder is
/// there: before, the worker may still be getting the versions' files, and a kill then leaves
/// it none (CI failed so: "w1 fetched no version").
fn kill_while_playing(url: &str, name: &str, mut child: Child, dir: &Path, which: &str) -> i64 {
    let held = format!(
        "SELECT COALESCE(MIN(idx), -1) FROM games WHERE state = 'running' AND worker LIKE '%:{}:%' \
         AND {which}",
        child.id()
    );
    let start = Instant::now();
    loop {
        let game = count(url, name, &held);
        let playing = game >= 0 && dir.join("games").join(game.to_string()).is_dir();
        if playing {
            signal(&child, nix::sys::signal::Signal::SIGKILL);
            child.wait().unwrap();
            wait_for_none_working_in(dir);
            return game;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "it played no game within a minute"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Asserts that game `killed` of hill `name`, whose player was killed `lost` times while it
/// played it, was played again and counted once, each lost attempt a harness fault.
fn assert_played_again_once(url: &str, name: &str, killed: i64, lost: i64) {
    assert_eq!(
        count(
            url,
            name,
            &format!("SELECT COUNT(*) FROM games WHERE idx = {killed} AND state = 'done'")
        ),
        1
    );
    assert_eq!(
        count(
            url,
            name,
            &format!(
                "SELECT COUNT(*) FROM harness_faults WHERE game = {killed} \
                 AND message LIKE '%stopped renewing its claim%'"
            )
        ),
        lost
    );
}

/// The games (by index) whose folder in a machine's folder `dir` holds a result.
fn played_in(dir: &Path) -> Vec<i64> {
    std::fs::read_dir(dir.join("games"))
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let e = e.unwrap();
            e.path().join("results.json").exists().then_some(())?;
            e.file_name().to_str()?.parse().ok()
        })
        .collect()
}

#[test]
fn a_postgres_hill_is_played_by_its_run_and_two_workers_each_game_once_a_killed_ones_too() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let url = postgres::database("hill_pg");
    let file = root.join("hill-pg.toml");
    std::fs::write(
        &file,
        "game = \"tictactoe\"\nrounds = 2\nanswer_ms = 2000\nseed = 11\njobs = 1\n\
         sandbox = false\nplacement_games = 2\n",
    )
    .unwrap();
    let created = succeed(
        command(root)
            .args(["hill", "create"])
            .arg(&file)
            .args(["--db", &url]),
    );
    let created = String::from_utf8_lossy(&created.stdout);
    assert!(created.contains("Hill pg (tictactoe)"), "{created}");
    let name = "pg";

    // Added on a machine of its own: built and validated in its folder, stored in the database.
    let bots = [
        graded(root, "strong", "Strong", 1.0),
        graded(root, "weak", "Weak", 0.0),
        slow(root, "slow", "Slow", 250, None),
    ];
    let added = succeed(
        command(root)
            .args(["hill", "add"])
            .args(&bots)
            .args(["--db", &url, name, "--dir"])
            .arg(root.join("adder")),
    );
    let added = String::from_utf8_lossy(&added.stdout);
    assert!(added.contains("Slow v1: accepted"), "{added}");
    assert_eq!(count(&url, name, "SELECT COUNT(*) FROM hill_files"), 3);

    // A second hill run of the hill is refused while the first plays.
    let run = hill_run(root, &url, name, &root.join("runner"), 100);
    let (w1, w2) = (root.join("w1"), root.join("w2"));
    let first = worker(root, &url, &w1, 1);
    let second = worker(root, &url, &w2, 1);
    let rated = "SELECT COUNT(*) FROM hill_games WHERE rated = 1";
    wait_for(&url, name, rated, 1, Duration::from_secs(60));
    let again = command(root)
        .args(["hill", "run", "--db", &url, name, "--dir"])
        .arg(root.join("other"))
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("another `koth hill run`"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    // The first worker is killed with kill -9 while it plays a game, then the hill run while
    // it plays one: each game is played again once its lease runs out, and the run started
    // again takes the killed one's lock, gone with its connection.
    let killed_worker = kill_while_playing(&url, name, first, &w1.join(name), SLOW_GAME);
    wait_for(&url, name, rated, 4, Duration::from_secs(60));
    let killed_run = kill_while_playing(&url, name, run, &root.join("runner"), SLOW_GAME);
    let rated_before = count(&url, name, rated);
    finished(
        hill_run(root, &url, name, &root.join("runner"), 6),
        Duration::from_secs(180),
    );
    assert!(count(&url, name, rated) >= rated_before + 6);
    // What the run queued and did not wait for is played by the second worker.
    let unfinished = "SELECT COUNT(*) FROM games WHERE state IN ('pending', 'running')";
    let start = Instant::now();
    while count(&url, name, unfinished) > 0 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "games left unplayed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    signal(&second, nix::sys::signal::Signal::SIGTERM);
    let mut second = second;
    second.wait().unwrap();
    // Games recorded after the run stopped are rated when it runs again, once.
    finished(
        hill_run(root, &url, name, &root.join("runner"), 0),
        Duration::from_secs(60),
    );

    let done = count(
        &url,
        name,
        "SELECT COUNT(*) FROM games WHERE state = 'done'",
    );
    let results = count(&url, name, "SELECT COUNT(*) FROM results");
    assert!(done >= rated_before + 6, "{done} games done");
    assert_eq!(
        results,
        count(
            &url,
            name,
            "SELECT COUNT(*) FROM seats s JOIN games g ON g.idx = s.game WHERE g.state = 'done'"
        ),
        "one result per seat of every game done"
    );
    assert_eq!(count(&url, name, rated), done, "every game rated");
    assert_eq!(
        count(&url, name, "SELECT COUNT(*) FROM hill_ratings"),
        results,
        "each game rated once"
    );
    assert_eq!(
        count(
            &url,
            name,
            "SELECT CAST(COALESCE(SUM(games), 0) AS BIGINT) FROM hill_versions"
        ),
        results
    );
    // The killed worker's game and the killed run's (the same one, if the run was playing the
    // worker's again): played again, counted once, each lost attempt a harness fault.
    let kills = [killed_worker, killed_run];
    for killed in kills {
        let lost = kills.iter().filter(|&&k| k == killed).count() as i64;
        assert_played_again_once(&url, name, killed, lost);
    }

    // Each worker played games with files it got from the database alone.
    let (by_first, by_second) = (played_in(&w1.join(name)), played_in(&w2.join(name)));
    assert!(!by_second.is_empty(), "the second worker recorded no game");
    for dir in [&w1, &w2] {
        let versions: Vec<String> = std::fs::read_dir(dir.join(name).join("versions"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| !n.contains(".partial"))
            .collect();
        assert!(!versions.is_empty(), "{} fetched no version", dir.display());
        for digest in versions {
            assert_eq!(
                count(
                    &url,
                    name,
                    &format!("SELECT COUNT(*) FROM hill_versions WHERE digest = '{digest}'")
                ),
                1
            );
        }
    }
    assert!(by_first.iter().chain(&by_second).all(|game| {
        count(
            &url,
            name,
            &format!("SELECT COUNT(*) FROM games WHERE idx = {game} AND state = 'done'"),
        ) == 1
    }));

    // The hill's commands name it the same way: its status and its leaderboard.
    let status = succeed(command(root).args(["hill", "status", "--db", &url, name]));
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(status.contains("Strong"), "{status}");
    let board = succeed(koth().args(["leaderboard", "--format", "json", "--db", &url, name]));
    let board: serde_json::Value = serde_json::from_slice(&board.stdout).unwrap();
    let standings = board["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 3, "{board}");
    let games_in_board: u64 = standings.iter().map(|s| s["games"].as_u64().unwrap()).sum();
    assert_eq!(games_in_board as i64, results);
    succeed(command(root).args(["hill", "retire", "Weak", "--db", &url, name]));
    assert_eq!(
        count(
            &url,
            name,
            "SELECT COUNT(*) FROM hill_versions WHERE state = 'retired'"
        ),
        1
    );
}

#[test]
fn hill_run_games_n_rates_exactly_n_more_games_while_a_worker_plays_beside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let url = postgres::database("hill_games_n");
    let file = root.join("hill-exact.toml");
    std::fs::write(
        &file,
        "game = \"tictactoe\"\nrounds = 2\nanswer_ms = 2000\nseed = 5\njobs = 1\n\
         sandbox = false\n",
    )
    .unwrap();
    succeed(
        command(root)
            .args(["hill", "create"])
            .arg(&file)
            .args(["--db", &url]),
    );
    let name = "exact";
    // The run's machine is slow (its bots think 150 ms a move there, a game takes seconds)
    // and the worker's fast, with room for three games: while the run plays one game, the
    // worker records many. A run that rated every game recorded, or queued games whatever few
    // it still wanted, rated more than it was asked to (seen: 7 to 9 for 6, or 6 with games left
    // queued).
    let runner = root.join("runner");
    std::fs::create_dir_all(&runner).unwrap();
    let bots = [
        slow(root, "a", "A", 150, Some(&runner)),
        slow(root, "b", "B", 150, Some(&runner)),
        slow(root, "c", "C", 150, Some(&runner)),
    ];
    succeed(
        command(root)
            .args(["hill", "add"])
            .args(&bots)
            .args(["--db", &url, name, "--dir"])
            .arg(root.join("adder")),
    );
    // Killed however the test ends (it waits for games for ever); idle by then.
    let worker = Killed(worker(root, &url, &root.join("w"), 3));
    let rated = "SELECT COUNT(*) FROM hill_games WHERE rated = 1";
    let done = "SELECT COUNT(*) FROM games WHERE state = 'done'";
    let unfinished = "SELECT COUNT(*) FROM games WHERE state IN ('pending', 'running')";
    for run in 1..=2 {
        let before = count(&url, name, rated);
        finished(
            hill_run(root, &url, name, &runner, 6),
            Duration::from_secs(180),
        );
        assert_eq!(count(&url, name, rated), before + 6, "run {run}");
        // Nothing left behind to be played, recorded or rated after the run: it queued no game
        // it did not want.
        assert_eq!(count(&url, name, unfinished), 0, "run {run}");
        assert_eq!(count(&url, name, done), before + 6, "run {run}");
    }
    // Both played: the run (slowly) and the worker.
    assert!(!played_in(&runner).is_empty(), "the run played no game");
    assert!(!played_in(&root.join("w").join(name)).is_empty());
    drop(worker);
    assert_eq!(
        count(&url, name, "SELECT COUNT(*) FROM hill_ratings"),
        count(&url, name, "SELECT COUNT(*) FROM results"),
        "each game rated once"
    );
}

/// A contest on a PostgreSQL hill: closed by hand, its final played by its `hill run` and a
/// worker on another machine's folder, published once, and exported from the database's files
/// into an archive that verifies.
#[test]
fn a_postgres_hill_s_final_is_played_by_workers_too_and_its_export_verifies() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let url = postgres::database("hill_contest");
    let file = root.join("hill-final.toml");
    std::fs::write(
        &file,
        "game = \"tictactoe\"\nrounds = 2\nanswer_ms = 2000\nseed = 7\njobs = 1\n\
         sandbox = false\nplacement_games = 2\n\
         [contest]\ncloses = \"2099-01-01T00:00:00Z\"\nfinalists = 3\nbudget = 12\n",
    )
    .unwrap();
    succeed(
        command(root)
            .args(["hill", "create"])
            .arg(&file)
            .args(["--db", &url]),
    );
    let name = "final";
    let bots = [
        graded(root, "a", "A", 1.0),
        graded(root, "b", "B", 0.5),
        graded(root, "c", "C", 0.0),
    ];
    succeed(
        command(root)
            .args(["hill", "add"])
            .args(&bots)
            .args(["--db", &url, name, "--dir"])
            .arg(root.join("adder")),
    );
    let runner = root.join("runner");
    finished(
        hill_run(root, &url, name, &runner, 6),
        Duration::from_secs(180),
    );
    let closed = succeed(command(root).args(["contest", "close", name, "--db", &url]));
    assert!(String::from_utf8_lossy(&closed.stdout).contains("is closed at"));
    // A worker, with room for three games, beside a run that plays one at a time; killed with
    // kill -9 while it plays a final game, whose lease runs out and which another plays.
    let mut run = command(root);
    run.args([
        "hill",
        "run",
        "--db",
        &url,
        name,
        "--jobs",
        "1",
        "--lease-s",
        "3",
        "--dir",
    ])
    .arg(&runner)
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    let run = run.spawn().unwrap();
    let lost = root.join("lost");
    let killed = kill_while_playing(
        &url,
        name,
        worker(root, &url, &lost, 3),
        &lost.join(name),
        "idx IN (SELECT game FROM hill_final)",
    );
    let worker = Killed(worker(root, &url, &root.join("w"), 3));
    finished(run, Duration::from_secs(300));
    drop(worker);
    // The killed worker's game counted once, from the attempt that finished.
    assert_played_again_once(&url, name, killed, 1);
    assert_eq!(
        count(
            &url,
            name,
            "SELECT COUNT(*) FROM results r JOIN hill_final f ON f.game = r.game"
        ),
        2 * count(
            &url,
            name,
            "SELECT COUNT(*) FROM hill_final f JOIN games g ON g.idx = f.game \
             WHERE g.state = 'done'"
        ),
        "every final game scored once, two seats each"
    );
    let status = succeed(command(root).args(["contest", "status", name, "--db", &url]));
    let status = String::from_utf8_lossy(&status.stdout).into_owned();
    assert!(status.contains(": published"), "{status}");
    // Whole rounds of six, every one scored once, some by the worker.
    let scored = count(
        &url,
        name,
        "SELECT COUNT(*) FROM hill_final f JOIN games g ON g.idx = f.game \
         WHERE g.state = 'done'",
    );
    assert!(scored == 6 || scored == 12, "{scored} final games");
    let finals: Vec<i64> = played_in(&root.join("w").join(name))
        .into_iter()
        .filter(|g| {
            count(
                &url,
                name,
                &format!("SELECT COUNT(*) FROM hill_final WHERE game = {g}"),
            ) == 1
        })
        .collect();
    assert!(!finals.is_empty(), "the worker played no final game");
    let export = root.join("final.tar.gz");
    succeed(
        command(root)
            .args(["contest", "export", name, "--db", &url, "--to"])
            .arg(&export),
    );
    let verified = succeed(command(root).args(["contest", "verify"]).arg(&export));
    assert!(String::from_utf8_lossy(&verified.stdout).contains("bit for bit"));
}
