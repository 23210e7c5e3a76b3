//! Socket.IO v5 over Engine.IO v4, websocket transport only (`--protocol socketio`).
//!
//! Two layers, as the specifications define them:
//! - **Engine.IO v4** (engine.io-protocol, "Packet encoding" / "WebSocket"): each packet
//!   is one WebSocket frame, `<packet type>[<data>]` in a text frame, where the type is
//!   one ASCII digit: `0` open, `1` close, `2` ping, `3` pong, `4` message, `5` upgrade,
//!   `6` noop. "Binary payloads are sent as is, without modification": a binary frame is
//!   a message packet whose payload is the frame's bytes (no type prefix in v4).
//! - **Socket.IO v5** (socket.io-protocol, "Packet encoding"): a Socket.IO packet is
//!   the payload of an Engine.IO message (prefix `4`), encoded as
//!   `<packet type>[<# of binary attachments>-][<namespace>,][<acknowledgment id>][JSON-stringified payload without binary]`
//!   followed, for BINARY_EVENT and BINARY_ACK, by the attachments, each in its own
//!   binary frame; in the JSON each attachment is replaced by the placeholder
//!   `{"_placeholder":true,"num":N}`. The namespace is only included when it is not `/`.
//!
//! The client ([`SioReader`]) connects to the main namespace `/` (`40`, answered by
//! `40{"sid":…}`), answers every Engine.IO ping `2` with a pong `3` (any time, also
//! mid-run), reassembles binary attachments and hands events to the scenarios.

use std::borrow::Cow;

use fastwebsockets::{OpCode, WebSocket};

use crate::protocol::ws::{read_message, MaskGen, Message};
use crate::report::{classify_ws_error, ErrorKind};
use crate::transport::conn::{Conn, Outbox};

/// Engine.IO packet type `open` (engine.io-protocol v4, "Protocol").
pub const EIO_OPEN: u8 = b'0';
/// Engine.IO packet type `close`.
pub const EIO_CLOSE: u8 = b'1';
/// Engine.IO packet type `ping`.
pub const EIO_PING: u8 = b'2';
/// Engine.IO packet type `pong`.
pub const EIO_PONG: u8 = b'3';
/// Engine.IO packet type `message`.
pub const EIO_MESSAGE: u8 = b'4';
/// Engine.IO packet type `upgrade`.
pub const EIO_UPGRADE: u8 = b'5';
/// Engine.IO packet type `noop`.
pub const EIO_NOOP: u8 = b'6';

/// The request path of Socket.IO servers (engine.io-protocol v4: "the Socket.IO protocol
/// uses `/socket.io/`"), with the query the load generator connects with.
pub const SOCKETIO_TARGET: &str = "/socket.io/?EIO=4&transport=websocket";

/// Event the `echo` scenario emits and expects back.
pub const ECHO_EVENT: &str = "echo";
/// Event the `stream` scenario emits (the request) and expects (the messages).
pub const PUSH_EVENT: &str = "push";

/// Socket.IO packet types (socket.io-protocol v5, "Exchange protocol").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketType {
    /// `0`: connection to a namespace.
    Connect = 0,
    /// `1`: disconnection from a namespace.
    Disconnect = 1,
    /// `2`: an event.
    Event = 2,
    /// `3`: acknowledgement of an event.
    Ack = 3,
    /// `4`: the server refused the connection to a namespace.
    ConnectError = 4,
    /// `5`: an event with binary attachments.
    BinaryEvent = 5,
    /// `6`: an acknowledgement with binary attachments.
    BinaryAck = 6,
}

impl PacketType {
    /// The type of the ASCII digit `d`.
    pub fn from_digit(d: u8) -> Option<Self> {
        Some(match d {
            b'0' => PacketType::Connect,
            b'1' => PacketType::Disconnect,
            b'2' => PacketType::Event,
            b'3' => PacketType::Ack,
            b'4' => PacketType::ConnectError,
            b'5' => PacketType::BinaryEvent,
            b'6' => PacketType::BinaryAck,
            _ => return None,
        })
    }

    /// The ASCII digit of this type.
    pub fn digit(self) -> u8 {
        b'0' + self as u8
    }

