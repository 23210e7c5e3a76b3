//! Many connections through the library API: the connect phase and per-connection rates
//! of `echo` / `stream`, source addresses, `connect`, `hold` and the JSON workload,
//! against the reference server and deliberately faulty servers.

use crate::common;

use std::collections::BTreeSet;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{sio_url, VICTIM};
use fastwebsockets::{Frame, OpCode, Payload};
use tokio::net::TcpStream;
use wsbench_loadgen::modes::connect::ConnectConfig;
use wsbench_loadgen::modes::hold::HoldConfig;
use wsbench_loadgen::modes::run::CONNECT_CONCURRENCY;
use wsbench_loadgen::protocol::integrity::Integrity;
use wsbench_loadgen::protocol::jsonmsg::JsonRequest;
use wsbench_loadgen::protocol::payload::parse_seq;
use wsbench_loadgen::protocol::ws::read_message;
use wsbench_loadgen::report::Errors;
use wsbench_loadgen::serve::{handle, BackgroundServer};
use wsbench_loadgen::transport::handshake::accept;
use wsbench_loadgen::{
    run_connect, run_echo, run_hold, run_stream, LoadConfig, Protocol, Report, WsUrl,
};

fn assert_clean(r: &Report) {
    assert_eq!(r.errors, Errors::default(), "{r:?}");
    assert_eq!(r.integrity, Integrity::default(), "{r:?}");
}

fn refused_url(path: &str) -> WsUrl {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    format!("ws://127.0.0.1:{port}{path}").parse().unwrap()
}

#[test]
fn connect_phase_and_per_connection_rates_are_reported() {
    let server = BackgroundServer::reference().unwrap();
    let (n, c) = (5usize, 200u64);
    let mut cfg = LoadConfig::count_mode(server.url("/echo"), n, c, 32);
    cfg.in_flight = 4;
    let r = run_echo(&cfg).unwrap();
    assert_clean(&r);
    assert_eq!(r.connections_ok, n as u64);
    assert!(r.connect_s > 0.0, "{r:?}");
    let expected = n as f64 / r.connect_s;
    assert!((r.connections_per_s - expected).abs() < 1e-6 * expected);
    let p = r
        .per_connection_messages_per_s
        .expect("connections were established");
    assert!(
        0.0 < p.min && p.min <= p.median && p.median <= p.max,
        "{p:?}"
    );
    // Count mode: every connection received exactly c messages in the same window.
    assert!(
        (p.min - c as f64 / r.window_s).abs() < 1e-6 * p.min,
        "{p:?}"
    );
    assert!((p.max - p.min).abs() < 1e-6 * p.max, "{p:?}");
    assert!(r.rlimit_nofile > n as u64);

    let cfg = LoadConfig::count_mode(server.url("/push"), 3, 500, 16);
    let r = run_stream(&cfg).unwrap();
    assert_clean(&r);
    assert_eq!(r.connections_ok, 3);
    let p = r.per_connection_messages_per_s.unwrap();
    assert!((p.min - 500.0 / r.window_s).abs() < 1e-6 * p.min, "{p:?}");
    assert!((p.max - p.min).abs() < 1e-6 * p.max, "{p:?}");

    // Duration mode: the rates are those of the window. (The reference server's /push
    // does not share itself evenly between connections: only the largest is surely > 0.)
    let mut cfg = cfg;
    cfg.count = None;
    cfg.warmup = Duration::from_millis(50);
    cfg.duration = Duration::from_millis(200);
    let r = run_stream(&cfg).unwrap();
    assert_clean(&r);
    let p = r.per_connection_messages_per_s.unwrap();
    assert!(
        p.min <= p.median && p.median <= p.max && p.max > 0.0,
        "{p:?}"
    );
    let total = r.messages_received as f64 / r.window_s;
    assert!(p.max <= total * (1.0 + 1e-9), "{p:?} {total}");
}

