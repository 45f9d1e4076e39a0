//! One tournament played by workers through a real PostgreSQL server (`support::postgres`):
//! every game once whatever dies, the same scores as SQLite in one process, bots checked by
//! their content hash, several tournaments at once, and older schemas brought up to date.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::dashboard::{Killed, browser, get, screenshot, serve_with, text_of, until};
use crate::support::paths_bots::script_bot;
use crate::support::postgres;
use crate::support::tournament::{koth, query, succeed, tournament_file};

/// Three deterministic climbers under `root` (one sleeping `ms` before each answer, so games
/// last) and a tournament file of `games` games among them, two at a time.
fn climbers(root: &Path, games: u32, ms: u32, seed: u64) -> PathBuf {
    let bots = [
        script_bot(root, "up", "Up", "climber.py", &format!("up 0 pause={ms}")),
        script_bot(root, "down", "Down", "climber.py", "down 0"),
        script_bot(root, "side", "Side", "climber.py", "up 1"),
    ];
    let dirs: Vec<&Path> = bots.iter().map(PathBuf::as_path).collect();
    tournament_file(
        root,
        &dirs,
        &format!(
            "games = {games}\nrounds = 2\nplayers_per_game = 2\njobs = 1\nseed = {seed}\n\
             sandbox = false\n"
        ),
    )
}