    /// BINARY_EVENT or BINARY_ACK: the header carries an attachment count.
    pub fn is_binary(self) -> bool {
        matches!(self, PacketType::BinaryEvent | PacketType::BinaryAck)
    }
}

/// A decoded Socket.IO packet header; `data` borrows the JSON payload (possibly empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet<'a> {
    /// Packet type.
    pub kind: PacketType,
    /// Number of binary attachments that follow (BINARY_EVENT / BINARY_ACK), else 0.
    pub attachments: usize,
    /// Namespace; `/` when the packet has none.
    pub namespace: &'a [u8],
    /// Acknowledgement id, if any.
    pub id: Option<u64>,
    /// JSON payload (not parsed), empty if none.
    pub data: &'a [u8],
}

/// Why a Socket.IO packet or event payload could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// Empty packet.
    Empty,
    /// The first character is not a packet type.
    UnknownType,
    /// Missing or malformed attachment count (`<n>-`).
    BadAttachments,
    /// Acknowledgement id out of range.
    BadId,
    /// The payload is not what the packet type requires (EVENT: a non-empty JSON array
    /// whose first element is the event name).
    BadPayload,
}

/// Decodes one Socket.IO packet (the payload of an Engine.IO message, without the `4`),
/// following the reference parser (socket.io-parser): type digit, for binary types the
/// attachment count up to `-`, then a namespace if the next character is `/` (up to `,`
/// or the end), then an acknowledgement id if digits follow, then the JSON payload.
pub fn decode_packet(s: &[u8]) -> Result<Packet<'_>, DecodeError> {
    let (&t, mut rest) = s.split_first().ok_or(DecodeError::Empty)?;
    let kind = PacketType::from_digit(t).ok_or(DecodeError::UnknownType)?;
    let mut attachments = 0;
    if kind.is_binary() {
        let dash = rest
            .iter()
            .position(|&b| b == b'-')
            .ok_or(DecodeError::BadAttachments)?;
        attachments = parse_decimal(&rest[..dash]).ok_or(DecodeError::BadAttachments)? as usize;
        rest = &rest[dash + 1..];
    }
    let mut namespace: &[u8] = b"/";
    if rest.first() == Some(&b'/') {
        match rest.iter().position(|&b| b == b',') {
            Some(c) => {
                namespace = &rest[..c];
                rest = &rest[c + 1..];
            }
            None => {
                namespace = rest;
                rest = &[];
            }
        }
    }
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let id = if digits > 0 {
        Some(parse_decimal(&rest[..digits]).ok_or(DecodeError::BadId)?)
    } else {
        None
    };
    Ok(Packet {
        kind,
        attachments,
        namespace,
        id,
        data: &rest[digits..],
    })
}

fn parse_decimal(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let mut v: u64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (d - b'0') as u64;
    }
    Some(v)
}

/// Appends the encoding of one Socket.IO packet to `out` (socket.io-protocol v5, "Packet
/// encoding"): `data` is the JSON payload, already stringified with placeholders for
/// the attachments. Prefix the result with [`EIO_MESSAGE`] to send it.
pub fn encode_packet(
    out: &mut Vec<u8>,
    kind: PacketType,
    attachments: usize,
    namespace: &str,
    id: Option<u64>,
    data: &[u8],
) {
    out.push(kind.digit());
    if kind.is_binary() {
        out.extend_from_slice(attachments.to_string().as_bytes());
        out.push(b'-');
    }
    if namespace != "/" {
        out.extend_from_slice(namespace.as_bytes());
        out.push(b',');
    }
    if let Some(id) = id {
        out.extend_from_slice(id.to_string().as_bytes());
    }
    out.extend_from_slice(data);
}

/// One argument of an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg<'a> {
    /// A JSON string, decoded (borrowed when it had no escape sequence).
    Str(Cow<'a, [u8]>),
    /// A binary attachment placeholder `{"_placeholder":true,"num":N}`.
    Placeholder(usize),
    /// Any other JSON value.
    Other,
}

/// An event's name, first argument and number of arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event<'a> {
    /// Event name (decoded JSON string).
    pub name: Cow<'a, [u8]>,
    /// First argument after the name, if any.
    pub first: Option<Arg<'a>>,
    /// Number of arguments after the name.
    pub argc: usize,
}

