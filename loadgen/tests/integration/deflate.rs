//! permessage-deflate (RFC 7692): the negotiation of each parameter against the reference
//! server told how to answer, a server that ignores the offer, answers the client must
//! refuse, compressed round trips checked message by message (context takeover on and off,
//! text and binary, 64 KiB, fragmented by a raw test server), a corrupted compressed frame
//! and RSV1 without an agreement, and every scenario with `--deflate`.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use wsbench_loadgen::modes::connect::{run_connect, ConnectConfig};
use wsbench_loadgen::modes::fanout::{run_fanout, FanoutConfig, Workload};
use wsbench_loadgen::modes::hold::{run_hold, HoldConfig};
use wsbench_loadgen::protocol::deflate::{Agreed, Deflater, Inflater, ServerPolicy};
use wsbench_loadgen::protocol::deflate_wire::{write_header, DeflateReport, FrameInflater};
use wsbench_loadgen::protocol::integrity::Integrity;
use wsbench_loadgen::protocol::payload::parse_seq;
use wsbench_loadgen::protocol::ws::MAX_MESSAGE_SIZE;
use wsbench_loadgen::report::Errors;
use wsbench_loadgen::serve::BackgroundServer;
use wsbench_loadgen::transport::handshake::accept_key;
use wsbench_loadgen::{run_echo, run_ping, run_stream, LoadConfig, Protocol, Report, WsUrl};

use common::bin::{run, Served};
use common::VICTIM;

/// An echo run with `--deflate`: `n` connections, `count` messages of `size` bytes each,
/// `w` in flight.
fn deflate_cfg(url: WsUrl, n: usize, count: u64, size: usize, w: usize) -> LoadConfig {
    let mut cfg = common::count_cfg(url, n, count, size, w);
    cfg.timeout = Duration::from_secs(2);
    cfg.deflate = true;
    cfg
}

fn answering(answer: &str) -> BackgroundServer {
    BackgroundServer::reference_with(ServerPolicy::Answer(answer.to_string())).unwrap()
}

/// Every message came back intact and counted, and no connection failed.
fn assert_clean(r: &Report, messages: u64, ctx: &str) {
    assert_eq!(r.errors, Errors::default(), "{ctx}: {r:?}");
    assert_eq!(r.integrity, Integrity::default(), "{ctx}: {r:?}");
    assert_eq!(r.messages_received, messages, "{ctx}");
}

fn deflate(r: &Report) -> &DeflateReport {
    r.deflate.as_ref().expect("a deflate part with --deflate")
}

#[test]
fn each_parameter_is_negotiated_and_followed() {
    let cases = [
        ("permessage-deflate", Agreed::default()),
        (
            "permessage-deflate; server_no_context_takeover",
            Agreed {
                server_no_context_takeover: true,
                ..Agreed::default()
            },
        ),
        (
            "permessage-deflate; client_no_context_takeover",
            Agreed {
                client_no_context_takeover: true,
                ..Agreed::default()
            },
        ),
        (
            "permessage-deflate; server_max_window_bits=9",
            Agreed {
                server_max_window_bits: 9,
                ..Agreed::default()
            },
        ),
        (
            "permessage-deflate; client_max_window_bits=9",
            Agreed {
                client_max_window_bits: 9,
                ..Agreed::default()
            },
        ),
        (
            "permessage-deflate; server_no_context_takeover; client_no_context_takeover; \
             server_max_window_bits=10; client_max_window_bits=8",
            Agreed {
                server_no_context_takeover: true,
                client_no_context_takeover: true,
                server_max_window_bits: 10,
                client_max_window_bits: 8,
            },
        ),
    ];
    // 1,000-byte messages: the next message's nearest copy is 1,000 bytes back, within a
    // 15-bit window, beyond a 9-bit one.
    let (n, count, size) = (2usize, 40u64, 1000usize);
    let mut wire = Vec::new();
    for (answer, agreed) in cases {
        let server = answering(answer);
        let r = run_echo(&deflate_cfg(server.url("/echo"), n, count, size, 4)).unwrap();
        assert_clean(&r, n as u64 * count, answer);
        let d = deflate(&r);
        assert_eq!(
            d.agreed.as_deref(),
            Some(&agreed.describe()[..]),
            "{answer}"
        );
        assert_eq!((d.connections_agreed, d.connections_declined), (2, 0));
        let payload = n as u64 * count * size as u64;
        assert_eq!(
            (d.sent_payload_bytes, d.received_payload_bytes),
            (payload, payload),
            "{answer}"
        );
        assert_eq!(d.received_uncompressed_messages, 0, "{answer}");
        if agreed.client_max_window_bits > 8 {
            assert!(d.sent_wire_bytes < payload / 4, "{answer}: {d:?}");
        }
        assert_eq!(
            (d.inflate_failures, d.answers_refused, &d.error),
            (0, 0, &None)
        );
        wire.push((d.sent_wire_bytes, d.received_wire_bytes));
    }
    // Each side compresses as agreed: without its context takeover, or with a window
    // smaller than the distance to the previous message, its messages are larger.
    let (sent, received) = wire[0];
    assert!(wire[1].1 > 2 * received && wire[1].0 == sent, "{wire:?}");
    assert!(wire[2].0 > 2 * sent && wire[2].1 == received, "{wire:?}");
    assert!(wire[3].1 > 2 * received && wire[3].0 == sent, "{wire:?}");
    assert!(wire[4].0 > 2 * sent && wire[4].1 == received, "{wire:?}");
    // An 8-bit client window: stored blocks, larger than the messages.
    assert!(wire[5].0 > n as u64 * count * size as u64, "{wire:?}");
}