#[test]
fn failed_connections_still_give_a_report() {
    let r = run_echo(&LoadConfig::count_mode(refused_url("/echo"), 4, 10, 16)).unwrap();
    assert_eq!(r.errors.connection_refused, 4);
    assert_eq!(r.connections_ok, 0);
    assert_eq!(r.per_connection_messages_per_s, None);
    assert_eq!(r.connections_per_s, 0.0);
    assert!(r.connect_s > 0.0);

    // Every other connection is dropped before the upgrade: the others run, and the
    // rates cover them.
    let accepted = Arc::new(AtomicUsize::new(0));
    let server = BackgroundServer::start(move |tcp| {
        let k = accepted.fetch_add(1, Ordering::SeqCst);
        async move {
            if k.is_multiple_of(2) {
                handle(tcp).await
            }
        }
    })
    .unwrap();
    let r = run_echo(&LoadConfig::count_mode(server.url("/echo"), 4, 50, 16)).unwrap();
    assert_eq!(r.connections_ok, 2, "{r:?}");
    assert_eq!(r.errors.total(), 2, "{r:?}");
    assert_eq!(r.messages_received, 100);
    let p = r.per_connection_messages_per_s.unwrap();
    assert!(p.min > 0.0, "{p:?}");
}

#[test]
fn a_server_that_stops_accepting_ends_the_connect_phase() {
    // The first 10 connections are served; every later one is accepted by TCP but never
    // answered (a connection cap). Without the stall rule the 190 others would time out
    // in 3 rounds of 64 attempts; with it, the attempts not yet made are abandoned.
    const SERVED: usize = 10;
    const N: usize = 200;
    let accepted = Arc::new(AtomicUsize::new(0));
    let seen = accepted.clone();
    let server = BackgroundServer::start(move |tcp| {
        let k = seen.fetch_add(1, Ordering::SeqCst);
        async move {
            if k < SERVED {
                handle(tcp).await
            } else {
                let _held = tcp;
                std::future::pending::<()>().await
            }
        }
    })
    .unwrap();
    let mut cfg = LoadConfig::count_mode(server.url("/echo"), N, 5, 16);
    cfg.timeout = Duration::from_millis(500);
    let r = run_echo(&cfg).unwrap();
    assert_eq!(r.connections_ok, SERVED as u64, "{r:?}");
    assert_eq!(r.messages_received, 5 * SERVED as u64);
    assert_eq!(r.errors.timeout, (N - SERVED) as u64, "{r:?}");
    assert_eq!(r.errors.total(), (N - SERVED) as u64, "{r:?}");
    assert_eq!(r.integrity, Integrity::default());
    // The served ones (the first to start, so no stalled attempt ends before the last of
    // them succeeds), the other 63 attempts in flight then, and one attempt in each of
    // the 64 slots started after it: that one times out `timeout` or more after the last
    // success, so it finds the stall before its slot starts another.
    let reached = accepted.load(Ordering::SeqCst);
    assert!(
        reached < SERVED + 2 * CONNECT_CONCURRENCY,
        "{reached} reached the server"
    );
}

/// The reference server, recording the source address of every connection.
fn recording_server() -> (BackgroundServer, Arc<Mutex<BTreeSet<IpAddr>>>) {
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    let s = seen.clone();
    let server = BackgroundServer::start(move |tcp: TcpStream| {
        if let Ok(peer) = tcp.peer_addr() {
            s.lock().unwrap().insert(peer.ip());
        }
        handle(tcp)
    })
    .unwrap();
    (server, seen)
}

fn loopback(last: &[u8]) -> BTreeSet<IpAddr> {
    last.iter().map(|&d| IpAddr::from([127, 0, 0, d])).collect()
}

#[test]
fn source_addresses_spread_the_connections() {
    let (server, seen) = recording_server();
    let mut cfg = LoadConfig::count_mode(server.url("/echo"), 7, 20, 16);
    cfg.source_addresses = 3;
    let r = run_echo(&cfg).unwrap();
    assert_clean(&r);
    assert_eq!(r.config.source_addresses, 3);
    assert_eq!(*seen.lock().unwrap(), loopback(&[1, 2, 3]));

    let (server, seen) = recording_server();
    let cfg = ConnectConfig {
        source_addresses: 4,
        ..connect_cfg(server.url("/echo"), Protocol::Websocket)
    };
    let r = run_connect(&cfg).unwrap();
    assert!(r.cycles >= 4, "{r:?}");
    assert_eq!(*seen.lock().unwrap(), loopback(&[1, 2, 3, 4]));
}

