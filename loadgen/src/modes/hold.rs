//! The `hold` scenario (memory per connection): open N connections, report, keep them
//! open and idle while the harness samples the server's memory, then close them.
//!
//! 1. Connect N connections exactly as `echo` does (connect + upgrade, Socket.IO: + the
//!    session opening; at most [`crate::modes::run::CONNECT_CONCURRENCY`] attempts at
//!    once).
//! 2. Hand [`HoldOpened`] to the caller (the binary prints it as one JSON line on stdout
//!    and flushes).
//! 3. Hold: every connection reads and discards whatever arrives (Socket.IO pings are
//!    answered), until `hold` has passed or the `stop` future completes (the binary: its
//!    standard input reaches end of file), whichever comes first. A connection the server
//!    closes (or that fails) during the hold counts as `closed_early`.
//! 4. Close every connection still open (close frame, wait up to
//!    min(timeout, 2 s) for the server's), and return [`HoldClosed`].

use std::future::Future;
use std::io::Read;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::cpus::{reported, PinnedThreads};
use crate::modes::run::{block_on, client_tls, connect_all, resolve, Connected, RunError, Speech};
use crate::protocol::deflate_wire::{DeflateReport, DeflateRun};
use crate::protocol::proto::{Incoming, Protocol};
use crate::protocol::ws::close_gracefully;
use crate::report::{Errors, TOOL, VERSION};
use crate::stats::Summary;
use crate::transport::handshake::Client;
use crate::transport::limits::nofile_limit;
use crate::transport::tls::TlsReport;
use crate::transport::url::WsUrl;

/// Settings of a `hold` run.
#[derive(Debug, Clone)]
pub struct HoldConfig {
    /// Target URL (`/echo`, or the Socket.IO URL).
    pub url: WsUrl,
    /// Connections to open, N (≥ 1).
    pub connections: usize,
    /// Longest hold (it ends earlier when the `stop` future completes).
    pub hold: Duration,
    /// Limit for each connect + upgrade (+ session opening).
    pub timeout: Duration,
    /// Loopback source addresses the connections are spread over (1 = the kernel's
    /// choice); see [`crate::transport::source`].
    pub source_addresses: usize,
    /// Plain WebSocket or Socket.IO sessions.
    pub protocol: Protocol,
    /// CPUs of the runtime threads the connections are spread over (`--cpus`, see
    /// [`crate::cpus`]; connection `i` on thread `i % N`); empty: one current-thread
    /// runtime.
    pub cpus: Vec<usize>,
    /// Offer permessage-deflate on every connection (`--deflate`), see
    /// [`crate::modes::run::LoadConfig::deflate`]: an agreed connection holds a compressor
    /// and a decompressor, on the server's side too.
    pub deflate: bool,
    /// `wss://` URLs: the CA file the client trusts (`--tls-ca`), see
    /// [`crate::modes::run::LoadConfig::tls_ca`]: a held connection holds a TLS session,
    /// on the server's side too.
    pub tls_ca: Option<std::path::PathBuf>,
}

/// The `config` object of the first line.
#[derive(Debug, Clone, Serialize)]
pub struct HoldReportConfig {
    /// Target URL.
    pub url: String,
    /// `"websocket"` or `"socketio"`.
    pub protocol: &'static str,
    /// Connections asked for, N.
    pub connections: usize,
    /// Longest hold, seconds.
    pub hold_s: f64,
    /// Limit of each connection attempt, seconds.
    pub timeout_s: f64,
    /// Loopback source addresses the connections were spread over.
    pub source_addresses: usize,
    /// `--cpus`: the CPU of each runtime thread (connection `i` on thread `i % N`);
    /// absent without `--cpus`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpus: Option<Vec<usize>>,
}

/// The first line: the connections are open (field names as in `echo`'s report).
#[derive(Debug, Clone, Serialize)]
pub struct HoldOpened {
    /// Always `"wsbench-loadgen"`.
    pub tool: &'static str,
    /// The crate version.
    pub version: &'static str,
    /// Always `"hold"`.
    pub scenario: &'static str,
    /// The settings of the run.
    pub config: HoldReportConfig,
    /// Connections established (and now held).
    pub connections_ok: u64,
    /// Failed connection attempts by cause.
    pub errors: Errors,
    /// Wall time of the connect phase, from the first attempt until every attempt has
    /// ended, seconds.
    pub connect_s: f64,
    /// `connections_ok / connect_s`, connections per second.
    pub connections_per_s: f64,
    /// Connect + TLS handshake (`wss://`) + upgrade (Socket.IO: + session opening) per
    /// connection established, µs.
    pub handshake_us: Summary,
    /// The open-file limit (`RLIMIT_NOFILE` soft limit), descriptors.
    pub rlimit_nofile: u64,
    /// permessage-deflate (`--deflate`), as in `echo`'s report: what the connections
    /// agreed (no message is sent, so no bytes); null when it was not offered.
    pub deflate: Option<DeflateReport>,
    /// TLS (`wss://`), as in `echo`'s report: what was agreed, the parts of
    /// `handshake_us`, the failed handshakes by reason; null without TLS.
    pub tls: Option<TlsReport>,
}

