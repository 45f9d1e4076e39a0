//! Whole paths games with a bot that misbehaves (`tests/bots/faulty.py`) beside two deterministic
//! climbers (`tests/bots/climber.py`) that build a path together. For every kind of fault the
//! game must finish, record the fault with its round, turn and reason, leave the climbers'
//! scores exactly as in the same game with a polite third bot, and leave no process of any bot
//! running — also when koth itself is interrupted.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::paths_bots;
use crate::support::signals::default_signals;
use crate::support::survivors;
use paths_bots::{paths_bot, test_bot_command};
use survivors::survivors;

const KOTH: &str = env!("CARGO_BIN_EXE_koth");

/// Three bot folders in `arena`: the two climbers and the faulty bot in `mode`. Every process
/// carries `marker` on its command line so survivors can be found.
fn arena(arena: &Path, mode: &str, marker: &str) -> Vec<PathBuf> {
    let climber = |direction| test_bot_command("climber.py", &format!("{direction} 0 {marker}"));
    vec![
        paths_bot(arena, "up", "Climber up", &climber("up")),
        paths_bot(arena, "down", "Climber down", &climber("down")),
        paths_bot(
            arena,
            "odd",
            "Odd one",
            &test_bot_command("faulty.py", &format!("{mode} {marker}")),
        ),
    ]
}

fn koth_paths(bots: &[PathBuf], out: &Path, timeout_ms: u64) -> Command {
    let mut command = Command::new(KOTH);
    command.args(["paths", "--rounds", "2", "--seed", "5", "--timeout-ms"]);
    command
        .arg(timeout_ms.to_string())
        .arg("--log-dir")
        .arg(out);
    for bot in bots {
        command.arg("--bot").arg(bot);
    }
    command
}

/// The time limit of a game whose faults have nothing to do with time: long enough for every
/// bot's answers on a machine whose every core is busy, which no fault test waits for.
const AT_LEISURE_MS: u64 = 30_000;

/// Plays the game with the faulty bot in `mode` under the time limit `timeout_ms`, and returns
/// results.json.
fn play(mode: &str, marker: &str, timeout_ms: u64) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let bots = arena(dir.path(), mode, marker);
    let out = dir.path().join("out");
    let output = koth_paths(&bots, &out, timeout_ms).output().unwrap();
    assert!(
        output.status.success(),
        "{mode}: koth failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(out.join("graphical_log.txt").is_file());
    serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap()
}

