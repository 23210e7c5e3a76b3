//! The JSON report printed by `echo` and `stream` (one document on stdout).

use serde::Serialize;

use crate::integrity::Integrity;
use crate::stats::Summary;

/// Value of the `tool` field.
pub const TOOL: &str = "wsbench-loadgen";
/// Value of the `version` field (the crate version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `loadgen_cpu_percent` above which a run is flagged `client_bound`.
pub const CLIENT_BOUND_PERCENT: f64 = 80.0;

/// The whole report. Field order is the order of the JSON keys.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Always [`TOOL`].
    pub tool: &'static str,
    /// Always [`VERSION`].
    pub version: &'static str,
    /// `"echo"` or `"stream"`.
    pub scenario: &'static str,
    /// The settings of the run.
    pub config: ReportConfig,
    /// Measured window, seconds (count mode: elapsed time of the traffic phase).
    pub window_s: f64,
    /// Messages sent inside the window (stream: request messages, whole run).
    pub messages_sent: u64,
    /// Messages received inside the window.
    pub messages_received: u64,
    /// Payload bytes sent inside the window (frame headers not counted).
    pub bytes_sent: u64,
    /// Payload bytes received inside the window (frame headers not counted).
    pub bytes_received: u64,
    /// `messages_received / window_s`, messages per second.
    pub messages_per_s: f64,
    /// `bytes_received / window_s`, payload bytes per second.
    pub bytes_per_s: f64,
    /// Round-trip latency of replies read inside the window, µs (`None` for stream).
    pub latency_us: Option<Summary>,
    /// TCP connect plus HTTP upgrade (Socket.IO: plus the Engine.IO open packet and the
    /// namespace connection) per successful connection, µs.
    pub handshake_us: Summary,
    /// Failed connections by cause (one per connection at most).
    pub errors: Errors,
    /// Integrity counters over the whole run (warm-up and drain included).
    pub integrity: Integrity,
    /// User plus system CPU of this process over the window, seconds (sampled by a timer
    /// at the window's edges).
    pub loadgen_cpu_s: f64,
    /// `loadgen_cpu_s` over the sampled interval × 100 (100 = one core busy).
    pub loadgen_cpu_percent: f64,
    /// `loadgen_cpu_percent > 80`: the load generator may have limited the result.
    pub client_bound: bool,
}

/// The `config` object of the report.
#[derive(Debug, Clone, Serialize)]
pub struct ReportConfig {
    /// Target URL.
    pub url: String,
    /// `"websocket"` or `"socketio"`.
    pub protocol: &'static str,
    /// Number of connections.
    pub connections: usize,
    /// Messages in flight per connection (echo; `None` for stream).
    pub in_flight: Option<usize>,
    /// Refill burst size B = max(1, W / 4) (echo; `None` for stream).
    pub burst: Option<usize>,
    /// Message size, bytes.
    pub size_bytes: usize,
    /// `"binary"` or `"text"`.
    pub message_type: &'static str,
    /// Warm-up, seconds.
    pub warmup_s: f64,
    /// Measurement window requested, seconds.
    pub duration_s: f64,
    /// Messages per connection in count mode, else `None`.
    pub count: Option<u64>,
    /// Runtime worker threads (1 = current-thread runtime).
    pub threads: usize,
}

/// Connection failures by cause. Each failed connection counts once.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Errors {
    /// TCP connection refused.
    pub connection_refused: u64,
    /// Upgrade answered with a status other than 101, a bad accept key, or a malformed
    /// response (also: the server closed during the upgrade; Socket.IO: no valid
    /// Engine.IO open packet, or the server closed before the namespace connection).
    pub handshake_failed: u64,
    /// The server closed or reset the connection before the run ended.
    pub closed_early: u64,
    /// Connect/upgrade or replies took longer than `--timeout`.
    pub timeout: u64,
    /// Socket.IO only: the server answered the namespace connection with CONNECT_ERROR.
    pub socketio_connect_error: u64,
    /// Anything else (protocol violations, unexpected I/O errors).
    pub other: u64,
}

/// One cause of connection failure, as counted in [`Errors`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// See [`Errors::connection_refused`].
    ConnectionRefused,
    /// See [`Errors::handshake_failed`].
    HandshakeFailed,
    /// See [`Errors::closed_early`].
    ClosedEarly,
    /// See [`Errors::timeout`].
    Timeout,
    /// See [`Errors::socketio_connect_error`].
    SocketioConnectError,
    /// See [`Errors::other`].
    Other,
}

impl Errors {
    /// Counts one failure of kind `k`.
    pub fn add(&mut self, k: ErrorKind) {
        match k {
            ErrorKind::ConnectionRefused => self.connection_refused += 1,
            ErrorKind::HandshakeFailed => self.handshake_failed += 1,
            ErrorKind::ClosedEarly => self.closed_early += 1,
            ErrorKind::Timeout => self.timeout += 1,
            ErrorKind::SocketioConnectError => self.socketio_connect_error += 1,
            ErrorKind::Other => self.other += 1,
        }
    }

    /// Total number of failures.
    pub fn total(&self) -> u64 {
        self.connection_refused
            + self.handshake_failed
            + self.closed_early
            + self.timeout
            + self.socketio_connect_error
            + self.other
    }
}

/// Classifies a fastwebsockets error seen after the handshake.
pub fn classify_ws_error(e: &fastwebsockets::WebSocketError) -> ErrorKind {
    use fastwebsockets::WebSocketError as E;
    match e {
        E::UnexpectedEOF | E::ConnectionClosed => ErrorKind::ClosedEarly,
        E::IoError(io) => match io.kind() {
            std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::BrokenPipe
            | std::io::ErrorKind::UnexpectedEof
            | std::io::ErrorKind::WriteZero => ErrorKind::ClosedEarly,
            std::io::ErrorKind::TimedOut => ErrorKind::Timeout,
            _ => ErrorKind::Other,
        },
        _ => ErrorKind::Other,
    }
}
