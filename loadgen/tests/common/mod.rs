//! Test helpers: deliberately faulty servers built from the library's pieces.
#![allow(dead_code)]

use std::time::Duration;

use fastwebsockets::{Frame, OpCode, Payload};
use tokio::net::TcpStream;
use wsbench_loadgen::handshake::accept;
use wsbench_loadgen::payload::{parse_seq, template, write_seq};
use wsbench_loadgen::serve::BackgroundServer;
use wsbench_loadgen::ws::read_message;
use wsbench_loadgen::{LoadConfig, WsUrl};

/// Sequence number the faulty servers misbehave on.
pub const VICTIM: u64 = 10;

/// How an echo server misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Never echo message VICTIM.
    Drop,
    /// Flip one filler byte of message VICTIM.
    Corrupt,
    /// Echo VICTIM + 1 before VICTIM.
    Reorder,
    /// Echo message VICTIM twice.
    Duplicate,
}

async fn faulty_echo(tcp: TcpStream, fault: Fault) {
    let Some((mut ws, _)) = accept(tcp, &["/echo"]).await else {
        return;
    };
    let mut held: Option<(OpCode, Vec<u8>)> = None;
    loop {
        let Ok(mut msg) = read_message(&mut ws).await else {
            return;
        };
        if msg.opcode == OpCode::Close {
            let _ = ws.flush().await;
            return;
        }
        let seq = parse_seq(&msg.payload);
        if seq == Some(VICTIM) {
            match fault {
                Fault::Drop => continue,
                Fault::Corrupt => {
                    let bytes = msg.payload.to_mut();
                    let last = bytes.len() - 1;
                    bytes[last] = if bytes[last] == b'a' { b'b' } else { b'a' };
                }
                Fault::Reorder => {
                    held = Some((msg.opcode, msg.payload.to_vec()));
                    continue;
                }
                Fault::Duplicate => {
                    let copy = msg.payload.to_vec();
                    let f = Frame::new(true, msg.opcode, None, Payload::Owned(copy));
                    if ws.write_frame(f).await.is_err() {
                        return;
                    }
                }
            }
        }
        let f = Frame::new(true, msg.opcode, None, msg.payload);
        if ws.write_frame(f).await.is_err() {
            return;
        }
        if let Some((op, bytes)) = held.take() {
            let f = Frame::new(true, op, None, Payload::Owned(bytes));
            if ws.write_frame(f).await.is_err() {
                return;
            }
        }
    }
}

/// Starts an echo server with `fault`.
pub fn faulty_echo_server(fault: Fault) -> BackgroundServer {
    BackgroundServer::start(move |tcp| faulty_echo(tcp, fault)).expect("start faulty server")
}

/// A /push server that skips message VICTIM of every request.
async fn gappy_push(tcp: TcpStream) {
    let Some((mut ws, _)) = accept(tcp, &["/push"]).await else {
        return;
    };
    let Ok(msg) = read_message(&mut ws).await else {
        return;
    };
    let req: serde_json::Value = serde_json::from_slice(&msg.payload).expect("json request");
    let count = req["count"].as_u64().unwrap();
    let size = req["size"].as_u64().unwrap() as usize;
    let op = if req["binary"].as_bool().unwrap() {
        OpCode::Binary
    } else {
        OpCode::Text
    };
    let mut buf = template(size);
    for i in (0..count).filter(|&i| i != VICTIM) {
        write_seq(&mut buf, i);
        if ws
            .write_frame(Frame::new(true, op, None, Payload::Borrowed(&buf)))
            .await
            .is_err()
        {
            return;
        }
    }
    let _ = ws.flush().await;
    // Wait for the client's close.
    while let Ok(m) = read_message(&mut ws).await {
        if m.opcode == OpCode::Close {
            let _ = ws.flush().await;
            return;
        }
    }
}

/// Starts a /push server that never sends message VICTIM.
pub fn gappy_push_server() -> BackgroundServer {
    BackgroundServer::start(gappy_push).expect("start push server")
}

/// A count-mode configuration with a short timeout (faults make the client wait for it).
pub fn count_cfg(url: WsUrl, connections: usize, count: u64, size: usize, w: usize) -> LoadConfig {
    let mut cfg = LoadConfig::count_mode(url, connections, count, size);
    cfg.in_flight = w;
    cfg.timeout = Duration::from_secs(1);
    cfg
}
