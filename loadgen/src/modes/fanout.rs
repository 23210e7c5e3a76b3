//! `broadcast` and `market`: one publisher connection and N subscribers on the same
//! endpoint (PROTOCOL.md, "Endpoint /broadcast" and "Endpoint /market"); the load
//! generator is both, so one clock times every delivery.
//!
//! Phases:
//! 1. Connect the N subscribers and then the publisher (connection N); Socket.IO
//!    subscribers emit `subscribe` with their room.
//! 2. **Priming**: the publisher sends a message every [`PRIME_EVERY`] until every
//!    subscriber has received one (or `--timeout` passes), so that a server registering a
//!    connection shortly after its handshake loses nothing that counts. Then the line
//!    [`crate::modes::run::TRAFFIC_STARTS`] is printed.
//! 3. **Traffic**: duration mode: warm-up, then the window; count mode: exactly `--count`
//!    messages, all counted. The publisher either sends at a fixed rate (`--rate`: message
//!    `k` is due at `t0 + k / R`; its delivery latency is measured from that intended
//!    time, so a stalling server is charged for the messages queued behind the stall) or
//!    as fast as the server delivers (a window: message `k` leaves once message `k − W`
//!    has reached every subscriber, W = `--in-flight`; latency from the actual send).
//! 4. **Drain**: subscribers read until they have every message published, or until no
//!    message came for `--timeout`; what never came is `lost`. Meanwhile the publisher
//!    keeps sending what its socket had not taken yet (a server behind a fixed rate).
//!
//! A message counts when it was sent (or due) inside the window. Each subscriber checks
//! every message: broadcast messages have the `/echo` layout and are checked byte for byte
//! (Socket.IO: the `broadcast` event's one argument); market ticks are parsed and every
//! field compared. A sequence number below one already received counts as `out_of_order`
//! (or `duplicated` if it was already received), a gap never filled as `lost`.
//!
//! `market`: each client answers every tick with one order (its own `id` counter) and
//! expects the acknowledgements in order; an order's round trip runs from its send to the
//! read of its acknowledgement. Orders leave with the client's next read system call
//! (those answering one batch of ticks in one write).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fastwebsockets::{OpCode, WebSocket};
use serde::Deserialize;
use tokio::sync::Notify;
use tokio::task::JoinSet;

use crate::cpus::{reported, runtime_threads, PinnedThreads};
use crate::modes::echo::Framing;
use crate::modes::run::{
    add_deflate, announce_traffic, block_on, client_tls, connect_all, rate, resolve, sample_window,
    ConnectPhase, Connected, RunError, Speech, Timing,
};
use crate::protocol::deflate_wire::DeflateRun;
use crate::protocol::integrity::{GapSet, Integrity};
use crate::protocol::jsonmsg::split_event;
use crate::protocol::payload::{inspect, parse_seq, template, write_seq};
use crate::protocol::proto::{Incoming, Protocol, Transport};
use crate::protocol::socketio::{json_event, Kind};
use crate::protocol::ws::{close_gracefully, MaskGen};
use crate::report::{
    classify_ws_error, client_bound, ErrorKind, Errors, Fanout, Orders, Report, ReportConfig,
    Spread, TOOL, VERSION,
};
use crate::stats::{cpu_time_s, Hist, SharedHist};
use crate::timer::PreciseTimer;
use crate::transport::conn::{Conn, Outbox, Outgoing, ReadClock};
use crate::transport::handshake::Client;
use crate::transport::limits::nofile_limit;
use crate::transport::url::WsUrl;

/// Interval between priming messages.
pub const PRIME_EVERY: Duration = Duration::from_millis(10);

/// How long the publisher reads, at the end, until nothing more comes (messages a server
/// wrongly relayed back to it are already queued on its socket by then).
pub const ECHO_QUIET: Duration = Duration::from_millis(100);

/// Socket.IO event that joins a room (its one argument: `broadcast` or `market`).
pub const SUBSCRIBE_EVENT: &str = "subscribe";
/// Socket.IO event of a broadcast message.
pub const BROADCAST_EVENT: &str = "broadcast";
/// Socket.IO event of a market tick.
pub const TICK_EVENT: &str = "tick";
/// Socket.IO event of an order.
pub const ORDER_EVENT: &str = "order";
/// Socket.IO event of an order's acknowledgement.
pub const ACK_EVENT: &str = "ack";

