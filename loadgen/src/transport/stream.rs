//! A connection's byte stream: plain TCP, or TLS over TCP (rustls through tokio-rustls,
//! client or server side; see [`crate::transport::tls`]).
//!
//! An enum rather than a type parameter: the [`crate::transport::conn::Conn`] over it,
//! fastwebsockets' `WebSocket<Conn>` and every scenario keep one type, and the plain path
//! costs one well-predicted branch per system call: no extra copy, no allocation per
//! read or write. The TLS streams are boxed (about 1.1 KiB of rustls state each) so that a
//! plain connection stays as small as before (40 bytes, its socket's size).
//!
//! TLS writes: rustls encrypts what it is given into records that it buffers (at most
//! 64 KiB) until the socket takes them. A write that the socket could only partly take
//! returns as written with the rest of its records still in rustls; they leave with the
//! next write or [`AsyncWrite::poll_flush`], which is why the code that writes whole
//! frames to a [`WriteHalf`] flushes after each write, and why
//! [`crate::transport::conn::Conn`] flushes before it waits for input.

use std::io;
use std::io::IoSlice;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio_rustls::{client, server};

/// Plain TCP or TLS over TCP; see the module documentation.
pub enum Stream {
    /// Plain TCP (`ws://`).
    Tcp(TcpStream),
    /// The client side of a TLS connection (`wss://`).
    TlsClient(Box<client::TlsStream<TcpStream>>),
    /// The server side of a TLS connection (`serve --certfile`).
    TlsServer(Box<server::TlsStream<TcpStream>>),
}

impl From<TcpStream> for Stream {
    fn from(tcp: TcpStream) -> Self {
        Stream::Tcp(tcp)
    }
}

impl Stream {
    /// The TCP socket underneath (for socket options such as `SO_RCVLOWAT`, and its
    /// addresses).
    pub fn tcp(&self) -> &TcpStream {
        match self {
            Stream::Tcp(s) => s,
            Stream::TlsClient(s) => s.get_ref().0,
            Stream::TlsServer(s) => s.get_ref().0,
        }
    }

    /// Whether the stream is TLS.
    pub fn is_tls(&self) -> bool {
        !matches!(self, Stream::Tcp(_))
    }

    /// Writes out what TLS still buffers (records encrypted but not yet taken by the
    /// socket): `Ready(Ok)` once none is left, `Pending` while the socket is full (the
    /// task is woken when it has room). Plain TCP buffers nothing: `Ready(Ok)` at once.
    #[inline]
    pub fn poll_flush_tls(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self {
            Stream::Tcp(_) => Poll::Ready(Ok(())),
            Stream::TlsClient(s) => Pin::new(s.as_mut()).poll_flush(cx),
            Stream::TlsServer(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    /// Splits the stream into a reader and a writer that can be used from different
    /// tasks: the socket's own halves for plain TCP (no lock), tokio's lock-sharing halves
    /// for TLS (one rustls session serves both directions).
    pub fn into_split(self) -> (ReadHalf, WriteHalf) {
        match self {
            Stream::Tcp(s) => {
                let (r, w) = s.into_split();
                (ReadHalf::Tcp(r), WriteHalf::Tcp(w))
            }
            tls => {
                let (r, w) = tokio::io::split(tls);
                (ReadHalf::Tls(r), WriteHalf::Tls(w))
            }
        }
    }
}

/// Applies `$call` to whichever stream `$self` holds, pinned.
macro_rules! each {
    ($self:expr, $s:ident => $call:expr) => {
        match $self.get_mut() {
            Stream::Tcp($s) => {
                let $s = Pin::new($s);
                $call
            }
            Stream::TlsClient($s) => {
                let $s = Pin::new($s.as_mut());
                $call
            }
            Stream::TlsServer($s) => {
                let $s = Pin::new($s.as_mut());
                $call
            }
        }
    };
}

impl AsyncRead for Stream {
    #[inline]
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        each!(self, s => s.poll_read(cx, buf))
    }
}

impl AsyncWrite for Stream {
    #[inline]
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        each!(self, s => s.poll_write(cx, buf))
    }

    #[inline]
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        each!(self, s => s.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    #[inline]
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        each!(self, s => s.poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        each!(self, s => s.poll_shutdown(cx))
    }
}

/// The reading half of a split [`Stream`].
pub enum ReadHalf {
    /// Plain TCP: the socket's own read half.
    Tcp(OwnedReadHalf),
    /// TLS: tokio's half, sharing the session with the [`WriteHalf`] behind a lock.
    Tls(tokio::io::ReadHalf<Stream>),
}

/// The writing half of a split [`Stream`]. TLS: write whole frames, then flush (see the
/// module documentation).
pub enum WriteHalf {
    /// Plain TCP: the socket's own write half.
    Tcp(OwnedWriteHalf),
    /// TLS: tokio's half, sharing the session with the [`ReadHalf`] behind a lock.
    Tls(tokio::io::WriteHalf<Stream>),
}

impl AsyncRead for ReadHalf {
    #[inline]
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            ReadHalf::Tcp(r) => Pin::new(r).poll_read(cx, buf),
            ReadHalf::Tls(r) => Pin::new(r).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for WriteHalf {
    #[inline]
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            WriteHalf::Tcp(w) => Pin::new(w).poll_write(cx, buf),
            WriteHalf::Tls(w) => Pin::new(w).poll_write(cx, buf),
        }
    }

    #[inline]
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            WriteHalf::Tcp(w) => Pin::new(w).poll_flush(cx),
            WriteHalf::Tls(w) => Pin::new(w).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            WriteHalf::Tcp(w) => Pin::new(w).poll_shutdown(cx),
            WriteHalf::Tls(w) => Pin::new(w).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The TLS streams are boxed: a plain connection's stream is no larger than its
    /// socket's (about 1.1 KiB of rustls state would otherwise sit in every connection).
    #[test]
    fn a_plain_stream_is_as_small_as_its_socket() {
        let tcp = std::mem::size_of::<TcpStream>();
        assert!(std::mem::size_of::<Stream>() <= tcp + 8);
        assert!(std::mem::size_of::<client::TlsStream<TcpStream>>() > 512);
    }
}
