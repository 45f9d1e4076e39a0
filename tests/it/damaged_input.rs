//! Damaged or wrong input, given to the real `koth` binary: every case is one message naming the
//! file (and its line or key), exit status 1 (2 for a command-line value clap refuses), never a
//! panic (101) or an abort, and nothing written outside the folder koth was given.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use koth::bot::BotSpec;
use koth::tournament::store::{self, Store};

use crate::support::paths_files;
use crate::support::survivors;
use crate::support::viewer_files::{FLAG_RESULTS, TICTACTOE_RESULTS};
use paths_files::two_bot_game;

const KOTH: &str = env!("CARGO_BIN_EXE_koth");

/// Runs koth with `args` in the folder `cwd`.
fn koth<S: AsRef<OsStr>>(cwd: &Path, args: &[S]) -> Output {
    Command::new(KOTH)
        .args(args)
        .current_dir(cwd)
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap()
}

/// Asserts that `output` is koth refusing with status `code` and one error message holding
/// every one of `needles`.
fn assert_refused(output: &Output, code: i32, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(code),
        "expected exit {code}; stderr:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{needle:?} not in:\n{stderr}");
    }
}

/// Every file and folder under `root` but those under `except`.
fn listing(root: &Path, except: &Path) -> BTreeSet<PathBuf> {
    let mut found = BTreeSet::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.starts_with(except) {
                continue;
            }
            if path.is_dir() {
                stack.push(path.clone());
            }
            found.insert(path);
        }
    }
    found
}

/// A tournament folder `root/t` whose database holds three bots and four scheduled games.
fn tournament_folder(root: &Path) -> PathBuf {
    let dir = root.join("t");
    std::fs::create_dir_all(&dir).unwrap();
    let bot = |name: &str| BotSpec {
        name: name.into(),
        dir: root.into(),
        command: vec!["true".into()],
        build: None,
        origin: "test".into(),
        sandbox: None,
        benched: None,
        data: None,
        protocols: Default::default(),
    };
    let meta = [
        ("name", "t".to_string()),
        ("game", "paths".into()),
        ("seed", "1".into()),
    ];
    let schedule = koth::tournament::schedule::schedule(3, 2, 4, 1);
    drop(
        Store::create(
            &dir.join(store::FILE),
            &meta,
            &[bot("a"), bot("b"), bot("c")],
            &schedule,
        )
        .unwrap(),
    );
    std::fs::write(
        dir.join("tournament.toml"),
        "game = \"paths\"\nbots_dir = \"..\"\ngames = 4\n",
    )
    .unwrap();
    dir
}

/// Damage done to a results database file.
type DatabaseDamage = fn(&Path);

#[test]
fn a_damaged_or_foreign_results_database_is_refused_by_status_resume_and_leaderboard() {
    let damages: [(&str, DatabaseDamage); 4] = [
        ("truncated", |db| {
            let bytes = std::fs::read(db).unwrap();
            std::fs::write(db, &bytes[..bytes.len() / 3]).unwrap();
        }),
        ("overwritten", |db| {
            let mut bytes = std::fs::read(db).unwrap();
            let mut x = 0x2545_f491_u32;
            for byte in &mut bytes[..4096] {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                *byte = x as u8;
            }
            std::fs::write(db, bytes).unwrap();
        }),
        ("foreign", |db| {
            std::fs::remove_file(db).unwrap();
            let conn = rusqlite::Connection::open(db).unwrap();
            conn.execute_batch("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('hi');")
                .unwrap();
        }),
        ("a seat of a bot that is not there", |db| {
            let conn = rusqlite::Connection::open(db).unwrap();
            conn.execute("UPDATE seats SET bot = 7 WHERE game = 1", [])
                .unwrap();
        }),
    ];
    for (damage, apply) in damages {
        let root = tempfile::tempdir().unwrap();
        let dir = tournament_folder(root.path());
        // The intact folder is read: what fails below fails for the damage.
        assert!(
            koth(root.path(), &["tournament", "status", "t"])
                .status
                .success()
        );
        let db = dir.join(store::FILE);
        apply(&db);
        let bytes = std::fs::read(&db).unwrap();
        let before = listing(root.path(), &dir);
        for command in [
            &["tournament", "status", "t"][..],
            &["tournament", "resume", "t"],
            &["leaderboard", "t"],
        ] {
            let output = koth(root.path(), command);
            assert_refused(
                &output,
                1,
                &["t/results.sqlite", "not a koth tournament database"],
            );
            assert_eq!(std::fs::read(&db).unwrap(), bytes, "{damage}: {command:?}");
            assert_eq!(listing(root.path(), &dir), before, "{damage}: {command:?}");
        }
    }
}

