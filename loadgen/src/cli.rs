//! Command-line interface (clap derive). Usage errors exit with status 2; the checks clap
//! cannot express are in [`Command::check`].

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::cpus::MAX_CPU_THREADS;
use crate::modes::autobahn::AutobahnConfig;
use crate::modes::connect::ConnectConfig;
use crate::modes::fanout::{FanoutConfig, Workload};
use crate::modes::hold::HoldConfig;
use crate::modes::ping::PING_SIZE;
use crate::modes::run::LoadConfig;
use crate::protocol::corpus;
use crate::protocol::deflate::ServerPolicy;
use crate::protocol::payload::{MAX_SIZE, MIN_SIZE};
use crate::protocol::proto::Protocol;
use crate::serve::ServeOptions;
use crate::transport::limits::check_fits;
use crate::transport::source::MAX_SOURCE_ADDRESSES;
use crate::transport::url::WsUrl;

/// Default `--size`, bytes.
pub const DEFAULT_SIZE: u64 = 16;

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
    /// WebSocket ping: N connections, each keeping one ping control frame in flight and
    /// timing its pong; prints a JSON report shaped as echo's.
    Ping(PingArgs),
    /// Connection setup: K workers each repeat connect, upgrade, one echo, close; prints a
    /// JSON report.
    Connect(ConnectArgs),
    /// Memory per connection: open N connections, print a JSON line, hold them idle until
    /// --hold-s passes or stdin reaches EOF, close them, print a second JSON line.
    Hold(HoldArgs),
    /// Fan-out: N subscribers and one publisher on /broadcast; delivery latency of every
    /// message to every subscriber; prints a JSON report.
    Broadcast(BroadcastArgs),
    /// Market data: a feed publishing JSON ticks on /market to N clients that answer each
    /// tick with an order; tick latency and order round trips; prints a JSON report.
    Market(MarketArgs),
    /// Run the native reference server (single thread) until SIGTERM/SIGINT.
    Serve(ServeArgs),
    /// One connect + WebSocket handshake attempt; exit 0 on success, 1 otherwise.
    Probe(ProbeArgs),
    /// Conformance of this client: run every case of the Autobahn|Testsuite's fuzzing
    /// server (wstest -m fuzzingserver), echoing each message back, then have it write
    /// its reports; prints a JSON report of how each case ended on the client's side.
    AutobahnClient(AutobahnArgs),
}

/// The phases and transport options shared by `echo`, `stream`, `ping`, `broadcast` and
/// `market`.
#[derive(Debug, Clone, Args)]
pub struct PhaseArgs {
    /// Warm-up before the measurement window, seconds (duration mode).
    #[arg(long, default_value = "1", value_parser = non_negative_secs)]
    pub warmup: Duration,
    /// Measurement window, seconds (duration mode).
    #[arg(long, default_value = "3", value_parser = positive_secs)]
    pub duration: Duration,
    /// Count mode: exactly this many messages per connection (ping: pings; broadcast,
    /// market: messages published), all counted, no warm-up or window.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub count: Option<u64>,
    /// Limit for connect + handshake, for waiting on replies or messages (and for
    /// priming), seconds.
    #[arg(long, default_value = "10", value_parser = positive_secs)]
    pub timeout: Duration,
    /// Runtime worker threads (1 = current-thread runtime).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// Spread the connections over one runtime thread per CPU of this comma-separated
    /// list (e.g. 1,2), thread k pinned to the list's k-th CPU, connection i (connect:
    /// worker i) on thread i mod N; list a CPU twice for two threads on it (0,1,0,1). One
    /// CPU: the current-thread runtime, pinned to it. Replaces --threads.
    #[arg(long, value_delimiter = ',', value_parser = cpu_number, conflicts_with = "threads")]
    pub cpus: Vec<usize>,
    /// Wire protocol: plain WebSocket messages, or Socket.IO events (`echo`, `push`,
    /// `json`; rooms and `broadcast`, `tick`, `order`; `ping`: WebSocket pings on the
    /// session's connection) over Engine.IO's websocket transport (then --url is
    /// ws://HOST:PORT/socket.io/?EIO=4&transport=websocket).
    #[arg(long, value_enum, default_value_t = Protocol::Websocket)]
    pub protocol: Protocol,
    /// Loopback source addresses to spread the connections over (127.0.0.1 to
    /// 127.0.0.N, connection k from 127.0.0.(1 + k % N)) when the target is a loopback
    /// IPv4 address; 1 = the kernel's choice.
    #[arg(long, default_value_t = 1, value_parser = source_addresses)]
    pub source_addresses: usize,
    /// Offer permessage-deflate (RFC 7692) on every connection as a browser does
    /// (`Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits`), and use
    /// what the server agrees to: data messages compressed both ways (context takeover
    /// and windows as agreed). A server that does not agree is run uncompressed. The
    /// report's `deflate` records the agreement and the bytes on the wire.
    #[arg(long)]
    pub deflate: bool,
    /// The certificate authorities to trust (a PEM file), for `wss://` URLs: the only ones
    /// trusted (no system roots; the server's certificate is always verified, for the
    /// URL's host).
    #[arg(long, value_name = "PATH")]
    pub tls_ca: Option<PathBuf>,
}

