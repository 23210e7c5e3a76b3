//! Test helpers: deliberately faulty servers built from the library's pieces.
#![allow(dead_code)]

pub mod bin;

use std::time::Duration;

use fastwebsockets::{Frame, OpCode, Payload};
use tokio::net::TcpStream;
use wsbench_loadgen::protocol::payload::{parse_seq, template, write_seq};
use wsbench_loadgen::protocol::socketio::{
    binary_event_header, decode_packet, parse_event, string_event_prefix, Arg, PacketType,
    STRING_EVENT_SUFFIX,
};
use wsbench_loadgen::protocol::ws::read_message;
use wsbench_loadgen::serve::BackgroundServer;
use wsbench_loadgen::transport::handshake::accept;
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

/// How a Socket.IO echo server misbehaves (on message VICTIM unless said otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SioFault {
    /// Never echo message VICTIM.
    Drop,
    /// Flip one filler byte of message VICTIM.
    Corrupt,
    /// Echo message VICTIM with the other kind of argument (string vs binary).
    WrongType,
    /// Echo message VICTIM as another event (`ohce`).
    WrongEvent,
    /// Echo VICTIM twice.
    Duplicate,
    /// Disconnect the namespace (`41`) instead of echoing message VICTIM.
    Disconnect,
    /// Answer the namespace connection with CONNECT_ERROR.
    RefuseConnect,
    /// Send a message instead of the Engine.IO open packet.
    BadOpen,
}

async fn send_text(
    ws: &mut fastwebsockets::WebSocket<wsbench_loadgen::transport::conn::Conn>,
    b: &[u8],
) -> bool {
    ws.write_frame(Frame::new(true, OpCode::Text, None, Payload::Borrowed(b)))
        .await
        .is_ok()
}

async fn sio_echo_reply(
    ws: &mut fastwebsockets::WebSocket<wsbench_loadgen::transport::conn::Conn>,
    event: &str,
    data: &[u8],
    binary: bool,
) -> bool {
    if binary {
        if !send_text(ws, &binary_event_header(event)).await {
            return false;
        }
        ws.write_frame(Frame::new(
            true,
            OpCode::Binary,
            None,
            Payload::Borrowed(data),
        ))
        .await
        .is_ok()
    } else {
        let mut v = string_event_prefix(event);
        v.extend_from_slice(data);
        v.extend_from_slice(STRING_EVENT_SUFFIX);
        send_text(ws, &v).await
    }
}

async fn faulty_sio_echo(tcp: TcpStream, fault: SioFault) {
    let Some((mut ws, _)) = accept(tcp, &["/socket.io/"]).await else {
        return;
    };
    let open: &[u8] = if fault == SioFault::BadOpen {
        b"4hello"
    } else {
        br#"0{"sid":"s1","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#
    };
    if !send_text(&mut ws, open).await || ws.flush().await.is_err() {
        return;
    }
    let mut header_pending = false;
    loop {
        let Ok(msg) = read_message(&mut ws).await else {
            return;
        };
        let (data, binary): (Vec<u8>, bool) = match msg.opcode {
            OpCode::Close => {
                let _ = ws.flush().await;
                return;
            }
            OpCode::Binary if header_pending => {
                header_pending = false;
                (msg.payload.to_vec(), true)
            }
            OpCode::Binary => return,
            _ => {
                let p = &msg.payload[..];
                if p == b"40" {
                    let reply: &[u8] = if fault == SioFault::RefuseConnect {
                        br#"44{"message":"Not authorized"}"#
                    } else {
                        br#"40{"sid":"n1"}"#
                    };
                    if !send_text(&mut ws, reply).await {
                        return;
                    }
                    continue;
                }
                let Ok(pkt) = decode_packet(&p[1..]) else {
                    return;
                };
                if pkt.kind == PacketType::BinaryEvent {
                    header_pending = true;
                    continue;
                }
                let Ok(ev) = parse_event(pkt.data) else {
                    return;
                };
                match ev.first {
                    Some(Arg::Str(s)) => (s.into_owned(), false),
                    _ => return,
                }
            }
        };
        let mut data = data;
        let mut event = "echo";
        let mut binary_out = binary;
        let mut times = 1;
        if parse_seq(&data) == Some(VICTIM) {
            match fault {
                SioFault::Drop => continue,
                SioFault::Corrupt => {
                    let last = data.len() - 1;
                    data[last] = if data[last] == b'a' { b'b' } else { b'a' };
                }
                SioFault::WrongType => binary_out = !binary,
                SioFault::WrongEvent => event = "ohce",
                SioFault::Duplicate => times = 2,
                SioFault::Disconnect => {
                    let _ = send_text(&mut ws, b"41").await;
                    let _ = ws.flush().await;
                    // Keep the transport open until the client closes it.
                    while let Ok(m) = read_message(&mut ws).await {
                        if m.opcode == OpCode::Close {
                            let _ = ws.flush().await;
                            return;
                        }
                    }
                    return;
                }
                SioFault::RefuseConnect | SioFault::BadOpen => {}
            }
        }
        for _ in 0..times {
            if !sio_echo_reply(&mut ws, event, &data, binary_out).await {
                return;
            }
        }
    }
}

/// Starts a Socket.IO echo server (path `/socket.io/`) with `fault`.
pub fn faulty_sio_server(fault: SioFault) -> BackgroundServer {
    BackgroundServer::start(move |tcp| faulty_sio_echo(tcp, fault)).expect("start sio server")
}

/// `ws://127.0.0.1:PORT/socket.io/?EIO=4&transport=websocket` of `server`.
pub fn sio_url(server: &BackgroundServer) -> WsUrl {
    server.url(wsbench_loadgen::protocol::socketio::SOCKETIO_TARGET)
}
