//! WebSocket settings and message-level reading on top of fastwebsockets frames.

use std::future::Future;
use std::time::Duration;

use fastwebsockets::{Frame, OpCode, Payload, WebSocket, WebSocketError};

use std::sync::Arc;

use tokio::io::AsyncReadExt;

use crate::protocol::deflate::DeflateError;
use crate::transport::conn::Conn;
use crate::transport::outqueue::OutQueue;

/// Largest message accepted, in bytes (128 MiB; the protocol needs at least 16 MiB).
pub const MAX_MESSAGE_SIZE: usize = 128 << 20;

/// Applies the settings every connection uses: auto-pong and auto-close on, maximum
/// message size [`MAX_MESSAGE_SIZE`], vectored writes on (the [`Conn`] adapter copies
/// them into its buffer, which saves fastwebsockets' own copy for payloads > 1 KiB).
///
/// Auto-pong: fastwebsockets answers every ping it reads with a pong carrying the same
/// payload (RFC 6455 §5.5.3) and does not hand the ping to the reader; the pong is queued
/// in the [`Conn`]'s buffer and leaves before the next read waits. Pong frames are handed
/// to the reader ([`read_message`] skips them, [`read_message_or_pong`] returns them).
pub fn configure(ws: &mut WebSocket<Conn>) {
    ws.set_auto_pong(true);
    ws.set_auto_close(true);
    ws.set_max_message_size(MAX_MESSAGE_SIZE);
    ws.set_writev(true);
}

/// One complete message (fragments reassembled), or the peer's close frame (or, from
/// [`read_message_or_pong`] only, a pong frame).
#[derive(Debug)]
pub struct Message {
    /// `Text`, `Binary` or `Close` (and `Pong` from [`read_message_or_pong`]).
    pub opcode: OpCode,
    /// Message bytes (for `Close`: the close payload; for `Pong`: the pong's payload).
    pub payload: Payload<'static>,
}

/// Where [`read_message`] reads frames from: a whole connection, or the read half of a
/// split one (the reference server's fan-out subscribers, `crate::serve::fanout`).
pub trait FrameSource {
    /// The next frame; pings are answered and close frames replied to by whoever owns
    /// the connection's writing side.
    fn next_frame(&mut self)
        -> impl Future<Output = Result<Frame<'static>, WebSocketError>> + Send;
}

impl FrameSource for WebSocket<Conn> {
    fn next_frame(
        &mut self,
    ) -> impl Future<Output = Result<Frame<'static>, WebSocketError>> + Send {
        self.read_frame()
    }
}

/// A data message whose first fragments have arrived: its opcode and its bytes so far.
pub type Partial = Option<(OpCode, Vec<u8>)>;

/// Reads the next data message or close frame; pings and pongs are skipped (pings are
/// answered by fastwebsockets), fragmented messages are reassembled.
pub async fn read_message(ws: &mut impl FrameSource) -> Result<Message, WebSocketError> {
    read_next(ws, &mut None, false).await
}

/// Like [`read_message`], but a pong frame is returned too (as a [`Message`] with opcode
/// `Pong`; fastwebsockets hands pongs to its reader and answers pings itself). A pong may
/// come between the fragments of a message (RFC 6455 §5.4): the fragments read so far
/// wait in `partial`, which the caller keeps for its next call on the same connection.
pub async fn read_message_or_pong(
    ws: &mut impl FrameSource,
    partial: &mut Partial,
) -> Result<Message, WebSocketError> {
    read_next(ws, partial, true).await
}

