//! Counts are exact against the native reference server (count mode).

use std::time::Duration;

use wsbench_loadgen::protocol::integrity::Integrity;
use wsbench_loadgen::report::Errors;
use wsbench_loadgen::serve::BackgroundServer;
use wsbench_loadgen::{run_echo, run_stream, LoadConfig};

fn assert_clean(r: &wsbench_loadgen::Report) {
    assert_eq!(r.errors, Errors::default(), "{r:?}");
    assert_eq!(r.integrity, Integrity::default(), "{r:?}");
}

#[test]
fn echo_counts_are_exact() {
    let server = BackgroundServer::reference().unwrap();
    for text in [false, true] {
        for size in [16usize, 1024, 65536] {
            for (w, threads) in [(64usize, 1usize), (1, 1), (7, 2)] {
                let (n, c) = (2usize, 500u64);
                let mut cfg = LoadConfig::count_mode(server.url("/echo"), n, c, size);
                cfg.in_flight = w;
                cfg.text = text;
                cfg.threads = threads;
                let r = run_echo(&cfg).unwrap();
                let ctx = format!("text={text} size={size} w={w} threads={threads}");
                assert_clean(&r);
                assert_eq!(r.messages_sent, n as u64 * c, "{ctx}");
                assert_eq!(r.messages_received, n as u64 * c, "{ctx}");
                assert_eq!(r.bytes_sent, n as u64 * c * size as u64, "{ctx}");
                assert_eq!(r.bytes_received, r.bytes_sent, "{ctx}");
                let lat = r.latency_us.unwrap();
                assert_eq!(lat.count, n as u64 * c, "{ctx}");
                assert_eq!(r.handshake_us.count, n as u64, "{ctx}");
                assert_eq!(r.config.burst, Some((w / 4).max(1)), "{ctx}");
                assert_eq!(r.config.message_type, if text { "text" } else { "binary" });
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
            let mut cfg = LoadConfig::count_mode(server.url("/push"), n, c, size);
            cfg.text = text;
            let r = run_stream(&cfg).unwrap();
            assert_clean(&r);
            assert_eq!(r.messages_sent, n as u64, "one request per connection");
            assert_eq!(r.messages_received, n as u64 * c);
            assert_eq!(r.bytes_received, n as u64 * c * size as u64);
            assert!(r.latency_us.is_none());
        }
    }
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
    let mut cfg = LoadConfig::count_mode(server.url("/echo"), 2, 1, 64);
    cfg.count = None;
    cfg.in_flight = 8;
    cfg.warmup = Duration::from_millis(100);
    cfg.duration = Duration::from_millis(300);
    let c = cfg.clone();
    let r = within_a_minute(move || run_echo(&c).unwrap());
    assert_clean(&r);
    assert!(r.messages_received > 0 && r.window_s > 0.0, "{r:?}");

    // A server that pushes faster than the client reads must not keep it past the window.
    for size in [16, 4096] {
        let mut c = cfg.clone();
        c.url = server.url("/push");
        c.size = size;
        let r = within_a_minute(move || run_stream(&c).unwrap());
        assert_clean(&r);
        assert!(r.messages_received > 0, "{r:?}");
    }
}

#[test]
fn refused_connections_are_counted_not_fatal() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("ws://127.0.0.1:{port}/echo").parse().unwrap();
    let cfg = LoadConfig::count_mode(url, 3, 10, 16);
    let r = run_echo(&cfg).unwrap();
    assert_eq!(r.errors.connection_refused, 3);
    assert_eq!(r.messages_received, 0);
}

#[test]
fn unknown_path_is_a_handshake_failure() {
    let server = BackgroundServer::reference().unwrap();
    let cfg = LoadConfig::count_mode(server.url("/nope"), 2, 10, 16);
    let r = run_echo(&cfg).unwrap();
    assert_eq!(r.errors.handshake_failed, 2);
}
