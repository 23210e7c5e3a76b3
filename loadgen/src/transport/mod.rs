//! Transport: bytes on the wire, without WebSocket semantics. A `ws://` URL is resolved,
//! connected from a chosen source address, upgraded by an HTTP/1.1 handshake, and then
//! read and written through a write-batching stream adapter.
//!
//! - [`url`]: `ws://host:port/path` URLs;
//! - [`handshake`]: the HTTP/1.1 WebSocket upgrade (client and server);
//! - [`conn`]: the write-batching TCP stream adapter;
//! - [`outqueue`]: its buffer, an ordered queue written with one vectored system call;
//! - [`source`]: source addresses (`--source-addresses`);
//! - [`limits`]: the open-file limit.

pub mod conn;
pub mod handshake;
pub mod limits;
pub mod outqueue;
pub mod source;
pub mod url;
