//! What guards a tournament's state and its night, through the real `koth` binary with real bot
//! processes: the folder lock, stopping koth by signal, and the bench for broken bots.
//!
//! The bots that hold a game open are `faulty.py stall`: they play normally, except in games
//! numbered from the one their folder's `stall_from` file names on, where they never answer (and
//! the limits are long): a tournament run with that file is busy until the test stops it, and a
//! resume without it finishes quickly.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::support::paths_bots;
use crate::support::signals::default_signals;
use crate::support::survivors;
use crate::support::tournament;
use paths_bots::{paths_bot, script_bot};
use survivors::{marked_processes, survivors};
use tournament::{
    assert_every_game_once, koth, leaderboard, query, repo, succeed, tournament_file,
};

/// Settings that let a stalled game wait for minutes (the test stops it long before).
const STALL_LIMITS: &str = "rounds = 1\nbackstop_ms = 300000\n";

/// `count` paths bots under `dir` running `faulty.py stall`, with `marker` on their command lines,
/// that stall in the games from `stall_from` on.
fn stalling_bots(dir: &Path, count: usize, marker: &str, stall_from: u32) -> Vec<PathBuf> {
    let args = format!("stall {marker}");
    (0..count)
        .map(|i| {
            let (folder, name) = (format!("staller-{i}"), format!("Staller {i}"));
            let bot = script_bot(dir, &folder, &name, "faulty.py", &args);
            std::fs::write(bot.join("stall_from"), stall_from.to_string()).unwrap();
            bot
        })
        .collect()
}

/// Makes the stalling bots `bots` play every game from now on.
fn stop_stalling(bots: &[&Path]) {
    for bot in bots {
        let _ = std::fs::remove_file(bot.join("stall_from"));
    }
}

/// A unique marker for this test's processes.
fn marker(test: &str) -> String {
    format!("koth-guard-{test}-{}", std::process::id())
}

/// Starts `koth tournament run FILE --dir OUT`.
fn start(file: &Path, out: &Path) -> Running {
    start_through(koth(), file, out)
}

/// Starts `command`, which is koth or runs koth with the arguments that follow, with
/// `tournament run FILE --dir OUT`, from the default signal dispositions (`command` may then set
/// its own, as `nohup` does).
fn start_through(mut command: Command, file: &Path, out: &Path) -> Running {
    let child = default_signals(&mut command)
        .args(["tournament", "run"])
        .arg(file)
        .arg("--dir")
        .arg(out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    Running(Some(child))
}

/// A tournament started by a test; stopped with its bots if the test fails before stopping it.
struct Running(Option<Child>);

impl Running {
    fn id(&self) -> u32 {
        self.0.as_ref().map_or(0, Child::id)
    }

    /// Sends `signal` to koth, which must exit within a few seconds.
    fn stop(mut self, signal: Signal) -> Output {
        let child = self.0.take().unwrap();
        kill(Pid::from_raw(child.id() as i32), signal).unwrap();
        exit_within(child, Duration::from_secs(10))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM);
            let _ = child.wait();
        }
    }
}

/// Waits (up to a minute: the machine may be busy) until `done` holds.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether a bot of game `game` of the tournament in `out` is stalling (it said so on stderr).
fn stalled(out: &Path, game: u32) -> bool {
    let Ok(logs) = std::fs::read_dir(out.join(format!("games/{game}/stderr"))) else {
        return false;
    };
    logs.flatten()
        .any(|log| std::fs::read_to_string(log.path()).is_ok_and(|text| text.contains("stalling")))
}