/// Parses the payload of an EVENT / BINARY_EVENT: a non-empty JSON array whose first
/// element is the event name (socket.io-protocol v5: "The payload is mandatory and MUST
/// be a non-empty array"). A fast path handles the shapes this benchmark exchanges
/// (strings without escapes, placeholders) without allocating; anything else goes
/// through serde_json.
pub fn parse_event(data: &[u8]) -> Result<Event<'_>, DecodeError> {
    match parse_event_fast(data) {
        Some(e) => Ok(e),
        None => parse_event_slow(data),
    }
}

struct Scan<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Scan<'a> {
    fn ws(&mut self) {
        while matches!(self.s.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    /// A string without escape sequences; `None` (fall back) otherwise.
    fn string(&mut self) -> Option<&'a [u8]> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.i;
        let len = self.s[start..]
            .iter()
            .position(|&b| b == b'"' || b == b'\\')?;
        if self.s[start + len] != b'"' {
            return None;
        }
        self.i = start + len + 1;
        Some(&self.s[start..start + len])
    }

    /// Exactly `{"_placeholder":true,"num":N}` (the reference encoding).
    fn placeholder(&mut self) -> Option<usize> {
        const HEAD: &[u8] = br#"{"_placeholder":true,"num":"#;
        self.ws();
        let rest = self.s[self.i..].strip_prefix(HEAD)?;
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if rest.get(digits) != Some(&b'}') {
            return None;
        }
        let n = parse_decimal(&rest[..digits])? as usize;
        self.i += HEAD.len() + digits + 1;
        Some(n)
    }
}

fn parse_event_fast(data: &[u8]) -> Option<Event<'_>> {
    let mut sc = Scan { s: data, i: 0 };
    if !sc.eat(b'[') {
        return None;
    }
    let name = sc.string()?;
    let mut first = None;
    let mut argc = 0;
    while sc.eat(b',') {
        let arg = match sc.peek()? {
            b'"' => Arg::Str(Cow::Borrowed(sc.string()?)),
            b'{' => Arg::Placeholder(sc.placeholder()?),
            _ => return None,
        };
        if argc == 0 {
            first = Some(arg);
        }
        argc += 1;
    }
    if !sc.eat(b']') {
        return None;
    }
    sc.ws();
    (sc.i == data.len()).then_some(Event {
        name: Cow::Borrowed(name),
        first,
        argc,
    })
}

fn parse_event_slow(data: &[u8]) -> Result<Event<'static>, DecodeError> {
    use serde_json::Value;
    let values: Vec<Value> = serde_json::from_slice(data).map_err(|_| DecodeError::BadPayload)?;
    let mut it = values.into_iter();
    let Some(Value::String(name)) = it.next() else {
        return Err(DecodeError::BadPayload);
    };
    let mut argc = 0;
    let mut first = None;
    for v in it {
        if argc == 0 {
            first = Some(match v {
                Value::String(s) => Arg::Str(Cow::Owned(s.into_bytes())),
                Value::Object(o)
                    if o.get("_placeholder") == Some(&Value::Bool(true))
                        && o.get("num").is_some_and(Value::is_u64) =>
                {
                    Arg::Placeholder(o["num"].as_u64().unwrap_or(0) as usize)
                }
                _ => Arg::Other,
            });
        }
        argc += 1;
    }
    Ok(Event {
        name: Cow::Owned(name.into_bytes()),
        first,
        argc,
    })
}

/// What kind of value a received message carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A text frame (WebSocket) or a string argument (Socket.IO).
    Text,
    /// A binary frame (WebSocket) or a binary attachment (Socket.IO).
    Binary,
    /// Anything else: another event, another number of arguments, another JSON type.
    Other,
}

/// A received EVENT or BINARY_EVENT with its attachments.
#[derive(Debug)]
pub struct EventMsg {
    text: Message,
    /// Offset of the JSON payload in `text.payload`.
    data_start: usize,
    attachments: Vec<Message>,
}

impl EventMsg {
    /// The JSON payload of the packet.
    pub fn data(&self) -> &[u8] {
        &self.text.payload[self.data_start..]
    }

