//! What every process koth starts for a bot (the bot, its `bwrap`, its build step) does between
//! `fork` and `exec`: it closes every descriptor it was not given, and takes the default action
//! of `SIGXFSZ` back. koth opens its own files close-on-exec, but a descriptor koth itself
//! inherited (a file the shell that started koth had open, a test harness's pipe) is not, and
//! would reach the bot: a bot read a host-only file through descriptor 7 and appended to
//! another through 8. A signal ignored by whoever started koth stays ignored across `exec`; a
//! bot past its file size cap must be ended by `SIGXFSZ` as the cap means, unless it ignores the
//! signal itself.

use std::os::unix::process::CommandExt;

use nix::libc;

/// `close_range`'s flag: mark the range close-on-exec instead of closing it now (the descriptors
/// `std` itself still needs until `exec`, such as its error pipe, keep working).
const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;

/// Makes `command`'s child keep only its standard streams and the descriptors `keep` (which it
/// makes inheritable), however koth was started.
pub(crate) fn keep_only(command: &mut std::process::Command, keep: Vec<i32>) {
    // SAFETY: the closure makes only async-signal-safe system calls (close_range, fcntl) and
    // allocates nothing.
    unsafe {
        command.pre_exec(move || keep_only_now(&keep));
    }
}

/// The body of [`keep_only`], for a `pre_exec` closure that does more.
///
/// # Safety
/// Called in a child between `fork` and `exec` only.
pub(crate) unsafe fn keep_only_now(keep: &[i32]) -> std::io::Result<()> {
    // SAFETY: plain system calls on descriptor numbers.
    unsafe {
        if libc::syscall(
            libc::SYS_close_range,
            3,
            libc::c_uint::MAX,
            CLOSE_RANGE_CLOEXEC,
        ) != 0
        {
            // A kernel before 5.11: every descriptor up to a bound, one call each.
            for fd in 3..4096 {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
        }
        for &fd in keep {
            if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
    }
    Ok(())
}