impl PhaseArgs {
    /// A [`LoadConfig`] of these phases: `connections` to `url`, each with `in_flight`
    /// messages of `size` bytes (text frames if `text`), closed loop.
    pub fn load_config(
        &self,
        url: &WsUrl,
        connections: u32,
        in_flight: usize,
        size: usize,
        text: bool,
    ) -> LoadConfig {
        LoadConfig {
            url: url.clone(),
            connections: connections as usize,
            in_flight,
            size,
            text,
            json: false,
            corpus: false,
            warmup: self.warmup,
            duration: self.duration,
            count: self.count,
            timeout: self.timeout,
            threads: self.threads as usize,
            cpus: self.cpus.clone(),
            protocol: self.protocol,
            source_addresses: self.source_addresses,
            rate: None,
            deflate: self.deflate,
            tls_ca: self.tls_ca.clone(),
        }
    }
}

/// Options shared by `echo` and `stream`.
#[derive(Debug, Clone, Args)]
pub struct LoadArgs {
    /// Target URL, ws://HOST:PORT/PATH[?QUERY] (wss://: over TLS, with --tls-ca).
    #[arg(long)]
    pub url: WsUrl,
    /// Number of connections.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub connections: u32,
    /// Message size in bytes (at least 16: the sequence number).
    #[arg(long, default_value_t = DEFAULT_SIZE, value_parser = clap::value_parser!(u64).range(MIN_SIZE as u64..=MAX_SIZE as u64))]
    pub size: u64,
    /// Send text frames instead of binary frames.
    #[arg(long)]
    pub text: bool,
    #[command(flatten)]
    pub phase: PhaseArgs,
}

/// `echo` options.
#[derive(Debug, Clone, Args)]
pub struct EchoArgs {
    #[command(flatten)]
    pub load: LoadArgs,
    /// Messages kept in flight per connection (W); refills come in bursts of max(1, W/4).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub in_flight: u32,
    /// JSON workload (endpoint /json; Socket.IO: event json): 97-byte JSON objects as text
    /// frames, each answer parsed and checked. Not with --text or another --size.
    #[arg(long, conflicts_with = "text")]
    pub json: bool,
    /// The JSON corpus's messages (impls/PROTOCOL.md, "The JSON corpus"): realistic JSON of
    /// 1,024 bytes, message i the corpus's line i mod 128 with its sequence number, as
    /// text frames (Socket.IO: the event's string argument), each reply checked byte for
    /// byte. Not with --json; --size, if given, must be 1024.
    #[arg(long, conflicts_with = "json")]
    pub corpus: bool,
    /// Fixed offered load: send R messages per second over all connections (each
    /// connection R/N, on a fixed schedule, whatever the replies do) and measure each
    /// round trip from the message's intended send time (no coordinated omission);
    /// replaces the window of --in-flight messages.
    #[arg(long, value_parser = positive_rate, conflicts_with = "in_flight")]
    pub rate: Option<f64>,
}

