//! The `echo` scenario: N connections, each keeping W messages in flight.
//!
//! Refill policy (part of the benchmark definition): a connection first sends W messages
//! in one write; afterwards, whenever the number in flight falls to W − B or below, it
//! sends B more in one write, B = max(1, W / 4).
//!
//! Reply matching (replies must come back in order): the reply's sequence number is
//! looked up among the messages in flight, oldest first.
//! - the oldest in flight: fine;
//! - a later one in flight: fine, and the older ones it overtook are set aside; if one
//!   of those arrives later it counts as `out_of_order`, if never as `lost`;
//! - sent and already answered: `duplicated`; never sent: `corrupted`;
//! - frame type, length or filler wrong: `corrupted` (the sequence number, if readable,
//!   is still matched; if unreadable the reply is taken as the oldest one's).
//!
//! Socket.IO (`--protocol socketio`): a message is the event `echo` with one argument,
//! `42["echo","<message>"]` (text) or `451-["echo",{"_placeholder":true,"num":0}]`
//! followed by the message in one binary frame (binary). Replies are the same event;
//! their argument goes through exactly the same checks ("frame type" = string vs binary
//! attachment; another event or argument count is `corrupted`).
//!
//! Fixed offered load (`--rate R`, wrk2's method): instead of a window, connection `i` of
//! N sends message `k` at its **intended** time `t0 + (i / N + k) × N / R` (the
//! connections' schedules interleaved evenly), whatever the replies do, and a round trip
//! is measured from that intended time, so a server that stalls is charged for every
//! message that queued behind the stall (no coordinated omission). Messages due together
//! leave in one write. A message counts in the window when it was due inside it; after
//! the window the connection stops sending and waits for every reply still owed (up to
//! `--timeout` without one). The read in progress is never cancelled to send: the
//! messages due are queued in the connection's outbox, which its next read system call
//! writes out first.
//!
//! JSON (`--json`, endpoint `/json`, see [`crate::protocol::jsonmsg`]): message `i` is the
//! 97-byte price object with `seq` = `i` in 16 hex digits, in a text frame (Socket.IO: the
//! event `json` with that object as its argument). A reply must be a text frame (Socket.IO:
//! a `json` event) holding exactly `{"seq": "<16 hex digits>", "ok": true}`; its `seq` is
//! matched like an echoed message's sequence number (so a reordered, duplicated or
//! missing answer counts as above), and anything else about it (not that object, `ok`
//! not `true`, another frame type or event) counts as `corrupted`.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fastwebsockets::{OpCode, WebSocket};
use tokio::time::Sleep;

use crate::modes::run::{
    block_on, drive, ConnResult, Control, LoadConfig, RunError, Scenario, DRAIN, MEASURE,
};
use crate::protocol::corpus::{self, Corpus};
use crate::protocol::jsonmsg::{
    inspect_reply, json_body_template, json_prefix, split_event, JSON_EVENT,
};
use crate::protocol::payload::{inspect, template, write_seq, Inspection, SEQ_LEN};
use crate::protocol::premask::{PremaskedBodies, PREMASK_KEYS, PREMASK_MIN_SIZE};
use crate::protocol::proto::{Incoming, Protocol, Transport};
use crate::protocol::socketio::{
    binary_event_header, string_event_prefix, Kind, ECHO_EVENT, STRING_EVENT_SUFFIX,
};
use crate::protocol::ws::{
    close_gracefully, encode_client_frame, encode_client_frame_premasked, MaskGen,
};
use crate::report::{classify_ws_error, ErrorKind, Report};
use crate::timer::PreciseTimer;
use crate::transport::conn::{Conn, Outbox, Outgoing, ReadClock};
use crate::transport::handshake::Client;
use crate::transport::outqueue::OutQueue;

/// Runs the echo scenario on its own runtime and returns the report.
pub fn run_echo(cfg: &LoadConfig) -> Result<Report, RunError> {
    block_on(cfg.threads, &cfg.cpus, echo(cfg))?
}

