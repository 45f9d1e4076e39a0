//! An answer waited for in `poll(2)` on the game's own thread, with no runtime: for a game that
//! asks one bot thousands of times a second from a thread of its own (the rat race's seat), a
//! turn is then the prompt's write, one `poll` and one `read` (and the read that looks for
//! lines the bot printed unasked before the prompt), with no timer registered and cancelled,
//! no `epoll_wait` and no task woken.
//!
//! Only the quick answer is read here: one that comes whole within [`quick_wait`] of its
//! prompt, as nearly every answer of a fast bot does: at least [`SAMPLE_AFTER`] and the
//! runtime timer's millisecond more ([`TIMER_TICK`]), and past the kernel's next scheduler tick
//! when the time allowed is long enough ([`QUICK_WAIT`]). Anything else — a prompt the pipe had
//! no room for, a broken pipe, an answer still not come by then, the bot's stdout closed — goes
//! back to the caller as it was asked, for [`BotProcess::answer`] to finish on the runtime,
//! which from there does what it always does: its run-queue figures are taken at once (the
//! runtime took them 1 to 2 ms after the prompt; here up to [`QUICK_WAIT`]: a time-out's first
//! moments are left out of the starvation sum, which only makes its rule stricter) for the
//! starvation check, its time limit and fault are the same, and what was read here waits in the
//! line reader's buffer. So an answer read here is judged exactly as one read there, with no
//! starvation figures (none are taken for a quick answer).

use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::{Asked, BotProcess};
use crate::lines::MAX_LINE;
use crate::lines::ReadEvent;
use crate::starvation::SAMPLE_AFTER;
use crate::{Answer, BotError, Clock};

/// The runtime's timer counts in milliseconds and rounds a deadline up to the next, so the
/// runtime's wait took its run-queue sample 1 to 2 ms after the prompt, not at [`SAMPLE_AFTER`]
/// exactly. The quick wait lasts at least as long: an answer that comes in that second millisecond is
/// read here too, and costs no `/proc` reads, as it cost none on the runtime.
const TIMER_TICK: Duration = Duration::from_millis(1);

/// The longest quick wait. A wait that ends before the kernel's next scheduler tick (every 4 ms
/// at 250 Hz) arms the earliest timer of its CPU, and arming it and cancelling it when the
/// answer wakes the wait each reprogram the CPU's timer device, which in a virtual machine is
/// a trap to the hypervisor: through the rat race's pipe, a wait of 2 ms cost koth about 2 µs
/// a turn (a fifth of its side of the pipe), one of 4 ms or more nothing measurable
/// (docs/benchmarks.md, the rat race's sixth pass on the pipe). 5 ms is past the tick at 250 Hz
/// and above.
const QUICK_WAIT: Duration = Duration::from_millis(5);

/// The quick wait takes at most this share of the time allowed, so that a time-out's
/// starvation figures are still taken near its start with a short limit: 5 ms of the rat
/// race's default second.
const QUICK_SHARE: u32 = 200;

/// How long an answer to a prompt that allows `allowed` is waited for here before the runtime
/// takes over: [`QUICK_WAIT`], or less with a short limit, but never less than the runtime's
/// own first wait.
fn quick_wait(allowed: Duration) -> Duration {
    (allowed / QUICK_SHARE).clamp(SAMPLE_AFTER + TIMER_TICK, QUICK_WAIT)
}

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
        let quick = asked.started + quick_wait(allowed).min(wait);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quick_wait_is_past_the_tick_for_long_limits_and_as_before_for_short_ones() {
        let ms = Duration::from_millis;
        // The rat race's default second and the benchmarks' 10 s: past a 250 Hz tick.
        assert_eq!(quick_wait(ms(1_000)), QUICK_WAIT);
        assert_eq!(quick_wait(ms(10_000)), QUICK_WAIT);
        // A share of a shorter limit, never under the runtime's own first wait.
        assert_eq!(quick_wait(ms(600)), ms(3));
        assert_eq!(quick_wait(ms(100)), SAMPLE_AFTER + TIMER_TICK);
        assert_eq!(quick_wait(Duration::ZERO), SAMPLE_AFTER + TIMER_TICK);
    }
}
