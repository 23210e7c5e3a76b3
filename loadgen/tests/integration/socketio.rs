//! `--protocol socketio` against the reference server's `/socket.io/` endpoint (exact
//! counts, pings mid-run, duration mode) and against deliberately faulty Socket.IO
//! servers (integrity counters and error kinds).

use crate::common;

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use common::{count_cfg, faulty_sio_server, sio_url, SioFault};
use wsbench_loadgen::protocol::integrity::Integrity;
use wsbench_loadgen::report::Errors;
use wsbench_loadgen::serve::sio::{sio_loop, SioOptions, SioStats};
use wsbench_loadgen::serve::BackgroundServer;
use wsbench_loadgen::transport::handshake::accept;
use wsbench_loadgen::{run_echo, run_stream, LoadConfig, Protocol, Report};

fn assert_clean(r: &Report) {
    assert_eq!(r.errors, Errors::default(), "{r:?}");
    assert_eq!(r.integrity, Integrity::default(), "{r:?}");
}

fn sio_cfg(server: &BackgroundServer, n: usize, count: u64, size: usize) -> LoadConfig {
    let mut cfg = LoadConfig::count_mode(sio_url(server), n, count, size);
    cfg.protocol = Protocol::Socketio;
    cfg
}

#[test]
fn echo_counts_are_exact() {
    let server = BackgroundServer::reference().unwrap();
    for text in [false, true] {
        for size in [16usize, 1024, 65536] {
            for (w, threads) in [(64usize, 1usize), (1, 1), (7, 2)] {
                let (n, c) = (2usize, 300u64);
                let mut cfg = sio_cfg(&server, n, c, size);
                cfg.in_flight = w;
                cfg.text = text;
                cfg.threads = threads;
                let r = run_echo(&cfg).unwrap();
                let ctx = format!("text={text} size={size} w={w} threads={threads}");
                assert_clean(&r);
                assert_eq!(r.config.protocol, "socketio");
                assert_eq!(r.messages_sent, n as u64 * c, "{ctx}");
                assert_eq!(r.messages_received, n as u64 * c, "{ctx}");
                // Payload bytes, not framing.
                assert_eq!(r.bytes_sent, n as u64 * c * size as u64, "{ctx}");
                assert_eq!(r.bytes_received, r.bytes_sent, "{ctx}");
                assert_eq!(r.latency_us.unwrap().count, n as u64 * c, "{ctx}");
                assert_eq!(r.handshake_us.count, n as u64, "{ctx}");
            }
        }
    }
}

#[test]
fn stream_counts_are_exact() {
    let server = BackgroundServer::reference().unwrap();
    for text in [false, true] {
        for size in [16usize, 1024, 65536] {
            let (n, c) = (3usize, 700u64);
            let mut cfg = sio_cfg(&server, n, c, size);
            cfg.text = text;
            let r = run_stream(&cfg).unwrap();
            assert_clean(&r);
            assert_eq!(r.messages_sent, n as u64, "one request per connection");
            assert_eq!(r.messages_received, n as u64 * c);
            assert_eq!(r.bytes_received, n as u64 * c * size as u64);
            let req = format!(r#"{{"count":{c},"size":{size},"binary":{}}}"#, !text);
            assert_eq!(
                r.bytes_sent,
                n as u64 * req.len() as u64,
                "the request object"
            );
        }
    }
}

/// A reference Socket.IO server pinging every `interval`, counting pings and pongs.
fn pinging_server(interval: Duration) -> (BackgroundServer, Arc<SioStats>) {
    let stats = Arc::new(SioStats::default());
    let st = stats.clone();
    let server = BackgroundServer::start(move |tcp| {
        let opts = SioOptions {
            ping_interval: interval,
            stats: Some(st.clone()),
        };
        async move {
            if let Some((ws, up)) = accept(tcp, &["/socket.io/"]).await {
                sio_loop(ws, up.port, opts).await
            }
        }
    })
    .unwrap();
    (server, stats)
}

#[test]
fn pings_are_answered_mid_run() {
    let (server, stats) = pinging_server(Duration::from_millis(1));
    for text in [false, true] {
        let mut cfg = sio_cfg(&server, 2, 3000, 64);
        cfg.text = text;
        cfg.in_flight = 4;
        let r = run_echo(&cfg).unwrap();
        assert_clean(&r);
        assert_eq!(r.messages_received, 6000);
        let mut cfg = sio_cfg(&server, 2, 20_000, 64);
        cfg.text = text;
        let r = run_stream(&cfg).unwrap();
        assert_clean(&r);
        assert_eq!(r.messages_received, 40_000);
    }
    let (pings, pongs) = (
        stats.pings.load(Ordering::Relaxed),
        stats.pongs.load(Ordering::Relaxed),
    );
    assert!(pongs > 0, "pings {pings}, pongs {pongs}");
    assert!(pongs <= pings, "pings {pings}, pongs {pongs}");
}

/// Runs `f` on a thread and fails (instead of hanging) if it does not return in 60 s.
fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(f()).unwrap());
    rx.recv_timeout(Duration::from_secs(60))
        .expect("run did not end: the window end was missed")
}