/// `koth serve` checks the pages of a folder's database behind its start (a file of ten million
/// games took 108 s to check), its header and schema before it listens: a damaged header is
/// refused at once, as before; a damaged page in the middle of the file is refused once the
/// check behind finds it, every read then answering with the refusal, which names the file.
#[test]
fn koth_serve_refuses_a_damaged_database_at_its_start_or_once_its_pages_are_checked() {
    let root = tempfile::tempdir().unwrap();
    let dir = tournament_folder(root.path());
    let db = dir.join(store::FILE);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    let page_of = |sql: &str| -> usize {
        let page: i64 = conn.query_row(sql, [], |row| row.get(0)).unwrap();
        page as usize
    };
    let page_size = page_of("PRAGMA page_size");
    let seats = page_of("SELECT rootpage FROM sqlite_master WHERE name = 'seats'");
    drop(conn);
    let intact = std::fs::read(&db).unwrap();
    let garbled = |from: usize| {
        let mut bytes = intact.clone();
        let mut x = 0x2545_f491_u32;
        for byte in &mut bytes[from..from + page_size] {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *byte = x as u8;
        }
        bytes
    };
    // The header: refused before the server listens.
    std::fs::write(&db, garbled(0)).unwrap();
    let output = koth(root.path(), &["serve", "t", "--addr", "127.0.0.1:0"]);
    assert_refused(
        &output,
        1,
        &["t/results.sqlite", "not a koth tournament database"],
    );
    // A page of the seats, past the schema: refused once the check behind the start has found
    // it: every read then answers with the refusal, or, where the check ended first, the
    // server's own first read (before it listens) is refused and it stops.
    std::fs::write(&db, garbled((seats - 1) * page_size)).unwrap();
    let port = crate::dashboard::free_port();
    let stderr = root.path().join("serve.stderr");
    let mut server = crate::dashboard::Killed(
        Command::new(KOTH)
            .args(["serve", "t", "--addr", &format!("127.0.0.1:{port}")])
            .current_dir(root.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    let refusal = loop {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the damaged page was never refused"
        );
        if let Some(status) = server.0.try_wait().unwrap() {
            assert_eq!(status.code(), Some(1));
            break std::fs::read_to_string(&stderr).unwrap();
        }
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            let (status, body) = crate::dashboard::get(port, "/api/progress");
            if body.contains("t/results.sqlite") {
                assert!(status.contains(" 500 "), "{status}");
                break body;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        refusal.contains("t/results.sqlite")
            && refusal.contains("not a koth tournament database, or is damaged"),
        "{refusal}"
    );
}

#[test]
fn a_tampered_database_names_what_is_wrong() {
    let root = tempfile::tempdir().unwrap();
    let dir = tournament_folder(root.path());
    let conn = rusqlite::Connection::open(dir.join(store::FILE)).unwrap();
    conn.execute("DELETE FROM meta WHERE key = 'seed'", [])
        .unwrap();
    drop(conn);
    let output = koth(root.path(), &["leaderboard", "t"]);
    assert_refused(&output, 1, &["t/results.sqlite", "`meta`", "`seed`"]);
}

/// A game folder `root/g` written by koth's writers, with `replay.jsonl` changed by `damage`, a
/// transcript of "Checkpoint" and a bot folder `root/bot` to drive.
fn damaged_game(root: &Path, damage: impl FnOnce(&str) -> Vec<u8>) -> PathBuf {
    let dir = root.join("g");
    std::fs::create_dir_all(dir.join("transcripts")).unwrap();
    two_bot_game(&dir);
    let replay = dir.join("replay.jsonl");
    let text = std::fs::read_to_string(&replay).unwrap();
    std::fs::write(&replay, damage(&text)).unwrap();
    std::fs::write(
        dir.join("transcripts/checkpoint.txt"),
        "# bot Checkpoint\n# round 0\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("bot")).unwrap();
    std::fs::write(
        root.join("bot/bot.toml"),
        "name = \"Checkpoint\"\nrun = \"true\"\ngames = [\"paths\"]\n",
    )
    .unwrap();
    dir
}

/// A replay's text, damaged.
type ReplayDamage = fn(&str) -> Vec<u8>;

#[test]
fn a_damaged_replay_is_refused_by_every_replay_command() {
    let damages: [(&str, ReplayDamage, &str); 7] = [
        (
            "an off-grid vertex",
            |t| t.replacen("[1,0]", "[99,0]", 1).into_bytes(),
            "replay.jsonl:2: vertex 99,0 is off the grid",
        ),
        (
            "a negative coordinate",
            |t| t.replacen("[1,0]", "[1,-3]", 1).into_bytes(),
            "replay.jsonl:2: not a turn record",
        ),
        (
            "a huge side",
            |t| {
                t.replacen("\"side\":5", "\"side\":18446744073709551615", 1)
                    .into_bytes()
            },
            "replay.jsonl:1: side 18446744073709551615",
        ),
        (
            "a huge round",
            |t| {
                t.replacen("\"round\":1", "\"round\":4294967295", 1)
                    .into_bytes()
            },
            "replay.jsonl:3: round 4294967295",
        ),
        (
            "a paying vertex off the grid",
            |t| format!("{t}{{\"round\":0,\"paid\":[[1,0,2],[7,1,2]]}}\n").into_bytes(),
            "replay.jsonl:4: vertex 7,1 is off the grid",
        ),
        (
            "a binary line",
            |t| {
                let mut bytes = t.as_bytes().to_vec();
                bytes.extend_from_slice(b"\x00\xff\xfe\x9c binary\n");
                bytes
            },
            "replay.jsonl:4: not text",
        ),
        (
            "a truncated line",
            |t| t.as_bytes()[..t.len() - 12].to_vec(),
            "replay.jsonl:3: not a turn record",
        ),
    ];
    for (damage, apply, message) in damages {
        let root = tempfile::tempdir().unwrap();
        let dir = damaged_game(root.path(), apply);
        let before = listing(root.path(), &dir);
        let commands: [&[&str]; 5] = [
            &["replay", "g", "--text"],
            &["replay", "g", "--round", "1", "--turn", "1", "--text"],
            &["replay", "g", "--html", "g/page.html"],
            // The terminal viewer: the replay is refused before any screen is drawn.
            &["replay", "g"],
            &["replay", "g", "--drive", "bot", "--as", "Checkpoint"],
        ];
        for command in commands {
            let output = koth(root.path(), command);
            assert_refused(&output, 1, &[message]);
            assert!(!dir.join("page.html").exists(), "{damage}: {command:?}");
            assert_eq!(listing(root.path(), &dir), before, "{damage}: {command:?}");
        }
    }
}

#[test]
fn a_graphical_log_of_more_bots_than_a_game_holds_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("g");
    std::fs::create_dir_all(&dir).unwrap();
    let mut log = String::from("Initializing bots.\nBots:\n");
    for _ in 0..100_000 {
        log += "  x (a)\n";
    }
    log += "Running 1 rounds.\n  Round 0\n  Finished, computing score.\n";
    std::fs::write(dir.join("graphical_log.txt"), log).unwrap();
    let output = koth(root.path(), &["replay", "g", "--text"]);
    assert_refused(&output, 1, &["g/graphical_log.txt:65: more than 62 bots"]);
}

#[test]
fn a_board_recording_with_cells_off_the_board_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let track = koth::games::ratrace::track::Track::generate(&mut koth::seed::rng(1, 0));
    let mut recording = koth::games::ratrace::recording::BoardRecording::new("p", 0, 1, &track);
    recording
        .frames
        .push(koth::games::ratrace::recording::Frame {
            turn: 3,
            population: 1,
            points: 0,
            cells: vec![4_000_000_000, 1],
        });
    recording
        .write(&root.path().join("board-1.replay.json"))
        .unwrap();
    // The web page, the text and the terminal viewer (refused before any screen is drawn).
    let commands: [&[&str]; 3] = [
        &["replay", "board-1.replay.json", "--html", "page.html"],
        &["replay", "board-1.replay.json", "--text"],
        &["replay", "board-1.replay.json"],
    ];
    for command in commands {
        let output = koth(root.path(), command);
        assert_refused(
            &output,
            1,
            &["board-1.replay.json", "turn 3", "on-board cell"],
        );
    }
    assert!(!root.path().join("page.html").exists());
}

#[test]
fn a_board_recording_with_no_frame_or_frames_out_of_order_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let track = koth::games::ratrace::track::Track::generate(&mut koth::seed::rng(1, 0));
    let empty = koth::games::ratrace::recording::BoardRecording::new("p", 0, 1, &track);
    let mut backwards = empty.clone();
    for turn in [5, 2] {
        backwards
            .frames
            .push(koth::games::ratrace::recording::Frame {
                turn,
                population: 1,
                points: 0,
                cells: vec![0, 1],
            });
    }
    for (recording, why) in [
        (empty, "no frame recorded"),
        (backwards, "the frame of turn 2 comes after that of turn 5"),
    ] {
        recording
            .write(&root.path().join("board-1.replay.json"))
            .unwrap();
        let commands: [&[&str]; 3] = [
            &["replay", "board-1.replay.json", "--html", "page.html"],
            &["replay", "board-1.replay.json", "--text"],
            &["replay", "board-1.replay.json"],
        ];
        for command in commands {
            assert_refused(
                &koth(root.path(), command),
                1,
                &["board-1.replay.json", why],
            );
        }
        assert!(!root.path().join("page.html").exists());
    }
}