/// Options shared by `broadcast` and `market`.
#[derive(Debug, Clone, Args)]
pub struct FanoutArgs {
    /// Target URL, ws://HOST:PORT/broadcast or /market (Socket.IO:
    /// ws://HOST:PORT/socket.io/?EIO=4&transport=websocket).
    #[arg(long)]
    pub url: WsUrl,
    /// Number of subscribers (market: clients); the publisher is one more connection.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub subscribers: u32,
    /// Publish R messages per second, each due at its own instant (latency measured from
    /// it); without it, publish as fast as the window of --in-flight messages allows.
    #[arg(long, value_parser = positive_rate)]
    pub rate: Option<f64>,
    /// Without --rate: messages published but not yet delivered to every subscriber, at most.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub in_flight: u32,
    #[command(flatten)]
    pub phase: PhaseArgs,
}

/// `broadcast` options.
#[derive(Debug, Clone, Args)]
pub struct BroadcastArgs {
    #[command(flatten)]
    pub fanout: FanoutArgs,
    /// Message size in bytes (at least 16: the sequence number).
    #[arg(long, default_value_t = DEFAULT_SIZE, value_parser = clap::value_parser!(u64).range(MIN_SIZE as u64..=MAX_SIZE as u64))]
    pub size: u64,
    /// Send text frames instead of binary frames.
    #[arg(long)]
    pub text: bool,
}

/// `market` options.
#[derive(Debug, Clone, Args)]
pub struct MarketArgs {
    #[command(flatten)]
    pub fanout: FanoutArgs,
}

impl FanoutArgs {
    /// Converts to a [`FanoutConfig`] for `workload`.
    pub fn to_config(&self, workload: Workload, size: usize, text: bool) -> FanoutConfig {
        FanoutConfig {
            url: self.url.clone(),
            workload,
            subscribers: self.subscribers as usize,
            size,
            text,
            rate: self.rate,
            in_flight: self.in_flight as usize,
            warmup: self.phase.warmup,
            duration: self.phase.duration,
            count: self.phase.count,
            timeout: self.phase.timeout,
            threads: self.phase.threads as usize,
            cpus: self.phase.cpus.clone(),
            protocol: self.phase.protocol,
            source_addresses: self.phase.source_addresses,
            deflate: self.phase.deflate,
            tls_ca: self.phase.tls_ca.clone(),
        }
    }
}

/// `ping` options.
#[derive(Debug, Clone, Args)]
pub struct PingArgs {
    /// Target URL, ws://HOST:PORT/echo (Socket.IO:
    /// ws://HOST:PORT/socket.io/?EIO=4&transport=websocket).
    #[arg(long)]
    pub url: WsUrl,
    /// Number of connections, each with one ping in flight.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub connections: u32,
    #[command(flatten)]
    pub phase: PhaseArgs,
}

impl PingArgs {
    /// Converts to a [`LoadConfig`]: one ping of [`PING_SIZE`] bytes in flight per
    /// connection.
    pub fn to_config(&self) -> LoadConfig {
        self.phase
            .load_config(&self.url, self.connections, 1, PING_SIZE, false)
    }
}

/// `stream` options.
#[derive(Debug, Clone, Args)]
pub struct StreamArgs {
    #[command(flatten)]
    pub load: LoadArgs,
}

