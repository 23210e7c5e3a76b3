//! wsbench-loadgen: the native WebSocket load generator of wsbench and its reference
//! server. The binary (`src/main.rs`) is a thin layer over this library, which tests use
//! directly.
//!
//! Subcommands ([`cli::Command`]): `echo`, `stream` (server push), `ping` (WebSocket ping
//! and pong), `connect` (connection setup), `hold` (memory per connection), `broadcast`
//! and `market` (fan-out), `serve` (reference server), `probe`, `autobahn-client` (the
//! client against the Autobahn|Testsuite's fuzzing server).
//!
//! Module map, one folder per part:
//! - [`transport`]: bytes on the wire, no WebSocket semantics: [`transport::url`] (ws://
//!   and wss:// URLs), [`transport::tls`] (TLS configurations, handshakes and their
//!   report), [`transport::stream`] (plain TCP or TLS), [`transport::handshake`] (HTTP
//!   upgrade), [`transport::conn`] (write-batching stream adapter; its buffer in
//!   [`transport::outqueue`]), [`transport::source`] (source addresses),
//!   [`transport::limits`] (open-file limit);
//! - [`protocol`]: frames and messages: [`protocol::ws`] (messages and pongs over
//!   fastwebsockets), [`protocol::premask`] (large bodies masked in advance),
//!   [`protocol::payload`] (message layout), [`protocol::jsonmsg`] (the JSON workload's
//!   messages), [`protocol::socketio`] (Engine.IO v4 / Socket.IO v5 codec and client),
//!   [`protocol::proto`] (WebSocket or Socket.IO messages), [`protocol::integrity`]
//!   (counters);
//! - [`modes`]: the client scenarios: [`modes::echo`], [`modes::stream`] and
//!   [`modes::ping`], with the phases they share in [`modes::run`]; [`modes::fanout`]
//!   (`broadcast` and `market`); [`modes::connect`] and [`modes::hold`] (connection setup
//!   and held connections); [`modes::probe`]; [`modes::autobahn`] (the client graded by
//!   the Autobahn|Testsuite's fuzzing server);
//! - [`serve`]: the reference server, its fan-out in [`serve::fanout`], its Socket.IO
//!   endpoint in [`serve::sio`];
//! - at the top: [`cli`] (arguments), [`stats`] (histograms, CPU time), [`cpus`] (runtime
//!   threads pinned to CPUs), [`report`] (JSON output), [`timer`] (microsecond timer of
//!   fixed-rate senders).

pub mod cli;
pub mod cpus;
pub mod modes;
pub mod protocol;
pub mod report;
pub mod serve;
pub mod stats;
pub mod timer;
pub mod transport;

pub use modes::connect::run_connect;
pub use modes::echo::run_echo;
pub use modes::hold::run_hold;
pub use modes::ping::run_ping;
pub use modes::run::{LoadConfig, RunError};
pub use modes::stream::run_stream;
pub use protocol::proto::Protocol;
pub use report::Report;
pub use transport::url::WsUrl;
