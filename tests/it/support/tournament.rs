//! Whole tournaments for tests: the real `koth` binary, tournament files, and the results
//! database read back with SQL.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use rusqlite::Connection;

pub fn koth() -> Command {
    Command::new(env!("CARGO_BIN_EXE_koth"))
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Up to `count` sample paths bots (folders `bots/paths-*`), with their names. Bots with a build
/// step are left out: tests run in parallel, and two of them building the same binary at once
/// would race.
pub fn sample_bots(count: usize) -> Vec<(PathBuf, String)> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(repo().join("bots"))
        .expect("the bots folder")
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("paths-")
                && p.join("bot.toml").is_file()
        })
        .collect();
    dirs.retain(|d| {
        let text = std::fs::read_to_string(d.join("bot.toml")).unwrap();
        !toml::from_str::<toml::Table>(&text)
            .unwrap()
            .contains_key("build")
    });
    dirs.sort();
    assert!(dirs.len() >= 3, "expected sample paths bots under bots/");
    dirs.truncate(count);
    dirs.into_iter()
        .map(|dir| {
            let text = std::fs::read_to_string(dir.join("bot.toml")).unwrap();
            let manifest: toml::Table = toml::from_str(&text).unwrap();
            let name = manifest["name"].as_str().unwrap().to_string();
            (dir, name)
        })
        .collect()
}

/// Writes a tournament file into `dir` and returns its path.
pub fn tournament_file(dir: &Path, bots: &[&Path], extra: &str) -> PathBuf {
    let list: Vec<String> = bots.iter().map(|b| format!("{:?}", b)).collect();
    let text = format!(
        "game = \"paths\"\nbots = [{}]\nanswer_ms = 2000\nclock = \"cpu\"\n{extra}",
        list.join(", ")
    );
    let path = dir.join("t.toml");
    std::fs::write(&path, text).unwrap();
    path
}

pub fn succeed(command: &mut Command) -> Output {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Runs the tournament `file` into the folder `out` and checks that it succeeded.
pub fn run_tournament(file: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut command = koth();
    // The test's own folder, never the tournament file's (a shipped file's folder is the
    // repository's `config/`).
    let folder = out.parent().unwrap();
    succeed(
        super::cpus::own_cpu_locks(&mut command, folder)
            .args(["tournament", "run"])
            .arg(file)
            .arg("--dir")
            .arg(out)
            .args(extra),
    )
}

pub fn leaderboard(dir: &Path) -> serde_json::Value {
    let output = succeed(koth().args(["leaderboard", "--format", "json"]).arg(dir));
    serde_json::from_slice(&output.stdout).unwrap()
}

pub fn query(dir: &Path, sql: &str) -> i64 {
    let conn = Connection::open(dir.join("results.sqlite")).unwrap();
    conn.busy_timeout(Duration::from_secs(10)).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// Every scheduled game is done, and has exactly one result per seat.
pub fn assert_every_game_once(dir: &Path, games: i64) {
    assert_eq!(query(dir, "SELECT COUNT(*) FROM games"), games);
    assert_eq!(
        query(dir, "SELECT COUNT(*) FROM games WHERE state = 'done'"),
        games
    );
    assert_eq!(
        query(dir, "SELECT COUNT(DISTINCT game) FROM results"),
        games
    );
    assert_eq!(
        query(dir, "SELECT COUNT(*) FROM results"),
        query(dir, "SELECT COUNT(*) FROM seats"),
        "one result per seat of every game, none twice"
    );
}
