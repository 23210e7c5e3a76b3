//! permessage-deflate on the wire: the frames of a connection that agreed to it (RFC 7692
//! §6, §7.2), around fastwebsockets, which refuses any frame with RSV1 set.
//!
//! - [`FrameInflater`] (both sides, in [`crate::transport::conn::Conn`]'s reads): parses
//!   the peer's frames before fastwebsockets sees them. A compressed message (RSV1 on its
//!   first frame; its continuations carry the rest of its data) is inflated and handed on
//!   as one unmasked frame with RSV1 clear and its length rewritten; every other frame
//!   (control frames, which may come between fragments; uncompressed messages) goes on as
//!   it came, unmasked. What fastwebsockets reads is then plain RFC 6455, checked by it as
//!   usual (UTF-8 of text, close codes) and by the scenarios byte for byte.
//! - [`MessageDeflater`] (client side, in the connection's outbox,
//!   [`crate::transport::conn::Outgoing`]): compresses each data message the load
//!   generator encodes, sets RSV1 and masks it. The frames leave in the order they were
//!   compressed, which context takeover depends on.
//! - [`FrameDeflater`] (server side, in the reference server's `Conn` writes): compresses
//!   each unfragmented data frame fastwebsockets writes and sets RSV1.
//! - [`DeflateRun`]: what a run's connections did, for the report ([`DeflateReport`]).
//!
//! Nothing here runs on a connection that did not agree to the extension.

use std::io::IoSlice;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::protocol::deflate::{Agreed, DeflateError, Deflater, Inflater, OFFER};
use crate::protocol::ws::{apply_mask, MAX_MESSAGE_SIZE};
use crate::transport::outqueue::OutQueue;

/// FIN bit of a frame's first byte.
const FIN: u8 = 0x80;
/// RSV1 ("per-message compressed") bit of a frame's first byte.
pub const RSV1: u8 = 0x40;
/// Opcodes (RFC 6455 §5.2).
const CONTINUATION: u8 = 0x0;
const TEXT: u8 = 0x1;
const BINARY: u8 = 0x2;

/// The least free room a read into a [`FrameInflater`] is first given, bytes (an idle
/// connection holds no more); doubled, up to [`MAX_READ`], each time a read fills it.
const MIN_READ: usize = 4 * 1024;
/// The most free room a read is given beyond an incomplete frame, bytes.
const MAX_READ: usize = 64 * 1024;

/// Appends a frame header: first byte `b0` (FIN, RSV bits, opcode), payload length `len`
/// and, for a client frame, the masking key (RFC 6455 §5.2).
pub fn write_header(out: &mut Vec<u8>, b0: u8, len: usize, mask: Option<[u8; 4]>) {
    let m = if mask.is_some() { 0x80 } else { 0 };
    out.push(b0);
    if len < 126 {
        out.push(m | len as u8);
    } else if len < 65536 {
        out.push(m | 126);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(m | 127);
        out.extend_from_slice(&(len as u64).to_be_bytes());
    }
    if let Some(key) = mask {
        out.extend_from_slice(&key);
    }
}

/// A frame header parsed from the start of a buffer.
#[derive(Debug, Clone, Copy)]
struct Header {
    /// The first byte: FIN, RSV1-3, opcode.
    b0: u8,
    /// Header length, bytes.
    size: usize,
    /// Payload length, bytes.
    len: usize,
    mask: Option<[u8; 4]>,
}

/// The header at the start of `buf`; `Ok(None)` while it is incomplete.
///
/// # Errors
/// A payload longer than [`MAX_MESSAGE_SIZE`] ([`DeflateError::TooLarge`]).
fn parse_header(buf: &[u8]) -> Result<Option<Header>, DeflateError> {
    let [b0, b1, ..] = *buf else {
        return Ok(None);
    };
    let masked = b1 & 0x80 != 0;
    let (extra, code) = match b1 & 0x7f {
        126 => (2, None),
        127 => (8, None),
        n => (0, Some(n as usize)),
    };
    let size = 2 + extra + if masked { 4 } else { 0 };
    if buf.len() < size {
        return Ok(None);
    }
    let len = match code {
        Some(n) => n,
        None if extra == 2 => u16::from_be_bytes([buf[2], buf[3]]) as usize,
        None => {
            let n = u64::from_be_bytes(buf[2..10].try_into().expect("8 bytes"));
            usize::try_from(n).unwrap_or(usize::MAX)
        }
    };
    if len > MAX_MESSAGE_SIZE {
        return Err(DeflateError::TooLarge(MAX_MESSAGE_SIZE));
    }
    let mask = masked.then(|| {
        let at = 2 + extra;
        [buf[at], buf[at + 1], buf[at + 2], buf[at + 3]]
    });
    Ok(Some(Header {
        b0,
        size,
        len,
        mask,
    }))
}