#[test]
fn a_viewer_refuses_a_game_its_rules_do_not_allow_naming_the_file_and_the_game() {
    let root = tempfile::tempdir().unwrap();
    let write = |folder: &str, results: String| {
        std::fs::create_dir_all(root.path().join(folder)).unwrap();
        std::fs::write(root.path().join(folder).join("results.json"), results).unwrap();
    };
    // A second move on the centre, taken by the first.
    write(
        "ttt",
        TICTACTOE_RESULTS.replace(r#""moves": [4],"#, r#""moves": [4, 4],"#),
    );
    // The web page, the text and the terminal viewer (refused before any screen is drawn).
    let commands: [&[&str]; 3] = [
        &["replay", "ttt", "--html", "page.html"],
        &["replay", "ttt", "--text"],
        &["replay", "ttt"],
    ];
    for command in commands {
        let output = koth(root.path(), command);
        assert_refused(
            &output,
            1,
            &[
                "ttt/results.json",
                "game 1",
                "move 2 on square 4 is not a legal move",
            ],
        );
    }
    // A walk that does not score what the file says.
    write(
        "flag",
        FLAG_RESULTS.replace(r#""fitness": 13"#, r#""fitness": 99"#),
    );
    for command in [
        &["replay", "flag", "--html", "page.html"][..],
        &["replay", "flag"],
    ] {
        let output = koth(root.path(), command);
        assert_refused(
            &output,
            1,
            &[
                "flag/results.json",
                "level 1 (1-ring)",
                "fitness 13, not solved true with fitness 99",
            ],
        );
    }
    // A map that is not a level.
    write("flag", FLAG_RESULTS.replace(r#""1.1""#, r#""1x1""#));
    let output = koth(root.path(), &["replay", "flag", "--html", "page.html"]);
    assert_refused(
        &output,
        1,
        &["flag/results.json", "level 1 (1-ring)", "its map", "'x'"],
    );
    assert!(!root.path().join("page.html").exists());
}

/// Runs `koth tournament run t.toml` with `text` as the tournament file in a fresh folder with
/// two bot folders `a` and `b`; returns the output and the folder, which must hold nothing new.
fn run_tournament_file(text: &str) -> (Output, tempfile::TempDir) {
    let root = tempfile::tempdir().unwrap();
    for (folder, name) in [("a", "A"), ("b", "B")] {
        std::fs::create_dir_all(root.path().join(folder)).unwrap();
        std::fs::write(
            root.path().join(folder).join("bot.toml"),
            format!("name = \"{name}\"\nrun = \"true\"\ngames = [\"paths\"]\n"),
        )
        .unwrap();
    }
    std::fs::write(root.path().join("t.toml"), text).unwrap();
    let before = listing(root.path(), Path::new("/nonexistent"));
    let output = koth(root.path(), &["tournament", "run", "t.toml"]);
    assert_eq!(
        listing(root.path(), Path::new("/nonexistent")),
        before,
        "koth wrote files for {text}"
    );
    (output, root)
}

#[test]
fn wrong_tournament_files_are_refused_naming_the_key() {
    let base = "game = \"paths\"\nbots = [\"a\", \"b\"]\n";
    for (lines, key, says) in [
        ("games = 4294967295", "`games`", "1 to 1000000"),
        ("games = 0", "`games`", "1 to 1000000"),
        ("games = 1\nrounds = 0", "`rounds`", "at least 1"),
        ("games = 1\nanswer_ms = 0", "`answer_ms`", "1 to 3600000"),
        (
            "games = 1\nanswer_ms = 18446744073709551615",
            "`answer_ms`",
            "1 to",
        ),
        (
            "games = 1\nbuild_timeout_s = 0",
            "`build_timeout_s`",
            "1 to 86400",
        ),
        (
            "games = 1\nname = \"../../escape\"",
            "`name`",
            "plain folder name",
        ),
        ("games = 1\nname = \"..\"", "`name`", "plain folder name"),
    ] {
        let (output, _root) = run_tournament_file(&format!("{base}{lines}\n"));
        assert_refused(&output, 1, &["t.toml", key, says]);
    }
}

#[test]
fn two_bots_of_one_name_are_refused_naming_both() {
    let (output, _root) =
        run_tournament_file("game = \"paths\"\nbots = [\"a\", \"a\"]\ngames = 1\n");
    assert_refused(
        &output,
        1,
        &[
            "two bots are called \"A\"",
            "a/bot.toml and ",
            "names must be unique",
        ],
    );
}

#[test]
fn a_bot_folder_whose_name_is_not_utf8_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let folder = OsStr::from_bytes(b"bad\xffname");
    let bot = root.path().join("bots").join(folder);
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        "name = \"Bad\"\nrun = \"true\"\ngames = [\"paths\"]\n",
    )
    .unwrap();
    std::fs::write(
        root.path().join("t.toml"),
        "game = \"paths\"\nbots_dir = \"bots\"\ngames = 1\n",
    )
    .unwrap();
    let output = koth(root.path(), &["tournament", "run", "t.toml"]);
    assert_refused(&output, 1, &["bots/bad", "not UTF-8", "rename it"]);
    assert!(!root.path().join("logs").exists());
    let output = koth(
        root.path(),
        &[OsStr::new("paths"), OsStr::new("--bot"), bot.as_os_str()],
    );
    assert_refused(&output, 1, &["not UTF-8"]);
    assert!(!root.path().join("logs").exists());
}

#[test]
fn a_bots_txt_folder_that_leaves_bots_is_refused() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("bots/a")).unwrap();
    std::fs::write(
        root.path().join("bots.txt"),
        "A\na\ntrue\nB\n../../etc\ntrue\n",
    )
    .unwrap();
    let output = koth(root.path(), &["paths", "--bots-file", "bots.txt"]);
    assert_refused(&output, 1, &["bots.txt:5", "must lie under bots/"]);
    assert!(!root.path().join("logs").exists());
}