/// The symbol and price bar every tick carries (PROTOCOL.md, "Endpoint /market").
const TICK_SYMBOL: &str = "BTC-USDT";
const TICK_BAR: [f64; 5] = [43251.17, 43270.5, 43240.02, 43262.88, 12.5];

/// A tick's text up to its sequence digits (the digits and [`TICK_SUFFIX`] follow).
pub const TICK_PREFIX: &str = r#"{"type": "tick", "seq": ""#;
/// A tick's text after its sequence digits.
pub const TICK_SUFFIX: &str = r#"", "symbol": "BTC-USDT", "open": 43251.17, "high": 43270.5, "low": 43240.02, "close": 43262.88, "volume": 12.5}"#;

/// The text of tick `seq`.
pub fn tick_text(seq: u64) -> String {
    format!("{TICK_PREFIX}{seq:016x}{TICK_SUFFIX}")
}

/// The text of order `id`, answering tick `tick`.
pub fn order_text(id: u64, tick: u64) -> String {
    format!(
        r#"{{"type": "order", "id": "{id:016x}", "tick": "{tick:016x}", "side": "buy", "price": 43262.88, "qty": 1}}"#
    )
}

/// Which fan-out workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// `/broadcast`: messages of the `/echo` layout relayed to every subscriber.
    Broadcast,
    /// `/market`: JSON ticks relayed to every client, orders acknowledged.
    Market,
}

impl Workload {
    fn name(self) -> &'static str {
        match self {
            Workload::Broadcast => "broadcast",
            Workload::Market => "market",
        }
    }
}

/// Settings of a `broadcast` or `market` run.
#[derive(Debug, Clone)]
pub struct FanoutConfig {
    /// `/broadcast` or `/market` (Socket.IO: the Socket.IO URL).
    pub url: WsUrl,
    /// Which workload.
    pub workload: Workload,
    /// Subscribers (market: clients), ≥ 1.
    pub subscribers: usize,
    /// Broadcast message size, bytes (≥ 16; market ticks have their own size).
    pub size: usize,
    /// Broadcast: text frames instead of binary.
    pub text: bool,
    /// Messages published per second; `None`: as fast as the window of `in_flight`
    /// messages allows.
    pub rate: Option<f64>,
    /// Messages published but not yet delivered to every subscriber, at most (no rate).
    pub in_flight: usize,
    /// Warm-up after priming (duration mode).
    pub warmup: Duration,
    /// Measurement window (duration mode).
    pub duration: Duration,
    /// Count mode: exactly this many counted messages.
    pub count: Option<u64>,
    /// Limit for connects, priming, and waiting on messages.
    pub timeout: Duration,
    /// Runtime worker threads (without `cpus`).
    pub threads: usize,
    /// CPUs of the runtime threads the connections are spread over (`--cpus`, see
    /// [`crate::cpus`]; subscriber `i` on thread `i % N`, the publisher as connection
    /// `subscribers`); empty: `threads` decides.
    pub cpus: Vec<usize>,
    /// Plain WebSocket or Socket.IO.
    pub protocol: Protocol,
    /// Loopback source addresses to spread connections over.
    pub source_addresses: usize,
    /// Offer permessage-deflate on every connection (`--deflate`), see
    /// [`crate::modes::run::LoadConfig::deflate`].
    pub deflate: bool,
    /// `wss://` URLs: the CA file the client trusts (`--tls-ca`), see
    /// [`crate::modes::run::LoadConfig::tls_ca`].
    pub tls_ca: Option<std::path::PathBuf>,
}

/// Runs a fan-out scenario on its own runtime and returns the report.
pub fn run_fanout(cfg: &FanoutConfig) -> Result<Report, RunError> {
    block_on(cfg.threads, &cfg.cpus, fanout(cfg))?
}

/// What the publisher and every subscriber share.
struct Hub {
    base: Instant,
    table: Mutex<Table>,
    /// Subscribers still reading.
    live: AtomicUsize,
    /// Subscribers that received their first message.
    primed: AtomicUsize,
    /// Wakes the publisher: a subscriber primed or left, a message reached everyone.
    progress: Notify,
    /// First counted sequence number (`u64::MAX` until known).
    lo: AtomicU64,
    /// One past the last counted sequence number (`u64::MAX` until known).
    hi: AtomicU64,
    /// Messages published in all (set when the publisher is done; `u64::MAX` before).
    published_all: AtomicU64,
    latency: SharedHist,
    last: Mutex<Hist>,
    round_trip: SharedHist,
}

