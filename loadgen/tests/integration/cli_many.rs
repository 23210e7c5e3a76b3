//! The binary's many-connections parts: the open-file limit, `connect`, `hold` (its two
//! lines and stdin) and `echo --json`, against a `serve` child process.

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::bin::{free_port, run, run_with_nofile, Served, BIN};

fn keys(v: &serde_json::Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

fn sorted(k: &[&str]) -> Vec<String> {
    let mut k: Vec<String> = k.iter().map(|s| s.to_string()).collect();
    k.sort();
    k
}

#[test]
fn connections_beyond_the_open_file_limit_are_a_usage_error() {
    let url = "ws://127.0.0.1:1/echo";
    let cases: &[(&[&str], &str)] = &[
        (
            &["echo", "--url", url, "--connections", "1000"],
            "--connections 1000",
        ),
        (
            &["stream", "--url", url, "--connections", "200"],
            "--connections 200",
        ),
        (
            &["ping", "--url", url, "--connections", "300"],
            "--connections 300",
        ),
        (
            &["connect", "--url", url, "--workers", "500"],
            "--workers 500",
        ),
        (
            &["hold", "--url", url, "--connections", "193"],
            "--connections 193",
        ),
    ];
    for (args, needle) in cases {
        let (code, stdout, stderr) = run_with_nofile(args, 64, 256);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(stderr.contains("limit (RLIMIT_NOFILE) is 256"), "{stderr}");
    }
    // 192 + the margin of 64 fit exactly: the run happens (and finds nothing listening).
    let url = format!("ws://127.0.0.1:{}/echo", free_port());
    let (code, stdout, stderr) = run_with_nofile(
        &[
            "echo",
            "--url",
            &url,
            "--connections",
            "192",
            "--count",
            "1",
        ],
        64,
        256,
    );
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["errors"]["connection_refused"], 192);
    assert_eq!(
        v["rlimit_nofile"], 256,
        "the soft limit is raised to the hard"
    );
    assert!(v["per_connection_messages_per_s"].is_null());
    assert_eq!(v["connections_ok"], 0);
}

#[test]
fn connect_reports_cycles() {
    let s = Served::start();
    for (url, protocol) in [
        (s.url("/echo"), "websocket"),
        (s.url("/socket.io/?EIO=4&transport=websocket"), "socketio"),
    ] {
        let (code, stdout, stderr) = run(&[
            "connect",
            "--url",
            &url,
            "--workers",
            "2",
            "--size",
            "64",
            "--warmup",
            "0.1",
            "--duration",
            "0.5",
            "--source-addresses",
            "3",
            "--protocol",
            protocol,
        ]);
        assert_eq!(code, 0, "{stderr}");
        let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(
            keys(&v),
            sorted(&[
                "tool",
                "version",
                "scenario",
                "config",
                "window_s",
                "cycles",
                "connections_per_s",
                "handshake_us",
                "cycle_us",
                "errors",
                "integrity",
                "loadgen_cpu_s",
                "loadgen_cpu_percent",
                "client_bound",
                "rlimit_nofile",
                "deflate",
                "tls",
            ])
        );
        assert_eq!(
            keys(&v["config"]),
            sorted(&[
                "url",
                "protocol",
                "workers",
                "size_bytes",
                "message_type",
                "warmup_s",
                "duration_s",
                "timeout_s",
                "threads",
                "source_addresses",
            ])
        );
        assert_eq!(v["scenario"], "connect");
        assert_eq!(v["config"]["protocol"], protocol);
        assert_eq!(v["config"]["source_addresses"], 3);
        let cycles = v["cycles"].as_u64().unwrap();
        assert!(cycles > 0, "{v}");
        assert_eq!(v["handshake_us"]["count"], cycles);
        assert_eq!(v["cycle_us"]["count"], cycles);
        for (k, n) in v["errors"].as_object().unwrap() {
            assert_eq!(n, 0, "{k}");
        }
        for (k, n) in v["integrity"].as_object().unwrap() {
            assert_eq!(n, 0, "{k}");
        }
    }
}