/// Payload bytes of data messages on the wire and as messages, one direction.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Flow {
    /// Data frames' payload bytes as they travel (compressed; frame headers not counted).
    pub wire_bytes: u64,
    /// The messages' bytes (inflated).
    pub payload_bytes: u64,
    /// Data messages that travelled uncompressed (RSV1 clear).
    pub uncompressed_messages: u64,
}

impl std::ops::AddAssign for Flow {
    fn add_assign(&mut self, o: Self) {
        self.wire_bytes += o.wire_bytes;
        self.payload_bytes += o.payload_bytes;
        self.uncompressed_messages += o.uncompressed_messages;
    }
}

/// Reads one side's incoming frames of a connection that agreed to permessage-deflate and
/// rewrites them for fastwebsockets (see the module documentation).
pub struct FrameInflater {
    inflater: Inflater,
    /// Bytes read from the socket; `buf[start..end]` are not parsed yet (an incomplete
    /// frame). Always initialised up to its length, which only grows: reads go to
    /// `buf[end..]`.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Where the incomplete frame at `start` ends, once its header is known.
    need: usize,
    /// The free room a read is given at least (see [`MIN_READ`]), and the room the last
    /// read was given.
    read_size: usize,
    last_room: usize,
    /// Rewritten frames for fastwebsockets; `out[out_pos..]` not read yet.
    out: Vec<u8>,
    out_pos: usize,
    /// A compressed message whose first frames have arrived: its first byte (opcode)
    /// and its compressed data so far.
    partial: Option<(u8, Vec<u8>)>,
    /// An uncompressed fragmented message is under way (its continuations pass).
    plain: bool,
    /// One inflated message before it is framed.
    scratch: Vec<u8>,
    flow: Flow,
}

impl FrameInflater {
    /// Inflates with `inflater` (the other side's agreed context takeover and window).
    pub fn new(inflater: Inflater) -> Self {
        FrameInflater {
            inflater,
            buf: Vec::new(),
            start: 0,
            end: 0,
            need: 0,
            read_size: MIN_READ,
            last_room: 0,
            out: Vec::new(),
            out_pos: 0,
            partial: None,
            plain: false,
            scratch: Vec::new(),
            flow: Flow::default(),
        }
    }

    /// What came in so far: data messages' bytes on the wire and inflated.
    pub fn flow(&self) -> Flow {
        self.flow
    }

    /// Rewritten bytes not yet handed on.
    pub fn pending(&self) -> usize {
        self.out.len() - self.out_pos
    }

    /// Hands on up to `into.len()` rewritten bytes; how many.
    pub fn take(&mut self, into: &mut [u8]) -> usize {
        let n = into.len().min(self.pending());
        into[..n].copy_from_slice(&self.out[self.out_pos..self.out_pos + n]);
        self.consume(n);
        n
    }

    /// Hands on as many rewritten bytes as `into` has room for; how many.
    pub fn take_into(&mut self, into: &mut tokio::io::ReadBuf<'_>) -> usize {
        let n = into.remaining().min(self.pending());
        into.put_slice(&self.out[self.out_pos..self.out_pos + n]);
        self.consume(n);
        n
    }

    fn consume(&mut self, n: usize) {
        self.out_pos += n;
        if self.out_pos == self.out.len() {
            self.out.clear();
            self.out_pos = 0;
        }
    }

    /// Free room to read the socket into (at least [`MIN_READ`] bytes, more once reads
    /// fill it, and the rest of an incomplete frame); [`FrameInflater::filled`] must
    /// follow with the bytes read.
    pub fn room(&mut self) -> &mut [u8] {
        let pending = self.end - self.start;
        let want = (self.need.max(self.end) - self.start).max(pending + self.read_size);
        if self.start > 0 && self.start + want > self.buf.len() {
            self.buf.copy_within(self.start..self.end, 0);
            self.need = self.need.saturating_sub(self.start);
            self.end -= self.start;
            self.start = 0;
        }
        if self.start + want > self.buf.len() {
            let grown = (self.start + want).max(self.buf.len() * 2);
            self.buf.resize(grown, 0);
        }
        self.last_room = self.buf.len() - self.end;
        &mut self.buf[self.end..]
    }

