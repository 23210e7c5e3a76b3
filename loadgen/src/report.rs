//! The JSON report printed by `echo`, `stream`, `ping`, `broadcast` and `market` (one
//! document on stdout), and what the reports of `connect` and `hold` share with it
//! ([`Errors`], [`Spread`]).

use serde::Serialize;

use crate::protocol::deflate_wire::DeflateReport;
use crate::protocol::integrity::Integrity;
use crate::stats::Summary;
use crate::transport::tls::TlsReport;

/// Value of the `tool` field.
pub const TOOL: &str = "wsbench-loadgen";
/// Value of the `version` field (the crate version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// `loadgen_cpu_percent` per runtime thread above which a run is flagged `client_bound`.
pub const CLIENT_BOUND_PERCENT: f64 = 80.0;

/// Whether a run whose CPU was `cpu_percent` (percent of one core, summed over its
/// threads) on `threads` runtime threads is flagged `client_bound`: above
/// [`CLIENT_BOUND_PERCENT`] times its threads, as the harness flags it
/// (`wsbench.results.metrics.client_bound`).
pub fn client_bound(cpu_percent: f64, threads: usize) -> bool {
    cpu_percent > CLIENT_BOUND_PERCENT * threads.max(1) as f64
}

/// The whole report. Field order is the order of the JSON keys.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Always [`TOOL`].
    pub tool: &'static str,
    /// Always [`VERSION`].
    pub version: &'static str,
    /// `"echo"`, `"stream"`, `"ping"`, `"broadcast"` or `"market"`.
    pub scenario: &'static str,
    /// The settings of the run.
    pub config: ReportConfig,
    /// Measured window, seconds (count mode: elapsed time of the traffic phase).
    pub window_s: f64,
    /// Messages sent inside the window (stream: request messages, whole run; ping: pings).
    pub messages_sent: u64,
    /// Messages received inside the window (ping: pongs).
    pub messages_received: u64,
    /// Payload bytes sent inside the window (frame headers not counted).
    pub bytes_sent: u64,
    /// Payload bytes received inside the window (frame headers not counted).
    pub bytes_received: u64,
    /// `messages_received / window_s`, messages per second.
    pub messages_per_s: f64,
    /// `bytes_received / window_s`, payload bytes per second.
    pub bytes_per_s: f64,
    /// How evenly the server shared itself between the connections: over the connections
    /// established, each one's messages received inside the window / `window_s`, in
    /// messages per second; `None` (null) when no connection was established.
    pub per_connection_messages_per_s: Option<Spread>,
    /// Round-trip latency of replies read inside the window, µs (ping: of the pongs that
    /// answered their ping; `None` for stream).
    pub latency_us: Option<Summary>,
    /// TCP connect plus TLS handshake (`wss://`) plus HTTP upgrade (Socket.IO: plus the
    /// Engine.IO open packet and the namespace connection) per successful connection, µs;
    /// over TLS, `tls` has its parts.
    pub handshake_us: Summary,
    /// Wall time of the connect phase, from the first connection attempt until every
    /// attempt has ended (succeeded or failed), seconds. Not part of the window.
    pub connect_s: f64,
    /// Connections established.
    pub connections_ok: u64,
    /// `connections_ok / connect_s`, connections per second (0 when `connect_s` is 0).
    pub connections_per_s: f64,
    /// Failed connections by cause (one per connection at most).
    pub errors: Errors,
    /// Integrity counters over the whole run (warm-up and drain included).
    pub integrity: Integrity,
    /// User plus system CPU of this process over the window, seconds (sampled by a timer
    /// at the window's edges; the window starts after the connect phase and the warm-up,
    /// so connecting is never part of it; count mode: from the end of the connect phase
    /// to the end of the traffic).
    pub loadgen_cpu_s: f64,
    /// `loadgen_cpu_s` over the sampled interval × 100 (100 = one core busy).
    pub loadgen_cpu_percent: f64,
    /// `loadgen_cpu_percent > 80`: the load generator may have limited the result.
    pub client_bound: bool,
    /// The open-file limit (`RLIMIT_NOFILE` soft limit, after raising it to the hard
    /// limit at start-up), descriptors; see [`crate::transport::limits`].
    pub rlimit_nofile: u64,
    /// `broadcast` and `market` only: what fan-out adds (absent from other reports).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fanout: Option<Fanout>,
    /// permessage-deflate (`--deflate`): what was offered and agreed, and the bytes on the
    /// wire against the messages' bytes; null when it was not offered.
    pub deflate: Option<DeflateReport>,
    /// TLS (`wss://`): the version, cipher suite and key exchange group agreed (first
    /// connection), the TCP connect, TLS handshake and upgrade parts of `handshake_us`,
    /// and the failed handshakes by reason; null without TLS.
    pub tls: Option<TlsReport>,
}

