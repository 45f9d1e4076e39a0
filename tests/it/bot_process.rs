//! The bot process layer against real misbehaving processes (`tests/bots/faulty.py`): each fault
//! is reported with the right kind and a clear reason, later requests fail at once, and no
//! process of the bot — its children included — survives.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::support::survivors;
use survivors::survivors;

use koth::bot::transcript::{TRANSCRIPT_BYTES, TRANSCRIPT_COMPRESS_ABOVE, TRANSCRIPT_LINE_BYTES};
use koth::bot::{BotError, BotProcess, BotSpec, Clock, Ending, FaultKind, StderrLog, Transcript};

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
        sandbox: None,
        benched: None,
        data: None,
        protocols: Default::default(),
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
    bot.send("BEGIN 2 4 5").unwrap();
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
    bot.finish(LIMIT, Ending::Exit).await;
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
async fn a_bot_that_exited_before_reading_its_prompt_is_a_crash_with_its_status() {
    let spec = BotSpec {
        name: "gone".into(),
        command: vec![
            "sh".into(),
            "-c".into(),
            "echo leaving early >&2; exit 3".into(),
        ],
        ..faulty("gone", "koth-test-gone")
    };
    let mut bot = BotProcess::spawn(&spec, &StderrLog::discard()).unwrap();
    // Long gone before koth writes: the write finds the pipe closed.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let fault = bot.ask("DESTROY 0", LIMIT).await.unwrap_err();
    assert_eq!(fault.kind(), FaultKind::Crashed, "{fault}");
    let reason = fault.to_string();
    assert!(
        reason.contains("exit status: 3") && reason.contains("leaving early"),
        "the exit, not the pipe: {reason}"
    );
    bot.finish(LIMIT, Ending::Exit).await;
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
async fn lines_nobody_asked_for_are_never_taken_for_answers_and_do_not_block_the_exit() {
    let marker = format!("koth-test-chatty-{}", std::process::id());
    let mut bot = BotProcess::spawn(&faulty("chatty", &marker), &StderrLog::discard()).unwrap();
    bot.send("BEGIN 2 4 5").unwrap();
    for turn in 0..5 {
        let answer = bot.ask(&format!("DESTROY {turn}"), LIMIT).await.unwrap();
        assert_eq!(answer.line, "NONE", "turn {turn}");
    }
    bot.send("SCORE 0 0").unwrap();
    // The bot prints 400 kB on its way out, more than a pipe holds.
    let fault = bot.finish(Duration::from_secs(5), Ending::Exit).await;
    assert!(fault.is_none(), "{fault:?}");
    assert_no_survivors(&marker).await;
}

#[tokio::test]
async fn a_bot_that_never_exits_is_killed_with_its_children() {
    let marker = format!("koth-test-never-exit-{}", std::process::id());
    let mut bot = BotProcess::spawn(&faulty("never_exit", &marker), &StderrLog::discard()).unwrap();
    wait_for_child(&marker).await;
    assert_eq!(bot.ask("DESTROY 0", LIMIT).await.unwrap().line, "NONE");
    bot.send("SCORE 0 0").unwrap();
    let fault = bot.finish(Duration::from_millis(300), Ending::Exit).await;
    let fault = fault.expect("a bot that ignores the end must be reported");
    assert_eq!(fault.kind(), FaultKind::TimedOut);
    assert!(fault.to_string().contains("did not exit"), "{fault}");
    assert_no_survivors(&marker).await;
}

#[tokio::test]
async fn a_bot_never_asked_to_exit_is_ended_after_the_exit_limit_without_a_fault() {
    let marker = format!("koth-test-dropped-{}", std::process::id());
    let mut bot = BotProcess::spawn(&faulty("never_exit", &marker), &StderrLog::discard()).unwrap();
    wait_for_child(&marker).await;
    assert_eq!(bot.ask("DESTROY 0", LIMIT).await.unwrap().line, "NONE");
    bot.send("SCORE 0 0").unwrap();
    let started = Instant::now();
    let fault = bot
        .finish(Duration::from_millis(300), Ending::Dropped)
        .await;
    assert!(fault.is_none(), "{fault:?}");
    // It had the exit limit, as a bot asked to exit has.
    assert!(started.elapsed() >= Duration::from_millis(300));
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
    bot.send("SCORE 0").unwrap();
    assert!(bot.finish(LIMIT, Ending::Exit).await.is_none());
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
        sandbox: None,
        benched: None,
        data: None,
        protocols: Default::default(),
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
        sandbox: None,
        benched: None,
        data: None,
        protocols: Default::default(),
    };
    let mut bot = BotProcess::spawn(&spec, &StderrLog::discard()).unwrap();
    let started = Instant::now();
    let fault = bot
        .ask("DESTROY 0", Duration::from_millis(300))
        .await
        .unwrap_err();
    assert!(started.elapsed() >= Duration::from_millis(2300));
    // It wrote nothing at all: the fault asks whether its answer was flushed.
    assert_eq!(
        fault.to_string(),
        "no answer within 300 ms (its first answer, with 2000 ms more for start-up); nothing at \
         all arrived on its stdout: was its answer flushed? (Python: print(..., flush=True) or \
         sys.stdout.flush(), or run it with python3 -u)"
    );
    assert_no_survivors(&marker).await;
}

