//! A connection whose client stops reading is closed: a write the socket has not taken for
//! [`STALLED_WRITE`] fails, which ends the connection. A stream (`/api/games/N/live`) is
//! otherwise held by a client that reads nothing, its response waiting on a full socket for
//! ever; dropped, it resumes by id.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// How long a write may wait for a client to take its bytes.
pub(crate) const STALLED_WRITE: Duration = Duration::from_secs(10);

/// `io`, whose writes fail once one has waited [`STALLED_WRITE`] for the client.
pub(crate) struct Stalled<S> {
    io: S,
    /// Since the first write that found the socket full, until one goes through.
    waiting: Option<Pin<Box<Sleep>>>,
}

impl<S> Stalled<S> {
    pub(crate) fn new(io: S) -> Stalled<S> {
        Stalled { io, waiting: None }
    }

    /// `written`, unless it waits and has waited too long.
    fn waited<T>(
        &mut self,
        cx: &mut Context<'_>,
        written: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match written {
            Poll::Pending => {
                let waiting = self
                    .waiting
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(STALLED_WRITE)));
                match waiting.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client took nothing for too long",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
            ready => {
                self.waiting = None;
                ready
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Stalled<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Stalled<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.io).poll_write(cx, buf);
        self.waited(cx, written)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.waited(cx, written)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let flushed = Pin::new(&mut self.io).poll_flush(cx);
        self.waited(cx, flushed)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