/// Runs the echo scenario on the current runtime and returns the report.
pub async fn echo(cfg: &LoadConfig) -> Result<Report, RunError> {
    let corpus = match cfg.corpus {
        true => Some(Arc::new(Corpus::load().map_err(RunError::Corpus)?)),
        false => None,
    };
    let params = Params {
        w: cfg.in_flight.max(1),
        b: cfg.burst(),
        size: cfg.size_bytes(),
        kind: if cfg.text { Kind::Text } else { Kind::Binary },
        json: cfg.json,
        corpus: corpus.clone(),
        framing: Arc::new(Framing::new(
            cfg.protocol,
            cfg.text,
            cfg.json,
            corpus.is_some(),
            cfg.size_bytes(),
            ECHO_EVENT,
        )),
        count: cfg.count,
        timeout: cfg.timeout,
        interval: cfg
            .rate
            .map(|r| Duration::from_secs_f64(cfg.connections.max(1) as f64 / r)),
        connections: cfg.connections.max(1),
    };
    drive(cfg, Scenario::Echo, move |i, client, ctl| {
        EchoConn::new(i, client, ctl, params.clone()).run()
    })
    .await
}

#[derive(Debug, Clone)]
struct Params {
    w: usize,
    b: usize,
    size: usize,
    /// Expected kind of every reply (not JSON).
    kind: Kind,
    /// JSON messages and answers instead of echoed messages.
    json: bool,
    /// The JSON corpus's messages instead of the filler.
    corpus: Option<Arc<Corpus>>,
    framing: Arc<Framing>,
    count: Option<u64>,
    timeout: Duration,
    /// Fixed offered load: the interval between one connection's intended sends.
    interval: Option<Duration>,
    /// Connections of the run (spreads the connections' schedules).
    connections: usize,
}

/// How one message is framed on the wire, and, for large messages, its body masked in
/// advance (shared by every connection of the run).
#[derive(Debug)]
pub(crate) struct Framing {
    kind: FrameKind,
    premasked: Option<PremaskedBodies>,
}

#[derive(Debug)]
enum FrameKind {
    /// One WebSocket frame of this type.
    Ws(OpCode),
    /// One text frame `prefix` + message + `suffix`: a Socket.IO string argument, or a
    /// JSON message (plain WebSocket or a Socket.IO JSON argument).
    TextWrapped {
        prefix: Vec<u8>,
        suffix: &'static [u8],
    },
    /// Socket.IO binary argument: the text frame `header`, then the message in a binary
    /// frame.
    SioBinary { header: Vec<u8> },
}

impl Framing {
    /// The framing of messages of `size` bytes (Socket.IO: arguments of the event `event`).
    pub(crate) fn new(
        protocol: Protocol,
        text: bool,
        json: bool,
        corpus: bool,
        size: usize,
        event: &str,
    ) -> Self {
        // A corpus message's constant start (`{"seq":"`, Socket.IO: JSON-escaped in the
        // string argument) is framing; its template starts at the sequence digits.
        let kind = match (protocol, text) {
            (Protocol::Websocket, _) if corpus => FrameKind::TextWrapped {
                prefix: CORPUS_START.to_vec(),
                suffix: b"",
            },
            (Protocol::Socketio, _) if corpus => FrameKind::TextWrapped {
                prefix: [&string_event_prefix(event)[..], CORPUS_START_ESCAPED].concat(),
                suffix: STRING_EVENT_SUFFIX,
            },
            (Protocol::Websocket, _) if json => FrameKind::TextWrapped {
                prefix: json_prefix().to_vec(),
                suffix: b"",
            },
            (Protocol::Socketio, _) if json => FrameKind::TextWrapped {
                prefix: json_event_prefix(),
                suffix: b"]",
            },
            (Protocol::Websocket, true) => FrameKind::Ws(OpCode::Text),
            (Protocol::Websocket, false) => FrameKind::Ws(OpCode::Binary),
            (Protocol::Socketio, true) => FrameKind::TextWrapped {
                prefix: string_event_prefix(event),
                suffix: STRING_EVENT_SUFFIX,
            },
            (Protocol::Socketio, false) => FrameKind::SioBinary {
                header: binary_event_header(event),
            },
        };
        let premasked = (size >= PREMASK_MIN_SIZE && !json && !corpus).then(|| {
            let offset = kind.message_prefix().len() + SEQ_LEN;
            let body = &template(size)[SEQ_LEN..];
            PremaskedBodies::new(body, offset, PREMASK_KEYS, &mut MaskGen::new(0))
        });
        Framing { kind, premasked }
    }

