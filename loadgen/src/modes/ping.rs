//! The `ping` scenario: the round trip of a WebSocket **ping control frame** answered by
//! the server's **pong** (RFC 6455 §5.5.2, §5.5.3), the heartbeat that keeps connections
//! alive in many deployments.
//!
//! N connections, each keeping exactly **one** ping in flight: it sends a ping, waits for
//! its pong, records the round trip and sends the next. Never more than one: an endpoint
//! that receives several pings before it answers may answer only the most recent (RFC 6455
//! §5.5.3), so a window of pings would measure which ones the server chose to answer. Ping
//! `i` carries 16 bytes, `i` as 16 lowercase hex digits (the first 16 bytes of echo's
//! message `i`), in one masked ping frame, sent through the connection's outbox as echo's
//! messages are.
//!
//! Phases as in [`crate::modes::echo`] with one message in flight: duration mode (warm-up,
//! window, then the pong still owed is awaited) and count mode (`--count C` pings per
//! connection, all counted). A ping counts in `messages_sent` when it was sent inside the
//! window, a pong in `messages_received` when it was read inside the window, and the
//! round trip (from the ping's send to the read system call that brought its pong in) in
//! `latency_us` when its pong was read inside the window. Bytes are payload bytes (16 per
//! ping; a pong's own length).
//!
//! Checking (every frame the server sends on the connection):
//! - a pong whose payload is the outstanding ping's: its answer (the round trip);
//! - a pong whose payload is a ping already answered (16 hex digits of a lower number), or
//!   a pong while no ping is outstanding: `duplicated`; the outstanding ping still waits
//!   for its own pong;
//! - any other pong (another payload): `corrupted`, and taken as the outstanding ping's
//!   answer (no round trip recorded), so that a server whose pongs are all wrong gives
//!   one `corrupted` per ping rather than a timeout;
//! - a data message (text or binary; Socket.IO: an event): `corrupted` (the endpoint has
//!   no reason to send one; the outstanding ping still waits);
//! - no pong within `--timeout` of the ping's send: the ping is `lost` and the connection
//!   fails with `timeout`, as echo's;
//! - the server's own pings are answered with pongs carrying the same payload
//!   (fastwebsockets' auto-pong, see [`crate::protocol::ws::configure`]) and never counted.
//!
//! Socket.IO (`--protocol socketio`): the session is opened as for every scenario
//! (Engine.IO open packet, connection to the namespace `/`, see
//! [`crate::protocol::socketio::SioReader::open`]); the pings are then WebSocket ping
//! frames on that same connection. Engine.IO pings (`2`) from the server are answered with
//! `3` on the way (not counted); an Engine.IO close (`1`) or a namespace disconnection
//! (`41`) fails the connection as `closed_early`.

use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fastwebsockets::{OpCode, Payload, WebSocket};
use tokio::time::Sleep;

use crate::modes::echo::append_frame;
use crate::modes::run::{
    block_on, drive, ConnResult, Control, LoadConfig, RunError, Scenario, DRAIN, MEASURE,
};
use crate::protocol::payload::{parse_seq, write_seq, SEQ_LEN};
use crate::protocol::proto::Transport;
use crate::protocol::socketio::SioIncoming;
use crate::protocol::ws::{close_gracefully, read_message_or_pong, MaskGen, Partial};
use crate::report::{classify_ws_error, ErrorKind, Report};
use crate::transport::conn::{Conn, Outbox, ReadClock};
use crate::transport::handshake::Client;

/// Payload of every ping, bytes: the sequence number's 16 hex digits.
pub const PING_SIZE: usize = SEQ_LEN;

/// Runs the ping scenario on its own runtime and returns the report.
pub fn run_ping(cfg: &LoadConfig) -> Result<Report, RunError> {
    block_on(cfg.threads, &cfg.cpus, ping(cfg))?
}

/// Runs the ping scenario on the current runtime and returns the report. Of `cfg`, the
/// message settings do not apply: one ping in flight, of [`PING_SIZE`] bytes, whatever
/// `in_flight`, `size`, `text`, `json` and `rate` say (the report says so too).
pub async fn ping(cfg: &LoadConfig) -> Result<Report, RunError> {
    let cfg = LoadConfig {
        in_flight: 1,
        size: PING_SIZE,
        text: false,
        json: false,
        corpus: false,
        rate: None,
        ..cfg.clone()
    };
    let (count, timeout) = (cfg.count, cfg.timeout);
    drive(&cfg, Scenario::Ping, move |i, client, ctl| {
        PingConn::new(i, client, ctl, count, timeout).run()
    })
    .await
}

