//! Bots that learn (`bot.toml`'s `data`): a folder `data/` each learning bot keeps from game to
//! game, contained. MENACE in Python gets better game after game against a fixed opponent, in
//! a tournament and on a hill, its games one after another each from the data the one before
//! left, and a late game drives identically from its snapshot; a bot leaving in its folder what
//! data may not hold (a link, a pipe, too many files or bytes, a name that is not UTF-8, a hard
//! link) is refused by name and its data stays as it was; another bot cannot reach it; koth
//! killed with `kill -9` mid-game loses at most the game in flight, never the data.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use rusqlite::Connection;

use crate::hill::create_hill;
use crate::support::cpus::own_cpu_locks;
use crate::support::tournament::{koth, query, repo, run_tournament, succeed};

const MENACE: &str = "MENACE (Python)";

/// A noughts & crosses bot under `dir` that answers the first free square, after `pause_ms`.
fn first_free(dir: &Path, pause_ms: u32) -> PathBuf {
    let bot = dir.join("first-free");
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        "name = \"First Free\"\nrun = \"python3 -u first_free.py\"\ngames = [\"tictactoe\"]\n",
    )
    .unwrap();
    std::fs::write(
        bot.join("first_free.py"),
        format!(
            "import sys, time\nfor line in sys.stdin:\n    w = line.split()\n    \
             if w and w[0] == 'MOVE':\n        time.sleep({pause_ms} / 1000)\n        \
             print(w[1].index('.'), flush=True)\n"
        ),
    )
    .unwrap();
    bot
}

fn tictactoe(dir: &Path, bots: &[&Path], extra: &str) -> PathBuf {
    let list: Vec<String> = bots.iter().map(|b| format!("{b:?}")).collect();
    let path = dir.join("t.toml");
    std::fs::write(
        &path,
        format!(
            "game = \"tictactoe\"\nbots = [{}]\nrounds = 10\nseed = 1\nanswer_ms = 2000\n{extra}",
            list.join(", ")
        ),
    )
    .unwrap();
    path
}

/// A recorded game of the one learning bot: game, its score, started, kept, note.
type DataRow = (i64, f64, String, Option<String>, Option<String>);

/// Each recorded game of the one learning bot, in the order of the games.
fn data_rows(dir: &Path) -> Vec<DataRow> {
    let conn = Connection::open(dir.join("results.sqlite")).unwrap();
    conn.busy_timeout(Duration::from_secs(10)).unwrap();
    let mut statement = conn
        .prepare(
            "SELECT d.game, r.score, d.started, d.kept, d.note FROM game_data d
             JOIN results r ON r.game = d.game AND r.seat = d.seat ORDER BY d.game",
        )
        .unwrap();
    statement
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn current_data(dir: &Path) -> Option<String> {
    let conn = Connection::open(dir.join("results.sqlite")).unwrap();
    conn.busy_timeout(Duration::from_secs(10)).unwrap();
    conn.query_row("SELECT digest FROM bot_data", [], |r| r.get(0))
        .ok()
}

#[test]
fn menace_learns_game_after_game_and_a_late_game_drives_identically() {
    let tmp = tempfile::tempdir().unwrap();
    let menace = repo().join("bots/ttt-menace-py");
    let opponent = first_free(tmp.path(), 0);
    // Two games at once are allowed, but MENACE is in every game: they are played one by one.
    let file = tictactoe(tmp.path(), &[&menace, &opponent], "games = 16\njobs = 2\n");
    let out = tmp.path().join("out");
    run_tournament(&file, &out, &[]);
    let rows = data_rows(&out);
    assert_eq!(rows.len(), 16, "a data row per game");
    // Each game started from what the one before left, and every game's data was kept.
    let empty = &rows[0].2;
    for pair in rows.windows(2) {
        assert_eq!(
            pair[1].2.as_str(),
            pair[0].3.as_deref().unwrap(),
            "{pair:?}"
        );
    }
    assert_eq!(current_data(&out).as_ref(), rows[15].3.as_ref());
    assert_ne!(&rows[15].2, empty);
    // It learns: its points (wins + draws / 2 of 10 games) over its last four matches are
    // well above those of its first four (with seed 1: 5.4 then 7.6 on average).
    let mean = |games: &[DataRow]| games.iter().map(|g| g.1).sum::<f64>() / games.len() as f64;
    let (first, last) = (mean(&rows[..4]), mean(&rows[12..]));
    assert!(last >= first + 1.5, "first four {first}, last four {last}");
    // The bot's own folder is left alone: its data lives in the tournament.
    assert!(!menace.join("data").exists());
    // Its last game, driven again from the snapshot it started from: identical.
    let output = succeed(
        koth()
            .arg("replay")
            .arg(out.join("games/15"))
            .arg("--drive")
            .arg(&menace)
            .args(["--as", MENACE]),
    );
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("starting it from the data"), "{text}");
    assert!(text.contains("identical: "), "{text}");
}