/// The scheduling policy of process `pid` (field 41 of /proc/<pid>/stat).
fn scheduling_policy(pid: i32) -> u32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after_name = &stat[stat.rfind(')').unwrap() + 2..];
    // Fields are counted from 3 (the state) after the command name.
    after_name.split(' ').nth(41 - 3).unwrap().parse().unwrap()
}

#[tokio::test]
async fn bots_run_as_batch_tasks_so_they_do_not_preempt_koth() {
    const SCHED_BATCH: u32 = 3;
    let marker = format!("koth-test-batch-{}", std::process::id());
    let mut bot = BotProcess::spawn(&faulty("polite", &marker), &StderrLog::discard()).unwrap();
    assert_eq!(scheduling_policy(bot.pid()), SCHED_BATCH);
    assert_eq!(bot.ask("DESTROY 0", LIMIT).await.unwrap().line, "NONE");
    assert_eq!(
        scheduling_policy(std::process::id() as i32),
        0,
        "koth itself is unchanged"
    );
    bot.finish(LIMIT, Ending::Exit).await;
    assert_no_survivors(&marker).await;
}

/// The lines of a transcript after its notes, without their milliseconds: `(marker, line)`.
fn exchanged(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter(|l| !l.starts_with("# "))
        .map(|l| {
            let (marker, rest) = l.split_once(' ').unwrap();
            let (ms, line) = rest.split_once(' ').unwrap();
            ms.parse::<u64>().unwrap();
            (marker.to_string(), line.to_string())
        })
        .collect()
}

#[tokio::test]
async fn a_transcript_marks_prompts_answers_and_the_fault_and_is_complete_when_dropped() {
    let marker = format!("koth-test-transcript-{}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bot.txt");
    let transcript = Transcript::create(&path).unwrap();
    transcript.note("round 0");
    let mut bot = BotProcess::spawn(&faulty("crash", &marker), &StderrLog::discard()).unwrap();
    bot.set_transcript(transcript.clone());
    bot.send("BEGIN 2 4 5").unwrap();
    bot.ask("DESTROY 0", LIMIT).await.unwrap();
    bot.ask("BROKEN 0 N N\nACTIVATE 0", LIMIT).await.unwrap();
    bot.ask("DESTROY 1", LIMIT).await.unwrap_err();
    bot.finish(LIMIT, Ending::Exit).await;
    // The game's handle is the last: dropping it writes out what is still buffered.
    drop(transcript);
    let text = Transcript::read(&path).unwrap();
    assert!(text.starts_with("# round 0\n"), "{text}");
    let pair = |m: &str, l: &str| (m.to_string(), l.to_string());
    assert_eq!(
        exchanged(&text),
        vec![
            pair(">", "BEGIN 2 4 5"),
            pair("?", "DESTROY 0"),
            pair("<", "NONE"),
            pair(">", "BROKEN 0 N N"),
            pair("?", "ACTIVATE 0"),
            pair("<", "NONE"),
            pair("?", "DESTROY 1"),
            pair(
                "!",
                "crashed: exited (exit status: 3) while an answer was expected; \
                 last stderr: faulty bot: committing crash now"
            ),
        ]
    );
    assert!(
        !path.with_extension("txt.gz").exists(),
        "a small transcript stays plain"
    );
    assert_no_survivors(&marker).await;
}

#[test]
fn a_large_transcript_is_gzipped_when_its_last_handle_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bot.txt");
    let transcript = Transcript::create(&path).unwrap();
    let line = "x".repeat(999);
    let lines = TRANSCRIPT_COMPRESS_ABOVE as usize / 1000 + 10;
    let other_handle = transcript.clone();
    for i in 0..lines {
        transcript.note(&format!("{i} {line}"));
    }
    drop(transcript);
    assert!(path.exists(), "still plain while a handle is alive");
    other_handle.note("the end");
    drop(other_handle);
    assert!(!path.exists(), "the plain file is replaced");
    let compressed = path.with_extension("txt.gz");
    let size = std::fs::metadata(&compressed).unwrap().len();
    assert!(size < TRANSCRIPT_COMPRESS_ABOVE / 20, "{size} bytes");
    // Complete: the gzip stream is finished (a truncated one would fail to read).
    let text = Transcript::read(&path).unwrap();
    assert_eq!(text.lines().count(), lines + 1);
    assert_eq!(text.lines().next(), Some(format!("# 0 {line}").as_str()));
    assert_eq!(text.lines().last(), Some("# the end"));
    // Nothing at all: the error names both files looked for.
    let missing = Transcript::read(&dir.path().join("none.txt")).unwrap_err();
    assert!(
        format!("{missing:#}").contains("none.txt.gz"),
        "{missing:#}"
    );
}