/// What a pong is, given the ping outstanding (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PongIs {
    /// The outstanding ping's answer.
    Answer,
    /// An answer to a ping already answered, or a pong while none is outstanding.
    Duplicate,
    /// Another payload: taken as the outstanding ping's answer, but corrupted.
    Corrupt,
}

/// Classifies a pong carrying `payload` while ping `outstanding` (if any) awaits its pong.
fn classify(payload: &[u8], outstanding: Option<u64>) -> PongIs {
    let Some(seq) = outstanding else {
        return PongIs::Duplicate;
    };
    let mut expected = [0u8; PING_SIZE];
    write_seq(&mut expected, seq);
    if payload == expected {
        PongIs::Answer
    } else if payload.len() == PING_SIZE && parse_seq(payload).is_some_and(|n| n < seq) {
        PongIs::Duplicate
    } else {
        PongIs::Corrupt
    }
}

/// What one read gave.
enum Read {
    /// A pong frame, with its payload.
    Pong(Payload<'static>),
    /// A data message (Socket.IO: an event).
    Data,
    /// The server closed the connection (Socket.IO: or the session).
    Close,
    /// No pong within the timeout.
    Timeout,
}

struct PingConn {
    ws: WebSocket<Conn>,
    transport: Transport,
    clock: Arc<ReadClock>,
    outbox: Outbox,
    ctl: Arc<Control>,
    count: Option<u64>,
    timeout: Duration,
    masks: MaskGen,
    /// This connection's index (its shard of the shared latency histogram).
    index: usize,
    /// The fragments of a data message read so far.
    partial: Partial,
    /// The ping awaiting its pong: sequence number and send instant.
    outstanding: Option<(u64, Instant)>,
    next_seq: u64,
    /// When the last ping was answered (the start, before any).
    last_progress: Instant,
    res: ConnResult,
}

impl PingConn {
    fn new(
        i: usize,
        client: Client,
        ctl: Arc<Control>,
        count: Option<u64>,
        timeout: Duration,
    ) -> Self {
        PingConn {
            ws: client.ws,
            transport: client.transport,
            clock: client.clock,
            outbox: client.outbox,
            ctl,
            count,
            timeout,
            masks: MaskGen::new(i as u64 + 1),
            index: i,
            partial: None,
            outstanding: None,
            next_seq: 0,
            last_progress: Instant::now(),
            res: ConnResult::default(),
        }
    }

    async fn run(mut self) -> ConnResult {
        let outcome = self.traffic().await;
        self.res.traffic_end = Some(Instant::now());
        self.res.integrity.lost += u64::from(self.outstanding.is_some());
        match outcome {
            Ok(()) => {
                let grace = self.timeout.min(Duration::from_secs(2));
                close_gracefully(&mut self.ws, grace).await;
            }
            Err(k) => self.res.error = Some(k),
        }
        self.res
    }

    /// Whether another ping is due: count mode, below the count; duration mode, the last
    /// answer came before the window's end.
    fn more(&self) -> bool {
        match self.count {
            Some(c) => self.next_seq < c,
            None => self.ctl.phase_at(self.last_progress) < DRAIN,
        }
    }

    async fn traffic(&mut self) -> Result<(), ErrorKind> {
        self.last_progress = Instant::now();
        let sleep = tokio::time::sleep(self.timeout);
        tokio::pin!(sleep);
        loop {
            if self.outstanding.is_none() {
                if !self.more() {
                    return Ok(());
                }
                self.send().await?;
            }
            match self.read(sleep.as_mut()).await? {
                Read::Pong(payload) => self.on_pong(&payload),
                Read::Data => self.res.integrity.corrupted += 1,
                Read::Close => return Err(ErrorKind::ClosedEarly),
                Read::Timeout => return Err(ErrorKind::Timeout),
            }
        }
    }

