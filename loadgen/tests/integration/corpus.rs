//! `--corpus`: the JSON corpus's messages echoed and checked byte for byte, past the
//! corpus's 128 lines, over WebSocket and Socket.IO, uncompressed and with
//! permessage-deflate (which shrinks them as JSON shrinks, far less than the filler).

use crate::common;

use wsbench_loadgen::protocol::corpus::SIZE;
use wsbench_loadgen::protocol::deflate::ServerPolicy;
use wsbench_loadgen::protocol::integrity::Integrity;
use wsbench_loadgen::report::Errors;
use wsbench_loadgen::serve::BackgroundServer;
use wsbench_loadgen::{run_echo, LoadConfig, Protocol, Report};

/// 300 messages on each of 2 connections (past line 128 twice), 8 in flight.
const COUNT: u64 = 300;

fn corpus_cfg(cfg: LoadConfig) -> LoadConfig {
    LoadConfig {
        corpus: true,
        text: true,
        ..cfg
    }
}

fn assert_exact(r: &Report, ctx: &str) {
    assert_eq!(r.errors, Errors::default(), "{ctx}: {r:?}");
    assert_eq!(r.integrity, Integrity::default(), "{ctx}: {r:?}");
    assert_eq!(r.messages_received, 2 * COUNT, "{ctx}");
    assert_eq!(r.bytes_received, 2 * COUNT * SIZE as u64, "{ctx}");
    assert_eq!(r.config.message_type, "corpus", "{ctx}");
    assert_eq!(r.config.size_bytes, SIZE, "{ctx}");
}

#[test]
fn corpus_messages_echo_exactly_over_websocket_and_socketio() {
    let server = BackgroundServer::reference().unwrap();
    let ws = corpus_cfg(common::count_cfg(server.url("/echo"), 2, COUNT, 16, 8));
    assert_exact(&run_echo(&ws).unwrap(), "websocket");
    let mut sio = corpus_cfg(common::count_cfg(common::sio_url(&server), 2, COUNT, 16, 8));
    sio.protocol = Protocol::Socketio;
    assert_exact(&run_echo(&sio).unwrap(), "socketio");
}

#[test]
fn compressed_corpus_messages_echo_exactly_and_shrink_as_json_does() {
    let server = BackgroundServer::reference_with(ServerPolicy::Accept).unwrap();
    let mut cfg = corpus_cfg(common::count_cfg(server.url("/echo"), 2, COUNT, 16, 8));
    cfg.deflate = true;
    let r = run_echo(&cfg).unwrap();
    assert_exact(&r, "deflate");
    let d = r.deflate.as_ref().expect("a deflate part");
    assert_eq!(d.connections_agreed, 2);
    assert_eq!(d.received_payload_bytes, 2 * COUNT * SIZE as u64);
    // With context takeover (window 32 KiB) the corpus compresses about 3 to 1, its
    // repeated keys and words; the filler's alphabet would be over 20 to 1.
    let ratio = d.received_payload_bytes as f64 / d.received_wire_bytes as f64;
    assert!((2.0..6.0).contains(&ratio), "compression ratio {ratio:.2}");
}
