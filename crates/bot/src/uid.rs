//! A user of its own for each contained bot and build, when koth runs as root: two bots that
//! ran as one user could meet through whatever the kernel keeps per user (the key store, the
//! process and pipe quotas, signals where namespaces leak), so each one is given a user no other
//! running bot has, from a range koth keeps for bots ([`FIRST`] onwards, [`COUNT`] of them).
//!
//! A user is leased with an advisory `flock` on `uid-<N>.lock` in [`LEASE_FOLDER`], held as long
//! as the bot runs. User ids are the machine's, so the folder is the machine's too, the same for
//! every koth whatever its environment (not the CPU locks' folder, which `XDG_RUNTIME_DIR`
//! moves): two koths never hand out one user at once, and a koth killed with `kill -9` frees its
//! leases with its descriptors.
//!
//! So a process running as a user of the range whose lease no one holds was left by a koth that
//! is gone: a sandbox caught starting when its koth was killed, before `bwrap` made it die with
//! its parent. [`end_unleased`] ends them.

use std::collections::BTreeSet;
use std::fs::File;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use nix::fcntl::{Flock, FlockArg, OFlag, openat};
use nix::sys::stat::Mode;

/// The first user id koth gives a bot: far above the ids of a machine's people and services
/// (Debian gives people 1000–59999) and of the subordinate ranges container tools hand out from
/// 100000 (`/etc/subuid`), and below 2^31, which some tools read as a signed number.
pub const FIRST: u32 = 1_900_000_000;
/// How many users the range holds: more than the bots one machine runs at once.
pub const COUNT: u32 = 65_536;

/// The folder of the users' leases, root's own (mode 0700): in `/run`, which the system empties
/// at boot, as it does the processes that held them.
pub const LEASE_FOLDER: &str = "/run/koth-uids";

/// A user leased to one bot or build, free again when dropped.
#[derive(Debug)]
pub(crate) struct BotUid {
    uid: u32,
    _lock: Flock<File>,
}

impl BotUid {
    pub(crate) fn uid(&self) -> u32 {
        self.uid
    }

    /// A user no other running bot of any koth on the machine has.
    pub(crate) fn lease() -> Result<BotUid, String> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let folder = lease_folder()?;
        // Each koth starts at its own place in the range, so two koths rarely try the same
        // locks, and goes on from the last user it gave.
        let start = std::process::id().wrapping_mul(2_654_435_761) % COUNT;
        for _ in 0..COUNT {
            let offset = (start + NEXT.fetch_add(1, Ordering::Relaxed)) % COUNT;
            if let Some(lock) = try_lease(folder, offset) {
                return Ok(BotUid {
                    uid: FIRST + offset,
                    _lock: lock,
                });
            }
        }
        Err(format!("all {COUNT} users koth keeps for bots are in use"))
    }
}

/// [`LEASE_FOLDER`], opened once per koth process (made if missing).
fn lease_folder() -> Result<&'static OwnedFd, String> {
    static FOLDER: OnceLock<Result<OwnedFd, String>> = OnceLock::new();
    FOLDER
        .get_or_init(|| koth_base::cpu::open_lock_folder(Path::new(LEASE_FOLDER)))
        .as_ref()
        .map_err(Clone::clone)
}

/// The lease of the user `FIRST + offset`, if no one holds it.
fn try_lease(folder: &OwnedFd, offset: u32) -> Option<Flock<File>> {
    let flags = OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_CLOEXEC | OFlag::O_NOFOLLOW;
    let name = format!("uid-{offset}.lock");
    let file = openat(folder, name.as_str(), flags, Mode::S_IRUSR | Mode::S_IWUSR).ok()?;
    Flock::lock(File::from(file), FlockArg::LockExclusiveNonblock).ok()
}

/// Ends every process that runs as a user of the range no one leases, as root (no one else can,
/// and only root leases users): what koths killed with `kill -9` left. Each user's lease is
/// held while its processes are ended, so no koth gives the user to a bot meanwhile.
pub(crate) fn end_unleased() {
    if !nix::unistd::geteuid().is_root() {
        return;
    }
    let Ok(folder) = lease_folder() else {
        return;
    };
    let users: BTreeSet<u32> = processes_in_range().into_iter().map(|(_, u)| u).collect();
    for user in users {
        let Some(_lease) = try_lease(folder, user - FIRST) else {
            continue;
        };
        tracing::warn!(
            user,
            "ending the processes a killed koth left running as a bot's user"
        );
        // A process may fork while its siblings are being killed: again until none is left (a
        // killed process is a zombie until reaped, and no longer counted).
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let left: Vec<i32> = processes_in_range()
                .into_iter()
                .filter(|&(_, u)| u == user)
                .map(|(pid, _)| pid)
                .collect();
            if left.is_empty() || Instant::now() > deadline {
                break;
            }
            for pid in left {
                let pid = nix::unistd::Pid::from_raw(pid);
                let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// Every live process (not a zombie) of which a user id (real, effective, saved or of the file
/// system) is in the range, with that id.
fn processes_in_range() -> Vec<(i32, u32)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let range = FIRST..FIRST + COUNT;
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let status = std::fs::read_to_string(entry.path().join("status")).ok()?;
            let field = |name: &str| status.lines().find_map(|l| l.strip_prefix(name));
            if field("State:")?.trim_start().starts_with('Z') {
                return None;
            }
            let user = field("Uid:")?
                .split_whitespace()
                .filter_map(|id| id.parse::<u32>().ok())
                .find(|id| range.contains(id))?;
            Some((pid, user))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_leases_held_at_once_are_two_users_in_the_range() {
        let first = BotUid::lease().unwrap();
        let second = BotUid::lease().unwrap();
        assert_ne!(first.uid(), second.uid());
        for uid in [first.uid(), second.uid()] {
            assert!((FIRST..FIRST + COUNT).contains(&uid), "{uid}");
        }
    }

    #[test]
    fn a_process_of_a_users_lease_lives_while_the_lease_is_held_and_no_longer() {
        use std::os::unix::process::CommandExt;
        if !nix::unistd::geteuid().is_root() {
            return; // Only root leases users.
        }
        let lease = BotUid::lease().unwrap();
        let mut process = std::process::Command::new("sleep")
            .arg("60")
            .uid(lease.uid())
            .gid(lease.uid())
            .spawn()
            .unwrap();
        end_unleased();
        assert!(
            process.try_wait().unwrap().is_none(),
            "a leased user's process was ended"
        );
        drop(lease);
        end_unleased();
        let status = process.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(nix::libc::SIGKILL));
    }
}
