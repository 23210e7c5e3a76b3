//! The reference server's Socket.IO endpoint `/socket.io/` (PROTOCOL.md, "Socket.IO
//! servers"): Engine.IO v4 over the websocket transport only, the main namespace `/`,
//! events `echo`, `push` and `json`.
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
//! - Heartbeat: a ping `2` every `ping_interval`, sent between messages (after a read,
//!   and every 64 pushed events), so an idle connection gets none; pongs are counted, not
//!   enforced.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fastwebsockets::{Frame, OpCode, Payload, WebSocket, WebSocketError};

use crate::conn::Conn;
use crate::jsonmsg::{json_reply_compact, JsonRequest, JSON_EVENT};
use crate::payload::{template, write_seq, MIN_SIZE};
use crate::serve::PushRequest;
use crate::socketio::{
    binary_event_header, decode_packet, encode_packet, parse_event, string_event_prefix,
    PacketType, ECHO_EVENT, EIO_CLOSE, EIO_MESSAGE, EIO_PING, EIO_PONG, PUSH_EVENT,
    STRING_EVENT_SUFFIX,
};
use crate::ws::{read_message, Message, MAX_MESSAGE_SIZE};

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

struct SioServer {
    ws: WebSocket<Conn>,
    opts: SioOptions,
    sid: String,
    next_ping: Instant,
}

type Res = Result<(), WebSocketError>;

/// Serves one upgraded `/socket.io/` connection until the client goes away.
pub async fn sio_loop(ws: WebSocket<Conn>, opts: SioOptions) {
    static SESSIONS: AtomicU64 = AtomicU64::new(0);
    let n = SESSIONS.fetch_add(1, Ordering::Relaxed);
    let mut s = SioServer {
        ws,
        next_ping: Instant::now() + opts.ping_interval,
        opts,
        sid: format!("wsbench{n:013}"),
    };
    let _ = s.run().await;
}

impl SioServer {
    async fn text(&mut self, bytes: &[u8]) -> Res {
        let frame = Frame::new(true, OpCode::Text, None, Payload::Borrowed(bytes));
        self.ws.write_frame(frame).await
    }

    async fn maybe_ping(&mut self) -> Res {
        let now = Instant::now();
        if now >= self.next_ping {
            self.next_ping = now + self.opts.ping_interval;
            if let Some(st) = &self.opts.stats {
                st.pings.fetch_add(1, Ordering::Relaxed);
            }
            self.text(&[EIO_PING]).await?;
            self.ws.flush().await?;
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
        self.ws.flush().await?;
        // A BINARY_EVENT waiting for its attachments.
        let mut pending: Option<(Message, usize)> = None;
        let mut attachments: Vec<Message> = Vec::new();
        loop {
            self.maybe_ping().await?;
            let msg = read_message(&mut self.ws).await?;
            match msg.opcode {
                OpCode::Close => return self.ws.flush().await,
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
        let (name, data_start) = {
            let s = &text.payload[1..];
            let Ok(p) = decode_packet(s) else {
                return Ok(());
            };
            let Ok(ev) = parse_event(p.data) else {
                return Ok(());
            };
            (ev.name.into_owned(), 1 + s.len() - p.data.len())
        };
        if name == ECHO_EVENT.as_bytes() {
            // Emit the same event with the same arguments: the same frames.
            let frame = Frame::new(true, OpCode::Text, None, text.payload);
            self.ws.write_frame(frame).await?;
            for a in attachments {
                let frame = Frame::new(true, OpCode::Binary, None, a.payload);
                self.ws.write_frame(frame).await?;
            }
            Ok(())
        } else if name == PUSH_EVENT.as_bytes() {
            let req = serde_json::from_slice::<(String, PushRequest)>(&text.payload[data_start..]);
            match req {
                Ok((_, r)) if r.count >= 1 && (MIN_SIZE..=MAX_MESSAGE_SIZE).contains(&r.size) => {
                    self.push(r).await
                }
                _ => Ok(()),
            }
        } else if name == JSON_EVENT.as_bytes() {
            let req =
                serde_json::from_slice::<(String, JsonRequest<'_>)>(&text.payload[data_start..]);
            match req {
                Ok((_, r)) => {
                    let mut v = vec![EIO_MESSAGE];
                    let data = format!(r#"["{JSON_EVENT}",{}]"#, json_reply_compact(&r.seq));
                    encode_packet(&mut v, PacketType::Event, 0, "/", None, data.as_bytes());
                    self.text(&v).await
                }
                Err(_) => Ok(()),
            }
        } else {
            Ok(())
        }
    }

    async fn push(&mut self, req: PushRequest) -> Res {
        if req.binary {
            let header = binary_event_header(PUSH_EVENT);
            let header = &header[..];
            let mut buf = template(req.size);
            for i in 0..req.count {
                write_seq(&mut buf, i);
                let h = Frame::new(true, OpCode::Text, None, Payload::Borrowed(header));
                self.ws.write_frame(h).await?;
                let b = Frame::new(true, OpCode::Binary, None, Payload::Borrowed(&buf));
                self.ws.write_frame(b).await?;
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
                let f = Frame::new(true, OpCode::Text, None, Payload::Borrowed(&buf));
                self.ws.write_frame(f).await?;
                if i % 64 == 63 {
                    self.maybe_ping().await?;
                }
            }
        }
        self.ws.flush().await
    }
}
