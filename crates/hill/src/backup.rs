//! `hill backup` and `hill restore`: a hill folder's database copied while `hill run` writes
//! it, and put back while the hill is stopped.
//!
//! The copy is SQLite's online backup in one step: it reads the database in one read
//! transaction, so it holds the hill as of one moment (every game recorded whole or not at
//! all), while `hill run`'s writes go on into the write-ahead log. The versions' and games'
//! folders are files that never change once written: a copy of the folder taken at any time
//! and a backup of its database make a hill that resumes.
//!
//! A backup is data: before it is put in place, every version's row must name the hill's own
//! copy of it, `versions/<digest>/` for its own digest, or nothing is restored. The hill's
//! settings are its `hill.toml`'s alone, whatever the backup's `meta` holds.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};

use koth_tournament::lock::FolderLock;
use koth_tournament::store::{self as tstore, DONE, Store};

use super::versions;

/// How long a backup waits for a database another connection holds locked.
const BUSY_FOR: Duration = Duration::from_secs(30);

/// Copies the database of the hill folder `dir` to `to` (replaced whole, never left half
/// written), running or not; returns the number of games the copy holds recorded.
pub(crate) fn backup(dir: &Path, to: &Path) -> anyhow::Result<i64> {
    let source = hill_database(dir)?;
    let partial = partial_of(to)?;
    remove_if_there(&partial)?;
    let from = Connection::open_with_flags(&source, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("cannot open {}", source.display()))?;
    let mut copy = Connection::open(&partial)
        .with_context(|| format!("cannot write {}", partial.display()))?;
    {
        let backup = Backup::new(&from, &mut copy)
            .with_context(|| format!("cannot back up {}", source.display()))?;
        let started = Instant::now();
        // All pages in one step: one read transaction, one moment of the hill.
        loop {
            match backup.step(-1)? {
                StepResult::Done => break,
                StepResult::More => {}
                StepResult::Busy | StepResult::Locked => {
                    anyhow::ensure!(
                        started.elapsed() < BUSY_FOR,
                        "{} stayed locked for {} s: try again",
                        source.display(),
                        BUSY_FOR.as_secs()
                    );
                    std::thread::sleep(Duration::from_millis(50));
                }
                _ => {}
            }
        }
    }
    let integrity: String = copy.query_row("PRAGMA quick_check", [], |r| r.get(0))?;
    anyhow::ensure!(
        integrity == "ok",
        "the copy {} failed its check: {integrity}",
        partial.display()
    );
    let games: i64 = copy.query_row(
        &format!("SELECT COUNT(*) FROM games WHERE state = '{DONE}'"),
        [],
        |r| r.get(0),
    )?;
    copy.close()
        .map_err(|(_, e)| e)
        .with_context(|| format!("cannot write {}", partial.display()))?;
    std::fs::rename(&partial, to)
        .with_context(|| format!("cannot rename {} to {}", partial.display(), to.display()))?;
    Ok(games)
}

/// Puts the backup `from` in place of the database of the stopped hill folder `dir` (refused
/// while a koth holds the folder); returns the number of games it holds recorded. `hill run
/// DIR` then goes on from the backup's moment: games recorded after it are chosen and played
/// again.
pub(crate) fn restore(dir: &Path, from: &Path) -> anyhow::Result<i64> {
    let target = hill_database(dir)?;
    let _lock = FolderLock::take(dir)?;
    let checked = Store::open_read_only(from)?;
    anyhow::ensure!(
        super::is_hill(&checked)?,
        "{} is a tournament's database, not a hill's",
        from.display()
    );
    check_versions(&checked, dir).with_context(|| {
        format!(
            "{} is not restored (the hill's database is unchanged)",
            from.display()
        )
    })?;
    let games = i64::from(checked.progress()?.done);
    drop(checked);
    let partial = partial_of(&target)?;
    remove_if_there(&partial)?;
    std::fs::copy(from, &partial)
        .with_context(|| format!("cannot copy {} to {}", from.display(), partial.display()))?;
    // The log of the database replaced must not be replayed into its replacement.
    for log in ["-wal", "-shm"] {
        remove_if_there(Path::new(&format!("{}{log}", target.display())))?;
    }
    std::fs::rename(&partial, &target).with_context(|| {
        format!(
            "cannot rename {} to {}",
            partial.display(),
            target.display()
        )
    })?;
    Ok(games)
}

/// Refuses the backup in `store`, to be restored into the hill folder `dir`, if one of its
/// versions' rows names a folder other than the hill's own copy of it, `versions/<digest>/`
/// ([`versions::folder_of`]), or a digest other than its version's: a backup is data, and what
/// it names is never run.
fn check_versions(store: &Store, dir: &Path) -> anyhow::Result<()> {
    for row in super::store::versions_as_bots(store)? {
        let (id, name) = (row.id, row.name);
        let digest = row.hash.unwrap_or_default();
        let version = row.digest;
        anyhow::ensure!(
            version.as_deref() == Some(digest.as_str()),
            "version {name:?} (row {id} of the hill's `bots` table): its digest {digest:?} is not \
             its version's, {version:?}"
        );
        versions::folder_of(dir, id, &name, Path::new(&row.dir), &digest)?;
    }
    Ok(())
}

/// The database of hill folder `dir`, checked to be a hill's.
fn hill_database(dir: &Path) -> anyhow::Result<PathBuf> {
    let path = dir.join(tstore::FILE);
    let store = Store::open_read_only(&path)?;
    anyhow::ensure!(
        super::is_hill(&store)?,
        "{} is a tournament folder, not a hill's",
        dir.display()
    );
    Ok(path)
}

fn partial_of(path: &Path) -> anyhow::Result<PathBuf> {
    let name = path
        .file_name()
        .with_context(|| format!("{} names no file", path.display()))?;
    let mut partial = name.to_os_string();
    partial.push(".partial");
    Ok(path.with_file_name(partial))
}

fn remove_if_there(path: &Path) -> anyhow::Result<()> {
    match std::fs::remove_file(path) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
            Err(err).with_context(|| format!("cannot remove {}", path.display()))
        }
        _ => Ok(()),
    }
}
