//! The HTTP/1.1 WebSocket upgrade, done by hand on a raw TCP stream or on TLS over it
//! (RFC 6455 §4).
//!
//! Doing it ourselves lets the client time the handshake and keeps any bytes that arrive
//! in the same read as the end of the HTTP head (they belong to the WebSocket stream and
//! are handed to [`Conn`]).
//!
//! A client connection is three steps, each timed ([`Client`]): the TCP connect, the TLS
//! handshake (`wss://` URLs, with the run's [`ClientTls`]), and the upgrade. A TLS
//! handshake that fails is a [`ConnectError::Tls`] naming rustls' reason (`TLS handshake
//! failed: invalid peer certificate: UnknownIssuer`); a plain client answered with TLS
//! says so ([`ConnectError::BadResponse`]). The server side upgrades whatever [`Stream`]
//! it is given (the reference server makes its TLS handshake first, see
//! [`crate::serve`]).
//!
//! permessage-deflate (RFC 7692): a client given a [`DeflateRun`] offers it as a browser
//! does ([`OFFER`]), checks the answer ([`agree`]: an answer §7.1 refuses fails the
//! upgrade) and turns it on in the [`Conn`] when agreed; a server answers an offer as its
//! [`ServerPolicy`] says ([`respond`]) on the paths that support it.

use std::fmt;
use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use fastwebsockets::{Role, WebSocket};
use sha1::{Digest, Sha1};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::protocol::deflate::{agree, respond, Agreed, DeflateError, ServerPolicy, OFFER};
use crate::protocol::deflate_wire::DeflateRun;
use crate::protocol::proto::Transport;
use crate::protocol::ws::configure;
use crate::transport::conn::{Conn, Outbox, ReadClock, RecvLowWater, Side};
use crate::transport::source::tcp_connect;
use crate::transport::stream::Stream;
use crate::transport::tls::ClientTls;
use crate::transport::url::WsUrl;

/// Largest HTTP head accepted during the upgrade, in bytes.
const MAX_HEAD: usize = 16 * 1024;
const GUID: &str = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// `Sec-WebSocket-Accept` value for a `Sec-WebSocket-Key`.
pub fn accept_key(key: &[u8]) -> String {
    let mut h = Sha1::new();
    h.update(key);
    h.update(GUID.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(h.finalize())
}

/// A fresh random-looking 16-byte key, base64-encoded (uniqueness is all that matters).
fn new_key() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mut x = t ^ COUNTER.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
    let mut bytes = [0u8; 16];
    for chunk in bytes.chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        chunk.copy_from_slice(&x.to_le_bytes());
    }
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Why a client connection attempt failed.
#[derive(Debug)]
pub enum ConnectError {
    /// The TCP connection was refused.
    Refused,
    /// Connect plus upgrade did not finish within the timeout.
    Timeout,
    /// The server answered with a status other than 101.
    Status(u16),
    /// 101 but a missing or wrong `Sec-WebSocket-Accept`, or a malformed response.
    BadResponse(String),
    /// The server closed the connection before completing the upgrade.
    Closed,
    /// The server's `Sec-WebSocket-Extensions` answer to the permessage-deflate offer
    /// breaks RFC 7692 §7.1: the client fails the connection.
    Deflate(DeflateError),
    /// The TLS handshake failed, or TLS was asked for without a configuration (or the
    /// other way round): the reason, e.g. `TLS handshake failed: invalid peer
    /// certificate: UnknownIssuer`.
    Tls(String),
    /// Any other I/O error.
    Io(io::Error),
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::Refused => write!(f, "connection refused"),
            ConnectError::Timeout => write!(f, "timeout"),
            ConnectError::Status(s) => write!(f, "handshake failed: status {s}"),
            ConnectError::BadResponse(m) => write!(f, "handshake failed: {m}"),
            ConnectError::Closed => {
                write!(f, "handshake failed: connection closed before the response")
            }
            ConnectError::Deflate(e) => write!(f, "handshake failed: {e}"),
            ConnectError::Tls(why) => write!(f, "{why}"),
            ConnectError::Io(e) => write!(f, "connection failed: {e}"),
        }
    }
}