#[test]
fn menace_learns_on_a_hill_and_a_late_hill_game_drives_identically() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = create_hill(
        tmp.path(),
        "game = \"tictactoe\"\nrounds = 10\nanswer_ms = 2000\nseed = 1\njobs = 2\n\
         placement_games = 2\n",
    );
    let menace = repo().join("bots/ttt-menace-py");
    succeed(
        koth()
            .args(["hill", "add"])
            .arg(&menace)
            .arg(first_free(tmp.path(), 0))
            .arg("--hill")
            .arg(&dir),
    );
    succeed(
        koth()
            .args(["hill", "run"])
            .arg(&dir)
            .args(["--games", "16"]),
    );
    // MENACE's points (wins + draws / 2 of 10) game after game, and what each started from.
    let conn = Connection::open(dir.join("results.sqlite")).unwrap();
    let rows: Vec<(i64, f64, String, Option<String>)> = conn
        .prepare(
            "SELECT r.game, r.score, d.started, d.kept FROM results r
             JOIN hill_versions v ON v.id = r.bot
             JOIN game_data d ON d.game = r.game AND d.bot = r.bot
             WHERE v.name = ?1 ORDER BY r.game",
        )
        .unwrap()
        .query_map([MENACE], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(rows.len(), 16, "{rows:?}");
    // Two games at once are allowed, but MENACE is in every game: one after another, each from
    // what the one before left.
    for pair in rows.windows(2) {
        assert_eq!(Some(&pair[1].2), pair[0].3.as_ref(), "{pair:?}");
    }
    let mean = |games: &[(i64, f64, String, Option<String>)]| {
        games.iter().map(|g| g.1).sum::<f64>() / games.len() as f64
    };
    let (first, last) = (mean(&rows[..4]), mean(&rows[12..]));
    assert!(last >= first + 1.0, "first four {first}, last four {last}");
    // Its last hill game, driven again from the snapshot it started from: identical.
    let output = succeed(
        koth()
            .arg("replay")
            .arg(dir.join(format!("games/{}", rows[15].0)))
            .arg("--drive")
            .arg(&menace)
            .args(["--as", &format!("{MENACE} v1")]),
    );
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("starting it from the data"), "{text}");
    assert!(text.contains("identical: "), "{text}");
}

/// A bot keeping data (`data_mb = 1`) that leaves `ok` in its first game and does `attack` in
/// its second; it answers the first free square.
fn hostile(dir: &Path, attack: &str) -> PathBuf {
    let bot = dir.join(format!("hostile-{attack}"));
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        format!(
            "name = \"Hostile {attack}\"\nrun = \"python3 -u hostile.py {attack}\"\n\
             games = [\"tictactoe\"]\ndata_mb = 1\n"
        ),
    )
    .unwrap();
    std::fs::write(
        bot.join("hostile.py"),
        r#"import os, sys
attack = sys.argv[1]
def act():
    if not os.path.exists("data/ok"):
        open("data/ok", "w").write("first game\n")
        return
    if attack == "symlink":
        os.symlink("/etc/passwd", "data/passwd")
    elif attack == "fifo":
        os.mkfifo("data/pipe")
    elif attack == "files":
        # Contained by koth as root, the kernel stops it past the cap (its data is a
        # filesystem of its own); what it made is still over the cap.
        try:
            for i in range(300):
                open("data/f%d" % i, "w").close()
        except OSError:
            pass
    elif attack == "bytes":
        try:
            open("data/big", "wb").write(b"x" * (2 << 20))
        except OSError:
            pass
    elif attack == "name":
        open(b"data/bad\xff", "w").close()
    elif attack == "hardlink":
        os.link("data/ok", "data/again")
acted = False
for line in sys.stdin:
    w = line.split()
    if w and w[0] == "MOVE":
        if not acted:
            act()
            acted = True
        print(w[1].index("."), flush=True)
"#,
    )
    .unwrap();
    bot
}

#[test]
fn what_data_may_not_hold_is_refused_by_name_and_the_data_before_it_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let opponent = first_free(tmp.path(), 0);
    for (attack, said) in [
        ("symlink", "data/passwd is a symbolic link"),
        ("fifo", "data/pipe is a pipe"),
        ("files", "holds more than 256 files and folders, its cap"),
        ("bytes", "holds more than its cap of 1 MiB"),
        ("name", "has a name that is not UTF-8"),
        ("hardlink", "is a hard link"),
    ] {
        let bot = hostile(tmp.path(), attack);
        let file = tictactoe(tmp.path(), &[&bot, &opponent], "games = 2\njobs = 1\n");
        let out = tmp.path().join(format!("out-{attack}"));
        run_tournament(&file, &out, &[]);
        let rows = data_rows(&out);
        assert_eq!(rows.len(), 2, "{attack}");
        let first_kept = rows[0].3.clone().expect("the first game's data is kept");
        assert_eq!(rows[1].2, first_kept, "{attack}");
        assert_eq!(
            rows[1].3, None,
            "{attack}: nothing of the second game is kept"
        );
        let note = rows[1].4.clone().unwrap_or_default();
        assert!(note.contains(said), "{attack}: {note}");
        // The bot's data is still what its first game left, and the refusal is its fault.
        assert_eq!(current_data(&out), Some(first_kept), "{attack}");
        let faults = query(
            &out,
            "SELECT bad_output_faults FROM results WHERE game = 1 AND seat = 0",
        );
        assert!(faults >= 1, "{attack}: the refusal is a fault of the bot");
        // The game's own record tells it too.
        let results = std::fs::read_to_string(out.join("games/1/results.json")).unwrap();
        assert!(results.contains("its data folder"), "{attack}: {results}");
    }
    // The host is unharmed: nothing of a game's working copies is left, and /etc/passwd is
    // still a file no bot replaced.
    assert!(std::fs::symlink_metadata("/etc/passwd").unwrap().is_file());
}

