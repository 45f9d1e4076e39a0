//! Starting koth for a test that stops it with a signal: with the signal dispositions the test
//! relies on, whatever the test itself was started with.
//!
//! koth keeps a SIGINT or SIGHUP it was started ignoring ignored, as shells and `nohup` mean it
//! (`crates/base/src/interrupt.rs`), and a blocked signal stays pending across `exec`. A test run started in
//! the background (`&`, which ignores SIGINT), under `nohup` (SIGHUP) or by a CI runner that
//! blocks signals would hand those to every koth it starts, and a test's SIGINT would then
//! change nothing. So every test that signals koth starts it through [`default_signals`], and
//! the test of `nohup`'s meaning sets it up on purpose, through `nohup` itself.

use std::os::unix::process::CommandExt;
use std::process::Command;

/// Makes `command`'s child start with the default action for SIGINT, SIGHUP, SIGTERM and
/// SIGQUIT and no signal blocked, before it runs the program (koth, or a program such as
/// `nohup` that then sets up what it means to).
pub fn default_signals(command: &mut Command) -> &mut Command {
    // SAFETY: between fork and exec the closure makes only async-signal-safe calls (signal,
    // sigprocmask) and allocates nothing.
    unsafe {
        command.pre_exec(|| {
            use nix::libc;
            for signal in [libc::SIGINT, libc::SIGHUP, libc::SIGTERM, libc::SIGQUIT] {
                if libc::signal(signal, libc::SIG_DFL) == libc::SIG_ERR {
                    return Err(std::io::Error::last_os_error());
                }
            }
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            if libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}
