//! The `stream` scenario: each connection asks `/push` for messages and checks them.
//!
//! Count mode asks for exactly C messages, expects exactly C and then closes cleanly.
//! Duration mode asks for 2^31 messages, counts those received inside the window and
//! closes (close frame, then drop) when the window ends.
//!
//! Integrity: a gap in sequence numbers counts the missing ones as `lost` (count mode:
//! also any not received by the end) unless they arrive later, then they are
//! `out_of_order`; a number already received is `duplicated`; wrong frame type, length
//! or filler is `corrupted`, and so is a sequence number that is unreadable or beyond
//! the requested count.
//!
//! Wake-ups (duration mode): once the warm-up ends, each connection sets its socket's
//! receive low-water mark to the bytes its server sent in [`LOW_WATER_DELAY`] at the
//! warm-up's rate (at most [`LOW_WATER_MAX`]), so the load generator wakes once per batch
//! of messages rather than once per segment. Messages are then seen up to about that
//! delay after they arrive; the window's start and end shift alike, so the count of a
//! steady stream is unchanged. Count mode never sets it.
//!
//! Socket.IO (`--protocol socketio`): the request is the event `push` with the request
//! object as its argument, `42["push",{"count":C,"size":S,"binary":B}]`; each message
//! is a `push` event whose one argument is the message (a string, or one binary
//! attachment), checked exactly like a plain message.

use std::sync::Arc;
use std::time::{Duration, Instant};

use fastwebsockets::{Frame, OpCode};

use crate::modes::run::{
    block_on, drive, ConnResult, Control, LoadConfig, RunError, Scenario, DRAIN, MEASURE, WARMUP,
};
use crate::protocol::integrity::GapSet;
use crate::protocol::payload::{inspect, template};
use crate::protocol::proto::{Incoming, Protocol};
use crate::protocol::socketio::{json_event, Kind, PUSH_EVENT};
use crate::protocol::ws::{close_gracefully, MaskGen};
use crate::report::{ErrorKind, Report};
use crate::transport::handshake::Client;

/// A connection yields to the scheduler after this many messages.
const YIELD_EVERY: u32 = 256;

/// Longest a receive low-water mark holds messages back at the warm-up's rate.
pub const LOW_WATER_DELAY: Duration = Duration::from_millis(1);

/// Largest receive low-water mark set, bytes.
pub const LOW_WATER_MAX: usize = 256 * 1024;

/// Messages requested per connection in duration mode (2^31).
pub const DURATION_MODE_COUNT: u64 = 1 << 31;

/// Runs the stream scenario on its own runtime and returns the report.
pub fn run_stream(cfg: &LoadConfig) -> Result<Report, RunError> {
    block_on(cfg.threads, &cfg.cpus, stream(cfg))?
}

/// Runs the stream scenario on the current runtime and returns the report.
pub async fn stream(cfg: &LoadConfig) -> Result<Report, RunError> {
    let size = cfg.size;
    let text = cfg.text;
    let count = cfg.count;
    let timeout = cfg.timeout;
    let protocol = cfg.protocol;
    drive(cfg, Scenario::Stream, move |i, client, ctl| {
        run_conn(i, client, ctl, size, text, count, timeout, protocol)
    })
    .await
}

/// The JSON request of PROTOCOL.md.
pub fn request_json(count: u64, size: usize, binary: bool) -> String {
    serde_json::json!({"count": count, "size": size, "binary": binary}).to_string()
}

enum Event {
    Msg(Incoming),
    WindowEnd,
    Timeout,
}

