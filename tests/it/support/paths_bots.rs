//! Paths bot folders for tests, made in a temporary folder: a `bot.toml` running one of the test
//! bots in `tests/bots/` (`climber.py`, `faulty.py`) with the arguments a test needs.

use std::path::{Path, PathBuf};

/// The command running `tests/bots/<script>` with `args`.
pub fn test_bot_command(script: &str, args: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/bots")
        .join(script);
    format!("python3 {} {args}", script.display())
}

/// The bot folder `dir/folder`, whose bot.toml names it `name` and runs `run`.
pub fn paths_bot(dir: &Path, folder: &str, name: &str, run: &str) -> PathBuf {
    let bot = dir.join(folder);
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::write(
        bot.join("bot.toml"),
        format!("name = \"{name}\"\nrun = \"{run}\"\ngames = [\"paths\"]\n"),
    )
    .unwrap();
    bot
}

/// The bot folder `dir/folder` named `name`, holding a copy of `tests/bots/<script>` run with
/// `args`: a bot that also runs contained (a contained bot sees only its own folder).
pub fn script_bot(dir: &Path, folder: &str, name: &str, script: &str, args: &str) -> PathBuf {
    let bot = paths_bot(dir, folder, name, &format!("python3 {script} {args}"));
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/bots")
        .join(script);
    std::fs::copy(source, bot.join(script)).unwrap();
    bot
}

/// `count` bots under `dir` (`cpus-0`, `cpus-1`, …) running `faulty.py cpus`: bots that play
/// quietly and report the CPUs they may run on (read with `support/cpus.rs`).
pub fn cpu_reporting_paths_bots(dir: &Path, count: usize) -> Vec<PathBuf> {
    (0..count)
        .map(|i| {
            let (folder, name) = (format!("cpus-{i}"), format!("Cpus {i}"));
            script_bot(dir, &folder, &name, "faulty.py", "cpus")
        })
        .collect()
}