#[test]
fn no_other_bot_reaches_a_learning_bots_data() {
    let tmp = tempfile::tempdir().unwrap();
    let menace = repo().join("bots/ttt-menace-py");
    // An intruder that writes into MENACE's data folder of the game, by its path on the host,
    // and by its path from the intruder's own working folder.
    let intruder = tmp.path().join("intruder");
    std::fs::create_dir_all(&intruder).unwrap();
    std::fs::write(
        intruder.join("bot.toml"),
        "name = \"Intruder\"\nrun = \"python3 -u intruder.py\"\ngames = [\"tictactoe\"]\n",
    )
    .unwrap();
    let target = tmp
        .path()
        .join("out/games/0/bots/0/ttt-menace-py/data/intruded");
    std::fs::write(
        intruder.join("intruder.py"),
        format!(
            r#"import glob, sys
for path in [{target:?}] + glob.glob("../../*/*/data/") + ["../../0/ttt-menace-py/data/"]:
    try:
        open(path.rstrip("/") + ("/intruded" if path.endswith("/") else ""), "w").write("x")
        print("wrote " + path, file=sys.stderr)
    except OSError as e:
        print("refused %s: %s" % (path, e), file=sys.stderr)
for line in sys.stdin:
    w = line.split()
    if w and w[0] == "MOVE":
        print(w[1].index("."), flush=True)
"#,
            target = target.display().to_string()
        ),
    )
    .unwrap();
    let file = tictactoe(
        tmp.path(),
        &[&menace, &intruder],
        "games = 1\njobs = 1\nkeep_working_copies = true\n",
    );
    let out = tmp.path().join("out");
    run_tournament(&file, &out, &[]);
    let data = out.join("games/0/bots/0/ttt-menace-py/data");
    assert!(
        data.join("matchboxes.json").is_file(),
        "MENACE wrote its data"
    );
    let names: Vec<_> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["matchboxes.json"], "nothing of the intruder's");
}

#[test]
fn koth_killed_mid_game_loses_at_most_that_game_never_the_data() {
    let tmp = tempfile::tempdir().unwrap();
    let menace = repo().join("bots/ttt-menace-py");
    // An opponent slow enough that koth is killed in a game, not between two.
    let opponent = first_free(tmp.path(), 40);
    let file = tictactoe(tmp.path(), &[&menace, &opponent], "games = 6\njobs = 1\n");
    let out = tmp.path().join("out");
    let mut kills = 0;
    for recorded_before in [1usize, 3] {
        let mut command = koth();
        own_cpu_locks(&mut command, tmp.path());
        if kills == 0 {
            command.args(["tournament", "run"]).arg(&file).arg("--dir");
        } else {
            command.args(["tournament", "resume"]);
        }
        let mut child = command
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while !(out.join("results.sqlite").is_file()
            && data_rows(&out).len() >= recorded_before
            && query(&out, "SELECT COUNT(*) FROM games WHERE state = 'running'") == 1)
        {
            assert!(Instant::now() < deadline, "no game in flight");
            std::thread::sleep(Duration::from_millis(20));
        }
        // Into the game in flight, then kill -9.
        std::thread::sleep(Duration::from_millis(150));
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(child.id() as i32),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
        child.wait().unwrap();
        kills += 1;
        // The data is the last recorded game's, whole: its snapshot unpacks to the same digest.
        let rows = data_rows(&out);
        let last = rows.last().unwrap().3.clone().unwrap();
        assert_eq!(current_data(&out), Some(last.clone()));
        let conn = Connection::open(out.join("results.sqlite")).unwrap();
        let tgz: Vec<u8> = conn
            .query_row(
                "SELECT tgz FROM data_snapshots WHERE digest = ?1",
                [&last],
                |r| r.get(0),
            )
            .unwrap();
        let unpacked = tmp.path().join(format!("unpacked-{kills}"));
        std::fs::create_dir(&unpacked).unwrap();
        koth::bot::data::put(
            &tgz,
            &unpacked.join("data"),
            koth::bot::data::DataCap::of_mb(1),
            koth::bot::data::Placement::Folder,
        )
        .unwrap();
        let again =
            koth::bot::data::take(&unpacked.join("data"), koth::bot::data::DataCap::of_mb(1))
                .unwrap();
        assert_eq!(again.digest, last);
    }
    succeed(
        own_cpu_locks(&mut koth(), tmp.path())
            .args(["tournament", "resume"])
            .arg(&out),
    );
    let rows = data_rows(&out);
    assert_eq!(rows.len(), 6, "every game recorded once");
    for pair in rows.windows(2) {
        assert_eq!(
            pair[1].2.as_str(),
            pair[0].3.as_deref().unwrap(),
            "{pair:?}"
        );
    }
}

