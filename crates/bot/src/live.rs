//! Every bot process koth has started and not yet cleaned up, so that an interrupted koth can
//! kill them all: bots live in process groups of their own, out of reach of the terminal's
//! signal.

use std::collections::BTreeSet;
use std::sync::Mutex;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// Process groups of bots still running, so that an interrupted koth can kill them all.
static LIVE_GROUPS: Mutex<LiveGroups> = Mutex::new(LiveGroups {
    groups: BTreeSet::new(),
    closed: false,
});

struct LiveGroups {
    groups: BTreeSet<i32>,
    /// Set by [`kill_all`]: koth is going away, and a bot started from now on is killed at once
    /// (a game thread may be between starting a process and registering it).
    closed: bool,
}

fn live_groups() -> std::sync::MutexGuard<'static, LiveGroups> {
    LIVE_GROUPS.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) fn register(pgid: i32) {
    let mut live = live_groups();
    if live.closed {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    } else {
        live.groups.insert(pgid);
    }
}

pub(super) fn kill_group(pgid: i32) {
    // ESRCH (the group is already gone) is the expected, common case.
    let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    live_groups().groups.remove(&pgid);
}

/// Kills every bot process group koth started and has not yet cleaned up, and every one started
/// from now on. Called when koth is interrupted: bots live in their own process groups, so the
/// terminal's signal does not reach them.
pub(crate) fn kill_all() {
    let mut live = live_groups();
    live.closed = true;
    for pgid in std::mem::take(&mut live.groups) {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
}