/// Per published message: when it was sent (or due), ns after `base`; deliveries so far;
/// the largest delivery latency so far, ns.
#[derive(Default)]
struct Table {
    sent_ns: Vec<u64>,
    delivered: Vec<u32>,
    worst_ns: Vec<u64>,
    /// Whether the message has reached every live subscriber (recorded once: the number
    /// of live subscribers falls as they finish).
    complete: Vec<bool>,
    /// One past the highest sequence number delivered to every live subscriber.
    complete_to: u64,
}

impl Hub {
    fn counted(&self, seq: u64) -> bool {
        self.lo.load(Ordering::Acquire) <= seq && seq < self.hi.load(Ordering::Acquire)
    }

    /// Records message `seq` as sent (or due) at `at`.
    fn sent(&self, seq: u64, at: Instant) {
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        debug_assert_eq!(t.sent_ns.len() as u64, seq);
        t.sent_ns
            .push(at.saturating_duration_since(self.base).as_nanos() as u64);
        t.delivered.push(0);
        t.worst_ns.push(0);
        t.complete.push(false);
    }

    /// Records the delivery of `seq` at `now` to subscriber `i`; returns its latency, or
    /// `None` for a sequence number never published.
    fn delivered(&self, i: usize, seq: u64, now: Instant) -> Option<Duration> {
        let counted = self.counted(seq);
        let now_ns = now.saturating_duration_since(self.base).as_nanos() as u64;
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let k = usize::try_from(seq).ok().filter(|&k| k < t.sent_ns.len())?;
        let latency = Duration::from_nanos(now_ns.saturating_sub(t.sent_ns[k]));
        t.delivered[k] += 1;
        t.worst_ns[k] = t.worst_ns[k].max(latency.as_nanos() as u64);
        if !t.complete[k] && t.delivered[k] as usize >= self.live.load(Ordering::Acquire) {
            t.complete[k] = true;
            if counted {
                let worst = Duration::from_nanos(t.worst_ns[k]);
                self.last
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .record(worst);
            }
            t.complete_to = t.complete_to.max(seq + 1);
            drop(t);
            self.progress.notify_one();
        }
        if counted {
            self.latency.record(i, latency);
        }
        Some(latency)
    }

    fn complete_to(&self) -> u64 {
        self.table
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .complete_to
    }
}

/// Runs a fan-out scenario on the current runtime.
pub async fn fanout(cfg: &FanoutConfig) -> Result<Report, RunError> {
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
        mut sockets,
        errors,
        phase,
    } = connect_all(
        addr,
        &cfg.url,
        cfg.subscribers + 1,
        cfg.timeout,
        &speech,
        cfg.source_addresses,
        &pinned,
    )
    .await;
    // The publisher is the last connection established.
    let publisher = if sockets.len() >= 2 {
        sockets.pop()
    } else {
        None
    };
    let hub = Arc::new(Hub {
        base: Instant::now(),
        table: Mutex::new(Table::default()),
        live: AtomicUsize::new(if publisher.is_some() {
            sockets.len()
        } else {
            0
        }),
        primed: AtomicUsize::new(0),
        progress: Notify::new(),
        lo: AtomicU64::new(u64::MAX),
        hi: AtomicU64::new(u64::MAX),
        published_all: AtomicU64::new(u64::MAX),
        latency: SharedHist::new(runtime_threads(cfg.threads, &cfg.cpus)),
        last: Mutex::new(Hist::default()),
        round_trip: SharedHist::new(runtime_threads(cfg.threads, &cfg.cpus)),
    });
    let Some((publisher_index, publisher)) = publisher else {
        announce_traffic(0);
        drop(sockets);
        let mut report = build(cfg, Vec::new(), &hub, errors, phase, zero_timing(), 0);
        add_deflate(&mut report, deflate.as_deref());
        return Ok(report);
    };
    let mut running = JoinSet::new();
    for (i, client) in sockets {
        let subscriber = Subscriber::new(i, client, hub.clone(), cfg).run();
        pinned.spawn_into(&mut running, i, subscriber);
    }
    let count_begin = Instant::now();
    let cpu_begin = cpu_time_s();
    let publishing = publish(publisher, hub.clone(), cfg.clone());
    let published = pinned.spawn(publisher_index, publishing).await;
    let mut results = Vec::new();
    while let Some(j) = running.join_next().await {
        results.push(j);
    }
    let mut errors = errors;
    let none = (0, None, 0, (0, Duration::ZERO));
    let (published, timing, echoed, priming) = match published {
        Ok(Ok(p)) => (p.published, p.timing, p.echoed, p.priming),
        Ok(Err(k)) => {
            errors.add(k);
            none
        }
        Err(_) => {
            errors.add(ErrorKind::Other);
            none
        }
    };
    // Count mode: the window is the whole traffic phase, priming included.
    let timing = timing.unwrap_or_else(|| {
        let window = count_begin.elapsed();
        Timing {
            window,
            cpu_s: cpu_time_s() - cpu_begin,
            cpu_interval: window,
        }
    });
    let mut report = build(cfg, results, &hub, errors, phase, timing, published);
    add_deflate(&mut report, deflate.as_deref());
    if let Some(f) = report.fanout.as_mut() {
        f.publisher_received = echoed;
        f.priming_messages = priming.0;
        f.priming_s = priming.1.as_secs_f64();
    }
    Ok(report)
}