#[test]
fn a_zero_time_limit_is_refused_by_every_single_game_command() {
    let root = tempfile::tempdir().unwrap();
    let commands: [&[&str]; 6] = [
        &["paths"],
        &["ratrace", "--bot-cmd", "true"],
        &["menace", "match", "--x", "random", "--o", "random"],
        &["menace", "train", "--games", "1", "--opponent", "random"],
        &["flag", "play", "level.txt", "--bot", "bot"],
        &["replay", "g", "--drive", "bot", "--as", "x"],
    ];
    for command in commands {
        let mut args = command.to_vec();
        args.extend(["--timeout-ms", "0"]);
        let output = koth(root.path(), &args);
        // clap's status for a bad command-line value.
        assert_refused(&output, 2, &["--timeout-ms", "0 is not in 1..=3600000"]);
    }
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0);
}

#[test]
fn a_build_step_that_never_ends_is_stopped_with_its_whole_group() {
    let root = tempfile::tempdir().unwrap();
    // A marker no other test's process carries: the build's background job and its shell.
    let marker = format!("31.{}", std::process::id());
    let bot = root.path().join("slow");
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        format!(
            "name = \"Slow\"\nrun = \"true\"\nbuild = \"sleep {marker} & sleep {marker}\"\n\
             games = [\"paths\"]\n"
        ),
    )
    .unwrap();
    std::fs::create_dir_all(root.path().join("b")).unwrap();
    std::fs::write(
        root.path().join("b/bot.toml"),
        "name = \"B\"\nrun = \"true\"\ngames = [\"paths\"]\n",
    )
    .unwrap();
    std::fs::write(
        root.path().join("t.toml"),
        "game = \"paths\"\nbots = [\"slow\", \"b\"]\ngames = 1\nbuild_timeout_s = 1\n",
    )
    .unwrap();
    let started = Instant::now();
    let output = koth(root.path(), &["tournament", "run", "t.toml"]);
    assert_refused(
        &output,
        1,
        &[
            "bot \"Slow\"",
            "did not finish within 1 s",
            "build_timeout_s",
        ],
    );
    // The sleeps last 31 s: koth did not wait for them.
    assert!(started.elapsed() < Duration::from_secs(25));
    // Killed processes may take a moment to leave /proc.
    let gone_by = Instant::now() + Duration::from_secs(5);
    while !survivors::survivors(&marker).is_empty() && Instant::now() < gone_by {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(survivors::survivors(&marker), Vec::<String>::new());
    assert!(!root.path().join("logs").exists());
}

#[test]
fn huge_rat_race_counts_are_refused() {
    let root = tempfile::tempdir().unwrap();
    for (flag, says) in [
        ("--boards", "give 1 to 1000000 boards"),
        ("--jobs", "give 1 to 1024 jobs"),
    ] {
        let output = koth(
            root.path(),
            &[
                "ratrace",
                "--player",
                "random-forward",
                flag,
                "18446744073709551615",
            ],
        );
        assert_refused(&output, 1, &[flag, says]);
    }
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0);
}
