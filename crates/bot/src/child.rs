//! What every process koth starts for a bot (the bot, its `bwrap`, its build step) does between
//! `fork` and `exec`: it dies with koth, it closes every descriptor it was not given, and it
//! takes the default action of `SIGXFSZ` back.
//!
//! - **Dying with koth.** A child asks the kernel for `SIGKILL` when koth dies
//!   (`PR_SET_PDEATHSIG`), then checks that koth is still its parent: a koth killed between the
//!   `fork` and that request would otherwise leave the child running with no one to end it.
//!   From then on nothing of the child outlives koth, however koth ends (`kill -9`, the machine
//!   out of memory); a contained bot's `bwrap` passes it on to the bot (`--die-with-parent`).
//!   The request belongs to the thread that forked: a bot is started by the thread that plays
//!   its game and ends before it, a build by the thread that waits for it.
//! - **Descriptors.** koth opens its own files close-on-exec, but a descriptor koth itself
//!   inherited (a file the shell that started koth had open, a test harness's pipe) is not, and
//!   would reach the bot: a bot read a host-only file through descriptor 7 and appended to
//!   another through 8.
//! - **`SIGXFSZ`.** A signal ignored by whoever started koth stays ignored across `exec`; a bot
//!   past its file size cap must be ended by `SIGXFSZ` as the cap means, unless it ignores the
//!   signal itself.

use std::os::unix::process::CommandExt;

use nix::libc;

/// `close_range`'s flag: mark the range close-on-exec instead of closing it now (the descriptors
/// `std` itself still needs until `exec`, such as its error pipe, keep working).
const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;

/// Makes `command`'s child die with koth and keep only its standard streams, however koth was
/// started.
pub(crate) fn prepare(command: &mut std::process::Command) {
    let koth = std::process::id() as i32;
    // SAFETY: the closure makes only async-signal-safe system calls (close_range, fcntl,
    // signal, prctl, getppid) and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            keep_only_now(&[])?;
            die_with(koth)
        });
    }
}

/// Makes the calling child keep only its standard streams and the descriptors `keep` (which it
/// makes inheritable), and take `SIGXFSZ`'s default action back.
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

/// Makes the calling child be killed when `koth` (its parent's process id, read before the
/// `fork`) dies, and fails if it already has. Called last before `exec` by a child that changes
/// its user, since a change of user clears the request.
///
/// # Safety
/// Called in a child between `fork` and `exec` only.
pub(crate) unsafe fn die_with(koth: i32) -> std::io::Result<()> {
    // SAFETY: prctl and getppid read and set only the calling process's own state.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::getppid() != koth {
            // ESRCH: koth is gone. (No message: nothing may allocate here.)
            return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
        }
    }
    Ok(())
}
