//! Transport: bytes on the wire, without WebSocket semantics. A `ws://` or `wss://` URL is
//! resolved, connected from a chosen source address, secured by a TLS handshake
//! (`wss://`), upgraded by an HTTP/1.1 handshake, and then read and written through a
//! write-batching stream adapter.
//!
//! - [`url`]: `ws://host:port/path` and `wss://…` URLs;
//! - [`tls`]: TLS configurations (client and server), handshakes and what they report;
//! - [`stream`]: a connection's byte stream, plain TCP or TLS over TCP;
//! - [`handshake`]: the HTTP/1.1 WebSocket upgrade (client and server);
//! - [`conn`]: the write-batching stream adapter;
//! - [`outqueue`]: its buffer, an ordered queue written with one vectored system call;
//! - [`source`]: source addresses (`--source-addresses`);
//! - [`limits`]: the open-file limit.

pub mod conn;
pub mod handshake;
pub mod limits;
pub mod outqueue;
pub mod source;
pub mod stream;
pub mod tls;
pub mod url;
