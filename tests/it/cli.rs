//! What every command shares, through the real `koth` binary: a closed pipe, the style of
//! `--help`, the two spellings of the leaderboard, the tournament files in config/, and bots.txt
//! build steps in a tournament.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;

use crate::support::tournament::{koth, query, repo, run_tournament, succeed};

#[test]
fn a_closed_pipe_ends_koth_quietly_with_success() {
    // `koth ratrace … | head -1`: koth prints a line per board, long after head has gone.
    let logs = tempfile::tempdir().unwrap();
    let mut child = koth()
        .args([
            "ratrace",
            "--player",
            "random-forward",
            "--boards",
            "3000",
            "--seed",
            "1",
        ])
        .arg("--log-dir")
        .arg(logs.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first, "seed 1\n");
    // The reader is dropped here: the pipe is closed.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Every command's `--help`: each game's own commands as the registry has them, then the others.
fn every_help() -> Vec<(String, String)> {
    crate::support::installed_games();
    let mut commands: Vec<String> = Vec::new();
    for game in koth::game::registry::commands() {
        let name = game.command.get_name();
        let subcommands: Vec<String> = game
            .command
            .get_subcommands()
            .map(|sub| format!("{name} {}", sub.get_name()))
            .collect();
        if subcommands.is_empty() {
            commands.push(name.to_string());
        }
        commands.extend(subcommands);
    }
    commands.extend(
        [
            "tournament run",
            "tournament resume",
            "tournament status",
            "tournament leaderboard",
            "leaderboard",
            "replay",
            "serve",
        ]
        .map(String::from),
    );
    commands
        .iter()
        .map(|command| {
            let out = succeed(koth().args(command.split(' ')).arg("--help"));
            (command.to_string(), String::from_utf8(out.stdout).unwrap())
        })
        .collect()
}

#[test]
fn every_help_names_its_values_in_one_style() {
    const KINDS: [&str; 18] = [
        "DIR", "FILE", "PATH", "MS", "MIB", "N", "RATE", "SEED", "NAME", "CMD", "PLAYER", "FORMAT",
        "N,N,N,N", "ADDR", "URL", "DIR|NAME", "HOST", "FUEL",
    ];
    for (command, help) in every_help() {
        for metavar in help.split('<').skip(1).filter_map(|s| s.split_once('>')) {
            let metavar = metavar.0;
            // Defaults and descriptions may hold <…> of their own: only upper-case names are
            // metavars.
            if metavar.chars().any(|c| c.is_ascii_lowercase()) {
                continue;
            }
            assert!(
                KINDS.contains(&metavar),
                "koth {command} --help names a value <{metavar}>, not one of {KINDS:?}:\n{help}"
            );
        }
        // Shared options read the same in every command that has them.
        for line in help.lines().map(str::trim_start) {
            for (option, metavar) in [
                ("--seed", "<SEED>"),
                ("--timeout-ms", "<MS>"),
                ("--log-dir", "<DIR>"),
            ] {
                if line.starts_with(option) && !line.starts_with(&format!("{option}-")) {
                    assert!(
                        line.starts_with(&format!("{option} {metavar}")),
                        "koth {command}: {line}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_shipped_tournament_files_run_and_both_leaderboard_spellings_agree() {
    let tmp = tempfile::tempdir().unwrap();
    for game in ["flag", "tictactoe"] {
        let out = tmp.path().join(game);
        run_tournament(
            &repo().join(format!("config/tournament-{game}.toml")),
            &out,
            &[],
        );
        let games = query(&out, "SELECT COUNT(*) FROM games WHERE state = 'done'");
        assert!(games >= 1, "{game}: {games} games done");
        let failed = query(
            &out,
            "SELECT COUNT(*) FROM results WHERE status <> 'finished'",
        );
        assert_eq!(failed, 0, "{game}: the sample bots finish every game");
        for format in ["table", "csv"] {
            let short = succeed(
                koth()
                    .arg("leaderboard")
                    .arg(&out)
                    .args(["--format", format]),
            );
            let long = succeed(
                koth()
                    .args(["tournament", "leaderboard"])
                    .arg(&out)
                    .args(["--format", format]),
            );
            assert_eq!(short.stdout, long.stdout);
            assert!(!short.stdout.is_empty());
        }
    }
}

/// A compiled paths bot listed in a bots.txt, in a folder of its own with the sample's
/// bot.toml (its build step) but not the binary.
fn compiled_bot_in_a_bots_txt(root: &Path) -> std::path::PathBuf {
    let folder = root.join("bots/column");
    std::fs::create_dir_all(&folder).unwrap();
    for file in ["column.c", "bot.toml"] {
        std::fs::copy(
            repo().join("bots/paths-column").join(file),
            folder.join(file),
        )
        .unwrap();
    }
    let list = root.join("bots.txt");
    std::fs::write(&list, "Column\ncolumn\n./column\n").unwrap();
    list
}

#[test]
fn a_tournament_builds_a_bots_txt_bot_from_its_bot_toml_as_koth_paths_does() {
    // The drift fixed: `koth paths --bots-file` took a bots.txt bot's build step from the
    // bot.toml in its folder, a tournament's `bots_file` did not, and the bot failed to start.
    let tmp = tempfile::tempdir().unwrap();
    let list = compiled_bot_in_a_bots_txt(tmp.path());
    let file = tmp.path().join("t.toml");
    std::fs::write(
        &file,
        format!(
            "game = \"paths\"\nbots_file = {:?}\ngames = 1\nrounds = 2\nseed = 1\nsandbox = false\n",
            list
        ),
    )
    .unwrap();
    let out = tmp.path().join("t");
    run_tournament(&file, &out, &[]);
    assert!(tmp.path().join("bots/column/column").is_file(), "built");
    assert_eq!(
        query(
            &out,
            "SELECT COUNT(*) FROM results WHERE status = 'finished'"
        ),
        1
    );
}