fn zero_timing() -> Timing {
    Timing {
        window: Duration::ZERO,
        cpu_s: 0.0,
        cpu_interval: Duration::ZERO,
    }
}

/// What the publisher hands back.
struct Published {
    /// Counted messages published.
    published: u64,
    /// Duration mode: the window and the CPU sampled over it.
    timing: Option<Timing>,
    /// Messages the server sent the publisher (the protocol sends it none).
    echoed: u64,
    /// Messages sent while priming, and how long it took.
    priming: (u64, Duration),
}

/// The publisher: priming, then the traffic phase (see the module documentation).
async fn publish(client: Client, hub: Arc<Hub>, cfg: FanoutConfig) -> Result<Published, ErrorKind> {
    let Client {
        mut ws,
        outbox,
        mut transport,
        ..
    } = client;
    let mut sender = Sender::new(&cfg, outbox);
    let subscribers = hub.live.load(Ordering::Acquire);
    // Priming.
    let priming_began = Instant::now();
    let prime_until = priming_began + cfg.timeout;
    // One message per PRIME_EVERY at most: a subscriber priming wakes this loop only to
    // check whether every one has, never to send early (with 1,000 subscribers, a message
    // per wake-up queued a million deliveries before the first counted one).
    let mut next_prime = Instant::now();
    while hub.primed.load(Ordering::Acquire) < hub.live.load(Ordering::Acquire)
        && Instant::now() < prime_until
    {
        let now = Instant::now();
        if now >= next_prime {
            sender.queue(&hub, now);
            ws.flush().await.map_err(|e| classify_ws_error(&e))?;
            next_prime = now + PRIME_EVERY;
        }
        let wait = next_prime.saturating_duration_since(Instant::now());
        let _ = tokio::time::timeout(wait, hub.progress.notified()).await;
    }
    let priming = (sender.next, priming_began.elapsed());
    announce_traffic(subscribers);
    let begin = Instant::now();
    let (start, end) = match cfg.count {
        Some(c) => {
            hub.lo.store(sender.next, Ordering::Release);
            hub.hi.store(sender.next + c, Ordering::Release);
            (begin, None)
        }
        None => {
            let start = begin + cfg.warmup;
            (start, Some(start + cfg.duration))
        }
    };
    let sampling = end.map(|end| tokio::spawn(sample_window(start, end)));
    let last = cfg.count.map(|c| sender.next + c);
    let mut window_lo = None;
    // Marks the window's edges in sequence numbers as messages become due.
    let mut due = |seq: u64, at: Instant| -> bool {
        if let Some(last) = last {
            return seq < last;
        }
        let end = end.expect("duration mode");
        if at >= end {
            return false;
        }
        if at >= start && window_lo.is_none() {
            window_lo = Some(seq);
            hub.lo.store(seq, Ordering::Release);
        }
        true
    };
    match cfg.rate {
        Some(r) => {
            let timer = PreciseTimer::new().map_err(|_| ErrorKind::Other)?;
            let interval = Duration::from_secs_f64(1.0 / r);
            let t0 = Instant::now();
            let mut k: u64 = 0;
            'sending: loop {
                let now = Instant::now();
                while t0 + interval.mul_f64(k as f64) <= now {
                    let at = t0 + interval.mul_f64(k as f64);
                    if !due(sender.next, at) {
                        break 'sending;
                    }
                    sender.queue(&hub, at);
                    k += 1;
                }
                ws.flush().await.map_err(|e| classify_ws_error(&e))?;
                timer
                    .set(t0 + interval.mul_f64(k as f64))
                    .map_err(|_| ErrorKind::Other)?;
                timer.wait().await.map_err(|_| ErrorKind::Other)?;
            }
        }
        None => {
            let w = cfg.in_flight.max(1) as u64;
            'window: loop {
                let notified = hub.progress.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                let ceiling = hub.complete_to() + w;
                let mut queued = false;
                while sender.next < ceiling {
                    let now = Instant::now();
                    if !due(sender.next, now) {
                        break 'window;
                    }
                    sender.queue(&hub, now);
                    queued = true;
                }
                if queued {
                    ws.flush().await.map_err(|e| classify_ws_error(&e))?;
                }
                if hub.live.load(Ordering::Acquire) == 0 {
                    break;
                }
                // Wake for a completed message, or to notice the window's end.
                let wake = end.map_or(cfg.timeout, |e| {
                    e.saturating_duration_since(Instant::now()).min(cfg.timeout)
                });
                let _ = tokio::time::timeout(wake.max(Duration::from_millis(1)), notified).await;
            }
        }
    }
    ws.flush().await.map_err(|e| classify_ws_error(&e))?;
    let hi = match cfg.count {
        Some(_) => hub.hi.load(Ordering::Acquire),
        None => sender.next,
    };
    if window_lo.is_none() && cfg.count.is_none() {
        // Nothing was due inside the window.
        hub.lo.store(hi, Ordering::Release);
    }
    hub.hi.store(hi, Ordering::Release);
    hub.published_all.store(sender.next, Ordering::Release);
    let lo = hub.lo.load(Ordering::Acquire).min(hi);
    let timing = match sampling {
        Some(h) => Some(h.await.map_err(|_| ErrorKind::Other)?),
        None => None,
    };
    // Stay connected until every subscriber is done, then close and read what the server
    // sent the publisher meanwhile: nothing, by the protocol (a relay back to the sender
    // would otherwise go unseen). A flush is best effort (conn.rs): what the socket has not
    // taken yet (a server behind the schedule) leaves with a later flush, so flush while
    // waiting; without it the subscribers counted those messages lost.
    let until = Instant::now() + cfg.timeout * 2;
    while hub.live.load(Ordering::Acquire) > 0 && Instant::now() < until {
        // An error is ignored, as the reads and the close below ignore theirs.
        let _ = ws.flush().await;
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Whatever arrived is queued on the socket by now: read until it stays quiet.
    let mut echoed = 0;
    while let Ok(Ok(m)) = tokio::time::timeout(ECHO_QUIET, transport.read(&mut ws)).await {
        match m {
            Incoming::Close => break,
            _ => echoed += 1,
        }
    }
    close_gracefully(&mut ws, cfg.timeout.min(Duration::from_secs(2))).await;
    Ok(Published {
        published: hi - lo,
        timing,
        echoed,
        priming,
    })
}

