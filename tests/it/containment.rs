//! Containment against a real hostile bot (`tests/hostile/escape.py`): every escape it tries is
//! held, the limits end it with a reason that names them, nothing it starts outlives it (nor
//! koth killed with `kill -9`), and real Python, Java and compiled bots play normally contained.

use std::io::Write;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::arena;
use crate::support::hostile::{LIMIT, assert_held, contained, repo, spec, try_escape, wait_for};
use crate::support::survivors;
use crate::support::tournament;
use survivors::survivors;
use tournament::{leaderboard, run_tournament};

use koth::bot::Sandbox;
use koth::bot::cgroup::BotGroups;
use koth::bot::{BotError, BotProcess, Ending, StderrLog};

/// A bot folder `dir/name` holding the hostile bot, started with `marker` on its command line.
fn hostile_folder(dir: &Path, name: &str, marker: &str) -> PathBuf {
    let bot = crate::support::hostile::folder(dir, name);
    std::fs::write(
        bot.join("bot.toml"),
        format!(
            "name = \"{name}\"\nrun = \"python3 -u escape.py {marker}\"\ngames = [\"paths\"]\n"
        ),
    )
    .unwrap();
    bot
}

#[tokio::test]
async fn every_escape_a_hostile_bot_tries_is_held() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = format!("koth-escape-{}", std::process::id());
    let hostile = spec(
        &hostile_folder(tmp.path(), "hostile", &marker),
        "hostile",
        &["python3", "-u", "escape.py", &marker],
    );
    // What it goes after: another bot's folder and working copy, the tournament's database,
    // the user's home, a server on loopback, a process of the machine, koth's environment.
    let victim = tmp.path().join("victim");
    std::fs::create_dir_all(victim.join("sub")).unwrap();
    std::fs::write(victim.join("secret.txt"), "the victim's code").unwrap();
    let database = tmp.path().join("results.sqlite");
    std::fs::write(&database, "SQLite format 3").unwrap();
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = server.local_addr().unwrap();
    let mut bystander = Command::new("sleep").arg("30").spawn().unwrap();
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());

    let game = tmp.path().join("game");
    let limits = Sandbox {
        memory_mb: 256,
        file_mb: 8,
        ..Sandbox::default()
    };
    let bot = contained(&hostile, &limits, &game);
    let mut process = BotProcess::spawn(&bot, &StderrLog::discard()).unwrap();
    for attempt in [
        format!("read {}", victim.join("secret.txt").display()),
        format!("list {}", victim.display()),
        format!("write {}", victim.join("secret.txt").display()),
        format!("write {}", victim.join("sub/new.txt").display()),
        format!("read {}", database.display()),
        "read /etc/shadow".into(),
        "write /etc/koth-contained-bot".into(),
        "write /usr/koth-contained-bot".into(),
        format!("connect {address}"),
        format!("kill {}", bystander.id()),
        format!("kill {}", std::process::id()),
        "processes".into(),
        "whoami".into(),
        // cargo sets this in the test's environment, which the bot would inherit uncontained.
        "environ CARGO_MANIFEST_DIR".into(),
        // The file cap: a 16 MiB file against 8.
        "bigfile 16".into(),
    ] {
        assert_held(&mut process, &attempt).await;
    }
    // Of the folder holding the game, it sees only the way to its own folders.
    let listing = try_escape(&mut process, &format!("list {}", tmp.path().display())).await;
    assert!(
        !listing.contains("victim") && !listing.contains("results.sqlite"),
        "{listing}"
    );
    // Of the home folder, it sees at most the install of its interpreter (a pyenv there).
    let listing = try_escape(&mut process, &format!("list {home}")).await;
    if let Some(names) = listing.strip_prefix("ESCAPED listed ") {
        let python = koth::bot::roster::load_manifest(&hostile.dir).unwrap().0;
        let install = which(&python.command[0]);
        for name in names.split_whitespace() {
            assert!(
                install.starts_with(Path::new(&home).join(name)),
                "the bot sees {name} in {home}; its interpreter is {install:?}"
            );
        }
    }
    // Its private /tmp and its own folder are its to write; what it adds to its folder lives
    // in memory, capped, and goes with it (koth's copy on disk keeps only its own files).
    assert_eq!(
        try_escape(&mut process, "write /tmp/mine").await,
        "ESCAPED wrote /tmp/mine"
    );
    assert!(
        try_escape(&mut process, "write notes.txt")
            .await
            .starts_with("ESCAPED")
    );
    assert!(!bot.dir.join("notes.txt").exists());
    // Writing to the database's path writes only to the bot's own private /tmp.
    try_escape(&mut process, &format!("write {}", database.display())).await;
    // A double-forked setsid daemon ends with the bot.
    assert_held(&mut process, &format!("daemon {marker}-daemon")).await;
    wait_for(
        || survivors(&format!("{marker}-daemon")).len() == 1,
        "the daemon to start",
    );
    process.finish(LIMIT, Ending::Exit).await;
    wait_for(
        || survivors(&marker).is_empty(),
        "every process of the bot to end",
    );

    assert_eq!(
        std::fs::read_to_string(victim.join("secret.txt")).unwrap(),
        "the victim's code"
    );
    assert!(!victim.join("sub/new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(&database).unwrap(),
        "SQLite format 3"
    );
    assert!(!Path::new("/etc/koth-contained-bot").exists());
    assert!(
        bystander.try_wait().unwrap().is_none(),
        "the bystander was killed"
    );
    bystander.kill().unwrap();
    drop(server);
}

