//! A user of its own for each contained bot and build, when koth runs as root: two bots that
//! ran as one user could meet through whatever the kernel keeps per user (the key store, the
//! process and pipe quotas, signals where namespaces leak), so each one is given a user no other
//! running bot has, from a range koth keeps for bots ([`FIRST`] onwards, [`COUNT`] of them).
//!
//! A user is leased with an advisory `flock` on `uid-<N>.lock` in the folder of koth's CPU locks
//! (`cpu::lock_folder`, private to koth's user), held as long as the bot runs: every koth
//! process on the machine leases from the same folder, so two never hand out one user at once,
//! and a koth killed with `kill -9` frees its leases with its descriptors.

use std::fs::File;
use std::os::fd::OwnedFd;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use nix::fcntl::{Flock, FlockArg, OFlag, openat};
use nix::sys::stat::Mode;

/// The first user id koth gives a bot: far above the ids of a machine's people and services
/// (Debian gives people 1000–59999) and of the subordinate ranges container tools hand out from
/// 100000 (`/etc/subuid`), and below 2^31, which some tools read as a signed number.
pub const FIRST: u32 = 1_900_000_000;
/// How many users the range holds: more than the bots one machine runs at once.
pub const COUNT: u32 = 65_536;

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
        static FOLDER: OnceLock<Result<OwnedFd, String>> = OnceLock::new();
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let folder = FOLDER
            .get_or_init(|| crate::cpu::open_lock_folder(&crate::cpu::lock_folder()))
            .as_ref()
            .map_err(Clone::clone)?;
        // Each koth starts at its own place in the range, so two koths rarely try the same
        // locks, and goes on from the last user it gave.
        let start = std::process::id().wrapping_mul(2_654_435_761) % COUNT;
        for _ in 0..COUNT {
            let offset = (start + NEXT.fetch_add(1, Ordering::Relaxed)) % COUNT;
            let flags = OFlag::O_RDWR | OFlag::O_CREAT | OFlag::O_CLOEXEC | OFlag::O_NOFOLLOW;
            let name = format!("uid-{offset}.lock");
            let Ok(file) = openat(folder, name.as_str(), flags, Mode::S_IRUSR | Mode::S_IWUSR)
            else {
                continue;
            };
            if let Ok(lock) = Flock::lock(File::from(file), FlockArg::LockExclusiveNonblock) {
                return Ok(BotUid {
                    uid: FIRST + offset,
                    _lock: lock,
                });
            }
        }
        Err(format!("all {COUNT} users koth keeps for bots are in use"))
    }
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
}
