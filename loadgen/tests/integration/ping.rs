//! `ping`: WebSocket ping control frames answered by pongs, against the reference server
//! (`/echo` and `/socket.io/`: exact counts, duration mode) and against a tiny server that
//! answers pings wrongly, twice, after a data message, with pings of its own, or never.

use crate::common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{sio_url, VICTIM};
use fastwebsockets::{Frame, OpCode, Payload, WebSocket};
use tokio::net::TcpStream;
use wsbench_loadgen::modes::ping::PING_SIZE;
use wsbench_loadgen::protocol::integrity::Integrity;
use wsbench_loadgen::protocol::payload::parse_seq;
use wsbench_loadgen::report::Errors;
use wsbench_loadgen::serve::BackgroundServer;
use wsbench_loadgen::transport::conn::Conn;
use wsbench_loadgen::transport::handshake::accept;
use wsbench_loadgen::{run_ping, LoadConfig, Protocol, Report};

const PROTOCOLS: [Protocol; 2] = [Protocol::Websocket, Protocol::Socketio];

fn assert_clean(r: &Report) {
    assert_eq!(r.errors, Errors::default(), "{r:?}");
    assert_eq!(r.integrity, Integrity::default(), "{r:?}");
}

/// A count-mode run of `count` pings on each of `n` connections to `server` (`/echo`, or
/// its Socket.IO endpoint).
fn ping_cfg(server: &BackgroundServer, protocol: Protocol, n: usize, count: u64) -> LoadConfig {
    let url = match protocol {
        Protocol::Websocket => server.url("/echo"),
        Protocol::Socketio => sio_url(server),
    };
    let mut cfg = LoadConfig::count_mode(url, n, count, PING_SIZE);
    cfg.protocol = protocol;
    cfg
}

/// Runs `f` on a thread and fails (instead of hanging) if it does not return in 60 s.
fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(f()).unwrap());
    rx.recv_timeout(Duration::from_secs(60))
        .expect("run did not end: a hang")
}

#[test]
fn counts_are_exact_against_the_reference_server() {
    let server = BackgroundServer::reference().unwrap();
    for protocol in PROTOCOLS {
        for (n, threads) in [(1usize, 1usize), (4, 1), (3, 2)] {
            let c = 400u64;
            let mut cfg = ping_cfg(&server, protocol, n, c);
            cfg.threads = threads;
            let r = run_ping(&cfg).unwrap();
            let ctx = format!("{protocol:?} n={n} threads={threads}");
            assert_clean(&r);
            assert_eq!(r.scenario, "ping", "{ctx}");
            assert_eq!(r.config.protocol, protocol.name(), "{ctx}");
            assert_eq!(r.messages_sent, n as u64 * c, "{ctx}");
            assert_eq!(r.messages_received, n as u64 * c, "{ctx}");
            assert_eq!(r.bytes_sent, n as u64 * c * PING_SIZE as u64, "{ctx}");
            assert_eq!(r.bytes_received, r.bytes_sent, "{ctx}");
            assert_eq!(r.latency_us.unwrap().count, n as u64 * c, "{ctx}");
            assert_eq!(r.handshake_us.count, n as u64, "{ctx}");
            assert_eq!(r.connections_ok, n as u64, "{ctx}");
            let p = r.per_connection_messages_per_s.unwrap();
            assert!((p.max - p.min).abs() < 1e-6 * p.max, "{ctx}: {p:?}");
        }
    }
}

#[test]
fn message_settings_do_not_apply() {
    let server = BackgroundServer::reference().unwrap();
    let mut cfg = ping_cfg(&server, Protocol::Websocket, 2, 50);
    cfg.size = 1024;
    cfg.in_flight = 8;
    cfg.text = true;
    let r = run_ping(&cfg).unwrap();
    assert_clean(&r);
    assert_eq!(r.config.in_flight, Some(1));
    assert_eq!(r.config.burst, Some(1));
    assert_eq!(r.config.size_bytes, PING_SIZE);
    assert_eq!(r.config.message_type, "ping");
    assert_eq!(r.config.rate_per_s, None);
    assert_eq!(r.bytes_sent, 100 * PING_SIZE as u64);
    assert_eq!(r.messages_received, 100);
}

#[test]
fn duration_mode_runs_and_stays_clean() {
    let server = BackgroundServer::reference().unwrap();
    for protocol in PROTOCOLS {
        let mut cfg = ping_cfg(&server, protocol, 2, 1);
        cfg.count = None;
        cfg.warmup = Duration::from_millis(100);
        cfg.duration = Duration::from_millis(300);
        let r = within_a_minute(move || run_ping(&cfg).unwrap());
        assert_clean(&r);
        assert!(r.messages_received > 0 && r.window_s > 0.0, "{r:?}");
        assert_eq!(r.config.count, None);
        // Every pong read inside the window answered its ping: one round trip each.
        assert_eq!(r.latency_us.unwrap().count, r.messages_received, "{r:?}");
    }
}