#[test]
fn a_server_that_ignores_the_offer_runs_uncompressed() {
    let server = BackgroundServer::reference().unwrap();
    let r = run_echo(&deflate_cfg(server.url("/echo"), 3, 20, 200, 2)).unwrap();
    assert_clean(&r, 60, "ignored");
    let d = deflate(&r);
    assert_eq!(d.agreed, None);
    assert_eq!((d.connections_agreed, d.connections_declined), (0, 3));
    assert_eq!((d.sent_wire_bytes, d.received_wire_bytes), (0, 0));
    // Without --deflate nothing is offered or reported, and a server that accepts
    // compression uses none.
    let accepting = BackgroundServer::reference_with(ServerPolicy::Accept).unwrap();
    let mut cfg = deflate_cfg(accepting.url("/echo"), 1, 5, 200, 1);
    cfg.deflate = false;
    let r = run_echo(&cfg).unwrap();
    assert_clean(&r, 5, "not offered");
    assert!(r.deflate.is_none());
}

#[test]
fn answers_the_client_must_refuse_fail_the_upgrade() {
    let cases = [
        ("permessage-deflate; server_max_window_bits=7", "invalid"),
        ("permessage-deflate; client_max_window_bits", "invalid"),
        (
            "permessage-deflate; server_no_context_takeover=1",
            "invalid",
        ),
        ("permessage-deflate; mux", "unknown"),
        ("permessage-deflate, permessage-deflate", "twice"),
        ("x-webkit-deflate-frame", "not offered"),
    ];
    for (answer, why) in cases {
        let server = answering(answer);
        let r = run_echo(&deflate_cfg(server.url("/echo"), 2, 5, 100, 1)).unwrap();
        assert_eq!(r.errors.handshake_failed, 2, "{answer}: {r:?}");
        assert_eq!(r.connections_ok, 0, "{answer}");
        let d = deflate(&r);
        assert_eq!(
            (d.answers_refused, d.connections_agreed),
            (2, 0),
            "{answer}"
        );
        let error = d.error.as_deref().unwrap_or("");
        assert!(
            error.starts_with("answer refused: ") && error.contains(why),
            "{answer}: {error}"
        );
    }
}

#[test]
fn large_text_and_binary_round_trip_with_and_without_context_takeover() {
    let both = "permessage-deflate; server_no_context_takeover; client_no_context_takeover";
    for answer in ["permessage-deflate", both] {
        let server = answering(answer);
        for text in [false, true] {
            for size in [16usize, 65536] {
                let mut cfg = deflate_cfg(server.url("/echo"), 2, 30, size, 8);
                cfg.text = text;
                let r = run_echo(&cfg).unwrap();
                let ctx = format!("{answer} text={text} size={size}");
                assert_clean(&r, 60, &ctx);
                let d = deflate(&r);
                assert_eq!(d.received_payload_bytes, 60 * size as u64, "{ctx}");
                if size > 16 {
                    assert!(
                        d.received_wire_bytes * 20 < d.received_payload_bytes,
                        "{ctx}"
                    );
                }
            }
        }
    }
}