/// `connect` options.
#[derive(Debug, Clone, Args)]
pub struct ConnectArgs {
    /// Target URL, ws://HOST:PORT/echo (Socket.IO: ws://HOST:PORT/socket.io/?EIO=4&transport=websocket).
    #[arg(long)]
    pub url: WsUrl,
    /// Concurrent workers, each with at most one connection open.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub workers: u32,
    /// Size of each cycle's message in bytes (at least 16: the sequence number).
    #[arg(long, default_value_t = DEFAULT_SIZE, value_parser = clap::value_parser!(u64).range(MIN_SIZE as u64..=MAX_SIZE as u64))]
    pub size: u64,
    /// Warm-up before the measurement window, seconds.
    #[arg(long, default_value = "1", value_parser = non_negative_secs)]
    pub warmup: Duration,
    /// Measurement window, seconds.
    #[arg(long, default_value = "3", value_parser = positive_secs)]
    pub duration: Duration,
    /// Limit for each step of a cycle (connect + handshake, echo, close), seconds.
    #[arg(long, default_value = "10", value_parser = positive_secs)]
    pub timeout: Duration,
    /// Runtime worker threads (1 = current-thread runtime).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// Spread the connections over one runtime thread per CPU of this comma-separated
    /// list (e.g. 1,2), thread k pinned to the list's k-th CPU, connection i (connect:
    /// worker i) on thread i mod N; list a CPU twice for two threads on it (0,1,0,1). One
    /// CPU: the current-thread runtime, pinned to it. Replaces --threads.
    #[arg(long, value_delimiter = ',', value_parser = cpu_number, conflicts_with = "threads")]
    pub cpus: Vec<usize>,
    /// Loopback source addresses to spread the connections over (cycle k from
    /// 127.0.0.(1 + k % N)) when the target is a loopback IPv4 address; 1 = the kernel's
    /// choice.
    #[arg(long, default_value_t = 1, value_parser = source_addresses)]
    pub source_addresses: usize,
    /// Wire protocol: plain WebSocket, or Socket.IO (the event `echo`).
    #[arg(long, value_enum, default_value_t = Protocol::Websocket)]
    pub protocol: Protocol,
    /// Offer permessage-deflate (RFC 7692) on every connection as a browser does
    /// (`Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits`), and use
    /// what the server agrees to: data messages compressed both ways (context takeover
    /// and windows as agreed). A server that does not agree is run uncompressed. The
    /// report's `deflate` records the agreement and the bytes on the wire.
    #[arg(long)]
    pub deflate: bool,
    /// The certificate authorities to trust (a PEM file), for `wss://` URLs: the only ones
    /// trusted (no system roots; the server's certificate is always verified, for the
    /// URL's host).
    #[arg(long, value_name = "PATH")]
    pub tls_ca: Option<PathBuf>,
}

/// `hold` options.
#[derive(Debug, Clone, Args)]
pub struct HoldArgs {
    /// Target URL, ws://HOST:PORT/echo (Socket.IO: ws://HOST:PORT/socket.io/?EIO=4&transport=websocket).
    #[arg(long)]
    pub url: WsUrl,
    /// Number of connections to open and hold.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub connections: u32,
    /// Longest hold, seconds (it ends earlier when stdin reaches end of file).
    #[arg(long, default_value = "60", value_parser = positive_secs)]
    pub hold_s: Duration,
    /// Limit for each connect + handshake, seconds.
    #[arg(long, default_value = "10", value_parser = positive_secs)]
    pub timeout: Duration,
    /// Loopback source addresses to spread the connections over (connection k from
    /// 127.0.0.(1 + k % N)) when the target is a loopback IPv4 address; 1 = the kernel's
    /// choice.
    #[arg(long, default_value_t = 1, value_parser = source_addresses)]
    pub source_addresses: usize,
    /// Wire protocol: plain WebSocket, or Socket.IO sessions (pings answered).
    #[arg(long, value_enum, default_value_t = Protocol::Websocket)]
    pub protocol: Protocol,
    /// Spread the connections over one runtime thread per CPU of this comma-separated
    /// list (e.g. 1,2), thread k pinned to the list's k-th CPU, connection i on thread
    /// i mod N; list a CPU twice for two threads on it. One CPU: the current-thread
    /// runtime, pinned to it.
    #[arg(long, value_delimiter = ',', value_parser = cpu_number)]
    pub cpus: Vec<usize>,
    /// Offer permessage-deflate (RFC 7692) on every connection as a browser does
    /// (`Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits`), and use
    /// what the server agrees to: data messages compressed both ways (context takeover
    /// and windows as agreed). A server that does not agree is run uncompressed. The
    /// report's `deflate` records the agreement and the bytes on the wire.
    #[arg(long)]
    pub deflate: bool,
    /// The certificate authorities to trust (a PEM file), for `wss://` URLs: the only ones
    /// trusted (no system roots; the server's certificate is always verified, for the
    /// URL's host).
    #[arg(long, value_name = "PATH")]
    pub tls_ca: Option<PathBuf>,
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
    /// A deliberately stalling server (for checking that latency under a fixed offered
    /// load shows stalls): block the server's thread this many milliseconds...
    #[arg(long, default_value_t = 0)]
    pub stall_ms: u64,
    /// ...once every this many milliseconds.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub stall_every_ms: u64,
    /// Accept permessage-deflate (RFC 7692) on /echo, /push and /json when a client
    /// offers it, with the defaults (context takeover both ways, 15-bit windows; the
    /// server's parameters the offer asks for are granted): compress what the server
    /// sends, inflate what it receives. Without it (and --deflate-answer) offers are
    /// ignored. `--shipped-compression`, the flag the harness gives every server in the
    /// deployment profiles with compression as shipped, means the same: the reference
    /// server, the yardstick of those profiles, ships accepting it.
    #[arg(long, alias = "shipped-compression")]
    pub deflate: bool,
    /// Answer every offer of permessage-deflate on /echo, /push and /json with exactly this
    /// `Sec-WebSocket-Extensions` value, e.g. "permessage-deflate;
    /// server_no_context_takeover; client_max_window_bits=10", and follow it (for tests:
    /// given parameters, or an answer a client must refuse, which the server then does
    /// not follow).
    #[arg(long, value_parser = header_value)]
    pub deflate_answer: Option<String>,
    /// Serve TLS on every endpoint with this certificate chain (a PEM file, the server's
    /// certificate first); with --keyfile. The harness's flag for every server in the
    /// TLS deployment profiles.
    #[arg(long, value_name = "PATH", requires = "keyfile")]
    pub certfile: Option<PathBuf>,
    /// The private key of --certfile's certificate (a PEM file: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "PATH", requires = "certfile")]
    pub keyfile: Option<PathBuf>,
}