    /// Appends message `seq` (its 16 hex digits in `seq_hex`), masked, to `out`
    /// (compressed when the connection agreed to permessage-deflate: the pre-masked
    /// bodies then do not apply).
    pub(crate) fn encode(
        &self,
        out: &mut Outgoing,
        seq_hex: &[u8; 16],
        template: &[u8],
        masks: &mut MaskGen,
    ) {
        if let FrameKind::SioBinary { header } = &self.kind {
            out.data_frame(OpCode::Text, header, None, b"", masks.next_mask());
        }
        let (op, prefix, suffix) = match &self.kind {
            FrameKind::Ws(op) => (*op, &b""[..], &b""[..]),
            FrameKind::TextWrapped { prefix, suffix } => (OpCode::Text, &prefix[..], *suffix),
            FrameKind::SioBinary { .. } => (OpCode::Binary, &b""[..], &b""[..]),
        };
        match &self.premasked {
            Some(bodies) if out.deflate.is_none() => {
                let body = bodies.pick(masks);
                encode_client_frame_premasked(&mut out.queue, op, prefix, seq_hex, body, suffix);
            }
            _ => {
                let msg = Some((seq_hex, template));
                out.data_frame(op, prefix, msg, suffix, masks.next_mask());
            }
        }
    }
}

impl FrameKind {
    /// Bytes of the frame payload before the message.
    fn message_prefix(&self) -> &[u8] {
        match self {
            FrameKind::TextWrapped { prefix, .. } => prefix,
            FrameKind::Ws(_) | FrameKind::SioBinary { .. } => b"",
        }
    }
}

/// The start of every corpus message, before its sequence digits.
const CORPUS_START: &[u8] = b"{\"seq\":\"";
/// [`CORPUS_START`] JSON-escaped, as it starts a Socket.IO string argument.
const CORPUS_START_ESCAPED: &[u8] = b"{\\\"seq\\\":\\\"";

/// The templates of every message (sequence 0, from the sequence digits on): one for the
/// filler or the JSON workload; the corpus's lines for `--corpus` (Socket.IO: escaped).
fn templates(p: &Params, protocol_sio: bool) -> Vec<Vec<u8>> {
    match &p.corpus {
        Some(corpus) => (0..corpus.len() as u64)
            .map(|seq| {
                let mut line = Vec::with_capacity(2 * corpus::SIZE);
                if protocol_sio {
                    corpus.write_escaped(seq, &mut line);
                    line.split_off(Corpus::escaped_seq_offset())
                } else {
                    corpus.write_message(seq, &mut line);
                    line.split_off(corpus::SEQ_OFFSET)
                }
            })
            .collect(),
        None if p.json => vec![json_body_template()],
        None => vec![template(p.size)],
    }
}

/// The start of a Socket.IO `json` event up to the message's sequence digits:
/// `42["json",{"seq": "` (the rest of the JSON message follows, then `]`).
fn json_event_prefix() -> Vec<u8> {
    let mut v = string_event_prefix(JSON_EVENT);
    // `42["json","` -> `42["json",` + the JSON message's own prefix.
    v.pop();
    v.extend_from_slice(json_prefix());
    v
}

/// [`encode_client_frame`] into the owned run at the end of `out`.
pub(crate) fn append_frame(
    out: &mut OutQueue,
    opcode: OpCode,
    prefix: &[u8],
    message: Option<(&[u8; 16], &[u8])>,
    suffix: &[u8],
    mask: [u8; 4],
) {
    let tail = out.tail();
    let before = tail.len();
    encode_client_frame(tail, opcode, prefix, message, suffix, mask);
    let n = tail.len() - before;
    out.commit(n);
}