    /// Accounts for `n` bytes read into [`FrameInflater::room`] and rewrites every frame
    /// now complete.
    ///
    /// # Errors
    /// See [`FrameInflater::process`].
    pub fn filled(&mut self, n: usize) -> Result<(), DeflateError> {
        if n == self.last_room {
            self.read_size = (self.read_size * 2).min(MAX_READ);
        }
        self.end += n;
        self.process()
    }

    /// Takes bytes that were read elsewhere (e.g. with the HTTP upgrade).
    ///
    /// # Errors
    /// See [`FrameInflater::process`].
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), DeflateError> {
        let mut rest = bytes;
        while !rest.is_empty() {
            let room = self.room();
            let n = room.len().min(rest.len());
            room[..n].copy_from_slice(&rest[..n]);
            rest = &rest[n..];
            self.filled(n)?;
        }
        Ok(())
    }

    /// Rewrites every complete frame (see the module documentation).
    ///
    /// # Errors
    /// Data that does not inflate ([`DeflateError::Corrupt`]), a message over
    /// [`MAX_MESSAGE_SIZE`] ([`DeflateError::TooLarge`]), RSV1 on a control or continuation
    /// frame, or a new data message inside a compressed fragmented one
    /// ([`DeflateError::Framing`]): the connection fails.
    fn process(&mut self) -> Result<(), DeflateError> {
        while let Some(h) = parse_header(&self.buf[self.start..self.end])? {
            let total = h.size + h.len;
            if self.end - self.start < total {
                self.need = self.start + total;
                break;
            }
            let at = self.start + h.size;
            let payload = &mut self.buf[at..at + h.len];
            if let Some(key) = h.mask {
                apply_mask(payload, key);
            }
            let payload = &self.buf[at..at + h.len];
            let (fin, rsv1, opcode) = (h.b0 & FIN != 0, h.b0 & RSV1 != 0, h.b0 & 0x0f);
            let len = h.len as u64;
            if !matches!(opcode, TEXT | BINARY | CONTINUATION) {
                // Control frames (pings, pongs, close; also between the fragments of a
                // message) and reserved opcodes, which fastwebsockets refuses.
                if rsv1 && opcode >= 0x8 {
                    return Err(DeflateError::Framing("RSV1 set on a control frame"));
                }
                emit(&mut self.out, h.b0, payload);
            } else if opcode == CONTINUATION {
                if rsv1 {
                    return Err(DeflateError::Framing("RSV1 set on a continuation frame"));
                }
                self.flow.wire_bytes += len;
                if let Some((_, data)) = self.partial.as_mut() {
                    data.extend_from_slice(payload);
                    if data.len() > MAX_MESSAGE_SIZE {
                        return Err(DeflateError::TooLarge(MAX_MESSAGE_SIZE));
                    }
                    if fin {
                        let (b0, data) = self.partial.take().expect("a message under way");
                        inflate_message(
                            &mut self.inflater,
                            b0,
                            &data,
                            &mut self.scratch,
                            &mut self.out,
                            &mut self.flow,
                        )?;
                    }
                } else {
                    // A continuation of an uncompressed message (or a stray one, which
                    // fastwebsockets' reader refuses): on as it came.
                    self.flow.payload_bytes += len;
                    if fin {
                        self.plain = false;
                        self.flow.uncompressed_messages += 1;
                    }
                    emit(&mut self.out, h.b0, payload);
                }
            } else {
                // The first frame of a data message.
                if self.partial.is_some() || self.plain {
                    return Err(DeflateError::Framing(
                        "a new data message inside a fragmented one",
                    ));
                }
                self.flow.wire_bytes += len;
                if !rsv1 {
                    self.flow.payload_bytes += len;
                    if fin {
                        self.flow.uncompressed_messages += 1;
                    } else {
                        self.plain = true;
                    }
                    emit(&mut self.out, h.b0, payload);
                } else if fin {
                    inflate_message(
                        &mut self.inflater,
                        h.b0,
                        payload,
                        &mut self.scratch,
                        &mut self.out,
                        &mut self.flow,
                    )?;
                } else {
                    self.partial = Some((h.b0, payload.to_vec()));
                }
            }
            self.start += total;
            self.need = 0;
        }
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            self.need = 0;
        }
        Ok(())
    }
}

