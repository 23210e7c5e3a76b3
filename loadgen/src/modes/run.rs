//! What `echo`, `stream` and `ping` share: configuration, runtime, connecting every
//! connection, the warm-up / window / drain phases, and turning per-connection results
//! into a report.
//! `connect` and `hold` reuse the connecting ([`connect`], [`connect_all`]) and the CPU
//! sampling.

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::cpus::{pin_current_thread, reported, runtime_threads, PinnedThreads};
use crate::protocol::corpus;
use crate::protocol::deflate_wire::DeflateRun;
use crate::protocol::integrity::Integrity;
use crate::protocol::jsonmsg::JSON_SIZE;
use crate::protocol::proto::{Protocol, Transport};
use crate::protocol::socketio::SioReader;
use crate::report::{client_bound, ErrorKind, Errors, Report, ReportConfig, Spread, TOOL, VERSION};
use crate::stats::{cpu_time_s, Hist, SharedHist, Summary};
use crate::transport::handshake::{self, Client, ConnectError};
use crate::transport::limits::nofile_limit;
use crate::transport::source::source_address;
use crate::transport::tls::{ClientTls, HandshakeParts, TlsReport};
use crate::transport::url::WsUrl;

/// Settings of an `echo`, `stream` or `ping` run (durations as [`Duration`], sizes in
/// bytes).
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// Target URL (`/echo`, `/json` or `/push` endpoint, or the Socket.IO URL).
    pub url: WsUrl,
    /// Number of concurrent connections (≥ 1).
    pub connections: usize,
    /// Echo only: messages kept in flight per connection, W (≥ 1); `ping` keeps 1.
    pub in_flight: usize,
    /// Message size in bytes (≥ 16; ignored with `json`, whose messages are 97 bytes;
    /// `ping`: 16, the pings' payload).
    pub size: usize,
    /// Send/expect text frames instead of binary frames.
    pub text: bool,
    /// Echo only: JSON messages to `/json` (Socket.IO: the `json` event) instead of
    /// echoed messages; see [`crate::protocol::jsonmsg`].
    pub json: bool,
    /// Echo only: the JSON corpus's messages (`--corpus`, text frames of
    /// [`corpus::SIZE`] bytes) instead of the filler; see [`crate::protocol::corpus`].
    pub corpus: bool,
    /// Warm-up before the window (duration mode).
    pub warmup: Duration,
    /// Length of the measurement window (duration mode).
    pub duration: Duration,
    /// Count mode: exact number of messages per connection; `None` = duration mode.
    pub count: Option<u64>,
    /// Limit for connect + upgrade, for waiting on a reply, and for the final drain.
    pub timeout: Duration,
    /// Runtime worker threads; 1 = current-thread runtime (without `cpus`).
    pub threads: usize,
    /// CPUs of the runtime threads the connections are spread over, one thread per entry
    /// (`--cpus`, see [`crate::cpus`]); empty: `threads` decides.
    pub cpus: Vec<usize>,
    /// Plain WebSocket messages or Socket.IO events.
    pub protocol: Protocol,
    /// Loopback source addresses connections are spread over (1 = the kernel's choice);
    /// see [`crate::transport::source`].
    pub source_addresses: usize,
    /// Echo only: a fixed offered load, messages per second over all connections, instead
    /// of a window of `in_flight` messages (see [`crate::modes::echo`], "Fixed offered
    /// load").
    pub rate: Option<f64>,
    /// Offer permessage-deflate on every connection as a browser does (`--deflate`), and
    /// use it where the server agrees; see [`crate::protocol::deflate_wire`].
    pub deflate: bool,
    /// `wss://` URLs: the PEM file of the certificate authorities the client trusts
    /// (`--tls-ca`), and nothing else; see [`crate::transport::tls`].
    pub tls_ca: Option<PathBuf>,
}

impl LoadConfig {
    /// A count-mode configuration with defaults for everything else (handy for tests).
    pub fn count_mode(url: WsUrl, connections: usize, count: u64, size: usize) -> Self {
        LoadConfig {
            url,
            connections,
            in_flight: 1,
            size,
            text: false,
            json: false,
            corpus: false,
            warmup: Duration::from_secs(1),
            duration: Duration::from_secs(3),
            count: Some(count),
            timeout: Duration::from_secs(10),
            threads: 1,
            cpus: Vec::new(),
            protocol: Protocol::Websocket,
            source_addresses: 1,
            rate: None,
            deflate: false,
            tls_ca: None,
        }
    }

