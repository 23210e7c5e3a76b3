//! The `connect` scenario (connection setup): K workers, each repeating a whole
//! connection's life as fast as the server allows.
//!
//! One **cycle**: TCP connect, TLS handshake (`wss://`) and WebSocket upgrade (Socket.IO:
//! plus the Engine.IO open packet and the namespace connection; together the
//! *handshake*, as in `echo`, its parts reported in `tls` over TLS), one
//! binary message of S bytes (message 0 of PROTOCOL.md; Socket.IO: the event `echo` with
//! it as a binary attachment), its echo read and checked byte for byte, then the close:
//! the client sends a close frame and waits for the server's close frame or the end of
//! the stream, then drops the connection. Each step is bounded by `--timeout`.
//!
//! Counting: a cycle counts when it *completes* inside the window `[start, start +
//! duration)` after the warm-up: `cycles`, `connections_per_s`, and the `handshake_us`
//! and `cycle_us` histograms. No new cycle starts once the window is over; cycles under
//! way finish (and their failures count). A failed cycle counts once in `errors` (by
//! kind, over the whole run); its worker pauses [`FAILURE_PAUSE`] and goes on. Integrity
//! (whole run): an echo that is not exactly message 0 is `corrupted`; an echo that never
//! came (the cycle failed after sending) is `lost`. Anything the server sends after the
//! client's close frame other than its own close frame (fastwebsockets refuses data once
//! it has sent a close) ends the wait like the end of the stream, so a second copy of
//! the echo is not seen.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fastwebsockets::{Frame, OpCode};
use serde::Serialize;
use tokio::task::JoinSet;

use crate::cpus::{reported, runtime_threads, PinnedThreads};
use crate::modes::run::{
    block_on, client_tls, connect, rate, resolve, sample_window, RunError, Speech,
};
use crate::protocol::deflate_wire::{DeflateReport, DeflateRun};
use crate::protocol::integrity::Integrity;
use crate::protocol::payload::{inspect, template};
use crate::protocol::proto::{Incoming, Protocol};
use crate::protocol::socketio::{binary_event_header, Kind, ECHO_EVENT};
use crate::protocol::ws::MaskGen;
use crate::report::{classify_ws_error, client_bound, ErrorKind, Errors, TOOL, VERSION};
use crate::stats::{Hist, Summary};
use crate::transport::handshake::Client;
use crate::transport::limits::nofile_limit;
use crate::transport::source::source_address;
use crate::transport::tls::{HandshakeParts, TlsReport};
use crate::transport::url::WsUrl;

/// How long a worker waits after a failed cycle before the next, so that a server that
/// refuses connections is not hammered in a tight loop.
pub const FAILURE_PAUSE: Duration = Duration::from_millis(1);

/// Settings of a `connect` run.
#[derive(Debug, Clone)]
pub struct ConnectConfig {
    /// Target URL (`/echo`, or the Socket.IO URL).
    pub url: WsUrl,
    /// Concurrent workers, K (≥ 1); each has at most one connection open.
    pub workers: usize,
    /// Size of the one message each cycle sends, bytes (≥ 16).
    pub size: usize,
    /// Warm-up before the window.
    pub warmup: Duration,
    /// Length of the measurement window.
    pub duration: Duration,
    /// Limit for each step of a cycle: connect + upgrade (+ session opening), the echo,
    /// the close.
    pub timeout: Duration,
    /// Runtime worker threads; 1 = current-thread runtime (without `cpus`).
    pub threads: usize,
    /// CPUs of the runtime threads the workers are spread over (`--cpus`, see
    /// [`crate::cpus`]; worker `w` on thread `w % N`); empty: `threads` decides.
    pub cpus: Vec<usize>,
    /// Loopback source addresses the connections are spread over (1 = the kernel's
    /// choice); cycle `k` of the run uses address `k % N`, see
    /// [`crate::transport::source`].
    pub source_addresses: usize,
    /// Plain WebSocket messages or Socket.IO events.
    pub protocol: Protocol,
    /// Offer permessage-deflate on every connection (`--deflate`), see
    /// [`crate::modes::run::LoadConfig::deflate`].
    pub deflate: bool,
    /// `wss://` URLs: the CA file the client trusts (`--tls-ca`), see
    /// [`crate::modes::run::LoadConfig::tls_ca`].
    pub tls_ca: Option<std::path::PathBuf>,
}