/// Waits for `child` to exit, which it must within `limit`, and returns its output.
fn exit_within(mut child: Child, limit: Duration) -> Output {
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("koth did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn assert_no_survivors(marker: &str) {
    // Killed bots are reaped by init once koth is gone, a moment later.
    wait_for("the bots to die", || survivors(marker).is_empty());
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_second_koth_is_turned_away_from_a_running_tournament_which_status_and_leaderboard_still_read()
{
    let tmp = tempfile::tempdir().unwrap();
    let marker = marker("lock");
    let bots = stalling_bots(tmp.path(), 2, &marker, 0);
    let bots: Vec<&Path> = bots.iter().map(PathBuf::as_path).collect();
    let file = tournament_file(
        tmp.path(),
        &bots,
        &format!("games = 3\njobs = 1\nseed = 5\n{STALL_LIMITS}"),
    );
    let out = tmp.path().join("t");
    let first = start(&file, &out);
    wait_for("the first game to stall", || stalled(&out, 0));
    // A bot holding the lock file open would keep the folder locked after koth is gone.
    let lock_file = out.join("koth.lock");
    let processes = marked_processes(&marker);
    assert!(!processes.is_empty());
    for (pid, cmdline) in processes {
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .into_iter()
            .flatten();
        let open: Vec<PathBuf> = fds
            .flatten()
            .filter_map(|fd| fd.path().read_link().ok())
            .collect();
        assert!(!open.contains(&lock_file), "{cmdline} holds {open:?}");
    }

    let mut second_run = koth();
    second_run
        .args(["tournament", "run"])
        .arg(&file)
        .arg("--dir")
        .arg(&out);
    let mut second_resume = koth();
    second_resume.args(["tournament", "resume"]).arg(&out);
    for mut second in [second_run, second_resume] {
        // Without the lock, it would play (and stall) the games the first one is playing.
        let second = second
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let output = exit_within(second, Duration::from_secs(10));
        assert!(!output.status.success());
        let message = stderr(&output);
        assert!(
            message.contains(&out.display().to_string())
                && message.contains(&format!("pid {}", first.id())),
            "{message}"
        );
    }

    let status = succeed(koth().args(["tournament", "status"]).arg(&out));
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(status.contains("0 of 3 games done, 1 running"), "{status}");
    assert_eq!(leaderboard(&out)["games_total"], 3);

    first.stop(Signal::SIGTERM);
    assert_no_survivors(&marker);
    stop_stalling(&bots);
    succeed(koth().args(["tournament", "resume"]).arg(&out));
    assert_every_game_once(&out, 3);
}

/// Stops a tournament with `signal` while two games are in flight and two are done, and finishes
/// it with the command koth printed.
fn a_signal_stops_the_tournament_and_the_printed_command_finishes_it(signal: Signal) {
    let tmp = tempfile::tempdir().unwrap();
    let marker = marker(signal.as_str());
    let bots = stalling_bots(tmp.path(), 2, &marker, 2);
    let bots: Vec<&Path> = bots.iter().map(PathBuf::as_path).collect();
    let file = tournament_file(
        tmp.path(),
        &bots,
        &format!("games = 6\njobs = 2\nseed = 9\n{STALL_LIMITS}"),
    );
    // A folder name the shell must have quoted.
    let out = tmp.path().join("night run");
    let tournament = start(&file, &out);
    wait_for("games 2 and 3 to stall", || {
        stalled(&out, 2) && stalled(&out, 3)
    });
    assert_eq!(
        query(&out, "SELECT COUNT(*) FROM games WHERE state = 'done'"),
        2
    );
    // Resuming must not play game 0 again (which would empty its folder).
    std::fs::write(out.join("games/0/kept"), "").unwrap();

    let output = tournament.stop(signal);
    assert_eq!(output.status.code(), Some(128 + signal as i32));
    assert_no_survivors(&marker);
    assert_eq!(
        query(&out, "SELECT COUNT(*) FROM games WHERE state = 'running'"),
        2,
        "the games in flight are left to be played again"
    );
    let message = stderr(&output);
    let command = message
        .lines()
        .skip_while(|line| !line.ends_with("played again by:"))
        .nth(1)
        .unwrap_or_else(|| panic!("no resume command: {message}"));
    assert_eq!(
        command,
        format!("koth tournament resume '{}'", out.display())
    );

    // The command as printed, through a shell, with this build of koth as `koth`.
    let bin = Path::new(env!("CARGO_BIN_EXE_koth")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    stop_stalling(&bots);
    succeed(Command::new("sh").arg("-c").arg(command).env("PATH", path));
    assert_every_game_once(&out, 6);
    assert!(
        out.join("games/0/kept").is_file(),
        "game 0 was played again"
    );
}

#[test]
fn sigint_stops_the_tournament_and_the_printed_command_finishes_it() {
    a_signal_stops_the_tournament_and_the_printed_command_finishes_it(Signal::SIGINT);
}

#[test]
fn sigterm_stops_the_tournament_and_the_printed_command_finishes_it() {
    a_signal_stops_the_tournament_and_the_printed_command_finishes_it(Signal::SIGTERM);
}

#[test]
fn sighup_stops_the_tournament_and_the_printed_command_finishes_it() {
    a_signal_stops_the_tournament_and_the_printed_command_finishes_it(Signal::SIGHUP);
}

#[test]
fn sighup_stops_koth_and_its_bots_when_its_terminal_is_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = marker("hangup");
    let bots = stalling_bots(tmp.path(), 2, &marker, 0);
    let bots: Vec<&Path> = bots.iter().map(PathBuf::as_path).collect();
    let file = tournament_file(
        tmp.path(),
        &bots,
        &format!("games = 1\nseed = 2\n{STALL_LIMITS}"),
    );
    let out = tmp.path().join("t");
    let mut tournament = start(&file, &out);
    wait_for("the game to stall", || stalled(&out, 0));
    // As when the terminal is closed: whatever koth writes to stderr now fails.
    drop(tournament.0.as_mut().unwrap().stderr.take());
    let output = tournament.stop(Signal::SIGHUP);
    assert_eq!(output.status.code(), Some(128 + Signal::SIGHUP as i32));
    assert_no_survivors(&marker);
}

#[test]
fn a_koth_started_under_nohup_plays_on_after_sighup() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = marker("nohup");
    let bots = stalling_bots(tmp.path(), 2, &marker, 0);
    let bots: Vec<&Path> = bots.iter().map(PathBuf::as_path).collect();
    let file = tournament_file(
        tmp.path(),
        &bots,
        &format!("games = 1\nseed = 3\n{STALL_LIMITS}"),
    );
    let out = tmp.path().join("t");
    let mut nohup = Command::new("nohup");
    nohup.arg(env!("CARGO_BIN_EXE_koth"));
    let tournament = start_through(nohup, &file, &out);
    wait_for("the game to stall", || stalled(&out, 0));
    // koth, which catches SIGTERM by now, left SIGHUP ignored as nohup set it: the kernel drops
    // a SIGHUP sent to it, however long koth would take to act on one.
    let pid = tournament.id();
    assert!(signal_set(pid, "SigCgt", Signal::SIGTERM));
    assert!(
        signal_set(pid, "SigIgn", Signal::SIGHUP),
        "SIGHUP is not ignored"
    );
    assert!(
        !signal_set(pid, "SigCgt", Signal::SIGHUP),
        "SIGHUP is caught"
    );
    kill(Pid::from_raw(pid as i32), Signal::SIGHUP).unwrap();
    assert!(!survivors(&marker).is_empty(), "its bots were stopped");
    let output = tournament.stop(Signal::SIGTERM);
    assert_eq!(output.status.code(), Some(128 + Signal::SIGTERM as i32));
    let message = stderr(&output);
    assert!(
        message.contains("interrupted by SIGTERM") && !message.contains("SIGHUP"),
        "{message}"
    );
    assert_no_survivors(&marker);
}

/// Whether `signal` is in the set `field` (`SigIgn`, `SigCgt`, `SigBlk`) of process `pid`.
fn signal_set(pid: u32, field: &str, signal: Signal) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let mask = status
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{field}:")))
        .unwrap_or_else(|| panic!("no {field} in {status}"));
    let mask = u64::from_str_radix(mask.trim(), 16).unwrap();
    mask & (1 << (signal as u32 - 1)) != 0
}