/// Encodes published messages into the publisher's outbox.
struct Sender {
    framing: Option<Framing>,
    template: Vec<u8>,
    protocol: Protocol,
    masks: MaskGen,
    outbox: Outbox,
    next: u64,
}

impl Sender {
    fn new(cfg: &FanoutConfig, outbox: Outbox) -> Self {
        Sender {
            framing: (cfg.workload == Workload::Broadcast).then(|| {
                Framing::new(
                    cfg.protocol,
                    cfg.text,
                    false,
                    false,
                    cfg.size,
                    BROADCAST_EVENT,
                )
            }),
            template: template(cfg.size.max(16)),
            protocol: cfg.protocol,
            masks: MaskGen::new(u64::MAX),
            outbox,
            next: 0,
        }
    }

    /// Queues the next message, sent (or due) at `at`.
    fn queue(&mut self, hub: &Hub, at: Instant) {
        let seq = self.next;
        hub.sent(seq, at);
        let mut out = self.outbox.lock().unwrap_or_else(|e| e.into_inner());
        let mut seq_hex = [0u8; 16];
        write_seq(&mut seq_hex, seq);
        match &self.framing {
            Some(f) => f.encode(&mut out, &seq_hex, &self.template, &mut self.masks),
            None => {
                let text = tick_text(seq);
                let payload = match self.protocol {
                    Protocol::Websocket => text.into_bytes(),
                    Protocol::Socketio => json_event(TICK_EVENT, &text),
                };
                append_text(&mut out, &payload, &mut self.masks);
            }
        }
        self.next += 1;
    }
}