/// The figures of a fan-out run (`broadcast`, `market`) beyond those of [`Report`], whose
/// `messages_sent` are then the messages published inside the window, `messages_received`
/// their deliveries (one per subscriber that got it), `latency_us` the delivery latency
/// (from the instant the publisher sent the message, or was due to send it at a fixed
/// rate, to the subscriber's read) and `per_connection_messages_per_s` each subscriber's
/// deliveries per second.
#[derive(Debug, Clone, Serialize)]
pub struct Fanout {
    /// Subscribers that carried traffic.
    pub subscribers: u64,
    /// Messages published inside the window (a message is inside when it was sent, or
    /// due, inside it), counted once.
    pub published: u64,
    /// `published / window_s`, messages per second.
    pub published_per_s: f64,
    /// For each message delivered to every live subscriber: the delivery latency of the
    /// last subscriber to get it, µs.
    pub last_latency_us: Summary,
    /// Each subscriber's messages published inside the window that it never received.
    pub per_subscriber_lost: Option<Spread>,
    /// Each subscriber's messages received after a later one.
    pub per_subscriber_out_of_order: Option<Spread>,
    /// Messages the server sent to the publisher (read when it closes, after every
    /// subscriber is done): the protocol relays to every connection but the sender, so
    /// any is a violation.
    pub publisher_received: u64,
    /// Messages the publisher sent while priming (at most one per 10 ms), before the
    /// traffic phase; none is counted.
    pub priming_messages: u64,
    /// How long priming took, seconds.
    pub priming_s: f64,
    /// `market` only: the orders the clients sent in answer to ticks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orders: Option<Orders>,
}

/// The orders of a `market` run (all clients together).
#[derive(Debug, Clone, Serialize)]
pub struct Orders {
    /// Orders sent inside the window.
    pub sent: u64,
    /// Acknowledgements of those orders received.
    pub acked: u64,
    /// `acked / window_s`, orders per second.
    pub acked_per_s: f64,
    /// Round trip of each order sent inside the window, from its send to its
    /// acknowledgement's read, µs.
    pub round_trip_us: Summary,
    /// Acknowledgements that did not match the oldest order in flight (another id, or
    /// not an acknowledgement of this layout).
    pub mismatched: u64,
}

/// Smallest, median and largest of a set of values (here: messages per second).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    /// Smallest value.
    pub min: f64,
    /// Median (the mean of the two middle values for an even count).
    pub median: f64,
    /// Largest value.
    pub max: f64,
}

impl Spread {
    /// The spread of `values`; `None` when there are none.
    pub fn of(mut values: Vec<f64>) -> Option<Spread> {
        if values.is_empty() {
            return None;
        }
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let median = if n % 2 == 1 {
            values[n / 2]
        } else {
            (values[n / 2 - 1] + values[n / 2]) / 2.0
        };
        Some(Spread {
            min: values[0],
            median,
            max: values[n - 1],
        })
    }
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
    /// Messages in flight per connection (echo; ping: 1; `None` for stream).
    pub in_flight: Option<usize>,
    /// Refill burst size B = max(1, W / 4) (echo; ping: 1; `None` for stream).
    pub burst: Option<usize>,
    /// Message size, bytes (97 for JSON, 1,024 for the corpus; ping: 16, a ping's payload).
    pub size_bytes: usize,
    /// `"binary"`, `"text"`, `"json"`, `"corpus"` (text frames of the JSON corpus) or
    /// (ping) `"ping"`.
    pub message_type: &'static str,
    /// Warm-up, seconds.
    pub warmup_s: f64,
    /// Measurement window requested, seconds.
    pub duration_s: f64,
    /// Messages (ping: pings) per connection in count mode, else `None`.
    pub count: Option<u64>,
    /// Runtime threads (1 = current-thread runtime); with `cpus`, one per CPU listed.
    pub threads: usize,
    /// `--cpus`: the CPU of each runtime thread, thread `k` on entry `k` (connection `i`
    /// on thread `i % threads`, see [`crate::cpus`]); absent without `--cpus`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpus: Option<Vec<usize>>,
    /// Loopback source addresses the connections were spread over (1: the kernel's
    /// choice); see [`crate::transport::source`].
    pub source_addresses: usize,
    /// Fixed offered load, messages per second over all connections (echo: latency is
    /// then measured from each message's intended send time; broadcast, market: the
    /// publisher's rate); absent when the load is closed-loop (a window of messages in
    /// flight).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_per_s: Option<f64>,
}

/// Connection failures by cause. Each failed connection counts once.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Errors {
    /// TCP connection refused.
    pub connection_refused: u64,
    /// Upgrade answered with a status other than 101, a bad accept key, or a malformed
    /// response (also: the server closed during the upgrade; Socket.IO: no valid
    /// Engine.IO open packet, or the server closed before the namespace connection;
    /// `wss://`: the TLS handshake failed, its reason counted in the report's
    /// `tls.failures`).
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

impl std::ops::AddAssign for Errors {
    fn add_assign(&mut self, o: Self) {
        self.connection_refused += o.connection_refused;
        self.handshake_failed += o.handshake_failed;
        self.closed_early += o.closed_early;
        self.timeout += o.timeout;
        self.socketio_connect_error += o.socketio_connect_error;
        self.other += o.other;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_bound_is_80_percent_of_every_runtime_thread() {
        assert!(client_bound(80.5, 1) && !client_bound(80.0, 1));
        assert!(!client_bound(150.0, 2) && client_bound(161.0, 2));
        assert!(client_bound(90.0, 0)); // no thread reported: one
    }

    #[test]
    fn spread_of_values() {
        assert_eq!(Spread::of(Vec::new()), None);
        let s = Spread::of(vec![3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.min, s.median, s.max), (1.0, 2.0, 3.0));
        let s = Spread::of(vec![4.0, 1.0, 2.0, 10.0]).unwrap();
        assert_eq!((s.min, s.median, s.max), (1.0, 3.0, 10.0));
    }
}
