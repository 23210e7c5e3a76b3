//! `--cpus`: every scenario's counts stay exact with its connections spread over 2 and 4
//! runtime threads pinned to CPUs (4 threads on a 2-CPU machine: each CPU listed twice),
//! and the report records the threads and their CPUs; the binary's `--cpus` with one CPU
//! and with a CPU that does not exist.

use crate::common;
use crate::fanout::fanout_cfg;

use std::time::Duration;

use common::bin::{run, Served};
use common::sio_url;
use wsbench_loadgen::cpus::current_affinity;
use wsbench_loadgen::modes::connect::{run_connect, ConnectConfig};
use wsbench_loadgen::modes::fanout::{run_fanout, FanoutConfig, Workload};
use wsbench_loadgen::modes::hold::{run_hold, HoldConfig};
use wsbench_loadgen::modes::ping::PING_SIZE;
use wsbench_loadgen::protocol::integrity::Integrity;
use wsbench_loadgen::report::Errors;
use wsbench_loadgen::serve::BackgroundServer;
use wsbench_loadgen::{run_echo, run_ping, run_stream, LoadConfig, Protocol, Report};

const PROTOCOLS: [Protocol; 2] = [Protocol::Websocket, Protocol::Socketio];

/// The CPU lists tested: 2 threads on two CPUs, and 4 threads on the same two CPUs
/// (the first two CPUs this process may use; one CPU twice on a 1-CPU machine).
fn cpu_lists() -> [Vec<usize>; 2] {
    let mine = current_affinity().unwrap();
    let (a, b) = (mine[0], *mine.get(1).unwrap_or(&mine[0]));
    [vec![a, b], vec![a, b, a, b]]
}

fn assert_clean(r: &Report, ctx: &str) {
    assert_eq!(r.errors, Errors::default(), "{ctx}: {r:?}");
    assert_eq!(r.integrity, Integrity::default(), "{ctx}: {r:?}");
}

/// The report records one thread per CPU listed, and the list.
fn assert_threads(r: &Report, cpus: &[usize], ctx: &str) {
    assert_eq!(r.config.threads, cpus.len(), "{ctx}");
    assert_eq!(r.config.cpus.as_deref(), Some(cpus), "{ctx}");
}

fn url(server: &BackgroundServer, protocol: Protocol, path: &str) -> wsbench_loadgen::WsUrl {
    match protocol {
        Protocol::Websocket => server.url(path),
        Protocol::Socketio => sio_url(server),
    }
}

#[test]
fn echo_counts_are_exact_on_pinned_threads() {
    let server = BackgroundServer::reference().unwrap();
    for protocol in PROTOCOLS {
        for cpus in cpu_lists() {
            // (connections, in flight, size, JSON, rate): 6 connections give every one
            // of 4 threads at least one.
            for (n, w, size, json, rate) in [
                (6usize, 1usize, 16usize, false, None),
                (6, 16, 1024, false, None),
                (5, 8, 16, true, None),
                (6, 1, 64, false, Some(6000.0)),
            ] {
                let c = 300u64;
                let mut cfg = LoadConfig::count_mode(url(&server, protocol, "/echo"), n, c, size);
                cfg.protocol = protocol;
                cfg.in_flight = w;
                cfg.rate = rate;
                cfg.cpus = cpus.clone();
                if json {
                    cfg.json = true;
                    cfg.url = url(&server, protocol, "/json");
                }
                let r = run_echo(&cfg).unwrap();
                let ctx =
                    format!("{protocol:?} cpus={cpus:?} n={n} w={w} json={json} rate={rate:?}");
                assert_clean(&r, &ctx);
                assert_threads(&r, &cpus, &ctx);
                assert_eq!(r.messages_sent, n as u64 * c, "{ctx}");
                assert_eq!(r.messages_received, n as u64 * c, "{ctx}");
                if !json {
                    // (A JSON answer is shorter than its message.)
                    assert_eq!(r.bytes_received, r.bytes_sent, "{ctx}");
                }
                assert_eq!(r.latency_us.unwrap().count, n as u64 * c, "{ctx}");
                assert_eq!(r.handshake_us.count, n as u64, "{ctx}");
            }
        }
    }
}