fn connect_cfg(url: WsUrl, protocol: Protocol) -> ConnectConfig {
    ConnectConfig {
        url,
        workers: 3,
        size: 100,
        warmup: Duration::from_millis(50),
        duration: Duration::from_millis(300),
        timeout: Duration::from_secs(2),
        threads: 1,
        cpus: Vec::new(),
        source_addresses: 1,
        protocol,
        deflate: false,
        tls_ca: None,
    }
}

#[test]
fn connect_cycles_are_counted_and_clean() {
    let server = BackgroundServer::reference().unwrap();
    for (url, protocol) in [
        (server.url("/echo"), Protocol::Websocket),
        (sio_url(&server), Protocol::Socketio),
    ] {
        for threads in [1, 2] {
            let cfg = ConnectConfig {
                threads,
                ..connect_cfg(url.clone(), protocol)
            };
            let r = run_connect(&cfg).unwrap();
            assert_eq!(r.errors, Errors::default(), "{r:?}");
            assert_eq!(r.integrity, Integrity::default(), "{r:?}");
            assert!(r.cycles > 0, "{r:?}");
            assert_eq!(r.handshake_us.count, r.cycles);
            assert_eq!(r.cycle_us.count, r.cycles);
            assert!(r.cycle_us.p50 >= r.handshake_us.p50, "{r:?}");
            assert_eq!(r.window_s, 0.3);
            assert!((r.connections_per_s - r.cycles as f64 / 0.3).abs() < 1e-6);
            assert_eq!(r.config.protocol, protocol.name());
        }
    }
}

/// How a server misbehaves towards `connect` cycles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CycleFault {
    /// Echoes with a flipped filler byte.
    Corrupt,
    /// Echoes twice (the second copy arrives after the client's close frame).
    Twice,
    /// Echoes, then ignores the close (never answers it, never closes).
    IgnoreClose,
    /// Closes instead of echoing.
    CloseAtOnce,
}

async fn faulty_cycle_server(tcp: TcpStream, fault: CycleFault) {
    let Some((mut ws, _)) = accept(tcp, &["/echo"]).await else {
        return;
    };
    ws.set_auto_close(false);
    let mut echoed = false;
    loop {
        let Ok(mut msg) = read_message(&mut ws).await else {
            return;
        };
        if msg.opcode == OpCode::Close {
            if fault == CycleFault::IgnoreClose {
                tokio::time::sleep(Duration::from_secs(30)).await;
            }
            let _ = ws.write_frame(Frame::close(1000, b"")).await;
            let _ = ws.flush().await;
            return;
        }
        if fault == CycleFault::CloseAtOnce {
            let _ = ws.write_frame(Frame::close(1000, b"")).await;
            let _ = ws.flush().await;
            return;
        }
        if echoed {
            continue;
        }
        echoed = true;
        if fault == CycleFault::Corrupt {
            let bytes = msg.payload.to_mut();
            let last = bytes.len() - 1;
            bytes[last] ^= 1;
        }
        let times = if fault == CycleFault::Twice { 2 } else { 1 };
        for _ in 0..times {
            let copy = Payload::Owned(msg.payload.to_vec());
            if ws
                .write_frame(Frame::new(true, msg.opcode, None, copy))
                .await
                .is_err()
            {
                return;
            }
        }
        let _ = ws.flush().await;
    }
}

