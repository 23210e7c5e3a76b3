//! `broadcast`, `market` and echo at a fixed offered load against the reference server:
//! exact counts in count mode, every message checked.

mod common;

use std::time::Duration;

use wsbench_loadgen::fanout::{run_fanout, FanoutConfig, Workload, PRIME_EVERY};
use wsbench_loadgen::serve::BackgroundServer;
use wsbench_loadgen::{run_echo, Protocol, Report, WsUrl};

fn fanout_cfg(url: WsUrl, workload: Workload, subscribers: usize, count: u64) -> FanoutConfig {
    FanoutConfig {
        url,
        workload,
        subscribers,
        size: 64,
        text: false,
        rate: None,
        in_flight: 8,
        warmup: Duration::from_secs(1),
        duration: Duration::from_secs(3),
        count: Some(count),
        timeout: Duration::from_secs(10),
        threads: 1,
        protocol: Protocol::Websocket,
        source_addresses: 1,
    }
}

fn assert_clean(r: &Report) {
    assert_eq!(r.errors.total(), 0, "{:?}", r.errors);
    assert_eq!(r.integrity, Default::default(), "{:?}", r.integrity);
}

#[test]
fn every_subscriber_gets_every_broadcast_message() {
    let server = BackgroundServer::reference().unwrap();
    for (text, rate) in [(false, None), (true, None), (false, Some(2000.0))] {
        let cfg = FanoutConfig {
            text,
            rate,
            ..fanout_cfg(server.url("/broadcast"), Workload::Broadcast, 7, 150)
        };
        let r = run_fanout(&cfg).unwrap();
        assert_clean(&r);
        let f = r.fanout.as_ref().unwrap();
        assert_eq!((f.subscribers, f.published), (7, 150));
        assert_eq!(r.messages_sent, 150);
        assert_eq!(r.messages_received, 7 * 150);
        assert_eq!(r.bytes_received, 7 * 150 * 64);
        assert_eq!(r.latency_us.unwrap().count, 7 * 150);
        assert_eq!(f.last_latency_us.count, 150);
        assert!(f.last_latency_us.max >= r.latency_us.unwrap().p50);
        assert_eq!(f.per_subscriber_lost.unwrap().max, 0.0);
        // Priming sends one message per PRIME_EVERY at most, never one per wake-up.
        assert!(f.priming_messages >= 1);
        let allowed = 1.0 + f.priming_s / PRIME_EVERY.as_secs_f64();
        assert!(f.priming_messages as f64 <= allowed.ceil(), "{f:?}");
        assert_eq!(r.config.rate_per_s, rate);
        assert_eq!(r.config.in_flight, rate.is_none().then_some(8));
    }
}

#[test]
fn market_clients_get_every_tick_and_every_ack() {
    let server = BackgroundServer::reference().unwrap();
    let cfg = FanoutConfig {
        rate: Some(500.0),
        ..fanout_cfg(server.url("/market"), Workload::Market, 5, 100)
    };
    let r = run_fanout(&cfg).unwrap();
    assert_clean(&r);
    assert_eq!(r.scenario, "market");
    assert_eq!(r.messages_received, 5 * 100);
    let orders = r.fanout.as_ref().unwrap().orders.as_ref().unwrap();
    assert_eq!(
        (orders.sent, orders.acked, orders.mismatched),
        (500, 500, 0)
    );
    assert_eq!(orders.round_trip_us.count, 500);
}

#[test]
fn broadcast_with_no_subscriber_left_reports_the_failed_connections() {
    // Nothing listens on /broadcast at a closed port: every connection is refused.
    let server = BackgroundServer::reference().unwrap();
    let url = server.url("/broadcast");
    drop(server);
    let r = run_fanout(&fanout_cfg(url, Workload::Broadcast, 3, 10)).unwrap();
    assert_eq!(r.errors.connection_refused, 4);
    assert_eq!(r.messages_received, 0);
}

#[test]
fn echo_at_a_fixed_rate_sends_exactly_the_count_and_times_from_the_schedule() {
    let server = BackgroundServer::reference().unwrap();
    let mut cfg = common::count_cfg(server.url("/echo"), 3, 200, 16, 1);
    cfg.rate = Some(3000.0);
    let r = run_echo(&cfg).unwrap();
    assert_clean(&r);
    assert_eq!(r.messages_received, 600);
    assert_eq!(r.latency_us.unwrap().count, 600);
    assert_eq!(r.config.rate_per_s, Some(3000.0));
    assert_eq!(r.config.in_flight, None);
    // 200 messages per connection at 1,000/s each: the schedule spans about 0.2 s.
    assert!(r.window_s >= 0.19, "{}", r.window_s);
}

#[test]
fn a_server_that_relays_back_to_the_publisher_is_caught() {
    // An echo server on /broadcast sends every message back to its sender only.
    let server = BackgroundServer::start(|tcp| async move {
        if let Some((ws, _)) = wsbench_loadgen::handshake::accept(tcp, &["/broadcast"]).await {
            wsbench_loadgen::serve::echo_loop(ws).await;
        }
    })
    .unwrap();
    let cfg = FanoutConfig {
        timeout: Duration::from_millis(500),
        ..fanout_cfg(server.url("/broadcast"), Workload::Broadcast, 2, 20)
    };
    let r = run_fanout(&cfg).unwrap();
    let f = r.fanout.as_ref().unwrap();
    assert!(f.publisher_received > 0, "{f:?}");
    assert_eq!(r.messages_received, 0);
}
