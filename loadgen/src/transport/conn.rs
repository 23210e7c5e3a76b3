//! A stream adapter that batches writes, over plain TCP or TLS ([`Stream`]).
//!
//! fastwebsockets writes each frame with `write_all`; through this adapter those writes
//! only append to an in-memory buffer. The buffer goes to the socket, in one `write`
//! system call when the socket accepts it:
//! - on `flush`, and
//! - at the start of every `poll_read`, i.e. before the task waits for more input, so all
//!   frames produced while handling one read batch leave in one system call.
//!
//! The buffer is an [`OutQueue`]: large message bodies pre-masked by the load generator
//! sit in it as shared slices and leave through `writev` without a user-space copy.
//!
//! permessage-deflate ([`Conn::enable_deflate`], once the upgrade agreed to it; see
//! [`crate::protocol::deflate_wire`]): reads go through a [`FrameInflater`], which inflates
//! the peer's compressed messages before fastwebsockets parses the frames; the client
//! compresses the data messages it encodes into its outbox ([`Outgoing`]); the server
//! compresses the data frames fastwebsockets writes ([`FrameDeflater`]). A connection that
//! did not agree reads and writes exactly as without the extension (one `Option` test).
//!
//! Two roles differ in how they wait for the socket:
//! - [`Side::Client`] never waits for a write: `flush` is best effort (whatever the
//!   socket does not take now is sent by the next `poll_read`). A client that blocked on
//!   a write while the server blocked on writing replies would deadlock; the amount
//!   buffered is bounded by the messages in flight. A client that writes and then stops
//!   reading must `shutdown` (which waits until every pending byte is out): after `flush`
//!   alone, what the socket did not take stays in the buffer.
//! - [`Side::Server`] applies backpressure: once [`SERVER_HIGH_WATER`] bytes are pending,
//!   writes wait until the socket drains, `flush` waits for everything, and reading stops
//!   while that much output is pending. A write of at least [`SERVER_DIRECT_WRITE`] bytes
//!   (a large frame) goes to the socket at once, in one `writev` behind what is pending,
//!   and only what the socket does not take is queued: a large frame costs one kernel
//!   copy, not a user-space copy as well (at 64 KiB that copy was most of the reference
//!   server's CPU).
//!
//! Over TLS ([`Stream::TlsClient`], [`Stream::TlsServer`]) the same batching applies to
//! the plaintext: what leaves in one system call is one `writev` of TLS records, rustls
//! having encrypted the batch (one record per 16 KiB). rustls keeps the records the
//! socket did not take; they leave with the next write, and before every read (as the
//! pending bytes do), so a client whose socket was full never waits for a reply to a
//! message still in rustls. The receive low-water mark is set on the TCP socket
//! underneath, where it counts **ciphertext** bytes: each TLS record adds 22 bytes (TLS
//! 1.3 with AES-GCM: 5 of header, 1 of content type, 16 of tag) to what it carries, so a
//! mark of N bytes wakes the reader with less than N bytes of plaintext queued (with
//! small records, much less), never later than it would on plain TCP. The mark is not
//! scaled. A message's last bytes behind the mark wait for more data exactly as on plain
//! TCP (which is why only `stream`'s duration mode sets a mark, while the server pushes
//! without pause).

use std::io;
use std::io::IoSlice;
use std::os::fd::AsRawFd;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{ready, Context, Poll};
use std::time::{Duration, Instant};

use fastwebsockets::OpCode;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use crate::protocol::deflate::{Agreed, DeflateError, Inflater};
use crate::protocol::deflate_wire::{
    write_header, DeflateRun, FrameDeflater, FrameInflater, MessageDeflater,
};
use crate::protocol::ws::{encode_client_frame, MAX_MESSAGE_SIZE};
use crate::transport::outqueue::{OutQueue, MAX_IOV};
use crate::transport::stream::Stream;

/// Pending output (bytes) above which a [`Side::Server`] connection waits for the socket.
pub const SERVER_HIGH_WATER: usize = 64 * 1024;

/// Server side: writes of at least this many bytes (one frame, header and payload) go to
/// the socket at once, behind what is pending, instead of being copied into the queue.
pub const SERVER_DIRECT_WRITE: usize = 16 * 1024;

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
/// fastwebsockets' per-frame write path). `flush`, a read, or a frame fastwebsockets
/// writes (which goes after them) moves them into the connection's buffer, so they leave
/// in the same system call as anything fastwebsockets queued.
pub type Outbox = Arc<Mutex<Outgoing>>;