#[test]
fn duration_modes_run_and_stay_clean() {
    let server = BackgroundServer::reference().unwrap();
    let mut cfg = sio_cfg(&server, 2, 1, 64);
    cfg.count = None;
    cfg.in_flight = 8;
    cfg.warmup = Duration::from_millis(100);
    cfg.duration = Duration::from_millis(300);
    let c = cfg.clone();
    let r = within_a_minute(move || run_echo(&c).unwrap());
    assert_clean(&r);
    assert!(r.messages_received > 0 && r.window_s > 0.0, "{r:?}");
    // The client leaves mid-push.
    for (size, text) in [(16, false), (4096, true)] {
        let mut c = cfg.clone();
        c.size = size;
        c.text = text;
        let r = within_a_minute(move || run_stream(&c).unwrap());
        assert_clean(&r);
        assert!(r.messages_received > 0, "{r:?}");
    }
}

fn sio_count_cfg(server: &BackgroundServer, count: u64, size: usize, w: usize) -> LoadConfig {
    let mut cfg = count_cfg(sio_url(server), 1, count, size, w);
    cfg.protocol = Protocol::Socketio;
    cfg
}

#[test]
fn faults_show_in_the_integrity_counters() {
    for text in [false, true] {
        let run = |fault| {
            let server = faulty_sio_server(fault);
            let mut cfg = sio_count_cfg(&server, 100, 40, 8);
            cfg.text = text;
            run_echo(&cfg).unwrap()
        };
        let r = run(SioFault::Drop);
        assert_eq!(r.integrity.lost, 1, "{text} {:?}", r.integrity);
        assert_eq!(r.integrity.out_of_order, 0, "{:?}", r.integrity);
        assert_eq!(r.messages_received, 99);
        for fault in [SioFault::Corrupt, SioFault::WrongType, SioFault::WrongEvent] {
            let r = run(fault);
            assert_eq!(
                r.integrity.corrupted, 1,
                "{fault:?} {text} {:?}",
                r.integrity
            );
            assert_eq!(r.integrity.lost, 0, "{fault:?} {:?}", r.integrity);
            assert_eq!(r.errors, Errors::default(), "{fault:?}");
            assert_eq!(r.messages_received, 100);
        }
        let r = run(SioFault::Duplicate);
        assert_eq!(r.integrity.duplicated, 1, "{:?}", r.integrity);
        assert_eq!(r.integrity.lost, 0, "{:?}", r.integrity);
    }
}

#[test]
fn server_disconnect_is_closed_early() {
    let server = faulty_sio_server(SioFault::Disconnect);
    let r = run_echo(&sio_count_cfg(&server, 100, 16, 1)).unwrap();
    assert_eq!(r.errors.closed_early, 1, "{:?}", r.errors);
    assert_eq!(r.messages_received, 10);
}

#[test]
fn refused_namespace_is_a_connect_error() {
    let server = faulty_sio_server(SioFault::RefuseConnect);
    let mut cfg = sio_count_cfg(&server, 10, 16, 1);
    cfg.connections = 3;
    let r = run_echo(&cfg).unwrap();
    assert_eq!(r.errors.socketio_connect_error, 3, "{:?}", r.errors);
    assert_eq!(r.errors.total(), 3);
    assert_eq!(r.handshake_us.count, 0);
}

#[test]
fn missing_open_packet_is_a_handshake_failure() {
    let server = faulty_sio_server(SioFault::BadOpen);
    let r = run_stream(&sio_count_cfg(&server, 10, 16, 1)).unwrap();
    assert_eq!(r.errors.handshake_failed, 1, "{:?}", r.errors);
}

#[test]
fn plain_websocket_server_times_out_as_socketio() {
    // The reference /echo endpoint upgrades but never sends an Engine.IO open packet.
    let server = BackgroundServer::reference().unwrap();
    let mut cfg = LoadConfig::count_mode(server.url("/echo"), 1, 10, 16);
    cfg.protocol = Protocol::Socketio;
    cfg.timeout = Duration::from_millis(300);
    let r = run_echo(&cfg).unwrap();
    assert_eq!(r.errors.timeout, 1, "{:?}", r.errors);
}
