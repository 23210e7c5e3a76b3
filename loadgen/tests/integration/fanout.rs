//! `broadcast`, `market` and echo at a fixed offered load against the reference server:
//! exact counts in count mode, every message checked.

use crate::common;

use std::time::Duration;

use fastwebsockets::{Frame, OpCode, Payload, WebSocket};
use tokio::io::AsyncWriteExt;
use wsbench_loadgen::modes::fanout::{run_fanout, FanoutConfig, Workload, PRIME_EVERY};
use wsbench_loadgen::protocol::socketio::{
    binary_event_header, json_event, parse_event, Kind, SioIncoming, SioReader,
};
use wsbench_loadgen::serve::BackgroundServer;
use wsbench_loadgen::transport::conn::Conn;
use wsbench_loadgen::transport::handshake::{connect, Client};
use wsbench_loadgen::{run_echo, Protocol, Report, WsUrl};

/// A count-mode fan-out run of `count` 64-byte messages to `subscribers`, 8 in flight,
/// plain WebSocket on one runtime thread (tests change what they vary).
pub(crate) fn fanout_cfg(
    url: WsUrl,
    workload: Workload,
    subscribers: usize,
    count: u64,
) -> FanoutConfig {
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
        cpus: Vec::new(),
        protocol: Protocol::Websocket,
        source_addresses: 1,
        deflate: false,
        tls_ca: None,
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

fn sio_fanout_cfg(
    server: &BackgroundServer,
    workload: Workload,
    subscribers: usize,
    count: u64,
) -> FanoutConfig {
    FanoutConfig {
        protocol: Protocol::Socketio,
        ..fanout_cfg(common::sio_url(server), workload, subscribers, count)
    }
}

#[test]
fn socketio_room_members_get_every_broadcast_event() {
    let server = BackgroundServer::reference().unwrap();
    for (text, rate, size) in [
        (false, None, 64),
        (true, None, 64),
        (false, Some(2000.0), 64),
        (false, None, 65536),
        (true, None, 65536),
    ] {
        let cfg = FanoutConfig {
            text,
            rate,
            size,
            ..sio_fanout_cfg(&server, Workload::Broadcast, 7, 150)
        };
        let ctx = format!("text={text} rate={rate:?} size={size}");
        let r = run_fanout(&cfg).unwrap();
        assert_clean(&r);
        assert_eq!(r.config.protocol, "socketio");
        let f = r.fanout.as_ref().unwrap();
        assert_eq!((f.subscribers, f.published), (7, 150), "{ctx}");
        assert_eq!(r.messages_received, 7 * 150, "{ctx}");
        // Payload bytes: the event's argument, not the Socket.IO framing.
        assert_eq!(r.bytes_received, 7 * 150 * size as u64, "{ctx}");
        assert_eq!(r.latency_us.unwrap().count, 7 * 150, "{ctx}");
        assert_eq!(f.last_latency_us.count, 150, "{ctx}");
        assert_eq!(f.per_subscriber_lost.unwrap().max, 0.0, "{ctx}");
        // The publisher is in no room and is skipped anyway: nothing comes back to it.
        assert_eq!(f.publisher_received, 0, "{ctx}");
    }
}

#[test]
fn socketio_market_clients_get_every_tick_and_every_ack() {
    let server = BackgroundServer::reference().unwrap();
    for rate in [500.0, 5000.0] {
        let cfg = FanoutConfig {
            rate: Some(rate),
            ..sio_fanout_cfg(&server, Workload::Market, 5, 100)
        };
        let r = run_fanout(&cfg).unwrap();
        assert_clean(&r);
        assert_eq!((r.scenario, r.config.protocol), ("market", "socketio"));
        assert_eq!(r.messages_received, 5 * 100, "rate {rate}");
        let f = r.fanout.as_ref().unwrap();
        assert_eq!(f.publisher_received, 0, "rate {rate}");
        let orders = f.orders.as_ref().unwrap();
        assert_eq!(
            (orders.sent, orders.acked, orders.mismatched),
            (500, 500, 0),
            "rate {rate}"
        );
        assert_eq!(orders.round_trip_us.count, 500, "rate {rate}");
    }
}

#[test]
fn socketio_rooms_and_websocket_endpoints_do_not_mix() {
    // Socket.IO's room "broadcast" and the endpoint /broadcast of the same server, at the
    // same time: each run gets exactly its own messages.
    let server = BackgroundServer::reference().unwrap();
    let ws_cfg = fanout_cfg(server.url("/broadcast"), Workload::Broadcast, 4, 300);
    let sio_cfg = sio_fanout_cfg(&server, Workload::Broadcast, 4, 300);
    let market_cfg = FanoutConfig {
        rate: Some(1000.0),
        ..sio_fanout_cfg(&server, Workload::Market, 3, 100)
    };
    let reports: Vec<Report> = std::thread::scope(|s| {
        let runs: Vec<_> = [&ws_cfg, &sio_cfg, &market_cfg]
            .into_iter()
            .map(|cfg| s.spawn(move || run_fanout(cfg).unwrap()))
            .collect();
        runs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (r, received) in reports.iter().zip([4 * 300, 4 * 300, 3 * 100]) {
        assert_clean(r);
        assert_eq!(r.messages_received, received, "{}", r.config.protocol);
        assert_eq!(r.fanout.as_ref().unwrap().publisher_received, 0);
    }
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
        if let Some((ws, _)) =
            wsbench_loadgen::transport::handshake::accept(tcp, &["/broadcast"]).await
        {
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

/// A Socket.IO client of `server` with its session open.
async fn sio_client(server: &BackgroundServer) -> (WebSocket<Conn>, SioReader) {
    let Client { mut ws, outbox, .. } = connect(
        server.addr,
        &common::sio_url(server),
        Duration::from_secs(5),
        None,
    )
    .await
    .unwrap();
    let reader = SioReader::open(&mut ws, &outbox).await.unwrap();
    (ws, reader)
}

/// Queues one event with one binary argument (attachment 0).
async fn emit_binary(ws: &mut WebSocket<Conn>, name: &str, bytes: Vec<u8>) {
    let header = Frame::new(
        true,
        OpCode::Text,
        None,
        Payload::Owned(binary_event_header(name)),
    );
    ws.write_frame(header).await.unwrap();
    let body = Frame::new(true, OpCode::Binary, None, Payload::Owned(bytes));
    ws.write_frame(body).await.unwrap();
}

async fn emit_json(ws: &mut WebSocket<Conn>, name: &str, json: &str) {
    let frame = Frame::new(
        true,
        OpCode::Text,
        None,
        Payload::Owned(json_event(name, json)),
    );
    ws.write_frame(frame).await.unwrap();
}

fn body(tag: u8, i: usize, size: usize) -> Vec<u8> {
    (0..size).map(|k| tag ^ (i + k) as u8).collect()
}

#[test]
fn a_room_member_gets_its_own_replies_whole_between_relays() {
    // A member of the room "broadcast" echoes binary events while another client
    // broadcasts binary events to the room: each packet reaches it whole (a relay never
    // comes between an event's text frame and its attachment) and in order. Its first
    // echoes leave in the same write as its `subscribe`, so the server reads them before
    // it splits the connection for the room; its order is acknowledged exactly as
    // python-socketio encodes the ack.
    const N: usize = 200;
    let server = BackgroundServer::reference().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (mut member, mut reader) = sio_client(&server).await;
        let mut publisher = Some(sio_client(&server).await.0);
        emit_json(&mut member, "subscribe", r#""broadcast""#).await;
        for i in 0..3 {
            emit_binary(&mut member, "echo", body(0x11, i, 20_000)).await;
        }
        member.flush().await.unwrap();
        let mut echoes = 0;
        let mut broadcasts = 0;
        let mut acked = false;
        let mut sent = 3;
        let mut publishing = Vec::new();
        while echoes < N || broadcasts < N || !acked {
            let read = tokio::time::timeout(Duration::from_secs(10), reader.read(&mut member));
            let Ok(incoming) = read.await else {
                let published = publishing.iter().all(|p: &tokio::task::JoinHandle<_>| p.is_finished());
                panic!(
                    "stalled: {echoes} echoes of {sent} sent, {broadcasts} broadcasts, ack {acked}, publisher done {published}"
                );
            };
            let SioIncoming::Event(e) = incoming.unwrap() else {
                panic!("closed");
            };
            let name = parse_event(e.data()).unwrap().name.into_owned();
            match &name[..] {
                b"echo" => {
                    let (bytes, kind) = e.payload("echo");
                    assert_eq!(kind, Kind::Binary);
                    assert!(bytes[..] == body(0x11, echoes, 20_000)[..], "echo {echoes}");
                    echoes += 1;
                }
                b"broadcast" => {
                    let (bytes, kind) = e.payload("broadcast");
                    assert_eq!(kind, Kind::Binary);
                    assert!(bytes[..] == body(0x22, broadcasts, 30_000)[..], "broadcast {broadcasts}");
                    broadcasts += 1;
                }
                b"ack" => {
                    assert_eq!(
                        e.data(),
                        br#"["ack",{"type":"ack","id":"0000000000000007","ok":true}]"#
                    );
                    acked = true;
                }
                other => panic!("unexpected event {:?}", String::from_utf8_lossy(other)),
            }
            if let Some(mut ws) = publisher.take_if(|_| echoes == 1) {
                // The member is in the room (its first echo came after `subscribe`):
                // publish while it sends the rest of its echoes.
                publishing.push(tokio::spawn(async move {
                    for j in 0..N {
                        emit_binary(&mut ws, "broadcast", body(0x22, j, 30_000)).await;
                        if j % 8 == 7 {
                            ws.flush().await.unwrap();
                            tokio::task::yield_now().await;
                        }
                    }
                    // A client connection's flush is best effort (conn.rs, `Side::Client`):
                    // what the socket does not take now leaves with the connection's next
                    // read, and this publisher reads nothing. While the server waits for the
                    // member to read its relays, the socket takes only part of the
                    // broadcasts; after the last flush the rest (3 to 72 of the 200 in the
                    // runs that stalled) stayed in the publisher's buffer for good, and the
                    // member waited for them. Shutting down the write side waits until
                    // every byte is out (the server relays them all, then reads the end).
                    let mut conn = ws.into_inner();
                    conn.shutdown().await.unwrap();
                    conn
                }));
            }
            // The rest of its echoes while the publisher publishes, at most 3 unanswered:
            // the member writes only while it also reads, so neither side's socket buffers
            // fill (writing them all at once deadlocked now and then: the server, which waits
            // for the member to read its relays and echoes, stopped reading the member, whose
            // write then waited for the server).
            if echoes >= 1 && sent < N && sent - echoes < 3 {
                emit_binary(&mut member, "echo", body(0x11, sent, 20_000)).await;
                sent += 1;
                if sent == N {
                    let order = r#"{"type": "order", "id": "0000000000000007", "tick": "0000000000000001", "side": "buy", "price": 43262.88, "qty": 1}"#;
                    emit_json(&mut member, "order", order).await;
                }
                member.flush().await.unwrap();
            }
        }
        assert_eq!((echoes, broadcasts), (N, N));
        for p in publishing {
            drop(p.await.unwrap());
        }
    });
}

#[test]
fn a_publisher_ahead_of_the_server_still_sends_its_last_messages() {
    // At 100,000 messages/s of 64 KiB the publisher's schedule ends long before the
    // server has relayed the messages: they are late (latency from the schedule), never
    // lost. A client's flush is best effort (conn.rs), so the publisher keeps flushing
    // while it waits for the subscribers; otherwise what its socket had not taken by the
    // last message stayed in its buffer and every subscriber counted it lost.
    let server = BackgroundServer::reference().unwrap();
    for protocol in [Protocol::Websocket, Protocol::Socketio] {
        let url = match protocol {
            Protocol::Socketio => common::sio_url(&server),
            _ => server.url("/broadcast"),
        };
        let cfg = FanoutConfig {
            rate: Some(100_000.0),
            size: 65536,
            protocol,
            timeout: Duration::from_secs(3),
            ..fanout_cfg(url, Workload::Broadcast, 3, 300)
        };
        let r = run_fanout(&cfg).unwrap();
        assert_clean(&r);
        assert_eq!(r.messages_received, 3 * 300, "{protocol:?}");
    }
}