/// Reads frames until a data message is complete (its first fragments in `partial`, if
/// any), a close frame comes, or, with `pongs`, a pong frame comes.
async fn read_next(
    ws: &mut impl FrameSource,
    partial: &mut Partial,
    pongs: bool,
) -> Result<Message, WebSocketError> {
    loop {
        let frame: Frame<'static> = ws.next_frame().await?;
        match frame.opcode {
            OpCode::Text | OpCode::Binary if partial.is_some() => {
                return Err(WebSocketError::InvalidFragment)
            }
            OpCode::Text | OpCode::Binary if frame.fin => {
                return Ok(Message {
                    opcode: frame.opcode,
                    payload: frame.payload,
                })
            }
            OpCode::Text | OpCode::Binary => {
                if frame.opcode == OpCode::Text {
                    check_text_fragments(&frame.payload, 0, false)?;
                }
                *partial = Some((frame.opcode, frame.payload.to_vec()));
            }
            OpCode::Continuation => {
                let Some((opcode, acc)) = partial.as_mut() else {
                    return Err(WebSocketError::InvalidContinuationFrame);
                };
                let checked = acc.len();
                acc.extend_from_slice(&frame.payload);
                if acc.len() > MAX_MESSAGE_SIZE {
                    return Err(WebSocketError::FrameTooLarge);
                }
                if *opcode == OpCode::Text {
                    check_text_fragments(acc, checked, frame.fin)?;
                }
                if frame.fin {
                    let (opcode, acc) = partial.take().expect("a message in progress");
                    return Ok(Message {
                        opcode,
                        payload: Payload::Owned(acc),
                    });
                }
            }
            OpCode::Close => {
                return Ok(Message {
                    opcode: OpCode::Close,
                    payload: frame.payload,
                })
            }
            OpCode::Pong if pongs => {
                return Ok(Message {
                    opcode: OpCode::Pong,
                    payload: frame.payload,
                })
            }
            OpCode::Ping | OpCode::Pong => {}
        }
    }
}

/// Checks the UTF-8 of a fragmented text message as its fragments come, so that an invalid
/// sequence fails the connection at the fragment that holds it (RFC 6455 §8.1: an endpoint
/// that validates as it goes fails fast) rather than at the last one. `acc` is the message
/// so far, whose first `checked` bytes passed this check before (valid UTF-8, but for an
/// incomplete character at their end); `fin`: `acc` is the whole message, which must then
/// end on a complete character. Each byte is checked once (the last character of the
/// previous fragments again), as many as one check of the whole message at its end.
fn check_text_fragments(acc: &[u8], checked: usize, fin: bool) -> Result<(), WebSocketError> {
    // The last character boundary among the last 3 bytes checked: an incomplete character
    // (at most 3 bytes) starts there at the latest.
    let start = (checked.saturating_sub(3)..checked)
        .rev()
        .find(|&i| acc[i] & 0xC0 != 0x80)
        .unwrap_or(checked);
    match std::str::from_utf8(&acc[start..]) {
        Ok(_) => Ok(()),
        // Valid so far, ending in a character the next fragment may complete.
        Err(e) if e.error_len().is_none() && !fin => Ok(()),
        Err(_) => Err(WebSocketError::InvalidUTF8),
    }
}

/// After the server's close frame (read with auto-close on, so fastwebsockets has queued
/// the reply with the same payload): sends the reply and reads and discards until the
/// server closes the TCP connection (RFC 6455 §7.1.1: the server closes it first) or
/// `grace` elapses. Without the explicit send, a reply queued while more frames were
/// already buffered (a second close frame, data after the close) would be dropped with
/// the connection.
pub async fn finish_server_close(ws: WebSocket<Conn>, grace: Duration) {
    drain_until_eof(ws, grace).await;
}

/// Sends what `ws` has pending, then reads the stream itself (the frame reader may be
/// stuck on bytes it refused) until end of stream, an error or `grace`.
async fn drain_until_eof(ws: WebSocket<Conn>, grace: Duration) {
    let mut conn = ws.into_inner();
    let _ = tokio::time::timeout(grace, async {
        // Each read sends what is pending first (the outbox too).
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(1..) = conn.read(&mut buf).await {}
    })
    .await;
}

/// Client-side clean close: sends a close frame (1000) and reads until the peer's close
/// frame, end of stream or `grace` elapses, discarding data messages still in transit.
pub async fn close_gracefully(ws: &mut WebSocket<Conn>, grace: Duration) {
    if ws.write_frame(Frame::close(1000, b"")).await.is_err() {
        return;
    }
    let _ = ws.flush().await;
    let _ = tokio::time::timeout(grace, async {
        loop {
            match read_message(ws).await {
                Ok(m) if m.opcode == OpCode::Close => break,
                Ok(_) => {}
                Err(_) => break,
            }
        }
    })
    .await;
}

/// The status code of a close frame's payload (its first two bytes, big-endian); `None`
/// for an empty payload (no code).
pub fn close_code(payload: &[u8]) -> Option<u16> {
    payload.get(..2).map(|b| u16::from_be_bytes([b[0], b[1]]))
}