#[test]
fn push_json_and_ping_run_compressed_against_the_reference_server() {
    let server = BackgroundServer::reference_with(ServerPolicy::Accept).unwrap();
    // /push: 64 KiB messages, binary and text.
    for text in [false, true] {
        let mut cfg = deflate_cfg(server.url("/push"), 2, 50, 65536, 1);
        cfg.text = text;
        let r = run_stream(&cfg).unwrap();
        assert_clean(&r, 100, "push");
        let d = deflate(&r);
        assert_eq!(d.received_payload_bytes, 100 * 65536);
        assert!(
            d.received_wire_bytes * 100 < d.received_payload_bytes,
            "{d:?}"
        );
        // The request went compressed too.
        assert!(
            d.sent_payload_bytes > 0 && d.connections_agreed == 2,
            "{d:?}"
        );
    }
    // /json: the 97-byte objects and their answers.
    let mut cfg = deflate_cfg(server.url("/json"), 2, 50, 16, 4);
    cfg.json = true;
    let r = run_echo(&cfg).unwrap();
    assert_clean(&r, 100, "json");
    assert_eq!(deflate(&r).sent_payload_bytes, 100 * 97);
    // ping: control frames are never compressed.
    let r = run_ping(&deflate_cfg(server.url("/echo"), 2, 20, 16, 1)).unwrap();
    assert_clean(&r, 40, "ping");
    assert_eq!(deflate(&r).connections_agreed, 2);
    assert_eq!(deflate(&r).sent_wire_bytes, 0);
}

#[test]
fn connect_hold_and_broadcast_offer_it_too() {
    let server = BackgroundServer::reference_with(ServerPolicy::Accept).unwrap();
    let r = run_connect(&ConnectConfig {
        url: server.url("/echo"),
        workers: 2,
        size: 1000,
        warmup: Duration::from_millis(20),
        duration: Duration::from_millis(150),
        timeout: Duration::from_secs(2),
        threads: 1,
        cpus: Vec::new(),
        source_addresses: 1,
        protocol: Protocol::Websocket,
        deflate: true,
        tls_ca: None,
    })
    .unwrap();
    assert_eq!(r.errors, Errors::default(), "{r:?}");
    assert_eq!(r.integrity, Integrity::default(), "{r:?}");
    let d = r.deflate.as_ref().unwrap();
    assert!(r.cycles > 0 && d.connections_agreed >= r.cycles, "{r:?}");
    assert!(d.received_wire_bytes < d.received_payload_bytes, "{d:?}");

    let cfg = HoldConfig {
        url: server.url("/echo"),
        connections: 3,
        hold: Duration::from_millis(50),
        timeout: Duration::from_secs(2),
        source_addresses: 1,
        protocol: Protocol::Websocket,
        cpus: Vec::new(),
        deflate: true,
        tls_ca: None,
    };
    let (opened, closed) = run_hold(&cfg, std::future::pending(), |_| {}).unwrap();
    assert_eq!(opened.deflate.unwrap().connections_agreed, 3);
    assert_eq!((closed.closed, closed.closed_early), (3, 0));

    // The reference server's fan-out endpoints ignore offers: uncompressed, and clean.
    let r = run_fanout(&FanoutConfig {
        url: server.url("/broadcast"),
        workload: Workload::Broadcast,
        subscribers: 2,
        size: 100,
        text: false,
        rate: None,
        in_flight: 4,
        warmup: Duration::ZERO,
        duration: Duration::from_secs(1),
        count: Some(20),
        timeout: Duration::from_secs(2),
        threads: 1,
        cpus: Vec::new(),
        protocol: Protocol::Websocket,
        source_addresses: 1,
        deflate: true,
        tls_ca: None,
    })
    .unwrap();
    assert_clean(&r, 40, "broadcast");
    let d = deflate(&r);
    assert_eq!((d.connections_agreed, d.connections_declined), (0, 3));
}

/// How the raw test server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Raw {
    /// Agrees (the defaults) and echoes each message compressed in three frames, a ping
    /// between the first two.
    Fragmented,
    /// Agrees, and echoes message VICTIM with data that is not DEFLATE.
    Corrupt,
    /// Does not answer the offer, but sends every echo compressed (RSV1 set) anyway.
    Unagreed,
}