#[test]
fn a_bot_asking_for_data_a_tournament_does_not_allow_is_refused_naming_both_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let menace = repo().join("bots/ttt-menace-py");
    let opponent = first_free(tmp.path(), 0);
    let refused = |extra: &str| {
        let file = tictactoe(tmp.path(), &[&menace, &opponent], extra);
        let output = koth()
            .args(["tournament", "run"])
            .arg(&file)
            .arg("--dir")
            .arg(tmp.path().join("refused"))
            .output()
            .unwrap();
        assert!(!output.status.success());
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let text = refused("games = 1\ndata_mb = 0\n");
    assert!(
        text.contains("`data_mb` = 0 here forbids learning bots"),
        "{text}"
    );
    let bot = tmp.path().join("greedy");
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::copy(menace.join("menace.py"), bot.join("menace.py")).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        "name = \"Greedy\"\nrun = \"python3 menace.py\"\ngames = [\"tictactoe\"]\ndata_mb = 8\n",
    )
    .unwrap();
    let file = tictactoe(tmp.path(), &[&bot, &opponent], "games = 1\n");
    let output = koth()
        .args(["tournament", "run"])
        .arg(&file)
        .arg("--dir")
        .arg(tmp.path().join("greedy-out"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(
        text.contains("asks for `data_mb` = 8, more than the cap here, `data_mb` = 4"),
        "{text}"
    );
    std::fs::write(
        bot.join("bot.toml"),
        "name = \"Greedy\"\nrun = \"python3 menace.py\"\ngames = [\"tictactoe\"]\ndata_mb = 0\n",
    )
    .unwrap();
    let output = koth()
        .args(["tournament", "run"])
        .arg(&file)
        .arg("--dir")
        .arg(tmp.path().join("zero-out"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(
        text.contains("bot.toml: `data_mb` = 0 asks for no data"),
        "{text}"
    );
}

/// A query's text answers, of the hill's database in `dir`.
fn texts(dir: &Path, sql: &str) -> Vec<String> {
    let conn = Connection::open(dir.join("results.sqlite")).unwrap();
    conn.busy_timeout(Duration::from_secs(10)).unwrap();
    let mut statement = conn.prepare(sql).unwrap();
    statement
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Waits (at most a minute) until `sql` counts at least `n`.
fn at_least(dir: &Path, sql: &str, n: i64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while query(dir, sql) < n {
        assert!(Instant::now() < deadline, "never {n}: {sql}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn on_a_hill_versions_carry_data_on_unless_fresh_and_only_the_author_downloads_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = create_hill(
        tmp.path(),
        "game = \"tictactoe\"\nrounds = 4\nanswer_ms = 2000\nseed = 5\njobs = 1\n\
         placement_games = 2\nbuild_timeout_s = 30\n",
    );
    let token = |name: &str| {
        let output = succeed(
            koth()
                .args(["hill", "author", "add", name, "--hill"])
                .arg(&dir),
        );
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .last()
            .unwrap()
            .to_string()
    };
    let (ada, bob) = (token("ada"), token("bob"));
    succeed(
        koth()
            .args(["hill", "add"])
            .arg(first_free(tmp.path(), 0))
            .arg("--hill")
            .arg(&dir),
    );
    let mut command = koth();
    own_cpu_locks(&mut command, tmp.path());
    let mut run = command
        .args(["hill", "run"])
        .arg(&dir)
        .args(["--serve", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(run.stdout.take().unwrap()));
    let url = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|line| {
            let rest = line.strip_prefix("Dashboard: ")?;
            Some(rest.split(' ').next()?.trim_end_matches('/').to_string())
        })
        .expect("hill run prints its address");
    std::thread::spawn(move || lines.for_each(drop));
    let _run = crate::dashboard::Killed(run);
    let menace = tmp.path().join("menace");
    std::fs::create_dir(&menace).unwrap();
    for file in ["bot.toml", "menace.py"] {
        std::fs::copy(
            repo().join("bots/ttt-menace-py").join(file),
            menace.join(file),
        )
        .unwrap();
    }
    let submit = |args: &[&str]| {
        succeed(
            koth()
                .args(["hill", "submit"])
                .arg(&menace)
                .args(["--to", &url, "--wait"])
                .args(args)
                .env("KOTH_TOKEN", &ada),
        )
    };
    let games_of = |version: u32| {
        format!(
            "SELECT COUNT(*) FROM game_data d JOIN hill_versions v ON v.id = d.bot
             WHERE v.name = '{MENACE}' AND v.version = {version} AND d.kept IS NOT NULL"
        )
    };
    let started_of = |version: u32| {
        texts(
            &dir,
            &format!(
                "SELECT d.started FROM game_data d JOIN hill_versions v ON v.id = d.bot
                 WHERE v.name = '{MENACE}' AND v.version = {version} ORDER BY d.game"
            ),
        )
    };
    submit(&[]);
    at_least(&dir, &games_of(1), 3);
    let empty = started_of(1)[0].clone();

    // Its data, downloaded by its author alone.
    let client = {
        let _ = rustls::crypto::ring::default_provider().install_default();
        reqwest::blocking::Client::new()
    };
    let data_url = format!("{url}/api/hill/bots/MENACE%20%28Python%29/data");
    assert_eq!(client.get(&data_url).send().unwrap().status(), 401);
    let as_bob = client.get(&data_url).bearer_auth(&bob).send().unwrap();
    assert_eq!(as_bob.status(), 403);
    let response = client.get(&data_url).bearer_auth(&ada).send().unwrap();
    assert_eq!(response.status(), 200);
    let digest = response.headers()["x-koth-data-digest"]
        .to_str()
        .unwrap()
        .to_string();
    let tgz = response.bytes().unwrap();
    assert_ne!(digest, empty);
    let out = tmp.path().join("menace-data.tar.gz");
    succeed(
        koth()
            .args(["hill", "data", MENACE, "--to", &url, "--out"])
            .arg(&out)
            .env("KOTH_TOKEN", &ada),
    );
    let downloaded = std::fs::read(&out).unwrap();
    let unpacked = tmp.path().join("unpacked");
    std::fs::create_dir(&unpacked).unwrap();
    let cap = koth::bot::data::DataCap::of_mb(1);
    koth::bot::data::put(
        &downloaded,
        &unpacked.join("data"),
        cap,
        koth::bot::data::Placement::Folder,
    )
    .unwrap();
    assert!(unpacked.join("data/matchboxes.json").is_file());
    // What it downloaded is a whole snapshot (the API's, or one game newer).
    let taken = koth::bot::data::take(&unpacked.join("data"), cap).unwrap();
    assert!(taken.digest == digest || downloaded != tgz.as_ref());

    // A new version goes on from its previous version's data.
    std::fs::write(menace.join("v2.txt"), "2").unwrap();
    submit(&[]);
    at_least(&dir, &games_of(2), 1);
    assert_ne!(started_of(2)[0], empty, "v2 starts from v1's data");
    // Unless its author asks for a clean start.
    std::fs::write(menace.join("v3.txt"), "3").unwrap();
    submit(&["--fresh-data"]);
    at_least(&dir, &games_of(3), 1);
    assert_eq!(started_of(3)[0], empty, "v3 starts from an empty folder");
    // The owner wipes a bot's data.
    let output = succeed(
        koth()
            .args(["hill", "wipe-data", MENACE, "--hill"])
            .arg(&dir),
    );
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains("data is wiped"), "{said}");
    let output = koth()
        .args(["hill", "wipe-data", "First Free", "--hill"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("keeps no data"));
}

#[test]
fn a_wasi_bot_keeps_its_data_at_slash_data() {
    let tmp = tempfile::tempdir().unwrap();
    let bot = tmp.path().join("counter");
    std::fs::create_dir(&bot).unwrap();
    succeed(
        std::process::Command::new("clang")
            .args(["--target=wasm32-wasi", "-O2", "-o"])
            .arg(bot.join("bot.wasm"))
            .arg(repo().join("tests/wasi_bots/counter.c")),
    );
    std::fs::write(
        bot.join("bot.toml"),
        "name = \"Counter\"\nwasm = \"bot.wasm\"\ngames = [\"tictactoe\"]\ndata = true\n",
    )
    .unwrap();
    let opponent = first_free(tmp.path(), 0);
    let file = tictactoe(tmp.path(), &[&bot, &opponent], "games = 3\njobs = 2\n");
    let out = tmp.path().join("out");
    run_tournament(&file, &out, &[]);
    let rows = data_rows(&out);
    assert_eq!(rows.len(), 3);
    for pair in rows.windows(2) {
        assert_eq!(
            pair[1].2.as_str(),
            pair[0].3.as_deref().unwrap(),
            "{pair:?}"
        );
    }
    // Three matches of ten games: the count it left is 30.
    let conn = Connection::open(out.join("results.sqlite")).unwrap();
    let tgz: Vec<u8> = conn
        .query_row(
            "SELECT tgz FROM data_snapshots WHERE digest = (SELECT digest FROM bot_data)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let unpacked = tmp.path().join("unpacked");
    std::fs::create_dir(&unpacked).unwrap();
    koth::bot::data::put(
        &tgz,
        &unpacked.join("data"),
        koth::bot::data::DataCap::of_mb(4),
        koth::bot::data::Placement::Folder,
    )
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(unpacked.join("data/count")).unwrap(),
        "30\n"
    );
}

#[test]
fn workers_sharing_a_database_play_a_learning_bots_games_one_at_a_time_each_from_the_last() {
    let root = tempfile::tempdir().unwrap();
    let menace = root.path().join("menace");
    std::fs::create_dir(&menace).unwrap();
    for file in ["bot.toml", "menace.py"] {
        std::fs::copy(
            repo().join("bots/ttt-menace-py").join(file),
            menace.join(file),
        )
        .unwrap();
    }
    let opponent = first_free(root.path(), 10);
    let file = tictactoe(
        root.path(),
        &[&menace, &opponent],
        "games = 6\njobs = 2\nsandbox = false\n",
    );
    let url = crate::support::postgres::database("learning_workers");
    let submitted = succeed(
        koth()
            .args(["tournament", "submit"])
            .arg(&file)
            .args(["--db", &url]),
    );
    let name = String::from_utf8_lossy(&submitted.stdout)
        .lines()
        .last()
        .unwrap()
        .to_string();
    // Two workers of two games at once each: four claims at a time for one learning bot.
    let workers: Vec<_> = (0..2)
        .map(|i| {
            koth()
                .args([
                    "worker",
                    "--db",
                    &url,
                    "--lease-s",
                    "5",
                    "--jobs",
                    "2",
                    "--root",
                ])
                .arg(root.path())
                .arg("--dir")
                .arg(root.path().join(format!("w{i}")))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for worker in workers {
        crate::workers::finished(worker, Duration::from_secs(180));
    }
    let mut client = crate::support::postgres::client(&url);
    let schema: String = client
        .query_one(
            "SELECT schema_name FROM koth_tournaments WHERE name = $1",
            &[&name],
        )
        .unwrap()
        .get(0);
    let games: Vec<(i64, String, Option<String>)> = client
        .query(
            &format!("SELECT game, started, kept FROM {schema}.game_data ORDER BY game"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    let rows: Vec<(String, Option<String>)> =
        games.iter().map(|g| (g.1.clone(), g.2.clone())).collect();
    assert_eq!(rows.len(), 6);
    // The games form one chain from the empty folder: no two started from the same data, and
    // each started from what another left (whichever worker played it).
    let empty = koth::bot::data::empty_digest();
    let mut at = empty.clone();
    for _ in 0..6 {
        let next: Vec<_> = rows.iter().filter(|(started, _)| *started == at).collect();
        assert_eq!(next.len(), 1, "one game started from {at}: {rows:?}");
        at = next[0].1.clone().expect("kept");
    }
    let now: String = client
        .query_one(&format!("SELECT digest FROM {schema}.bot_data"), &[])
        .unwrap()
        .get(0);
    assert_eq!(now, at);
    // The chain's last game, copied out of the database and driven from the snapshot it
    // started from, kept there: identical.
    let last = games.iter().find(|g| g.2.as_ref() == Some(&at)).unwrap().0;
    let output = succeed(
        koth()
            .args(["replay", "--db", &url, &name, &last.to_string(), "--drive"])
            .arg(&menace)
            .args(["--as", MENACE]),
    );
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("starting it from the data"), "{text}");
    assert!(text.contains("identical: "), "{text}");
}

/// Every file's text under `dir`, together: what a game's folder says anywhere (its results,
/// its bots' stderr and transcripts).
fn all_text(dir: &Path) -> String {
    let mut text = String::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                folders.push(entry.path());
            } else if kind.is_file() {
                text.push_str(&String::from_utf8_lossy(
                    &std::fs::read(entry.path()).unwrap(),
                ));
                text.push('\n');
            }
        }
    }
    text
}

/// A learning bot (`data_mb = 1`) that starts a writer before its first answer, then waits a
/// second before answering: `bytes` writes files of 1 MiB until 64 MiB, `files` makes up to
/// 100,000 empty files. The writer says on stderr how far it got (`FILLED N`).
fn filler(dir: &Path, attack: &str) -> PathBuf {
    let bot = dir.join(format!("filler-{attack}"));
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        format!(
            "name = \"Filler {attack}\"\nrun = \"python3 -u filler.py {attack}\"\n\
             games = [\"tictactoe\"]\ndata_mb = 1\n"
        ),
    )
    .unwrap();
    std::fs::write(
        bot.join("filler.py"),
        r#"import os, sys, threading, time
attack = sys.argv[1]
def fill():
    done = 0
    try:
        if attack == "bytes":
            chunk = b"x" * 65536
            for i in range(64):
                with open("data/fill%d" % i, "wb") as f:
                    for _ in range(16):
                        f.write(chunk)
                        f.flush()
                        done += len(chunk)
        else:
            for i in range(100000):
                open("data/e%d" % i, "w").close()
                done += 1
        print("FILLED %d all" % done, file=sys.stderr, flush=True)
    except OSError as e:
        print("FILLED %d stopped: %s" % (done, e.strerror), file=sys.stderr, flush=True)
threading.Thread(target=fill, daemon=True).start()
time.sleep(1.0)
for line in sys.stdin:
    w = line.split()
    if w and w[0] == "MOVE":
        print(w[1].index("."), flush=True)
"#,
    )
    .unwrap();
    bot
}

#[test]
fn a_learning_bots_data_is_bounded_while_it_writes_not_after_its_answer() {
    // Contained and run as root, a bot's data is a filesystem of its own: 1 MiB and 256
    // entries, plus a page per entry for files' last pages.
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: the data volume is made by koth as root");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let opponent = first_free(tmp.path(), 0);
    for (attack, most) in [("bytes", 2u64 << 20), ("files", 256 + 2)] {
        let bot = filler(tmp.path(), attack);
        let file = tictactoe(tmp.path(), &[&bot, &opponent], "games = 1\njobs = 1\n");
        let out = tmp.path().join(format!("out-{attack}"));
        run_tournament(&file, &out, &[]);
        let text = all_text(&out.join("games"));
        let filled = text
            .lines()
            .find_map(|line| line.split("FILLED ").nth(1))
            .unwrap_or_else(|| panic!("{attack}: the writer said nothing:\n{text}"));
        eprintln!("{attack}: FILLED {filled}");
        let done: u64 = filled.split(' ').next().unwrap().parse().unwrap();
        assert!(
            done <= most,
            "{attack}: the bot wrote {done} into its data, more than {most}: {filled}"
        );
        assert!(filled.contains("stopped"), "{attack}: {filled}");
        // What it left is over its cap, so the game keeps nothing of it.
        let rows = data_rows(&out);
        assert_eq!(rows[0].3, None, "{attack}: nothing kept");
    }
}

/// A learning bot that, before its first answer, makes a folder `data/a`, 200 files beside it
/// and `data/z/l` a link to the host's folder `host`, then swaps the two again and again
/// (`renameat2` with `RENAME_EXCHANGE`) while koth reads its folder.
fn swapper(dir: &Path, host: &Path) -> PathBuf {
    let bot = dir.join("swapper");
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        "name = \"Swapper\"\nrun = \"python3 -u swapper.py\"\ngames = [\"tictactoe\"]\n\
         data_mb = 1\n",
    )
    .unwrap();
    std::fs::write(
        bot.join("swapper.py"),
        format!(
            r#"import ctypes, os, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE, SYS_renameat2 = -100, 2, 316
# Its data from the game before (the same match restarts it) may hold them already, swapped.
for folder in ["data/a", "data/z"]:
    try:
        os.makedirs(folder)
    except OSError:
        pass
# Entries koth looks at between the folder's listing and its reading of `a`: a wider window.
for i in range(200):
    open("data/pad%03d" % i, "w").close()
# The link one folder down, so that koth lists the top folder while `a` is a folder.
if not os.path.lexists("data/z/l"):
    os.symlink({host:?}, "data/z/l")
def swap():
    while True:
        libc.syscall(SYS_renameat2, AT_FDCWD, b"data/a", AT_FDCWD, b"data/z/l", RENAME_EXCHANGE)
threading.Thread(target=swap, daemon=True).start()
for line in sys.stdin:
    w = line.split()
    if w and w[0] == "MOVE":
        print(w[1].index("."), flush=True)
"#,
            host = host.display().to_string()
        ),
    )
    .unwrap();
    bot
}

#[test]
fn a_bot_swapping_its_data_folder_for_a_link_never_leads_koth_out_of_it() {
    let tmp = tempfile::tempdir().unwrap();
    // A folder of the host's, named as nothing of the bot's is.
    let host = tmp.path().join("host");
    std::fs::create_dir_all(host.join("HOST_ONLY_NAME_8731")).unwrap();
    std::fs::write(host.join("HOST_ONLY_FILE_8731"), "host\n").unwrap();
    // What data may not hold: read through the link, it would be refused by its name.
    nix::unistd::mkfifo(
        &host.join("HOST_ONLY_PIPE_8731"),
        nix::sys::stat::Mode::S_IRWXU,
    )
    .unwrap();
    let opponent = first_free(tmp.path(), 0);
    let bot = swapper(tmp.path(), &host);
    let file = tictactoe(tmp.path(), &[&bot, &opponent], "games = 6\njobs = 1\n");
    let out = tmp.path().join("out");
    run_tournament(&file, &out, &[]);
    let mut said = all_text(&out.join("games"));
    let rows = data_rows(&out);
    for row in &rows {
        said.push_str(row.4.as_deref().unwrap_or_default());
        said.push('\n');
    }
    assert!(
        !said.contains("HOST_ONLY"),
        "a record names what lies outside the bot's folder:\n{said}"
    );
    // The bot's link is refused by its own name, and its data is never kept.
    assert!(said.contains("data/"), "{said}");
    assert!(rows.iter().all(|row| row.3.is_none()), "nothing kept");
    assert!(host.join("HOST_ONLY_NAME_8731").is_dir());
    assert!(host.join("HOST_ONLY_FILE_8731").is_file());
}

/// A learning bot (`data_mb = 1`) that adds `kib` KiB to its data at each start, and answers
/// the first free square; with `kib` over the cap, its first game already leaves too much.
fn grower(dir: &Path, name: &str, kib: u32) -> PathBuf {
    let bot = dir.join(name.to_lowercase());
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        format!(
            "name = \"{name}\"\nrun = \"python3 -u grower.py\"\ngames = [\"tictactoe\"]\n\
             data_mb = 1\n"
        ),
    )
    .unwrap();
    std::fs::write(
        bot.join("grower.py"),
        format!(
            r#"import sys
try:
    with open("data/log", "ab") as f:
        f.write(b"x" * ({kib} * 1024))
except OSError:
    pass
for line in sys.stdin:
    w = line.split()
    if w and w[0] == "MOVE":
        print(w[1].index("."), flush=True)
"#
        ),
    )
    .unwrap();
    bot
}

#[test]
fn a_learning_bot_over_its_cap_is_refused_up_front_or_suspended_once_it_outgrows_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = create_hill(
        tmp.path(),
        // Suspended for faults only in nearly all of its last 4 games: a game of a few
        // answers with one data fault counts against it, as a game of thousands would not.
        "game = \"tictactoe\"\nrounds = 2\nanswer_ms = 2000\nseed = 5\njobs = 1\n\
         placement_games = 2\nsuspend_window = 4\nsuspend_share = 0.9\n",
    );
    let add = |bot: &Path| {
        koth()
            .args(["hill", "add"])
            .arg(bot)
            .arg("--hill")
            .arg(&dir)
            .output()
            .unwrap()
    };
    // 2 MiB in its first game: its validation game keeps data as a ranked game does, so it is
    // refused now, saying why, not ranked game after game without ever learning.
    let over = add(&grower(tmp.path(), "Over", 2048));
    let said = String::from_utf8_lossy(&over.stdout).to_string();
    assert!(!over.status.success(), "{said}");
    assert!(
        said.contains("Over: refused") && said.contains("holds more than its cap of 1 MiB"),
        "{said}"
    );
    // 300 KiB a game: kept for a few games, then over its cap in every game; suspended with
    // that reason once it is so in most of its last 4.
    succeed(
        koth()
            .args(["hill", "add"])
            .arg(first_free(tmp.path(), 0))
            .arg("--hill")
            .arg(&dir),
    );
    // A learner well within its cap, so that two play on once Grows is suspended.
    let small = add(&grower(tmp.path(), "Small", 1));
    assert!(small.status.success(), "{small:?}");
    let grows = add(&grower(tmp.path(), "Grows", 300));
    assert!(grows.status.success(), "{grows:?}");
    let mut command = koth();
    own_cpu_locks(&mut command, tmp.path());
    succeed(
        command
            .args(["hill", "run"])
            .arg(&dir)
            .args(["--games", "16"]),
    );
    let status = succeed(koth().args(["hill", "status"]).arg(&dir));
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(
        status.contains("Grows v1 is suspended: its data was not kept in ")
            && status.contains("holds more than its cap of 1 MiB"),
        "{status}"
    );
}

/// A claim in a shared database takes a game seating no learning bot in one statement, and
/// games that seat one take turns: a worker that has seen no learning bot passes their games
/// over rather than take one unlocked, and two workers never hold one learning bot at once.
#[test]
fn shared_claims_pass_a_learning_bots_games_over_until_they_take_turns() {
    use koth::bot::{BotSpec, DataAsk};
    use koth::tournament::schedule::ScheduledGame;
    use koth::tournament::store::sql::Connection;
    use koth::tournament::store::{Claimant, Store};
    let dir = tempfile::tempdir().unwrap();
    let bot = |name: &str, data: Option<DataAsk>| BotSpec {
        name: name.into(),
        dir: dir.path().into(),
        command: vec!["true".into()],
        build: None,
        origin: "test".into(),
        sandbox: None,
        benched: None,
        data,
        protocols: Default::default(),
    };
    let bots = [
        bot("learner", Some(DataAsk::default())),
        bot("a", None),
        bot("b", None),
    ];
    let game = |index: u32, seats: Vec<usize>| ScheduledGame {
        index,
        seed: u64::from(index) + 1,
        seats,
    };
    let schedule = [
        game(0, vec![0, 1]),
        game(1, vec![0, 2]),
        game(2, vec![1, 2]),
    ];
    let url = crate::support::postgres::database("learner_claims");
    let meta = [("name", "claims".to_string()), ("game", "tictactoe".into())];
    let hashes = vec![String::new(); bots.len()];
    let submitted = Store::submit(&url, "claims", &meta, &bots, &hashes, &schedule).unwrap();
    let name = submitted.shared_name().unwrap().1.to_string();
    drop(submitted);
    let first = Store::open_postgres(&url, &name).unwrap();
    let me = Claimant::new(600);
    let index = |claimed: Option<koth::tournament::store::Claimed>| claimed.map(|c| c.game.index);
    // Fresh, it has seen no learning bot: the game of two plain bots first.
    assert_eq!(index(first.claim(&me, &[], 3).unwrap()), Some(2));
    // Now it has: the learning bot's first game, its turn taken.
    let taken = first.claim(&me, &[], 3).unwrap().unwrap();
    assert_eq!(taken.game.index, 0);
    // A claim's commit does not wait for the disk, but that is the claim's alone: what the
    // connection writes next (a result) waits again.
    let connection: &dyn Connection = &first;
    let durable = connection.value("SHOW synchronous_commit", &[]).unwrap();
    assert_eq!(durable.text().unwrap(), "on");
    // Another worker, fresh too: no plain game is left, and the learning bot is busy.
    let second = Store::open_postgres(&url, &name).unwrap();
    let other = Claimant::new(600);
    assert_eq!(index(second.claim(&other, &[], 3).unwrap()), None);
    let result = koth::game::MatchResult {
        game: "tictactoe".into(),
        seed: taken.game.seed,
        bots: ["learner", "a"]
            .iter()
            .map(|name| koth::game::BotResult {
                name: name.to_string(),
                score: 1.0,
                status: koth::bot::BotStatus::Finished,
                faults: vec![],
                fault_counts: Default::default(),
                timing: Default::default(),
            })
            .collect(),
    };
    let played = dir.path().join("played");
    std::fs::create_dir(&played).unwrap();
    let recorded = first.record_result(
        &taken.game,
        taken.attempt,
        &result,
        5.0,
        &played,
        &Default::default(),
    );
    assert!(recorded.unwrap());
    assert_eq!(index(second.claim(&other, &[], 3).unwrap()), Some(1));
}