/// Inflates the compressed message `data` (its frames' data joined) whose first frame
/// began with `b0`, through `scratch`, and appends it to `out` as one unmasked frame with
/// FIN set and RSV1 clear.
fn inflate_message(
    inflater: &mut Inflater,
    b0: u8,
    data: &[u8],
    scratch: &mut Vec<u8>,
    out: &mut Vec<u8>,
    flow: &mut Flow,
) -> Result<(), DeflateError> {
    scratch.clear();
    inflater.inflate(data, scratch)?;
    flow.payload_bytes += scratch.len() as u64;
    emit(out, b0 | FIN, scratch);
    Ok(())
}

/// Appends an unmasked frame with first byte `b0` (RSV1 cleared) and `payload`.
fn emit(out: &mut Vec<u8>, b0: u8, payload: &[u8]) {
    out.reserve(payload.len() + 10);
    write_header(out, b0 & !RSV1, payload.len(), None);
    out.extend_from_slice(payload);
}

/// Compresses the client's data messages as they are encoded (see the module
/// documentation); its counts go to the run's [`DeflateRun`] when it is dropped.
pub struct MessageDeflater {
    deflater: Deflater,
    /// One message before compression.
    plain: Vec<u8>,
    /// One message compressed.
    packed: Vec<u8>,
    flow: Flow,
    run: Option<Arc<DeflateRun>>,
}

impl MessageDeflater {
    /// The client's compressor for `agreed`, counting into `run`.
    pub fn client(agreed: &Agreed, run: Option<Arc<DeflateRun>>) -> Self {
        MessageDeflater {
            deflater: Deflater::client(agreed),
            plain: Vec::new(),
            packed: Vec::new(),
            flow: Flow::default(),
            run,
        }
    }

    /// What went out so far.
    pub fn flow(&self) -> Flow {
        self.flow
    }

    /// Appends one compressed, masked client frame (FIN and RSV1 set) to `out`: data
    /// opcode `opcode`, the message `prefix`, then (if given) message `seq` (`seq_hex`
    /// followed by `template[16..]`), then `suffix`, as
    /// [`crate::protocol::ws::encode_client_frame`] lays it out.
    pub fn encode(
        &mut self,
        out: &mut Vec<u8>,
        opcode: u8,
        prefix: &[u8],
        message: Option<(&[u8; 16], &[u8])>,
        suffix: &[u8],
        mask: [u8; 4],
    ) {
        self.plain.clear();
        self.plain.extend_from_slice(prefix);
        if let Some((seq_hex, template)) = message {
            let at = self.plain.len();
            self.plain.extend_from_slice(template);
            self.plain[at..at + 16].copy_from_slice(seq_hex);
        }
        self.plain.extend_from_slice(suffix);
        self.packed.clear();
        self.deflater.compress(&self.plain, &mut self.packed);
        self.flow.wire_bytes += self.packed.len() as u64;
        self.flow.payload_bytes += self.plain.len() as u64;
        out.reserve(self.packed.len() + 14);
        write_header(out, FIN | RSV1 | opcode, self.packed.len(), Some(mask));
        let start = out.len();
        out.extend_from_slice(&self.packed);
        apply_mask(&mut out[start..], mask);
    }
}

impl std::fmt::Debug for MessageDeflater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageDeflater")
            .field("flow", &self.flow)
            .finish_non_exhaustive()
    }
}

impl Drop for MessageDeflater {
    fn drop(&mut self) {
        if let Some(run) = &self.run {
            run.add_sent(self.flow);
        }
    }
}

/// Compresses the data frames the reference server writes (see the module documentation).
pub struct FrameDeflater {
    deflater: Deflater,
    /// Bytes written that do not make a whole frame yet.
    pending: Vec<u8>,
    /// A fragmented message is under way: it goes uncompressed.
    plain: bool,
    packed: Vec<u8>,
}

impl FrameDeflater {
    /// The server's compressor for `agreed`.
    pub fn server(agreed: &Agreed) -> Self {
        FrameDeflater {
            deflater: Deflater::server(agreed),
            pending: Vec::new(),
            plain: false,
            packed: Vec::new(),
        }
    }