/// Submits `file` to `url`; returns the tournament's name (the last line printed).
fn submit(file: &Path, url: &str) -> String {
    let output = succeed(
        koth()
            .args(["tournament", "submit"])
            .arg(file)
            .args(["--db", url]),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout.lines().last().unwrap().to_string()
}

/// A `koth worker` of `url` with the bots under `root`, playing in `dir`.
fn worker(url: &str, root: &Path, dir: &Path) -> Child {
    koth()
        .args([
            "worker",
            "--db",
            url,
            "--lease-s",
            "3",
            "--jobs",
            "1",
            "--root",
        ])
        .arg(root)
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for `child` to exit 0 within `limit`; returns its stdout and stderr.
pub(crate) fn finished(mut child: Child, limit: Duration) -> (String, String) {
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            panic!("a worker did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    );
    assert!(
        output.status.success(),
        "a worker failed:\n{stdout}\n{stderr}"
    );
    (stdout, stderr)
}

/// The schema of tournament `name`.
fn schema_of(client: &mut ::postgres::Client, name: &str) -> String {
    client
        .query_one(
            "SELECT schema_name FROM koth_tournaments WHERE name = $1",
            &[&name],
        )
        .unwrap()
        .get(0)
}

/// Every game's scores, seat by seat, as `(game, seat, bot, score)`.
fn scores_in_postgres(url: &str, name: &str) -> Vec<(i64, i64, i64, f64)> {
    let mut client = postgres::client(url);
    let schema = schema_of(&mut client, name);
    client
        .query(
            &format!("SELECT game, seat, bot, score FROM {schema}.results ORDER BY game, seat"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect()
}

fn scores_in_sqlite(dir: &Path) -> Vec<(i64, i64, i64, f64)> {
    let conn = rusqlite::Connection::open(dir.join("results.sqlite")).unwrap();
    let mut stmt = conn
        .prepare("SELECT game, seat, bot, score FROM results ORDER BY game, seat")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// The one number `sql` returns, in the schema of `name` (a tournament or a hill).
pub(crate) fn count(url: &str, name: &str, sql: &str) -> i64 {
    let mut client = postgres::client(url);
    let schema = schema_of(&mut client, name);
    client
        .batch_execute(&format!("SET search_path TO {schema}"))
        .unwrap();
    client.query_one(sql, &[]).unwrap().get(0)
}

#[test]
fn three_workers_one_killed_mid_game_record_every_game_once_with_the_scores_of_one_sqlite_run() {
    let root = tempfile::tempdir().unwrap();
    let games = 9;
    let file = climbers(root.path(), games, 40, 11);
    // The reference: the same tournament in SQLite, in one process.
    let reference = root.path().join("reference");
    succeed(
        koth()
            .args(["tournament", "run"])
            .arg(&file)
            .arg("--dir")
            .arg(&reference),
    );

    let url = postgres::database("three_workers");
    let name = submit(&file, &url);
    assert_eq!(name, "t");
    let mut workers: Vec<Child> = (0..3)
        .map(|i| worker(&url, root.path(), &root.path().join(format!("w{i}"))))
        .collect();
    // Kill the first worker with SIGKILL while it holds a game.
    let victim = workers.remove(0);
    let held = format!(":{}:", victim.id());
    let started = Instant::now();
    loop {
        let mut client = postgres::client(&url);
        let holding: i64 = client
            .query_one(
                "SELECT COUNT(*) FROM koth_t1.games WHERE state = 'running' AND worker LIKE $1",
                &[&format!("%{held}%")],
            )
            .unwrap()
            .get(0);
        if holding > 0 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the first worker never claimed a game"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    let mut victim = victim;
    victim.kill().unwrap();
    victim.wait().unwrap();
    for worker in workers {
        finished(worker, Duration::from_secs(180));
    }

    // Every game once, its lost attempt recorded, and the scores of the SQLite run.
    let status = succeed(
        koth()
            .args(["tournament", "status", "--db", &url])
            .arg(&name),
    );
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(
        status.contains(&format!("{games} of {games} games done")),
        "{status}"
    );
    assert_eq!(
        count(&url, &name, "SELECT COUNT(*) FROM results"),
        2 * games as i64
    );
    assert_eq!(
        count(
            &url,
            &name,
            "SELECT COUNT(*) FROM harness_faults WHERE message LIKE '%stopped renewing%'"
        ),
        1,
        "the killed worker's game went back to the queue once"
    );
    assert_eq!(
        scores_in_postgres(&url, &name),
        scores_in_sqlite(&reference)
    );
    assert_eq!(
        query(&reference, "SELECT COUNT(*) FROM results"),
        2 * games as i64
    );

    // The leaderboard and a replay, from the database alone.
    let board = succeed(
        koth()
            .args(["leaderboard", "--db", &url, "--format", "csv"])
            .arg(&name),
    );
    let reference_board = succeed(
        koth()
            .args(["leaderboard", "--format", "csv"])
            .arg(&reference),
    );
    let points = |csv: &[u8]| -> Vec<String> {
        // Bot, games and points (timings differ between runs).
        String::from_utf8_lossy(csv)
            .lines()
            .map(|l| l.split(',').take(4).collect::<Vec<_>>().join(","))
            .collect()
    };
    assert_eq!(points(&board.stdout), points(&reference_board.stdout));
    let replay = succeed(
        koth()
            .args(["replay", "--db", &url, &name, "0", "--text"])
            .current_dir(root.path()),
    );
    assert!(String::from_utf8_lossy(&replay.stdout).starts_with("Round 1 of 2"));
}

#[test]
fn a_worker_whose_copy_of_a_bot_differs_refuses_its_games_and_leaves_them_to_others() {
    let root = tempfile::tempdir().unwrap();
    let games = 6;
    let file = climbers(root.path(), games, 0, 5);
    let url = postgres::database("modified_bot");
    let name = submit(&file, &url);
    // A second machine's copy, with one bot changed after the submission.
    let other = tempfile::tempdir().unwrap();
    climbers(other.path(), games, 0, 5);
    std::fs::write(other.path().join("side/climber.py"), "print('changed')\n").unwrap();

    let (_, stderr) = finished(
        worker(&url, other.path(), &other.path().join("w")),
        Duration::from_secs(120),
    );
    assert!(
        stderr.contains("refusing the games of \"Side\"")
            && stderr.contains("not the one submitted"),
        "{stderr}"
    );
    let left = count(
        &url,
        &name,
        "SELECT COUNT(*) FROM games WHERE state = 'pending'",
    );
    let with_side = count(
        &url,
        &name,
        "SELECT COUNT(DISTINCT game) FROM seats WHERE bot = 2",
    );
    assert_eq!(
        left, with_side,
        "exactly the games of the changed bot are left"
    );
    assert!(left > 0 && left < games as i64);

    finished(
        worker(&url, root.path(), &root.path().join("w")),
        Duration::from_secs(120),
    );
    assert_eq!(
        count(
            &url,
            &name,
            "SELECT COUNT(*) FROM games WHERE state = 'done'"
        ),
        games as i64
    );
}

#[test]
fn two_tournaments_at_once_are_both_played_by_the_same_workers() {
    let root = tempfile::tempdir().unwrap();
    let file = climbers(root.path(), 4, 0, 7);
    let url = postgres::database("two_tournaments");
    let first = submit(&file, &url);
    let second = submit(&file, &url);
    assert_eq!((first.as_str(), second.as_str()), ("t", "t-2"));
    let workers: Vec<Child> = (0..2)
        .map(|i| worker(&url, root.path(), &root.path().join(format!("w{i}"))))
        .collect();
    for worker in workers {
        finished(worker, Duration::from_secs(120));
    }
    for name in [&first, &second] {
        assert_eq!(count(&url, name, "SELECT COUNT(*) FROM results"), 8);
        assert_eq!(
            count(
                &url,
                name,
                "SELECT COUNT(*) FROM games WHERE state = 'done'"
            ),
            4
        );
    }
    // Same file, same seed: the same games, the same scores.
    assert_eq!(
        scores_in_postgres(&url, &first),
        scores_in_postgres(&url, &second)
    );
    // `run --db` submits and plays in one process, its dashboard beside it.
    let mut run = koth()
        .args(["tournament", "run", "--db", &url, "--serve", "127.0.0.1:0"])
        .arg("--serve-after")
        .arg(&file)
        .arg("--dir")
        .arg(root.path().join("run"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(run.stdout.take().unwrap());
    let run = Killed(run);
    let mut printed = Vec::new();
    for line in stdout.lines() {
        let line = line.unwrap();
        let over = line.contains("the dashboard stays at");
        printed.push(line);
        if over {
            break;
        }
    }
    let printed = printed.join("\n");
    assert!(printed.contains("Tournament t-3"), "{printed}");
    let port: u16 = printed
        .split("Dashboard: http://127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("no dashboard address in {printed}"));
    let (_, body) = get(port, "/api/progress");
    let progress: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(progress["name"], "t-3");
    assert_eq!(
        (progress["done"].as_u64(), progress["total"].as_u64()),
        (Some(4), Some(4))
    );
    drop(run);
    assert_eq!(
        scores_in_postgres(&url, "t-3"),
        scores_in_postgres(&url, &first)
    );
}

#[test]
fn a_tournament_of_an_older_schema_is_brought_up_to_date_and_a_newer_one_refused() {
    let url = postgres::database("older_schema");
    let mut client = postgres::client(&url);
    // Schema version 1, as the first koth kept a tournament: no version, no bench, no fault
    // counts, no protocols, no leases, hashes or files.
    client
        .batch_execute(
            "CREATE TABLE koth_tournaments (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE,
                 schema_name TEXT NOT NULL, submitted TIMESTAMPTZ NOT NULL DEFAULT now());
             INSERT INTO koth_tournaments (name, schema_name) VALUES ('old', 'koth_t1');
             CREATE SCHEMA koth_t1; SET search_path TO koth_t1;
             CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE bots (id BIGINT PRIMARY KEY, name TEXT NOT NULL UNIQUE,
                 dir TEXT NOT NULL, command TEXT NOT NULL, build TEXT, origin TEXT NOT NULL);
             CREATE TABLE games (idx BIGINT PRIMARY KEY, seed BIGINT NOT NULL,
                 state TEXT NOT NULL, attempts BIGINT NOT NULL, wall_ms DOUBLE PRECISION);
             CREATE TABLE seats (game BIGINT NOT NULL, seat BIGINT NOT NULL, bot BIGINT NOT NULL,
                 PRIMARY KEY (game, seat));
             CREATE TABLE results (game BIGINT NOT NULL, seat BIGINT NOT NULL,
                 bot BIGINT NOT NULL, score DOUBLE PRECISION NOT NULL, status TEXT NOT NULL,
                 faults TEXT NOT NULL, answers BIGINT NOT NULL,
                 max_wall_ms DOUBLE PRECISION NOT NULL, total_wall_ms DOUBLE PRECISION NOT NULL,
                 max_cpu_ms DOUBLE PRECISION, total_cpu_ms DOUBLE PRECISION,
                 near_misses BIGINT NOT NULL, PRIMARY KEY (game, seat));
             CREATE TABLE harness_faults (game BIGINT NOT NULL, attempt BIGINT NOT NULL,
                 message TEXT NOT NULL);
             INSERT INTO meta VALUES ('name', 'old'), ('game', 'paths'), ('seed', '1');
             INSERT INTO bots VALUES (0, 'a', 'a', '[\"true\"]', NULL, 't'),
                 (1, 'b', 'b', '[\"true\"]', NULL, 't');
             INSERT INTO games VALUES (0, 7, 'done', 1, 3.0), (1, 8, 'pending', 0, NULL);
             INSERT INTO seats VALUES (0, 0, 0), (0, 1, 1), (1, 0, 1), (1, 1, 0);
             INSERT INTO results VALUES
                 (0, 0, 0, 1.0, 'crashed', '[{\"kind\":\"crashed\",\"reason\":\"x\"},
                     {\"kind\":\"bad_output\",\"reason\":\"y\"}]', 3, 1, 2, NULL, NULL, 0),
                 (0, 1, 1, 2.0, 'finished', '[]', 3, 1, 2, NULL, NULL, 0);",
        )
        .unwrap();
    // The dashboard reads and never writes: an older schema is refused, left as it is.
    let served = koth()
        .args(["serve", "--db", &url, "old"])
        .output()
        .unwrap();
    assert!(!served.status.success());
    let stderr = String::from_utf8_lossy(&served.stderr);
    assert!(
        stderr.contains("schema version 1") && stderr.contains("brings it up to date"),
        "{stderr}"
    );
    let versions: i64 = client
        .query_one(
            "SELECT COUNT(*) FROM meta WHERE key = 'schema_version'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(versions, 0);
    let status = succeed(koth().args(["tournament", "status", "--db", &url, "old"]));
    assert!(String::from_utf8_lossy(&status.stdout).contains("1 of 2 games done"));
    let version: String = client
        .query_one("SELECT value FROM meta WHERE key = 'schema_version'", &[])
        .unwrap()
        .get(0);
    assert_eq!(version, "10");
    let counted: (i64, i64) = client
        .query_one(
            "SELECT crashed_faults, bad_output_faults FROM results WHERE seat = 0",
            &[],
        )
        .map(|r| (r.get(0), r.get(1)))
        .unwrap();
    assert_eq!(counted, (1, 1));
    for (table, column) in [
        ("games", "lease_until"),
        ("bots", "hash"),
        ("files", "zstd"),
        ("bots", "start_failures"),
    ] {
        let found: i64 = client
            .query_one(
                "SELECT COUNT(*) FROM information_schema.columns
                 WHERE table_schema = 'koth_t1' AND table_name = $1 AND column_name = $2",
                &[&table, &column],
            )
            .unwrap()
            .get(0);
        assert_eq!(found, 1, "{table}.{column}");
    }
    let board = succeed(koth().args(["leaderboard", "--db", &url, "old"]));
    assert!(String::from_utf8_lossy(&board.stdout).contains("1 of 2 games played"));

    // A database a newer koth wrote is refused, not misread.
    client
        .batch_execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
        .unwrap();
    let newer = koth()
        .args(["tournament", "status", "--db", &url, "old"])
        .output()
        .unwrap();
    assert!(!newer.status.success());
    let stderr = String::from_utf8_lossy(&newer.stderr);
    assert!(
        stderr.contains("version 99") && stderr.contains("newer koth"),
        "{stderr}"
    );
    let missing = koth()
        .args(["tournament", "status", "--db", &url, "nope"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("no tournament \"nope\"; it has old")
    );
}

#[test]
fn the_dashboard_of_a_shared_tournament_follows_its_workers_live_and_opens_their_games() {
    let root = tempfile::tempdir().unwrap();
    let games = 6;
    let file = climbers(root.path(), games, 100, 11);
    let url = postgres::database("dashboard");
    let name = submit(&file, &url);
    let (_server, port) = serve_with(&["--db".as_ref(), url.as_ref(), name.as_ref()]);
    let (status, body) = get(port, "/api/progress");
    assert!(status.contains(" 200 "), "{status}: {body}");
    let progress: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (progress["done"].as_u64(), progress["total"].as_u64()),
        (Some(0), Some(6))
    );
    // Nothing is played yet: a game has no replay to show.
    let (status, body) = get(port, "/games/0");
    assert!(status.contains(" 404 "), "{status}: {body}");

    let runtime = koth::game::runtime().unwrap();
    let worker = runtime.block_on(async {
        let (_driver, client) = browser().await;
        client
            .goto(&format!("http://127.0.0.1:{port}/"))
            .await
            .unwrap();
        until("the page shows the tournament", || async {
            text_of(&client, "#title").await.contains("paths")
        })
        .await;
        assert_eq!(text_of(&client, "#total").await, games.to_string());
        assert_eq!(text_of(&client, "#done").await, "0");
        // A worker on "another machine" plays while the page stays open.
        let worker = worker(&url, root.path(), &root.path().join("w"));
        until("the count rises", || async {
            text_of(&client, "#done").await.parse::<u32>().unwrap() > 0
        })
        .await;
        screenshot(&client, "dashboard-postgres-running.png").await;
        until("every game is done", || async {
            text_of(&client, "#done").await == games.to_string()
        })
        .await;
        until("the leaderboard lists the bots", || async {
            let board = text_of(&client, "#leaderboard").await;
            ["Up", "Down", "Side"].iter().all(|b| board.contains(b))
        })
        .await;
        // A game's replay is rebuilt from the files its worker stored in the database.
        client
            .goto(&format!("http://127.0.0.1:{port}/games/0"))
            .await
            .unwrap();
        let replay = client.source().await.unwrap();
        assert!(
            replay.contains("graphical") || replay.contains("\"rounds\""),
            "a paths replay: {}",
            &replay[..replay.len().min(500)]
        );
        screenshot(&client, "dashboard-postgres-replay.png").await;
        client.close().await.unwrap();
        worker
    });
    finished(worker, Duration::from_secs(120));

    // The dashboard's leaderboard is the CLI's.
    let (_, body) = get(port, "/api/leaderboard");
    let served: serde_json::Value = serde_json::from_str(&body).unwrap();
    let printed = succeed(koth().args(["leaderboard", "--db", &url, &name, "--format", "json"]));
    let printed: serde_json::Value = serde_json::from_slice(&printed.stdout).unwrap();
    assert_eq!(served["standings"], printed["standings"]);
    let (status, svg) = get(port, "/games/0/points.svg");
    assert!(
        status.contains(" 200 ") && svg.contains("points so far"),
        "{status}: {svg}"
    );
    let (status, body) = get(port, "/games/99");
    assert!(
        status.contains(" 404 ") && body.contains("game 99"),
        "{status}: {body}"
    );
}

#[test]
fn a_worker_does_everything_on_one_connection_and_renews_its_leases_there() {
    let root = tempfile::tempdir().unwrap();
    let url = postgres::database("one_connection");
    // Two tournaments of the same bots, each game long enough for renewals of a 3 s lease.
    let first = submit(&climbers(root.path(), 1, 700, 1), &url);
    let second = submit(&climbers(root.path(), 1, 700, 2), &url);
    assert_eq!((first.as_str(), second.as_str()), ("t", "t-2"));
    let database = url.rsplit('/').next().unwrap().to_string();
    let mut client = postgres::client(&url);
    let open = |client: &mut ::postgres::Client| -> i64 {
        client
            .query_one(
                // Client sessions only: an autovacuum worker on the database (a busy new one
                // gets them) is the server's own, listed with the database's name.
                "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = $1 \
                 AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
                &[&database],
            )
            .unwrap()
            .get(0)
    };
    // The submitting commands have exited, but on a loaded machine the server may take a
    // moment to end their sessions (seen: one idle after its last query, counted as the
    // worker's second connection).
    let settling = Instant::now();
    while open(&mut client) > 0 && settling.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(open(&mut client), 0, "the submissions' sessions ended");
    let mut worker = Killed(worker(&url, root.path(), &root.path().join("w")));
    let (mut most, mut leases) = (0, Vec::new());
    let started = Instant::now();
    while worker.0.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the worker did not finish"
        );
        most = most.max(open(&mut client));
        let lease: Option<i64> = client
            .query_one(
                "SELECT MAX(lease_until) FROM (SELECT lease_until FROM koth_t1.games \
                 UNION ALL SELECT lease_until FROM koth_t2.games) AS running",
                &[],
            )
            .ok()
            .and_then(|row| row.get(0));
        if let Some(lease) = lease.filter(|l| leases.last() != Some(l)) {
            leases.push(lease);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(worker.0.wait().unwrap().success());
    assert_eq!(most, 1, "one connection for the worker, whatever it does");
    assert!(
        leases.len() >= 3,
        "the long game's lease was renewed while it ran: {leases:?}"
    );
    for name in [&first, &second] {
        assert_eq!(
            count(
                &url,
                name,
                "SELECT COUNT(*) FROM games WHERE state = 'done'"
            ),
            count(&url, name, "SELECT COUNT(*) FROM games")
        );
    }
}
