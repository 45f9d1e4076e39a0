//! What playing a tournament that lives in a shared database takes, whoever plays it (a
//! `koth worker`, a run that joins one, a hill's worker): how long a claim lasts, how often
//! the queue is looked at again, a bot's folder checked against the hash submitted and built
//! in a copy, and folders named relative to the tournament file's.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

use super::config::Config;
use koth_bot::BotSpec;

/// How long a claim lasts unless renewed, unless `--lease-s` says otherwise: a dead worker's
/// games are back in the queue this long after its last renewal.
pub const DEFAULT_LEASE_S: u64 = 30;
/// How often a worker with nothing to claim looks at the queue again (one small query): often
/// enough that the last worker waiting on another's game leaves soon after it ends.
pub(crate) const POLL: Duration = Duration::from_millis(250);

/// The bot `bot` (its folder stored relative to the tournament file's) as a worker plays
/// it: its folder under `root`, checked against the content hash submitted, copied to `copy`
/// and built there, so the folder under `root` stays as submitted. Returns the copy.
pub(crate) fn prepare_copy(
    bot: &BotSpec,
    root: &Path,
    copy: &Path,
    hash: Option<&str>,
    config: &Config,
) -> anyhow::Result<PathBuf> {
    let source = root.join(&bot.dir);
    anyhow::ensure!(
        source.is_dir(),
        "no folder {} (a worker finds bot folders under --root {}, laid out as they were beside \
         the tournament file)",
        source.display(),
        root.display()
    );
    let here = koth_bot::digest::digest(&BotSpec {
        dir: source.clone(),
        ..bot.clone()
    })?;
    if let Some(submitted) = hash {
        anyhow::ensure!(
            here == submitted,
            "its folder {} is not the one submitted (content hash {} here, {} submitted)",
            source.display(),
            &here[..12],
            &submitted[..submitted.len().min(12)]
        );
    }
    if copy.exists() {
        std::fs::remove_dir_all(copy)
            .with_context(|| format!("cannot clear {}", copy.display()))?;
    }
    koth_bot::build::copy_folder(&source, copy)
        .with_context(|| format!("cannot copy {} to {}", source.display(), copy.display()))?;
    let built = BotSpec {
        dir: copy.to_path_buf(),
        ..bot.clone()
    };
    let built = koth_bot::build::prepare(
        std::slice::from_ref(&built),
        config.settings.build_limit(),
        config.settings.sandbox().as_ref(),
    )?;
    Ok(built[0].dir.clone())
}

/// `path` relative to `base` (both absolute), through `..` where it lies outside.
pub(crate) fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let (path, base) = (lexical(path), lexical(base));
    let common = path.iter().zip(&base).take_while(|(a, b)| a == b).count();
    let mut relative: PathBuf = base[common..].iter().map(|_| "..").collect();
    relative.extend(&path[common..]);
    if relative.as_os_str().is_empty() {
        relative.push(".");
    }
    relative
}

/// The components of `path` with `.` and `name/..` taken out, as written (links are not
/// followed: a bot folder is named as the tournament file names it).
fn lexical(path: &Path) -> Vec<Component<'_>> {
    let mut parts: Vec<Component<'_>> = Vec::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir if matches!(parts.last(), Some(Component::Normal(_))) => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bot_folder_is_stored_relative_to_the_tournament_files_folder() {
        let rel = |p: &str, b: &str| relative_to(Path::new(p), Path::new(b));
        assert_eq!(
            rel("/r/config/../bots/x", "/r/config"),
            Path::new("../bots/x")
        );
        assert_eq!(rel("/r/bots/x", "/r"), Path::new("bots/x"));
        assert_eq!(rel("/r", "/r"), Path::new("."));
        assert_eq!(rel("/a/b", "/c/d"), Path::new("../../a/b"));
    }
}