    /// Takes the bytes of `bufs` (frames, whole or in pieces) and appends each frame they
    /// complete to `out`: an unfragmented text or binary frame compressed with RSV1 set,
    /// any other as it is (a fragmented message goes uncompressed, which RFC 7692 allows).
    pub fn write(&mut self, bufs: &[IoSlice<'_>], out: &mut OutQueue) {
        for b in bufs {
            self.pending.extend_from_slice(b);
        }
        let mut pos = 0;
        while let Ok(Some(h)) = parse_header(&self.pending[pos..]) {
            let total = h.size + h.len;
            if self.pending.len() - pos < total {
                break;
            }
            let frame = &self.pending[pos..pos + total];
            let payload = &frame[h.size..];
            let (fin, opcode) = (h.b0 & FIN != 0, h.b0 & 0x0f);
            let compress = fin && !self.plain && (opcode == TEXT || opcode == BINARY);
            if (opcode == TEXT || opcode == BINARY || opcode == CONTINUATION) && !compress {
                self.plain = !fin;
            }
            if compress && h.mask.is_none() {
                self.packed.clear();
                self.deflater.compress(payload, &mut self.packed);
                let mut head = Vec::with_capacity(10);
                write_header(&mut head, h.b0 | RSV1, self.packed.len(), None);
                out.extend_from_slice(&head);
                out.extend_from_slice(&self.packed);
            } else {
                out.extend_from_slice(frame);
            }
            pos += total;
        }
        self.pending.drain(..pos);
    }
}

/// What the connections of one run did with permessage-deflate, shared by them (atomic
/// counters, each connection adding its own counts once, when it ends).
#[derive(Debug, Default)]
pub struct DeflateRun {
    agreed_connections: AtomicU64,
    declined_connections: AtomicU64,
    refused_answers: AtomicU64,
    inflate_failures: AtomicU64,
    sent: [AtomicU64; 3],
    received: [AtomicU64; 3],
    /// The first agreement, as [`Agreed::describe`] gives it.
    agreed: Mutex<Option<String>>,
    /// The first failure's description.
    error: Mutex<Option<String>>,
}

fn add(counters: &[AtomicU64; 3], f: Flow) {
    counters[0].fetch_add(f.wire_bytes, Ordering::Relaxed);
    counters[1].fetch_add(f.payload_bytes, Ordering::Relaxed);
    counters[2].fetch_add(f.uncompressed_messages, Ordering::Relaxed);
}

fn load(counters: &[AtomicU64; 3]) -> Flow {
    Flow {
        wire_bytes: counters[0].load(Ordering::Relaxed),
        payload_bytes: counters[1].load(Ordering::Relaxed),
        uncompressed_messages: counters[2].load(Ordering::Relaxed),
    }
}

impl DeflateRun {
    /// A run that offers the extension on every connection.
    pub fn new() -> Arc<Self> {
        Arc::new(DeflateRun::default())
    }

    /// A connection agreed to `agreed`.
    pub fn agreed(&self, agreed: &Agreed) {
        self.agreed_connections.fetch_add(1, Ordering::Relaxed);
        let mut first = self.agreed.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert_with(|| agreed.describe());
    }

    /// A connection upgraded without the extension (the server declined or ignored it).
    pub fn declined(&self) {
        self.declined_connections.fetch_add(1, Ordering::Relaxed);
    }

    /// An upgrade failed: the server's answer broke RFC 7692 §7.1 (`why`).
    pub fn refused(&self, why: &DeflateError) {
        self.refused_answers.fetch_add(1, Ordering::Relaxed);
        self.note(format!("answer refused: {why}"));
    }

    /// A connection failed: a message could not be inflated (`why`).
    pub fn inflate_failed(&self, why: &DeflateError) {
        self.inflate_failures.fetch_add(1, Ordering::Relaxed);
        self.note(why.to_string());
    }

    fn note(&self, text: String) {
        let mut first = self.error.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert(text);
    }

    /// Adds one connection's outgoing data messages.
    pub fn add_sent(&self, f: Flow) {
        add(&self.sent, f);
    }

    /// Adds one connection's incoming data messages.
    pub fn add_received(&self, f: Flow) {
        add(&self.received, f);
    }

    /// Connections failed because a message could not be inflated (each is one
    /// corrupted message in the report's integrity).
    pub fn inflate_failures(&self) -> u64 {
        self.inflate_failures.load(Ordering::Relaxed)
    }