struct EchoConn {
    ws: WebSocket<Conn>,
    transport: Transport,
    clock: Arc<ReadClock>,
    outbox: Outbox,
    ctl: Arc<Control>,
    p: Params,
    /// Message templates, message `seq` taking entry `seq mod len` ([`templates`]).
    templates: Vec<Vec<u8>>,
    masks: MaskGen,
    /// This connection's index (its shard of the shared latency histogram).
    index: usize,
    /// Sequence numbers in flight with their send instants; always the contiguous range
    /// `front.0 .. next_seq`.
    inflight: VecDeque<(u64, Instant)>,
    /// Overtaken messages still unanswered.
    skipped: Vec<(u64, Instant)>,
    next_seq: u64,
    last_progress: Instant,
    res: ConnResult,
}

enum Read {
    Msg(Incoming),
    Timeout,
}

impl EchoConn {
    fn new(i: usize, client: Client, ctl: Arc<Control>, p: Params) -> Self {
        let templates = templates(&p, matches!(client.transport, Transport::Sio(_)));
        EchoConn {
            ws: client.ws,
            transport: client.transport,
            clock: client.clock,
            outbox: client.outbox,
            ctl,
            templates,
            masks: MaskGen::new(i as u64 + 1),
            index: i,
            inflight: VecDeque::with_capacity(p.w),
            skipped: Vec::new(),
            next_seq: 0,
            last_progress: Instant::now(),
            res: ConnResult::default(),
            p,
        }
    }

    /// How many of `want` messages may be sent now.
    fn quota(&self, want: usize) -> usize {
        match self.p.count {
            Some(c) => want.min(c.saturating_sub(self.next_seq) as usize),
            None if self.ctl.phase_at(self.last_progress) < DRAIN => want,
            None => 0,
        }
    }

    async fn run(mut self) -> ConnResult {
        let outcome = match self.p.interval {
            Some(interval) => self.traffic_at_rate(interval).await,
            None => self.traffic().await,
        };
        self.res.traffic_end = Some(Instant::now());
        self.res.integrity.lost += (self.inflight.len() + self.skipped.len()) as u64;
        match outcome {
            Ok(()) => {
                let grace = self.p.timeout.min(Duration::from_secs(2));
                close_gracefully(&mut self.ws, grace).await;
            }
            Err(k) => self.res.error = Some(k),
        }
        self.res
    }

    async fn traffic(&mut self) -> Result<(), ErrorKind> {
        self.last_progress = Instant::now();
        let first = self.quota(self.p.w);
        self.send(first).await?;
        let sleep = tokio::time::sleep(self.p.timeout);
        tokio::pin!(sleep);
        loop {
            if self.inflight.is_empty() && self.skipped.is_empty() && self.quota(1) == 0 {
                return Ok(());
            }
            let msg = match self.read(sleep.as_mut()).await? {
                Read::Msg(Incoming::Close) => return Err(ErrorKind::ClosedEarly),
                Read::Msg(m) => m,
                Read::Timeout if self.inflight.is_empty() => return Ok(()),
                Read::Timeout => return Err(ErrorKind::Timeout),
            };
            let (len, ins) = self.check(&msg);
            self.on_reply(len, ins);
            drop(msg);
            if self.inflight.len() + self.p.b <= self.p.w {
                let k = self.quota(self.p.b);
                self.send(k).await?;
            }
        }
    }

