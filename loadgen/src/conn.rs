//! A TCP stream adapter that batches writes.
//!
//! fastwebsockets writes each frame with `write_all`; through this adapter those writes
//! only append to an in-memory buffer. The buffer goes to the socket, in one `write`
//! system call when the socket accepts it:
//! - on `flush`, and
//! - at the start of every `poll_read`, i.e. before the task waits for more input, so all
//!   frames produced while handling one read batch leave in one system call.
//!
//! Two roles differ in how they wait for the socket:
//! - [`Side::Client`] never waits for a write: `flush` is best effort (whatever the
//!   socket does not take now is sent by the next `poll_read`). A client that blocked on
//!   a write while the server blocked on writing replies would deadlock; the amount
//!   buffered is bounded by the messages in flight.
//! - [`Side::Server`] applies backpressure: once [`SERVER_HIGH_WATER`] bytes are pending,
//!   writes wait until the socket drains, `flush` waits for everything, and reading stops
//!   while that much output is pending.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{ready, Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// Pending output (bytes) above which a [`Side::Server`] connection waits for the socket.
pub const SERVER_HIGH_WATER: usize = 64 * 1024;

/// Which end of the connection the adapter serves; see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Load generator: never waits on writes.
    Client,
    /// Server: writes wait (backpressure) once [`SERVER_HIGH_WATER`] bytes are pending.
    Server,
}

/// The instant of a connection's most recent successful read system call, shared between
/// the [`Conn`] (which sets it) and the code reading messages (which uses it as the
/// arrival time of every message parsed from that read): one clock read per read system
/// call instead of one per message.
#[derive(Debug)]
pub struct ReadClock {
    base: Instant,
    /// Nanoseconds after `base`.
    ns: AtomicU64,
}

impl ReadClock {
    fn new() -> Self {
        ReadClock {
            base: Instant::now(),
            ns: AtomicU64::new(0),
        }
    }

    fn stamp(&self) {
        let ns = self.base.elapsed().as_nanos() as u64;
        self.ns.store(ns, Ordering::Relaxed);
    }

    /// Instant of the last read that returned data (creation time before any).
    #[inline]
    pub fn last_read(&self) -> Instant {
        self.base + Duration::from_nanos(self.ns.load(Ordering::Relaxed))
    }
}

/// Client side: encoded frames written directly by the load generator (bypassing
/// fastwebsockets' per-frame write path). `flush` moves them into the connection's
/// buffer, so they leave in the same system call as anything fastwebsockets queued.
pub type Outbox = Arc<Mutex<Vec<u8>>>;

/// Buffered, write-batching wrapper around a [`TcpStream`]; see the module documentation.
pub struct Conn {
    io: TcpStream,
    /// Bytes that arrived with the HTTP upgrade and belong to the WebSocket stream.
    pre: Vec<u8>,
    pre_pos: usize,
    wbuf: Vec<u8>,
    wpos: usize,
    side: Side,
    clock: Arc<ReadClock>,
    outbox: Option<Outbox>,
}

impl Conn {
    /// Wraps `io`; `leftover` are bytes already read past the HTTP handshake.
    pub fn new(io: TcpStream, leftover: Vec<u8>, side: Side) -> Self {
        Conn {
            io,
            pre: leftover,
            pre_pos: 0,
            wbuf: Vec::with_capacity(16 * 1024),
            wpos: 0,
            side,
            clock: Arc::new(ReadClock::new()),
            outbox: (side == Side::Client)
                .then(|| Arc::new(Mutex::new(Vec::with_capacity(16 * 1024)))),
        }
    }

    /// The client's outbox (`None` on the server side).
    pub fn outbox(&self) -> Option<Outbox> {
        self.outbox.clone()
    }

    /// Moves frames from the outbox to the write buffer (swapping when it is empty).
    fn take_outbox(&mut self) {
        let Some(outbox) = &self.outbox else {
            return;
        };
        let mut ob = outbox.lock().unwrap_or_else(|e| e.into_inner());
        if ob.is_empty() {
            return;
        }
        if self.wpos == self.wbuf.len() {
            self.wbuf.clear();
            self.wpos = 0;
            std::mem::swap(&mut self.wbuf, &mut *ob);
        } else {
            self.wbuf.extend_from_slice(&ob);
            ob.clear();
        }
    }

    /// The clock stamped at every read system call that returns data.
    pub fn read_clock(&self) -> Arc<ReadClock> {
        self.clock.clone()
    }

    /// Bytes written by the WebSocket layer but not yet accepted by the socket.
    pub fn pending(&self) -> usize {
        self.wbuf.len() - self.wpos
    }

    fn append(&mut self, data: &[u8]) {
        if self.wpos == self.wbuf.len() {
            self.wbuf.clear();
            self.wpos = 0;
        } else if self.wpos >= self.wbuf.len() / 2 && self.wpos > 64 * 1024 {
            self.wbuf.drain(..self.wpos);
            self.wpos = 0;
        }
        self.wbuf.extend_from_slice(data);
    }

    /// Writes pending bytes until all are out (`Ready(Ok)`) or the socket is full (`Pending`).
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.wpos < self.wbuf.len() {
            let n = ready!(Pin::new(&mut self.io).poll_write(cx, &self.wbuf[self.wpos..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.wpos += n;
        }
        self.wbuf.clear();
        self.wpos = 0;
        Poll::Ready(Ok(()))
    }

    /// Server side: wait for room before accepting more output.
    fn poll_room(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.side == Side::Server && self.pending() >= SERVER_HIGH_WATER {
            ready!(self.poll_drain(cx))?;
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.pre_pos < this.pre.len() {
            let n = buf.remaining().min(this.pre.len() - this.pre_pos);
            buf.put_slice(&this.pre[this.pre_pos..this.pre_pos + n]);
            this.pre_pos += n;
            if this.pre_pos == this.pre.len() {
                this.pre = Vec::new();
                this.pre_pos = 0;
            }
            return Poll::Ready(Ok(()));
        }
        if this.pending() > 0 {
            match this.poll_drain(cx) {
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) => {}
                Poll::Pending => {
                    if this.side == Side::Server && this.pending() >= SERVER_HIGH_WATER {
                        return Poll::Pending;
                    }
                }
            }
        }
        let before = buf.filled().len();
        let r = Pin::new(&mut this.io).poll_read(cx, buf);
        if this.side == Side::Client && buf.filled().len() > before {
            this.clock.stamp();
        }
        r
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_room(cx))?;
        this.append(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_room(cx))?;
        let mut n = 0;
        for b in bufs {
            this.append(b);
            n += b.len();
        }
        Poll::Ready(Ok(n))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.take_outbox();
        match this.side {
            Side::Server => {
                ready!(this.poll_drain(cx))?;
                Pin::new(&mut this.io).poll_flush(cx)
            }
            Side::Client => match this.poll_drain(cx) {
                Poll::Pending => Poll::Ready(Ok(())),
                r => r,
            },
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        this.take_outbox();
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.io).poll_shutdown(cx)
    }
}