/// The second line: the connections are closed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HoldClosed {
    /// Connections still open at the end of the hold, closed by the load generator.
    pub closed: u64,
    /// Connections the server closed (or that failed) during the hold.
    pub closed_early: u64,
    /// How long the connections were held, from just before the first line to the stop,
    /// seconds.
    pub held_s: f64,
}

/// Runs `hold` on its own current-thread runtime; see [`hold`].
pub fn run_hold<S, F>(
    cfg: &HoldConfig,
    stop: S,
    opened: F,
) -> Result<(HoldOpened, HoldClosed), RunError>
where
    S: Future<Output = ()>,
    F: FnOnce(&HoldOpened),
{
    block_on(1, &cfg.cpus, hold(cfg, stop, opened))?
}

/// Opens the connections, calls `opened` with the first line, holds them until
/// `cfg.hold` has passed or `stop` completes, closes them and returns both lines. When
/// no connection was established it returns at once after `opened`.
pub async fn hold<S, F>(
    cfg: &HoldConfig,
    stop: S,
    opened: F,
) -> Result<(HoldOpened, HoldClosed), RunError>
where
    S: Future<Output = ()>,
    F: FnOnce(&HoldOpened),
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
    let first = HoldOpened {
        tool: TOOL,
        version: VERSION,
        scenario: "hold",
        config: HoldReportConfig {
            url: cfg.url.to_string(),
            protocol: cfg.protocol.name(),
            connections: cfg.connections,
            hold_s: cfg.hold.as_secs_f64(),
            timeout_s: cfg.timeout.as_secs_f64(),
            source_addresses: cfg.source_addresses,
            cpus: reported(&cfg.cpus),
        },
        connections_ok: phase.connections_ok,
        errors,
        connect_s: phase.connect_s,
        connections_per_s: phase.connections_per_s,
        handshake_us: phase.handshake_us,
        rlimit_nofile: nofile_limit(),
        deflate: deflate.map(|run| run.report()),
        tls: phase.tls,
    };
    let held_from = Instant::now();
    opened(&first);
    if sockets.is_empty() {
        let none = HoldClosed {
            closed: 0,
            closed_early: 0,
            held_s: 0.0,
        };
        return Ok((first, none));
    }
    let (tx, rx) = watch::channel(false);
    let grace = cfg.timeout.min(Duration::from_secs(2));
    let mut held = JoinSet::new();
    for (i, client) in sockets {
        pinned.spawn_into(&mut held, i, idle(client, rx.clone(), grace));
    }
    tokio::select! {
        _ = tokio::time::sleep(cfg.hold) => {}
        _ = stop => {}
    }
    let held_s = held_from.elapsed().as_secs_f64();
    let _ = tx.send(true);
    let (mut closed, mut closed_early) = (0, 0);
    while let Some(j) = held.join_next().await {
        match j {
            Ok(true) => closed += 1,
            _ => closed_early += 1,
        }
    }
    Ok((
        first,
        HoldClosed {
            closed,
            closed_early,
            held_s,
        },
    ))
}

/// Holds one connection: reads and discards (Socket.IO: answering pings) until `stop`
/// turns true, then closes it and returns true; returns false if the connection ended
/// before (the server closed it, or it failed).
async fn idle(mut client: Client, mut stop: watch::Receiver<bool>, grace: Duration) -> bool {
    loop {
        tokio::select! {
            r = client.transport.read(&mut client.ws) => match r {
                Ok(Incoming::Close) | Err(_) => return false,
                Ok(_) => {}
            },
            _ = stop.wait_for(|s| *s) => break,
        }
    }
    close_gracefully(&mut client.ws, grace).await;
    true
}

/// A future that completes when this process's standard input reaches end of file (read
/// and discarded by a thread of its own). A read error other than an interruption means
/// the input cannot tell: the future then never completes.
pub fn stdin_eof() -> impl Future<Output = ()> {
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin();
        let mut buf = [0u8; 4096];
        loop {
            match stdin.read(&mut buf) {
                Ok(0) => {
                    let _ = tx.send(());
                    return;
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => {
                    // Keep the sender alive (and the future pending) for good.
                    std::mem::forget(tx);
                    return;
                }
            }
        }
    });
    async move {
        if rx.await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