/// What a client's outbox holds: the encoded frames waiting for the next flush or read
/// and, once permessage-deflate is agreed, the compressor every data message goes
/// through. Both under the outbox's one lock: messages leave in the order they were
/// compressed, which context takeover depends on.
#[derive(Debug, Default)]
pub struct Outgoing {
    /// Frames waiting for the next flush or read.
    pub queue: OutQueue,
    /// The connection's compressor, when permessage-deflate was agreed.
    pub deflate: Option<MessageDeflater>,
}

impl Outgoing {
    /// Appends one data message as a masked client frame (FIN set): `prefix`, then (if
    /// given) message `seq` (`seq_hex` followed by `template[16..]`), then `suffix`, as
    /// [`encode_client_frame`] lays it out; compressed, with RSV1 set, when
    /// permessage-deflate was agreed.
    pub fn data_frame(
        &mut self,
        opcode: OpCode,
        prefix: &[u8],
        message: Option<(&[u8; 16], &[u8])>,
        suffix: &[u8],
        mask: [u8; 4],
    ) {
        let tail = self.queue.tail();
        let before = tail.len();
        match &mut self.deflate {
            Some(d) => d.encode(tail, opcode as u8, prefix, message, suffix, mask),
            None => encode_client_frame(tail, opcode, prefix, message, suffix, mask),
        }
        let n = tail.len() - before;
        self.queue.commit(n);
    }
}

/// A handle on a connection's socket that sets its receive low-water mark (`SO_RCVLOWAT`,
/// socket(7)): the socket reports readable only once that many bytes are queued, so a
/// reader that keeps up with a fast sender wakes once per batch instead of once per
/// segment. The handle holds no descriptor of its own (one descriptor per connection
/// matters at 10,000 connections): it records the mark asked for, and the [`Conn`] sets
/// it on its socket before its next read system call. Over TLS the mark is set on the
/// TCP socket underneath and counts ciphertext bytes (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct RecvLowWater(Arc<AtomicUsize>);

impl RecvLowWater {
    /// Asks for a low-water mark of `bytes` (1 restores the default: readable as soon as
    /// any byte is queued). Linux caps it at half the receive buffer. Best effort: the
    /// connection sets it before its next read and ignores a `setsockopt` error (without
    /// the mark the reader only wakes more often).
    pub fn set(&self, bytes: usize) {
        self.0.store(bytes.max(1), Ordering::Relaxed);
    }
}