    /// The size of every message sent, bytes: [`JSON_SIZE`] with `json`, [`corpus::SIZE`]
    /// with `corpus`, else `size`.
    pub fn size_bytes(&self) -> usize {
        if self.json {
            JSON_SIZE
        } else if self.corpus {
            corpus::SIZE
        } else {
            self.size
        }
    }

    /// Echo refill burst B = max(1, W / 4), messages.
    pub fn burst(&self) -> usize {
        (self.in_flight / 4).max(1)
    }

    fn report_config(&self, scenario: Scenario) -> ReportConfig {
        let window = scenario.round_trips() && self.rate.is_none();
        ReportConfig {
            url: self.url.to_string(),
            protocol: self.protocol.name(),
            connections: self.connections,
            in_flight: window.then_some(self.in_flight),
            burst: window.then(|| self.burst()),
            size_bytes: self.size_bytes(),
            message_type: match (scenario, self.json, self.text) {
                (Scenario::Ping, _, _) => "ping",
                (_, true, _) => "json",
                _ if self.corpus => "corpus",
                (_, false, true) => "text",
                (_, false, false) => "binary",
            },
            warmup_s: self.warmup.as_secs_f64(),
            duration_s: self.duration.as_secs_f64(),
            count: self.count,
            threads: runtime_threads(self.threads, &self.cpus),
            cpus: reported(&self.cpus),
            source_addresses: self.source_addresses,
            rate_per_s: self.rate,
        }
    }
}

/// The scenarios [`drive`] runs: what their reports are named and hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scenario {
    /// `echo`: round trips of echoed messages.
    Echo,
    /// `stream`: messages the server pushes (no round trips).
    Stream,
    /// `ping`: round trips of ping control frames answered by pongs.
    Ping,
}

impl Scenario {
    /// The report's `scenario`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Scenario::Echo => "echo",
            Scenario::Stream => "stream",
            Scenario::Ping => "ping",
        }
    }

    /// Whether round trips are measured (the report's `latency_us`, and its
    /// `config.in_flight` and `config.burst` without a fixed rate).
    fn round_trips(self) -> bool {
        self != Scenario::Stream
    }
}