    /// The report's `deflate` part, from what the connections added so far.
    pub fn report(&self) -> DeflateReport {
        let sent = load(&self.sent);
        let received = load(&self.received);
        DeflateReport {
            offer: OFFER,
            agreed: self
                .agreed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
            connections_agreed: self.agreed_connections.load(Ordering::Relaxed),
            connections_declined: self.declined_connections.load(Ordering::Relaxed),
            sent_wire_bytes: sent.wire_bytes,
            sent_payload_bytes: sent.payload_bytes,
            received_wire_bytes: received.wire_bytes,
            received_payload_bytes: received.payload_bytes,
            received_uncompressed_messages: received.uncompressed_messages,
            answers_refused: self.refused_answers.load(Ordering::Relaxed),
            inflate_failures: self.inflate_failures(),
            error: self.error.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        }
    }
}

/// The report's `deflate` object (`--deflate`; null without it): what was offered and
/// agreed, and the data messages' bytes on the wire against their bytes, over the whole
/// run (warm-up and drain included), on the connections that agreed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeflateReport {
    /// The `Sec-WebSocket-Extensions` offer sent with every upgrade ([`OFFER`]).
    pub offer: &'static str,
    /// The first connection's agreement as [`Agreed::describe`] gives it (every parameter,
    /// defaults included); null when no connection agreed.
    pub agreed: Option<String>,
    /// Connections that agreed to permessage-deflate.
    pub connections_agreed: u64,
    /// Connections upgraded without it (the server declined or ignored the offer): their
    /// messages travel uncompressed and are not counted below.
    pub connections_declined: u64,
    /// Data messages sent: frame payload bytes on the wire (compressed; headers not
    /// counted).
    pub sent_wire_bytes: u64,
    /// Data messages sent: their bytes before compression.
    pub sent_payload_bytes: u64,
    /// Data messages received: frame payload bytes on the wire.
    pub received_wire_bytes: u64,
    /// Data messages received: their bytes after inflation.
    pub received_payload_bytes: u64,
    /// Data messages received uncompressed (RSV1 clear; RFC 7692 lets a sender skip
    /// compressing a message).
    pub received_uncompressed_messages: u64,
    /// Upgrades failed because the server's answer broke RFC 7692 §7.1 (also counted in
    /// `errors.handshake_failed`).
    pub answers_refused: u64,
    /// Connections failed because a message could not be inflated (corrupt data, over the
    /// size limit, RSV1 where it does not belong); each also counts in `errors.other` and
    /// as one `corrupted` message in `integrity`.
    pub inflate_failures: u64,
    /// The first failure of either kind, e.g. `"corrupted compressed message: deflate
    /// decompression error: invalid block type"`; null when none.
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::deflate::Inflater;

    fn header(b0: u8, len: usize, mask: Option<[u8; 4]>) -> Vec<u8> {
        let mut v = Vec::new();
        write_header(&mut v, b0, len, mask);
        v
    }

    /// Frames of `(first byte, payload)` as a server sends them (unmasked).
    fn frames(list: &[(u8, &[u8])]) -> Vec<u8> {
        let mut v = Vec::new();
        for (b0, p) in list {
            v.extend_from_slice(&header(*b0, p.len(), None));
            v.extend_from_slice(p);
        }
        v
    }

    fn rewritten(fi: &mut FrameInflater) -> Vec<u8> {
        let mut out = vec![0u8; fi.pending()];
        let n = fi.take(&mut out);
        out.truncate(n);
        out
    }

    fn compress(d: &mut Deflater, m: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        d.compress(m, &mut v);
        v
    }

    #[test]
    fn headers_round_trip_at_every_length_class() {
        for len in [0usize, 125, 126, 65535, 65536, 1 << 20] {
            for mask in [None, Some([1, 2, 3, 4])] {
                let h = header(0x82, len, mask);
                let p = parse_header(&h).unwrap().unwrap();
                assert_eq!((p.b0, p.size, p.len, p.mask), (0x82, h.len(), len, mask));
                assert!(parse_header(&h[..h.len() - 1]).unwrap().is_none());
            }
        }
        let too_big = header(0x82, MAX_MESSAGE_SIZE + 1, None);
        assert!(matches!(
            parse_header(&too_big),
            Err(DeflateError::TooLarge(_))
        ));
    }

