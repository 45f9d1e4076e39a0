//! The bot process layer against real misbehaving processes (`tests/bots/faulty.py`): each fault
//! is reported with the right kind and a clear reason, later requests fail at once, and no
//! process of the bot — its children included — survives.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[path = "support/survivors.rs"]
mod survivors;
use survivors::survivors;

use koth::bot::{BotError, BotProcess, BotSpec, Clock, FaultKind, StderrLog};

fn bots_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bots")
}

/// A faulty bot whose processes carry a marker unique to this test.
fn faulty(mode: &str, marker: &str) -> BotSpec {
    BotSpec {
        name: format!("faulty {mode}"),
        dir: bots_dir(),
        command: vec![
            "python3".into(),
            "faulty.py".into(),
            mode.into(),
            marker.into(),
        ],
        build: None,
        origin: "tests/bot_process.rs".into(),
    }
}

/// Waits a little for the kernel to tear killed processes down, then asserts none is left.
async fn assert_no_survivors(marker: &str) {
    for _ in 0..50 {
        if survivors(marker).is_empty() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("processes survived: {:?}", survivors(marker));
}

/// Waits until the bot's child (which carries the marker) is up, so the test checks that a real
/// child gets killed, not one that was never started.
async fn wait_for_child(marker: &str) {
    for _ in 0..250 {
        if survivors(marker).len() >= 2 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the faulty bot never started its child");
}

const LIMIT: Duration = Duration::from_millis(1500);

/// Plays prompts until the faulty bot's third one, returning the fault it commits.
async fn run_until_fault(mode: &str, marker: &str) -> (BotError, BotProcess) {
    let mut bot = BotProcess::spawn(&faulty(mode, marker), &StderrLog::discard()).unwrap();
    wait_for_child(marker).await;
    bot.send("BEGIN 2 4 5").await.unwrap();
    for turn in 0..2 {
        let answer = bot.ask(&format!("DESTROY {turn}"), LIMIT).await.unwrap();
        assert_eq!(answer.line, "NONE");
    }
    let fault = bot
        .ask("DESTROY 2", LIMIT)
        .await
        .expect_err("the third prompt is the faulty one");
    (fault, bot)
}

async fn check_fault(mode: &str, kind: FaultKind, reason_part: &str) {
    let marker = format!("koth-test-{mode}-{}", std::process::id());
    let (fault, mut bot) = run_until_fault(mode, &marker).await;
    assert_eq!(fault.kind(), kind, "{mode}: {fault}");
    let reason = fault.to_string();
    assert!(reason.contains(reason_part), "{mode}: reason {reason:?}");
    // A stopped bot fails at once, with the original reason.
    let started = Instant::now();
    let again = bot.ask("ACTIVATE 2", LIMIT).await.unwrap_err();
    assert!(started.elapsed() < LIMIT);
    assert!(matches!(again, BotError::Stopped(_)), "{again}");
    assert_eq!(again.kind(), kind);
    // The fault already killed the whole group, children included.
    assert_no_survivors(&marker).await;
    bot.finish(LIMIT).await;
    assert_no_survivors(&marker).await;
}

#[tokio::test]
async fn a_late_answer_is_a_timeout() {
    check_fault("late", FaultKind::TimedOut, "no answer within 1500 ms").await;
}

#[tokio::test]
async fn a_crash_is_reported_with_exit_status_and_stderr() {
    check_fault("crash", FaultKind::Crashed, "exit status: 3").await;
    let marker = format!("koth-test-crash-tail-{}", std::process::id());
    let (fault, _bot) = run_until_fault("crash", &marker).await;
    assert!(
        fault.to_string().contains("committing crash now"),
        "the reason quotes the bot's last stderr line: {fault}"
    );
    assert_no_survivors(&marker).await;
}

#[tokio::test]
async fn closing_stdout_is_a_crash() {
    check_fault("close_stdout", FaultKind::Crashed, "closed its stdout").await;
}

#[tokio::test]
async fn bytes_that_are_not_utf8_are_bad_output() {
    check_fault("garbage", FaultKind::BadOutput, "not UTF-8").await;
}

#[tokio::test]
async fn an_endless_line_is_cut_off() {
    check_fault("endless_line", FaultKind::BadOutput, "without a newline").await;
}

#[tokio::test]
async fn a_bot_that_never_exits_is_killed_with_its_children() {
    let marker = format!("koth-test-never-exit-{}", std::process::id());
    let mut bot = BotProcess::spawn(&faulty("never_exit", &marker), &StderrLog::discard()).unwrap();
    wait_for_child(&marker).await;
    assert_eq!(bot.ask("DESTROY 0", LIMIT).await.unwrap().line, "NONE");
    bot.send("SCORE 0 0").await.unwrap();
    let fault = bot.finish(Duration::from_millis(300)).await;
    let fault = fault.expect("a bot that ignores the end must be reported");
    assert_eq!(fault.kind(), FaultKind::TimedOut);
    assert!(fault.to_string().contains("did not exit"), "{fault}");
    assert_no_survivors(&marker).await;
}

#[tokio::test]
async fn stderr_floods_are_capped_on_disk_and_do_not_block_the_bot() {
    let marker = format!("koth-test-flood-{}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let log = StderrLog::create(&dir.path().join("bot.log"), 64 * 1024).unwrap();
    let mut bot = BotProcess::spawn(&faulty("flood_stderr", &marker), &log).unwrap();
    // Each prompt makes the bot write 120 kB to stderr: far over the cap and over a pipe's
    // buffer, so the bot would hang if koth stopped draining.
    for turn in 0..20 {
        let answer = bot.ask(&format!("DESTROY {turn}"), LIMIT).await.unwrap();
        assert_eq!(answer.line, "NONE");
    }
    bot.send("SCORE 0").await.unwrap();
    assert!(bot.finish(LIMIT).await.is_none());
    let written = std::fs::read_to_string(dir.path().join("bot.log")).unwrap();
    assert!(
        written.len() < 64 * 1024 + 200,
        "log is {} bytes",
        written.len()
    );
    assert!(written.contains("[koth: stderr cut off after 65536 bytes]"));
    assert_no_survivors(&marker).await;
}

#[tokio::test]
async fn a_missing_program_fails_to_start() {
    let mut spec = faulty("late", "unused");
    spec.command = vec!["./no-such-bot-binary".into()];
    let err = BotProcess::spawn(&spec, &StderrLog::discard())
        .err()
        .unwrap();
    assert_eq!(err.kind(), FaultKind::FailedToStart);
    assert!(err.to_string().contains("no-such-bot-binary"), "{err}");
}

#[tokio::test]
async fn the_cpu_clock_measures_work_not_waiting() {
    // A bot that sleeps 300 ms per answer uses almost no CPU: on the CPU clock with a 100 ms
    // limit it is on time, while on the wall clock it would be late.
    let marker = format!("koth-test-cpu-{}", std::process::id());
    let spec = BotSpec {
        name: "sleeper".into(),
        dir: bots_dir(),
        command: vec![
            "python3".into(),
            "-c".into(),
            "import sys, time\nfor line in sys.stdin:\n    time.sleep(0.3)\n    print('NONE', flush=True)".into(),
            marker.clone(),
        ],
        build: None,
        origin: "test".into(),
    };
    let mut bot = BotProcess::spawn(&spec, &StderrLog::discard()).unwrap();
    bot.set_clock(Clock::Cpu {
        backstop: Duration::from_secs(5),
    });
    let limit = Duration::from_millis(100);
    // The first answer also pays for the interpreter's start-up; later ones are pure sleep.
    let _ = bot.ask("DESTROY 0", Duration::from_secs(5)).await.unwrap();
    let answer = bot.ask("DESTROY 1", limit).await.unwrap();
    assert!(answer.wall >= Duration::from_millis(300));
    assert!(answer.cpu.unwrap() < limit, "cpu {:?}", answer.cpu);
    assert_eq!(bot.stats().answers, 2);
    assert!(bot.stats().max_cpu_ms.is_some());
    bot.kill().await;
    assert_no_survivors(&marker).await;
}

#[tokio::test]
async fn a_first_answer_gets_a_start_up_grace_and_says_so() {
    let marker = format!("koth-test-grace-{}", std::process::id());
    let spec = BotSpec {
        name: "mute".into(),
        dir: bots_dir(),
        command: vec![
            "python3".into(),
            "-c".into(),
            "import time; time.sleep(600)".into(),
            marker.clone(),
        ],
        build: None,
        origin: "test".into(),
    };
    let mut bot = BotProcess::spawn(&spec, &StderrLog::discard()).unwrap();
    let started = Instant::now();
    let fault = bot
        .ask("DESTROY 0", Duration::from_millis(300))
        .await
        .unwrap_err();
    assert!(started.elapsed() >= Duration::from_millis(2300));
    assert_eq!(
        fault.to_string(),
        "no answer within 300 ms (its first answer, with 2000 ms more for start-up)"
    );
    assert_no_survivors(&marker).await;
}

#[tokio::test]
async fn long_prompts_go_through_whole_and_pipes_can_be_enlarged() {
    // The bot answers each prompt with its length and the sizes of its stdin and stdout pipes.
    let script = "import fcntl, sys\n\
        size = lambda f: fcntl.fcntl(f.fileno(), getattr(fcntl, 'F_GETPIPE_SZ', 1032))\n\
        for line in sys.stdin:\n    \
            print(len(line.rstrip('\\n')), size(sys.stdin), size(sys.stdout), flush=True)";
    let spec = BotSpec {
        name: "measurer".into(),
        dir: bots_dir(),
        command: vec!["python3".into(), "-c".into(), script.into()],
        build: None,
        origin: "test".into(),
    };
    let long = "x".repeat(300_000);
    let mut bot = BotProcess::spawn(&spec, &StderrLog::discard()).unwrap();
    let answer = bot.ask(&long, Duration::from_secs(5)).await.unwrap();
    // Linux's default pipe is 64 KiB (less for a user over the pipe-buffer quota).
    let sizes: Vec<usize> = answer.line.split(' ').map(|w| w.parse().unwrap()).collect();
    assert_eq!(sizes[0], 300_000);
    assert!(sizes[1] <= 65_536 && sizes[2] <= 65_536, "{sizes:?}");
    bot.kill().await;
    let mut bot = BotProcess::spawn_with_pipes(&spec, &StderrLog::discard(), 1 << 20).unwrap();
    let answer = bot.ask(&long, Duration::from_secs(5)).await.unwrap();
    assert_eq!(answer.line, "300000 1048576 1048576");
    let answer = bot.ask("short", Duration::from_secs(1)).await.unwrap();
    assert_eq!(answer.line, "5 1048576 1048576");
    bot.kill().await;
}