    /// Fixed offered load: sends on the schedule of the module documentation while
    /// reading replies.
    async fn traffic_at_rate(&mut self, interval: Duration) -> Result<(), ErrorKind> {
        let spread = interval.mul_f64(self.index as f64 / self.p.connections as f64);
        let schedule = Schedule {
            t0: Instant::now() + spread,
            interval,
        };
        self.last_progress = Instant::now();
        let sleep = tokio::time::sleep(self.p.timeout);
        tokio::pin!(sleep);
        let due = PreciseTimer::new().map_err(|_| ErrorKind::Other)?;
        due.set(schedule.t0).map_err(|_| ErrorKind::Other)?;
        loop {
            let more = self.more_at_rate(&schedule, self.next_seq);
            if !more && self.inflight.is_empty() && self.skipped.is_empty() {
                return Ok(());
            }
            let read = {
                let fut = self.transport.read(&mut self.ws);
                tokio::pin!(fut);
                loop {
                    tokio::select! {
                        biased;
                        r = &mut fut => break r.map(Read::Msg),
                        _ = due.wait() => {
                            let now = Instant::now();
                            let mut out = self.outbox.lock().unwrap_or_else(|e| e.into_inner());
                            let mut seq_hex = [0u8; 16];
                            while schedule.at(self.next_seq) <= now
                                && self.p.count.is_none_or(|c| self.next_seq < c)
                                && (self.p.count.is_some()
                                    || self.ctl.phase_at(schedule.at(self.next_seq)) < DRAIN)
                            {
                                let seq = self.next_seq;
                                let intended = schedule.at(seq);
                                write_seq(&mut seq_hex, seq);
                                let template =
                                    &self.templates[(seq % self.templates.len() as u64) as usize];
                                self.p.framing.encode(&mut out, &seq_hex, template, &mut self.masks);
                                self.inflight.push_back((seq, intended));
                                self.next_seq += 1;
                                if self.ctl.phase_at(intended) == MEASURE {
                                    self.res.sent += 1;
                                    self.res.bytes_sent += self.p.size as u64;
                                }
                            }
                            drop(out);
                            if self.inflight.len() == 1 {
                                // Nothing was owed before: the reply deadline starts now.
                                self.last_progress = now;
                            }
                            let next = schedule.at(self.next_seq);
                            let more = match self.p.count {
                                Some(c) => self.next_seq < c,
                                None => self.ctl.phase_at(next) < DRAIN,
                            };
                            // Past the last message, wake only for the reply deadline.
                            let wake = if more { next } else { now + Duration::from_secs(86_400) };
                            due.set(wake).map_err(|_| ErrorKind::Other)?;
                        }
                        _ = &mut sleep => {
                            let deadline = self.last_progress + self.p.timeout;
                            if Instant::now() >= deadline {
                                break Ok(Read::Timeout);
                            }
                            sleep.as_mut().reset(deadline.into());
                        }
                    }
                }
            };
            let msg = match read? {
                Read::Msg(Incoming::Close) => return Err(ErrorKind::ClosedEarly),
                Read::Msg(m) => m,
                Read::Timeout if self.inflight.is_empty() && self.skipped.is_empty() => continue,
                Read::Timeout => return Err(ErrorKind::Timeout),
            };
            let (len, ins) = self.check(&msg);
            self.on_reply(len, ins);
        }
    }

    /// Fixed offered load: whether message `seq` is still to be sent (count mode: below
    /// the count; duration mode: due before the window ends).
    fn more_at_rate(&self, schedule: &Schedule, seq: u64) -> bool {
        match self.p.count {
            Some(c) => seq < c,
            None => self.ctl.phase_at(schedule.at(seq)) < DRAIN,
        }
    }

    /// Reads one message, giving up when no reply arrived for `timeout`.
    async fn read(&mut self, mut sleep: Pin<&mut Sleep>) -> Result<Read, ErrorKind> {
        let deadline = self.last_progress + self.p.timeout;
        let fut = self.transport.read(&mut self.ws);
        tokio::pin!(fut);
        loop {
            tokio::select! {
                biased;
                r = &mut fut => return r.map(Read::Msg),
                _ = &mut sleep => {
                    if Instant::now() >= deadline {
                        return Ok(Read::Timeout);
                    }
                    sleep.as_mut().reset(deadline.into());
                }
            }
        }
    }