/// Where `program` is found on PATH.
fn which(program: &str) -> PathBuf {
    let paths = std::env::var_os("PATH").unwrap();
    std::env::split_paths(&paths)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
        .unwrap()
}

#[tokio::test]
async fn a_bot_over_its_memory_cap_is_stopped_by_it() {
    let tmp = tempfile::tempdir().unwrap();
    let hostile = spec(
        &hostile_folder(tmp.path(), "greedy", "koth-greedy"),
        "greedy",
        &["python3", "-u", "escape.py"],
    );
    let limits = Sandbox {
        memory_mb: 256,
        ..Sandbox::default()
    };
    let bot = contained(&hostile, &limits, &tmp.path().join("game"));
    let mut process = BotProcess::spawn(&bot, &StderrLog::discard()).unwrap();
    // Where koth can make control groups (as root on this machine image), the kernel stops
    // the bot and the fault names the cap; with rlimits alone, the allocation fails inside the
    // bot (Python's MemoryError).
    let grouped = BotGroups::create(256, 512).is_some_and(|groups| groups.caps_memory());
    let outcome = process.ask("TRY memory 512", LIMIT).await;
    if grouped {
        let fault = outcome.unwrap_err();
        assert!(
            fault.to_string().contains("memory limit 256 MiB"),
            "{fault}"
        );
    } else {
        let answer = outcome.unwrap();
        assert!(
            answer.line.starts_with("HELD MemoryError"),
            "{}",
            answer.line
        );
    }
}

#[tokio::test]
async fn a_bot_over_its_file_size_cap_faults_with_a_reason_naming_the_cap() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("writer");
    std::fs::create_dir_all(&folder).unwrap();
    // dd writes until the cap stops it (by SIGXFSZ, or EFBIG where the signal is ignored).
    let writer = spec(
        &folder,
        "writer",
        &["dd", "if=/dev/zero", "of=big.bin", "bs=1M", "count=16"],
    );
    let limits = Sandbox {
        file_mb: 4,
        ..Sandbox::default()
    };
    let bot = contained(&writer, &limits, &tmp.path().join("game"));
    let mut process = BotProcess::spawn(&bot, &StderrLog::discard()).unwrap();
    let fault = process.ask("GO", LIMIT).await.unwrap_err();
    assert!(
        matches!(&fault, BotError::Exited { status, .. } if status.contains("file size limit 4 MiB")),
        "{fault}"
    );
    // Written in its memory-backed folder, not in koth's copy on disk.
    assert!(!bot.dir.join("big.bin").exists());
}