#[test]
fn connect_counts_faults_and_goes_on() {
    let run = |fault: CycleFault| {
        let server = BackgroundServer::start(move |tcp| faulty_cycle_server(tcp, fault)).unwrap();
        let cfg = ConnectConfig {
            workers: 2,
            timeout: Duration::from_millis(200),
            ..connect_cfg(server.url("/echo"), Protocol::Websocket)
        };
        run_connect(&cfg).unwrap()
    };
    let r = run(CycleFault::Corrupt);
    assert!(r.cycles > 0 && r.integrity.corrupted >= r.cycles, "{r:?}");
    assert_eq!(r.errors, Errors::default());
    // Data after the client's close frame ends the close (fastwebsockets refuses it):
    // the cycle still succeeds.
    let r = run(CycleFault::Twice);
    assert!(r.cycles > 0, "{r:?}");
    assert_eq!(r.errors, Errors::default(), "{r:?}");
    assert_eq!(r.integrity, Integrity::default(), "{r:?}");
    let r = run(CycleFault::IgnoreClose);
    assert!(
        r.errors.timeout >= 2,
        "each worker timed out and went on: {r:?}"
    );
    assert_eq!(r.errors.total(), r.errors.timeout, "{r:?}");
    let r = run(CycleFault::CloseAtOnce);
    assert!(r.errors.closed_early >= 2, "{r:?}");
    assert_eq!(r.integrity.lost, r.errors.closed_early, "{r:?}");
    assert_eq!(r.cycles, 0);

    let cfg = connect_cfg(refused_url("/echo"), Protocol::Websocket);
    let r = run_connect(&cfg).unwrap();
    assert_eq!(r.cycles, 0);
    assert!(r.errors.connection_refused > 3, "workers go on: {r:?}");
    assert_eq!(r.errors.total(), r.errors.connection_refused);
}

fn hold_cfg(url: WsUrl, n: usize, protocol: Protocol) -> HoldConfig {
    HoldConfig {
        url,
        connections: n,
        hold: Duration::from_secs(30),
        timeout: Duration::from_secs(2),
        source_addresses: 1,
        protocol,
        cpus: Vec::new(),
        deflate: false,
        tls_ca: None,
    }
}

/// The reference server, counting the connections it is serving.
fn counting_server() -> (BackgroundServer, Arc<AtomicUsize>) {
    let open = Arc::new(AtomicUsize::new(0));
    let o = open.clone();
    let server = BackgroundServer::start(move |tcp| {
        let o = o.clone();
        o.fetch_add(1, Ordering::SeqCst);
        async move {
            handle(tcp).await;
            o.fetch_sub(1, Ordering::SeqCst);
        }
    })
    .unwrap();
    (server, open)
}

/// Completes `ms` milliseconds after it is first polled (inside the run's runtime).
async fn after(ms: u64) {
    tokio::time::sleep(Duration::from_millis(ms)).await
}

#[test]
fn hold_keeps_every_connection_open_then_closes_them() {
    let (server, open) = counting_server();
    let n = 40;
    let mut seen_open = 0;
    let (first, closed) = run_hold(
        &hold_cfg(server.url("/echo"), n, Protocol::Websocket),
        after(300),
        |o| {
            assert_eq!(o.connections_ok, n as u64);
            seen_open = open.load(Ordering::SeqCst);
        },
    )
    .unwrap();
    assert_eq!(seen_open, n, "the server serves every connection");
    assert_eq!(first.handshake_us.count, n as u64);
    assert_eq!(first.errors, Errors::default());
    assert_eq!((closed.closed, closed.closed_early), (n as u64, 0));
    assert!(closed.held_s >= 0.29 && closed.held_s < 10.0, "{closed:?}");
    // The server sees them go.
    let start = std::time::Instant::now();
    while open.load(Ordering::SeqCst) > 0 {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "connections left open"
        );
        std::thread::sleep(Duration::from_millis(10));
    }

    // The hold's own limit ends it when the stop never comes.
    let mut cfg = hold_cfg(server.url("/echo"), 3, Protocol::Websocket);
    cfg.hold = Duration::from_millis(200);
    let (_, closed) = run_hold(&cfg, std::future::pending(), |_| {}).unwrap();
    assert_eq!(closed.closed, 3);
}