/// One unmasked frame.
fn frame(b0: u8, payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    write_header(&mut v, b0, payload.len(), None);
    v.extend_from_slice(payload);
    v
}

/// The first complete unmasked frame of `buf` (as a [`FrameInflater`] hands them on):
/// its first byte, payload and length; `None` while incomplete.
fn plain_frame(buf: &[u8]) -> Option<(u8, Vec<u8>, usize)> {
    let [b0, b1, ..] = *buf else { return None };
    let (extra, len) = match b1 & 0x7f {
        126 if buf.len() >= 4 => (2, u16::from_be_bytes([buf[2], buf[3]]) as usize),
        127 if buf.len() >= 10 => (
            8,
            u64::from_be_bytes(buf[2..10].try_into().unwrap()) as usize,
        ),
        126 | 127 => return None,
        n => (0, n as usize),
    };
    let total = 2 + extra + len;
    (buf.len() >= total).then(|| (b0, buf[2 + extra..total].to_vec(), total))
}

/// A WebSocket server written from the wire up (the library's inflater for what it reads),
/// so that it can send what the reference server never does; records the status code of
/// every close frame it receives in `closes`.
async fn raw_server(mut tcp: TcpStream, mode: Raw, closes: Arc<Mutex<Vec<u16>>>) {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let (head, key) = loop {
        let Ok(n @ 1..) = tcp.read(&mut chunk).await else {
            return;
        };
        buf.extend_from_slice(&chunk[..n]);
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut req = httparse::Request::new(&mut headers);
        if let Ok(httparse::Status::Complete(head)) = req.parse(&buf) {
            let key = req
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("sec-websocket-key"))
                .map(|h| h.value.to_vec())
                .unwrap();
            break (head, key);
        }
    };
    let extension = match mode {
        Raw::Unagreed => "",
        _ => "Sec-WebSocket-Extensions: permessage-deflate\r\n",
    };
    let resp = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Accept: {}\r\n{extension}\r\n",
        accept_key(&key)
    );
    if tcp.write_all(resp.as_bytes()).await.is_err() {
        return;
    }
    let agreed = Agreed::default();
    let mut inflater = FrameInflater::new(Inflater::server(&agreed, MAX_MESSAGE_SIZE));
    let mut deflater = Deflater::server(&agreed);
    let mut fed = buf[head..].to_vec();
    let mut plain = Vec::new();
    loop {
        if inflater.feed(&fed).is_err() {
            return;
        }
        let mut rewritten = vec![0u8; inflater.pending()];
        let n = inflater.take(&mut rewritten);
        plain.extend_from_slice(&rewritten[..n]);
        let mut out = Vec::new();
        while let Some((b0, payload, total)) = plain_frame(&plain) {
            plain.drain(..total);
            match b0 & 0x0f {
                0x8 => {
                    let code = u16::from_be_bytes([payload[0], payload[1]]);
                    closes.lock().unwrap().push(code);
                    let _ = tcp.write_all(&frame(0x88, &payload[..2])).await;
                    return;
                }
                op @ (0x1 | 0x2) => {
                    let mut c = Vec::new();
                    deflater.compress(&payload, &mut c);
                    match mode {
                        Raw::Corrupt if parse_seq(&payload) == Some(VICTIM) => {
                            // Block type 3 is reserved: not DEFLATE.
                            out.extend(frame(0xc0 | op, &[0xff, 0xff, 0xff]));
                        }
                        Raw::Corrupt | Raw::Unagreed => out.extend(frame(0xc0 | op, &c)),
                        Raw::Fragmented => {
                            let (a, rest) = c.split_at(c.len() / 3);
                            let (b, d) = rest.split_at(rest.len() / 2);
                            out.extend(frame(0x40 | op, a));
                            out.extend(frame(0x89, b"between"));
                            out.extend(frame(0x00, b));
                            out.extend(frame(0x80, d));
                        }
                    }
                }
                _ => {}
            }
        }
        if !out.is_empty() && tcp.write_all(&out).await.is_err() {
            return;
        }
        fed.clear();
        let Ok(n @ 1..) = tcp.read(&mut chunk).await else {
            return;
        };
        fed.extend_from_slice(&chunk[..n]);
    }
}