/// The permessage-deflate failure behind the read error `e`, if it is one: a message that
/// could not be inflated, or RSV1 where it does not belong (the connection's reads return
/// it as an I/O error of kind `InvalidData`, see [`crate::transport::conn::Conn`], which
/// has already queued the close frame with [`DeflateError::close_code`]).
pub fn deflate_failure(e: &WebSocketError) -> Option<&DeflateError> {
    match e {
        WebSocketError::IoError(io) => io.get_ref()?.downcast_ref::<DeflateError>(),
        _ => None,
    }
}

/// The status code with which a client fails the connection after the read error `e`
/// (RFC 6455 §7.4.1): 1007 for a text message (or close reason) that is not UTF-8, 1009
/// for a message over [`MAX_MESSAGE_SIZE`], 1002 for any other violation of the protocol
/// (reserved bits, unknown opcodes, fragmentation, a malformed close frame); for a
/// permessage-deflate failure ([`deflate_failure`]) its [`DeflateError::close_code`]. `None`
/// when there is no one to tell: end of stream, I/O errors, a connection already closed.
pub fn failure_close_code(e: &WebSocketError) -> Option<u16> {
    use WebSocketError as E;
    if let Some(d) = deflate_failure(e) {
        return Some(d.close_code());
    }
    match e {
        E::InvalidUTF8 => Some(1007),
        E::FrameTooLarge => Some(1009),
        E::InvalidFragment
        | E::InvalidContinuationFrame
        | E::InvalidCloseFrame
        | E::InvalidCloseCode
        | E::ReservedBitsNotZero
        | E::ControlFrameFragmented
        | E::PingFrameTooLarge
        | E::InvalidValue => Some(1002),
        _ => None,
    }
}

/// Fails the WebSocket connection after the read error `e` (RFC 6455 §7.1.7): sends a
/// close frame with [`failure_close_code`] (unless a close frame has already been sent:
/// fastwebsockets answers a close frame with an invalid code with 1002 itself), then reads
/// and discards until the server closes the TCP connection (§7.1.1: the server closes it
/// first) or `grace` elapses. Returns the code of the close frame sent, if any (also the
/// one fastwebsockets sent).
pub async fn fail_connection(
    mut ws: WebSocket<Conn>,
    e: &WebSocketError,
    grace: Duration,
) -> Option<u16> {
    let code = failure_close_code(e);
    if let Some(code) = code.filter(|_| !ws.is_closed()) {
        if ws.write_frame(Frame::close(code, b"")).await.is_err() {
            return None;
        }
    }
    drain_until_eof(ws, grace).await;
    code
}

/// Appends one complete, masked client frame (FIN set) to `out`: the payload is
/// `seq_hex` followed by `template[16..]`, i.e. message `seq` of PROTOCOL.md. One copy
/// and one XOR pass, no intermediate buffers.
pub fn encode_client_message(
    out: &mut Vec<u8>,
    opcode: OpCode,
    seq_hex: &[u8; 16],
    template: &[u8],
    mask: [u8; 4],
) {
    encode_client_frame(out, opcode, b"", Some((seq_hex, template)), b"", mask);
}

/// Appends one complete, masked client frame (FIN set) to `out` whose payload is
/// `prefix`, then (if given) message `seq` (`seq_hex` followed by `template[16..]`),
/// then `suffix`: e.g. a Socket.IO event `42["echo","` + message + `"]`. One copy of
/// each part and one XOR pass.
pub fn encode_client_frame(
    out: &mut Vec<u8>,
    opcode: OpCode,
    prefix: &[u8],
    message: Option<(&[u8; 16], &[u8])>,
    suffix: &[u8],
    mask: [u8; 4],
) {
    let len = prefix.len() + message.map_or(0, |(_, t)| t.len()) + suffix.len();
    write_client_header(out, opcode, len, mask);
    let start = out.len();
    out.extend_from_slice(prefix);
    if let Some((seq_hex, template)) = message {
        let at = out.len();
        out.extend_from_slice(template);
        out[at..at + 16].copy_from_slice(seq_hex);
    }
    out.extend_from_slice(suffix);
    apply_mask(&mut out[start..], mask);
}