#[tokio::test]
async fn a_transcript_keeps_the_start_of_a_huge_line_and_stops_at_its_size_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bot.txt");
    let transcript = Transcript::create(&path).unwrap();
    let spec = BotSpec {
        name: "huge".into(),
        dir: bots_dir(),
        command: vec!["python3".into(), "huge_lines.py".into(), "every".into()],
        build: None,
        origin: "test".into(),
        sandbox: None,
        benched: None,
        data: None,
        protocols: Default::default(),
    };
    let mut bot = BotProcess::spawn(&spec, &StderrLog::discard()).unwrap();
    bot.set_transcript(transcript.clone());
    // The game gets the whole line; only its record is cut.
    let answer = bot.ask("DESTROY 0", LIMIT).await.unwrap();
    assert_eq!(answer.line.len(), 1_048_575);
    bot.finish(LIMIT, Ending::Exit).await;
    let long_note = "y".repeat(5000);
    for _ in 0..TRANSCRIPT_BYTES / TRANSCRIPT_LINE_BYTES as u64 + 10 {
        transcript.note(&long_note);
    }
    transcript.note("after the limit");
    drop(transcript);

    let text = Transcript::read(&path).unwrap();
    assert!(
        text.len() as u64 <= TRANSCRIPT_BYTES,
        "{} bytes",
        text.len()
    );
    let (marker, answer) = exchanged(&text).into_iter().nth(1).unwrap();
    assert_eq!(marker, "<");
    // `x` then two-byte characters: the cut falls before the character byte 4096 is in.
    assert_eq!(
        answer,
        format!("x{}… [koth: 1048575 bytes, cut]", "é".repeat(2047))
    );
    assert!(text.contains(&format!(
        "# {}… [koth: 5000 bytes, cut]\n",
        "y".repeat(4096)
    )));
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("# koth: transcript full"), "{last}");
    assert!(!text.contains("after the limit"));
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
        sandbox: None,
        benched: None,
        data: None,
        protocols: Default::default(),
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

/// A Java bot that throws from a nested call at its second prompt: its stack trace ends in
/// frames, the exception line before them.
#[tokio::test]
async fn a_java_crash_s_reason_names_its_exception_not_only_its_last_frames() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Thrower.java"),
        "import java.io.*;\n\
         public class Thrower {\n\
           static int pick(int[] cells, int i) { return cells[i]; }\n\
           static String act(int turn) { return turn > 0 ? \"\" + pick(new int[3], -1) : \"NONE\"; }\n\
           static void play(BufferedReader in) throws IOException {\n\
             int turn = 0;\n\
             while (in.readLine() != null) { System.out.println(act(turn++)); }\n\
           }\n\
           public static void main(String[] a) throws IOException {\n\
             play(new BufferedReader(new InputStreamReader(System.in)));\n\
           }\n\
         }\n",
    )
    .unwrap();
    let javac = std::process::Command::new("javac")
        .arg("Thrower.java")
        .current_dir(dir.path())
        .output()
        .expect("javac is installed");
    assert!(javac.status.success(), "{javac:?}");
    let spec = BotSpec {
        name: "thrower".into(),
        dir: dir.path().to_path_buf(),
        command: vec!["java".into(), "Thrower".into()],
        build: None,
        origin: "tests/bot_process.rs".into(),
        sandbox: None,
        benched: None,
        data: None,
        protocols: Default::default(),
    };
    let mut bot = BotProcess::spawn(&spec, &StderrLog::discard()).unwrap();
    // A limit for a JVM's start on a busy machine, not a measure.
    let limit = Duration::from_secs(30);
    assert_eq!(bot.ask("TURN 0", limit).await.unwrap().line, "NONE");
    let fault = bot.ask("TURN 1", limit).await.expect_err("it throws");
    assert_eq!(fault.kind(), FaultKind::Crashed, "{fault}");
    let reason = fault.to_string();
    assert!(
        reason.contains("java.lang.ArrayIndexOutOfBoundsException: Index -1")
            && reason.contains("at Thrower.pick(Thrower.java:3)")
            && reason.contains("at Thrower.main"),
        "the exception, its first frame and the last line: {reason}"
    );
    bot.finish(limit, Ending::Exit).await;
}

