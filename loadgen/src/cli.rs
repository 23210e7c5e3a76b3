//! Command-line interface (clap derive). Usage errors exit with status 2.

use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::payload::{MAX_SIZE, MIN_SIZE};
use crate::proto::Protocol;
use crate::run::LoadConfig;
use crate::url::WsUrl;

/// WebSocket load generator and native reference server of wsbench.
#[derive(Debug, Parser)]
#[command(name = "wsbench-loadgen", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Echo load: N connections, each keeping W messages in flight; prints a JSON report.
    Echo(EchoArgs),
    /// Server push: each connection asks /push for messages and checks them; prints a JSON report.
    Stream(StreamArgs),
    /// Run the native reference server (single thread) until SIGTERM/SIGINT.
    Serve(ServeArgs),
    /// One connect + WebSocket handshake attempt; exit 0 on success, 1 otherwise.
    Probe(ProbeArgs),
}

/// Options shared by `echo` and `stream`.
#[derive(Debug, Clone, Args)]
pub struct LoadArgs {
    /// Target URL, ws://HOST:PORT/PATH[?QUERY].
    #[arg(long)]
    pub url: WsUrl,
    /// Number of connections.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub connections: u32,
    /// Message size in bytes (at least 16: the sequence number).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(MIN_SIZE as u64..=MAX_SIZE as u64))]
    pub size: u64,
    /// Send text frames instead of binary frames.
    #[arg(long)]
    pub text: bool,
    /// Warm-up before the measurement window, seconds (duration mode).
    #[arg(long, default_value = "1", value_parser = non_negative_secs)]
    pub warmup: Duration,
    /// Measurement window, seconds (duration mode).
    #[arg(long, default_value = "3", value_parser = positive_secs)]
    pub duration: Duration,
    /// Count mode: exactly this many messages per connection, no warm-up or window.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub count: Option<u64>,
    /// Limit for connect + handshake and for waiting on replies, seconds.
    #[arg(long, default_value = "10", value_parser = positive_secs)]
    pub timeout: Duration,
    /// Runtime worker threads (1 = current-thread runtime).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// Wire protocol: plain WebSocket messages, or Socket.IO events `echo` / `push` over
    /// Engine.IO's websocket transport (then --url is
    /// ws://HOST:PORT/socket.io/?EIO=4&transport=websocket).
    #[arg(long, value_enum, default_value_t = Protocol::Websocket)]
    pub protocol: Protocol,
}

/// `echo` options.
#[derive(Debug, Clone, Args)]
pub struct EchoArgs {
    #[command(flatten)]
    pub load: LoadArgs,
    /// Messages kept in flight per connection (W); refills come in bursts of max(1, W/4).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub in_flight: u32,
}

/// `stream` options.
#[derive(Debug, Clone, Args)]
pub struct StreamArgs {
    #[command(flatten)]
    pub load: LoadArgs,
}

/// `serve` options.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to bind.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to bind (0 = any free port, printed on stderr).
    #[arg(long)]
    pub port: u16,
}

/// `probe` options.
#[derive(Debug, Clone, Args)]
pub struct ProbeArgs {
    /// URL to probe, ws://HOST:PORT/PATH.
    #[arg(long)]
    pub url: WsUrl,
    /// Overall limit, seconds.
    #[arg(long, default_value = "5", value_parser = positive_secs)]
    pub timeout: Duration,
}

impl LoadArgs {
    /// Converts to a [`LoadConfig`] with `in_flight` messages per connection.
    pub fn to_config(&self, in_flight: u32) -> LoadConfig {
        LoadConfig {
            url: self.url.clone(),
            connections: self.connections as usize,
            in_flight: in_flight as usize,
            size: self.size as usize,
            text: self.text,
            warmup: self.warmup,
            duration: self.duration,
            count: self.count,
            timeout: self.timeout,
            threads: self.threads as usize,
            protocol: self.protocol,
        }
    }
}

fn secs(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !v.is_finite() || v > 1e7 {
        return Err(format!("`{s}` is not a sensible number of seconds"));
    }
    Ok(v)
}

fn non_negative_secs(s: &str) -> Result<Duration, String> {
    let v = secs(s)?;
    if v < 0.0 {
        return Err(format!("`{s}` must be ≥ 0"));
    }
    Ok(Duration::from_secs_f64(v))
}

fn positive_secs(s: &str) -> Result<Duration, String> {
    let v = secs(s)?;
    if v <= 0.0 {
        return Err(format!("`{s}` must be > 0"));
    }
    Ok(Duration::from_secs_f64(v))
}