/// Appends one complete, masked client frame (FIN set) to `out` whose payload is
/// `prefix`, the 16 digits `seq_hex`, a message body and `suffix`, like
/// [`encode_client_frame`]; the body comes already masked with `mask` (from
/// [`crate::protocol::premask::PremaskedBodies`], built with offset `prefix.len() + 16`)
/// and is queued without being copied.
pub fn encode_client_frame_premasked(
    out: &mut OutQueue,
    opcode: OpCode,
    prefix: &[u8],
    seq_hex: &[u8; 16],
    (mask, body): ([u8; 4], Arc<[u8]>),
    suffix: &[u8],
) {
    let head_len = prefix.len() + seq_hex.len();
    let len = head_len + body.len() + suffix.len();
    let tail = out.tail();
    let before = tail.len();
    write_client_header(tail, opcode, len, mask);
    let start = tail.len();
    tail.extend_from_slice(prefix);
    tail.extend_from_slice(seq_hex);
    apply_mask(&mut tail[start..], mask);
    let queued = tail.len() - before;
    out.commit(queued);
    let suffix_at = head_len + body.len();
    out.push_shared(body);
    if !suffix.is_empty() {
        let tail = out.tail();
        let start = tail.len();
        tail.extend_from_slice(suffix);
        apply_mask_from(&mut tail[start..], mask, suffix_at);
        out.commit(suffix.len());
    }
}

/// Appends the header of a masked client frame with FIN set: opcode, payload length
/// `len` (bytes) and the masking key (RFC 6455 §5.2).
fn write_client_header(out: &mut Vec<u8>, opcode: OpCode, len: usize, mask: [u8; 4]) {
    out.push(0x80 | opcode as u8);
    if len < 126 {
        out.push(0x80 | len as u8);
    } else if len < 65536 {
        out.push(0x80 | 126);
        out.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        out.push(0x80 | 127);
        out.extend_from_slice(&(len as u64).to_be_bytes());
    }
    out.extend_from_slice(&mask);
}

/// XORs `buf` with `mask` as if `buf` started at byte `offset` of a masked payload (the
/// key repeats every 4 bytes from the payload's first byte).
pub fn apply_mask_from(buf: &mut [u8], mask: [u8; 4], offset: usize) {
    let p = offset % 4;
    let rotated = [
        mask[p],
        mask[(p + 1) % 4],
        mask[(p + 2) % 4],
        mask[(p + 3) % 4],
    ];
    apply_mask(buf, rotated);
}

/// XORs `buf` with the 4-byte `mask`, starting at mask byte 0 (RFC 6455 §5.3).
#[inline]
pub fn apply_mask(buf: &mut [u8], mask: [u8; 4]) {
    let m8 = u64::from_ne_bytes([
        mask[0], mask[1], mask[2], mask[3], mask[0], mask[1], mask[2], mask[3],
    ]);
    let mut chunks = buf.chunks_exact_mut(8);
    for c in &mut chunks {
        let v = u64::from_ne_bytes(c.try_into().expect("8-byte chunk")) ^ m8;
        c.copy_from_slice(&v.to_ne_bytes());
    }
    for (i, b) in chunks.into_remainder().iter_mut().enumerate() {
        *b ^= mask[i & 3];
    }
}

/// Cheap xorshift generator for client masking keys (RFC 6455 wants unpredictable keys
/// against proxies; a benchmark on loopback only needs them to vary).
#[derive(Debug, Clone)]
pub struct MaskGen(u64);

impl MaskGen {
    /// Seeds from the clock and `salt` (e.g. a connection index).
    pub fn new(salt: u64) -> Self {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1);
        MaskGen((t ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1)
    }