/// A run that could not happen at all (no report).
#[derive(Debug)]
pub enum RunError {
    /// The URL's host did not resolve.
    Resolve(String),
    /// The async runtime could not be built.
    Runtime(std::io::Error),
    /// A runtime thread could not be started on its CPU (`--cpus`).
    Cpus(std::io::Error),
    /// `autobahn-client`: the fuzzing server did not answer `/getCaseCount` or
    /// `/updateReports` (the URL and request, then why).
    FuzzingServer(String),
    /// `--corpus`: the compiled-in JSON corpus is malformed.
    Corpus(corpus::CorpusError),
    /// `--tls-ca`: the file cannot be read or holds no usable certificate.
    Tls(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Resolve(m) => write!(f, "cannot resolve host: {m}"),
            RunError::Runtime(e) => write!(f, "cannot start the async runtime: {e}"),
            RunError::Cpus(e) => write!(f, "cannot start the runtime threads of --cpus: {e}"),
            RunError::FuzzingServer(m) => write!(f, "the fuzzing server failed: {m}"),
            RunError::Corpus(e) => write!(f, "{e}"),
            RunError::Tls(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for RunError {}

/// Runs `fut` on the caller's thread, on a current-thread runtime (`threads == 1`) or a
/// multi-thread runtime with `threads` workers. With `cpus` (`--cpus`, see
/// [`crate::cpus`]) `threads` does not apply: a current-thread runtime drives the run
/// (whose connections go to the pinned threads of a list of two or more CPUs), and with
/// one CPU the caller's thread is pinned to it first.
pub fn block_on<F: Future>(threads: usize, cpus: &[usize], fut: F) -> Result<F::Output, RunError> {
    if let [cpu] = cpus {
        pin_current_thread(*cpu).map_err(RunError::Cpus)?;
    }
    let rt = if threads <= 1 || !cpus.is_empty() {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build()
    }
    .map_err(RunError::Runtime)?;
    Ok(rt.block_on(fut))
}

/// Phase: traffic flows but nothing is counted.
pub(crate) const WARMUP: u8 = 0;
/// Phase: inside the measurement window (count mode stays here throughout).
pub(crate) const MEASURE: u8 = 1;
/// Phase: window over; stop sending, collect outstanding replies.
pub(crate) const DRAIN: u8 = 2;

/// What every connection task of a run shares: the measurement window, fixed before
/// traffic starts, and the histogram of round trips read inside it.
///
/// Connections derive the phase from the timestamps they take anyway (one per reply),
/// so the window is exactly `[start, end)` however late a timer task gets scheduled.
pub(crate) struct Control {
    start: Instant,
    end: Option<Instant>,
    /// Round-trip latency of the replies read inside the window (echo, ping).
    pub(crate) latency: SharedHist,
}

impl Control {
    /// Phase at instant `now`.
    #[inline]
    pub(crate) fn phase_at(&self, now: Instant) -> u8 {
        if now < self.start {
            WARMUP
        } else if self.end.is_some_and(|e| now >= e) {
            DRAIN
        } else {
            MEASURE
        }
    }

    /// End of the window (`None` in count mode).
    pub(crate) fn window_end(&self) -> Option<Instant> {
        self.end
    }
}

/// What one connection task hands back.
#[derive(Debug, Default)]
pub(crate) struct ConnResult {
    pub sent: u64,
    pub received: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub integrity: Integrity,
    pub error: Option<ErrorKind>,
    /// When the connection's traffic ended (before its close handshake).
    pub traffic_end: Option<Instant>,
}

fn connect_error_kind(e: &ConnectError) -> ErrorKind {
    match e {
        ConnectError::Refused => ErrorKind::ConnectionRefused,
        ConnectError::Timeout => ErrorKind::Timeout,
        ConnectError::Status(_)
        | ConnectError::BadResponse(_)
        | ConnectError::Closed
        | ConnectError::Deflate(_)
        | ConnectError::Tls(_) => ErrorKind::HandshakeFailed,
        ConnectError::Io(io) if io.kind() == std::io::ErrorKind::ConnectionReset => {
            ErrorKind::HandshakeFailed
        }
        ConnectError::Io(_) => ErrorKind::Other,
    }
}

/// How connections speak: plain WebSocket or Socket.IO, whether they offer
/// permessage-deflate (counting what it gives into the run's [`DeflateRun`]), and over
/// TLS or not (with the run's [`ClientTls`], which counts what the handshakes agreed and
/// why they failed).
#[derive(Clone)]
pub(crate) struct Speech {
    /// Plain WebSocket messages or Socket.IO events.
    pub protocol: Protocol,
    /// Offer permessage-deflate (`--deflate`).
    pub deflate: Option<Arc<DeflateRun>>,
    /// TLS (`wss://`).
    pub tls: Option<Arc<ClientTls>>,
}

/// The TLS configuration of a run whose client trusts the CA file `ca` (`None`: no
/// TLS).
///
/// # Errors
/// [`RunError::Tls`]: the file cannot be read or holds no usable certificate.
pub(crate) fn client_tls(ca: Option<&Path>) -> Result<Option<Arc<ClientTls>>, RunError> {
    ca.map(ClientTls::from_ca_file)
        .transpose()
        .map_err(RunError::Tls)
}

/// Connects one connection: TCP connect (from `local`, if given), TLS handshake
/// (`wss://`) and WebSocket upgrade (offering permessage-deflate with `speech.deflate`),
/// then for Socket.IO the session opening (Engine.IO open packet, namespace connection),
/// all within `timeout`; `handshake` covers the whole of it.
pub(crate) async fn connect(
    addr: SocketAddr,
    local: Option<std::net::IpAddr>,
    url: &crate::transport::url::WsUrl,
    timeout: Duration,
    speech: &Speech,
) -> Result<Client, ErrorKind> {
    let start = Instant::now();
    let deflate = speech.deflate.as_ref();
    let tls = speech.tls.as_deref();
    let mut client = handshake::connect_from(addr, local, url, timeout, deflate, tls)
        .await
        .map_err(|e| connect_error_kind(&e))?;
    if speech.protocol == Protocol::Socketio {
        let left = timeout.saturating_sub(start.elapsed());
        let open = SioReader::open(&mut client.ws, &client.outbox);
        let reader = tokio::time::timeout(left, open)
            .await
            .map_err(|_| ErrorKind::Timeout)??;
        client.transport = Transport::Sio(reader);
        client.handshake = start.elapsed();
    }
    Ok(client)
}

/// At most this many connection attempts (connect + upgrade) run at once, so that
/// `handshake_us` measures a handshake rather than queueing behind a connect storm.
pub const CONNECT_CONCURRENCY: usize = 64;

/// Resolves the URL's host to one address (IPv4 preferred).
pub(crate) async fn resolve(url: &WsUrl) -> Result<SocketAddr, RunError> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((url.host.as_str(), url.port))
        .await
        .map_err(|e| RunError::Resolve(format!("{}: {e}", url.host)))?
        .collect();
    addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or(addrs.first())
        .copied()
        .ok_or_else(|| RunError::Resolve(format!("{}: no address", url.host)))
}

/// Drives a whole run: connects `cfg.connections` connections concurrently, starts
/// `conn_fn` on each once all are connected, runs the phases (warm-up, window, drain in
/// duration mode; one measured phase in count mode), and builds the report. With
/// `cfg.cpus`, connection `i` is connected and run on pinned thread `i % N`
/// ([`crate::cpus`]).
pub(crate) async fn drive<F, Fut>(
    cfg: &LoadConfig,
    scenario: Scenario,
    conn_fn: F,
) -> Result<Report, RunError>
where
    F: Fn(usize, Client, Arc<Control>) -> Fut,
    Fut: Future<Output = ConnResult> + Send + 'static,
{
    let addr = resolve(&cfg.url).await?;
    let tls = client_tls(cfg.tls_ca.as_deref())?;
    let pinned = PinnedThreads::start(&cfg.cpus).map_err(RunError::Cpus)?;
    let deflate = cfg.deflate.then(DeflateRun::new);
    let speech = Speech {
        protocol: cfg.protocol,
        deflate: deflate.clone(),
        tls,
    };
    let Connected {
        sockets,
        errors,
        phase,
    } = connect_all(
        addr,
        &cfg.url,
        cfg.connections,
        cfg.timeout,
        &speech,
        cfg.source_addresses,
        &pinned,
    )
    .await;
    announce_traffic(sockets.len());

    let count_mode = cfg.count.is_some() || sockets.is_empty();
    let begin = Instant::now();
    let latency = SharedHist::new(runtime_threads(cfg.threads, &cfg.cpus));
    let ctl = Arc::new(if count_mode {
        Control {
            start: begin,
            end: None,
            latency,
        }
    } else {
        let start = begin + cfg.warmup;
        Control {
            start,
            end: Some(start + cfg.duration),
            latency,
        }
    });
    // The connect phase is over: CPU is sampled from here on (count mode) or over the
    // window that starts after the warm-up (duration mode), never over the connects.
    let cpu_begin = cpu_time_s();
    let mut running = JoinSet::new();
    for (i, client) in sockets {
        pinned.spawn_into(&mut running, i, conn_fn(i, client, ctl.clone()));
    }
    let mut sampled = None;
    if let (false, Some(end)) = (count_mode, ctl.window_end()) {
        sampled = Some(sample_window(ctl.start, end).await);
    }
    let mut results = Vec::new();
    while let Some(j) = running.join_next().await {
        results.push(j);
    }
    // Count mode: everything counts; the window is the whole traffic phase.
    let timing = sampled.unwrap_or_else(|| {
        // The close handshakes are not part of the window.
        let end = results
            .iter()
            .filter_map(|r| r.as_ref().ok().and_then(|r| r.traffic_end))
            .max()
            .unwrap_or_else(Instant::now);
        let window = end.saturating_duration_since(begin);
        Timing {
            window,
            cpu_s: cpu_time_s() - cpu_begin,
            cpu_interval: window,
        }
    });
    let mut report = build(cfg, scenario, results, &ctl, errors, phase, timing);
    add_deflate(&mut report, deflate.as_deref());
    Ok(report)
}

/// Adds what the run's connections did with permessage-deflate to `report`: its
/// `deflate` part, and one corrupted message per connection failed by a message that
/// could not be inflated. Call once every connection has ended (each adds its counts
/// when it is dropped).
pub(crate) fn add_deflate(report: &mut Report, deflate: Option<&DeflateRun>) {
    if let Some(run) = deflate {
        report.integrity.corrupted += run.inflate_failures();
        report.deflate = Some(run.report());
    }
}

/// The line printed on stderr when the traffic phase starts (every connection attempt has
/// ended): a harness that samples the server over the measurement window starts its clock
/// here, so that the window opens `--warmup` seconds later, after the connect phase.
pub const TRAFFIC_STARTS: &str = "wsbench-loadgen: traffic starts";

/// Prints [`TRAFFIC_STARTS`] and the number of connections that carry traffic on stderr
/// (unbuffered), e.g. `wsbench-loadgen: traffic starts (1000 connections)`.
pub(crate) fn announce_traffic(connections: usize) {
    eprintln!("{TRAFFIC_STARTS} ({connections} connections)");
}

/// What connecting many connections gave.
pub(crate) struct Connected {
    /// The connections established, with their index, in index order.
    pub sockets: Vec<(usize, Client)>,
    /// Failed attempts by cause.
    pub errors: Errors,
    /// The phase in figures: its wall time (from the first attempt until every attempt
    /// has ended), connections established and per second, handshake times (and their
    /// parts over TLS).
    pub phase: ConnectPhase,
}

/// Connects `n` connections to `addr` (at most [`CONNECT_CONCURRENCY`] attempts at once,
/// connection `i` from source address `i` of `source_addresses`, see
/// [`crate::transport::source`], and on its thread of `pinned`), each bounded by `timeout`,
/// and waits until every attempt ended.
///
/// A server that stops accepting (e.g. a connection cap) would otherwise make the phase
/// last `n / CONNECT_CONCURRENCY × timeout`: once an attempt fails when no attempt has
/// succeeded for `timeout`, the attempts not yet ended are abandoned and count as
/// `timeout` errors, so the phase ends about `timeout` after the last success. Each
/// attempt judges that itself as it ends ([`Stall`]), so no attempt is started once the
/// stall is found.
pub(crate) async fn connect_all(
    addr: SocketAddr,
    url: &WsUrl,
    n: usize,
    timeout: Duration,
    speech: &Speech,
    source_addresses: usize,
    pinned: &PinnedThreads,
) -> Connected {
    let start = Instant::now();
    let mut errors = Errors::default();
    let mut handshake = Hist::default();
    let mut parts = speech.tls.as_ref().map(|_| HandshakeParts::default());
    let mut connecting = JoinSet::new();
    let permits = Arc::new(Semaphore::new(CONNECT_CONCURRENCY));
    let stall = Arc::new(Stall::new(start, timeout));
    for i in 0..n {
        let url = url.clone();
        let permits = permits.clone();
        let stall = stall.clone();
        let local = source_address(addr, i, source_addresses);
        let speech = speech.clone();
        pinned.spawn_into(&mut connecting, i, async move {
            let _permit = permits.acquire_owned().await;
            // Abandoned unstarted, counted as the loop counts those it aborts.
            if stall.found() {
                return (i, Err(ErrorKind::Timeout));
            }
            let attempt = connect(addr, local, &url, timeout, &speech).await;
            // Before the permit is released: the attempt it lets start sees this one.
            stall.ended(attempt.is_ok());
            (i, attempt)
        });
    }
    let mut sockets = Vec::with_capacity(n);
    let mut ended = 0;
    while let Some(j) = connecting.join_next().await {
        ended += 1;
        match j {
            Ok((i, Ok(client))) => {
                handshake.record(client.handshake);
                if let Some(p) = parts.as_mut() {
                    p.record(client.handshake, client.tcp_connect, client.tls_handshake);
                }
                sockets.push((i, client));
                continue;
            }
            Ok((_, Err(k))) => errors.add(k),
            Err(_) => errors.add(ErrorKind::Other),
        }
        if stall.found() {
            connecting.abort_all();
            errors.timeout += (n - ended) as u64;
            break;
        }
    }
    sockets.sort_by_key(|(i, _)| *i);
    let mut phase = ConnectPhase::new(start.elapsed(), sockets.len(), &handshake);
    if let (Some(tls), Some(parts)) = (&speech.tls, &parts) {
        phase.tls = Some(tls.report(parts));
    }
    Connected {
        phase,
        sockets,
        errors,
    }
}

/// Whether the server of a connect phase has stopped accepting ([`connect_all`]), as its
/// attempts find when they end.
///
/// The times are taken in the attempts, not when the loop collecting them gets to them
/// (which may be later): an attempt started after the last success that times out then
/// surely finds the stall, and does so before its permit lets another attempt start.
struct Stall {
    /// The start of the phase, which counts as a success.
    start: Instant,
    /// The attempts' time limit: this long without a success is a stall.
    timeout: Duration,
    /// When the last successful attempt ended, nanoseconds after `start`.
    last_success_ns: AtomicU64,
    /// An attempt failed when none had succeeded for `timeout`.
    found: AtomicBool,
}

impl Stall {
    fn new(start: Instant, timeout: Duration) -> Self {
        Stall {
            start,
            timeout,
            last_success_ns: AtomicU64::new(0),
            found: AtomicBool::new(false),
        }
    }

    /// Records the end of an attempt that succeeded (`ok`) or failed.
    fn ended(&self, ok: bool) {
        let now = u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        if ok {
            self.last_success_ns.fetch_max(now, Ordering::SeqCst);
        } else {
            let last = self.last_success_ns.load(Ordering::SeqCst);
            if Duration::from_nanos(now.saturating_sub(last)) >= self.timeout {
                self.found.store(true, Ordering::SeqCst);
            }
        }
    }

    /// Whether a failed attempt found the stall.
    fn found(&self) -> bool {
        self.found.load(Ordering::SeqCst)
    }
}

/// The connect phase in figures, as reported.
#[derive(Debug, Clone)]
pub(crate) struct ConnectPhase {
    /// Wall time of the connect phase, seconds.
    pub connect_s: f64,
    /// Connections established.
    pub connections_ok: u64,
    /// `connections_ok / connect_s`, connections per second (0 when `connect_s` is 0).
    pub connections_per_s: f64,
    /// Handshake time of the connections established, µs.
    pub handshake_us: Summary,
    /// TLS: what the handshakes agreed, their parts' times and why any failed (the
    /// report's `tls`); `None` without TLS.
    pub tls: Option<TlsReport>,
}

impl ConnectPhase {
    /// The figures of a connect phase that took `connect_time`, established `ok`
    /// connections and recorded their handshake times in `handshake`.
    pub(crate) fn new(connect_time: Duration, ok: usize, handshake: &Hist) -> Self {
        let connect_s = connect_time.as_secs_f64();
        ConnectPhase {
            connect_s,
            connections_ok: ok as u64,
            connections_per_s: rate(ok as u64, connect_s),
            handshake_us: handshake.summary_us(),
            tls: None,
        }
    }
}

/// `count / seconds`, 0 when `seconds` is not positive.
pub(crate) fn rate(count: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
    }
}

/// The measured window and the CPU time sampled around it.
pub(crate) struct Timing {
    /// Window reported as `window_s`.
    pub window: Duration,
    /// CPU seconds consumed during `cpu_interval`.
    pub cpu_s: f64,
    /// Interval over which `cpu_s` was sampled.
    pub cpu_interval: Duration,
}

impl Timing {
    /// `cpu_s` over the sampled interval × 100 (100 = one core busy).
    pub(crate) fn cpu_percent(&self) -> f64 {
        if self.cpu_interval > Duration::ZERO {
            self.cpu_s / self.cpu_interval.as_secs_f64() * 100.0
        } else {
            0.0
        }
    }
}

/// Samples this process's CPU time at the window's edges `start` and `end` (sleeping
/// until each). The task may wake a little late, so the percentage uses the interval
/// actually sampled; the window reported is exactly `end - start`.
pub(crate) async fn sample_window(start: Instant, end: Instant) -> Timing {
    tokio::time::sleep_until(start.into()).await;
    let (t0, cpu0) = (Instant::now(), cpu_time_s());
    tokio::time::sleep_until(end.into()).await;
    let (t1, cpu1) = (Instant::now(), cpu_time_s());
    Timing {
        window: end.saturating_duration_since(start),
        cpu_s: cpu1 - cpu0,
        cpu_interval: t1 - t0,
    }
}

fn build(
    cfg: &LoadConfig,
    scenario: Scenario,
    results: Vec<Result<ConnResult, tokio::task::JoinError>>,
    ctl: &Control,
    mut errors: Errors,
    phase: ConnectPhase,
    timing: Timing,
) -> Report {
    let cpu_percent = timing.cpu_percent();
    let Timing { window, cpu_s, .. } = timing;
    let window_s = window.as_secs_f64();
    let mut per_connection = Vec::with_capacity(results.len());
    let mut integrity = Integrity::default();
    let (mut sent, mut received, mut bytes_sent, mut bytes_received) = (0, 0, 0, 0);
    for r in results {
        match r {
            Ok(r) => {
                sent += r.sent;
                received += r.received;
                bytes_sent += r.bytes_sent;
                bytes_received += r.bytes_received;
                per_connection.push(rate(r.received, window_s));
                integrity += r.integrity;
                if let Some(k) = r.error {
                    errors.add(k);
                }
            }
            Err(_) => errors.add(ErrorKind::Other),
        }
    }
    let per_s = |v: u64| rate(v, window_s);
    Report {
        tool: TOOL,
        version: VERSION,
        scenario: scenario.name(),
        config: cfg.report_config(scenario),
        window_s,
        messages_sent: sent,
        messages_received: received,
        bytes_sent,
        bytes_received,
        messages_per_s: per_s(received),
        bytes_per_s: per_s(bytes_received),
        per_connection_messages_per_s: (window_s > 0.0)
            .then(|| Spread::of(per_connection))
            .flatten(),
        latency_us: scenario
            .round_trips()
            .then(|| ctl.latency.merged().summary_us()),
        handshake_us: phase.handshake_us,
        connect_s: phase.connect_s,
        connections_ok: phase.connections_ok,
        connections_per_s: phase.connections_per_s,
        errors,
        integrity,
        loadgen_cpu_s: cpu_s,
        loadgen_cpu_percent: cpu_percent,
        client_bound: client_bound(cpu_percent, runtime_threads(cfg.threads, &cfg.cpus)),
        rlimit_nofile: nofile_limit(),
        fanout: None,
        deflate: None,
        tls: phase.tls,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::cpus::current_affinity;
    use crate::serve::BackgroundServer;

    #[test]
    fn connections_go_round_robin_to_the_pinned_threads() {
        let server = BackgroundServer::reference().unwrap();
        let mine = current_affinity().unwrap();
        let (a, b) = (mine[0], *mine.get(1).unwrap_or(&mine[0]));
        let mut cfg = LoadConfig::count_mode(server.url("/echo"), 10, 1, 16);
        cfg.cpus = vec![a, b, a, b];
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        let report = block_on(1, &[], async {
            drive(&cfg, Scenario::Echo, move |i, client, _ctl| {
                let record = record.clone();
                async move {
                    let thread = std::thread::current().name().map(String::from);
                    record.lock().unwrap().push((i, thread));
                    drop(client);
                    ConnResult::default()
                }
            })
            .await
        })
        .unwrap()
        .unwrap();
        assert_eq!(report.connections_ok, 10);
        assert_eq!(report.config.threads, 4);
        let mut seen = seen.lock().unwrap().clone();
        seen.sort();
        let expected: Vec<_> = (0..10)
            .map(|i| {
                (
                    i,
                    Some(format!("wsbench-t{}-cpu{}", i % 4, cfg.cpus[i % 4])),
                )
            })
            .collect();
        assert_eq!(seen, expected, "connection i on thread i % 4");
    }
}