/// Whether every child of process `pid` has died (gone, or a zombie not yet reaped).
fn children_dead(pid: u32) -> bool {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).unwrap();
    tasks.flatten().all(|task| {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        children.split_whitespace().all(|child| {
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
            // The state follows the command's closing parenthesis.
            stat.rsplit_once(") ")
                .is_none_or(|(_, rest)| rest.starts_with('Z'))
        })
    })
}

/// Each game's status of bot `name`, in game order.
fn statuses(out: &Path, name: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(out.join("results.sqlite")).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT r.status FROM results r JOIN bots b ON b.id = r.bot
             WHERE b.name = ?1 ORDER BY r.game",
        )
        .unwrap();
    stmt.query_map([name], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Whether the crasher (which says so on stderr) was started in game `game`.
fn crasher_started(out: &Path, game: u32) -> bool {
    std::fs::read_to_string(out.join(format!("games/{game}/stderr/crasher.log")))
        .unwrap()
        .contains("crasher: started")
}

#[test]
fn a_bot_failing_at_start_up_three_games_in_a_row_is_benched_until_unbenched() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = marker("bench");
    let mut bots = stalling_bots(tmp.path(), 2, &marker, 5);
    // Exits before its first answer.
    bots.push(repo().join("tests/tournament_bots/crasher"));
    // Cannot be started: its program is not executable.
    let no_exec = paths_bot(tmp.path(), "no-exec", "No Exec", "./bot");
    std::fs::write(no_exec.join("bot"), "#!/bin/sh\n").unwrap();
    bots.push(no_exec);
    let bots: Vec<&Path> = bots.iter().map(PathBuf::as_path).collect();
    let file = tournament_file(
        tmp.path(),
        &bots,
        &format!("games = 7\njobs = 1\nseed = 4\n{STALL_LIMITS}"),
    );
    let out = tmp.path().join("t");
    let tournament = start(&file, &out);
    wait_for("game 5 to stall", || stalled(&out, 5));

    let start_failures = ["crashed", "crashed", "crashed", "benched", "benched"];
    assert_eq!(statuses(&out, "Crasher"), start_failures);
    assert_eq!(
        statuses(&out, "No Exec"),
        [
            "failed_to_start",
            "failed_to_start",
            "failed_to_start",
            "benched",
            "benched"
        ]
    );
    assert!((0..3).all(|game| crasher_started(&out, game)));
    assert!(
        !(3..5).any(|game| crasher_started(&out, game)),
        "a benched bot is not started"
    );
    // The games went on for the others.
    assert_eq!(statuses(&out, "Staller 0"), ["finished"; 5]);
    let status = succeed(koth().args(["tournament", "status"]).arg(&out));
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(
        status.contains("\"Crasher\" is benched") && status.contains("--unbench Crasher"),
        "{status}"
    );
    let board = leaderboard(&out);
    let crasher = board["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Crasher")
        .unwrap();
    assert_eq!(
        (
            &crasher["on_bench"],
            &crasher["benched"],
            &crasher["crashed"]
        ),
        (&true.into(), &2.into(), &3.into())
    );
    let table = succeed(koth().arg("leaderboard").arg(&out));
    assert!(String::from_utf8_lossy(&table.stdout).contains("Crasher (!) (benched)"));
    tournament.stop(Signal::SIGTERM);
    assert_no_survivors(&marker);

    let unknown = koth()
        .args(["tournament", "resume"])
        .arg(&out)
        .args(["--unbench", "Crashr"])
        .output()
        .unwrap();
    assert!(!unknown.status.success());
    let message = stderr(&unknown);
    assert!(
        message.contains("Crashr") && message.contains("\"Crasher\", \"No Exec\""),
        "{message}"
    );

    stop_stalling(&bots[..2]);
    succeed(
        koth()
            .args(["tournament", "resume"])
            .arg(&out)
            .args(["--unbench", "Crasher"]),
    );
    assert_every_game_once(&out, 7);
    // Its seats back in the games left: started, and crashing again.
    assert_eq!(
        statuses(&out, "Crasher"),
        [&start_failures[..], &["crashed", "crashed"]].concat()
    );
    assert!((5..7).all(|game| crasher_started(&out, game)));
    assert_eq!(statuses(&out, "No Exec")[5..], ["benched", "benched"]);
    let board = leaderboard(&out);
    for standing in board["standings"].as_array().unwrap() {
        let benched = standing["name"] == "No Exec";
        assert_eq!(standing["on_bench"], benched, "{standing}");
    }
}