    /// Next 4-byte masking key.
    #[inline]
    pub fn next_mask(&mut self) -> [u8; 4] {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        (x as u32).to_le_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::payload::{message, template, write_seq};

    #[test]
    fn encoder_matches_fastwebsockets() {
        let mask = [0x12, 0x34, 0x56, 0x78];
        for size in [16usize, 17, 125, 126, 127, 1000, 65535, 65536, 70001] {
            for op in [OpCode::Binary, OpCode::Text] {
                let t = template(size);
                let mut seq = [0u8; 16];
                write_seq(&mut seq, 0xabc + size as u64);
                let mut ours = Vec::new();
                encode_client_message(&mut ours, op, &seq, &t, mask);

                let mut msg = message(0xabc + size as u64, size);
                let mut frame = Frame::new(true, op, Some(mask), Payload::BorrowedMut(&mut msg));
                frame.mask();
                let mut buf = Vec::new();
                let theirs = frame.write(&mut buf).to_vec();
                assert_eq!(ours, theirs, "size {size}");

                // With a prefix and a suffix around the message (Socket.IO events).
                let mut ours = Vec::new();
                encode_client_frame(
                    &mut ours,
                    op,
                    b"42[\"echo\",\"",
                    Some((&seq, &t)),
                    b"\"]",
                    mask,
                );
                let mut payload = b"42[\"echo\",\"".to_vec();
                payload.extend_from_slice(&message(0xabc + size as u64, size));
                payload.extend_from_slice(b"\"]");
                let mut frame = Frame::new(true, op, Some(mask), Payload::Owned(payload));
                frame.mask();
                let mut buf = Vec::new();
                let theirs = frame.write(&mut buf).to_vec();
                assert_eq!(ours, theirs, "size {size} with prefix");
            }
        }
        // A frame without a message (e.g. a constant header frame).
        let mut ours = Vec::new();
        encode_client_frame(&mut ours, OpCode::Text, b"451-", None, b"[]", mask);
        let mut frame = Frame::new(
            true,
            OpCode::Text,
            Some(mask),
            Payload::Owned(b"451-[]".to_vec()),
        );
        frame.mask();
        let mut buf = Vec::new();
        assert_eq!(ours, frame.write(&mut buf).to_vec());
    }

    /// Frames handed out in order, then end of stream.
    struct Frames(std::collections::VecDeque<Frame<'static>>);

    impl FrameSource for Frames {
        fn next_frame(
            &mut self,
        ) -> impl Future<Output = Result<Frame<'static>, WebSocketError>> + Send {
            let next = self.0.pop_front().ok_or(WebSocketError::UnexpectedEOF);
            async move { next }
        }
    }

    fn frames(list: &[(bool, OpCode, &[u8])]) -> Frames {
        let list = list
            .iter()
            .map(|&(fin, op, bytes)| Frame::new(fin, op, None, Payload::Owned(bytes.to_vec())));
        Frames(list.collect())
    }

    #[test]
    fn pongs_come_out_between_fragments_on_request() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let stream = [
            (true, OpCode::Pong, &b"p0"[..]),
            (false, OpCode::Text, b"ab"),
            (true, OpCode::Ping, b"x"),
            (true, OpCode::Pong, b"p1"),
            (false, OpCode::Continuation, b"cd"),
            (true, OpCode::Continuation, b"ef"),
            (true, OpCode::Binary, b"bin"),
            (true, OpCode::Close, b""),
        ];
        rt.block_on(async {
            let mut ws = frames(&stream);
            let mut partial = None;
            let mut got = Vec::new();
            while let Ok(m) = read_message_or_pong(&mut ws, &mut partial).await {
                got.push((m.opcode, m.payload.to_vec()));
            }
            let want = [
                (OpCode::Pong, &b"p0"[..]),
                (OpCode::Pong, b"p1"),
                (OpCode::Text, b"abcdef"),
                (OpCode::Binary, b"bin"),
                (OpCode::Close, b""),
            ];
            let want: Vec<_> = want.iter().map(|(op, b)| (*op, b.to_vec())).collect();
            assert_eq!(got, want);
            assert!(partial.is_none());

            // read_message: the same messages, pongs skipped.
            let mut ws = frames(&stream);
            let mut got = Vec::new();
            while let Ok(m) = read_message(&mut ws).await {
                got.push((m.opcode, m.payload.to_vec()));
            }
            assert_eq!(got, want[2..]);

            // A data frame inside a fragmented message, or a stray continuation: errors.
            let mut ws = frames(&[(false, OpCode::Text, b"a"), (true, OpCode::Binary, b"b")]);
            let e = read_message_or_pong(&mut ws, &mut None).await;
            assert!(matches!(e, Err(WebSocketError::InvalidFragment)), "{e:?}");
            let mut ws = frames(&[(true, OpCode::Continuation, b"a")]);
            let e = read_message(&mut ws).await;
            assert!(
                matches!(e, Err(WebSocketError::InvalidContinuationFrame)),
                "{e:?}"
            );
        });
    }