    #[test]
    fn compressed_fragmented_and_plain_messages_come_out_as_plain_frames() {
        let mut d = Deflater::new(6, 15, false);
        let text = b"Hello, compressed world! Hello, compressed world!".to_vec();
        let big: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect();
        let c1 = compress(&mut d, &text);
        let c2 = compress(&mut d, &big);
        let (a, b) = c2.split_at(c2.len() / 3);
        let (b, c) = b.split_at(b.len() / 2);
        let wire = frames(&[
            (FIN | RSV1 | TEXT, &c1),
            // A compressed binary message in three frames, a ping between them.
            (RSV1 | BINARY, a),
            (0x89, b"ping"),
            (CONTINUATION, b),
            (FIN | CONTINUATION, c),
            // An uncompressed message, fragmented.
            (TEXT, b"plain "),
            (FIN | CONTINUATION, b"text"),
            (FIN | 0x8, &[0x03, 0xe8]),
        ]);
        let want = frames(&[
            (FIN | TEXT, &text),
            (0x89, b"ping"),
            (FIN | BINARY, &big),
            (TEXT, b"plain "),
            (FIN | CONTINUATION, b"text"),
            (FIN | 0x8, &[0x03, 0xe8]),
        ]);
        // Whole, and one byte at a time.
        for step in [wire.len(), 1, 7, 4096] {
            let mut fi = FrameInflater::new(Inflater::new(false, MAX_MESSAGE_SIZE));
            let mut got = Vec::new();
            for chunk in wire.chunks(step) {
                fi.feed(chunk).unwrap();
                got.extend(rewritten(&mut fi));
            }
            assert!(got == want, "step {step}");
            let flow = fi.flow();
            assert_eq!(
                flow.payload_bytes,
                (text.len() + big.len() + "plain text".len()) as u64
            );
            assert_eq!(
                flow.wire_bytes,
                (c1.len() + c2.len() + "plain text".len()) as u64
            );
            assert_eq!(flow.uncompressed_messages, 1);
        }
    }

    #[test]
    fn masked_client_frames_are_unmasked_and_inflated() {
        let agreed = Agreed::default();
        let mut md = MessageDeflater::client(&agreed, None);
        let mut wire = Vec::new();
        let t = crate::protocol::payload::template(4000);
        let seq = *b"000000000000002a";
        md.encode(
            &mut wire,
            BINARY,
            b"pre",
            Some((&seq, &t)),
            b"post",
            [9, 8, 7, 6],
        );
        md.encode(
            &mut wire,
            BINARY,
            b"pre",
            Some((&seq, &t)),
            b"post",
            [1, 2, 3, 4],
        );
        assert_eq!(wire[0], FIN | RSV1 | BINARY);
        let mut fi = FrameInflater::new(Inflater::server(&agreed, MAX_MESSAGE_SIZE));
        fi.feed(&wire).unwrap();
        let mut message = b"pre".to_vec();
        message.extend_from_slice(&seq);
        message.extend_from_slice(&t[16..]);
        message.extend_from_slice(b"post");
        let one = frames(&[(FIN | BINARY, &message)]);
        assert_eq!(rewritten(&mut fi), [one.clone(), one].concat());
        // Two 4 KiB messages in a few dozen bytes: context takeover.
        assert!(md.flow().wire_bytes < 200, "{:?}", md.flow());
        assert_eq!(md.flow(), fi.flow());
    }

