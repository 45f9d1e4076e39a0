//! A bot's stdout cut into answer lines, bounded in length and safe to cancel at any await.

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
    fn take_line(&mut self) -> Option<ReadEvent> {
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
            // Without a readiness event since the last read this returns at once, with no
            // system call: tokio knows the pipe was drained.
            match self.read_more().now_or_never() {
                Some(Ok(n)) if n > 0 => {}
                _ => return,
            }
        }
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
        let read = self.pipe.read_buf(&mut self.buf).await;
        self.written |= matches!(read, Ok(n) if n > 0);
        read
    }
}