/// Appends one masked text frame holding `payload` to `out` (compressed when the
/// connection agreed to permessage-deflate).
fn append_text(out: &mut Outgoing, payload: &[u8], masks: &mut MaskGen) {
    out.data_frame(OpCode::Text, payload, None, b"", masks.next_mask());
}

/// What a subscriber hands back.
#[derive(Debug, Default)]
struct SubResult {
    /// Counted messages received (each sequence number once).
    received: u64,
    bytes_received: u64,
    integrity: Integrity,
    error: Option<ErrorKind>,
    orders_sent: u64,
    acked: u64,
    mismatched: u64,
}

struct Subscriber {
    index: usize,
    ws: WebSocket<Conn>,
    transport: Transport,
    clock: Arc<ReadClock>,
    outbox: Outbox,
    hub: Arc<Hub>,
    workload: Workload,
    protocol: Protocol,
    kind: Kind,
    template: Vec<u8>,
    timeout: Duration,
    masks: MaskGen,
    /// One past the highest sequence number received.
    next: u64,
    gaps: GapSet,
    primed: bool,
    /// Market: orders in flight (id, sent at, counted).
    orders: VecDeque<(u64, Instant, bool)>,
    next_order: u64,
    res: SubResult,
}

impl Subscriber {
    fn new(index: usize, client: Client, hub: Arc<Hub>, cfg: &FanoutConfig) -> Self {
        Subscriber {
            index,
            ws: client.ws,
            transport: client.transport,
            clock: client.clock,
            outbox: client.outbox,
            hub,
            workload: cfg.workload,
            protocol: cfg.protocol,
            kind: if cfg.text { Kind::Text } else { Kind::Binary },
            template: template(cfg.size.max(16)),
            timeout: cfg.timeout,
            masks: MaskGen::new(index as u64 + 1),
            next: 0,
            gaps: GapSet::default(),
            primed: false,
            orders: VecDeque::new(),
            next_order: 0,
            res: SubResult::default(),
        }
    }

    async fn run(mut self) -> SubResult {
        let outcome = self.traffic().await;
        if let Err(k) = outcome {
            self.res.error = Some(k);
        } else {
            let grace = self.timeout.min(Duration::from_secs(2));
            close_gracefully(&mut self.ws, grace).await;
        }
        self.hub.live.fetch_sub(1, Ordering::AcqRel);
        self.hub.progress.notify_one();
        // Messages counted but never received.
        let (lo, hi) = (
            self.hub.lo.load(Ordering::Acquire),
            self.hub.hi.load(Ordering::Acquire),
        );
        if lo < hi && hi != u64::MAX {
            self.res.integrity.lost = (hi - lo).saturating_sub(self.res.received);
        }
        self.res
    }

    fn done(&self) -> bool {
        let all = self.hub.published_all.load(Ordering::Acquire);
        all != u64::MAX && self.next >= all && self.gaps.is_empty() && self.orders.is_empty()
    }

    async fn subscribe(&mut self) -> Result<(), ErrorKind> {
        if self.protocol != Protocol::Socketio {
            return Ok(());
        }
        let room = format!("\"{}\"", self.workload.name());
        let event = json_event(SUBSCRIBE_EVENT, &room);
        {
            let mut out = self.outbox.lock().unwrap_or_else(|e| e.into_inner());
            append_text(&mut out, &event, &mut self.masks);
        }
        self.ws.flush().await.map_err(|e| classify_ws_error(&e))
    }

    async fn traffic(&mut self) -> Result<(), ErrorKind> {
        self.subscribe().await?;
        let mut last_progress = Instant::now();
        let sleep = tokio::time::sleep(Duration::from_millis(20));
        tokio::pin!(sleep);
        loop {
            if self.done() {
                return Ok(());
            }
            let msg = {
                let fut = self.transport.read(&mut self.ws);
                tokio::pin!(fut);
                loop {
                    tokio::select! {
                        biased;
                        r = &mut fut => break Some(r),
                        _ = &mut sleep => {
                            let all = self.hub.published_all.load(Ordering::Acquire);
                            let finished = all != u64::MAX
                                && self.next >= all
                                && self.gaps.is_empty()
                                && self.orders.is_empty();
                            if finished {
                                break None;
                            }
                            if last_progress.elapsed() >= self.timeout {
                                // Published messages that never came are lost, not an
                                // error.
                                if all != u64::MAX {
                                    break None;
                                }
                                break Some(Err(ErrorKind::Timeout));
                            }
                            sleep.as_mut().reset((Instant::now() + Duration::from_millis(20)).into());
                        }
                    }
                }
            };
            let Some(msg) = msg else {
                return Ok(());
            };
            let msg = msg?;
            if let Incoming::Close = msg {
                return Err(ErrorKind::ClosedEarly);
            }
            last_progress = self.clock.last_read();
            self.on_message(&msg);
        }
    }

