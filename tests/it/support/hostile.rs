//! The hostile bot (`tests/hostile/escape.py`) as the containment tests start it: a spec, a
//! contained copy, and its answers to `TRY <attempt>`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use koth::bot::{BotProcess, BotSpec, Sandbox, sandbox};

/// How long the hostile bot has for each answer, and a waited-for thing to happen.
pub const LIMIT: Duration = Duration::from_secs(5);

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A new folder `dir/name` holding the hostile bot's script, `escape.py`.
pub fn folder(dir: &Path, name: &str) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        repo().join("tests/hostile/escape.py"),
        folder.join("escape.py"),
    )
    .unwrap();
    folder
}

/// A bot named `name` in folder `dir`, run by `command`.
pub fn spec(dir: &Path, name: &str, command: &[&str]) -> BotSpec {
    BotSpec {
        name: name.into(),
        dir: dir.to_path_buf(),
        command: command.iter().map(|w| w.to_string()).collect(),
        build: None,
        origin: "tests/it".into(),
        sandbox: None,
        benched: None,
        data: None,
        protocols: Default::default(),
    }
}

/// `bot` contained with `limits`, in a working copy under `game_dir`.
pub fn contained(bot: &BotSpec, limits: &Sandbox, game_dir: &Path) -> BotSpec {
    sandbox::contain(std::slice::from_ref(bot), Some(limits), game_dir)
        .unwrap()
        .remove(0)
}

/// Asks the hostile bot to try `attempt` and returns its answer line.
pub async fn try_escape(bot: &mut BotProcess, attempt: &str) -> String {
    bot.ask(&format!("TRY {attempt}"), LIMIT)
        .await
        .unwrap()
        .line
}

pub async fn assert_held(bot: &mut BotProcess, attempt: &str) {
    let answer = try_escape(bot, attempt).await;
    assert!(answer.starts_with("HELD"), "TRY {attempt}: {answer}");
}

/// Waits up to [`LIMIT`] for `done`.
pub fn wait_for(done: impl Fn() -> bool, what: &str) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < LIMIT, "waited for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
