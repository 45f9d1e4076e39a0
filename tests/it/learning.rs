//! Bots that learn (`bot.toml`'s `data`): a folder `data/` each learning bot keeps from game to
//! game, contained. MENACE in Python gets better game after game against a fixed opponent, its
//! games one after another each from the data the one before left, and a late game drives
//! identically from its snapshot; a bot leaving in its folder what data may not hold (a link,
//! a pipe, too many files or bytes, a name that is not UTF-8, a hard link) is refused by name and
//! its data stays as it was; another bot cannot reach it; koth killed with `kill -9` mid-game
//! loses at most the game in flight, never the data.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use rusqlite::Connection;

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

/// Each recorded game of the one learning bot: (game, its score, started, kept, note), in the
/// order of the games.
fn data_rows(dir: &Path) -> Vec<(i64, f64, String, Option<String>, Option<String>)> {
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
        assert_eq!(pair[1].2.as_str(), pair[0].3.as_deref().unwrap(), "{pair:?}");
    }
    assert_eq!(current_data(&out).as_ref(), rows[15].3.as_ref());
    assert_ne!(&rows[15].2, empty);
    // It learns: its points (wins + draws / 2 of 10 games) over its last four matches are
    // well above those of its first four (with seed 1: 5.4 then 7.6 on average).
    let mean = |games: &[(i64, f64, String, Option<String>, Option<String>)]| {
        games.iter().map(|g| g.1).sum::<f64>() / games.len() as f64
    };
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
        for i in range(300):
            open("data/f%d" % i, "w").close()
    elif attack == "bytes":
        open("data/big", "wb").write(b"x" * (2 << 20))
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
        assert_eq!(rows[1].3, None, "{attack}: nothing of the second game is kept");
        let note = rows[1].4.clone().unwrap_or_default();
        assert!(note.contains(said), "{attack}: {note}");
        // The bot's data is still what its first game left, and the refusal is its fault.
        assert_eq!(current_data(&out), Some(first_kept), "{attack}");
        let faults = query(
            &out,
            "SELECT bad_output_faults FROM results WHERE game = 1 AND seat = 0",
        );
        assert!(faults >= 1, "{attack}: the refusal is a fault of the bot");
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
    assert!(data.join("matchboxes.json").is_file(), "MENACE wrote its data");
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
        koth::bot::data::put(&tgz, &unpacked.join("data"), koth::bot::data::DataCap::of_mb(1))
            .unwrap();
        let again = koth::bot::data::take(&unpacked.join("data"), koth::bot::data::DataCap::of_mb(1))
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
        assert_eq!(pair[1].2.as_str(), pair[0].3.as_deref().unwrap(), "{pair:?}");
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
    assert!(text.contains("`data_mb` = 0 here forbids learning bots"), "{text}");
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
    assert!(text.contains("bot.toml: `data_mb` = 0 asks for no data"), "{text}");
}