/// Sets `SO_RCVLOWAT` on `io` to `bytes`.
fn set_recv_low_water(io: &TcpStream, bytes: usize) -> io::Result<()> {
    let value = libc::c_int::try_from(bytes.max(1)).unwrap_or(libc::c_int::MAX);
    // SAFETY: a valid descriptor, a pointer to a live c_int and its size.
    let rc = unsafe {
        libc::setsockopt(
            io.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVLOWAT,
            (&value as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Serves a read from `pre[*pos..]`, the bytes that arrived with the HTTP upgrade, and
/// frees them once all are read; returns false (nothing read) when none are left.
pub(crate) fn read_leftover(pre: &mut Vec<u8>, pos: &mut usize, buf: &mut ReadBuf<'_>) -> bool {
    if *pos >= pre.len() {
        return false;
    }
    let n = buf.remaining().min(pre.len() - *pos);
    buf.put_slice(&pre[*pos..*pos + n]);
    *pos += n;
    if *pos == pre.len() {
        *pre = Vec::new();
        *pos = 0;
    }
    true
}

/// Buffered, write-batching wrapper around a [`Stream`] (plain TCP or TLS); see the
/// module documentation.
pub struct Conn {
    io: Stream,
    /// Bytes that arrived with the HTTP upgrade and belong to the WebSocket stream.
    pre: Vec<u8>,
    pre_pos: usize,
    out: OutQueue,
    side: Side,
    clock: Arc<ReadClock>,
    outbox: Option<Outbox>,
    /// Receive low-water mark asked for through [`RecvLowWater`] (0: never asked).
    low_water: RecvLowWater,
    /// The mark last set on the socket (0: the default).
    low_water_set: usize,
    /// permessage-deflate, when agreed (boxed: most connections have none).
    deflate: Option<Box<ConnDeflate>>,
}

/// A connection's permessage-deflate state (see the module documentation).
struct ConnDeflate {
    read: FrameInflater,
    /// Server side: compresses the data frames fastwebsockets writes.
    write: Option<FrameDeflater>,
    /// Where the client's counts go when the connection ends.
    run: Option<Arc<DeflateRun>>,
    /// Why the connection failed: every read from then on returns it.
    failed: Option<DeflateError>,
    /// The socket reached end of stream.
    eof: bool,
}

impl Drop for ConnDeflate {
    fn drop(&mut self) {
        if let Some(run) = &self.run {
            run.add_received(self.read.flow());
        }
    }
}

impl Conn {
    /// Wraps `io` (a [`TcpStream`] or a [`Stream`]); `leftover` are bytes already read
    /// past the HTTP handshake.
    pub fn new(io: impl Into<Stream>, leftover: Vec<u8>, side: Side) -> Self {
        Conn {
            io: io.into(),
            pre: leftover,
            pre_pos: 0,
            out: OutQueue::new(),
            side,
            clock: Arc::new(ReadClock::new()),
            outbox: (side == Side::Client).then(|| Arc::new(Mutex::new(Outgoing::default()))),
            low_water: RecvLowWater::default(),
            low_water_set: 0,
            deflate: None,
        }
    }

    /// Turns permessage-deflate on, as `agreed` (before anything is read or written
    /// through the WebSocket): reads inflate the peer's compressed messages; a client's
    /// outbox compresses the data messages encoded into it, counting into `run`; a
    /// server compresses the data frames it writes.
    pub fn enable_deflate(&mut self, agreed: &Agreed, run: Option<Arc<DeflateRun>>) {
        let (inflater, write) = match self.side {
            Side::Client => (Inflater::client(agreed, MAX_MESSAGE_SIZE), None),
            Side::Server => (
                Inflater::server(agreed, MAX_MESSAGE_SIZE),
                Some(FrameDeflater::server(agreed)),
            ),
        };
        if let Some(outbox) = &self.outbox {
            let mut ob = outbox.lock().unwrap_or_else(|e| e.into_inner());
            ob.deflate = Some(MessageDeflater::client(agreed, run.clone()));
        }
        let mut d = ConnDeflate {
            read: FrameInflater::new(inflater),
            write,
            run,
            failed: None,
            eof: false,
        };
        let leftover = std::mem::take(&mut self.pre);
        let fed = d.read.feed(&leftover[self.pre_pos..]);
        self.pre_pos = 0;
        self.deflate = Some(Box::new(d));
        if let Err(e) = fed {
            self.fail(e);
        }
    }

    /// Whether permessage-deflate is on.
    pub fn deflating(&self) -> bool {
        self.deflate.is_some()
    }

    /// Fails the connection after `e` in the peer's data (RFC 6455 §7.1.7): queues a close
    /// frame with the error's code ([`DeflateError::close_code`]), counts the failure, and
    /// makes every read from now on return `e`.
    fn fail(&mut self, e: DeflateError) {
        let code = e.close_code().to_be_bytes();
        let mut close = Vec::with_capacity(8);
        match self.side {
            Side::Client => {
                let mask = [0x5a, 0xa5, 0x3c, 0xc3];
                write_header(&mut close, 0x88, 2, Some(mask));
                close.extend_from_slice(&[code[0] ^ mask[0], code[1] ^ mask[1]]);
            }
            Side::Server => {
                write_header(&mut close, 0x88, 2, None);
                close.extend_from_slice(&code);
            }
        }
        self.take_outbox();
        self.out.extend_from_slice(&close);
        if let Some(d) = self.deflate.as_mut() {
            if let Some(run) = &d.run {
                run.inflate_failed(&e);
            }
            d.failed = Some(e);
        }
    }

    /// The stream and the bytes read past the HTTP upgrade not yet consumed; anything
    /// written but not yet sent is dropped (call after a flush). Not with
    /// permessage-deflate (its bytes read ahead would be lost).
    pub fn into_parts(self) -> (Stream, Vec<u8>) {
        debug_assert!(self.deflate.is_none(), "into_parts with permessage-deflate");
        let pre = self.pre[self.pre_pos..].to_vec();
        (self.io, pre)
    }

    /// The client's outbox (`None` on the server side).
    pub fn outbox(&self) -> Option<Outbox> {
        self.outbox.clone()
    }

    /// Moves frames from the outbox to the end of the write buffer (a client's, before
    /// anything fastwebsockets writes: frames leave in the order they were queued, e.g. a
    /// Socket.IO pong queued before the close frame).
    fn take_outbox(&mut self) {
        let Some(outbox) = &self.outbox else {
            return;
        };
        let mut ob = outbox.lock().unwrap_or_else(|e| e.into_inner());
        if ob.queue.is_empty() {
            return;
        }
        self.out.append(&mut ob.queue);
    }

    /// A handle that sets this socket's receive low-water mark (before the next read).
    pub fn recv_low_water(&self) -> RecvLowWater {
        self.low_water.clone()
    }

    /// The clock stamped at every read system call that returns data.
    pub fn read_clock(&self) -> Arc<ReadClock> {
        self.clock.clone()
    }

    /// Bytes written by the WebSocket layer but not yet accepted by the socket.
    pub fn pending(&self) -> usize {
        self.out.len()
    }

    /// Writes pending bytes until all are out (`Ready(Ok)`) or the socket is full (`Pending`).
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.out.is_empty() {
            let mut slices = [IoSlice::new(&[]); MAX_IOV];
            let k = self.out.io_slices(&mut slices);
            let n = ready!(Pin::new(&mut self.io).poll_write_vectored(cx, &slices[..k]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.out.advance(n);
        }
        Poll::Ready(Ok(()))
    }

    /// Server side, a large write: writes what is pending followed by `bufs` in one
    /// `writev`, without waiting, and returns how many bytes of `bufs` the socket took; 0
    /// when the socket is full or the pending bytes did not all go (the caller queues the
    /// rest, in order).
    ///
    /// # Errors
    /// The socket's write error.
    fn write_direct(&mut self, cx: &mut Context<'_>, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        let mut slices = [IoSlice::new(&[]); MAX_IOV];
        let room = MAX_IOV.saturating_sub(bufs.len());
        let k = self.out.io_slices(&mut slices[..room]);
        let queued: usize = slices[..k].iter().map(|s| s.len()).sum();
        if queued < self.pending() {
            // More parts than one call takes: keep the order by queueing behind them.
            return Ok(0);
        }
        let n_bufs = bufs.len().min(MAX_IOV - k);
        slices[k..k + n_bufs].copy_from_slice(&bufs[..n_bufs]);
        match Pin::new(&mut self.io).poll_write_vectored(cx, &slices[..k + n_bufs]) {
            Poll::Ready(Ok(n)) => {
                self.out.advance(n.min(queued));
                Ok(n.saturating_sub(queued))
            }
            Poll::Ready(Err(e)) => Err(e),
            Poll::Pending => Ok(0),
        }
    }

    /// Server side: wait for room before accepting more output.
    fn poll_room(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.side == Side::Server && self.pending() >= SERVER_HIGH_WATER {
            ready!(self.poll_drain(cx))?;
        }
        Poll::Ready(Ok(()))
    }
}

impl Conn {
    /// What every read does first: frames queued in the outbox while the read was pending
    /// (a fixed-rate sender queues there rather than cancel the read) leave before the
    /// task waits again, as do TLS records rustls still holds, and the receive low-water
    /// mark asked for is set. `Pending`: a server with too much output pending reads
    /// nothing until it drains.
    #[inline]
    fn before_read(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.take_outbox();
        if self.pending() > 0 {
            match self.poll_drain(cx) {
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) => {}
                Poll::Pending => {
                    if self.side == Side::Server && self.pending() >= SERVER_HIGH_WATER {
                        return Poll::Pending;
                    }
                }
            }
        }
        // TLS only (plain TCP buffers nothing): `Pending` has asked to be woken when the
        // socket has room, and the read goes on meanwhile.
        if let Poll::Ready(Err(e)) = self.io.poll_flush_tls(cx) {
            return Poll::Ready(Err(e));
        }
        let want = self.low_water.0.load(Ordering::Relaxed);
        if want != self.low_water_set {
            self.low_water_set = want;
            // Best effort, see `RecvLowWater::set`.
            let _ = set_recv_low_water(self.io.tcp(), want);
        }
        Poll::Ready(Ok(()))
    }

    /// `poll_read` with permessage-deflate: hands on the frames the [`FrameInflater`] has
    /// rewritten, reading the socket into it when it has none.
    fn poll_read_deflate(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            let d = self.deflate.as_mut().expect("permessage-deflate is on");
            if d.read.pending() > 0 {
                let n = d.read.take_into(buf);
                debug_assert!(n > 0 || buf.remaining() == 0);
                return Poll::Ready(Ok(()));
            }
            if let Some(e) = &d.failed {
                let e = io::Error::new(io::ErrorKind::InvalidData, e.clone());
                // Best effort: the close frame that fails the connection.
                let _ = self.poll_drain(cx);
                return Poll::Ready(Err(e));
            }
            if d.eof {
                return Poll::Ready(Ok(()));
            }
            ready!(self.before_read(cx))?;
            let d = self.deflate.as_mut().expect("permessage-deflate is on");
            let mut room = ReadBuf::new(d.read.room());
            ready!(Pin::new(&mut self.io).poll_read(cx, &mut room))?;
            let n = room.filled().len();
            if n == 0 {
                d.eof = true;
                continue;
            }
            if self.side == Side::Client {
                self.clock.stamp();
            }
            if let Err(e) = d.read.filled(n) {
                self.fail(e);
            }
        }
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.deflate.is_some() {
            return this.poll_read_deflate(cx, buf);
        }
        if read_leftover(&mut this.pre, &mut this.pre_pos, buf) {
            return Poll::Ready(Ok(()));
        }
        ready!(this.before_read(cx))?;
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
        // Frames queued in the outbox before this write go first.
        this.take_outbox();
        if let Some(w) = this.deflate.as_mut().and_then(|d| d.write.as_mut()) {
            w.write(&[IoSlice::new(buf)], &mut this.out);
            return Poll::Ready(Ok(buf.len()));
        }
        this.out.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_room(cx))?;
        this.take_outbox();
        let total: usize = bufs.iter().map(|b| b.len()).sum();
        if let Some(w) = this.deflate.as_mut().and_then(|d| d.write.as_mut()) {
            w.write(bufs, &mut this.out);
            return Poll::Ready(Ok(total));
        }
        let mut written = 0;
        if this.side == Side::Server && total >= SERVER_DIRECT_WRITE {
            written = this.write_direct(cx, bufs)?;
        }
        for b in bufs {
            let skip = written.min(b.len());
            written -= skip;
            this.out.extend_from_slice(&b[skip..]);
        }
        Poll::Ready(Ok(total))
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
                // TLS: the records rustls holds, as far as the socket takes them.
                Poll::Ready(Ok(())) => match this.io.poll_flush_tls(cx) {
                    Poll::Pending => Poll::Ready(Ok(())),
                    r => r,
                },
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    /// Small writes queued, then large writes that go out directly, against a reader slow
    /// enough to fill a small send buffer (so some direct writes are partial): the bytes
    /// arrive complete and in order.
    #[test]
    fn large_server_writes_keep_order_through_partial_writes() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let mut client = TcpStream::connect(addr).await.unwrap();
            let (server, _) = listener.accept().await.unwrap();
            let size: libc::c_int = 16 * 1024;
            // SAFETY: a valid socket descriptor and a c_int option value of the right size.
            let rc = unsafe {
                libc::setsockopt(
                    server.as_raw_fd(),
                    libc::SOL_SOCKET,
                    libc::SO_SNDBUF,
                    (&size as *const libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                )
            };
            assert_eq!(rc, 0);
            let mut expected = Vec::new();
            let mut parts: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
            for i in 0..200u32 {
                let small = format!("head{i:05}").into_bytes();
                let body: Vec<u8> = (0..40_000u32).map(|j| (i * 7 + j) as u8).collect();
                expected.extend_from_slice(&small);
                expected.extend_from_slice(&small);
                expected.extend_from_slice(&body);
                parts.push((small, body));
            }
            let total = expected.len();
            let writer = tokio::spawn(async move {
                let mut conn = Conn::new(server, Vec::new(), Side::Server);
                for (small, body) in &parts {
                    conn.write_all(small).await.unwrap();
                    let bufs = [IoSlice::new(small), IoSlice::new(body)];
                    let n = conn.write_vectored(&bufs).await.unwrap();
                    assert_eq!(n, small.len() + body.len(), "a write is taken whole");
                    assert!(conn.pending() < SERVER_HIGH_WATER + n);
                }
                conn.flush().await.unwrap();
                conn.shutdown().await.unwrap();
            });
            let mut got = Vec::with_capacity(total);
            let mut chunk = vec![0u8; 4096];
            loop {
                let n = client.read(&mut chunk).await.unwrap();
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&chunk[..n]);
                tokio::task::yield_now().await;
            }
            writer.await.unwrap();
            assert_eq!(got.len(), total);
            assert!(got == expected, "bytes reordered or corrupted");
        });
    }
}
