//! One koth at a time plays a tournament folder: two would play the same games into the same
//! folders and database. A `run` or `resume` holds a write lock on `koth.lock` in the folder
//! from before it changes anything there until it exits; readers (`status`, `leaderboard`) take
//! none.
//!
//! The lock is a POSIX record lock (`fcntl(F_SETLK)`), which belongs to the process: unlike a
//! `flock`, which belongs to the open file and so also to every process forked while it is open,
//! it is never held by a child caught between `fork` and `exec` (a bot being started), and the
//! OS releases it the moment koth ends, `kill -9` included. `F_GETLK` names the holder.
//!
//! The file is never removed: removing it would let a koth that opened the old file and one that
//! creates a new one both hold "the" lock.

use std::fs::{File, OpenOptions};
use std::path::Path;

use anyhow::{Context, bail};

/// The lock file in a tournament folder.
pub(crate) const FILE: &str = "koth.lock";

/// The lock of a tournament folder, held until dropped (closing the file releases it).
pub struct FolderLock {
    _file: File,
}

impl FolderLock {
    /// Locks the existing tournament folder `dir`, or fails at once naming the folder and the
    /// process that holds it.
    pub fn take(dir: &Path) -> anyhow::Result<FolderLock> {
        let path = dir.join(FILE);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .with_context(|| format!("cannot open the lock file {}", path.display()))?;
        let mut lock = whole_file(nix::libc::F_WRLCK);
        match nix::fcntl::fcntl(&file, nix::fcntl::FcntlArg::F_SETLK(&lock)) {
            Ok(_) => Ok(FolderLock { _file: file }),
            Err(nix::errno::Errno::EAGAIN | nix::errno::Errno::EACCES) => {
                // Who holds it (it may have let go meanwhile: then its pid is unknown).
                let holder =
                    match nix::fcntl::fcntl(&file, nix::fcntl::FcntlArg::F_GETLK(&mut lock)) {
                        Ok(_) if lock.l_type != nix::libc::F_UNLCK as i16 => {
                            format!("pid {}", lock.l_pid)
                        }
                        _ => "pid unknown".into(),
                    };
                bail!(
                    "the tournament folder {} is in use by another koth ({holder}): one run or \
                     resume at a time; `koth tournament status {}` shows its progress",
                    dir.display(),
                    dir.display()
                )
            }
            Err(e) => Err(e).with_context(|| format!("cannot lock {}", path.display())),
        }
    }
}

/// A record lock of `kind` over the whole file.
fn whole_file(kind: i32) -> nix::libc::flock {
    // SAFETY: flock is a plain C struct, valid all zeros; the fields that matter are set below.
    let mut lock: nix::libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = kind as i16;
    lock.l_whence = nix::libc::SEEK_SET as i16;
    lock.l_start = 0;
    lock.l_len = 0;
    lock
}
