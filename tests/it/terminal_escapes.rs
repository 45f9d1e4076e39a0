//! A bot's bytes never drive the terminal of whoever reads koth's output: a real bot
//! (`tests/hostile/terminal`) writes escape sequences, OSC 52, CR, BEL, C1 controls and bidi
//! characters to stderr and in its answers, and every command that shows them prints them
//! escaped.

use std::process::Output;

use crate::support::tournament::{koth, repo};

/// Whether `c` would act on a terminal or deceive its reader: a control character other than
/// a newline, a C1 control, or a format character (bidi controls, zero-width characters).
fn acts_on_a_terminal(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Asserts that `output`'s stdout and stderr hold no raw control byte; returns them.
fn assert_no_raw_control(what: &str, output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    for (stream, text) in [("stdout", &stdout), ("stderr", &stderr)] {
        if let Some(c) = text.chars().find(|&c| acts_on_a_terminal(c)) {
            panic!("{what} printed {c:?} raw on its {stream}:\n{text}");
        }
    }
    format!("{stdout}{stderr}")
}

/// Asserts that `output` shows the bot's escape sequences, escaped, and none raw.
fn assert_shown_escaped(what: &str, output: &Output) {
    let printed = assert_no_raw_control(what, output);
    assert!(
        printed.contains(r"\u{1b}]52;c;"),
        "{what} shows the bot's text, escaped:\n{printed}"
    );
}

fn hostile_bot() -> std::path::PathBuf {
    repo().join("tests/hostile/terminal")
}

#[test]
fn a_menace_match_and_drive_print_a_bot_s_escape_sequences_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("match");
    let output = koth()
        .args(["menace", "match", "--x", "menace", "--o"])
        .arg(hostile_bot())
        .args([
            "--games",
            "2",
            "--seed",
            "1",
            "--timeout-ms",
            "10000",
            "--log-dir",
        ])
        .arg(&log)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_shown_escaped("koth menace match", &output);

    // The bot answers differently each run, so driving it prints the recorded answer and the
    // new one.
    let output = koth()
        .arg("replay")
        .arg(&log)
        .arg("--drive")
        .arg(hostile_bot())
        .args(["--as", "Terminal Hijacker", "--timeout-ms", "10000"])
        .output()
        .unwrap();
    assert!(!output.status.success(), "the answers differ: {output:?}");
    assert_shown_escaped("koth replay --drive", &output);
}

#[test]
fn a_paths_game_prints_a_bot_s_escape_sequences_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    let output = koth()
        .args([
            "paths",
            "--rounds",
            "1",
            "--seed",
            "5",
            "--timeout-ms",
            "10000",
        ])
        .arg("--bot")
        .arg(hostile_bot())
        .arg("--bot")
        .arg(repo().join("bots/paths-column"))
        .arg("--log-dir")
        .arg(tmp.path().join("paths"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_shown_escaped("koth paths", &output);
}

#[test]
fn a_folder_name_with_an_escape_is_printed_escaped_in_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("bot\u{1b}]0;pwned\u{7}");
    std::fs::create_dir(&folder).unwrap();
    let output = koth()
        .args(["paths", "--rounds", "1", "--bot"])
        .arg(&folder)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let printed = assert_no_raw_control("an error naming the folder", &output);
    assert!(printed.contains(r"bot\u{1b}]0;pwned\u{7}"), "{printed}");
}

#[test]
fn a_name_with_a_zero_width_character_or_too_long_is_refused_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, problem) in [
        ("Win\u{200b} or Block (Python)", r"\u{200b}"),
        ("Win or Block \u{202e}(Python)", r"\u{202e}"),
        (&"n".repeat(300) as &str, "300 characters long"),
    ] {
        let folder = tmp.path().join("bot");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("bot.toml"),
            format!(
                "name = {}\nrun = \"python3 x.py\"\ngames = [\"paths\"]\n",
                toml_string(name)
            ),
        )
        .unwrap();
        let output = koth()
            .args(["paths", "--rounds", "1", "--bot"])
            .arg(&folder)
            .output()
            .unwrap();
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("bot.toml: `name`"), "{stderr}");
        assert!(stderr.contains(problem), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "one clear error: {stderr}");
    }
}

/// `text` as a TOML string.
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}