fn assert_no_survivors(marker: &str) {
    // Killed bots are reaped by init once koth is gone, a moment later (longer on a busy
    // machine).
    let deadline = Instant::now() + Duration::from_secs(60);
    while !survivors(marker).is_empty() {
        assert!(
            Instant::now() < deadline,
            "survivors: {:?}",
            survivors(marker)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn totals(results: &Value) -> Vec<u64> {
    results["totals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

/// The fault test for one mode, played under the time limit `timeout_ms`: the kinds and reasons
/// recorded for the odd bot, every round.
fn check(mode: &str, timeout_ms: u64, kind: &str, reason_part: &str) {
    let marker = format!("koth-paths-fault-{mode}-{}", std::process::id());
    let reference = play("polite", &format!("{marker}-reference"), AT_LEISURE_MS);
    assert_eq!(reference["faults"], Value::Array(vec![]));
    let climbers = &totals(&reference)[..2];
    assert!(
        climbers[0] > 0 && climbers[1] > 0,
        "the climbers connect: {climbers:?}"
    );

    let results = play(mode, &marker, timeout_ms);
    assert_eq!(
        &totals(&results)[..2],
        climbers,
        "{mode} changed the others' scores"
    );
    let faults = results["faults"].as_array().unwrap();
    for round in 0..2 {
        let fault = faults
            .iter()
            .find(|f| f["round"] == round)
            .unwrap_or_else(|| panic!("{mode}: no fault in round {round}: {faults:?}"));
        assert_eq!(fault["bot"], "Odd one", "{fault}");
        assert_eq!(fault["kind"], kind, "{fault}");
        let reason = fault["reason"].as_str().unwrap();
        assert!(reason.contains(reason_part), "{mode}: reason {reason:?}");
    }
    assert!(
        faults.iter().all(|f| f["bot"] == "Odd one"),
        "only the odd bot is at fault: {faults:?}"
    );
    assert_no_survivors(&marker);
}

#[test]
fn a_late_bot_is_stopped_for_the_round() {
    // It sleeps 30 s; the others answer within the limit on a machine whose every core is busy.
    check("late", 3000, "timed_out", "no answer within 3000 ms");
}

#[test]
fn a_crashing_bot_is_recorded_with_its_exit_status() {
    check("crash", AT_LEISURE_MS, "crashed", "exit status: 3");
}

#[test]
fn a_bot_closing_stdout_is_recorded() {
    check(
        "close_stdout",
        AT_LEISURE_MS,
        "crashed",
        "closed its stdout",
    );
}

#[test]
fn a_bot_printing_garbage_is_recorded() {
    check("garbage", AT_LEISURE_MS, "bad_output", "not UTF-8");
}

#[test]
fn a_bot_printing_an_endless_line_is_recorded() {
    check(
        "endless_line",
        AT_LEISURE_MS,
        "bad_output",
        "without a newline",
    );
}

#[test]
fn a_bot_that_never_exits_is_killed_after_score() {
    check("never_exit", 3000, "timed_out", "did not exit");
}

#[test]
fn a_bot_flooding_stderr_plays_on_with_a_capped_log() {
    let marker = format!("koth-paths-flood-{}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let bots = arena(dir.path(), "flood_stderr", &marker);
    let out = dir.path().join("out");
    let output = koth_paths(&bots, &out, AT_LEISURE_MS).output().unwrap();
    assert!(output.status.success());
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["faults"], Value::Array(vec![]));
    let log = std::fs::read_to_string(out.join("stderr/odd.log")).unwrap();
    assert!(
        log.len() <= (1 << 20) + 200,
        "stderr log is {} bytes",
        log.len()
    );
    assert!(log.contains("stderr cut off"));
    assert_no_survivors(&marker);
}

#[test]
fn interrupting_koth_kills_every_bot() {
    let marker = format!("koth-paths-interrupt-{}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    // The odd bot stalls on its third prompt for 30 s, well inside a 60 s limit: koth is
    // waiting on it when interrupted.
    let bots = arena(dir.path(), "late", &marker);
    let mut koth = default_signals(&mut koth_paths(&bots, &dir.path().join("out"), 60_000))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(dir.path().join("out/stderr/odd.log"))
        .unwrap_or_default()
        .contains("committing late")
    {
        assert!(Instant::now() < deadline, "the odd bot never stalled");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        survivors(&marker).len() >= 4,
        "bots and the odd bot's child run"
    );
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(koth.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let status = koth.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut koth.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert_no_survivors(&marker);
    // The transcript holds the round being played up to the prompt the odd bot stalled on.
    let transcript = std::fs::read_to_string(dir.path().join("out/transcripts/odd.txt")).unwrap();
    assert!(transcript.contains("? "), "{transcript}");
    let last = transcript.lines().last().unwrap();
    assert!(
        last.starts_with("? ") && last.ends_with(" 1"),
        "{transcript}"
    );
}

/// Bots that forget to flush, as new authors write them, in a shell where Python would not
/// buffer (`PYTHONUNBUFFERED=1`, which no bot sees): each first answer times out with a reason
/// that names the likely mistake and, where koth can tell the language, how to flush in it.
#[test]
fn a_time_out_names_an_answer_never_flushed_or_never_ended() {
    let dir = tempfile::tempdir().unwrap();
    let answer_every_prompt = |print: &str| {
        format!(
            "import sys\nfor line in sys.stdin:\n    \
             if line.startswith(('DESTROY', 'ACTIVATE')):\n        {print}\n"
        )
    };
    let python = paths_bot(dir.path(), "python", "Unflushed Python", "python3 bot.py");
    std::fs::write(python.join("bot.py"), answer_every_prompt("print('NONE')")).unwrap();
    let unended = paths_bot(dir.path(), "unended", "Unended", "python3 bot.py");
    std::fs::write(
        unended.join("bot.py"),
        answer_every_prompt("print('NONE', end='', flush=True)"),
    )
    .unwrap();
    let c = dir.path().join("c");
    std::fs::create_dir_all(&c).unwrap();
    std::fs::write(
        c.join("bot.toml"),
        "name = \"Unflushed C\"\nrun = \"./bot\"\nbuild = \"gcc -O2 -o bot bot.c\"\n\
         games = [\"paths\"]\n",
    )
    .unwrap();
    std::fs::write(
        c.join("bot.c"),
        "#include <stdio.h>\n#include <string.h>\nint main(void) {\n  char line[4096];\n  \
         while (fgets(line, sizeof line, stdin))\n    \
         if (!strncmp(line, \"DESTROY\", 7) || !strncmp(line, \"ACTIVATE\", 8)) printf(\"NONE\\n\");\n  \
         return 0;\n}\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let output = Command::new(KOTH)
        .args([
            "paths",
            "--rounds",
            "1",
            "--seed",
            "5",
            "--timeout-ms",
            "300",
        ])
        .arg("--log-dir")
        .arg(&out)
        .args(
            ["--bot", "--bot", "--bot"]
                .iter()
                .zip([&python, &unended, &c])
                .flat_map(|(flag, bot)| [std::ffi::OsStr::new(flag), bot.as_os_str()]),
        )
        .env("PYTHONUNBUFFERED", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let results = std::fs::read_to_string(out.join("results.json")).unwrap();
    for reason in [
        "nothing at all arrived on its stdout: was its answer flushed? \
         (Python: print(..., flush=True) or sys.stdout.flush(), or run it with python3 -u)",
        "nothing at all arrived on its stdout: was its answer flushed? \
         (C: fflush(stdout) after printf",
        r#"it printed \"NONE\" without a newline"#,
    ] {
        assert!(results.contains(reason), "no {reason:?} in {results}");
    }
}