/// The JSON report of `connect` (field names as in `echo`'s report where they overlap).
#[derive(Debug, Clone, Serialize)]
pub struct ConnectReport {
    /// Always `"wsbench-loadgen"`.
    pub tool: &'static str,
    /// The crate version.
    pub version: &'static str,
    /// Always `"connect"`.
    pub scenario: &'static str,
    /// The settings of the run.
    pub config: ConnectReportConfig,
    /// Measured window, seconds (the requested duration).
    pub window_s: f64,
    /// Cycles completed inside the window.
    pub cycles: u64,
    /// `cycles / window_s`: complete connection lives per second.
    pub connections_per_s: f64,
    /// TCP connect plus TLS handshake (`wss://`) plus HTTP upgrade (Socket.IO: plus the
    /// Engine.IO open packet and the namespace connection) of the cycles completed inside
    /// the window, µs.
    pub handshake_us: Summary,
    /// Whole cycle (handshake, message, echo, close) of the cycles completed inside the
    /// window, µs.
    pub cycle_us: Summary,
    /// Failed cycles by cause (each once), whole run.
    pub errors: Errors,
    /// Integrity of the echoes, in messages, whole run (see the module documentation).
    pub integrity: Integrity,
    /// User plus system CPU of this process over the window, seconds.
    pub loadgen_cpu_s: f64,
    /// `loadgen_cpu_s` over the sampled interval × 100 (100 = one core busy).
    pub loadgen_cpu_percent: f64,
    /// `loadgen_cpu_percent > 80`: the load generator may have limited the result.
    pub client_bound: bool,
    /// The open-file limit (`RLIMIT_NOFILE` soft limit), descriptors.
    pub rlimit_nofile: u64,
    /// permessage-deflate (`--deflate`), as in `echo`'s report (its connections are the
    /// cycles of the whole run); null when it was not offered.
    pub deflate: Option<DeflateReport>,
    /// TLS (`wss://`), as in `echo`'s report: the parts of `handshake_us` (cycles
    /// completed inside the window), what the first connection agreed, and the failed
    /// handshakes by reason (whole run); null without TLS.
    pub tls: Option<TlsReport>,
}

/// The `config` object of the `connect` report.
#[derive(Debug, Clone, Serialize)]
pub struct ConnectReportConfig {
    /// Target URL.
    pub url: String,
    /// `"websocket"` or `"socketio"`.
    pub protocol: &'static str,
    /// Concurrent workers, K.
    pub workers: usize,
    /// Size of each cycle's message, bytes.
    pub size_bytes: usize,
    /// Always `"binary"`.
    pub message_type: &'static str,
    /// Warm-up, seconds.
    pub warmup_s: f64,
    /// Measurement window requested, seconds.
    pub duration_s: f64,
    /// Limit of each step of a cycle, seconds.
    pub timeout_s: f64,
    /// Runtime threads (1 = current-thread runtime); with `cpus`, one per CPU listed.
    pub threads: usize,
    /// `--cpus`: the CPU of each runtime thread (worker `w` on thread `w % threads`);
    /// absent without `--cpus`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpus: Option<Vec<usize>>,
    /// Loopback source addresses the connections were spread over.
    pub source_addresses: usize,
}

/// Runs the connect scenario on its own runtime and returns the report.
pub fn run_connect(cfg: &ConnectConfig) -> Result<ConnectReport, RunError> {
    block_on(cfg.threads, &cfg.cpus, connect_scenario(cfg))?
}

/// What every worker shares.
struct Shared {
    addr: SocketAddr,
    url: WsUrl,
    timeout: Duration,
    source_addresses: usize,
    /// Message 0 of the run's size.
    message: Vec<u8>,
    /// Socket.IO: the text frame that announces the binary attachment.
    sio_header: Option<Vec<u8>>,
    /// Window start and end.
    start: Instant,
    end: Instant,
    /// Cycles started so far, over all workers (picks each cycle's source address).
    started: AtomicUsize,
    /// How the connections speak: protocol, permessage-deflate offered (what the cycles'
    /// connections did with it), TLS.
    speech: Speech,
}