    /// The event's single argument and its kind, for an event expected to be `name`
    /// with exactly one argument (a string or one binary attachment). Anything else
    /// is [`Kind::Other`], with the first argument's bytes if it has any (so that a
    /// readable sequence number can still be matched).
    pub fn payload(&self, name: &str) -> (Cow<'_, [u8]>, Kind) {
        let Ok(ev) = parse_event(self.data()) else {
            return (Cow::Borrowed(&[]), Kind::Other);
        };
        let fits = ev.name.as_ref() == name.as_bytes() && ev.argc == 1;
        let (bytes, kind) = match ev.first {
            Some(Arg::Str(s)) => (s, Kind::Text),
            Some(Arg::Placeholder(n)) => match self.attachments.get(n) {
                Some(m) if self.attachments.len() == 1 => {
                    (Cow::Borrowed(&m.payload[..]), Kind::Binary)
                }
                Some(m) => (Cow::Borrowed(&m.payload[..]), Kind::Other),
                None => (Cow::Borrowed(&[][..]), Kind::Other),
            },
            Some(Arg::Other) | None => (Cow::Borrowed(&[][..]), Kind::Other),
        };
        (bytes, if fits { kind } else { Kind::Other })
    }
}

/// What [`SioReader::read`] hands to a scenario.
#[derive(Debug)]
pub enum SioIncoming {
    /// An event on the main namespace.
    Event(EventMsg),
    /// The peer's WebSocket close frame.
    Close,
}

enum Got {
    Event(EventMsg),
    Connected,
    Close,
}

/// A BINARY_EVENT / BINARY_ACK waiting for its attachments.
#[derive(Debug)]
struct Pending {
    text: Message,
    data_start: usize,
    expected: usize,
    /// Hand the event over when complete (false: ACKs and other namespaces).
    deliver: bool,
}

/// Client side of one Socket.IO connection: the reassembly state of binary packets, and
/// the connection's outbox, which its own packets (the namespace connection, pongs) go
/// through like every data message the client sends (compressed when permessage-deflate
/// was agreed, in order).
#[derive(Debug)]
pub struct SioReader {
    pending: Option<Pending>,
    attachments: Vec<Message>,
    outbox: Outbox,
    masks: MaskGen,
    /// Engine.IO pings answered so far.
    pub pings: u64,
}

