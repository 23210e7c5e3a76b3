//! wsbench-loadgen: the native WebSocket load generator of wsbench and its reference
//! server. The binary (`src/main.rs`) is a thin layer over this library, which tests use
//! directly.
//!
//! Subcommands: `echo`, `stream`, `connect` (connection setup), `hold` (memory per
//! connection), `serve` (reference server), `probe`.
//!
//! Module map: [`cli`] (arguments), [`url`] (ws:// URLs), [`handshake`] (HTTP upgrade),
//! [`conn`] (write-batching stream adapter; its buffer in [`outqueue`]), [`ws`] (messages over fastwebsockets),
//! [`payload`] (message layout), [`jsonmsg`] (the JSON workload's messages), [`premask`] (large bodies masked in advance), [`proto`] (WebSocket or Socket.IO messages), [`socketio`]
//! (Engine.IO v4 / Socket.IO v5 codec and client), [`integrity`] (counters), [`echo`] and [`stream`] (the
//! scenarios), [`run`] (phases shared by both), [`connect`] and [`hold`] (connection
//! setup and held connections), [`source`] (source addresses), [`limits`] (open-file
//! limit), [`serve`] (reference server; its fan-out in [`serve_fanout`], its Socket.IO
//! endpoint in [`serve_sio`]), [`probe`], [`stats`] (histograms, CPU time) and [`report`]
//! (JSON output).

pub mod cli;
pub mod conn;
pub mod connect;
pub mod echo;
pub mod fanout;
pub mod handshake;
pub mod hold;
pub mod integrity;
pub mod jsonmsg;
pub mod limits;
pub mod outqueue;
pub mod payload;
pub mod ping;
pub mod premask;
pub mod probe;
pub mod proto;
pub mod report;
pub mod run;
pub mod serve;
pub mod serve_fanout;
pub mod serve_sio;
pub mod socketio;
pub mod source;
pub mod stats;
pub mod stream;
pub mod timer;
pub mod url;
pub mod ws;

pub use connect::run_connect;
pub use echo::run_echo;
pub use hold::run_hold;
pub use ping::run_ping;
pub use proto::Protocol;
pub use report::Report;
pub use run::{LoadConfig, RunError};
pub use stream::run_stream;
pub use url::WsUrl;
