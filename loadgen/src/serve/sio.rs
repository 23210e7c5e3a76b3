//! The reference server's Socket.IO endpoint `/socket.io/` (PROTOCOL.md, "Socket.IO
//! servers"): Engine.IO v4 over the websocket transport only, the main namespace `/`,
//! events `echo`, `push` and `json`, and the rooms of `subscribe`, `broadcast`, `tick` and
//! `order` ("Socket.IO: fan-out and market data").
//!
//! - Open: sends the Engine.IO open packet, answers the client's `40` with
//!   `40{"sid":…}` (another namespace: CONNECT_ERROR).
//! - `echo`: the event goes back unchanged (same packet, same attachments), in order.
//! - `push` with `{"count":C,"size":S,"binary":B}`: C `push` events, each carrying
//!   message i as a string (`42["push","…"]`) or as one binary attachment
//!   (`451-["push",{"_placeholder":true,"num":0}]` + a binary frame), written with the
//!   same backpressure as `/push`; stops quietly when the client goes away.
//! - `json` with one argument, an object with a string `seq` (PROTOCOL.md, "Endpoint
//!   /json"): emits `json` back with `{"seq":"<seq>","ok":true}` (compact, as
//!   python-socketio's encoder writes it); another argument is ignored.
//! - `subscribe` with one argument, `"broadcast"` or `"market"`: the client joins that
//!   room (any other name is ignored: nothing is ever emitted to another room). Its
//!   connection is then split (`crate::serve::fanout::SplitConn`): its write half joins
//!   the room in the hub `/broadcast` and `/market` use, and from then on everything sent
//!   to it, its own replies as well, is written whole, one packet (with its attachments)
//!   at a time, without write batching. A connection in no room keeps the batched writes.
//! - `broadcast` (one argument: a string, or one binary attachment) and `tick` (one
//!   argument: the tick object): the event is emitted with the same argument to every
//!   member of the room `"broadcast"`, respectively `"market"`, but the sender (another
//!   number of arguments is ignored: python-socketio's handler would raise). The packet,
//!   without an acknowledgement id if it had one, and its attachments are encoded once
//!   and written to each member in turn, each write awaiting that member's socket (the
//!   reference server **waits** for a slow subscriber, as on `/broadcast`). The argument
//!   is relayed as received (python-socketio decodes it and encodes it again, compact).
//! - `order` with one argument, an object with an `id`: emits `ack` to the sender with
//!   `{"type":"ack","id":<id>,"ok":true}` (compact, as python-socketio encodes it).
//! - Heartbeat: a ping `2` every `ping_interval`, sent between messages (after a read,
//!   and every 64 pushed events), so an idle connection gets none; pongs are counted, not
//!   enforced.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fastwebsockets::{Frame, OpCode, Payload, WebSocket, WebSocketError};
use serde::de::IgnoredAny;
use serde::Deserialize;

use crate::modes::fanout::{ACK_EVENT, BROADCAST_EVENT, ORDER_EVENT, SUBSCRIBE_EVENT, TICK_EVENT};
use crate::protocol::jsonmsg::{json_reply_compact, JsonRequest, JSON_EVENT};
use crate::protocol::payload::{template, write_seq, MIN_SIZE};
use crate::protocol::socketio::{
    binary_event_header, decode_packet, encode_packet, json_event, parse_event,
    string_event_prefix, Arg, PacketType, ECHO_EVENT, EIO_CLOSE, EIO_MESSAGE, EIO_PING, EIO_PONG,
    PUSH_EVENT, STRING_EVENT_SUFFIX,
};
use crate::protocol::ws::{read_message, Message, MAX_MESSAGE_SIZE};
use crate::serve::fanout::{ack_json, append_server_frame, relay, Channel, Member, SplitConn};
use crate::serve::request::PushRequest;
use crate::transport::conn::Conn;

/// The room of the `broadcast` event (PROTOCOL.md, "Socket.IO: fan-out and market data").
pub const BROADCAST_ROOM: &str = "broadcast";
/// The room of the `tick` event.
pub const MARKET_ROOM: &str = "market";

/// Engine.IO ping interval of `serve` (python-engineio's default, 25 s).
pub const DEFAULT_PING_INTERVAL: Duration = Duration::from_secs(25);

