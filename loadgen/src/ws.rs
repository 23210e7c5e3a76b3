//! WebSocket settings and message-level reading on top of fastwebsockets frames.

use std::time::Duration;

use fastwebsockets::{Frame, OpCode, Payload, WebSocket, WebSocketError};

use crate::conn::Conn;

/// Largest message accepted, in bytes (128 MiB; the protocol needs at least 16 MiB).
pub const MAX_MESSAGE_SIZE: usize = 128 << 20;

/// Applies the settings every connection uses: auto-pong and auto-close on, maximum
/// message size [`MAX_MESSAGE_SIZE`], vectored writes on (the [`Conn`] adapter copies
/// them into its buffer, which saves fastwebsockets' own copy for payloads > 1 KiB).
pub fn configure(ws: &mut WebSocket<Conn>) {
    ws.set_auto_pong(true);
    ws.set_auto_close(true);
    ws.set_max_message_size(MAX_MESSAGE_SIZE);
    ws.set_writev(true);
}

/// One complete message (fragments reassembled), or the peer's close frame.
pub struct Message {
    /// `Text`, `Binary` or `Close`.
    pub opcode: OpCode,
    /// Message bytes (for `Close`: the close payload).
    pub payload: Payload<'static>,
}

/// Reads the next data message or close frame; pings and pongs are skipped (pings are
/// answered by fastwebsockets), fragmented messages are reassembled.
pub async fn read_message(ws: &mut WebSocket<Conn>) -> Result<Message, WebSocketError> {
    loop {
        let frame: Frame<'static> = ws.read_frame().await?;
        match frame.opcode {
            OpCode::Text | OpCode::Binary if frame.fin => {
                return Ok(Message {
                    opcode: frame.opcode,
                    payload: frame.payload,
                })
            }
            OpCode::Text | OpCode::Binary => {
                let opcode = frame.opcode;
                let mut acc: Vec<u8> = frame.payload.to_vec();
                loop {
                    let f: Frame<'static> = ws.read_frame().await?;
                    match f.opcode {
                        OpCode::Continuation => {
                            acc.extend_from_slice(&f.payload);
                            if acc.len() > MAX_MESSAGE_SIZE {
                                return Err(WebSocketError::FrameTooLarge);
                            }
                            if f.fin {
                                break;
                            }
                        }
                        OpCode::Ping | OpCode::Pong => {}
                        OpCode::Close => {
                            return Ok(Message {
                                opcode: OpCode::Close,
                                payload: f.payload,
                            })
                        }
                        _ => return Err(WebSocketError::InvalidFragment),
                    }
                }
                if opcode == OpCode::Text && std::str::from_utf8(&acc).is_err() {
                    return Err(WebSocketError::InvalidUTF8);
                }
                return Ok(Message {
                    opcode,
                    payload: Payload::Owned(acc),
                });
            }
            OpCode::Close => {
                return Ok(Message {
                    opcode: OpCode::Close,
                    payload: frame.payload,
                })
            }
            OpCode::Ping | OpCode::Pong => {}
            OpCode::Continuation => return Err(WebSocketError::InvalidContinuationFrame),
        }
    }
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
