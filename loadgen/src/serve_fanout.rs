//! The reference server's `/broadcast` and `/market` endpoints (PROTOCOL.md).
//!
//! Each connection is split: a task reads its frames (fastwebsockets over the read half,
//! with automatic pongs and close replies off), and its write half, behind an async lock,
//! sits in the hub's list of subscribers of its endpoint. A message to relay is encoded
//! once (server frames are unmasked, so the same bytes go to everyone) and written to
//! every other subscriber in turn, each write awaiting that subscriber's socket: the
//! reference server **waits** for a slow subscriber, and the publisher's next message
//! waits with it. `/market` decodes each text message as JSON (serde_json): a `tick` is
//! relayed like a broadcast message, an `order` is answered with its `ack`.

use std::collections::HashMap;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};

use fastwebsockets::{OpCode, Role, WebSocket};
use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

use crate::conn::{read_leftover, Conn};
use crate::ws::MAX_MESSAGE_SIZE;

/// The path of the fan-out endpoint.
pub const BROADCAST_PATH: &str = "/broadcast";
/// The path of the market-data endpoint.
pub const MARKET_PATH: &str = "/market";

type Writer = Arc<tokio::sync::Mutex<OwnedWriteHalf>>;
/// (server port, endpoint path).
type Topic = (u16, &'static str);

/// Subscribers by (server port, endpoint): several servers may run in one process (tests).
#[derive(Default)]
struct Hub {
    subscribers: Mutex<HashMap<Topic, Vec<(u64, Writer)>>>,
    next_id: AtomicU64,
}

fn hub() -> &'static Hub {
    static HUB: OnceLock<Hub> = OnceLock::new();
    HUB.get_or_init(Hub::default)
}

impl Hub {
    fn join(&self, key: Topic, w: Writer) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut subs = self.subscribers.lock().unwrap_or_else(|e| e.into_inner());
        subs.entry(key).or_default().push((id, w));
        id
    }

    fn leave(&self, key: Topic, id: u64) {
        let mut subs = self.subscribers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = subs.get_mut(&key) {
            v.retain(|(i, _)| *i != id);
        }
    }

    /// Every subscriber of `key` but `except`.
    fn others(&self, key: Topic, except: u64) -> Vec<(u64, Writer)> {
        let subs = self.subscribers.lock().unwrap_or_else(|e| e.into_inner());
        subs.get(&key)
            .map(|v| v.iter().filter(|(i, _)| *i != except).cloned().collect())
            .unwrap_or_default()
    }
}

/// One unmasked server frame (FIN set).
pub fn server_frame(opcode: OpCode, payload: &[u8]) -> Vec<u8> {
    let code: u8 = match opcode {
        OpCode::Text => 1,
        OpCode::Binary => 2,
        OpCode::Close => 8,
        OpCode::Ping => 9,
        OpCode::Pong => 10,
        OpCode::Continuation => 0,
    };
    let mut v = Vec::with_capacity(payload.len() + 10);
    v.push(0x80 | code);
    match payload.len() {
        n if n < 126 => v.push(n as u8),
        n if n <= 0xffff => {
            v.push(126);
            v.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            v.push(127);
            v.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    v.extend_from_slice(payload);
    v
}

/// The read half, after the bytes that came with the upgrade request; writes are refused
/// (fastwebsockets is told never to write: pongs and close replies go through the
/// connection's writer).
struct ReadSide {
    pre: Vec<u8>,
    pos: usize,
    rd: OwnedReadHalf,
}

impl AsyncRead for ReadSide {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if read_leftover(&mut this.pre, &mut this.pos, buf) {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.rd).poll_read(cx, buf)
    }
}

impl AsyncWrite for ReadSide {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, _: &[u8]) -> Poll<io::Result<usize>> {
        Poll::Ready(Err(io::Error::other("read side of a split connection")))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[derive(Deserialize)]
struct MarketMsg {
    #[serde(rename = "type")]
    kind: String,
    id: Option<serde_json::Value>,
}

/// What a received message asks for.
enum Action {
    Relay,
    Reply(Vec<u8>),
    Close(u16),
}

/// `/market`: the action for one text message (PROTOCOL.md).
fn market_action(payload: &[u8]) -> Action {
    let Ok(m) = serde_json::from_slice::<MarketMsg>(payload) else {
        return Action::Close(1007);
    };
    match (m.kind.as_str(), m.id) {
        ("tick", _) => Action::Relay,
        ("order", Some(id)) => {
            // Spaced as Python's json.dumps.
            let ack = format!(r#"{{"type": "ack", "id": {id}, "ok": true}}"#);
            Action::Reply(server_frame(OpCode::Text, ack.as_bytes()))
        }
        _ => Action::Close(1007),
    }
}

/// Serves one upgraded connection on `/broadcast` or `/market` until it closes.
pub async fn fanout_loop(ws: WebSocket<Conn>, path: &'static str) {
    let (tcp, pre) = ws.into_inner().into_parts();
    let Ok(local) = tcp.local_addr() else {
        return;
    };
    let key = (local.port(), path);
    let (rd, wr) = tcp.into_split();
    let writer: Writer = Arc::new(tokio::sync::Mutex::new(wr));
    let id = hub().join(key, writer.clone());
    let mut reader = WebSocket::after_handshake(ReadSide { pre, pos: 0, rd }, Role::Server);
    reader.set_auto_close(false);
    reader.set_auto_pong(false);
    reader.set_max_message_size(MAX_MESSAGE_SIZE);
    let market = path == MARKET_PATH;
    loop {
        let Ok(frame) = reader.read_frame().await else {
            break;
        };
        let action = match frame.opcode {
            OpCode::Close => {
                let code = frame
                    .payload
                    .get(..2)
                    .map_or(1000, |b| u16::from_be_bytes([b[0], b[1]]));
                let _ = writer
                    .lock()
                    .await
                    .write_all(&server_frame(OpCode::Close, &code.to_be_bytes()))
                    .await;
                break;
            }
            OpCode::Ping => Action::Reply(server_frame(OpCode::Pong, &frame.payload)),
            OpCode::Pong | OpCode::Continuation => continue,
            OpCode::Text if market => market_action(&frame.payload),
            OpCode::Binary if market => Action::Close(1003),
            OpCode::Text | OpCode::Binary => Action::Relay,
        };
        match action {
            Action::Relay => {
                let bytes = server_frame(frame.opcode, &frame.payload);
                for (other, w) in hub().others(key, id) {
                    if w.lock().await.write_all(&bytes).await.is_err() {
                        hub().leave(key, other);
                    }
                }
            }
            Action::Reply(bytes) => {
                if writer.lock().await.write_all(&bytes).await.is_err() {
                    break;
                }
            }
            Action::Close(code) => {
                let _ = writer
                    .lock()
                    .await
                    .write_all(&server_frame(OpCode::Close, &code.to_be_bytes()))
                    .await;
                break;
            }
        }
    }
    hub().leave(key, id);
}
