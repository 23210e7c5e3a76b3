//! TLS (`wss://`, `--tls-ca`; `serve --certfile --keyfile`): certificates made at test time
//! with rcgen (a CA, a server certificate for 127.0.0.1 and localhost, one for another
//! name, and a CA the client does not trust); echo round trips over TLS with and without
//! permessage-deflate, Socket.IO, every other scenario, the handshake's parts in the
//! report, a certificate the client does not trust (or for another name) refused with
//! its reason, and plain against TLS either way round failing with a clear error.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use wsbench_loadgen::modes::connect::{run_connect, ConnectConfig};
use wsbench_loadgen::modes::fanout::{run_fanout, FanoutConfig, Workload};
use wsbench_loadgen::modes::hold::{run_hold, HoldConfig};
use wsbench_loadgen::protocol::deflate::ServerPolicy;
use wsbench_loadgen::protocol::integrity::Integrity;
use wsbench_loadgen::report::Errors;
use wsbench_loadgen::serve::BackgroundServer;
use wsbench_loadgen::stats::Summary;
use wsbench_loadgen::transport::tls::{acceptor, TlsReport};
use wsbench_loadgen::{run_echo, run_ping, run_stream, LoadConfig, Protocol, Report, WsUrl};

use common::bin::{run, Served};

/// The test's certificates, written once per test process to a folder of its own.
struct Pki {
    dir: PathBuf,
}

impl Pki {
    /// The trusted CA.
    fn ca(&self) -> PathBuf {
        self.dir.join("ca.pem")
    }
    /// A CA the client is not told to trust.
    fn other_ca(&self) -> PathBuf {
        self.dir.join("other-ca.pem")
    }
    /// The server's certificate (127.0.0.1 and localhost, signed by the trusted CA) and
    /// its PKCS#8 key.
    fn cert(&self) -> (PathBuf, PathBuf) {
        (self.dir.join("cert.pem"), self.dir.join("key.pem"))
    }
    /// A certificate for `example.com` only, signed by the trusted CA, and its key.
    fn wrong_name(&self) -> (PathBuf, PathBuf) {
        (
            self.dir.join("wrong-cert.pem"),
            self.dir.join("wrong-key.pem"),
        )
    }
}

fn ca(name: &str) -> (CertificateParams, KeyPair) {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    (params, KeyPair::generate().unwrap())
}

