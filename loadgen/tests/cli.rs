//! The binary: usage errors, probe, serve's signals, and the exact JSON keys.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_wsbench-loadgen");

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

#[test]
fn usage_errors_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["echo", "--url", "ws://127.0.0.1:1/echo", "--size", "15"],
            "--size",
        ),
        (
            &["echo", "--url", "ws://127.0.0.1:1/echo", "--bogus"],
            "--bogus",
        ),
        (&["echo", "--url", "http://127.0.0.1:1/echo"], "ws://"),
        (&["stream", "--url", "ws://127.0.0.1:99999/push"], "port"),
        (
            &["echo", "--url", "ws://127.0.0.1:1/echo", "--in-flight", "0"],
            "--in-flight",
        ),
        (
            &["echo", "--url", "ws://127.0.0.1:1/echo", "--duration", "0"],
            "--duration",
        ),
        (&["echo"], "--url"),
        (
            &[
                "stream",
                "--url",
                "ws://127.0.0.1:1/push",
                "--protocol",
                "bogus",
            ],
            "--protocol",
        ),
        (&["frobnicate"], "frobnicate"),
    ];
    for (args, needle) in cases {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

#[test]
fn probe_closed_port_names_connection_refused() {
    let url = format!("ws://127.0.0.1:{}/echo", free_port());
    let (code, _, stderr) = run(&["probe", "--url", &url, "--timeout", "2"]);
    assert_eq!(code, 1);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("connection refused"), "{stderr}");
}

/// A `serve` child process on a free port, killed by PID if a test fails midway.
struct Served(std::process::Child, u16);

impl Served {
    fn start() -> Self {
        let mut child = Command::new(BIN)
            .args(["serve", "--host", "127.0.0.1", "--port", "0"])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().rsplit(':').next().unwrap().parse().unwrap();
        Served(child, port)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn serve_probe_echo_report_keys_and_sigterm() {
    let mut s = Served::start();
    let echo_url = format!("ws://127.0.0.1:{}/echo", s.1);
    let (code, _, stderr) = run(&["probe", "--url", &echo_url, "--timeout", "5"]);
    assert_eq!(code, 0, "{stderr}");
    let bad = format!("ws://127.0.0.1:{}/nope", s.1);
    let (code, _, stderr) = run(&["probe", "--url", &bad, "--timeout", "5"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("handshake failed: status 404"), "{stderr}");

    let (code, stdout, stderr) = run(&[
        "echo",
        "--url",
        &echo_url,
        "--connections",
        "2",
        "--in-flight",
        "64",
        "--count",
        "300",
        "--size",
        "64",
        "--text",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    let mut expected = vec![
        "tool",
        "version",
        "scenario",
        "config",
        "window_s",
        "messages_sent",
        "messages_received",
        "bytes_sent",
        "bytes_received",
        "messages_per_s",
        "bytes_per_s",
        "latency_us",
        "handshake_us",
        "errors",
        "integrity",
        "loadgen_cpu_s",
        "loadgen_cpu_percent",
        "client_bound",
    ];
    let mut got = keys.clone();
    got.sort();
    expected.sort();
    assert_eq!(got, expected);
    assert_eq!(v["tool"], "wsbench-loadgen");
    assert_eq!(v["scenario"], "echo");
    assert_eq!(v["config"]["burst"], 16);
    assert_eq!(v["config"]["message_type"], "text");
    assert_eq!(v["messages_received"], 600);
    let mut ck: Vec<&str> = v["config"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    ck.sort();
    assert_eq!(
        ck,
        [
            "connections",
            "count",
            "duration_s",
            "in_flight",
            "message_type",
            "protocol",
            "size_bytes",
            "threads",
            "url",
            "warmup_s",
            "burst"
        ]
        .iter()
        .copied()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect::<Vec<_>>()
    );
    for k in ["p50", "p90", "p99", "p99_9", "max", "mean", "count"] {
        assert!(v["latency_us"][k].is_number(), "{k}");
        assert!(v["handshake_us"][k].is_number(), "{k}");
    }

    let push_url = format!("ws://127.0.0.1:{}/push", s.1);
    let (code, stdout, stderr) = run(&["stream", "--url", &push_url, "--count", "1000"]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert!(v["latency_us"].is_null());
    assert_eq!(v["messages_received"], 1000);

    // SIGTERM: exits 0 promptly.
    unsafe { libc::kill(s.0.id() as i32, libc::SIGTERM) };
    let start = Instant::now();
    loop {
        if let Some(status) = s.0.try_wait().unwrap() {
            assert_eq!(status.code(), Some(0));
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "serve ignored SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn serve_speaks_socketio() {
    let s = Served::start();
    let url = format!(
        "ws://127.0.0.1:{}/socket.io/?EIO=4&transport=websocket",
        s.1
    );
    let (code, _, stderr) = run(&["probe", "--url", &url, "--timeout", "5"]);
    assert_eq!(code, 0, "{stderr}");
    for (scenario, extra) in [("echo", &["--in-flight", "16"][..]), ("stream", &[][..])] {
        for text in [false, true] {
            let mut args = vec![
                scenario,
                "--url",
                &url,
                "--protocol",
                "socketio",
                "--connections",
                "2",
                "--count",
                "500",
                "--size",
                "1024",
            ];
            args.extend_from_slice(extra);
            if text {
                args.push("--text");
            }
            let (code, stdout, stderr) = run(&args);
            assert_eq!(code, 0, "{stderr}");
            let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
            assert_eq!(v["config"]["protocol"], "socketio");
            assert_eq!(v["config"]["url"], url.as_str(), "the query is kept");
            assert_eq!(v["messages_received"], 1000, "{scenario} text={text}");
            assert_eq!(v["bytes_received"], 1000 * 1024);
            for (k, n) in v["errors"].as_object().unwrap() {
                assert_eq!(n, 0, "{k}");
            }
            for (k, n) in v["integrity"].as_object().unwrap() {
                assert_eq!(n, 0, "{k}");
            }
        }
    }
}