/// Heartbeat counters of a Socket.IO server (for tests).
#[derive(Debug, Default)]
pub struct SioStats {
    /// Pings sent.
    pub pings: AtomicU64,
    /// Pongs received.
    pub pongs: AtomicU64,
}

/// Settings of [`sio_loop`].
#[derive(Debug, Clone)]
pub struct SioOptions {
    /// Interval between Engine.IO pings.
    pub ping_interval: Duration,
    /// Where to count pings and pongs, if anywhere.
    pub stats: Option<Arc<SioStats>>,
}

impl Default for SioOptions {
    fn default() -> Self {
        SioOptions {
            ping_interval: DEFAULT_PING_INTERVAL,
            stats: None,
        }
    }
}

/// How a session's frames travel.
enum SioIo {
    /// In no room: fastwebsockets over the write-batching [`Conn`].
    Whole(WebSocket<Conn>),
    /// In a room: split, its writer shared with the relays of the room's other members.
    Split(SplitConn, Member),
    /// While splitting, and after a split that failed.
    Gone,
}

/// No attachment.
const NONE: &[&[u8]] = &[];

/// The frames of one packet, its text frame then its attachments, as one buffer.
fn packet_frames(text: &[u8], attachments: &[&[u8]]) -> Vec<u8> {
    let mut v = Vec::with_capacity(text.len() + 10);
    append_server_frame(&mut v, OpCode::Text, text);
    for a in attachments {
        append_server_frame(&mut v, OpCode::Binary, a);
    }
    v
}

impl SioIo {
    async fn read(&mut self) -> Result<Message, WebSocketError> {
        match self {
            SioIo::Whole(ws) => read_message(ws).await,
            SioIo::Split(conn, _) => read_message(conn).await,
            SioIo::Gone => Err(WebSocketError::ConnectionClosed),
        }
    }

    /// Writes one packet: its text frame, then its binary attachments (split: in one
    /// write, so that no relay from another connection comes between them).
    async fn send(&mut self, text: &[u8], attachments: &[&[u8]]) -> Res {
        match self {
            SioIo::Whole(ws) => {
                let frame = Frame::new(true, OpCode::Text, None, Payload::Borrowed(text));
                ws.write_frame(frame).await?;
                for a in attachments {
                    let frame = Frame::new(true, OpCode::Binary, None, Payload::Borrowed(a));
                    ws.write_frame(frame).await?;
                }
                Ok(())
            }
            SioIo::Split(conn, _) => conn
                .send(&packet_frames(text, attachments))
                .await
                .map_err(WebSocketError::IoError),
            SioIo::Gone => Err(WebSocketError::ConnectionClosed),
        }
    }

    async fn flush(&mut self) -> Res {
        match self {
            SioIo::Whole(ws) => ws.flush().await,
            // Split: every write has reached the socket already.
            _ => Ok(()),
        }
    }

    /// This connection's place in the hub of the server listening on `port`; the first
    /// call splits the connection.
    async fn member(&mut self, port: u16) -> Result<&mut Member, WebSocketError> {
        *self = match std::mem::replace(self, SioIo::Gone) {
            SioIo::Whole(ws) => {
                let conn = SplitConn::new(ws).await?;
                let member = Member::new(port, &conn);
                SioIo::Split(conn, member)
            }
            split_or_gone => split_or_gone,
        };
        match self {
            SioIo::Split(_, m) => Ok(m),
            _ => Err(WebSocketError::ConnectionClosed),
        }
    }

    /// The id relays from this connection skip (`None`: in no room).
    fn member_id(&self) -> Option<u64> {
        match self {
            SioIo::Split(_, m) => Some(m.id()),
            _ => None,
        }
    }
}

struct SioServer {
    io: SioIo,
    /// The server's port: rooms are per server.
    port: u16,
    opts: SioOptions,
    sid: String,
    next_ping: Instant,
}

type Res = Result<(), WebSocketError>;

/// The argument of an `order` event: only `id` is used.
#[derive(Deserialize)]
struct Order {
    id: serde_json::Value,
}