    #[test]
    fn fragmented_text_is_checked_as_it_comes() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            // "κόσμε" with its characters split across fragments at every byte.
            let text = "κόσμε€𝄞".as_bytes();
            for cut in 1..text.len() {
                for cut2 in cut..text.len() {
                    let mut ws = frames(&[
                        (false, OpCode::Text, &text[..cut]),
                        (false, OpCode::Continuation, &text[cut..cut2]),
                        (true, OpCode::Continuation, &text[cut2..]),
                    ]);
                    let m = read_message(&mut ws).await.expect("valid UTF-8");
                    assert_eq!(&m.payload[..], text, "cut at {cut}, {cut2}");
                }
            }
            // An invalid sequence fails at the fragment that holds it: the next fragment
            // (the end of stream here) is never read.
            let bad = [
                (false, OpCode::Text, &b"\xce\xba\xe1"[..]),
                (false, OpCode::Continuation, b"\xbd\xb9\xf4\x90\x80\x80"),
            ];
            let e = read_message(&mut frames(&bad)).await;
            assert!(matches!(e, Err(WebSocketError::InvalidUTF8)), "{e:?}");
            let e = read_message(&mut frames(&[(false, OpCode::Text, b"a\xff")])).await;
            assert!(matches!(e, Err(WebSocketError::InvalidUTF8)), "{e:?}");
            // A character left incomplete by the last fragment.
            let cut = [
                (false, OpCode::Text, &b"a"[..]),
                (true, OpCode::Continuation, b"\xe2\x82"),
            ];
            let e = read_message(&mut frames(&cut)).await;
            assert!(matches!(e, Err(WebSocketError::InvalidUTF8)), "{e:?}");
            // Binary messages are not checked.
            let bin = [
                (false, OpCode::Binary, &b"\xff"[..]),
                (true, OpCode::Continuation, b"\xfe"),
            ];
            assert!(read_message(&mut frames(&bin)).await.is_ok());
        });
    }

    #[test]
    fn failure_close_codes() {
        assert_eq!(failure_close_code(&WebSocketError::InvalidUTF8), Some(1007));
        assert_eq!(
            failure_close_code(&WebSocketError::FrameTooLarge),
            Some(1009)
        );
        assert_eq!(
            failure_close_code(&WebSocketError::ReservedBitsNotZero),
            Some(1002)
        );
        assert_eq!(failure_close_code(&WebSocketError::UnexpectedEOF), None);
        let corrupt = DeflateError::Corrupt("invalid block type".into());
        let io = std::io::Error::new(std::io::ErrorKind::InvalidData, corrupt.clone());
        let e = WebSocketError::IoError(io);
        assert_eq!(deflate_failure(&e), Some(&corrupt));
        assert_eq!(failure_close_code(&e), Some(1007));
        let other = WebSocketError::IoError(std::io::ErrorKind::InvalidData.into());
        assert_eq!(
            (deflate_failure(&other), failure_close_code(&other)),
            (None, None)
        );
        assert_eq!(close_code(b"\x03\xe8bye"), Some(1000));
        assert_eq!(close_code(b""), None);
    }

    #[test]
    fn premasked_frames_match_the_direct_encoder() {
        use crate::protocol::premask::PremaskedBodies;
        use crate::transport::outqueue::{OutQueue, MAX_IOV};
        use std::io::IoSlice;
        let mut masks = MaskGen::new(9);
        for size in [4096usize, 4099, 65536, 70001] {
            let t = template(size);
            let mut seq = [0u8; 16];
            write_seq(&mut seq, 0x1234 + size as u64);
            let framings: [(&[u8], &[u8]); 3] =
                [(b"", b""), (b"42[\"echo\",\"", b"\"]"), (b"abc", b"x")];
            for (prefix, suffix) in framings {
                let bodies = PremaskedBodies::new(&t[16..], prefix.len() + 16, 3, &mut masks);
                for _ in 0..4 {
                    let (key, body) = bodies.pick(&mut masks);
                    let mut q = OutQueue::new();
                    q.extend_from_slice(b"before");
                    encode_client_frame_premasked(
                        &mut q,
                        OpCode::Text,
                        prefix,
                        &seq,
                        (key, body),
                        suffix,
                    );
                    let mut slices = [IoSlice::new(&[]); MAX_IOV];
                    let n = q.io_slices(&mut slices);
                    let ours: Vec<u8> =
                        slices[..n].iter().flat_map(|s| s.iter().copied()).collect();
                    assert_eq!(ours.len(), q.len());
                    let mut theirs = b"before".to_vec();
                    encode_client_frame(
                        &mut theirs,
                        OpCode::Text,
                        prefix,
                        Some((&seq, &t)),
                        suffix,
                        key,
                    );
                    assert_eq!(ours, theirs, "size {size}, prefix {prefix:?}");
                }
            }
        }
    }
}