    fn on_message(&mut self, msg: &Incoming) {
        let now = self.clock.last_read();
        match self.workload {
            Workload::Broadcast => {
                let (payload, kind) = msg.payload(BROADCAST_EVENT);
                let ins = inspect(&payload, kind == self.kind, &self.template);
                if !ins.intact {
                    self.res.integrity.corrupted += 1;
                }
                if let Some(seq) = ins.seq {
                    self.on_seq(seq, now, payload.len());
                }
            }
            Workload::Market => match parse_market(msg) {
                Some(MarketIn::Tick(seq)) => {
                    self.on_seq(seq, now, 0);
                    self.send_order(seq, now);
                }
                Some(MarketIn::Ack(id)) => self.on_ack(id, now),
                None => self.res.integrity.corrupted += 1,
            },
        }
    }

    /// Sequence bookkeeping, latency and counts for message `seq` of `len` bytes.
    fn on_seq(&mut self, seq: u64, now: Instant, len: usize) {
        if !self.primed {
            self.primed = true;
            self.hub.primed.fetch_add(1, Ordering::AcqRel);
            self.hub.progress.notify_one();
            // Messages before the first one received are not owed (priming).
            self.next = seq;
        }
        let fresh = if seq >= self.next {
            self.gaps.add(self.next, seq);
            self.next = seq + 1;
            true
        } else if self.gaps.take(seq) {
            self.res.integrity.out_of_order += 1;
            true
        } else {
            self.res.integrity.duplicated += 1;
            false
        };
        if !fresh {
            return;
        }
        if self.hub.delivered(self.index, seq, now).is_none() {
            self.res.integrity.corrupted += 1;
            return;
        }
        if self.hub.counted(seq) {
            self.res.received += 1;
            self.res.bytes_received += len as u64;
        }
    }

    fn send_order(&mut self, tick: u64, now: Instant) {
        let id = self.next_order;
        self.next_order += 1;
        let counted = self.hub.counted(tick);
        let text = order_text(id, tick);
        let payload = match self.protocol {
            Protocol::Websocket => text.into_bytes(),
            Protocol::Socketio => json_event(ORDER_EVENT, &text),
        };
        let mut out = self.outbox.lock().unwrap_or_else(|e| e.into_inner());
        append_text(&mut out, &payload, &mut self.masks);
        drop(out);
        // Leaves with the next read system call (see the module documentation).
        self.orders.push_back((id, now, counted));
        if counted {
            self.res.orders_sent += 1;
        }
    }

    fn on_ack(&mut self, id: u64, now: Instant) {
        match self.orders.front() {
            Some(&(front, sent, counted)) if front == id => {
                self.orders.pop_front();
                if counted {
                    self.res.acked += 1;
                    self.hub
                        .round_trip
                        .record(self.index, now.saturating_duration_since(sent));
                }
            }
            _ => self.res.mismatched += 1,
        }
    }
}

/// Exactly 16 lowercase hexadecimal digits as a number.
fn parse_hex16(s: &[u8]) -> Option<u64> {
    if s.len() == 16 {
        parse_seq(s)
    } else {
        None
    }
}

/// A market message as received.
enum MarketIn {
    Tick(u64),
    Ack(u64),
}

#[derive(Deserialize)]
struct MarketMsg<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    seq: Option<&'a str>,
    id: Option<&'a str>,
    symbol: Option<&'a str>,
    open: Option<f64>,
    high: Option<f64>,
    low: Option<f64>,
    close: Option<f64>,
    volume: Option<f64>,
    ok: Option<bool>,
}