    /// Sends the next ping (best effort: what the socket does not take now goes with the
    /// next read).
    async fn send(&mut self) -> Result<(), ErrorKind> {
        let seq = self.next_seq;
        let mut payload = [0u8; PING_SIZE];
        write_seq(&mut payload, seq);
        {
            let mut out = self.outbox.lock().unwrap_or_else(|e| e.into_inner());
            let mask = self.masks.next_mask();
            append_frame(&mut out.queue, OpCode::Ping, &payload, None, b"", mask);
        }
        let t = Instant::now();
        self.outstanding = Some((seq, t));
        self.next_seq += 1;
        self.ws.flush().await.map_err(|e| classify_ws_error(&e))?;
        if self.ctl.phase_at(t) == MEASURE {
            self.res.sent += 1;
            self.res.bytes_sent += PING_SIZE as u64;
        }
        Ok(())
    }

    /// Reads until a pong or a data message comes, giving up when the outstanding ping
    /// got no pong within the timeout.
    async fn read(&mut self, mut sleep: Pin<&mut Sleep>) -> Result<Read, ErrorKind> {
        let sent = self.outstanding.map_or(self.last_progress, |(_, t)| t);
        let deadline = sent + self.timeout;
        let fut = read_pong(&mut self.ws, &mut self.transport, &mut self.partial);
        tokio::pin!(fut);
        loop {
            tokio::select! {
                biased;
                r = &mut fut => return r,
                _ = &mut sleep => {
                    if Instant::now() >= deadline {
                        return Ok(Read::Timeout);
                    }
                    sleep.as_mut().reset(deadline.into());
                }
            }
        }
    }

    /// Accounts for one pong carrying `payload`: counts, integrity, round trip.
    fn on_pong(&mut self, payload: &[u8]) {
        // Arrival time = the read system call that brought the pong in.
        let now = self.clock.last_read();
        let measuring = self.ctl.phase_at(now) == MEASURE;
        if measuring {
            self.res.received += 1;
            self.res.bytes_received += payload.len() as u64;
        }
        let is = classify(payload, self.outstanding.map(|(seq, _)| seq));
        match is {
            PongIs::Duplicate => {
                self.res.integrity.duplicated += 1;
                return;
            }
            PongIs::Corrupt => self.res.integrity.corrupted += 1,
            PongIs::Answer => {}
        }
        // The outstanding ping is answered (corrupted: without a round trip).
        self.last_progress = now;
        let answered = self.outstanding.take();
        if let (Some((_, sent)), PongIs::Answer) = (answered, is) {
            if measuring {
                self.ctl
                    .latency
                    .record(self.index, now.saturating_duration_since(sent));
            }
        }
    }
}

/// Reads until a pong, a data message (Socket.IO: an event) or the end of the connection
/// (Socket.IO: or of the session) comes; Engine.IO pings are answered on the way.
async fn read_pong(
    ws: &mut WebSocket<Conn>,
    transport: &mut Transport,
    partial: &mut Partial,
) -> Result<Read, ErrorKind> {
    loop {
        let m = read_message_or_pong(ws, partial)
            .await
            .map_err(|e| classify_ws_error(&e))?;
        match (m.opcode, &mut *transport) {
            (OpCode::Pong, _) => return Ok(Read::Pong(m.payload)),
            (OpCode::Close, _) => return Ok(Read::Close),
            (_, Transport::Ws) => return Ok(Read::Data),
            (_, Transport::Sio(reader)) => match reader.feed(m)? {
                Some(SioIncoming::Event(_)) => return Ok(Read::Data),
                Some(SioIncoming::Close) => return Ok(Read::Close),
                None => {}
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pongs_are_classified_against_the_outstanding_ping() {
        let pong = |seq: u64| {
            let mut p = [0u8; PING_SIZE];
            write_seq(&mut p, seq);
            p
        };
        assert_eq!(&pong(0x2a), b"000000000000002a");
        assert_eq!(classify(&pong(7), Some(7)), PongIs::Answer);
        assert_eq!(classify(&pong(6), Some(7)), PongIs::Duplicate);
        assert_eq!(classify(&pong(0), Some(7)), PongIs::Duplicate);
        assert_eq!(classify(&pong(7), None), PongIs::Duplicate);
        assert_eq!(classify(b"", None), PongIs::Duplicate);
        // Another payload: a later number, other digits, another length, nothing.
        assert_eq!(classify(&pong(8), Some(7)), PongIs::Corrupt);
        assert_eq!(classify(b"000000000000000A", Some(7)), PongIs::Corrupt);
        assert_eq!(classify(b"0000000000000007x", Some(7)), PongIs::Corrupt);
        assert_eq!(classify(b"00000000000007", Some(7)), PongIs::Corrupt);
        assert_eq!(classify(b"", Some(7)), PongIs::Corrupt);
    }
}
