//! Finding processes a test's bots left behind: every process a test starts carries a marker
//! unique to that test on its command line; a contained bot's processes also run as a user of
//! the bots' range, leased while the bot runs.

use std::path::Path;

use nix::fcntl::{Flock, FlockArg};

/// Processes (other than zombies, whose command line is empty) whose command line mentions
/// `marker`.
pub fn survivors(marker: &str) -> Vec<String> {
    marked_processes(marker)
        .into_iter()
        .map(|(_, cmdline)| cmdline)
        .collect()
}

/// The pid and command line of each process (other than zombies) whose command line mentions
/// `marker`.
pub fn marked_processes(marker: &str) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(marker) {
                found.push((pid, cmdline));
            }
        }
    }
    found
}

/// The processes running as a user of the bots' range whose lease no koth holds: a killed
/// koth's leftovers (or, for a moment, a bot that is being killed as its lease ends).
pub fn unleased_bot_processes() -> Vec<String> {
    use koth::bot::uid::{COUNT, FIRST, LEASE_FOLDER};
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else {
            continue;
        };
        let field = |name: &str| status.lines().find_map(|l| l.strip_prefix(name));
        if field("State:").is_none_or(|s| s.trim_start().starts_with('Z')) {
            continue;
        }
        let Some(user) = field("Uid:").and_then(|ids| {
            ids.split_whitespace()
                .filter_map(|id| id.parse::<u32>().ok())
                .find(|id| (FIRST..FIRST + COUNT).contains(id))
        }) else {
            continue;
        };
        let lease = Path::new(LEASE_FOLDER).join(format!("uid-{}.lock", user - FIRST));
        let free = std::fs::File::open(&lease)
            .is_ok_and(|file| Flock::lock(file, FlockArg::LockExclusiveNonblock).is_ok());
        if free || !lease.exists() {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            found.push(format!(
                "{} (user {user}): {}",
                entry.file_name().to_string_lossy(),
                String::from_utf8_lossy(&cmdline).replace('\0', " ")
            ));
        }
    }
    found
}

/// Waits (up to a minute: the machine may be busy) until no process with `marker` on its command
/// line and none under an unleased bot's user is left: processes being killed are gone a moment
/// later, a leftover stays.
pub fn wait_until_nothing_left(marker: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let (marked, unleased) = (survivors(marker), unleased_bot_processes());
        if marked.is_empty() && unleased.is_empty() {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "left running: {marked:?}; under unleased bots' users: {unleased:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Waits (up to a minute) until no process works in a folder under `dir`: what a killed koth
/// started there (a bot in its working copy) must die with it.
pub fn wait_for_none_working_in(dir: &Path) {
    let working = || -> Vec<String> {
        let Ok(dir) = std::fs::canonicalize(dir) else {
            return Vec::new();
        };
        let entries = std::fs::read_dir("/proc").unwrap().flatten();
        entries
            .filter(|entry| {
                std::fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(&dir))
            })
            .map(|entry| {
                let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
                String::from_utf8_lossy(&cmdline).replace('\0', " ")
            })
            .filter(|cmdline| !cmdline.is_empty())
            .collect()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !working().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "still working in {}: {:?}",
            dir.display(),
            working()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