/// What one worker hands back.
#[derive(Default)]
struct WorkerResult {
    cycles: u64,
    handshake: Hist,
    /// TLS: the parts of the handshakes.
    parts: Option<HandshakeParts>,
    cycle: Hist,
    errors: Errors,
    integrity: Integrity,
}

impl WorkerResult {
    /// Nothing counted yet; the handshake's parts recorded over TLS only.
    fn new(s: &Shared) -> Self {
        WorkerResult {
            parts: s.speech.tls.as_ref().map(|_| HandshakeParts::default()),
            ..WorkerResult::default()
        }
    }
}

/// Runs the connect scenario on the current runtime and returns the report.
pub async fn connect_scenario(cfg: &ConnectConfig) -> Result<ConnectReport, RunError> {
    let addr = resolve(&cfg.url).await?;
    let tls = client_tls(cfg.tls_ca.as_deref())?;
    crate::modes::run::announce_traffic(cfg.workers);
    let start = Instant::now() + cfg.warmup;
    let shared = Arc::new(Shared {
        addr,
        url: cfg.url.clone(),
        timeout: cfg.timeout,
        source_addresses: cfg.source_addresses,
        message: template(cfg.size),
        sio_header: (cfg.protocol == Protocol::Socketio).then(|| binary_event_header(ECHO_EVENT)),
        start,
        end: start + cfg.duration,
        started: AtomicUsize::new(0),
        speech: Speech {
            protocol: cfg.protocol,
            deflate: cfg.deflate.then(DeflateRun::new),
            tls,
        },
    });
    let pinned = PinnedThreads::start(&cfg.cpus).map_err(RunError::Cpus)?;
    let mut workers = JoinSet::new();
    for w in 0..cfg.workers.max(1) {
        pinned.spawn_into(&mut workers, w, worker(shared.clone()));
    }
    let timing = sample_window(shared.start, shared.end).await;
    let mut total = WorkerResult::new(&shared);
    while let Some(j) = workers.join_next().await {
        match j {
            Ok(r) => {
                total.cycles += r.cycles;
                total.handshake.merge(&r.handshake);
                if let (Some(all), Some(p)) = (total.parts.as_mut(), &r.parts) {
                    all.merge(p);
                }
                total.cycle.merge(&r.cycle);
                total.errors += r.errors;
                total.integrity += r.integrity;
            }
            Err(_) => total.errors.add(ErrorKind::Other),
        }
    }
    let window_s = timing.window.as_secs_f64();
    let cpu_percent = timing.cpu_percent();
    // Every cycle's connection has ended: its counts are in.
    let deflate = shared.speech.deflate.as_ref().map(|run| {
        total.integrity.corrupted += run.inflate_failures();
        run.report()
    });
    Ok(ConnectReport {
        tool: TOOL,
        version: VERSION,
        scenario: "connect",
        config: ConnectReportConfig {
            url: cfg.url.to_string(),
            protocol: cfg.protocol.name(),
            workers: cfg.workers,
            size_bytes: cfg.size,
            message_type: "binary",
            warmup_s: cfg.warmup.as_secs_f64(),
            duration_s: cfg.duration.as_secs_f64(),
            timeout_s: cfg.timeout.as_secs_f64(),
            threads: runtime_threads(cfg.threads, &cfg.cpus),
            cpus: reported(&cfg.cpus),
            source_addresses: cfg.source_addresses,
        },
        window_s,
        cycles: total.cycles,
        connections_per_s: rate(total.cycles, window_s),
        handshake_us: total.handshake.summary_us(),
        cycle_us: total.cycle.summary_us(),
        errors: total.errors,
        integrity: total.integrity,
        loadgen_cpu_s: timing.cpu_s,
        loadgen_cpu_percent: cpu_percent,
        client_bound: client_bound(cpu_percent, runtime_threads(cfg.threads, &cfg.cpus)),
        rlimit_nofile: nofile_limit(),
        deflate,
        tls: match (&shared.speech.tls, &total.parts) {
            (Some(tls), Some(parts)) => Some(tls.report(parts)),
            _ => None,
        },
    })
}

