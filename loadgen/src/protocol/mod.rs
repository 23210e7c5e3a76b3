//! Protocol: frames and messages. WebSocket messages over fastwebsockets, Socket.IO
//! packets over them, and the layout of the benchmark's messages.
//!
//! - [`ws`]: WebSocket settings and messages (and pongs) over fastwebsockets frames;
//! - [`premask`]: large message bodies masked in advance;
//! - [`payload`]: the message layout shared with every server;
//! - [`corpus`]: the JSON corpus, realistic messages where compression is measured;
//! - [`jsonmsg`]: the JSON workload's messages;
//! - [`socketio`]: the Engine.IO v4 / Socket.IO v5 codec and client;
//! - [`proto`]: WebSocket or Socket.IO messages, one interface for the scenarios;
//! - [`integrity`]: integrity counters and the bookkeeping of missing sequence numbers;
//! - [`deflate`]: permessage-deflate (RFC 7692): the offer, the answer's checks (and the
//!   reference server's answer), and the compressor and decompressor of a connection's
//!   messages;
//! - [`deflate_wire`]: permessage-deflate on the wire: compressed frames read beside
//!   fastwebsockets, compressed messages written, and a run's counts for the report.

pub mod corpus;
pub mod deflate;
pub mod deflate_wire;
pub mod integrity;
pub mod jsonmsg;
pub mod payload;
pub mod premask;
pub mod proto;
pub mod socketio;
pub mod ws;