/// The room `subscribe` joins, for the names events are emitted to.
fn room_named(name: &[u8]) -> Option<&'static str> {
    [BROADCAST_ROOM, MARKET_ROOM]
        .into_iter()
        .find(|r| r.as_bytes() == name)
}

/// Serves one upgraded `/socket.io/` connection of the server listening on `port` (see
/// [`crate::transport::handshake::Upgraded`]) until the client goes away.
pub async fn sio_loop(ws: WebSocket<Conn>, port: u16, opts: SioOptions) {
    static SESSIONS: AtomicU64 = AtomicU64::new(0);
    let n = SESSIONS.fetch_add(1, Ordering::Relaxed);
    let mut s = SioServer {
        io: SioIo::Whole(ws),
        port,
        next_ping: Instant::now() + opts.ping_interval,
        opts,
        sid: format!("wsbench{n:013}"),
    };
    let _ = s.run().await;
}

impl SioServer {
    async fn text(&mut self, bytes: &[u8]) -> Res {
        self.io.send(bytes, NONE).await
    }

    async fn maybe_ping(&mut self) -> Res {
        let now = Instant::now();
        if now >= self.next_ping {
            self.next_ping = now + self.opts.ping_interval;
            if let Some(st) = &self.opts.stats {
                st.pings.fetch_add(1, Ordering::Relaxed);
            }
            self.text(&[EIO_PING]).await?;
            self.io.flush().await?;
        }
        Ok(())
    }