#[test]
fn contained_bots_die_with_koth_killed_by_sigkill() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = format!("koth-orphan-{}", std::process::id());
    // The hostile bot answers no paths prompt: the game waits on it until koth is killed.
    let bot = hostile_folder(tmp.path(), "waiter", &marker);
    let other = hostile_folder(tmp.path(), "other", &marker);
    let mut koth = Command::new(env!("CARGO_BIN_EXE_koth"))
        .args([
            "paths",
            "--sandbox",
            "--rounds",
            "1",
            "--timeout-ms",
            "60000",
            "--seed",
            "1",
        ])
        .arg("--bot")
        .arg(&bot)
        .arg("--bot")
        .arg(&other)
        .arg("--log-dir")
        .arg(tmp.path().join("log"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Both bots' Python processes (bwrap's command lines carry the marker too).
    let pythons = || {
        survivors(&marker)
            .iter()
            .filter(|cmdline| !cmdline.starts_with("bwrap") && cmdline.contains("escape.py"))
            .count()
    };
    wait_for(|| pythons() == 2, "both bots to start");
    koth.kill().unwrap();
    koth.wait().unwrap();
    let start = Instant::now();
    while !survivors(&marker).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "survived koth: {:?}",
            survivors(&marker)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The graphical log of a paths game among the sample bots (Python, C, JavaScript, bash),
/// contained or not.
fn paths_game(contained: bool) -> String {
    let arena = arena::arena();
    let log = arena.path().join("log");
    let mut command = Command::new(env!("CARGO_BIN_EXE_koth"));
    command
        .current_dir(arena.path())
        .args(["paths", "--rounds", "3", "--seed", "7", "--log-dir"])
        .arg(&log);
    if contained {
        command.arg("--sandbox");
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let results = std::fs::read_to_string(log.join("results.json")).unwrap();
    assert!(!results.contains("\"kind\""), "a bot faulted: {results}");
    std::fs::read_to_string(log.join("graphical_log.txt")).unwrap()
}

#[test]
fn an_interpreter_a_bots_txt_names_by_its_full_path_off_path_is_lent_to_its_contained_bot() {
    // Funnelweb's case: its bots.txt line names a Python by a full path on no PATH. Here a
    // python3 reached through a link in a folder of its own.
    let arena = arena::arena();
    let interpreters = tempfile::tempdir().unwrap();
    let python = interpreters.path().join("bin").join("python3");
    std::fs::create_dir_all(python.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(which("python3"), &python).unwrap();
    std::fs::write(
        arena.path().join("bots.txt"),
        format!(
            "Random Builder\npaths-random-builder\n{} random_builder.py\n\
             Checkpoint\npaths-checkpoint\nbash checkpoint.sh\n",
            python.display()
        ),
    )
    .unwrap();
    let log = arena.path().join("log");
    let output = Command::new(env!("CARGO_BIN_EXE_koth"))
        .current_dir(arena.path())
        .args([
            "paths",
            "--bots-file",
            "bots.txt",
            "--sandbox",
            "--rounds",
            "2",
        ])
        .args(["--seed", "7", "--log-dir"])
        .arg(&log)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let results = std::fs::read_to_string(log.join("results.json")).unwrap();
    assert!(!results.contains("\"kind\""), "a bot faulted: {results}");
}

#[test]
fn a_tournament_runs_a_language_its_file_names_by_full_path_for_the_contained_bots_naming_it() {
    // An interpreter on no PATH, named by full path in the tournament file's `languages`; the
    // bot's own bot.toml names it by its name alone.
    let arena = arena::arena();
    let interpreters = tempfile::tempdir().unwrap();
    let python = interpreters.path().join("bin").join("koth-test-python");
    std::fs::create_dir_all(python.parent().unwrap()).unwrap();
    // The interpreter itself (a pyenv shim would take the link's name for the program's).
    let real = Command::new("python3")
        .args([
            "-c",
            "import os, sys; print(os.path.realpath(sys.executable))",
        ])
        .output()
        .unwrap();
    let real = String::from_utf8(real.stdout).unwrap();
    std::os::unix::fs::symlink(real.trim(), &python).unwrap();
    std::fs::write(
        arena.path().join("bots/paths-random-builder/bot.toml"),
        "name = \"Random Builder\"\nrun = \"koth-test-python random_builder.py\"\n\
         games = [\"paths\"]\n",
    )
    .unwrap();
    let file = arena.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"paths\"\nbots = [\"bots/paths-random-builder\", \"bots/paths-checkpoint\"]\n\
             games = 2\nrounds = 2\nseed = 3\njobs = 1\nlanguages = [{:?}, \"bash\"]\n",
            python.display().to_string()
        ),
    )
    .unwrap();
    let dir = arena.path().join("t");
    tournament::run_tournament(&file, &dir, &[]);
    let faulted = "SELECT COUNT(*) FROM results WHERE timed_out_faults + crashed_faults \
                   + bad_output_faults + failed_to_start_faults > 0";
    assert_eq!(tournament::query(&dir, faulted), 0);
    assert_eq!(tournament::query(&dir, "SELECT COUNT(*) FROM results"), 4);
}

#[test]
fn sample_bots_play_the_same_game_contained() {
    assert_eq!(paths_game(true), paths_game(false));
}

#[test]
fn a_java_and_a_python_bot_play_noughts_and_crosses_contained() {
    let tmp = tempfile::tempdir().unwrap();
    let java = tmp.path().join("ttt-java");
    std::fs::create_dir_all(&java).unwrap();
    for file in ["bot.toml", "CornerKeeper.java"] {
        std::fs::copy(repo().join("bots/ttt-java").join(file), java.join(file)).unwrap();
    }
    let output = Command::new(env!("CARGO_BIN_EXE_koth"))
        .args([
            "menace",
            "match",
            "--games",
            "2",
            "--seed",
            "1",
            "--sandbox",
            "--x",
        ])
        .arg(&java)
        .arg("--o")
        .arg(repo().join("bots/ttt-python"))
        .arg("--log-dir")
        .arg(tmp.path().join("log"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("faults: 0"), "{stdout}");
    assert_eq!(stdout.matches("draw ").count(), 2, "{stdout}");
}

#[test]
fn an_uncontained_tournament_says_so_on_its_leaderboard() {
    let tmp = tempfile::tempdir().unwrap();
    let arena = arena::arena();
    let file = tmp.path().join("t.toml");
    let mut text = std::fs::File::create(&file).unwrap();
    writeln!(
        text,
        "game = \"paths\"\nbots = [{:?}, {:?}]\ngames = 1\nrounds = 1\nsandbox = false",
        arena.path().join("bots/paths-checkpoint"),
        arena.path().join("bots/paths-destroyer")
    )
    .unwrap();
    let out = tmp.path().join("t");
    let run = run_tournament(&file, &out, &[]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("WARNING: the bots ran uncontained"),
        "{stdout}"
    );
    let log = std::fs::read_to_string(out.join("tournament.log")).unwrap();
    assert!(log.contains("uncontained"), "{log}");
}

#[test]
fn a_hostile_bot_in_a_tournament_reaches_neither_the_results_nor_the_other_bot() {
    let tmp = tempfile::tempdir().unwrap();
    let arena = arena::arena();
    let victim = arena.path().join("bots/paths-checkpoint");
    // In paths mode it makes the attempts in its attempts.txt, then plays.
    let hostile = hostile_folder(tmp.path(), "hostile", "paths");
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    // From its working folder, games/<game>/bots/<seat>/, the tournament folder is ../../../..
    let attempts = [
        "read ../../../../results.sqlite".to_string(),
        "read ../../../../tournament.log".into(),
        "read ../../../../koth.lock".into(),
        // The other bot's working copy, beside its own.
        "read ../{other}/checkpoint.sh".into(),
        "write ../{other}/checkpoint.sh".into(),
        format!("read {}", victim.join("checkpoint.sh").display()),
        format!("connect {}", server.local_addr().unwrap()),
    ];
    // Last, a write to the database's path: uncontained, it leaves the database malformed.
    let lines = [
        &attempts[..],
        &["write ../../../../results.sqlite".to_string()],
    ]
    .concat();
    std::fs::write(hostile.join("attempts.txt"), lines.join("\n")).unwrap();
    let file = tmp.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"paths\"\nbots = [{hostile:?}, {victim:?}]\ngames = 2\nrounds = 1\njobs = 2\n"
        ),
    )
    .unwrap();
    let out = tmp.path().join("t");
    run_tournament(&file, &out, &[]);
    // What the hostile bot reported of each attempt, in each game, but the writes to the
    // database's path.
    let reports: Vec<String> = (0..2)
        .flat_map(|game| escape_reports(&out.join(format!("games/{game}/stderr"))))
        .filter(|r| !r.starts_with("TRY write ../../../../"))
        .collect();
    assert_eq!(reports.len(), 2 * attempts.len(), "{reports:#?}");
    for report in &reports {
        assert!(report.contains("-> HELD"), "{report}");
    }
    // Its write to the database's path landed in its own private /tmp (the test's folders are
    // under /tmp), if anywhere: the database is whole and has both games.
    let board = leaderboard(&out);
    assert_eq!(board["games_done"], 2, "{board}");
    let checkpoint = std::fs::read_to_string(victim.join("checkpoint.sh")).unwrap();
    assert!(!checkpoint.contains("owned"));
    for game in 0..2 {
        for seat in 0..2 {
            let copy = out.join(format!("games/{game}/bots/{seat}/checkpoint.sh"));
            if let Ok(text) = std::fs::read_to_string(copy) {
                assert!(!text.contains("owned"), "{text}");
            }
        }
    }
}