/// An upgraded client connection.
pub struct Client {
    /// The configured WebSocket.
    pub ws: WebSocket<Conn>,
    /// Stamped at every read system call that returns data.
    pub clock: Arc<ReadClock>,
    /// Frames appended here go out with the next `ws.flush()`.
    pub outbox: Outbox,
    /// Sets the socket's receive low-water mark.
    pub low_water: RecvLowWater,
    /// TCP connect plus TLS handshake (`wss://`) plus HTTP upgrade time (Socket.IO: plus
    /// the session opening, set by the caller).
    pub handshake: Duration,
    /// The TCP connect's part of `handshake`.
    pub tcp_connect: Duration,
    /// The TLS handshake's part of `handshake` (`None`: plain TCP).
    pub tls_handshake: Option<Duration>,
    /// How messages are read: plain WebSocket unless the caller opened a Socket.IO
    /// session on it.
    pub transport: Transport,
    /// permessage-deflate as agreed; `None` when not offered or not agreed.
    pub deflate: Option<Agreed>,
}

/// Connects to `addr` and performs the client upgrade for `url` (over TLS with `tls` for
/// a `wss://` URL), bounded by `timeout`.
pub async fn connect(
    addr: std::net::SocketAddr,
    url: &WsUrl,
    timeout: Duration,
    tls: Option<&ClientTls>,
) -> Result<Client, ConnectError> {
    connect_from(addr, None, url, timeout, None, tls).await
}

/// [`connect`] from the local address `local` (port chosen by the kernel) when given
/// (see [`crate::transport::source`]), offering permessage-deflate when `deflate` is
/// given: what the connection agrees, declines or refuses is counted there. A `wss://`
/// URL needs `tls` (its handshake's outcome is counted there), a `ws://` URL refuses it.
pub async fn connect_from(
    addr: std::net::SocketAddr,
    local: Option<std::net::IpAddr>,
    url: &WsUrl,
    timeout: Duration,
    deflate: Option<&Arc<DeflateRun>>,
    tls: Option<&ClientTls>,
) -> Result<Client, ConnectError> {
    let start = Instant::now();
    let mut times = Times::default();
    let attempt = connect_inner(addr, local, url, deflate, tls, start, &mut times);
    match tokio::time::timeout(timeout, attempt).await {
        Ok(Ok((ws, clock, outbox, low_water, agreed))) => Ok(Client {
            ws,
            clock,
            outbox,
            low_water,
            handshake: start.elapsed(),
            tcp_connect: times.tcp_connect,
            tls_handshake: times.tls_handshake,
            transport: Transport::Ws,
            deflate: agreed,
        }),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(ConnectError::Timeout),
    }
}

/// What an upgrade gives: the WebSocket, its read clock, outbox and low-water handle, and
/// the permessage-deflate agreement.
type Upgrade = (
    WebSocket<Conn>,
    Arc<ReadClock>,
    Outbox,
    RecvLowWater,
    Option<Agreed>,
);

/// The parts of a connection's handshake timed so far.
#[derive(Default)]
struct Times {
    tcp_connect: Duration,
    tls_handshake: Option<Duration>,
}