fn raw(mode: Raw) -> (BackgroundServer, Arc<Mutex<Vec<u16>>>) {
    let closes = Arc::new(Mutex::new(Vec::new()));
    let seen = closes.clone();
    let server = BackgroundServer::start(move |tcp| raw_server(tcp, mode, seen.clone())).unwrap();
    (server, closes)
}

#[test]
fn fragmented_compressed_messages_with_a_ping_between_are_reassembled() {
    let (server, closes) = raw(Raw::Fragmented);
    for text in [false, true] {
        for size in [16usize, 1000, 65536] {
            let mut cfg = deflate_cfg(server.url("/echo"), 2, 20, size, 4);
            cfg.text = text;
            let r = run_echo(&cfg).unwrap();
            let ctx = format!("text={text} size={size}");
            assert_clean(&r, 40, &ctx);
            let d = deflate(&r);
            assert_eq!(d.agreed.as_deref(), Some(&Agreed::default().describe()[..]));
            assert_eq!(d.received_payload_bytes, 40 * size as u64, "{ctx}");
        }
    }
    // Every connection closed normally.
    let seen = closes.lock().unwrap().clone();
    assert!(seen.iter().all(|&c| c == 1000), "{seen:?}");
}

#[test]
fn a_corrupted_compressed_frame_fails_the_connection_as_corrupted() {
    let (server, closes) = raw(Raw::Corrupt);
    let r = run_echo(&deflate_cfg(server.url("/echo"), 1, 20, 100, 1)).unwrap();
    assert_eq!(r.errors.other, 1, "{r:?}");
    assert_eq!(r.integrity.corrupted, 1, "{r:?}");
    assert_eq!(r.messages_received, VICTIM, "the ones before it");
    let d = deflate(&r);
    assert_eq!(d.inflate_failures, 1);
    let error = d.error.as_deref().unwrap_or("");
    assert!(
        error.starts_with("corrupted compressed message: "),
        "{error}"
    );
    // The client failed the connection with 1007 (invalid payload data), which the
    // server reads after the run has ended.
    let waited = std::time::Instant::now();
    while closes.lock().unwrap().is_empty() && waited.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(5));
    }
    let seen = closes.lock().unwrap().clone();
    assert_eq!(seen, [1007]);
}

#[test]
fn rsv1_without_an_agreement_fails_the_connection() {
    let (server, _) = raw(Raw::Unagreed);
    let r = run_echo(&deflate_cfg(server.url("/echo"), 1, 5, 100, 1)).unwrap();
    assert_eq!(r.errors.other, 1, "{r:?}");
    assert_eq!(r.messages_received, 0);
    let d = deflate(&r);
    assert_eq!((d.connections_agreed, d.connections_declined), (0, 1));
}

#[test]
fn the_binary_offers_it_and_serve_accepts_it() {
    // The harness's flag of the profiles with compression as shipped (wsbench/deployment.py).
    let s = Served::start_with(&["--shipped-compression"]);
    let url = s.url("/echo");
    let args = [
        "--url",
        &url,
        "--count",
        "20",
        "--size",
        "2000",
        "--deflate",
    ];
    let (code, stdout, stderr) = run(&[&["echo"][..], &args[..]].concat());
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let d = &v["deflate"];
    let mut keys: Vec<&str> = d.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "agreed",
            "answers_refused",
            "connections_agreed",
            "connections_declined",
            "error",
            "inflate_failures",
            "offer",
            "received_payload_bytes",
            "received_uncompressed_messages",
            "received_wire_bytes",
            "sent_payload_bytes",
            "sent_wire_bytes",
        ]
    );
    assert_eq!(d["offer"], "permessage-deflate; client_max_window_bits");
    assert_eq!(
        d["agreed"],
        "permessage-deflate; server_max_window_bits=15; client_max_window_bits=15"
    );
    assert_eq!(d["sent_payload_bytes"], 40_000);
    assert!(d["sent_wire_bytes"].as_u64().unwrap() < 4_000, "{d}");
    assert!(d["error"].is_null());
    // Without the option: null.
    let (_, stdout, _) = run(&["echo", "--url", &url, "--count", "2"]);
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert!(v["deflate"].is_null(), "{v}");
}