/// `probe` options.
#[derive(Debug, Clone, Args)]
pub struct ProbeArgs {
    /// URL to probe, ws://HOST:PORT/PATH (wss://: over TLS, with --tls-ca).
    #[arg(long)]
    pub url: WsUrl,
    /// Overall limit, seconds.
    #[arg(long, default_value = "5", value_parser = positive_secs)]
    pub timeout: Duration,
    /// The certificate authorities to trust (a PEM file), for `wss://` URLs: the only ones
    /// trusted (no system roots; the server's certificate is always verified, for the
    /// URL's host).
    #[arg(long, value_name = "PATH")]
    pub tls_ca: Option<PathBuf>,
}

/// `autobahn-client` options.
#[derive(Debug, Clone, Args)]
pub struct AutobahnArgs {
    /// The fuzzing server, ws://HOST:PORT (any path is ignored).
    #[arg(long, default_value = "ws://127.0.0.1:9001")]
    pub url: WsUrl,
    /// The name the cases are reported under (letters, digits, '-', '_', '.').
    #[arg(long, default_value = "wsbench-loadgen", value_parser = agent_name)]
    pub agent: String,
    /// Limit of each case (connect, echoes, close), seconds.
    #[arg(long, default_value = "60", value_parser = positive_secs)]
    pub timeout: Duration,
    /// The certificate authorities to trust (a PEM file), for `wss://` URLs: the only ones
    /// trusted (no system roots; the server's certificate is always verified, for the
    /// URL's host).
    #[arg(long, value_name = "PATH")]
    pub tls_ca: Option<PathBuf>,
}

impl AutobahnArgs {
    /// Converts to an [`AutobahnConfig`].
    pub fn to_config(&self) -> AutobahnConfig {
        AutobahnConfig {
            url: self.url.clone(),
            agent: self.agent.clone(),
            timeout: self.timeout,
            tls_ca: self.tls_ca.clone(),
        }
    }
}

/// An agent name that goes into a query string as is.
fn agent_name(s: &str) -> Result<String, String> {
    let ok = |c: char| c.is_ascii_alphanumeric() || "-_.".contains(c);
    if !s.is_empty() && s.chars().all(ok) {
        Ok(s.to_string())
    } else {
        Err(format!(
            "`{s}`: an agent name is letters, digits, '-', '_' and '.'"
        ))
    }
}