async fn connect_inner(
    addr: std::net::SocketAddr,
    local: Option<std::net::IpAddr>,
    url: &WsUrl,
    deflate: Option<&Arc<DeflateRun>>,
    tls: Option<&ClientTls>,
    start: Instant,
    times: &mut Times,
) -> Result<Upgrade, ConnectError> {
    match (url.tls, tls.is_some()) {
        (true, false) => {
            return Err(ConnectError::Tls(format!(
                "{url}: a wss:// URL needs the certificate authority to trust (--tls-ca)"
            )))
        }
        (false, true) => {
            return Err(ConnectError::Tls(format!(
                "{url}: a CA to trust (--tls-ca) is for wss:// URLs"
            )))
        }
        _ => {}
    }
    let tcp = tcp_connect(addr, local).await.map_err(|e| {
        if e.kind() == io::ErrorKind::ConnectionRefused {
            ConnectError::Refused
        } else {
            ConnectError::Io(e)
        }
    })?;
    tcp.set_nodelay(true).map_err(ConnectError::Io)?;
    let connected = Instant::now();
    times.tcp_connect = connected - start;
    let mut tcp = match tls {
        None => Stream::Tcp(tcp),
        Some(tls) => {
            let stream = tls
                .handshake(tcp, &url.host)
                .await
                .map_err(ConnectError::Tls)?;
            times.tls_handshake = Some(connected.elapsed());
            Stream::TlsClient(Box::new(stream))
        }
    };
    let key = new_key();
    let offer = match deflate {
        Some(_) => format!("Sec-WebSocket-Extensions: {OFFER}\r\n"),
        None => String::new(),
    };
    let req = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: {}\r\nSec-WebSocket-Version: 13\r\n{offer}\r\n",
        url.path,
        url.authority(),
        key
    );
    tcp.write_all(req.as_bytes())
        .await
        .map_err(ConnectError::Io)?;
    // TLS: the records rustls still holds (plain TCP: nothing to do).
    tcp.flush().await.map_err(ConnectError::Io)?;

    let mut buf = Vec::with_capacity(1024);
    loop {
        let mut chunk = [0u8; 4096];
        let n = match tcp.read(&mut chunk).await {
            Ok(0) => return Err(ConnectError::Closed),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => {
                return Err(ConnectError::Closed)
            }
            Err(e) => return Err(ConnectError::Io(e)),
        };
        buf.extend_from_slice(&chunk[..n]);
        if !url.tls && is_tls_record(&buf) {
            return Err(ConnectError::BadResponse(
                "the server answered with TLS: use a wss:// URL (and --tls-ca)".into(),
            ));
        }
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut resp = httparse::Response::new(&mut headers);
        match resp.parse(&buf) {
            Ok(httparse::Status::Complete(head_len)) => {
                let code = resp.code.unwrap_or(0);
                if code != 101 {
                    return Err(ConnectError::Status(code));
                }
                let want = accept_key(key.as_bytes());
                let got = resp
                    .headers
                    .iter()
                    .find(|h| h.name.eq_ignore_ascii_case("sec-websocket-accept"))
                    .map(|h| h.value);
                if got.map(|v| v.trim_ascii()) != Some(want.as_bytes()) {
                    return Err(ConnectError::BadResponse(
                        "bad Sec-WebSocket-Accept".to_string(),
                    ));
                }
                let agreed = match deflate {
                    Some(run) => {
                        let answers = header_values(resp.headers, "sec-websocket-extensions");
                        match agree(&answers) {
                            Ok(Some(a)) => {
                                run.agreed(&a);
                                Some(a)
                            }
                            Ok(None) => {
                                run.declined();
                                None
                            }
                            Err(e) => {
                                run.refused(&e);
                                return Err(ConnectError::Deflate(e));
                            }
                        }
                    }
                    None => None,
                };
                let leftover = buf[head_len..].to_vec();
                let mut conn = Conn::new(tcp, leftover, Side::Client);
                if let Some(a) = &agreed {
                    conn.enable_deflate(a, deflate.cloned());
                }
                let clock = conn.read_clock();
                let outbox = conn.outbox().expect("client connections have an outbox");
                let low_water = conn.recv_low_water();
                let mut ws = WebSocket::after_handshake(conn, Role::Client);
                configure(&mut ws);
                return Ok((ws, clock, outbox, low_water, agreed));
            }
            Ok(httparse::Status::Partial) if buf.len() < MAX_HEAD => {}
            Ok(httparse::Status::Partial) => {
                return Err(ConnectError::BadResponse("response head too large".into()))
            }
            Err(e) => return Err(ConnectError::BadResponse(format!("bad HTTP response: {e}"))),
        }
    }
}

/// Whether `bytes` start like a TLS record (an alert or a handshake message, TLS 1.0 to
/// 1.3): what a TLS server answers a plain HTTP request with, if anything.
fn is_tls_record(bytes: &[u8]) -> bool {
    matches!(bytes, [0x15 | 0x16, 0x03, 0x00..=0x04, ..])
}

/// The endpoint a server-side upgrade request asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upgraded {
    /// Request path without the query string, e.g. `/echo`.
    pub path: String,
    /// The server's port (the socket's local port): the reference server's fan-out
    /// channels are per server, and several servers may run in one process (tests).
    pub port: u16,
}

/// Every value of the header `name` (case-insensitive), as text (a value that is not
/// UTF-8 is left out).
fn header_values<'h>(headers: &[httparse::Header<'h>], name: &str) -> Vec<&'h str> {
    headers
        .iter()
        .filter(|h| h.name.eq_ignore_ascii_case(name))
        .filter_map(|h| std::str::from_utf8(h.value).ok())
        .collect()
}