#[test]
fn echo_windows_count_on_one_clock_across_threads() {
    let server = BackgroundServer::reference().unwrap();
    let cpus = cpu_lists()[1].clone();
    let mut cfg = LoadConfig::count_mode(server.url("/echo"), 8, 1, 64);
    cfg.count = None;
    cfg.in_flight = 4;
    cfg.warmup = Duration::from_millis(100);
    cfg.duration = Duration::from_millis(300);
    cfg.cpus = cpus.clone();
    let r = run_echo(&cfg).unwrap();
    assert_clean(&r, "window");
    assert_threads(&r, &cpus, "window");
    assert_eq!(r.window_s, 0.3);
    assert!(r.messages_received > 0, "{r:?}");
    // Every reply read inside the window has its round trip recorded, whichever thread
    // read it.
    assert_eq!(r.latency_us.unwrap().count, r.messages_received);
}

#[test]
fn stream_and_ping_counts_are_exact_on_pinned_threads() {
    let server = BackgroundServer::reference().unwrap();
    for protocol in PROTOCOLS {
        for cpus in cpu_lists() {
            let ctx = format!("{protocol:?} cpus={cpus:?}");
            let (n, c) = (5usize, 400u64);
            let mut cfg = LoadConfig::count_mode(url(&server, protocol, "/push"), n, c, 100);
            cfg.protocol = protocol;
            cfg.cpus = cpus.clone();
            let r = run_stream(&cfg).unwrap();
            assert_clean(&r, &ctx);
            assert_threads(&r, &cpus, &ctx);
            assert_eq!(r.messages_received, n as u64 * c, "stream {ctx}");
            assert_eq!(r.bytes_received, n as u64 * c * 100, "stream {ctx}");

            let mut cfg = LoadConfig::count_mode(url(&server, protocol, "/echo"), n, c, PING_SIZE);
            cfg.protocol = protocol;
            cfg.cpus = cpus.clone();
            let r = run_ping(&cfg).unwrap();
            assert_clean(&r, &ctx);
            assert_threads(&r, &cpus, &ctx);
            assert_eq!(r.messages_sent, n as u64 * c, "ping {ctx}");
            assert_eq!(r.messages_received, n as u64 * c, "ping {ctx}");
            assert_eq!(r.latency_us.unwrap().count, n as u64 * c, "ping {ctx}");
        }
    }
}

#[test]
fn fanout_counts_are_exact_on_pinned_threads() {
    let server = BackgroundServer::reference().unwrap();
    for protocol in PROTOCOLS {
        for cpus in cpu_lists() {
            for workload in [Workload::Broadcast, Workload::Market] {
                let path = match workload {
                    Workload::Broadcast => "/broadcast",
                    Workload::Market => "/market",
                };
                let (subscribers, count) = (7usize, 120u64);
                let cfg = FanoutConfig {
                    cpus: cpus.clone(),
                    protocol,
                    ..fanout_cfg(url(&server, protocol, path), workload, subscribers, count)
                };
                let r = run_fanout(&cfg).unwrap();
                let ctx = format!("{protocol:?} {workload:?} cpus={cpus:?}");
                assert_eq!(r.errors.total(), 0, "{ctx}: {r:?}");
                assert_eq!(r.integrity, Integrity::default(), "{ctx}: {r:?}");
                assert_threads(&r, &cpus, &ctx);
                let all = subscribers as u64 * count;
                let f = r.fanout.as_ref().unwrap();
                assert_eq!(
                    (f.subscribers, f.published),
                    (subscribers as u64, count),
                    "{ctx}"
                );
                assert_eq!(r.messages_received, all, "{ctx}");
                assert_eq!(r.latency_us.unwrap().count, all, "{ctx}");
                assert_eq!(f.last_latency_us.count, count, "{ctx}");
                if let Some(orders) = &f.orders {
                    assert_eq!(
                        (orders.sent, orders.acked, orders.mismatched),
                        (all, all, 0)
                    );
                    assert_eq!(orders.round_trip_us.count, all, "{ctx}");
                }
            }
        }
    }
}