/// A Socket.IO server that pings every 20 ms whether or not messages come (as
/// python-engineio does, every 25 s) and counts the pongs.
async fn pinging_sio(tcp: TcpStream, pongs: Arc<AtomicUsize>) {
    let Some((mut ws, _)) = accept(tcp, &["/socket.io/"]).await else {
        return;
    };
    let text = |b: &'static [u8]| Frame::new(true, OpCode::Text, None, Payload::Borrowed(b));
    let open = br#"0{"sid":"s1","upgrades":[],"pingInterval":20,"pingTimeout":20000,"maxPayload":1000000}"#;
    if ws.write_frame(text(open)).await.is_err() || ws.flush().await.is_err() {
        return;
    }
    let mut ticker = tokio::time::interval(Duration::from_millis(20));
    loop {
        tokio::select! {
            m = read_message(&mut ws) => {
                let Ok(m) = m else { return };
                match (m.opcode, &m.payload[..]) {
                    (OpCode::Close, _) => {
                        let _ = ws.flush().await;
                        return;
                    }
                    (_, b"40") => {
                        let connected = text(br#"40{"sid":"n1"}"#);
                        if ws.write_frame(connected).await.is_err() {
                            return;
                        }
                    }
                    (_, b"3") => {
                        pongs.fetch_add(1, Ordering::SeqCst);
                    }
                    _ => {}
                }
            }
            _ = ticker.tick() => {
                if ws.write_frame(text(b"2")).await.is_err() || ws.flush().await.is_err() {
                    return;
                }
            }
        }
    }
}

#[test]
fn hold_answers_socketio_pings() {
    let pongs = Arc::new(AtomicUsize::new(0));
    let p = pongs.clone();
    let server = BackgroundServer::start(move |tcp| pinging_sio(tcp, p.clone())).unwrap();
    let (first, closed) = run_hold(
        &hold_cfg(sio_url(&server), 4, Protocol::Socketio),
        after(300),
        |_| {},
    )
    .unwrap();
    assert_eq!(first.connections_ok, 4);
    assert_eq!((closed.closed, closed.closed_early), (4, 0));
    // About 15 pings per connection in 300 ms; every one answered while idle.
    assert!(pongs.load(Ordering::SeqCst) >= 4 * 5, "{pongs:?}");

    // The reference server's endpoint holds too.
    let server = BackgroundServer::reference().unwrap();
    let (first, closed) = run_hold(
        &hold_cfg(sio_url(&server), 3, Protocol::Socketio),
        after(100),
        |_| {},
    )
    .unwrap();
    assert_eq!(first.connections_ok, 3);
    assert_eq!(closed.closed, 3);
}

/// Upgrades, waits 50 ms and closes (close frame, then drop).
async fn impatient(tcp: TcpStream) {
    let Some((mut ws, _)) = accept(tcp, &["/echo"]).await else {
        return;
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let _ = ws.write_frame(Frame::close(1001, b"")).await;
    let _ = ws.flush().await;
}

#[test]
fn hold_counts_connections_the_server_closes() {
    let server = BackgroundServer::start(impatient).unwrap();
    let (first, closed) = run_hold(
        &hold_cfg(server.url("/echo"), 5, Protocol::Websocket),
        after(400),
        |_| {},
    )
    .unwrap();
    assert_eq!(first.connections_ok, 5);
    assert_eq!((closed.closed, closed.closed_early), (0, 5));

    let (first, closed) = run_hold(
        &hold_cfg(refused_url("/echo"), 2, Protocol::Websocket),
        std::future::pending(),
        |_| {},
    )
    .unwrap();
    assert_eq!(first.connections_ok, 0);
    assert_eq!(first.errors.connection_refused, 2);
    assert_eq!((closed.closed, closed.closed_early), (0, 0));
}

fn json_cfg(url: WsUrl, n: usize, count: u64, w: usize, protocol: Protocol) -> LoadConfig {
    let mut cfg = LoadConfig::count_mode(url, n, count, 16);
    cfg.json = true;
    cfg.in_flight = w;
    cfg.protocol = protocol;
    cfg.timeout = Duration::from_secs(1);
    cfg
}

#[test]
fn json_counts_are_exact() {
    let server = BackgroundServer::reference().unwrap();
    for (url, protocol, answer) in [
        (server.url("/json"), Protocol::Websocket, 39u64),
        (sio_url(&server), Protocol::Socketio, 36),
    ] {
        for (w, threads) in [(1usize, 1usize), (64, 1), (7, 2)] {
            let (n, c) = (2usize, 400u64);
            let mut cfg = json_cfg(url.clone(), n, c, w, protocol);
            cfg.threads = threads;
            let r = run_echo(&cfg).unwrap();
            let ctx = format!("{protocol:?} w={w} threads={threads}");
            assert_clean(&r);
            assert_eq!(r.config.message_type, "json", "{ctx}");
            assert_eq!(r.config.size_bytes, 97, "{ctx}");
            assert_eq!(r.messages_sent, n as u64 * c, "{ctx}");
            assert_eq!(r.messages_received, n as u64 * c, "{ctx}");
            assert_eq!(r.bytes_sent, n as u64 * c * 97, "{ctx}");
            assert_eq!(r.bytes_received, n as u64 * c * answer, "{ctx}");
            assert_eq!(r.latency_us.unwrap().count, n as u64 * c, "{ctx}");
        }
    }
    // Duration mode.
    let mut cfg = json_cfg(server.url("/json"), 2, 1, 8, Protocol::Websocket);
    cfg.count = None;
    cfg.warmup = Duration::from_millis(50);
    cfg.duration = Duration::from_millis(200);
    let r = run_echo(&cfg).unwrap();
    assert_clean(&r);
    assert!(r.messages_received > 0);
}

/// How a `/json` server misbehaves on message VICTIM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JsonFault {
    /// `"ok": false`.
    NotOk,
    /// The answer in a binary frame.
    Binary,
    /// Not JSON.
    Garbage,
    /// Another sequence number that was never sent.
    WrongSeq,
    /// The answer twice.
    Twice,
    /// No answer.
    Drop,
}

async fn faulty_json(tcp: TcpStream, fault: JsonFault) {
    let Some((mut ws, _)) = accept(tcp, &["/json"]).await else {
        return;
    };
    loop {
        let Ok(msg) = read_message(&mut ws).await else {
            return;
        };
        if msg.opcode == OpCode::Close {
            let _ = ws.flush().await;
            return;
        }
        let req: JsonRequest<'_> = serde_json::from_slice(&msg.payload).unwrap();
        let mut answer = format!(r#"{{"seq": "{}", "ok": true}}"#, req.seq).into_bytes();
        let (mut op, mut times) = (OpCode::Text, 1);
        if parse_seq(req.seq.as_bytes()) == Some(VICTIM) {
            match fault {
                JsonFault::NotOk => {
                    answer = format!(r#"{{"seq": "{}", "ok": false}}"#, req.seq).into_bytes()
                }
                JsonFault::Binary => op = OpCode::Binary,
                JsonFault::Garbage => answer = b"{\"seq\": ".to_vec(),
                JsonFault::WrongSeq => {
                    answer = br#"{"seq": "00000000ffffffff", "ok": true}"#.to_vec()
                }
                JsonFault::Twice => times = 2,
                JsonFault::Drop => times = 0,
            }
        }
        for _ in 0..times {
            let f = Frame::new(true, op, None, Payload::Owned(answer.clone()));
            if ws.write_frame(f).await.is_err() {
                return;
            }
        }
    }
}

#[test]
fn json_faults_show_in_the_integrity_counters() {
    let run = |fault: JsonFault, w: usize| {
        let server = BackgroundServer::start(move |tcp| faulty_json(tcp, fault)).unwrap();
        run_echo(&json_cfg(
            server.url("/json"),
            1,
            50,
            w,
            Protocol::Websocket,
        ))
        .unwrap()
    };
    for w in [1, 8] {
        for fault in [JsonFault::NotOk, JsonFault::Binary, JsonFault::Garbage] {
            let r = run(fault, w);
            let ctx = format!("{fault:?} w={w}");
            assert_eq!(r.integrity.corrupted, 1, "{ctx}: {:?}", r.integrity);
            assert_eq!(
                r.integrity.duplicated + r.integrity.out_of_order,
                0,
                "{ctx}"
            );
            assert_eq!(r.messages_received, 50, "{ctx}");
        }
        let r = run(JsonFault::Twice, w);
        assert_eq!(r.integrity.duplicated, 1, "{:?}", r.integrity);
        assert_eq!(r.integrity.corrupted, 0, "{:?}", r.integrity);
    }
    let r = run(JsonFault::Drop, 8);
    assert_eq!(r.integrity.lost, 1, "{:?}", r.integrity);
    // An answer for a message never sent is corrupted; the message it replaced is lost.
    let r = run(JsonFault::WrongSeq, 8);
    assert_eq!(r.integrity.corrupted, 1, "{:?}", r.integrity);
    assert_eq!(r.integrity.lost, 1, "{:?}", r.integrity);
}