fn pki() -> &'static Pki {
    static PKI: OnceLock<Pki> = OnceLock::new();
    PKI.get_or_init(|| {
        // In the target folder's scratch space for integration tests (`cargo clean`
        // removes it), one folder per test process.
        let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let dir = tmp.join(format!("tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, text: String| std::fs::write(dir.join(name), text).unwrap();
        let (params, key) = ca("wsbench test CA");
        write("ca.pem", params.self_signed(&key).unwrap().pem());
        let issuer = Issuer::new(params, key);
        for (names, cert, key) in [
            (
                vec!["127.0.0.1".to_string(), "localhost".to_string()],
                "cert.pem",
                "key.pem",
            ),
            (
                vec!["example.com".to_string()],
                "wrong-cert.pem",
                "wrong-key.pem",
            ),
        ] {
            let leaf_key = KeyPair::generate().unwrap();
            let leaf = CertificateParams::new(names).unwrap();
            write(cert, leaf.signed_by(&leaf_key, &issuer).unwrap().pem());
            write(key, leaf_key.serialize_pem());
        }
        let (params, key) = ca("untrusted CA");
        write("other-ca.pem", params.self_signed(&key).unwrap().pem());
        Pki { dir }
    })
}

/// The reference server over TLS with `cert` (and key), accepting permessage-deflate.
fn tls_server(cert: (PathBuf, PathBuf)) -> BackgroundServer {
    let tls = acceptor(&cert.0, &cert.1).unwrap();
    BackgroundServer::reference_tls(tls, ServerPolicy::Accept).unwrap()
}

fn server() -> BackgroundServer {
    tls_server(pki().cert())
}

/// A count-mode run of `n` connections to `url` trusting `ca`.
fn cfg(url: WsUrl, ca: &Path, n: usize, count: u64, size: usize, w: usize) -> LoadConfig {
    let mut cfg = common::count_cfg(url, n, count, size, w);
    cfg.timeout = Duration::from_secs(5);
    cfg.tls_ca = Some(ca.to_path_buf());
    cfg
}

fn assert_clean(r: &Report, messages: u64, ctx: &str) {
    assert_eq!(r.errors, Errors::default(), "{ctx}: {r:?}");
    assert_eq!(r.integrity, Integrity::default(), "{ctx}: {r:?}");
    assert_eq!(r.messages_received, messages, "{ctx}");
}

/// What the connections agreed, and the handshake's parts: every connection timed, the
/// TLS handshake longer than nothing, no part longer than the whole, the parts adding up
/// to the whole.
fn assert_tls(tls: Option<&TlsReport>, total: &Summary, connections: u64, ctx: &str) {
    let tls = tls.unwrap_or_else(|| panic!("{ctx}: no tls part over TLS"));
    assert_eq!(tls.version.as_deref(), Some("TLSv1.3"), "{ctx}: {tls:?}");
    let suite = tls.cipher_suite.as_deref().unwrap_or_default();
    assert!(
        suite.starts_with("TLS_") && suite.contains("_SHA"),
        "{ctx}: {suite}"
    );
    assert!(tls.key_exchange.is_some(), "{ctx}: {tls:?}");
    assert!(tls.failures.is_empty(), "{ctx}: {tls:?}");
    assert_eq!(total.count, connections, "{ctx}");
    let parts = [&tls.tcp_connect_us, &tls.handshake_us, &tls.upgrade_us];
    for part in parts {
        assert_eq!(part.count, connections, "{ctx}: {tls:?}");
        assert!(
            part.max <= total.max && part.p50 <= total.p50,
            "{ctx}: {tls:?}"
        );
    }
    assert!(tls.handshake_us.min > 0.0, "{ctx}: {tls:?}");
    let sum: f64 = parts.iter().map(|p| p.mean).sum();
    assert!(
        (sum - total.mean).abs() <= 0.01 * total.mean + 1.0,
        "{ctx}: parts {sum} µs against {} µs",
        total.mean
    );
}

#[test]
fn echo_round_trips_over_tls_with_and_without_deflate() {
    let server = server();
    let ca = pki().ca();
    for deflate in [false, true] {
        for text in [false, true] {
            for (size, count) in [(16usize, 200u64), (65536, 30)] {
                let ctx = format!("deflate={deflate} text={text} size={size}");
                let mut c = cfg(server.url("/echo"), &ca, 2, count, size, 8);
                c.text = text;
                c.deflate = deflate;
                let r = run_echo(&c).unwrap();
                assert_clean(&r, 2 * count, &ctx);
                assert_eq!(r.bytes_received, 2 * count * size as u64, "{ctx}");
                assert_tls(r.tls.as_ref(), &r.handshake_us, 2, &ctx);
                let agreed = r.deflate.as_ref().map(|d| d.connections_agreed);
                assert_eq!(agreed, deflate.then_some(2), "{ctx}");
            }
        }
    }
    // Without TLS the report has no tls part.
    let plain = BackgroundServer::reference().unwrap();
    let r = run_echo(&common::count_cfg(plain.url("/echo"), 1, 10, 16, 1)).unwrap();
    assert_clean(&r, 10, "plain");
    assert!(r.tls.is_none());
}

#[test]
fn stream_ping_json_and_socketio_over_tls() {
    let server = server();
    let ca = pki().ca();
    // Count mode, then duration mode (whose receive low-water mark is set on the TCP
    // socket under TLS).
    let r = run_stream(&cfg(server.url("/push"), &ca, 2, 300, 4096, 1)).unwrap();
    assert_clean(&r, 600, "stream");
    assert_tls(r.tls.as_ref(), &r.handshake_us, 2, "stream");
    let mut c = cfg(server.url("/push"), &ca, 1, 1, 1024, 1);
    c.count = None;
    c.warmup = Duration::from_millis(100);
    c.duration = Duration::from_millis(200);
    let r = run_stream(&c).unwrap();
    assert_eq!(r.errors, Errors::default(), "{r:?}");
    assert!(r.messages_received > 0, "{r:?}");

    let r = run_ping(&cfg(server.url("/echo"), &ca, 2, 50, 16, 1)).unwrap();
    assert_clean(&r, 100, "ping");
    let mut c = cfg(server.url("/json"), &ca, 1, 100, 16, 4);
    c.json = true;
    assert_clean(&run_echo(&c).unwrap(), 100, "json");

    // Socket.IO: events with binary attachments and strings, and the session's opening in
    // the upgrade's part.
    for text in [false, true] {
        let mut c = cfg(common::sio_url(&server), &ca, 2, 100, 1024, 4);
        c.protocol = Protocol::Socketio;
        c.text = text;
        let r = run_echo(&c).unwrap();
        let ctx = format!("socketio text={text}");
        assert_clean(&r, 200, &ctx);
        assert_tls(r.tls.as_ref(), &r.handshake_us, 2, &ctx);
    }
}

#[test]
fn connect_hold_and_fanout_over_tls() {
    let server = server();
    let ca = pki().ca();
    for protocol in [Protocol::Websocket, Protocol::Socketio] {
        let url = match protocol {
            Protocol::Websocket => server.url("/echo"),
            Protocol::Socketio => common::sio_url(&server),
        };
        let r = run_connect(&ConnectConfig {
            url,
            workers: 2,
            size: 100,
            warmup: Duration::from_millis(20),
            duration: Duration::from_millis(200),
            timeout: Duration::from_secs(5),
            threads: 1,
            cpus: Vec::new(),
            source_addresses: 1,
            protocol,
            deflate: false,
            tls_ca: Some(ca.clone()),
        })
        .unwrap();
        let ctx = format!("connect {protocol:?}");
        assert_eq!(r.errors, Errors::default(), "{ctx}: {r:?}");
        assert_eq!(r.integrity, Integrity::default(), "{ctx}: {r:?}");
        assert!(r.cycles > 0, "{ctx}: {r:?}");
        assert_tls(r.tls.as_ref(), &r.handshake_us, r.cycles, &ctx);
    }

    let cfg = HoldConfig {
        url: server.url("/echo"),
        connections: 3,
        hold: Duration::from_millis(50),
        timeout: Duration::from_secs(5),
        source_addresses: 1,
        protocol: Protocol::Websocket,
        cpus: Vec::new(),
        deflate: false,
        tls_ca: Some(ca.clone()),
    };
    let (opened, closed) = run_hold(&cfg, std::future::pending(), |_| {}).unwrap();
    assert_eq!(opened.connections_ok, 3, "{opened:?}");
    assert_tls(opened.tls.as_ref(), &opened.handshake_us, 3, "hold");
    assert_eq!((closed.closed, closed.closed_early), (3, 0));

    // Fan-out: the reference server splits each TLS connection into a reader and a
    // writer that share its session.
    for (workload, path, protocol) in [
        (Workload::Broadcast, "/broadcast", Protocol::Websocket),
        (Workload::Market, "/market", Protocol::Websocket),
        (Workload::Broadcast, "", Protocol::Socketio),
    ] {
        let url = match protocol {
            Protocol::Websocket => server.url(path),
            Protocol::Socketio => common::sio_url(&server),
        };
        let market = workload == Workload::Market;
        let r = run_fanout(&FanoutConfig {
            url,
            workload,
            subscribers: 3,
            size: 2000,
            text: false,
            rate: market.then_some(1000.0),
            in_flight: 4,
            warmup: Duration::ZERO,
            duration: Duration::from_secs(1),
            count: Some(30),
            timeout: Duration::from_secs(5),
            threads: 1,
            cpus: Vec::new(),
            protocol,
            source_addresses: 1,
            deflate: false,
            tls_ca: Some(ca.clone()),
        })
        .unwrap();
        let ctx = format!("{workload:?} {protocol:?}");
        assert_clean(&r, 90, &ctx);
        assert_tls(r.tls.as_ref(), &r.handshake_us, 4, &ctx);
        if market {
            let orders = r.fanout.as_ref().unwrap().orders.as_ref().unwrap();
            assert_eq!((orders.sent, orders.acked), (90, 90), "{ctx}");
        }
    }
}

#[test]
fn an_untrusted_certificate_is_refused_with_its_reason() {
    let server = server();
    // Signed by a CA the client was not told to trust.
    let r = run_echo(&cfg(server.url("/echo"), &pki().other_ca(), 3, 5, 16, 1)).unwrap();
    assert_eq!(r.errors.handshake_failed, 3, "{r:?}");
    assert_eq!((r.connections_ok, r.messages_received), (0, 0));
    let tls = r.tls.as_ref().unwrap();
    assert_eq!(tls.version, None);
    let unknown = "TLS handshake failed: invalid peer certificate: UnknownIssuer";
    assert_eq!(tls.failures.get(unknown), Some(&3), "{tls:?}");

    // Trusted, but for another name.
    let wrong = tls_server(pki().wrong_name());
    let r = run_echo(&cfg(wrong.url("/echo"), &pki().ca(), 1, 5, 16, 1)).unwrap();
    assert_eq!(r.errors.handshake_failed, 1, "{r:?}");
    let tls = r.tls.as_ref().unwrap();
    let (reason, count) = tls.failures.iter().next().unwrap();
    assert_eq!(*count, 1);
    assert!(
        reason.starts_with("TLS handshake failed: invalid peer certificate: ")
            && reason.contains("not valid for name")
            && reason.contains("example.com"),
        "{reason}"
    );

    // A TLS client against a plain server: the server's answer is not TLS.
    let plain = BackgroundServer::reference().unwrap();
    let mut url = plain.url("/echo");
    url.tls = true;
    let r = run_echo(&cfg(url, &pki().ca(), 1, 5, 16, 1)).unwrap();
    assert_eq!(r.errors.handshake_failed, 1, "{r:?}");
    let reason = r
        .tls
        .as_ref()
        .unwrap()
        .failures
        .keys()
        .next()
        .unwrap()
        .clone();
    assert!(
        reason.starts_with("TLS handshake failed: ") && reason.contains("not TLS"),
        "{reason}"
    );
}

#[test]
fn serve_with_a_certificate_and_the_cli_over_tls() {
    let pki = pki();
    let (cert, key) = pki.cert();
    let (cert, key) = (cert.to_str().unwrap(), key.to_str().unwrap());
    let ca = pki.ca();
    let ca = ca.to_str().unwrap();
    let s = Served::start_with(&["--certfile", cert, "--keyfile", key, "--deflate"]);
    let wss = format!("wss://127.0.0.1:{}/echo", s.1);
    let (code, _, stderr) = run(&["probe", "--url", &wss, "--tls-ca", ca, "--timeout", "5"]);
    assert_eq!(code, 0, "{stderr}");
    // localhost is in the certificate too.
    let by_name = format!("wss://localhost:{}/echo", s.1);
    let (code, _, stderr) = run(&["probe", "--url", &by_name, "--tls-ca", ca]);
    assert_eq!(code, 0, "{stderr}");

    let (code, stdout, stderr) = run(&[
        "echo",
        "--url",
        &wss,
        "--tls-ca",
        ca,
        "--connections",
        "2",
        "--count",
        "50",
        "--size",
        "1024",
        "--in-flight",
        "4",
        "--deflate",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["messages_received"], 100, "{v}");
    assert_eq!(v["config"]["url"], wss);
    assert_eq!(v["deflate"]["connections_agreed"], 2, "{v}");
    let tls = &v["tls"];
    assert_eq!(tls["version"], "TLSv1.3", "{v}");
    for part in ["tcp_connect_us", "handshake_us", "upgrade_us"] {
        assert_eq!(tls[part]["count"], 2, "{part}: {v}");
    }
    assert_eq!(tls["failures"], serde_json::json!({}));

    // A certificate the client does not trust, named on stderr.
    let other = pki.other_ca();
    let (code, _, stderr) = run(&["probe", "--url", &wss, "--tls-ca", other.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("TLS handshake failed: invalid peer certificate: UnknownIssuer"),
        "{stderr}"
    );
    // A plain client against the TLS server.
    let ws = format!("ws://127.0.0.1:{}/echo", s.1);
    let (code, _, stderr) = run(&["probe", "--url", &ws, "--timeout", "5"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("the server answered with TLS"), "{stderr}");
    // A TLS client against a plain server.
    let plain = Served::start();
    let (code, _, stderr) = run(&[
        "probe",
        "--url",
        &plain.url("/echo").replace("ws:", "wss:"),
        "--tls-ca",
        ca,
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("TLS handshake failed") && stderr.contains("not TLS"),
        "{stderr}"
    );

    // Usage errors (exit 2): wss:// without --tls-ca, --tls-ca with ws://, --certfile
    // without --keyfile; a CA file that is not one, or a key that cannot be read: exit 1.
    for args in [
        vec!["echo", "--url", &wss, "--count", "1"],
        vec!["connect", "--url", &ws, "--tls-ca", ca],
        vec!["serve", "--port", "0", "--certfile", cert],
    ] {
        let (code, _, stderr) = run(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
    }
    let (code, _, stderr) = run(&["probe", "--url", &wss, "--tls-ca", "/nonexistent.pem"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("/nonexistent.pem"), "{stderr}");
    let (code, _, stderr) = run(&["serve", "--port", "0", "--certfile", cert, "--keyfile", ca]);
    assert_eq!(code, 1);
    assert!(stderr.contains("private key"), "{stderr}");
}