    /// Sends `k` messages in one write (best effort: the rest goes with the next read).
    async fn send(&mut self, k: usize) -> Result<(), ErrorKind> {
        if k == 0 {
            return Ok(());
        }
        {
            let mut out = self.outbox.lock().unwrap_or_else(|e| e.into_inner());
            let mut seq_hex = [0u8; 16];
            for _ in 0..k {
                let seq = self.next_seq;
                write_seq(&mut seq_hex, seq);
                let template = &self.templates[(seq % self.templates.len() as u64) as usize];
                self.p
                    .framing
                    .encode(&mut out, &seq_hex, template, &mut self.masks);
                self.inflight.push_back((seq, self.last_progress));
                self.next_seq += 1;
            }
        }
        // The burst leaves now: stamp its send instant.
        let t = Instant::now();
        for e in self.inflight.iter_mut().rev().take(k) {
            e.1 = t;
        }
        self.ws.flush().await.map_err(|e| classify_ws_error(&e))?;
        if self.ctl.phase_at(t) == MEASURE {
            self.res.sent += k as u64;
            self.res.bytes_sent += (k * self.p.size) as u64;
        }
        Ok(())
    }

    /// Checks one reply's content: its payload size in bytes (Socket.IO: the argument's)
    /// and what it says.
    fn check(&self, msg: &Incoming) -> (usize, Inspection) {
        if let Some(corpus) = &self.p.corpus {
            // Socket.IO hands the string argument over unescaped: the message itself.
            let (payload, kind) = msg.payload(ECHO_EVENT);
            let ins = corpus.inspect(&payload, kind == Kind::Text, false);
            return (payload.len(), ins);
        }
        if !self.p.json {
            let (payload, kind) = msg.payload(ECHO_EVENT);
            let ins = inspect(&payload, kind == self.p.kind, &self.templates[0]);
            return (payload.len(), ins);
        }
        match msg {
            Incoming::Ws(m) => (
                m.payload.len(),
                inspect_reply(&m.payload, m.opcode == OpCode::Text),
            ),
            Incoming::Sio(e) => match split_event(e.data()) {
                Some((name, arg)) => (arg.len(), inspect_reply(arg, name == JSON_EVENT.as_bytes())),
                None => (0, Inspection::default()),
            },
            Incoming::Close => (0, Inspection::default()),
        }
    }

    /// Accounts for one reply of `len` payload bytes whose content is `ins`: counts,
    /// integrity, latency.
    fn on_reply(&mut self, len: usize, ins: Inspection) {
        // Arrival time = the read system call that brought the reply in.
        let now = self.clock.last_read();
        self.last_progress = now;
        let measuring = self.ctl.phase_at(now) == MEASURE;
        if measuring {
            self.res.received += 1;
            self.res.bytes_received += len as u64;
        }
        if !ins.intact {
            self.res.integrity.corrupted += 1;
        }
        let Some(n) = ins.seq else {
            // Unreadable sequence number: take it as the reply to the oldest message.
            self.inflight.pop_front();
            return;
        };
        let sent_at = if let Some(&(front, _)) = self
            .inflight
            .front()
            .filter(|_| n < self.next_seq)
            .filter(|&&(front, _)| n >= front)
        {
            for _ in front..n {
                let e = self
                    .inflight
                    .pop_front()
                    .expect("contiguous in-flight range");
                self.skipped.push(e);
            }
            self.inflight.pop_front().map(|e| e.1)
        } else if let Some(i) = self.skipped.iter().position(|e| e.0 == n) {
            self.res.integrity.out_of_order += 1;
            Some(self.skipped.swap_remove(i).1)
        } else {
            if n < self.next_seq {
                self.res.integrity.duplicated += 1;
            } else if ins.intact {
                self.res.integrity.corrupted += 1;
            }
            None
        };
        // Fixed offered load: a round trip counts when its message was due in the window.
        let counted = match (sent_at, self.p.interval) {
            (Some(t), Some(_)) => self.ctl.phase_at(t) == MEASURE,
            _ => measuring,
        };
        if let (Some(t), true) = (sent_at, counted) {
            self.ctl
                .latency
                .record(self.index, now.saturating_duration_since(t));
        }
    }
}

/// One connection's send schedule at a fixed offered load.
struct Schedule {
    /// Intended send time of message 0.
    t0: Instant,
    /// Between two of this connection's messages.
    interval: Duration,
}

impl Schedule {
    /// Intended send time of message `seq`.
    fn at(&self, seq: u64) -> Instant {
        self.t0 + self.interval.mul_f64(seq as f64)
    }
}