impl LoadArgs {
    /// Converts to a [`LoadConfig`] with `in_flight` messages per connection.
    pub fn to_config(&self, in_flight: u32) -> LoadConfig {
        self.phase.load_config(
            &self.url,
            self.connections,
            in_flight as usize,
            self.size as usize,
            self.text,
        )
    }
}

impl EchoArgs {
    /// Converts to a [`LoadConfig`].
    pub fn to_config(&self) -> LoadConfig {
        let load = self.load.to_config(self.in_flight);
        LoadConfig {
            json: self.json,
            corpus: self.corpus,
            text: load.text || self.corpus,
            rate: self.rate,
            ..load
        }
    }
}

impl ServeArgs {
    /// The server's options.
    pub fn options(&self) -> ServeOptions {
        ServeOptions {
            stall: self.stall(),
            deflate: self.deflate_policy(),
            tls: self.certfile.clone().zip(self.keyfile.clone()),
        }
    }

    /// What the server does with offers of permessage-deflate.
    pub fn deflate_policy(&self) -> ServerPolicy {
        match (&self.deflate_answer, self.deflate) {
            (Some(answer), _) => ServerPolicy::Answer(answer.clone()),
            (None, true) => ServerPolicy::Accept,
            (None, false) => ServerPolicy::Ignore,
        }
    }

    /// The stall asked for: (how long, how often); `None` without `--stall-ms`.
    pub fn stall(&self) -> Option<(Duration, Duration)> {
        (self.stall_ms > 0).then(|| {
            (
                Duration::from_millis(self.stall_ms),
                Duration::from_millis(self.stall_every_ms),
            )
        })
    }
}

impl ConnectArgs {
    /// Converts to a [`ConnectConfig`].
    pub fn to_config(&self) -> ConnectConfig {
        ConnectConfig {
            url: self.url.clone(),
            workers: self.workers as usize,
            size: self.size as usize,
            warmup: self.warmup,
            duration: self.duration,
            timeout: self.timeout,
            threads: self.threads as usize,
            cpus: self.cpus.clone(),
            source_addresses: self.source_addresses,
            protocol: self.protocol,
            deflate: self.deflate,
            tls_ca: self.tls_ca.clone(),
        }
    }
}

impl HoldArgs {
    /// Converts to a [`HoldConfig`].
    pub fn to_config(&self) -> HoldConfig {
        HoldConfig {
            url: self.url.clone(),
            connections: self.connections as usize,
            hold: self.hold_s,
            timeout: self.timeout,
            source_addresses: self.source_addresses,
            protocol: self.protocol,
            cpus: self.cpus.clone(),
            deflate: self.deflate,
            tls_ca: self.tls_ca.clone(),
        }
    }
}

impl Command {
    /// The checks clap cannot express, given the open-file limit `nofile` (descriptors,
    /// see [`crate::transport::limits`]): `--json` with a `--size` other than the default,
    /// a number of simultaneous connections that does not fit in the limit, and a `--cpus`
    /// list of more than [`MAX_CPU_THREADS`] CPUs. The error is the message of a usage
    /// error.
    pub fn check(&self, nofile: u64) -> Result<(), String> {
        if self.cpus().len() > MAX_CPU_THREADS {
            return Err(format!(
                "--cpus lists {} CPUs: at most {MAX_CPU_THREADS} (one runtime thread each)",
                self.cpus().len()
            ));
        }
        if let Some((url, ca)) = self.tls() {
            check_tls(url, ca)?;
        }
        match self {
            Command::Echo(a) => {
                if a.json && a.load.size != DEFAULT_SIZE {
                    return Err(format!(
                        "--json messages are 97 bytes: --size {} cannot be used with --json",
                        a.load.size
                    ));
                }
                if a.corpus && ![DEFAULT_SIZE, corpus::SIZE as u64].contains(&a.load.size) {
                    return Err(format!(
                        "--corpus messages are {} bytes: --size {} cannot be used with --corpus",
                        corpus::SIZE,
                        a.load.size
                    ));
                }
                check_fits("--connections", a.load.connections.into(), nofile)
            }
            Command::Stream(a) => check_fits("--connections", a.load.connections.into(), nofile),
            Command::Ping(a) => check_fits("--connections", a.connections.into(), nofile),
            Command::Connect(a) => check_fits("--workers", a.workers.into(), nofile),
            Command::Hold(a) => check_fits("--connections", a.connections.into(), nofile),
            Command::Broadcast(a) => {
                check_fits("--subscribers", u64::from(a.fanout.subscribers) + 1, nofile)
            }
            Command::Market(a) => {
                check_fits("--subscribers", u64::from(a.fanout.subscribers) + 1, nofile)
            }
            Command::Serve(_) | Command::Probe(_) | Command::AutobahnClient(_) => Ok(()),
        }
    }
}