/// Parses a tick (every field as published) or an acknowledgement (`ok` true); anything
/// else is `None`.
fn parse_market(msg: &Incoming) -> Option<MarketIn> {
    let (event, json): (Option<&[u8]>, &[u8]) = match msg {
        Incoming::Ws(m) if m.opcode == OpCode::Text => (None, &m.payload[..]),
        Incoming::Sio(e) => {
            let (name, arg) = split_event(e.data())?;
            (Some(name), arg)
        }
        _ => return None,
    };
    let m: MarketMsg<'_> = serde_json::from_slice(json).ok()?;
    match m.kind {
        "tick" if event.is_none_or(|e| e == TICK_EVENT.as_bytes()) => {
            let bar = [m.open?, m.high?, m.low?, m.close?, m.volume?];
            (m.symbol? == TICK_SYMBOL && bar == TICK_BAR)
                .then(|| parse_hex16(m.seq?.as_bytes()))
                .flatten()
                .map(MarketIn::Tick)
        }
        "ack" if event.is_none_or(|e| e == ACK_EVENT.as_bytes()) && m.ok == Some(true) => {
            parse_hex16(m.id?.as_bytes()).map(MarketIn::Ack)
        }
        _ => None,
    }
}

fn build(
    cfg: &FanoutConfig,
    results: Vec<Result<SubResult, tokio::task::JoinError>>,
    hub: &Hub,
    mut errors: Errors,
    phase: ConnectPhase,
    timing: Timing,
    published: u64,
) -> Report {
    let cpu_percent = timing.cpu_percent();
    let window_s = timing.window.as_secs_f64();
    let mut integrity = Integrity::default();
    let (mut received, mut bytes) = (0, 0);
    let (mut per_sub, mut lost, mut ooo) = (Vec::new(), Vec::new(), Vec::new());
    let (mut orders_sent, mut acked, mut mismatched) = (0, 0, 0);
    for r in results {
        match r {
            Ok(r) => {
                received += r.received;
                bytes += r.bytes_received;
                per_sub.push(rate(r.received, window_s));
                lost.push(r.integrity.lost as f64);
                ooo.push(r.integrity.out_of_order as f64);
                integrity += r.integrity;
                orders_sent += r.orders_sent;
                acked += r.acked;
                mismatched += r.mismatched;
                if let Some(k) = r.error {
                    errors.add(k);
                }
            }
            Err(_) => errors.add(ErrorKind::Other),
        }
    }
    let subscribers = per_sub.len() as u64;
    let market = cfg.workload == Workload::Market;
    Report {
        tool: TOOL,
        version: VERSION,
        scenario: cfg.workload.name(),
        config: ReportConfig {
            url: cfg.url.to_string(),
            protocol: cfg.protocol.name(),
            connections: cfg.subscribers,
            in_flight: cfg.rate.is_none().then_some(cfg.in_flight),
            burst: None,
            size_bytes: if market { tick_text(0).len() } else { cfg.size },
            message_type: match (market, cfg.text) {
                (true, _) => "json",
                (false, true) => "text",
                (false, false) => "binary",
            },
            warmup_s: cfg.warmup.as_secs_f64(),
            duration_s: cfg.duration.as_secs_f64(),
            count: cfg.count,
            threads: runtime_threads(cfg.threads, &cfg.cpus),
            cpus: reported(&cfg.cpus),
            source_addresses: cfg.source_addresses,
            rate_per_s: cfg.rate,
        },
        window_s,
        messages_sent: published,
        messages_received: received,
        bytes_sent: published * cfg.size as u64,
        bytes_received: bytes,
        messages_per_s: rate(received, window_s),
        bytes_per_s: rate(bytes, window_s),
        per_connection_messages_per_s: Spread::of(per_sub),
        latency_us: Some(hub.latency.merged().summary_us()),
        handshake_us: phase.handshake_us,
        connect_s: phase.connect_s,
        connections_ok: phase.connections_ok,
        connections_per_s: phase.connections_per_s,
        errors,
        integrity,
        loadgen_cpu_s: timing.cpu_s,
        loadgen_cpu_percent: cpu_percent,
        client_bound: client_bound(cpu_percent, runtime_threads(cfg.threads, &cfg.cpus)),
        rlimit_nofile: nofile_limit(),
        fanout: Some(Fanout {
            subscribers,
            published,
            published_per_s: rate(published, window_s),
            last_latency_us: hub
                .last
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .summary_us(),
            per_subscriber_lost: Spread::of(lost),
            per_subscriber_out_of_order: Spread::of(ooo),
            publisher_received: 0,
            priming_messages: 0,
            priming_s: 0.0,
            orders: market.then(|| Orders {
                sent: orders_sent,
                acked,
                acked_per_s: rate(acked, window_s),
                round_trip_us: hub.round_trip.merged().summary_us(),
                mismatched,
            }),
        }),
        deflate: None,
        tls: phase.tls,
    }
}