/// Server side: reads the HTTP request on `tcp` (a `TcpStream`, or a [`Stream`] such as
/// TLS over one). If its path (query ignored) is one of `paths` and it is a valid
/// WebSocket upgrade, answers 101 and returns the configured WebSocket; otherwise answers
/// 404 (unknown path) or 400 (not an upgrade) and returns `None`. I/O errors (client
/// gone) also give `None`. Offers of extensions are ignored.
pub async fn accept(tcp: impl Into<Stream>, paths: &[&str]) -> Option<(WebSocket<Conn>, Upgraded)> {
    accept_with(tcp, paths, &ServerPolicy::Ignore, &[]).await
}

/// [`accept`], answering an offer of permessage-deflate as `policy` says on the paths in
/// `deflate_paths` (see [`respond`]; the connection then compresses what it sends and
/// inflates what it receives, [`Conn::enable_deflate`]); on other paths offers are
/// ignored.
pub async fn accept_with(
    tcp: impl Into<Stream>,
    paths: &[&str],
    policy: &ServerPolicy,
    deflate_paths: &[&str],
) -> Option<(WebSocket<Conn>, Upgraded)> {
    let mut tcp: Stream = tcp.into();
    let _ = tcp.tcp().set_nodelay(true);
    let mut buf = Vec::with_capacity(1024);
    loop {
        let mut chunk = [0u8; 4096];
        let n = tcp.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut req = httparse::Request::new(&mut headers);
        let head_len = match req.parse(&buf) {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) if buf.len() < MAX_HEAD => continue,
            _ => {
                reject(&mut tcp, "400 Bad Request").await;
                return None;
            }
        };
        let path = req.path.unwrap_or("/");
        let path = path.split('?').next().unwrap_or("/").to_string();
        if !paths.contains(&path.as_str()) {
            reject(&mut tcp, "404 Not Found").await;
            return None;
        }
        let header = |name: &str| {
            req.headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case(name))
                .map(|h| h.value.trim_ascii())
        };
        let is_upgrade = req.method == Some("GET")
            && header("upgrade").is_some_and(|v| v.eq_ignore_ascii_case(b"websocket"))
            && header("sec-websocket-version") == Some(b"13".as_slice());
        let key = match header("sec-websocket-key") {
            Some(k) if is_upgrade && !k.is_empty() => k,
            _ => {
                reject(&mut tcp, "400 Bad Request").await;
                return None;
            }
        };
        let answer = if deflate_paths.contains(&path.as_str()) {
            respond(
                &header_values(req.headers, "sec-websocket-extensions"),
                policy,
            )
        } else {
            None
        };
        let extensions = match &answer {
            Some((value, _)) => format!("Sec-WebSocket-Extensions: {value}\r\n"),
            None => String::new(),
        };
        let resp = format!(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Accept: {}\r\n{extensions}\r\n",
            accept_key(key)
        );
        let port = tcp.tcp().local_addr().ok()?.port();
        let leftover = buf[head_len..].to_vec();
        tcp.write_all(resp.as_bytes()).await.ok()?;
        tcp.flush().await.ok()?;
        let mut conn = Conn::new(tcp, leftover, Side::Server);
        if let Some((_, Some(agreed))) = &answer {
            conn.enable_deflate(agreed, None);
        }
        let mut ws = WebSocket::after_handshake(conn, Role::Server);
        configure(&mut ws);
        return Some((ws, Upgraded { path, port }));
    }
}

async fn reject(tcp: &mut Stream, status: &str) {
    let resp = format!("HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    let _ = tcp.write_all(resp.as_bytes()).await;
    let _ = tcp.shutdown().await;
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_tls_answer_is_told_from_http() {
        assert!(super::is_tls_record(&[
            0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x32
        ]));
        assert!(super::is_tls_record(&[0x16, 0x03, 0x01]));
        assert!(!super::is_tls_record(
            b"HTTP/1.1 101 Switching Protocols\r\n"
        ));
        assert!(!super::is_tls_record(&[0x15]));
    }

    #[test]
    fn rfc6455_example_key() {
        assert_eq!(
            super::accept_key(b"dGhlIHNhbXBsZSBub25jZQ=="),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
    }
}
