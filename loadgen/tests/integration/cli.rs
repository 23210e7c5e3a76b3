//! The binary: usage errors, probe, serve's signals, and the exact JSON keys.

use crate::common;

use std::time::{Duration, Instant};

use common::bin::{free_port, run, Served};

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
        (
            &["echo", "--url", "ws://127.0.0.1:1/json", "--json", "--text"],
            "--text",
        ),
        (
            &[
                "echo",
                "--url",
                "ws://127.0.0.1:1/json",
                "--json",
                "--size",
                "64",
            ],
            "--size 64",
        ),
        (
            &[
                "echo",
                "--url",
                "ws://127.0.0.1:1/echo",
                "--source-addresses",
                "0",
            ],
            "--source-addresses",
        ),
        (
            &[
                "stream",
                "--url",
                "ws://127.0.0.1:1/push",
                "--source-addresses",
                "251",
            ],
            "--source-addresses",
        ),
        (
            &[
                "connect",
                "--url",
                "ws://127.0.0.1:1/echo",
                "--workers",
                "0",
            ],
            "--workers",
        ),
        (
            &["hold", "--url", "ws://127.0.0.1:1/echo", "--hold-s", "0"],
            "--hold-s",
        ),
        (
            &[
                "ping",
                "--url",
                "ws://127.0.0.1:1/echo",
                "--connections",
                "0",
            ],
            "--connections",
        ),
        // Pings carry 16 bytes, one in flight: no message options.
        (
            &["ping", "--url", "ws://127.0.0.1:1/echo", "--size", "16"],
            "--size",
        ),
        (
            &["ping", "--url", "ws://127.0.0.1:1/echo", "--in-flight", "2"],
            "--in-flight",
        ),
        (
            &["ping", "--url", "ws://127.0.0.1:1/echo", "--text"],
            "--text",
        ),
        // The agent name goes into a query string as is.
        (&["autobahn-client", "--agent", "a&b"], "agent name"),
        // A header value on one line.
        (
            &["serve", "--port", "0", "--deflate-answer", "a\r\nX-Evil: 1"],
            "header value",
        ),
        // The corpus's messages are 1,024 bytes, and not the JSON workload's.
        (
            &[
                "echo",
                "--url",
                "ws://127.0.0.1:1/echo",
                "--corpus",
                "--size",
                "64",
            ],
            "--corpus messages are 1024 bytes",
        ),
        (
            &[
                "echo",
                "--url",
                "ws://127.0.0.1:1/echo",
                "--corpus",
                "--json",
            ],
            "--json",
        ),
        // The connections of `autobahn-client` and `probe` offer nothing.
        (
            &["probe", "--url", "ws://127.0.0.1:1/echo", "--deflate"],
            "--deflate",
        ),
    ];
    for (args, needle) in cases {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

#[test]
fn autobahn_client_without_a_fuzzing_server_exits_1() {
    let url = format!("ws://127.0.0.1:{}", free_port());
    let (code, stdout, stderr) = run(&["autobahn-client", "--url", &url, "--timeout", "5"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("the fuzzing server failed") && stderr.contains("/getCaseCount"),
        "{stderr}"
    );
}

#[test]
fn probe_closed_port_names_connection_refused() {
    let url = format!("ws://127.0.0.1:{}/echo", free_port());
    let (code, _, stderr) = run(&["probe", "--url", &url, "--timeout", "2"]);
    assert_eq!(code, 1);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("connection refused"), "{stderr}");
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
        "per_connection_messages_per_s",
        "latency_us",
        "handshake_us",
        "connect_s",
        "connections_ok",
        "connections_per_s",
        "errors",
        "integrity",
        "loadgen_cpu_s",
        "loadgen_cpu_percent",
        "client_bound",
        "rlimit_nofile",
        "deflate",
        "tls",
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
            "burst",
            "source_addresses"
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
    assert_eq!(v["connections_ok"], 2);
    assert_eq!(v["config"]["source_addresses"], 1);
    assert!(v["connect_s"].as_f64().unwrap() > 0.0);
    assert!(v["connections_per_s"].as_f64().unwrap() > 0.0);
    assert!(v["rlimit_nofile"].as_u64().unwrap() > 0);
    for k in ["min", "median", "max"] {
        assert!(
            v["per_connection_messages_per_s"][k].as_f64().unwrap() > 0.0,
            "{k}"
        );
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

#[test]
fn ping_reports_as_echo_does() {
    let s = Served::start();
    let echo_url = s.url("/echo");
    let (code, stdout, stderr) = run(&["echo", "--url", &echo_url, "--count", "10"]);
    assert_eq!(code, 0, "{stderr}");
    let echo: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let sio_url = s.url("/socket.io/?EIO=4&transport=websocket");
    for (url, protocol) in [(&echo_url, "websocket"), (&sio_url, "socketio")] {
        let (code, stdout, stderr) = run(&[
            "ping",
            "--url",
            url,
            "--protocol",
            protocol,
            "--connections",
            "3",
            "--count",
            "200",
        ]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            stderr.contains("traffic starts (3 connections)"),
            "{stderr}"
        );
        let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        // The same keys as echo's report, and in its config.
        for (ours, theirs) in [(&v, &echo), (&v["config"], &echo["config"])] {
            let k = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect();
            let (ours, theirs): (Vec<String>, Vec<String>) = (k(ours), k(theirs));
            assert_eq!(ours, theirs, "{protocol}");
        }
        assert_eq!(v["scenario"], "ping");
        assert_eq!(v["config"]["protocol"], protocol);
        assert_eq!(v["config"]["message_type"], "ping");
        assert_eq!(v["config"]["size_bytes"], 16);
        assert_eq!(v["config"]["in_flight"], 1);
        assert_eq!(v["config"]["count"], 200);
        assert_eq!(v["messages_sent"], 600, "{protocol}");
        assert_eq!(v["messages_received"], 600, "{protocol}");
        assert_eq!(v["bytes_received"], 600 * 16, "{protocol}");
        assert_eq!(v["latency_us"]["count"], 600, "{protocol}");
        assert!(v["messages_per_s"].as_f64().unwrap() > 0.0);
        assert!(v["loadgen_cpu_percent"].is_number());
        for (k, n) in v["errors"].as_object().unwrap() {
            assert_eq!(n, 0, "{protocol} {k}");
        }
        for (k, n) in v["integrity"].as_object().unwrap() {
            assert_eq!(n, 0, "{protocol} {k}");
        }
    }
}
