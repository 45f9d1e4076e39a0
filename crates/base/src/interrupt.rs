//! What koth does when it is told to stop: SIGINT (Ctrl-C), SIGTERM or SIGHUP (a closed
//! terminal or SSH session).
//!
//! [`install`] starts one thread that waits for these signals. On the first, it stops the work
//! `main` handed in (the bot layer's `koth_bot::stop_every_bot`: it kills every bot process, and
//! any started afterwards, and writes out the open transcripts), says what happened and — when the running command registered one with
//! [`resume_with`] — the exact command that carries on, and exits. A second signal ends koth at
//! once, should the first stop ever hang (a transcript stuck on a full disk, say).
//!
//! Work in flight is simply abandoned: a tournament game being played stays `running` in the
//! results database, which `koth tournament resume` plays again. A runner that could record
//! the result of a game cut short by the kill checks [`requested`] first, and waits for the exit
//! with [`wait_for_exit`] instead.
//!
//! A handler thread (rather than blocking the signals and waiting for them) keeps the bots' own
//! signal dispositions default: handlers are reset on exec, blocked masks would be inherited.
//!
//! A SIGHUP or SIGINT that koth was started ignoring stays ignored, as shells and `nohup` mean
//! it: `nohup koth tournament run …` keeps playing when its SSH session ends.

use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// Set before any bot is killed, so that a runner which sees it set knows not to trust a game
/// that ended meanwhile.
static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The command that resumes what the running command was doing, printed when it is stopped.
static RESUME_COMMAND: Mutex<Option<String>> = Mutex::new(None);

/// Starts the thread that stops koth on SIGINT, SIGTERM or SIGHUP (each of the last two unless
/// koth was started ignoring it), calling `stop_work` first. Called once, by `main`: this crate
/// knows no bot, so the bot layer's stop is handed in.
pub fn install(stop_work: fn()) {
    let watched = [SIGTERM, SIGINT, SIGHUP]
        .into_iter()
        .filter(|&signal| signal == SIGTERM || !ignored(signal));
    let Ok(mut signals) = signal_hook::iterator::Signals::new(watched) else {
        return;
    };
    std::thread::spawn(move || {
        let mut received = signals.forever();
        let Some(first) = received.next() else {
            return;
        };
        std::thread::spawn(move || stop(first, stop_work));
        if let Some(second) = received.next() {
            say(&format!(
                "koth: {} again: exiting at once",
                signal_name(second)
            ));
            std::process::exit(128 + second);
        }
    });
}

/// Whether `signal` is ignored, as `nohup` leaves SIGHUP (and a shell SIGINT, for a command it
/// starts in the background) for the command it runs.
fn ignored(signal: i32) -> bool {
    use nix::libc;
    // SAFETY: a zeroed sigaction is a valid value to be overwritten; with no new action,
    // sigaction only writes the current one into `current`.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut current) == 0
            && current.sa_sigaction == libc::SIG_IGN
    }
}

/// Whether koth is being stopped: from then on, a game that ends may have ended because its bots
/// were killed, and must not be recorded.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// Blocks the calling thread until the stopping koth exits; for a runner that saw
/// [`requested`] and must record nothing more.
pub fn wait_for_exit() -> ! {
    loop {
        std::thread::park();
    }
}

/// While the returned guard lives, stopping koth prints `words` as the command that resumes,
/// each word quoted for a POSIX shell where it needs to be.
pub fn resume_with(words: &[&OsStr]) -> ResumeCommand {
    *RESUME_COMMAND.lock().unwrap_or_else(|e| e.into_inner()) = Some(shell_command(words));
    ResumeCommand(())
}

/// The command line of `words`, as a POSIX shell reads it back into those words.
pub fn shell_command(words: &[&OsStr]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| shell_word(w)).collect();
    quoted.join(" ")
}

/// Keeps a resume command registered ([`resume_with`]); dropping it forgets the command.
#[must_use = "the resume command is forgotten when this is dropped"]
pub struct ResumeCommand(());

impl Drop for ResumeCommand {
    fn drop(&mut self) {
        *RESUME_COMMAND.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// Ends koth quietly with exit status 0 when its output is gone: `koth … | head` closes the
/// pipe once it has read enough, and Rust, which ignores SIGPIPE, then panics in `println!`.
/// The reader has what it wanted, so it is no error: the bots are killed and the transcripts
/// written as on a signal (`stop_work`), and nothing is said. Installed once, by `main`.
pub fn end_quietly_on_broken_pipe(stop_work: fn()) {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info.payload_as_str().unwrap_or_default();
        if message.starts_with("failed printing to std") && message.contains("Broken pipe") {
            stop_everything(stop_work);
            std::process::exit(0);
        }
        report(info);
    }));
}

/// Marks koth as stopping, then stops its work (kills every bot process and writes out the open
/// transcripts): in that order, so that a runner never records a game its bots were killed in.
fn stop_everything(stop_work: fn()) {
    REQUESTED.store(true, Ordering::SeqCst);
    stop_work();
}

fn stop(signal: i32, stop_work: fn()) -> ! {
    stop_everything(stop_work);
    say(&format!(
        "\nkoth: interrupted by {}: every bot process was killed",
        signal_name(signal)
    ));
    let resume = RESUME_COMMAND
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    if let Some(command) = resume {
        say(&format!(
            "koth: finished games are kept; the games cut short are played again by:\n{command}"
        ));
    }
    std::process::exit(128 + signal);
}

/// Writes `line` to stderr, if it still goes anywhere: after SIGHUP the terminal is gone, and
/// `eprintln!` would panic instead of letting koth exit.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn signal_name(signal: i32) -> String {
    match signal {
        SIGINT => "SIGINT".into(),
        SIGTERM => "SIGTERM".into(),
        SIGHUP => "SIGHUP".into(),
        other => format!("signal {other}"),
    }
}

/// `word` as a POSIX shell reads it back: as it is when it holds only characters no shell
/// treats specially, else in single quotes (a `'` inside written as `'\''`).
fn shell_word(word: &OsStr) -> String {
    let text = word.to_string_lossy();
    let plain = |b: &u8| b.is_ascii_alphanumeric() || b"_-+=/.,:@%".contains(b);
    if !word.is_empty() && word.as_bytes().iter().all(plain) {
        return text.into_owned();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_quoted_only_where_a_shell_would_change_it() {
        assert_eq!(shell_word(OsStr::new("logs/t-1.x")), "logs/t-1.x");
        assert_eq!(shell_word(OsStr::new("my run")), "'my run'");
        assert_eq!(shell_word(OsStr::new("it's")), r"'it'\''s'");
        assert_eq!(shell_word(OsStr::new("$HOME")), "'$HOME'");
        assert_eq!(shell_word(OsStr::new("")), "''");
    }
}
