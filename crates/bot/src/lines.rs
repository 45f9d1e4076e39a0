//! A bot's stdout cut into answer lines, bounded in length and safe to cancel at any await.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd};

use futures::FutureExt;
use tokio::io::AsyncReadExt;
use tokio::process::ChildStdout;

use super::Unanswered;

/// The longest answer line accepted, in bytes. Longer lines are a fault: no protocol of koth's
/// needs more, and the cap bounds memory against a bot that never prints a newline.
pub(crate) const MAX_LINE: usize = 1 << 20;

/// What reading a bot's stdout gives: a line, or the reason reading stopped.
pub(super) enum ReadEvent {
    Line(String),
    TooLong,
    NotUtf8,
    Closed,
}

/// A bot's stdout, cut into lines. Bytes read but not yet taken as a line wait in `buf`, so
/// [`LineReader::next`] can be cancelled at any await without losing anything.
pub(super) struct LineReader {
    pipe: ChildStdout,
    buf: Vec<u8>,
    /// How much of `buf` is known to hold no newline, so a long line is searched once.
    scanned: usize,
    /// Whether the bot has written anything at all.
    written: bool,
    /// Whether its answers are read with no runtime ([`LineReader::read_now`]): the runtime
    /// then never learns the pipe's state, so looking for unasked lines reads the pipe itself,
    /// unless it is `drained`.
    direct: bool,
    /// Whether the last read left the pipe empty, as tokio knows it does: it took less than
    /// there was room for. Looking for unasked lines then reads nothing, as with the runtime.
    drained: bool,
}

/// Room made in a [`LineReader`]'s buffer before each read: one read takes an answer line,
/// however many arrived, without zeroing a large buffer for every process started.
const READ_CHUNK: usize = 4096;

impl LineReader {
    pub(super) fn new(pipe: ChildStdout) -> LineReader {
        LineReader {
            pipe,
            buf: Vec::new(),
            scanned: 0,
            written: false,
            direct: false,
            drained: false,
        }
    }

    /// The next line, waiting for it. Cancel-safe, as [`LineReader::read_more`] is.
    pub(super) async fn next(&mut self) -> ReadEvent {
        loop {
            if let Some(event) = self.take_line() {
                return event;
            }
            if self.buf.len() > MAX_LINE {
                return ReadEvent::TooLong;
            }
            match self.read_more().await {
                Ok(0) | Err(_) => return ReadEvent::Closed,
                Ok(_) => {}
            }
        }
    }

    /// A complete line already read, if there is one.
    pub(super) fn take_line(&mut self) -> Option<ReadEvent> {
        let Some(found) = memchr::memchr(b'\n', &self.buf[self.scanned..]) else {
            self.scanned = self.buf.len();
            return None;
        };
        let end = self.scanned + found;
        let line = &self.buf[..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let event = if line.len() > MAX_LINE {
            ReadEvent::TooLong
        } else {
            match std::str::from_utf8(line) {
                Ok(text) => ReadEvent::Line(text.to_owned()),
                Err(_) => ReadEvent::NotUtf8,
            }
        };
        self.buf.drain(..=end);
        self.scanned = 0;
        Some(event)
    }

    /// Drops every complete line the bot printed without being asked, including what the pipe
    /// holds right now, without waiting: the next line read is then the answer to the next
    /// prompt. A strict request/answer protocol has no use for such lines, and the original
    /// controllers would have desynchronised instead.
    /// Each line dropped goes to `dropped` (without its newline), for the transcript.
    pub(super) fn drop_unasked_lines(&mut self, mut dropped: impl FnMut(&[u8])) {
        // Bounded, for a bot that prints as fast as koth reads.
        for _ in 0..16 {
            if let Some(last) = memchr::memrchr(b'\n', &self.buf) {
                for line in self.buf[..last].split(|&b| b == b'\n') {
                    dropped(line.strip_suffix(b"\r").unwrap_or(line));
                }
                self.buf.drain(..=last);
                self.scanned = 0;
            }
            if self.buf.len() > MAX_LINE {
                return;
            }
            let read = match self.direct {
                true if self.drained => None,
                true => Some(self.read_now()),
                // Without a readiness event since the last read this returns at once, with no
                // system call: tokio knows the pipe was drained.
                false => self.read_more().now_or_never(),
            };
            match read {
                Some(Ok(n)) if n > 0 => {}
                _ => return,
            }
        }
    }

    /// Whether more than a line's worth is waiting without a newline.
    pub(super) fn too_long(&self) -> bool {
        self.buf.len() > MAX_LINE
    }

    /// The pipe, for `poll(2)`.
    pub(super) fn pipe(&self) -> BorrowedFd<'_> {
        self.pipe.as_fd()
    }

    /// Appends what the pipe holds now to the buffer, with no runtime (`Ok(0)` at end of file,
    /// `WouldBlock` when it holds nothing): for a bot whose answers are waited for in `poll(2)`
    /// on the game's own thread. Every read of unasked lines is then a read of the pipe too.
    pub(super) fn read_now(&mut self) -> std::io::Result<usize> {
        self.direct = true;
        self.buf.reserve(READ_CHUNK);
        let spare = self.buf.spare_capacity_mut();
        // SAFETY: `read` writes at most `spare.len()` bytes into the vector's spare capacity,
        // and only the bytes it reports written are then counted as the vector's.
        let n = unsafe {
            nix::libc::read(
                self.pipe.as_raw_fd(),
                spare.as_mut_ptr().cast(),
                spare.len(),
            )
        };
        let room = spare.len();
        let Ok(n) = usize::try_from(n) else {
            let error = std::io::Error::last_os_error();
            self.drained = error.kind() == std::io::ErrorKind::WouldBlock;
            return Err(error);
        };
        // SAFETY: the first `n` bytes of the spare capacity were just written by `read`.
        unsafe { self.buf.set_len(self.buf.len() + n) };
        self.written |= n > 0;
        self.drained = n > 0 && n < room;
        Ok(n)
    }

    /// Reads and throws away everything until end of file: a bot on its way out may still
    /// print, and must not block on a full pipe while koth waits for it to exit.
    pub(super) async fn discard_to_end(&mut self) {
        loop {
            self.buf.clear();
            if !matches!(self.read_more().await, Ok(n) if n > 0) {
                return;
            }
        }
    }

    /// What the bot has written of an answer not come: nothing at all (`flush` is how its
    /// language flushes), or a line without its newline.
    pub(super) fn unanswered(&self, flush: Option<&'static str>) -> Unanswered {
        if !self.written && self.buf.is_empty() {
            Unanswered::Nothing { flush }
        } else if !self.buf.is_empty() {
            Unanswered::Unended {
                start: super::quote(&String::from_utf8_lossy(&self.buf)),
            }
        } else {
            Unanswered::Answered
        }
    }

    /// Appends what the pipe holds to the buffer (`Ok(0)` at end of file). Cancel-safe:
    /// `read_buf` reads nothing when cancelled.
    async fn read_more(&mut self) -> std::io::Result<usize> {
        self.buf.reserve(READ_CHUNK);
        let room = self.buf.capacity() - self.buf.len();
        let read = self.pipe.read_buf(&mut self.buf).await;
        self.written |= matches!(read, Ok(n) if n > 0);
        self.drained = matches!(read, Ok(n) if n > 0 && n < room);
        read
    }
}