/// A seat like the rat race's, whose answers are waited for in `poll(2)` with no runtime
/// (`Seat::ask_polled`), for `faulty.py` in `mode`; its logs in `dir`.
fn polled_seat(mode: &str, marker: &str, dir: &Path) -> koth::bot::Seat {
    use koth::bot::{Limits, Restart, Seat, SeatOptions};
    let options = SeatOptions::new(Limits::uniform(LIMIT), Restart::AfterFault, 1);
    std::fs::create_dir_all(dir).unwrap();
    let mut seats = Seat::open_all(&[faulty(mode, marker)], dir, &options).unwrap();
    seats.pop().unwrap()
}

/// Asks `seat` for turns 0, 1, … through `ask_polled` until its first fault (at most `turns`);
/// every answer before it is `NONE`. Returns the fault, if any, and how long its ask took.
fn ask_polled_until_fault(
    seat: &mut koth::bot::Seat,
    runtime: &tokio::runtime::Runtime,
    turns: u32,
) -> Option<(BotError, Duration)> {
    use koth::bot::At;
    assert!(runtime.block_on(seat.begin(0)));
    seat.send("BEGIN 2 4 5").unwrap();
    for turn in 0..turns {
        let asked = Instant::now();
        match seat.ask_polled(&format!("DESTROY {turn}"), At::turn(turn), runtime) {
            Ok(answer) => assert_eq!(answer.line, "NONE", "turn {turn}"),
            Err(fault) => return Some((fault, asked.elapsed())),
        }
    }
    None
}

#[test]
fn a_polled_seat_holds_its_answers_to_the_same_limit_and_faults() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (mode, kind, reason) in [
        // Past the quick wait: the runtime waits out the limit.
        ("late", FaultKind::TimedOut, "no answer within 1500 ms"),
        // Read in `poll`: the end of stdout goes to the runtime, which names the exit.
        ("crash", FaultKind::Crashed, "exit status: 3"),
        // Read in `poll` and judged there.
        ("garbage", FaultKind::BadOutput, "not UTF-8"),
    ] {
        let marker = format!("koth-test-polled-{mode}-{}", std::process::id());
        let mut seat = polled_seat(mode, &marker, &dir.path().join(mode));
        let (fault, took) = ask_polled_until_fault(&mut seat, &runtime, 5)
            .unwrap_or_else(|| panic!("{mode}: the third prompt is the faulty one"));
        assert_eq!(fault.kind(), kind, "{mode}: {fault}");
        assert!(fault.to_string().contains(reason), "{mode}: {fault}");
        if mode == "late" {
            assert!(took >= LIMIT && took < LIMIT * 3, "{mode}: waited {took:?}");
        }
        // Recorded once, at its turn, and every later ask fails at once.
        let kept = seat.faults().kept().to_vec();
        assert_eq!(kept.len(), 1, "{mode}: {kept:?}");
        assert_eq!(kept[0].turn, Some(2), "{mode}");
        let again = seat.ask_polled("DESTROY 3", koth::bot::At::turn(3), &runtime);
        assert!(matches!(again, Err(BotError::Stopped(_))), "{mode}");
        runtime.block_on(seat.finish(""));
        runtime.block_on(assert_no_survivors(&marker));
    }
}

#[test]
fn a_polled_seat_drops_lines_nobody_asked_for_and_notes_them() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("koth-test-polled-chatty-{}", std::process::id());
    let mut seat = polled_seat("chatty", &marker, dir.path());
    // Each answer comes with a line nobody asked for, in the same write: never an answer.
    assert!(ask_polled_until_fault(&mut seat, &runtime, 5).is_none());
    seat.send("SCORE 0 0").unwrap();
    runtime.block_on(seat.finish(""));
    assert!(
        seat.faults().kept().is_empty(),
        "{:?}",
        seat.faults().kept()
    );
    drop(seat);
    let transcript = std::fs::read_to_string(dir.path().join("transcripts/faulty-chatty.txt"))
        .or_else(|_| {
            let only = std::fs::read_dir(dir.path().join("transcripts"))?
                .next()
                .expect("one transcript")?;
            std::fs::read_to_string(only.path())
        })
        .unwrap();
    for prompt in 1..5 {
        assert!(
            transcript.contains(&format!(
                "# dropped, printed unasked: thinking aloud after prompt {prompt}\n"
            )),
            "prompt {prompt}: {transcript}"
        );
    }
    runtime.block_on(assert_no_survivors(&marker));
}
