//! The reference server's fan-out: the `/broadcast` and `/market` endpoints (PROTOCOL.md),
//! and the rooms of its Socket.IO endpoint ([`crate::serve::sio`]), which share the hub,
//! the split connections and the relay defined here.
//!
//! A subscriber's connection is split (`SplitConn`): its task reads frames (fastwebsockets
//! over the read half; pings and close frames are answered through the writer), and its
//! write half, behind an async lock, sits in the hub's list of members of its channel (an
//! endpoint, or a Socket.IO room). Over TLS the halves share the connection's rustls
//! session (see [`crate::transport::stream::Stream::into_split`]), and every write of
//! whole frames is flushed, so that no record waits in rustls for the next write. A message to relay is encoded once (server frames are
//! unmasked, so the same bytes go to everyone) and written to every other member in turn,
//! each write awaiting that member's socket (`relay`): the reference server **waits**
//! for a slow subscriber, and the publisher's next message waits with it. `/market`
//! decodes each text message as JSON (serde_json): a `tick` is relayed like a broadcast
//! message, an `order` is answered with its `ack`.

use std::cell::Cell;
use std::collections::HashMap;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};

use fastwebsockets::{Frame, OpCode, Payload, WebSocket, WebSocketError, WebSocketRead};
use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncWriteExt, ReadBuf};

use crate::protocol::ws::{read_message, FrameSource};
use crate::transport::conn::{read_leftover, Conn};
use crate::transport::stream::{ReadHalf, WriteHalf};

/// The path of the fan-out endpoint.
pub const BROADCAST_PATH: &str = "/broadcast";
/// The path of the market-data endpoint.
pub const MARKET_PATH: &str = "/market";

/// The write half of a split connection, shared by its own task and every relay to it;
/// whoever holds the lock writes whole frames (a Socket.IO packet with its attachments),
/// so nothing comes between them, with [`write_frames`].
pub(crate) type Writer = Arc<tokio::sync::Mutex<WriteHalf>>;

/// Writes `bytes` (whole frames) to `w`, awaiting the socket; over TLS then flushes the
/// records rustls still holds (plain TCP holds none: no flush).
pub(crate) async fn write_frames(w: &mut WriteHalf, bytes: &[u8]) -> io::Result<()> {
    w.write_all(bytes).await?;
    match w {
        WriteHalf::Tcp(_) => Ok(()),
        WriteHalf::Tls(_) => w.flush().await,
    }
}

/// What a connection subscribes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Channel {
    /// A plain WebSocket endpoint (every connection to it), by path.
    Endpoint(&'static str),
    /// A Socket.IO room of the main namespace, by name.
    Room(&'static str),
}

/// (server port, channel): several servers may run in one process (tests).
type Topic = (u16, Channel);

/// Members of every channel, each with its connection id and writer.
#[derive(Default)]
struct Hub {
    members: Mutex<HashMap<Topic, Vec<(u64, Writer)>>>,
    next_id: AtomicU64,
}

fn hub() -> &'static Hub {
    static HUB: OnceLock<Hub> = OnceLock::new();
    HUB.get_or_init(Hub::default)
}

impl Hub {
    fn join(&self, key: Topic, id: u64, w: Writer) {
        let mut m = self.members.lock().unwrap_or_else(|e| e.into_inner());
        m.entry(key).or_default().push((id, w));
    }

    fn leave(&self, key: Topic, id: u64) {
        let mut m = self.members.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = m.get_mut(&key) {
            v.retain(|(i, _)| *i != id);
        }
    }

