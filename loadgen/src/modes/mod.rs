//! Modes: the client scenarios, one per subcommand (see [`crate::cli::Command`]).
//!
//! - [`echo`], [`stream`] (server push) and [`ping`] (WebSocket ping and pong), with the
//!   phases they share (connecting, warm-up, measurement, aggregation) in [`run`];
//! - [`fanout`]: `broadcast` and `market`;
//! - [`connect`]: connection setup; [`hold`]: memory per held connection;
//! - [`probe`]: one connect and upgrade attempt, then a clean close;
//! - [`autobahn`]: the client graded by the Autobahn|Testsuite's fuzzing server.

pub mod autobahn;
pub mod connect;
pub mod echo;
pub mod fanout;
pub mod hold;
pub mod ping;
pub mod probe;
pub mod run;
pub mod stream;