impl SioReader {
    /// Opens the session on a freshly upgraded WebSocket: reads the Engine.IO open packet
    /// (`0{"sid":…,"pingInterval":…,…}`), connects to the main namespace with `40` and
    /// waits for the server's `40{"sid":…}`. A CONNECT_ERROR (`44{…}`) is
    /// [`ErrorKind::SocketioConnectError`]; anything else unexpected (another first
    /// packet, the server closing) is [`ErrorKind::HandshakeFailed`]. Not bounded in
    /// time: the caller applies the timeout.
    pub async fn open(ws: &mut WebSocket<Conn>, outbox: &Outbox) -> Result<SioReader, ErrorKind> {
        let mut r = SioReader {
            pending: None,
            attachments: Vec::new(),
            outbox: outbox.clone(),
            masks: MaskGen::new(0x5107),
            pings: 0,
        };
        loop {
            let m = read_message(ws)
                .await
                .map_err(|_| ErrorKind::HandshakeFailed)?;
            if m.opcode != OpCode::Text {
                return Err(ErrorKind::HandshakeFailed);
            }
            match m.payload.first() {
                Some(&EIO_OPEN) => {
                    let handshake: serde_json::Value = serde_json::from_slice(&m.payload[1..])
                        .map_err(|_| ErrorKind::HandshakeFailed)?;
                    if !handshake.get("sid").is_some_and(|s| s.is_string()) {
                        return Err(ErrorKind::HandshakeFailed);
                    }
                    break;
                }
                Some(&EIO_PING) => r.pong(&m.payload[1..]),
                _ => return Err(ErrorKind::HandshakeFailed),
            }
        }
        let mut connect = vec![EIO_MESSAGE];
        encode_packet(&mut connect, PacketType::Connect, 0, "/", None, b"");
        r.send_text(&connect);
        ws.flush().await.map_err(|e| classify_ws_error(&e))?;
        loop {
            match r.next(ws).await {
                Ok(Got::Connected) => return Ok(r),
                Ok(Got::Event(_)) => {}
                Ok(Got::Close) | Err(ErrorKind::ClosedEarly) => {
                    return Err(ErrorKind::HandshakeFailed)
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Queues one text frame in the connection's outbox; it leaves with the next flush or
    /// read.
    fn send_text(&mut self, bytes: &[u8]) {
        let mut out = self.outbox.lock().unwrap_or_else(|e| e.into_inner());
        out.data_frame(OpCode::Text, bytes, None, b"", self.masks.next_mask());
    }

    fn pong(&mut self, data: &[u8]) {
        // engine.io-protocol v4, "Heartbeat": the server sends `2`, the client answers `3`
        // (with the ping's data, as the probe exchange `2probe` / `3probe` does).
        let mut pong = Vec::with_capacity(1 + data.len());
        pong.push(EIO_PONG);
        pong.extend_from_slice(data);
        self.pings += 1;
        // Queued in the connection's outbox; it leaves with the next flush or read.
        self.send_text(&pong);
    }

    /// Reads the next event on the main namespace, answering pings and reassembling
    /// binary attachments on the way. Errors: the server closed the Engine.IO session
    /// (`1`) or disconnected the namespace (`41`): [`ErrorKind::ClosedEarly`]; a
    /// malformed packet: [`ErrorKind::Other`].
    pub async fn read(&mut self, ws: &mut WebSocket<Conn>) -> Result<SioIncoming, ErrorKind> {
        loop {
            match self.next(ws).await? {
                Got::Event(e) => return Ok(SioIncoming::Event(e)),
                Got::Connected => {}
                Got::Close => return Ok(SioIncoming::Close),
            }
        }
    }

    /// Handles one message the caller read from the connection itself (e.g. with
    /// [`crate::protocol::ws::read_message_or_pong`], which also returns pong frames): what
    /// [`SioReader::read`] does with each message it reads. Returns the event or close it
    /// completes, `None` when it completes neither (a ping answered, an attachment still
    /// awaited, a packet ignored); errors as [`SioReader::read`]'s. Give it data messages
    /// and close frames only.
    pub fn feed(&mut self, m: Message) -> Result<Option<SioIncoming>, ErrorKind> {
        Ok(match self.on_message(m)? {
            Some(Got::Event(e)) => Some(SioIncoming::Event(e)),
            Some(Got::Close) => Some(SioIncoming::Close),
            Some(Got::Connected) | None => None,
        })
    }

    async fn next(&mut self, ws: &mut WebSocket<Conn>) -> Result<Got, ErrorKind> {
        loop {
            let m = read_message(ws).await.map_err(|e| classify_ws_error(&e))?;
            if let Some(got) = self.on_message(m)? {
                return Ok(got);
            }
        }
    }

    fn on_message(&mut self, m: Message) -> Result<Option<Got>, ErrorKind> {
        match m.opcode {
            OpCode::Close => Ok(Some(Got::Close)),
            OpCode::Binary => {
                // A binary frame is an attachment of the pending binary packet.
                let Some(p) = &self.pending else {
                    return Err(ErrorKind::Other);
                };
                self.attachments.push(m);
                if self.attachments.len() < p.expected {
                    return Ok(None);
                }
                let p = self.pending.take().expect("pending packet");
                let attachments = std::mem::take(&mut self.attachments);
                Ok(p.deliver.then(|| {
                    Got::Event(EventMsg {
                        text: p.text,
                        data_start: p.data_start,
                        attachments,
                    })
                }))
            }
            _ => {
                if self.pending.is_some() {
                    // socket.io-parser: "got plaintext data when reconstructing a packet"
                    return Err(ErrorKind::Other);
                }
                self.on_text(m)
            }
        }
    }

    fn on_text(&mut self, m: Message) -> Result<Option<Got>, ErrorKind> {
        match m.payload.first() {
            Some(&EIO_MESSAGE) => {}
            Some(&EIO_PING) => {
                self.pong(&m.payload[1..]);
                return Ok(None);
            }
            Some(&EIO_CLOSE) => return Err(ErrorKind::ClosedEarly),
            Some(&(EIO_OPEN | EIO_PONG | EIO_UPGRADE | EIO_NOOP)) => return Ok(None),
            _ => return Err(ErrorKind::Other),
        }
        let (kind, attachments, main, data_start) = {
            let s = &m.payload[1..];
            let p = decode_packet(s).map_err(|_| ErrorKind::Other)?;
            (
                p.kind,
                p.attachments,
                p.namespace == b"/",
                1 + s.len() - p.data.len(),
            )
        };
        match kind {
            PacketType::Event if main => Ok(Some(Got::Event(EventMsg {
                text: m,
                data_start,
                attachments: Vec::new(),
            }))),
            PacketType::BinaryEvent | PacketType::BinaryAck if attachments > 0 => {
                self.pending = Some(Pending {
                    deliver: main && kind == PacketType::BinaryEvent,
                    text: m,
                    data_start,
                    expected: attachments,
                });
                Ok(None)
            }
            PacketType::BinaryEvent if main => Ok(Some(Got::Event(EventMsg {
                text: m,
                data_start,
                attachments: Vec::new(),
            }))),
            PacketType::Connect if main => Ok(Some(Got::Connected)),
            PacketType::ConnectError if main => Err(ErrorKind::SocketioConnectError),
            PacketType::Disconnect if main => Err(ErrorKind::ClosedEarly),
            // ACKs (never requested), other namespaces (never joined).
            _ => Ok(None),
        }
    }
}

/// The text frame payload that starts an event `name` with one string argument:
/// `42["name","` (the argument follows, then [`STRING_EVENT_SUFFIX`]).
pub fn string_event_prefix(name: &str) -> Vec<u8> {
    format!(
        "{}{}[\"{name}\",\"",
        EIO_MESSAGE as char,
        PacketType::Event.digit() as char
    )
    .into_bytes()
}

/// What closes a string event started by [`string_event_prefix`].
pub const STRING_EVENT_SUFFIX: &[u8] = b"\"]";

/// The text frame of an event `name` with one binary argument, sent as attachment 0:
/// `451-["name",{"_placeholder":true,"num":0}]` (the attachment is the next frame).
pub fn binary_event_header(name: &str) -> Vec<u8> {
    let mut v = vec![EIO_MESSAGE];
    let data = format!(r#"["{name}",{{"_placeholder":true,"num":0}}]"#);
    encode_packet(
        &mut v,
        PacketType::BinaryEvent,
        1,
        "/",
        None,
        data.as_bytes(),
    );
    v
}

/// The text frame of an event `name` whose one argument is the JSON value `json`:
/// `42["name",<json>]`.
pub fn json_event(name: &str, json: &str) -> Vec<u8> {
    let mut v = vec![EIO_MESSAGE];
    let data = format!(r#"["{name}",{json}]"#);
    encode_packet(&mut v, PacketType::Event, 0, "/", None, data.as_bytes());
    v
}

#[cfg(test)]
mod tests {
    //! The examples are those of the specifications: socket.io-protocol v5, section
    //! "Packet encoding" (tables "connection to a namespace", "sending and receiving
    //! data", "acknowledgement", "disconnection from a namespace") and "Sample session";
    //! engine.io-protocol v4, sections "Protocol", "Heartbeat" and "Packet encoding".
    use super::*;

    fn enc(kind: PacketType, att: usize, nsp: &str, id: Option<u64>, data: &str) -> String {
        let mut v = Vec::new();
        encode_packet(&mut v, kind, att, nsp, id, data.as_bytes());
        String::from_utf8(v).unwrap()
    }

    fn dec(s: &str) -> (PacketType, usize, &str, Option<u64>, &str) {
        let p = decode_packet(s.as_bytes()).unwrap();
        (
            p.kind,
            p.attachments,
            std::str::from_utf8(p.namespace).unwrap(),
            p.id,
            std::str::from_utf8(p.data).unwrap(),
        )
    }

    /// (type, attachments, namespace, id, JSON payload, encoded).
    type Example = (
        PacketType,
        usize,
        &'static str,
        Option<u64>,
        &'static str,
        &'static str,
    );

    /// Every row of the spec's tables.
    const SPEC_EXAMPLES: &[Example] = {
        use PacketType::*;
        &[
            // "connection to a namespace"
            (Connect, 0, "/", None, "", "0"),
            (
                Connect,
                0,
                "/",
                None,
                r#"{"sid":"wZX3oN0bSVIhsaknAAAI"}"#,
                r#"0{"sid":"wZX3oN0bSVIhsaknAAAI"}"#,
            ),
            (Connect, 0, "/admin", None, "", "0/admin,"),
            (
                Connect,
                0,
                "/admin",
                None,
                r#"{"sid":"oSO0OpakMV_3jnilAAAA"}"#,
                r#"0/admin,{"sid":"oSO0OpakMV_3jnilAAAA"}"#,
            ),
            (
                ConnectError,
                0,
                "/",
                None,
                r#"{"message":"Not authorized"}"#,
                r#"4{"message":"Not authorized"}"#,
            ),
            // "sending and receiving data"
            (Event, 0, "/", None, r#"["foo"]"#, r#"2["foo"]"#),
            (Event, 0, "/admin", None, r#"["bar"]"#, r#"2/admin,["bar"]"#),
            (
                BinaryEvent,
                1,
                "/",
                None,
                r#"["baz",{"_placeholder":true,"num":0}]"#,
                r#"51-["baz",{"_placeholder":true,"num":0}]"#,
            ),
            (
                BinaryEvent,
                2,
                "/admin",
                None,
                r#"["baz",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#,
                r#"52-/admin,["baz",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#,
            ),
            // "acknowledgement"
            (Event, 0, "/", Some(12), r#"["foo"]"#, r#"212["foo"]"#),
            (Ack, 0, "/", Some(12), "[]", "312[]"),
            (
                Event,
                0,
                "/admin",
                Some(13),
                r#"["foo"]"#,
                r#"2/admin,13["foo"]"#,
            ),
            (
                Ack,
                0,
                "/admin",
                Some(13),
                r#"["bar"]"#,
                r#"3/admin,13["bar"]"#,
            ),
            (
                BinaryEvent,
                1,
                "/",
                Some(14),
                r#"["foo",{"_placeholder":true,"num":0}]"#,
                r#"51-14["foo",{"_placeholder":true,"num":0}]"#,
            ),
            (Ack, 0, "/", Some(14), r#"["bar"]"#, r#"314["bar"]"#),
            (Event, 0, "/", Some(15), r#"["foo"]"#, r#"215["foo"]"#),
            (
                BinaryAck,
                1,
                "/",
                Some(15),
                r#"["bar",{"_placeholder":true,"num":0}]"#,
                r#"61-15["bar",{"_placeholder":true,"num":0}]"#,
            ),
            // "disconnection from a namespace"
            (Disconnect, 0, "/", None, "", "1"),
            (Disconnect, 0, "/admin", None, "", "1/admin,"),
            // "Sample session"
            (
                BinaryAck,
                1,
                "/admin",
                Some(1),
                r#"[{"_placeholder":true,"num":0}]"#,
                r#"61-/admin,1[{"_placeholder":true,"num":0}]"#,
            ),
            (
                Event,
                0,
                "/admin",
                Some(1),
                r#"["tellme"]"#,
                r#"2/admin,1["tellme"]"#,
            ),
            (
                Event,
                0,
                "/",
                None,
                r#"["hey","Jude"]"#,
                r#"2["hey","Jude"]"#,
            ),
        ]
    };

    #[test]
    fn spec_examples_encode() {
        for &(kind, att, nsp, id, data, encoded) in SPEC_EXAMPLES {
            assert_eq!(enc(kind, att, nsp, id, data), encoded);
        }
    }

    #[test]
    fn spec_examples_decode() {
        for &(kind, att, nsp, id, data, encoded) in SPEC_EXAMPLES {
            assert_eq!(dec(encoded), (kind, att, nsp, id, data), "{encoded}");
        }
    }

    #[test]
    fn spec_wire_examples() {
        // socket.io-protocol: "{ type: EVENT, namespace: "/", data: ["foo"] } will be sent
        // as 42["foo"]" (each Socket.IO packet is an Engine.IO message, prefix "4").
        let mut v = vec![EIO_MESSAGE];
        encode_packet(&mut v, PacketType::Event, 0, "/", None, br#"["foo"]"#);
        assert_eq!(v, br#"42["foo"]"#);
        // Sample session: "40" (CONNECT to "/"), "40/admin," and the server's grant.
        let mut v = vec![EIO_MESSAGE];
        encode_packet(&mut v, PacketType::Connect, 0, "/", None, b"");
        assert_eq!(v, b"40");
        assert_eq!(
            dec(r#"0/admin,{"sid":"-G5j-67EZFp-q59rADQM"}"#),
            (
                PacketType::Connect,
                0,
                "/admin",
                None,
                r#"{"sid":"-G5j-67EZFp-q59rADQM"}"#
            )
        );
        // socket.io-protocol v5 "the CONNECT packet now can contain a payload".
        assert_eq!(
            enc(PacketType::Connect, 0, "/admin", None, r#"{"token":"123"}"#),
            r#"0/admin,{"token":"123"}"#
        );
        // engine.io-protocol v4: the packet types and "4hello" (message "hello").
        assert_eq!(
            [
                EIO_OPEN,
                EIO_CLOSE,
                EIO_PING,
                EIO_PONG,
                EIO_MESSAGE,
                EIO_UPGRADE,
                EIO_NOOP
            ],
            *b"0123456"
        );
        assert_eq!(b"4hello"[0], EIO_MESSAGE);
    }

    #[test]
    fn malformed_packets_are_rejected() {
        assert_eq!(decode_packet(b""), Err(DecodeError::Empty));
        assert_eq!(decode_packet(b"7"), Err(DecodeError::UnknownType));
        assert_eq!(decode_packet(b"x[]"), Err(DecodeError::UnknownType));
        assert_eq!(decode_packet(b"5[\"a\"]"), Err(DecodeError::BadAttachments));
        assert_eq!(
            decode_packet(b"5x-[\"a\"]"),
            Err(DecodeError::BadAttachments)
        );
        assert_eq!(
            decode_packet(b"299999999999999999999[]"),
            Err(DecodeError::BadId)
        );
        // A namespace without the comma runs to the end (reference parser).
        assert_eq!(
            dec("1/admin"),
            (PacketType::Disconnect, 0, "/admin", None, "")
        );
    }

    #[test]
    fn events_parse_fast_and_slow() {
        // The spec's examples.
        let e = parse_event(br#"["foo"]"#).unwrap();
        assert_eq!((e.name.as_ref(), e.argc, e.first), (&b"foo"[..], 0, None));
        let e = parse_event(br#"["hey","Jude"]"#).unwrap();
        assert_eq!(e.first, Some(Arg::Str(Cow::Borrowed(&b"Jude"[..]))));
        assert!(matches!(e.name, Cow::Borrowed(_)), "fast path");
        let e = parse_event(br#"["baz",{"_placeholder":true,"num":0}]"#).unwrap();
        assert_eq!((e.first, e.argc), (Some(Arg::Placeholder(0)), 1));
        let e =
            parse_event(br#"["baz",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#)
                .unwrap();
        assert_eq!((e.first, e.argc), (Some(Arg::Placeholder(0)), 2));
        // Whitespace, escapes, key order and other values go through serde_json.
        let e = parse_event(b"[ \"echo\" , \"a\\u0062c\\\"\" ]").unwrap();
        assert_eq!(e.first, Some(Arg::Str(Cow::Owned(b"abc\"".to_vec()))));
        let e = parse_event(br#"["b",{"num":3,"_placeholder":true}]"#).unwrap();
        assert_eq!(e.first, Some(Arg::Placeholder(3)));
        let e = parse_event(br#"["echo",{"count":1}]"#).unwrap();
        assert_eq!(e.first, Some(Arg::Other));
        let e = parse_event(br#"["echo",1,"x"]"#).unwrap();
        assert_eq!((e.first, e.argc), (Some(Arg::Other), 2));
        // "The payload is mandatory and MUST be a non-empty array."
        for bad in [&b""[..], b"[]", b"{}", b"[1]", br#"["a""#, br#"["a"] x"#] {
            assert_eq!(parse_event(bad), Err(DecodeError::BadPayload), "{bad:?}");
        }
    }

    #[test]
    fn frames_the_scenarios_send() {
        assert_eq!(string_event_prefix(ECHO_EVENT), br#"42["echo",""#);
        assert_eq!(
            binary_event_header(ECHO_EVENT),
            br#"451-["echo",{"_placeholder":true,"num":0}]"#
        );
        assert_eq!(
            json_event(PUSH_EVENT, r#"{"count":3,"size":16,"binary":true}"#),
            br#"42["push",{"count":3,"size":16,"binary":true}]"#
        );
    }
}