    /// Every member of `key` but `except`.
    fn others(&self, key: Topic, except: Option<u64>) -> Vec<(u64, Writer)> {
        let m = self.members.lock().unwrap_or_else(|e| e.into_inner());
        m.get(&key)
            .map(|v| {
                v.iter()
                    .filter(|(i, _)| Some(*i) != except)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// A split connection's place in the hub: the channels it joined, left when it is
/// dropped (the connection closed or failed).
pub(crate) struct Member {
    id: u64,
    port: u16,
    writer: Writer,
    joined: Vec<Channel>,
}

impl Member {
    /// A member of no channel yet, for `conn` on the server listening on `port`.
    pub(crate) fn new(port: u16, conn: &SplitConn) -> Self {
        Member {
            id: hub().next_id.fetch_add(1, Ordering::Relaxed),
            port,
            writer: conn.writer.clone(),
            joined: Vec::new(),
        }
    }

    /// The id a relay from this connection skips.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Joins `channel` (once: joining again changes nothing).
    pub(crate) fn join(&mut self, channel: Channel) {
        if !self.joined.contains(&channel) {
            hub().join((self.port, channel), self.id, self.writer.clone());
            self.joined.push(channel);
        }
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        for &c in &self.joined {
            hub().leave((self.port, c), self.id);
        }
    }
}

/// Writes `bytes` (whole frames) to every member of `channel` on the server listening on
/// `port` but `except`, in turn, each write awaiting that member's socket (**waits**); a
/// member whose write fails leaves the channel.
pub(crate) async fn relay(port: u16, channel: Channel, except: Option<u64>, bytes: &[u8]) {
    let key = (port, channel);
    for (other, w) in hub().others(key, except) {
        if write_frames(&mut *w.lock().await, bytes).await.is_err() {
            hub().leave(key, other);
        }
    }
}

/// Appends one unmasked server frame (FIN set) to `out`.
pub fn append_server_frame(out: &mut Vec<u8>, opcode: OpCode, payload: &[u8]) {
    let code: u8 = match opcode {
        OpCode::Text => 1,
        OpCode::Binary => 2,
        OpCode::Close => 8,
        OpCode::Ping => 9,
        OpCode::Pong => 10,
        OpCode::Continuation => 0,
    };
    out.reserve(payload.len() + 10);
    out.push(0x80 | code);
    match payload.len() {
        n if n < 126 => out.push(n as u8),
        n if n <= 0xffff => {
            out.push(126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(payload);
}

/// One unmasked server frame (FIN set).
pub fn server_frame(opcode: OpCode, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(payload.len() + 10);
    append_server_frame(&mut v, opcode, payload);
    v
}

/// The read half, after the bytes that came with the upgrade request.
struct ReadSide {
    pre: Vec<u8>,
    pos: usize,
    rd: ReadHalf,
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

/// A connection split into a reader (fastwebsockets' read half, keeping the bytes it has
/// already buffered) and a [`Writer`] that relays from other connections share. Frames
/// are written whole with [`SplitConn::send`], one system call each (no batching).
pub(crate) struct SplitConn {
    reader: WebSocketRead<ReadSide>,
    writer: Writer,
}

impl SplitConn {
    /// Splits `ws` after sending whatever it has pending; the reader keeps its settings
    /// (automatic pongs and close replies, sent through the writer; the message size
    /// limit).
    pub(crate) async fn new(mut ws: WebSocket<Conn>) -> Result<Self, WebSocketError> {
        ws.flush().await?;
        let write_half = Cell::new(None);
        let (reader, _) = ws.split(|conn: Conn| {
            let (stream, pre) = conn.into_parts();
            let (rd, wr) = stream.into_split();
            write_half.set(Some(wr));
            (ReadSide { pre, pos: 0, rd }, tokio::io::sink())
        });
        let wr = write_half.into_inner().expect("the split function ran");
        Ok(SplitConn {
            reader,
            writer: Arc::new(tokio::sync::Mutex::new(wr)),
        })
    }

    /// Writes `bytes` (whole frames) once the writer is free, awaiting the socket.
    pub(crate) async fn send(&self, bytes: &[u8]) -> io::Result<()> {
        write_frames(&mut *self.writer.lock().await, bytes).await
    }
}

impl FrameSource for SplitConn {
    async fn next_frame(&mut self) -> Result<Frame<'static>, WebSocketError> {
        let writer = &self.writer;
        // Pongs and close replies fastwebsockets owes the peer.
        let mut obligated = |f: Frame<'_>| {
            let bytes = server_frame(f.opcode, &f.payload);
            async move { write_frames(&mut *writer.lock().await, &bytes).await }
        };
        let f = self.reader.read_frame(&mut obligated).await?;
        // The payload is owned (fastwebsockets splits it off its read buffer).
        let payload = match f.payload {
            Payload::Bytes(b) => Payload::Bytes(b),
            Payload::Owned(v) => Payload::Owned(v),
            p => Payload::Owned(p.to_vec()),
        };
        Ok(Frame::new(f.fin, f.opcode, None, payload))
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

/// The acknowledgement of the order with `id`, as Python writes
/// `json.dumps({"type": "ack", "id": id, "ok": True})`: spaced (`/market`, PROTOCOL.md) or
/// `compact` (python-socketio's packet encoder, separators `(",", ":")`). The id is written
/// by serde_json: the same bytes as Python's for the hexadecimal strings the load
/// generator sends (not for every JSON value: e.g. Python escapes non-ASCII characters).
pub(crate) fn ack_json(id: &serde_json::Value, compact: bool) -> String {
    if compact {
        format!(r#"{{"type":"ack","id":{id},"ok":true}}"#)
    } else {
        format!(r#"{{"type": "ack", "id": {id}, "ok": true}}"#)
    }
}

/// `/market`: the action for one text message (PROTOCOL.md).
fn market_action(payload: &[u8]) -> Action {
    let Ok(m) = serde_json::from_slice::<MarketMsg>(payload) else {
        return Action::Close(1007);
    };
    match (m.kind.as_str(), m.id) {
        ("tick", _) => Action::Relay,
        ("order", Some(id)) => {
            let ack = ack_json(&id, false);
            Action::Reply(server_frame(OpCode::Text, ack.as_bytes()))
        }
        _ => Action::Close(1007),
    }
}

/// Serves one upgraded connection on `/broadcast` or `/market` of the server listening on
/// `port` until it closes.
pub async fn fanout_loop(ws: WebSocket<Conn>, port: u16, path: &'static str) {
    let Ok(mut conn) = SplitConn::new(ws).await else {
        return;
    };
    let channel = Channel::Endpoint(path);
    let mut member = Member::new(port, &conn);
    member.join(channel);
    let market = path == MARKET_PATH;
    loop {
        let Ok(msg) = read_message(&mut conn).await else {
            break;
        };
        let action = match msg.opcode {
            // The close reply went out with the read (SplitConn::next_frame).
            OpCode::Close => break,
            OpCode::Text if market => market_action(&msg.payload),
            OpCode::Binary if market => Action::Close(1003),
            _ => Action::Relay,
        };
        match action {
            Action::Relay => {
                let bytes = server_frame(msg.opcode, &msg.payload);
                relay(port, channel, Some(member.id()), &bytes).await;
            }
            Action::Reply(bytes) => {
                if conn.send(&bytes).await.is_err() {
                    break;
                }
            }
            Action::Close(code) => {
                let close = server_frame(OpCode::Close, &code.to_be_bytes());
                let _ = conn.send(&close).await;
                break;
            }
        }
    }
}
