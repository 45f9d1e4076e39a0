//! Gauntlets through the real `koth` binary: a challenger against its opponents in Mad Cars,
//! stopped early by the SPRT once the result is clear, the same verdict whatever the jobs, and
//! a resume that keeps it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::tournament::{koth, leaderboard, query, repo, run_tournament, succeed};

/// A gauntlet file in `dir`: the Python Keep Away against the random driver, at most `games`
/// games, `jobs` at once, with `extra` lines.
fn gauntlet_file(dir: &Path, jobs: u32, extra: &str) -> PathBuf {
    let bot = |name: &str| repo().join("bots").join(name);
    let text = format!(
        "game = \"madcars\"\nchallenger = {:?}\nbots = [{:?}]\ngames = 200\nrounds = 3\n\
         jobs = {jobs}\nclock = \"cpu\"\nsandbox = false\nseed = 11\n{extra}",
        bot("madcars-keepaway-py"),
        bot("madcars-random-py"),
    );
    let path = dir.join(format!("gauntlet-{jobs}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// The challenger's record against its one opponent, from the JSON leaderboard.
fn against_random(board: &Value) -> &Value {
    let opponents = board["gauntlet"]["opponents"].as_array().unwrap();
    assert_eq!(opponents.len(), 1, "{board}");
    assert_eq!(opponents[0]["name"], "Random Driver (Python)");
    &opponents[0]
}

#[test]
fn a_clearly_better_challenger_is_found_stronger_early_with_the_same_verdict_at_any_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let sprt = "[sprt]\nelo0 = 0\nelo1 = 150\n";
    let mut verdicts = Vec::new();
    for jobs in [1, 2] {
        let dir = tmp.path().join(format!("jobs{jobs}"));
        let output = run_tournament(&gauntlet_file(tmp.path(), jobs, sprt), &dir, &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("the SPRT decided after")
                && stderr.contains("Keep Away (Python) is stronger than Random Driver (Python)"),
            "{stderr}"
        );
        let board = leaderboard(&dir);
        let record = against_random(&board);
        let decision = &record["decision"];
        assert_eq!(decision["verdict"], "stronger", "{board}");
        assert!(decision["llr"].as_f64().unwrap() >= 19f64.ln(), "{board}");
        // Stopped early: far fewer than the 200 games allowed, the rest skipped, none lost.
        let played = query(&dir, "SELECT COUNT(*) FROM games WHERE state = 'done'");
        let skipped = query(&dir, "SELECT COUNT(*) FROM games WHERE state = 'skipped'");
        assert!(
            played < 100 && played + skipped == 200,
            "{played} {skipped}"
        );
        assert_eq!(board["games_skipped"], skipped);
        assert_eq!(record["games"], played);
        assert!(record["score"].as_f64().unwrap() > 0.6, "{record}");
        assert!(record["elo"].as_f64().unwrap() > 0.0, "{record}");
        // Pairs share a seed with the sides swapped.
        assert_eq!(
            query(
                &dir,
                "SELECT COUNT(*) FROM seats a JOIN seats b ON a.game + 1 = b.game \
                 AND a.seat = 0 AND b.seat = 1 AND a.bot = b.bot AND a.game % 2 = 0 \
                 JOIN games ga ON ga.idx = a.game JOIN games gb ON gb.idx = b.game \
                 AND ga.seed = gb.seed"
            ),
            100
        );
        let status = succeed(koth().args(["tournament", "status"]).arg(&dir));
        let status = String::from_utf8_lossy(&status.stdout);
        assert!(status.contains(&format!("{skipped} skipped")), "{status}");
        verdicts.push((decision["pairs"].clone(), decision["llr"].clone()));
    }
    // The test reads the pairs in schedule order, so the games' finishing order cannot move it.
    assert_eq!(verdicts[0], verdicts[1]);
}

#[test]
fn a_resumed_gauntlet_keeps_its_verdict_and_skips_what_it_no_longer_needs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("g");
    let file = gauntlet_file(tmp.path(), 2, "[sprt]\nelo1 = 150\n");
    run_tournament(&file, &dir, &[]);
    let played = query(&dir, "SELECT COUNT(*) FROM games WHERE state = 'done'");
    let before = against_random(&leaderboard(&dir))["decision"].clone();
    // As if koth had been killed after recording the deciding game, before skipping the rest.
    rusqlite::Connection::open(dir.join("results.sqlite"))
        .unwrap()
        .execute(
            "UPDATE games SET state = 'pending' WHERE state = 'skipped'",
            [],
        )
        .unwrap();
    succeed(koth().args(["tournament", "resume"]).arg(&dir));
    assert_eq!(
        query(&dir, "SELECT COUNT(*) FROM games WHERE state = 'done'"),
        played,
        "a decided gauntlet plays no more games"
    );
    assert_eq!(
        query(&dir, "SELECT COUNT(*) FROM games WHERE state = 'skipped'"),
        200 - played
    );
    assert_eq!(against_random(&leaderboard(&dir))["decision"], before);
}

#[test]
fn a_gauntlet_file_that_cannot_work_is_one_error_naming_the_key() {
    let tmp = tempfile::tempdir().unwrap();
    let keepaway = repo().join("bots/madcars-keepaway-py");
    let cases = [
        (
            format!("game = \"madcars\"\nbots = [{keepaway:?}]\ngames = 2\n[sprt]\n"),
            "needs a `challenger`",
        ),
        (
            format!(
                "game = \"madcars\"\nchallenger = {keepaway:?}\nbots = [{keepaway:?}]\ngames = 2\n"
            ),
            "has no opponents",
        ),
        (
            format!(
                "game = \"paths\"\nchallenger = {keepaway:?}\nbots_dir = \"b\"\ngames = 2\n\
                 players_per_game = 4\n"
            ),
            "players_per_game",
        ),
        (
            format!(
                "game = \"madcars\"\nchallenger = {keepaway:?}\nbots = [{keepaway:?}]\n\
                 games = 2\n[sprt]\nelo0 = 20\nelo1 = 10\n"
            ),
            "`sprt.elo0` = 20 must be below `sprt.elo1` = 10",
        ),
    ];
    for (text, expected) in cases {
        let file = tmp.path().join("bad.toml");
        std::fs::write(&file, &text).unwrap();
        let out = tmp.path().join("never");
        let output = koth()
            .args(["tournament", "run"])
            .arg(&file)
            .arg("--dir")
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{text}");
        assert!(
            stderr.contains(expected) && stderr.contains("bad.toml"),
            "{text}\n{stderr}"
        );
        assert!(!out.exists(), "nothing written for a file that cannot work");
    }
}
