//! The wire protocol of a run: plain WebSocket messages, or Socket.IO events over the
//! Engine.IO websocket transport ([`crate::protocol::socketio`]). The scenarios read
//! through [`Transport`] and check what [`Incoming::payload`] gives them, whatever the
//! protocol.

use std::borrow::Cow;

use fastwebsockets::{OpCode, WebSocket};

use crate::protocol::socketio::{EventMsg, Kind, SioIncoming, SioReader};
use crate::protocol::ws::{read_message, Message};
use crate::report::{classify_ws_error, ErrorKind};
use crate::transport::conn::Conn;

/// `--protocol`: what a message is on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Protocol {
    /// One WebSocket text or binary frame per message (PROTOCOL.md `/echo`, `/push`).
    #[default]
    Websocket,
    /// One Socket.IO event per message (PROTOCOL.md "Socket.IO servers").
    Socketio,
}

impl Protocol {
    /// The name used on the command line and in the report.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Websocket => "websocket",
            Protocol::Socketio => "socketio",
        }
    }
}

/// How a connection reads messages.
#[derive(Debug)]
pub enum Transport {
    /// Plain WebSocket: a message is a frame.
    Ws,
    /// Socket.IO: a message is an event (pings answered, attachments reassembled).
    Sio(SioReader),
}

/// One received message, or the peer's close frame.
#[derive(Debug)]
pub enum Incoming {
    /// A WebSocket data message.
    Ws(Message),
    /// A Socket.IO event.
    Sio(EventMsg),
    /// The peer's close frame.
    Close,
}

impl Incoming {
    /// The message's payload bytes and kind. Socket.IO: the single argument of an event
    /// named `event` ([`EventMsg::payload`]); WebSocket: the frame (`event` unused).
    pub fn payload(&self, event: &str) -> (Cow<'_, [u8]>, Kind) {
        match self {
            Incoming::Ws(m) => (
                Cow::Borrowed(&m.payload[..]),
                match m.opcode {
                    OpCode::Text => Kind::Text,
                    OpCode::Binary => Kind::Binary,
                    _ => Kind::Other,
                },
            ),
            Incoming::Sio(e) => e.payload(event),
            Incoming::Close => (Cow::Borrowed(&[][..]), Kind::Other),
        }
    }
}

impl Transport {
    /// Reads the next message (or close frame).
    pub async fn read(&mut self, ws: &mut WebSocket<Conn>) -> Result<Incoming, ErrorKind> {
        match self {
            Transport::Ws => match read_message(ws).await {
                Ok(m) if m.opcode == OpCode::Close => Ok(Incoming::Close),
                Ok(m) => Ok(Incoming::Ws(m)),
                Err(e) => Err(classify_ws_error(&e)),
            },
            Transport::Sio(r) => match r.read(ws).await? {
                SioIncoming::Event(e) => Ok(Incoming::Sio(e)),
                SioIncoming::Close => Ok(Incoming::Close),
            },
        }
    }
}