#[test]
fn where_bots_cannot_be_contained_a_contained_run_refuses_to_start() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["a", "b"] {
        let bot = tmp.path().join(name);
        std::fs::create_dir_all(&bot).unwrap();
        std::fs::write(
            bot.join("bot.toml"),
            format!("name = \"{name}\"\nrun = \"/usr/bin/true\"\ngames = [\"paths\"]\n"),
        )
        .unwrap();
    }
    let log = tmp.path().join("log");
    // A PATH without bwrap: as on a machine without bubblewrap.
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_koth"))
        .env("PATH", &empty)
        .args([
            "paths",
            "--sandbox",
            "--rounds",
            "1",
            "--seed",
            "1",
            "--bot",
        ])
        .arg(tmp.path().join("a"))
        .arg("--bot")
        .arg(tmp.path().join("b"))
        .arg("--log-dir")
        .arg(&log)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot be contained") && stderr.contains("bubblewrap"),
        "{stderr}"
    );
    assert!(stderr.contains("leave out --sandbox"), "{stderr}");
    assert!(!log.join("results.json").exists(), "it played uncontained");
}

#[tokio::test]
async fn the_cpu_clock_measures_a_contained_bot_not_its_sandbox() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("busy");
    std::fs::create_dir_all(&folder).unwrap();
    // Spends about 0.3 s of CPU on each answer.
    let busy = "import sys, time\n\
                for line in sys.stdin:\n    \
                    end = time.process_time() + 0.3\n    \
                    while time.process_time() < end: pass\n    \
                    print('done', flush=True)\n";
    let bot = contained(
        &spec(&folder, "busy", &["python3", "-c", busy]),
        &Sandbox::default(),
        &tmp.path().join("game"),
    );
    let mut process = BotProcess::spawn(&bot, &StderrLog::discard()).unwrap();
    process.set_clock(koth::bot::Clock::Cpu {
        backstop: Duration::from_secs(10),
    });
    for _ in 0..2 {
        let answer = process.ask("GO", LIMIT).await.unwrap();
        let cpu = answer.cpu.expect("the CPU clock read the bot's time");
        assert!(
            cpu >= Duration::from_millis(250) && cpu < Duration::from_secs(2),
            "{cpu:?}"
        );
    }
    process.finish(LIMIT, Ending::Exit).await;
}

