//! The streams a WASI bot's stdin, stdout and stderr are: its stdin the batches koth feeds it,
//! pending until there is input (which hands the thread back to koth); its stdout cut into
//! answers, its stderr into its author's log.

use std::future::poll_fn;
use std::sync::Arc;
use std::task::Poll;

use bytes::Bytes;
use wasmtime_wasi::cli::{IsTerminal, StdinStream, StdoutStream};
use wasmtime_wasi::p2::{InputStream, OutputStream, Pollable, StreamError, StreamResult};

use super::{PRINTED_AHEAD, Shared, WRITE_PERMIT};
use crate::lines::MAX_LINE;
use crate::{BotError, StderrLog};

/// A bot's stdin: the batches koth feeds it. Reading is pending until there is input or its
/// end, which hands the thread back to koth.
#[derive(Clone)]
pub(super) struct Stdin(pub(super) Arc<Shared>);

#[wasmtime_wasi::async_trait]
impl Pollable for Stdin {
    async fn ready(&mut self) {
        poll_fn(|cx| {
            let mut state = self.0.lock();
            if state.input.is_empty() && !state.closed {
                state.wait(cx.waker());
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
        .await
    }
}

impl InputStream for Stdin {
    fn read(&mut self, size: usize) -> StreamResult<Bytes> {
        let mut state = self.0.lock();
        let offset = state.offset;
        let Some((batch, prompt)) = state.input.front() else {
            if state.closed {
                state.input_ended = true;
                return Err(StreamError::Closed);
            }
            return Ok(Bytes::new());
        };
        let prompt = *prompt && offset == 0;
        let end = batch.len().min(offset + size);
        let bytes = Bytes::copy_from_slice(&batch[offset..end]);
        if end == batch.len() {
            state.input.pop_front();
            state.offset = 0;
        } else {
            state.offset = end;
        }
        state.queued -= bytes.len();
        state.prompt_taken |= prompt;
        state.stream_calls += 1;
        Ok(bytes)
    }
}

impl IsTerminal for Stdin {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdinStream for Stdin {
    fn p2_stream(&self) -> Box<dyn InputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncRead + Send + Sync> {
        // Only WASI preview 3 reads this; koth links preview 1 alone.
        Box::new(tokio::io::empty())
    }
}

/// A bot's stdout or stderr: stdout is cut into lines for koth, stderr goes to its capped log.
#[derive(Clone)]
pub(super) enum Output {
    Stdout(Arc<Shared>),
    Stderr(Arc<Shared>, StderrLog),
}

#[wasmtime_wasi::async_trait]
impl Pollable for Output {
    /// Stdout is pending once right after an answer, so that koth has it at once (the bot
    /// goes on when koth next gives it the thread), and while koth has not taken
    /// [`PRINTED_AHEAD`] lines.
    async fn ready(&mut self) {
        let Output::Stdout(shared) = self else {
            return;
        };
        poll_fn(|cx| {
            let mut state = shared.lock();
            if std::mem::take(&mut state.yield_once) {
                cx.waker().wake_by_ref();
                Poll::Pending
            } else if state.printed.len() >= PRINTED_AHEAD {
                state.wait(cx.waker());
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
        .await
    }
}

impl OutputStream for Output {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        match self {
            Output::Stdout(shared) => {
                let mut state = shared.lock();
                state.written += bytes.len() as u64;
                state.stream_calls += 1;
                state.stdout_written |= !bytes.is_empty();
                let mut rest = &bytes[..];
                while let Some(end) = memchr::memchr(b'\n', rest) {
                    let mut line = std::mem::take(&mut state.partial);
                    line.extend_from_slice(&rest[..end]);
                    rest = &rest[end + 1..];
                    if std::mem::take(&mut state.overlong) {
                        continue;
                    }
                    let line = line.strip_suffix(b"\r").unwrap_or(&line);
                    let line = if line.len() > MAX_LINE {
                        Err(BotError::LineTooLong { max: MAX_LINE })
                    } else {
                        String::from_utf8(line.to_vec()).map_err(|_| BotError::NotUtf8)
                    };
                    state.print(line);
                }
                if !state.overlong {
                    state.partial.extend_from_slice(rest);
                    if state.partial.len() > MAX_LINE {
                        state.partial = Vec::new();
                        state.overlong = true;
                        state.print(Err(BotError::LineTooLong { max: MAX_LINE }));
                    }
                }
            }
            Output::Stderr(shared, log) => {
                let mut state = shared.lock();
                state.written += bytes.len() as u64;
                state.stream_calls += 1;
                drop(state);
                log.write(&bytes);
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(WRITE_PERMIT)
    }
}

impl IsTerminal for Output {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for Output {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        // Only WASI preview 3 writes here; koth links preview 1 alone.
        Box::new(tokio::io::sink())
    }
}