/// A `hold` child with stdin and stdout piped.
struct Holding {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Holding {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(BIN)
            .arg("hold")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        Holding { child, out }
    }

    fn line(&mut self) -> serde_json::Value {
        let mut line = String::new();
        self.out.read_line(&mut line).unwrap();
        serde_json::from_str(line.trim()).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    /// Waits (at most 10 s) for the exit code.
    fn exit_code(&mut self) -> i32 {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "hold did not exit"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Holding {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn hold_prints_two_lines_and_ends_at_stdin_eof() {
    let s = Served::start();
    let url = s.url("/echo");
    let mut h = Holding::start(&["--url", &url, "--connections", "50", "--hold-s", "60"]);
    let first = h.line();
    assert_eq!(
        keys(&first),
        sorted(&[
            "tool",
            "version",
            "scenario",
            "config",
            "connections_ok",
            "errors",
            "connect_s",
            "connections_per_s",
            "handshake_us",
            "rlimit_nofile",
            "deflate",
            "tls",
        ])
    );
    assert_eq!(first["scenario"], "hold");
    assert_eq!(first["connections_ok"], 50);
    assert_eq!(first["handshake_us"]["count"], 50);
    assert!(first["connect_s"].as_f64().unwrap() > 0.0);
    // Still holding: closing stdin ends the hold.
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        h.child.try_wait().unwrap().is_none(),
        "ended before stdin EOF"
    );
    let start = Instant::now();
    drop(h.child.stdin.take());
    let second = h.line();
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(second["closed"], 50);
    assert_eq!(second["closed_early"], 0);
    assert!(second["held_s"].as_f64().unwrap() >= 0.2);
    assert_eq!(h.exit_code(), 0);
}

#[test]
fn hold_ends_after_hold_s_with_stdin_open() {
    let s = Served::start();
    let url = s.url("/socket.io/?EIO=4&transport=websocket");
    let mut h = Holding::start(&[
        "--url",
        &url,
        "--protocol",
        "socketio",
        "--connections",
        "5",
        "--hold-s",
        "0.3",
        "--source-addresses",
        "2",
    ]);
    let first = h.line();
    assert_eq!(first["connections_ok"], 5);
    assert_eq!(first["config"]["protocol"], "socketio");
    let second = h.line();
    assert_eq!(second["closed"], 5);
    assert_eq!(h.exit_code(), 0);
}

#[test]
fn hold_without_any_connection_exits_1() {
    let url = format!("ws://127.0.0.1:{}/echo", free_port());
    let mut h = Holding::start(&["--url", &url, "--connections", "3"]);
    let first = h.line();
    assert_eq!(first["connections_ok"], 0);
    assert_eq!(first["errors"]["connection_refused"], 3);
    assert_eq!(h.exit_code(), 1);
}

#[test]
fn echo_json_against_serve() {
    let s = Served::start();
    for (url, protocol, answer) in [
        (s.url("/json"), "websocket", 39),
        (
            s.url("/socket.io/?EIO=4&transport=websocket"),
            "socketio",
            36,
        ),
    ] {
        let (code, stdout, stderr) = run(&[
            "echo",
            "--url",
            &url,
            "--protocol",
            protocol,
            "--json",
            "--connections",
            "2",
            "--in-flight",
            "8",
            "--count",
            "300",
        ]);
        assert_eq!(code, 0, "{stderr}");
        let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(v["config"]["message_type"], "json");
        assert_eq!(v["config"]["size_bytes"], 97);
        assert_eq!(v["messages_received"], 600);
        assert_eq!(v["bytes_sent"], 600 * 97);
        assert_eq!(v["bytes_received"], 600 * answer, "{protocol}");
        for (k, n) in v["integrity"].as_object().unwrap() {
            assert_eq!(n, 0, "{k}");
        }
        for (k, n) in v["errors"].as_object().unwrap() {
            assert_eq!(n, 0, "{k}");
        }
    }
}
