//! An answer waited for in `poll(2)` on the game's own thread, with no runtime: for a game that
//! asks one bot thousands of times a second from a thread of its own (the rat race's seat), a
//! turn is then the prompt's write, one `poll` and one `read` (and the read that looks for
//! lines the bot printed unasked before the prompt), with no timer registered and cancelled,
//! no `epoll_wait` and no task woken.
//!
//! Only the quick answer is read here: one that comes whole within [`SAMPLE_AFTER`] of its
//! prompt (and the runtime timer's millisecond more, [`TIMER_TICK`]), as nearly every answer of a fast bot does. Anything else — a prompt the pipe had no
//! room for, a broken pipe, an answer still not come by then, the bot's stdout closed — goes
//! back to the caller as it was asked, for [`BotProcess::answer`] to finish on the runtime,
//! which from there does what it always does: its run-queue figures are taken at once (the
//! runtime took them 1 to 2 ms after the prompt) for the starvation check, its time limit and fault are the same, and what
//! was read here waits in the line reader's buffer. So an answer read here is judged exactly
//! as one read there, with no starvation figures (none are taken for a quick answer).

use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::{Asked, BotProcess};
use crate::lines::MAX_LINE;
use crate::lines::ReadEvent;
use crate::starvation::SAMPLE_AFTER;
use crate::{Answer, BotError, Clock};

/// The runtime's timer counts in milliseconds and rounds a deadline up to the next, so the
/// runtime's wait took its run-queue sample 1 to 2 ms after the prompt, not at [`SAMPLE_AFTER`]
/// exactly. The quick wait lasts as long: an answer that comes in that second millisecond is
/// read here too, and costs no `/proc` reads, as it cost none on the runtime.
const TIMER_TICK: Duration = Duration::from_millis(1);

impl BotProcess {
    /// The answer to the prompt `asked` came from, if it comes quickly (see the module's
    /// documentation); else `asked` back, for [`BotProcess::answer`].
    pub(crate) fn answer_polled(&mut self, asked: Asked) -> Polled {
        if !asked.written || asked.broken.is_some() {
            return Polled::Slow(asked);
        }
        let allowed = asked.limit + asked.grace;
        let wait = match self.clock {
            Clock::Wall => allowed,
            Clock::Cpu { backstop } => backstop.max(allowed),
        };
        let quick = asked.started + (SAMPLE_AFTER + TIMER_TICK).min(wait);
        let event = loop {
            if let Some(event) = self.stdout.take_line() {
                break event;
            }
            if self.stdout.too_long() {
                break ReadEvent::TooLong;
            }
            match self.read_before(quick) {
                Read::More => {}
                Read::Nothing => return Polled::Slow(asked),
            }
        };
        let answer = match event {
            ReadEvent::Line(line) => Answer {
                wall: asked.started.elapsed(),
                cpu: (asked.cpu_before)
                    .and_then(|before| Some(self.cpu_time()?.saturating_sub(before))),
                line,
            },
            ReadEvent::TooLong => {
                return Polled::Answered(Err(self.stop(BotError::LineTooLong { max: MAX_LINE })));
            }
            ReadEvent::NotUtf8 => return Polled::Answered(Err(self.stop(BotError::NotUtf8))),
            ReadEvent::Closed => return Polled::Slow(asked),
        };
        // No run-queue figures were taken, as for any answer before the runtime's first sample.
        let judged = self.judge(answer, asked.limit, asked.grace, &|_| None);
        Polled::Answered(judged.map_err(|e| self.stop(e)))
    }

    /// Waits in `poll(2)` until the bot's stdout has something or `until` comes, and reads it.
    fn read_before(&mut self, until: Instant) -> Read {
        let Some(left) = until.checked_duration_since(Instant::now()) else {
            return Read::Nothing;
        };
        let mut pipe = nix::libc::pollfd {
            fd: self.stdout.pipe().as_raw_fd(),
            events: nix::libc::POLLIN,
            revents: 0,
        };
        // Rounded up, so the wait is never shorter than what is left.
        let ms = left
            .as_micros()
            .div_ceil(1000)
            .try_into()
            .unwrap_or(i32::MAX);
        // SAFETY: `poll` reads and writes the one `pollfd` it is given, which lives across it.
        let ready = unsafe { nix::libc::poll(&mut pipe, 1, ms) };
        if ready < 0 {
            // Interrupted: the time left is looked at again.
            return match std::io::Error::last_os_error().kind() {
                std::io::ErrorKind::Interrupted => Read::More,
                _ => Read::Nothing,
            };
        }
        if ready == 0 {
            return Read::Nothing;
        }
        match self.stdout.read_now() {
            Ok(n) if n > 0 => Read::More,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Read::More,
            // The end of the bot's stdout, or a failed read: the runtime's reader tells which
            // and why.
            _ => Read::Nothing,
        }
    }
}

/// What waiting for an answer in `poll` gave.
pub(crate) enum Polled {
    /// The answer, judged, or the fault it was.
    Answered(Result<Answer, BotError>),
    /// No answer yet, or one the runtime must look at: the prompt as it was asked.
    Slow(Asked),
}

/// What waiting in `poll` for the bot's stdout gave.
enum Read {
    /// Bytes read, or none yet with time left: look again.
    More,
    /// Nothing before the time was up, or a pipe the runtime's reader must look at.
    Nothing,
}