    async fn run(&mut self) -> Res {
        let open = format!(
            r#"0{{"sid":"{}","upgrades":[],"pingInterval":{},"pingTimeout":20000,"maxPayload":{}}}"#,
            self.sid,
            self.opts.ping_interval.as_millis(),
            MAX_MESSAGE_SIZE
        );
        self.text(open.as_bytes()).await?;
        self.io.flush().await?;
        // A BINARY_EVENT waiting for its attachments.
        let mut pending: Option<(Message, usize)> = None;
        let mut attachments: Vec<Message> = Vec::new();
        loop {
            self.maybe_ping().await?;
            let msg = self.io.read().await?;
            match msg.opcode {
                OpCode::Close => return self.io.flush().await,
                OpCode::Binary => {
                    let Some((_, expected)) = &pending else {
                        return Ok(()); // protocol error: drop the connection
                    };
                    attachments.push(msg);
                    if attachments.len() == *expected {
                        let (text, _) = pending.take().expect("pending event");
                        self.on_event(text, std::mem::take(&mut attachments))
                            .await?;
                    }
                }
                _ => {
                    if pending.is_some() {
                        return Ok(());
                    }
                    match msg.payload.first() {
                        Some(&EIO_MESSAGE) => {}
                        Some(&EIO_PONG) => {
                            if let Some(st) = &self.opts.stats {
                                st.pongs.fetch_add(1, Ordering::Relaxed);
                            }
                            continue;
                        }
                        Some(&EIO_PING) => {
                            let mut pong = msg.payload.to_vec();
                            pong[0] = EIO_PONG;
                            self.text(&pong).await?;
                            continue;
                        }
                        Some(&EIO_CLOSE) => return Ok(()),
                        _ => continue,
                    }
                    let Ok(p) = decode_packet(&msg.payload[1..]) else {
                        return Ok(());
                    };
                    let (kind, n, main) = (p.kind, p.attachments, p.namespace == b"/");
                    let nsp = (!main).then(|| String::from_utf8_lossy(p.namespace).into_owned());
                    match kind {
                        PacketType::Connect if main => {
                            let mut v = vec![EIO_MESSAGE];
                            let data = format!(r#"{{"sid":"{}"}}"#, self.sid);
                            encode_packet(&mut v, kind, 0, "/", None, data.as_bytes());
                            self.text(&v).await?;
                        }
                        PacketType::Connect => {
                            let mut v = vec![EIO_MESSAGE];
                            let data = br#"{"message":"Invalid namespace"}"#;
                            let nsp = nsp.as_deref().unwrap_or("/");
                            encode_packet(&mut v, PacketType::ConnectError, 0, nsp, None, data);
                            self.text(&v).await?;
                        }
                        PacketType::Event if main => self.on_event(msg, Vec::new()).await?,
                        PacketType::BinaryEvent if main && n > 0 => pending = Some((msg, n)),
                        PacketType::BinaryEvent if main => self.on_event(msg, Vec::new()).await?,
                        _ => {}
                    }
                }
            }
        }
    }

    /// One event (`text` is its whole `4…` frame) with its attachments.
    async fn on_event(&mut self, text: Message, attachments: Vec<Message>) -> Res {
        let (name, argc, room, data_start) = {
            let s = &text.payload[1..];
            let Ok(p) = decode_packet(s) else {
                return Ok(());
            };
            let Ok(ev) = parse_event(p.data) else {
                return Ok(());
            };
            let room = match (&ev.first, ev.argc) {
                (Some(Arg::Str(r)), 1) => room_named(r),
                _ => None,
            };
            (
                ev.name.into_owned(),
                ev.argc,
                room,
                1 + s.len() - p.data.len(),
            )
        };
        let data = &text.payload[data_start..];
        let parts: Vec<&[u8]> = attachments.iter().map(|a| &a.payload[..]).collect();
        match std::str::from_utf8(&name).unwrap_or("") {
            // Emit the same event with the same arguments: the same frames.
            ECHO_EVENT => self.io.send(&text.payload, &parts).await,
            PUSH_EVENT => match serde_json::from_slice::<(IgnoredAny, PushRequest)>(data) {
                Ok((_, r)) if r.count >= 1 && (MIN_SIZE..=MAX_MESSAGE_SIZE).contains(&r.size) => {
                    self.push(r).await
                }
                _ => Ok(()),
            },
            JSON_EVENT => match serde_json::from_slice::<(IgnoredAny, JsonRequest<'_>)>(data) {
                Ok((_, r)) => {
                    let reply = json_event(JSON_EVENT, &json_reply_compact(&r.seq));
                    self.text(&reply).await
                }
                Err(_) => Ok(()),
            },
            SUBSCRIBE_EVENT => {
                if let Some(room) = room {
                    self.io.member(self.port).await?.join(Channel::Room(room));
                }
                Ok(())
            }
            BROADCAST_EVENT if argc == 1 => {
                self.relay(BROADCAST_ROOM, data, &parts).await;
                Ok(())
            }
            TICK_EVENT if argc == 1 => {
                self.relay(MARKET_ROOM, data, &parts).await;
                Ok(())
            }
            ORDER_EVENT => match serde_json::from_slice::<(IgnoredAny, Order)>(data) {
                Ok((_, order)) => {
                    let ack = json_event(ACK_EVENT, &ack_json(&order.id, true));
                    self.text(&ack).await
                }
                Err(_) => Ok(()),
            },
            _ => Ok(()),
        }
    }

    /// Emits the event whose JSON payload is `data` (name and arguments, placeholders for
    /// the `attachments`) to every member of `room` but this connection.
    async fn relay(&mut self, room: &'static str, data: &[u8], attachments: &[&[u8]]) {
        let n = attachments.len();
        let kind = if n == 0 {
            PacketType::Event
        } else {
            PacketType::BinaryEvent
        };
        let mut packet = vec![EIO_MESSAGE];
        encode_packet(&mut packet, kind, n, "/", None, data);
        let bytes = packet_frames(&packet, attachments);
        relay(self.port, Channel::Room(room), self.io.member_id(), &bytes).await;
    }

    async fn push(&mut self, req: PushRequest) -> Res {
        if req.binary {
            let header = binary_event_header(PUSH_EVENT);
            let header = &header[..];
            let mut buf = template(req.size);
            for i in 0..req.count {
                write_seq(&mut buf, i);
                self.io.send(header, &[&buf]).await?;
                if i % 64 == 63 {
                    self.maybe_ping().await?;
                }
            }
        } else {
            let mut buf = string_event_prefix(PUSH_EVENT);
            let at = buf.len();
            buf.extend_from_slice(&template(req.size));
            buf.extend_from_slice(STRING_EVENT_SUFFIX);
            for i in 0..req.count {
                write_seq(&mut buf[at..], i);
                self.io.send(&buf, NONE).await?;
                if i % 64 == 63 {
                    self.maybe_ping().await?;
                }
            }
        }
        self.io.flush().await
    }
}