impl Command {
    /// The target URL and the `--tls-ca` given (`None` for `serve`).
    fn tls(&self) -> Option<(&WsUrl, Option<&Path>)> {
        let (url, ca) = match self {
            Command::Echo(a) => (&a.load.url, &a.load.phase.tls_ca),
            Command::Stream(a) => (&a.load.url, &a.load.phase.tls_ca),
            Command::Ping(a) => (&a.url, &a.phase.tls_ca),
            Command::Broadcast(a) => (&a.fanout.url, &a.fanout.phase.tls_ca),
            Command::Market(a) => (&a.fanout.url, &a.fanout.phase.tls_ca),
            Command::Connect(a) => (&a.url, &a.tls_ca),
            Command::Hold(a) => (&a.url, &a.tls_ca),
            Command::Probe(a) => (&a.url, &a.tls_ca),
            Command::AutobahnClient(a) => (&a.url, &a.tls_ca),
            Command::Serve(_) => return None,
        };
        Some((url, ca.as_deref()))
    }

    /// The `--cpus` list given (empty without it, and for `serve` and `probe`).
    fn cpus(&self) -> &[usize] {
        match self {
            Command::Echo(a) => &a.load.phase.cpus,
            Command::Stream(a) => &a.load.phase.cpus,
            Command::Ping(a) => &a.phase.cpus,
            Command::Broadcast(a) => &a.fanout.phase.cpus,
            Command::Market(a) => &a.fanout.phase.cpus,
            Command::Connect(a) => &a.cpus,
            Command::Hold(a) => &a.cpus,
            Command::Serve(_) | Command::Probe(_) | Command::AutobahnClient(_) => &[],
        }
    }
}

/// A `wss://` URL needs `--tls-ca` (no system roots are trusted), and `--tls-ca` is for
/// `wss://` URLs only.
fn check_tls(url: &WsUrl, ca: Option<&Path>) -> Result<(), String> {
    match (url.tls, ca) {
        (true, None) => Err(format!(
            "{url} needs --tls-ca PATH, the certificate authorities to trust (no system \
             roots are used)"
        )),
        (false, Some(_)) => Err(format!("--tls-ca is for wss:// URLs, and {url} is not one")),
        _ => Ok(()),
    }
}

/// A header value to send as it is: printable ASCII (no line break, which would end the
/// header).
fn header_value(s: &str) -> Result<String, String> {
    if !s.is_empty() && s.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b)) {
        Ok(s.to_string())
    } else {
        Err(format!(
            "`{s}` is not a header value (printable ASCII on one line)"
        ))
    }
}

/// One CPU number of a `--cpus` list (below `CPU_SETSIZE`, 1024).
fn cpu_number(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n < libc::CPU_SETSIZE as usize => Ok(n),
        _ => Err(format!(
            "`{s}` is not a CPU number (0 to {})",
            libc::CPU_SETSIZE - 1
        )),
    }
}

fn source_addresses(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_SOURCE_ADDRESSES).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{s}` is not a number of source addresses from 1 to {MAX_SOURCE_ADDRESSES}"
        )),
    }
}

fn positive_rate(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 1e8 => Ok(v),
        _ => Err(format!("`{s}` is not a rate in messages per second (> 0)")),
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
