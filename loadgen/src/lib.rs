//! wsbench-loadgen: the native WebSocket load generator of wsbench and its reference
//! server. The binary (`src/main.rs`) is a thin layer over this library, which tests use
//! directly.
//!
//! Subcommands ([`cli::Command`]): `echo`, `stream` (server push), `ping` (WebSocket ping
//! and pong), `connect` (connection setup), `hold` (memory per connection), `broadcast`
//! and `market` (fan-out), `serve` (reference server), `probe`, `autobahn-client` (the
//! client against the Autobahn|Testsuite's fuzzing server).
//!
//! Module map:
//! - command line and wire: [`cli`] (arguments), [`url`] (ws:// URLs), [`handshake`]
//!   (HTTP upgrade), [`conn`] (write-batching stream adapter; its buffer in [`outqueue`]),
//!   [`ws`] (messages and pongs over fastwebsockets), [`proto`] (WebSocket or Socket.IO
//!   messages), [`socketio`] (Engine.IO v4 / Socket.IO v5 codec and client);
//! - messages: [`payload`] (message layout), [`jsonmsg`] (the JSON workload's messages),
//!   [`premask`] (large bodies masked in advance);
//! - scenarios: [`echo`], [`stream`] and [`ping`], with the phases they share in [`run`];
//!   [`fanout`] (`broadcast` and `market`); [`connect`] and [`hold`] (connection setup and
//!   held connections); [`probe`]; [`autobahn`] (the client graded by the
//!   Autobahn|Testsuite's fuzzing server);
//! - what they share: [`integrity`] (counters), [`stats`] (histograms, CPU time),
//!   [`cpus`] (runtime threads pinned to CPUs),
//!   [`report`] (JSON output), [`timer`] (microsecond timer of fixed-rate senders),
//!   [`source`] (source addresses), [`limits`] (open-file limit);
//! - the reference server: [`serve`], its fan-out in [`serve_fanout`], its Socket.IO
//!   endpoint in [`serve_sio`].

pub mod autobahn;
pub mod cli;
pub mod conn;
pub mod connect;
pub mod cpus;
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