#[test]
fn connect_and_hold_run_on_pinned_threads() {
    let server = BackgroundServer::reference().unwrap();
    for protocol in PROTOCOLS {
        for cpus in cpu_lists() {
            let ctx = format!("{protocol:?} cpus={cpus:?}");
            let cfg = ConnectConfig {
                url: url(&server, protocol, "/echo"),
                workers: 5,
                size: 100,
                warmup: Duration::from_millis(50),
                duration: Duration::from_millis(300),
                timeout: Duration::from_secs(2),
                threads: 1,
                cpus: cpus.clone(),
                source_addresses: 1,
                protocol,
                deflate: false,
                tls_ca: None,
            };
            let r = run_connect(&cfg).unwrap();
            assert_eq!(r.errors, Errors::default(), "{ctx}: {r:?}");
            assert_eq!(r.integrity, Integrity::default(), "{ctx}: {r:?}");
            assert!(r.cycles > 0, "{ctx}: {r:?}");
            assert_eq!(r.handshake_us.count, r.cycles, "{ctx}");
            assert_eq!(r.cycle_us.count, r.cycles, "{ctx}");
            assert_eq!(
                (r.config.threads, r.config.cpus.as_deref()),
                (cpus.len(), Some(&cpus[..]))
            );

            let n = 9;
            let cfg = HoldConfig {
                url: url(&server, protocol, "/echo"),
                connections: n,
                hold: Duration::from_millis(200),
                timeout: Duration::from_secs(2),
                source_addresses: 1,
                protocol,
                cpus: cpus.clone(),
                deflate: false,
                tls_ca: None,
            };
            let (first, closed) = run_hold(&cfg, std::future::pending(), |_| {}).unwrap();
            assert_eq!(first.connections_ok, n as u64, "{ctx}");
            assert_eq!(first.errors, Errors::default(), "{ctx}");
            assert_eq!(first.config.cpus.as_deref(), Some(&cpus[..]), "{ctx}");
            assert_eq!((closed.closed, closed.closed_early), (n as u64, 0), "{ctx}");
        }
    }
}

#[test]
fn the_binary_runs_one_cpu_as_before_and_names_a_cpu_it_cannot_use() {
    let s = Served::start();
    let cpu = current_affinity().unwrap()[0].to_string();
    let (code, stdout, stderr) = run(&[
        "echo",
        "--url",
        &s.url("/echo"),
        "--connections",
        "3",
        "--count",
        "200",
        "--cpus",
        &cpu,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["messages_received"], 600);
    assert_eq!(v["config"]["threads"], 1);
    assert_eq!(
        v["config"]["cpus"],
        serde_json::json!([cpu.parse::<usize>().unwrap()])
    );

    // Two CPUs: two threads, recorded; without --cpus the report has no `cpus`.
    let two = cpu_lists()[0]
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let (code, stdout, stderr) = run(&[
        "ping",
        "--url",
        &s.url("/echo"),
        "--connections",
        "3",
        "--count",
        "100",
        "--cpus",
        &two,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(
        (
            v["messages_received"].as_u64(),
            v["config"]["threads"].as_u64()
        ),
        (Some(300), Some(2))
    );
    let (_, stdout, _) = run(&["ping", "--url", &s.url("/echo"), "--count", "1"]);
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert!(v["config"].get("cpus").is_none(), "{v}");

    // CPU 1023 is beyond any machine this runs on: exit 1, named.
    for cpus in ["1023", &format!("{cpu},1023")] {
        let (code, _, stderr) = run(&[
            "echo",
            "--url",
            &s.url("/echo"),
            "--count",
            "1",
            "--cpus",
            cpus,
        ]);
        assert_eq!(code, 1, "{stderr}");
        assert!(stderr.contains("cannot pin to CPU 1023"), "{stderr}");
    }
    // Usage errors: not a CPU number, or with --threads.
    for args in [
        &["--cpus", "0,x"][..],
        &["--cpus", "1024"],
        &["--cpus", "0,1", "--threads", "2"],
    ] {
        let mut all = vec!["echo", "--url", "ws://127.0.0.1:1/echo"];
        all.extend_from_slice(args);
        let (code, _, stderr) = run(&all);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains("--cpus"), "{args:?}: {stderr}");
    }
}
