//! One koth at a time plays a tournament folder: two would play the same games into the same
//! folders and database. A `run` or `resume` holds an advisory lock (`flock`) on `koth.lock` in
//! the folder from before it changes anything there until it exits; the OS releases it however
//! koth ends, `kill -9` included. Readers (`status`, `leaderboard`) take no lock.
//!
//! The file holds the holder's pid, for the message a second koth gives. It is never removed:
//! removing it would let a koth that opened the old file and one that creates a new one both
//! hold "the" lock. std opens files close-on-exec, so no bot process inherits the lock.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, bail};

/// The lock file in a tournament folder.
pub const FILE: &str = "koth.lock";

/// The lock of a tournament folder, held until dropped.
pub struct FolderLock {
    _file: File,
}

impl FolderLock {
    /// Locks the existing tournament folder `dir`, or fails at once naming the folder and the
    /// process that holds it.
    pub fn take(dir: &Path) -> anyhow::Result<FolderLock> {
        let path = dir.join(FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            // Not truncated before it is locked: it holds the pid of the koth holding it.
            .truncate(false)
            .open(&path)
            .with_context(|| format!("cannot open the lock file {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => bail!(
                "the tournament folder {} is in use by another koth ({}): one run or resume at \
                 a time; `koth tournament status {}` shows its progress",
                dir.display(),
                holder(&mut file),
                dir.display()
            ),
            Err(TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", path.display()));
            }
        }
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| writeln!(file, "{}", std::process::id()))
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(FolderLock { _file: file })
    }
}

/// `pid N` of the koth holding the lock file `file`. The holder writes its pid just after
/// taking the lock, so an empty file is read again a few times before giving up on the pid.
fn holder(file: &mut File) -> String {
    for _ in 0..10 {
        let mut text = String::new();
        // A short read: the file holds a number, and anything longer is not koth's.
        let read = file
            .rewind()
            .and_then(|()| Read::take(&mut *file, 32).read_to_string(&mut text));
        if let Ok(pid) = text.trim().parse::<u32>()
            && read.is_ok()
        {
            return format!("pid {pid}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    "pid unknown".into()
}