#[test]
fn a_start_failure_streak_is_carried_on_by_a_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = marker("streak");
    let mut bots = stalling_bots(tmp.path(), 1, &marker, 2);
    bots.push(repo().join("tests/tournament_bots/crasher"));
    let bots: Vec<&Path> = bots.iter().map(PathBuf::as_path).collect();
    let file = tournament_file(
        tmp.path(),
        &bots,
        &format!("games = 5\njobs = 1\nseed = 4\n{STALL_LIMITS}"),
    );
    let out = tmp.path().join("t");
    let tournament = start(&file, &out);
    wait_for("game 2 to stall", || stalled(&out, 2));
    // Two failures at start-up in a row, then koth is stopped.
    assert_eq!(statuses(&out, "Crasher"), ["crashed", "crashed"]);
    tournament.stop(Signal::SIGTERM);
    assert_no_survivors(&marker);
    stop_stalling(&bots[..1]);
    succeed(koth().args(["tournament", "resume"]).arg(&out));
    assert_every_game_once(&out, 5);
    // The third failure in a row, the first after the resume, benches it.
    assert_eq!(
        statuses(&out, "Crasher"),
        ["crashed", "crashed", "crashed", "benched", "benched"]
    );
}

#[test]
fn a_second_signal_ends_koth_at_once_when_the_first_stop_hangs() {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("log");
    let transcripts = log.join("transcripts");
    std::fs::create_dir_all(&transcripts).unwrap();
    // The bot's transcript is a pipe nobody reads, as a disk that stopped taking writes: once
    // it is full, writing it blocks, and so does the first signal's flush of the transcripts.
    let fifo = transcripts.join("ratrace-colorscore-py.txt");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let child = default_signals(&mut koth())
        .args(["ratrace", "--boards", "50", "--seed", "1", "--bot"])
        .arg(repo().join("bots/ratrace-colorscore-py"))
        .arg("--log-dir")
        .arg(&log)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut koth = Running(Some(child));
    let queued = || {
        let mut bytes: nix::libc::c_int = 0;
        // SAFETY: FIONREAD writes the pipe's unread byte count into `bytes`.
        unsafe { nix::libc::ioctl(reader.as_raw_fd(), nix::libc::FIONREAD, &mut bytes) };
        bytes
    };
    // A pipe takes 64 KiB, in pages: the transcript's 8 KiB writes block a little before. Past
    // 48 KiB koth may still have room for a write or two, and a stop that flushes into that room
    // does not hang: the pipe is full once it stops growing while the bot keeps playing.
    let mut last = (queued(), Instant::now());
    wait_for("the transcript's pipe to fill", || {
        let now = queued();
        if now != last.0 {
            last = (now, Instant::now());
        }
        now >= 48 << 10 && last.1.elapsed() >= Duration::from_secs(2)
    });
    let pid = Pid::from_raw(koth.id() as i32);
    kill(pid, Signal::SIGINT).unwrap();
    // The first stop kills the bot, then hangs writing its transcript. Sent before koth took the
    // first, a second SIGINT would merge with it.
    wait_for("the first stop to kill the bot", || {
        children_dead(koth.id())
    });
    let child = koth.0.as_mut().unwrap();
    assert!(
        child.try_wait().unwrap().is_none(),
        "the first stop hangs on the transcript"
    );
    kill(pid, Signal::SIGINT).unwrap();
    let output = exit_within(koth.0.take().unwrap(), Duration::from_secs(5));
    assert_eq!(output.status.code(), Some(128 + Signal::SIGINT as i32));
    let message = stderr(&output);
    // The first stop never got as far as saying so.
    assert!(
        message.contains("SIGINT again: exiting at once") && !message.contains("interrupted"),
        "{message}"
    );
    drop(reader);
}