/// One worker: cycles until the window is over.
async fn worker(s: Arc<Shared>) -> WorkerResult {
    let mut res = WorkerResult::new(&s);
    loop {
        let begin = Instant::now();
        if begin >= s.end {
            return res;
        }
        let k = s.started.fetch_add(1, Ordering::Relaxed);
        let local = source_address(s.addr, k, s.source_addresses);
        let outcome = cycle(&s, local, &mut res.integrity).await;
        let done = Instant::now();
        match outcome {
            Ok(times) => {
                if done >= s.start && done < s.end {
                    res.cycles += 1;
                    res.handshake.record(times.handshake);
                    if let Some(p) = res.parts.as_mut() {
                        p.record(times.handshake, times.tcp_connect, times.tls_handshake);
                    }
                    res.cycle.record(done - begin);
                }
            }
            Err(kind) => {
                res.errors.add(kind);
                tokio::time::sleep(FAILURE_PAUSE).await;
            }
        }
    }
}

/// A cycle's handshake time and its parts.
struct HandshakeTimes {
    handshake: Duration,
    tcp_connect: Duration,
    tls_handshake: Option<Duration>,
}

/// One cycle; returns its handshake times.
async fn cycle(
    s: &Shared,
    local: Option<std::net::IpAddr>,
    integrity: &mut Integrity,
) -> Result<HandshakeTimes, ErrorKind> {
    let mut client = connect(s.addr, local, &s.url, s.timeout, &s.speech).await?;
    let handshake = HandshakeTimes {
        handshake: client.handshake,
        tcp_connect: client.tcp_connect,
        tls_handshake: client.tls_handshake,
    };
    send_message(s, &mut client).await?;
    let reply = tokio::time::timeout(s.timeout, client.transport.read(&mut client.ws)).await;
    let reply = match reply {
        Ok(Ok(Incoming::Close)) => Err(ErrorKind::ClosedEarly),
        Ok(Ok(m)) => Ok(m),
        Ok(Err(k)) => Err(k),
        Err(_) => Err(ErrorKind::Timeout),
    };
    let reply = reply.inspect_err(|_| integrity.lost += 1)?;
    if !is_message_zero(s, &reply) {
        integrity.corrupted += 1;
    }
    drop(reply);
    close(s, &mut client).await?;
    Ok(handshake)
}

/// Whether `m` is exactly message 0 as sent (binary frame or binary attachment).
fn is_message_zero(s: &Shared, m: &Incoming) -> bool {
    let (payload, kind) = m.payload(ECHO_EVENT);
    let ins = inspect(&payload, kind == Kind::Binary, &s.message);
    ins.intact && ins.seq == Some(0)
}

/// Sends message 0 (Socket.IO: the `echo` event with it as a binary attachment), through
/// the connection's outbox like every scenario's data messages (compressed when
/// permessage-deflate was agreed).
async fn send_message(s: &Shared, client: &mut Client) -> Result<(), ErrorKind> {
    let mut masks = MaskGen::new(s.started.load(Ordering::Relaxed) as u64);
    {
        let mut out = client.outbox.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(header) = &s.sio_header {
            out.data_frame(OpCode::Text, header, None, b"", masks.next_mask());
        }
        out.data_frame(OpCode::Binary, &s.message, None, b"", masks.next_mask());
    }
    client.ws.flush().await.map_err(|e| classify_ws_error(&e))
}

/// The client's close: a close frame, then wait (bounded by the timeout) for the
/// server's close frame or the end of the stream (data arriving instead also ends the
/// wait: fastwebsockets reports it as the connection closed).
async fn close(s: &Shared, client: &mut Client) -> Result<(), ErrorKind> {
    let Client { ws, transport, .. } = client;
    ws.write_frame(Frame::close(1000, b""))
        .await
        .map_err(|e| classify_ws_error(&e))?;
    ws.flush().await.map_err(|e| classify_ws_error(&e))?;
    let wait = async {
        loop {
            match transport.read(ws).await {
                Ok(Incoming::Close) | Err(ErrorKind::ClosedEarly) => return Ok(()),
                Ok(_) => {}
                Err(k) => return Err(k),
            }
        }
    };
    tokio::time::timeout(s.timeout, wait)
        .await
        .unwrap_or(Err(ErrorKind::Timeout))
}