/// What the hostile bots of a game reported of their attempts (`TRY … -> HELD …`), from its
/// folder of stderr logs.
fn escape_reports(stderr: &Path) -> Vec<String> {
    let mut reports = Vec::new();
    for log in std::fs::read_dir(stderr).unwrap() {
        let text = std::fs::read_to_string(log.unwrap().path()).unwrap();
        reports.extend(
            text.lines()
                .filter(|l| l.starts_with("TRY"))
                .map(String::from),
        );
    }
    reports
}

/// Gives the folder tree `dir` to the unprivileged user `nobody`.
fn give_to_nobody(dir: &Path) {
    let status = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(dir)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_koth_run_by_an_unprivileged_user_contains_its_bots_with_rlimits() {
    // As an unprivileged user koth may make no control groups (nor become another user): the
    // caps are rlimits. Switching to that user needs root, as CI and this machine image run.
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: needs root to run koth as nobody");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let arena = arena::arena();
    let victim = arena.path().join("bots/paths-checkpoint");
    // In paths mode it makes the attempts in its attempts.txt, then plays.
    let hostile = hostile_folder(tmp.path(), "hostile", "paths");
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let attempts = [
        format!("read {}", victim.join("checkpoint.sh").display()),
        format!("connect {}", server.local_addr().unwrap()),
        "write /etc/koth-contained-bot".into(),
        "processes".into(),
        // 512 MiB against a cap of 256.
        "memory 512".into(),
    ];
    std::fs::write(hostile.join("attempts.txt"), attempts.join("\n")).unwrap();
    let other = tmp.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(victim.join("bot.toml"), other.join("bot.toml")).unwrap();
    std::fs::copy(victim.join("checkpoint.sh"), other.join("checkpoint.sh")).unwrap();
    give_to_nobody(tmp.path());
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let log = tmp.path().join("log");
    let output = Command::new(env!("CARGO_BIN_EXE_koth"))
        .uid(65534)
        .gid(65534)
        // The system's own interpreters: root's (a pyenv under /root) are not nobody's.
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", tmp.path())
        .current_dir(tmp.path())
        .args([
            "paths",
            "--sandbox",
            "--memory-mb",
            "256",
            "--rounds",
            "1",
            "--seed",
            "1",
        ])
        .arg("--bot")
        .arg(&hostile)
        .arg("--bot")
        .arg(&other)
        .arg("--log-dir")
        .arg(&log)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let reports = escape_reports(&log.join("stderr"));
    assert_eq!(reports.len(), attempts.len(), "{reports:#?}");
    for report in &reports {
        assert!(report.contains("-> HELD"), "{report}");
    }
    assert!(
        reports
            .iter()
            .any(|r| r.contains("memory") && r.contains("MemoryError")),
        "{reports:#?}"
    );
}

#[test]
fn a_contained_game_can_be_played_again_into_the_same_log_folder() {
    let arena = arena::arena();
    let bots = arena.path().join("bots");
    // A subfolder is linked into the working copy, not copied.
    std::fs::create_dir_all(bots.join("paths-checkpoint/notes")).unwrap();
    let log = arena.path().join("log");
    for _ in 0..2 {
        let output = Command::new(env!("CARGO_BIN_EXE_koth"))
            .args([
                "paths",
                "--sandbox",
                "--rounds",
                "1",
                "--seed",
                "3",
                "--bot",
            ])
            .arg(bots.join("paths-checkpoint"))
            .arg("--bot")
            .arg(bots.join("paths-destroyer"))
            .arg("--log-dir")
            .arg(&log)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// A bot sees one environment, the same contained or not: the fixed list of
/// `docs/writing-a-bot.md` and nothing of the shell koth runs in (`PYTHONUNBUFFERED`, which
/// would let a bot that forgets to flush pass at home only).
#[tokio::test]
async fn a_bot_sees_the_same_environment_contained_or_not() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("env");
    std::fs::create_dir_all(&folder).unwrap();
    // The system's shell, not an interpreter's wrapper (a pyenv shim adds its own variables),
    // and without the working folder it sets itself.
    let show = "read prompt; env | grep -v '^PWD=' | sort | tr '\\n' ' '; echo";
    let bot = spec(&folder, "env", &["/bin/sh", "-c", show]);
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    let mut seen = Vec::new();
    for bot in [
        bot.clone(),
        contained(&bot, &Sandbox::default(), &tmp.path().join("game")),
    ] {
        let mut process = BotProcess::spawn(&bot, &StderrLog::discard()).unwrap();
        seen.push(process.ask("ENV", LIMIT).await.unwrap().line);
        process.finish(LIMIT, Ending::Exit).await;
    }
    let path = std::env::var("PATH").unwrap();
    let expected = format!("HOME=/tmp LANG=C.UTF-8 PATH={path} TMPDIR=/tmp ");
    assert_eq!(seen, [expected.clone(), expected]);
}

/// An owner's home for koth, under `dir`: `~/.local/bin/helper` beside a file of the owner's in
/// `~/.local`, and `~/.cargo/bin/cargo` beside a registry token, both folders on `PATH`.
fn owners_home(dir: &Path) -> (PathBuf, String) {
    let home = dir.join("home");
    for (program, secret) in [
        (".local/bin/helper", ".local/share/owner-notes.txt"),
        (".cargo/bin/cargo", ".cargo/credentials.toml"),
    ] {
        let path = home.join(program);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "#!/bin/sh\necho helped\n").unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let secret = home.join(secret);
        std::fs::create_dir_all(secret.parent().unwrap()).unwrap();
        std::fs::write(&secret, "OWNER_SECRET_5512\n").unwrap();
    }
    let path = format!(
        "{}:{}:{}",
        home.join(".local/bin").display(),
        home.join(".cargo/bin").display(),
        std::env::var("PATH").unwrap()
    );
    (home, path)
}

#[test]
fn words_after_a_run_lines_program_lend_nothing_and_no_home_entry_is_lent_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, path) = owners_home(tmp.path());
    // A noughts & crosses bot whose run line names `helper` and `cargo` after its script, and
    // that tries to read what lies beside them, and to run them, before it answers.
    let bot = tmp.path().join("words");
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        "name = \"Words\"\nrun = \"python3 -u words.py helper cargo\"\ngames = [\"tictactoe\"]\n",
    )
    .unwrap();
    std::fs::write(
        bot.join("words.py"),
        format!(
            r#"import os, subprocess, sys
home = {home:?}
for path in [home + "/.local/share/owner-notes.txt", home + "/.cargo/credentials.toml"]:
    try:
        print("READ " + open(path).read().strip(), file=sys.stderr)
    except OSError as e:
        print("refused %s: %s" % (path, e.strerror), file=sys.stderr)
for folder in [home + "/.cargo/bin", home + "/.local", home + "/.local/bin"]:
    try:
        print("LISTED %s %s" % (folder, os.listdir(folder)), file=sys.stderr)
    except OSError as e:
        print("refused %s: %s" % (folder, e.strerror), file=sys.stderr)
for program in ["helper", "cargo", "perl"]:
    try:
        ran = subprocess.run([program, "-e", "print 1"], capture_output=True, timeout=5)
        print("RAN %s %d" % (program, ran.returncode), file=sys.stderr)
    except OSError as e:
        print("cannot run %s: %s" % (program, e.strerror), file=sys.stderr)
for line in sys.stdin:
    w = line.split()
    if w and w[0] == "MOVE":
        print(w[1].index("."), flush=True)
"#,
            home = home.display().to_string()
        ),
    )
    .unwrap();
    let other = tmp.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("bot.toml"),
        "name = \"Other\"\nrun = \"python3 -u other.py\"\ngames = [\"tictactoe\"]\n",
    )
    .unwrap();
    std::fs::write(
        other.join("other.py"),
        "import sys\nfor line in sys.stdin:\n    w = line.split()\n    if w and w[0] == 'MOVE':\n        \
         print(w[1].index('.'), flush=True)\n",
    )
    .unwrap();
    let file = tmp.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"tictactoe\"\nbots = [{bot:?}, {other:?}]\ngames = 1\nseed = 1\n\
             answer_ms = 5000\n"
        ),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let mut command = tournament::koth();
    tournament::succeed(
        crate::support::cpus::own_cpu_locks(&mut command, tmp.path())
            .env("HOME", &home)
            .env("PATH", &path)
            .args(["tournament", "run"])
            .arg(&file)
            .arg("--dir")
            .arg(&out),
    );
    let mut said = String::new();
    let mut folders = vec![out.join("games")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            if entry.file_type().unwrap().is_dir() {
                folders.push(entry.path());
            } else {
                said.push_str(&String::from_utf8_lossy(
                    &std::fs::read(entry.path()).unwrap(),
                ));
            }
        }
    }
    assert!(said.contains("refused"), "the bot did not run: {said}");
    assert!(
        !said.contains("OWNER_SECRET"),
        "a file of the owner's was read: {said}"
    );
    assert!(
        !said.contains("LISTED"),
        "a folder of the owner's was listed: {said}"
    );
    // Neither word of its arguments is a program it was lent.
    assert!(
        !said.contains("RAN helper") && !said.contains("RAN cargo"),
        "{said}"
    );
    // The system's folders are lent whole: a program of them runs whatever `languages`
    // offers, as docs/containment.md says.
    assert!(said.contains("RAN perl 0"), "{said}");
}