#[allow(clippy::too_many_arguments)]
async fn run_conn(
    i: usize,
    client: Client,
    ctl: Arc<Control>,
    size: usize,
    text: bool,
    count: Option<u64>,
    timeout: Duration,
    protocol: Protocol,
) -> ConnResult {
    let Client {
        mut ws,
        clock,
        mut transport,
        low_water,
        outbox,
        deflate,
        ..
    } = client;
    let mut warmup = WarmupRate::default();
    let mut res = ConnResult::default();
    let requested = count.unwrap_or(DURATION_MODE_COUNT);
    let expected = if text { Kind::Text } else { Kind::Binary };
    let template = template(size);
    let mut gaps = GapSet::default();
    let mut next: u64 = 0;

    let json = request_json(requested, size, !text);
    // Payload bytes: the request object (Socket.IO: the event's argument).
    let req_len = json.len() as u64;
    let req = match protocol {
        Protocol::Websocket => json.into_bytes(),
        Protocol::Socketio => json_event(PUSH_EVENT, &json),
    };
    let mut masks = MaskGen::new(i as u64 + 1);
    {
        let mut out = outbox.lock().unwrap_or_else(|e| e.into_inner());
        out.data_frame(OpCode::Text, &req, None, b"", masks.next_mask());
    }
    // A socket error shows in the first read.
    let _ = ws.flush().await;
    res.sent = 1;
    res.bytes_sent = req_len;

    // Wakes a connection that is waiting for data when the window ends; while data
    // flows, the per-message check below ends it.
    let window_end = async {
        match ctl.window_end() {
            Some(end) => tokio::time::sleep_until(end.into()).await,
            None => std::future::pending::<()>().await,
        }
    };
    tokio::pin!(window_end);
    let sleep = tokio::time::sleep(timeout);
    tokio::pin!(sleep);
    let mut last_progress = Instant::now();
    let mut since_yield = 0u32;

    let outcome: Result<bool, ErrorKind> = loop {
        if count.is_some() && next == requested && gaps.is_empty() {
            break Ok(true);
        }
        let deadline = last_progress + timeout;
        let ev = {
            let fut = transport.read(&mut ws);
            tokio::pin!(fut);
            loop {
                tokio::select! {
                    biased;
                    r = &mut fut => break r.map(Event::Msg),
                    _ = &mut window_end => break Ok(Event::WindowEnd),
                    _ = &mut sleep => {
                        if Instant::now() >= deadline {
                            break Ok(Event::Timeout);
                        }
                        sleep.as_mut().reset(deadline.into());
                    }
                }
            }
        };
        let msg = match ev {
            Ok(Event::Msg(m)) => m,
            Ok(Event::WindowEnd) => break Ok(false),
            // Everything arrived except gap messages: they are lost, not a timeout.
            Ok(Event::Timeout) if count.is_some() && next == requested => break Ok(true),
            Ok(Event::Timeout) => break Err(ErrorKind::Timeout),
            Err(k) => break Err(k),
        };
        if let Incoming::Close = msg {
            break Err(ErrorKind::ClosedEarly);
        }
        let now = clock.last_read();
        last_progress = now;
        let phase = ctl.phase_at(now);
        if phase == DRAIN {
            break Ok(false);
        }
        since_yield += 1;
        if since_yield == YIELD_EVERY {
            // Let timers and other connections run: a fast server keeps this task busy.
            since_yield = 0;
            tokio::task::yield_now().await;
        }
        let (payload, kind) = msg.payload(PUSH_EVENT);
        if let Some(bytes) = warmup.low_water(now, phase, payload.len(), size) {
            // Best effort: without it the connection only wakes more often. Not with
            // permessage-deflate: the mark counts bytes on the wire, which the messages'
            // bytes would overstate by the compression ratio (holding messages back that
            // many times longer).
            if deflate.is_none() {
                low_water.set(bytes);
            }
        }
        if phase == MEASURE {
            res.received += 1;
            res.bytes_received += payload.len() as u64;
        }
        let ins = inspect(&payload, kind == expected, &template);
        if !ins.intact {
            res.integrity.corrupted += 1;
        }
        match ins.seq {
            None => {}
            // Beyond the request: a bad sequence number (count it once).
            Some(n) if n >= requested && ins.intact => res.integrity.corrupted += 1,
            Some(n) if n >= requested => {}
            Some(n) if n == next => next += 1,
            Some(n) if n > next => {
                gaps.add(next, n);
                next = n + 1;
            }
            Some(n) => {
                if gaps.take(n) {
                    res.integrity.out_of_order += 1;
                } else {
                    res.integrity.duplicated += 1;
                }
            }
        }
    };

    res.traffic_end = Some(Instant::now());
    res.integrity.lost += gaps.count();
    if count.is_some() {
        res.integrity.lost += requested - next;
    }
    match outcome {
        Ok(true) => close_gracefully(&mut ws, timeout.min(Duration::from_secs(2))).await,
        Ok(false) => {
            // Window over: close frame, then drop (the server may still be pushing).
            if ws.write_frame(Frame::close(1000, b"")).await.is_ok() {
                let _ = ws.flush().await;
            }
        }
        Err(k) => res.error = Some(k),
    }
    res
}

/// The payload rate of a connection's warm-up, which sizes its receive low-water mark.
#[derive(Debug, Default)]
struct WarmupRate {
    first: Option<Instant>,
    bytes: usize,
    done: bool,
}

impl WarmupRate {
    /// Accounts for a message of `bytes` read at `now` in `phase`. Returns, once, at the
    /// first message after the warm-up, the low-water mark to set (bytes): the warm-up's
    /// rate times [`LOW_WATER_DELAY`], at most [`LOW_WATER_MAX`]; `None` when that is
    /// under two messages of `size` bytes or there was no warm-up (count mode).
    fn low_water(&mut self, now: Instant, phase: u8, bytes: usize, size: usize) -> Option<usize> {
        if self.done {
            return None;
        }
        if phase == WARMUP {
            self.first.get_or_insert(now);
            self.bytes += bytes;
            return None;
        }
        self.done = true;
        let elapsed = now.saturating_duration_since(self.first?).as_secs_f64();
        if elapsed <= 0.0 {
            return None;
        }
        let mark = (self.bytes as f64 / elapsed * LOW_WATER_DELAY.as_secs_f64()) as usize;
        let mark = mark.min(LOW_WATER_MAX);
        (mark >= 2 * size).then_some(mark)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_water_follows_the_warmup_rate_once() {
        let t0 = Instant::now();
        let mut w = WarmupRate::default();
        assert_eq!(w.low_water(t0, WARMUP, 1000, 1000), None);
        // 1,000,000 bytes in 0.1 s = 10 MB/s: 10,000 bytes in 1 ms.
        let t1 = t0 + Duration::from_millis(100);
        assert_eq!(w.low_water(t1, WARMUP, 999_000, 1000), None);
        assert_eq!(w.low_water(t1, MEASURE, 1000, 1000), Some(10_000));
        assert_eq!(w.low_water(t1, MEASURE, 1000, 1000), None);

        // Capped at LOW_WATER_MAX; nothing below two messages; nothing without a warm-up.
        let mut fast = WarmupRate::default();
        fast.low_water(t0, WARMUP, 1 << 30, 65536);
        assert_eq!(fast.low_water(t1, MEASURE, 0, 65536), Some(LOW_WATER_MAX));
        let mut slow = WarmupRate::default();
        slow.low_water(t0, WARMUP, 100_000, 65536);
        assert_eq!(slow.low_water(t1, MEASURE, 0, 65536), None);
        let mut count_mode = WarmupRate::default();
        assert_eq!(count_mode.low_water(t1, MEASURE, 10, 16), None);
    }
}