/// How the test server answers pings (on ping VICTIM unless said otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PingFault {
    /// Answer ping VICTIM with a pong carrying another payload.
    WrongPayload,
    /// Answer ping VICTIM with two pongs.
    Duplicate,
    /// Send a data message (Socket.IO: an event) before the pong of ping VICTIM.
    DataMessage,
    /// Before every pong, ping the client (and, Socket.IO, send an Engine.IO ping `2`).
    ServerPings,
    /// Never answer a ping.
    Silent,
}

/// The payload of the test server's own pings.
const SERVER_PING: &[u8] = b"server ping";

/// What the test server received in answer to its own pings.
#[derive(Debug, Default)]
struct Answers {
    /// Pong frames carrying [`SERVER_PING`].
    pongs: AtomicU64,
    /// Engine.IO pongs `3`.
    eio_pongs: AtomicU64,
}

async fn send(ws: &mut WebSocket<Conn>, opcode: OpCode, bytes: &[u8]) -> bool {
    let frame = Frame::new(true, opcode, None, Payload::Owned(bytes.to_vec()));
    ws.write_frame(frame).await.is_ok()
}

/// `/echo` (or, with `sio`, `/socket.io/`: the Engine.IO open packet and the namespace
/// connection answered) answering pings by hand (auto-pong off) with `fault`.
async fn ping_server(tcp: TcpStream, fault: PingFault, sio: bool, answers: Arc<Answers>) {
    let Some((mut ws, _)) = accept(tcp, &["/echo", "/socket.io/"]).await else {
        return;
    };
    ws.set_auto_pong(false);
    if sio {
        let open = br#"0{"sid":"s1","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#;
        if !send(&mut ws, OpCode::Text, open).await || ws.flush().await.is_err() {
            return;
        }
    }
    loop {
        let Ok(frame) = ws.read_frame().await else {
            return;
        };
        match frame.opcode {
            OpCode::Close => {
                // fastwebsockets queued the close reply; push it out.
                let _ = ws.flush().await;
                return;
            }
            OpCode::Pong if &frame.payload[..] == SERVER_PING => {
                answers.pongs.fetch_add(1, Ordering::SeqCst);
                continue;
            }
            OpCode::Text if sio && &frame.payload[..] == b"40" => {
                if !send(&mut ws, OpCode::Text, br#"40{"sid":"n1"}"#).await {
                    return;
                }
                continue;
            }
            OpCode::Text if sio && &frame.payload[..] == b"3" => {
                answers.eio_pongs.fetch_add(1, Ordering::SeqCst);
                continue;
            }
            OpCode::Ping => {}
            _ => continue,
        }
        let payload = frame.payload.to_vec();
        let victim = parse_seq(&payload) == Some(VICTIM);
        let mut pongs = vec![payload.clone()];
        match fault {
            PingFault::Silent => continue,
            PingFault::WrongPayload if victim => pongs = vec![b"not the payload".to_vec()],
            PingFault::Duplicate if victim => pongs.push(payload),
            PingFault::DataMessage if victim => {
                let sent = if sio {
                    send(&mut ws, OpCode::Text, br#"42["news","hello"]"#).await
                } else {
                    send(&mut ws, OpCode::Binary, b"hello").await
                };
                if !sent {
                    return;
                }
            }
            PingFault::ServerPings => {
                let sent = send(&mut ws, OpCode::Ping, SERVER_PING).await
                    && (!sio || send(&mut ws, OpCode::Text, b"2").await);
                if !sent {
                    return;
                }
            }
            _ => {}
        }
        for p in pongs {
            if !send(&mut ws, OpCode::Pong, &p).await {
                return;
            }
        }
        if ws.flush().await.is_err() {
            return;
        }
    }
}

/// Starts the test server with `fault` for `protocol`, and what it receives in answer to
/// its own pings.
fn faulty_ping_server(fault: PingFault, protocol: Protocol) -> (BackgroundServer, Arc<Answers>) {
    let answers = Arc::new(Answers::default());
    let seen = answers.clone();
    let sio = protocol == Protocol::Socketio;
    let server = BackgroundServer::start(move |tcp| ping_server(tcp, fault, sio, seen.clone()))
        .expect("start ping server");
    (server, answers)
}

/// A count-mode run of 100 pings on one connection against `fault`, timeout 1 s.
fn run_against(fault: PingFault, protocol: Protocol) -> (Report, Arc<Answers>) {
    let (server, answers) = faulty_ping_server(fault, protocol);
    let mut cfg = ping_cfg(&server, protocol, 1, 100);
    cfg.timeout = Duration::from_secs(1);
    (run_ping(&cfg).unwrap(), answers)
}

#[test]
fn the_test_server_answers_cleanly_otherwise() {
    for protocol in PROTOCOLS {
        // A fault on another ping than those sent changes nothing: the server itself is sound.
        let (server, _) = faulty_ping_server(PingFault::WrongPayload, protocol);
        let r = run_ping(&ping_cfg(&server, protocol, 2, VICTIM)).unwrap();
        assert_clean(&r);
        assert_eq!(r.messages_received, 2 * VICTIM, "{protocol:?}");
    }
}

#[test]
fn wrong_pong_payload_is_corrupted() {
    for protocol in PROTOCOLS {
        let (r, _) = run_against(PingFault::WrongPayload, protocol);
        let want = Integrity {
            corrupted: 1,
            ..Integrity::default()
        };
        assert_eq!(r.integrity, want, "{protocol:?}");
        assert_eq!(r.errors, Errors::default(), "{protocol:?}");
        // Taken as the ping's answer, without a round trip.
        assert_eq!(r.messages_received, 100, "{protocol:?}");
        assert_eq!(r.latency_us.unwrap().count, 99, "{protocol:?}");
        assert_eq!(r.bytes_received, 99 * 16 + b"not the payload".len() as u64);
    }
}

#[test]
fn duplicated_pong_is_duplicated() {
    for protocol in PROTOCOLS {
        let (r, _) = run_against(PingFault::Duplicate, protocol);
        let want = Integrity {
            duplicated: 1,
            ..Integrity::default()
        };
        assert_eq!(r.integrity, want, "{protocol:?}");
        assert_eq!(r.errors, Errors::default(), "{protocol:?}");
        assert_eq!(r.messages_received, 101, "{protocol:?}");
        assert_eq!(r.latency_us.unwrap().count, 100, "{protocol:?}");
    }
}

#[test]
fn data_message_is_corrupted() {
    for protocol in PROTOCOLS {
        let (r, _) = run_against(PingFault::DataMessage, protocol);
        let want = Integrity {
            corrupted: 1,
            ..Integrity::default()
        };
        assert_eq!(r.integrity, want, "{protocol:?}");
        assert_eq!(r.errors, Errors::default(), "{protocol:?}");
        // Not a pong: the ping still got its own.
        assert_eq!(r.messages_received, 100, "{protocol:?}");
        assert_eq!(r.latency_us.unwrap().count, 100, "{protocol:?}");
    }
}

#[test]
fn server_pings_are_answered_not_counted() {
    for protocol in PROTOCOLS {
        let (r, answers) = run_against(PingFault::ServerPings, protocol);
        assert_clean(&r);
        assert_eq!(r.messages_received, 100, "{protocol:?}");
        assert_eq!(r.latency_us.unwrap().count, 100, "{protocol:?}");
        // Each answered before the connection closed (the server reads them before the close).
        assert_eq!(answers.pongs.load(Ordering::SeqCst), 100, "{protocol:?}");
        let eio = if protocol == Protocol::Socketio {
            100
        } else {
            0
        };
        assert_eq!(
            answers.eio_pongs.load(Ordering::SeqCst),
            eio,
            "{protocol:?}"
        );
    }
}

#[test]
fn unanswered_ping_is_lost_and_times_out() {
    for protocol in PROTOCOLS {
        let (server, _) = faulty_ping_server(PingFault::Silent, protocol);
        let mut cfg = ping_cfg(&server, protocol, 3, 100);
        cfg.timeout = Duration::from_millis(300);
        let r = within_a_minute(move || run_ping(&cfg).unwrap());
        let want = Integrity {
            lost: 3,
            ..Integrity::default()
        };
        assert_eq!(r.integrity, want, "{protocol:?}");
        assert_eq!(r.errors.timeout, 3, "{protocol:?} {:?}", r.errors);
        assert_eq!(r.errors.total(), 3, "{protocol:?} {:?}", r.errors);
        assert_eq!(r.messages_sent, 3, "one ping each: {protocol:?}");
        assert_eq!(r.messages_received, 0, "{protocol:?}");
        // Duration mode too: the window's end does not wait past the timeout.
        let mut cfg = ping_cfg(&server, protocol, 1, 1);
        cfg.count = None;
        cfg.warmup = Duration::from_millis(50);
        cfg.duration = Duration::from_millis(100);
        cfg.timeout = Duration::from_millis(300);
        let r = within_a_minute(move || run_ping(&cfg).unwrap());
        assert_eq!(r.integrity.lost, 1, "{protocol:?} {:?}", r.integrity);
        assert_eq!(r.errors.timeout, 1, "{protocol:?} {:?}", r.errors);
    }
}