    #[test]
    fn misplaced_rsv1_and_corrupt_data_fail() {
        let mut d = Deflater::new(6, 15, false);
        let c = compress(&mut d, b"abc");
        type Case<'a> = (&'a [(u8, &'a [u8])], &'a str);
        let cases: [Case<'_>; 4] = [
            (&[(FIN | RSV1 | 0x9, b"")], "control frame"),
            (&[(RSV1 | TEXT, &c), (FIN | RSV1, b"")], "continuation"),
            (&[(RSV1 | TEXT, &c), (FIN | TEXT, b"x")], "inside"),
            (&[(FIN | RSV1 | BINARY, &[0xff, 0xff, 0xff])], "corrupted"),
        ];
        for (list, want) in cases {
            let mut fi = FrameInflater::new(Inflater::new(false, MAX_MESSAGE_SIZE));
            let e = fi.feed(&frames(list)).unwrap_err();
            assert!(e.to_string().contains(want), "{e}");
        }
        let mut small = FrameInflater::new(Inflater::new(false, 100));
        let big = compress(&mut Deflater::new(6, 15, false), &[b'a'; 1000]);
        let e = small
            .feed(&frames(&[(FIN | RSV1 | TEXT, &big)]))
            .unwrap_err();
        assert_eq!(e, DeflateError::TooLarge(100));
        assert_eq!(e.close_code(), 1009);
        assert_eq!(DeflateError::Corrupt(String::new()).close_code(), 1007);
        assert_eq!(DeflateError::Framing("x").close_code(), 1002);
    }

    #[test]
    fn the_server_compresses_whole_data_frames_only() {
        let agreed = Agreed::default();
        let mut fd = FrameDeflater::server(&agreed);
        let mut q = OutQueue::new();
        let wire = frames(&[
            (FIN | TEXT, b"hello hello hello"),
            (0x8a, b"pong"),
            (BINARY, b"frag"),
            (FIN | CONTINUATION, b"ment"),
            (FIN | BINARY, b"whole"),
        ]);
        // Written in pieces, as a writer may.
        for piece in wire.chunks(5) {
            fd.write(&[IoSlice::new(piece)], &mut q);
        }
        let mut slices = [IoSlice::new(&[]); crate::transport::outqueue::MAX_IOV];
        let n = q.io_slices(&mut slices);
        let sent: Vec<u8> = slices[..n].iter().flat_map(|s| s.iter().copied()).collect();
        let mut fi = FrameInflater::new(Inflater::client(&agreed, MAX_MESSAGE_SIZE));
        fi.feed(&sent).unwrap();
        assert_eq!(rewritten(&mut fi), wire);
        assert_eq!(sent[0], FIN | RSV1 | TEXT);
        let flow = fi.flow();
        assert_eq!(flow.uncompressed_messages, 1);
    }

    #[test]
    fn the_client_compresses_with_the_window_and_context_it_agreed() {
        // A 3,000-byte block sent twice: with context takeover and a 15-bit window the
        // second refers 3,000 bytes back and is a few bytes; a 10-bit (1 KiB) window
        // cannot refer that far, nor can a compressor without context takeover.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let block: Vec<u8> = (0..3000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let second = |agreed: Agreed| {
            let mut md = MessageDeflater::client(&agreed, None);
            let mut inflater = Inflater::server(&agreed, MAX_MESSAGE_SIZE);
            let mut sizes = Vec::new();
            for mask in [[1, 2, 3, 4], [5, 6, 7, 8]] {
                let mut wire = Vec::new();
                md.encode(&mut wire, BINARY, &block, None, b"", mask);
                let mut fi = FrameInflater::new(Inflater::server(&agreed, MAX_MESSAGE_SIZE));
                std::mem::swap(&mut fi.inflater, &mut inflater);
                fi.feed(&wire).unwrap();
                assert_eq!(rewritten(&mut fi), frames(&[(FIN | BINARY, &block)]));
                std::mem::swap(&mut fi.inflater, &mut inflater);
                sizes.push(fi.flow().wire_bytes);
            }
            sizes[1]
        };
        let wide = second(Agreed::default());
        let narrow = second(Agreed {
            client_max_window_bits: 10,
            ..Agreed::default()
        });
        let fresh = second(Agreed {
            client_no_context_takeover: true,
            ..Agreed::default()
        });
        assert!(wide < 100, "15 bits: {wide} bytes");
        assert!(narrow > 2000, "10 bits: {narrow} bytes");
        assert!(fresh > 2000, "no context takeover: {fresh} bytes");
    }

    #[test]
    fn the_run_adds_up_its_connections() {
        let run = DeflateRun::new();
        run.agreed(&Agreed::default());
        run.agreed(&Agreed {
            server_no_context_takeover: true,
            ..Agreed::default()
        });
        run.declined();
        run.refused(&DeflateError::AcceptedTwice);
        run.inflate_failed(&DeflateError::Corrupt("bad".into()));
        let f = Flow {
            wire_bytes: 10,
            payload_bytes: 40,
            uncompressed_messages: 0,
        };
        run.add_sent(f);
        run.add_sent(f);
        run.add_received(f);
        let r = run.report();
        assert_eq!(r.offer, OFFER);
        assert_eq!(r.agreed, Some(Agreed::default().describe()));
        assert_eq!((r.connections_agreed, r.connections_declined), (2, 1));
        assert_eq!((r.sent_wire_bytes, r.sent_payload_bytes), (20, 80));
        assert_eq!((r.received_wire_bytes, r.received_payload_bytes), (10, 40));
        assert_eq!((r.answers_refused, r.inflate_failures), (1, 1));
        assert_eq!(
            r.error.as_deref(),
            Some("answer refused: the server accepted permessage-deflate twice")
        );
    }
}
