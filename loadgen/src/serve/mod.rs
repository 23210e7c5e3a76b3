//! `serve`: the native reference server speaking PROTOCOL.md on one thread.
//!
//! - `/echo`: every text or binary message goes back unchanged, same frame type, in
//!   order. Echoes are batched: all replies produced from one read batch leave in one
//!   write system call (see [`crate::transport::conn`]).
//! - `/push`: answers each JSON request `{"count": C, "size": S, "binary": bool}` with C
//!   messages of S bytes, awaiting the socket whenever 64 KiB are pending
//!   (backpressure) and flushing at the end; stops quietly when the client goes away.
//! - `/json`: decodes each text message as JSON (serde_json) and answers
//!   `{"seq": "<seq>", "ok": true}`, spaced as Python's `json.dumps` (PROTOCOL.md,
//!   "Endpoint /json"); a binary message is closed with 1003, undecodable JSON with 1007.
//!   Answers are batched like echoes.
//! - `/broadcast` and `/market`: fan-out to every other connection on the endpoint, and
//!   market orders acknowledged (PROTOCOL.md), see [`crate::serve::fanout`].
//! - `/socket.io/`: Socket.IO events `echo`, `push` and `json`, and the rooms of
//!   `subscribe`, `broadcast`, `tick` and `order` (PROTOCOL.md, "Socket.IO servers"), see
//!   [`crate::serve::sio`].
//! - any other path: HTTP 404.
//!
//! permessage-deflate (RFC 7692; `serve --deflate` or `--deflate-answer`, see
//! [`ServerPolicy`]): on `/echo`, `/push` and `/json` an offer is answered as the policy
//! says, and a connection that agreed inflates what it receives and compresses what it
//! sends, in its [`Conn`] (see [`crate::protocol::deflate_wire`]); the endpoint loops are
//! the same. Other endpoints ignore offers. By default every offer is ignored.
//!
//! TLS (`serve --certfile PATH --keyfile PATH`): every endpoint is served over TLS, the
//! TLS handshake made before the upgrade is read ([`handle_tls`], see
//! [`crate::transport::tls::acceptor`]); a connection whose handshake fails is dropped,
//! the first such failure logged on stderr. Without them the server is plain TCP, exactly
//! as before.
//!
//! On every endpoint a ping is answered with a pong carrying the same payload (RFC 6455
//! §5.5.3; fastwebsockets' auto-pong, see [`crate::protocol::ws::configure`]), queued with
//! the replies and written before the connection next waits for input: what `ping`
//! measures.
//!
//! Modules: this one (the listener, the endpoints `/echo`, `/push` and `/json`, and a
//! server on a background thread for tests), [`fanout`] (`/broadcast`, `/market` and the
//! Socket.IO rooms), [`sio`] (the Socket.IO endpoint), [`request`] (the push request that
//! `/push` and the Socket.IO endpoint both decode, so that [`sio`] needs nothing from
//! this module).

pub mod fanout;
pub mod request;
pub mod sio;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use fastwebsockets::{Frame, OpCode, Payload, WebSocket};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio_rustls::TlsAcceptor;

use crate::protocol::deflate::ServerPolicy;
use crate::protocol::jsonmsg::{json_reply, JsonRequest, JSON_PATH};
use crate::protocol::payload::{template, write_seq, MIN_SIZE};
use crate::protocol::ws::{read_message, MAX_MESSAGE_SIZE};
use crate::serve::fanout::{fanout_loop, BROADCAST_PATH, MARKET_PATH};
use crate::serve::request::PushRequest;
use crate::serve::sio::{sio_loop, SioOptions};
use crate::transport::conn::Conn;
use crate::transport::handshake::accept_with;
use crate::transport::stream::Stream;
use crate::transport::tls::acceptor;
use crate::transport::url::WsUrl;

/// How the reference server runs (`serve`'s options beyond the address).
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    /// `Some((d, every))`: the server's one thread blocks for `d` once every `every` (a
    /// deliberately stalling server: nothing is read or written meanwhile).
    pub stall: Option<(Duration, Duration)>,
    /// What the server does with offers of permessage-deflate.
    pub deflate: ServerPolicy,
    /// `Some((certfile, keyfile))`: serve TLS with this certificate chain and key (PEM
    /// files).
    pub tls: Option<(PathBuf, PathBuf)>,
}

/// The endpoints that answer offers of permessage-deflate (as the policy says).
pub const DEFLATE_PATHS: [&str; 3] = ["/echo", "/push", JSON_PATH];

/// Runs the reference server on `host:port` with a current-thread runtime until SIGTERM
/// or SIGINT, then returns `Ok(())`; see [`ServeOptions`].
///
/// # Errors
/// The address cannot be bound, or (TLS) the certificate or key cannot be loaded (the
/// message names the file).
pub fn run_serve(host: &str, port: u16, options: &ServeOptions) -> io::Result<()> {
    let stall = options.stall;
    let policy = Arc::new(options.deflate.clone());
    let tls = match &options.tls {
        Some((certfile, keyfile)) => Some(
            acceptor(certfile, keyfile)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?,
        ),
        None => None,
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        use tokio::signal::unix::{signal, SignalKind};
        let listener = bind(host, port).await?;
        eprintln!(
            "wsbench-loadgen serve: listening on {}",
            listener.local_addr()?
        );
        if let Some((d, every)) = stall {
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(every);
                tick.tick().await;
                loop {
                    tick.tick().await;
                    std::thread::sleep(d);
                }
            });
        }
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        let stop = async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        };
        match tls {
            None => serve(listener, move |tcp| handle_with(tcp, policy.clone()), stop).await,
            Some(tls) => {
                let handler = move |tcp| handle_tls(tcp, tls.clone(), policy.clone());
                serve(listener, handler, stop).await
            }
        }
    })
}

/// Listen backlog of the reference server (the kernel caps it at `net.core.somaxconn`).
pub const BACKLOG: u32 = 4096;

/// Binds `host:port` with SO_REUSEADDR (quick restarts on the same port) and a listen
/// backlog of [`BACKLOG`], so a burst of connects is not dropped at the accept queue.
pub async fn bind(host: &str, port: u16) -> io::Result<TcpListener> {
    let mut last = None;
    for addr in tokio::net::lookup_host((host, port)).await? {
        let socket = if addr.is_ipv4() {
            tokio::net::TcpSocket::new_v4()?
        } else {
            tokio::net::TcpSocket::new_v6()?
        };
        socket.set_reuseaddr(true)?;
        match socket.bind(addr).and_then(|()| socket.listen(BACKLOG)) {
            Ok(l) => return Ok(l),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no address")))
}

/// Accepts connections on `listener` and runs `handler` on each (as its own task) until
/// `shutdown` completes.
pub async fn serve<H, Fut>(
    listener: TcpListener,
    handler: H,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()>
where
    H: Fn(TcpStream) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let accept_loop = async {
        loop {
            match listener.accept().await {
                Ok((s, _)) => {
                    tokio::spawn(handler(s));
                }
                Err(e) => {
                    // E.g. too many open files: back off briefly instead of spinning.
                    eprintln!("wsbench-loadgen serve: accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                }
            }
        }
    };
    tokio::select! {
        _ = accept_loop => Ok(()),
        _ = shutdown => Ok(()),
    }
}

/// The reference handler for one TCP connection: upgrade, then `/echo`, `/push`, `/json`,
/// `/broadcast`, `/market` or `/socket.io/` (Socket.IO, see [`crate::serve::sio`]); offers
/// of permessage-deflate are ignored.
pub async fn handle(tcp: TcpStream) {
    handle_with(tcp, Arc::new(ServerPolicy::Ignore)).await
}

/// [`handle_with`] over TLS: the TLS handshake with `tls` first. A handshake that fails
/// drops the connection; the first failure of the process is logged on stderr.
pub async fn handle_tls(tcp: TcpStream, tls: TlsAcceptor, deflate: Arc<ServerPolicy>) {
    let _ = tcp.set_nodelay(true);
    match tls.accept(tcp).await {
        Ok(stream) => handle_with(Stream::TlsServer(Box::new(stream)), deflate).await,
        Err(e) => {
            static LOGGED: AtomicBool = AtomicBool::new(false);
            if !LOGGED.swap(true, Ordering::Relaxed) {
                eprintln!(
                    "wsbench-loadgen serve: TLS handshake failed: {e} (the first failure; \
                     later ones are not logged)"
                );
            }
        }
    }
}

/// [`handle`], answering offers of permessage-deflate on [`DEFLATE_PATHS`] as `deflate`
/// says; `tcp` is a `TcpStream` or a [`Stream`] (TLS: handshake made).
pub async fn handle_with(tcp: impl Into<Stream>, deflate: Arc<ServerPolicy>) {
    let paths = [
        "/echo",
        "/push",
        JSON_PATH,
        SOCKETIO_PATH,
        BROADCAST_PATH,
        MARKET_PATH,
    ];
    if let Some((ws, up)) = accept_with(tcp, &paths, &deflate, &DEFLATE_PATHS).await {
        match up.path.as_str() {
            "/echo" => echo_loop(ws).await,
            "/push" => push_loop(ws).await,
            JSON_PATH => json_loop(ws).await,
            BROADCAST_PATH => fanout_loop(ws, up.port, BROADCAST_PATH).await,
            MARKET_PATH => fanout_loop(ws, up.port, MARKET_PATH).await,
            _ => sio_loop(ws, up.port, SioOptions::default()).await,
        }
    }
}

/// The path of the Socket.IO endpoint (the query, `?EIO=4&transport=websocket`, is not
/// checked).
pub const SOCKETIO_PATH: &str = "/socket.io/";

/// `/echo`: sends every data message back unchanged until the client closes.
pub async fn echo_loop(mut ws: WebSocket<Conn>) {
    loop {
        let Ok(msg) = read_message(&mut ws).await else {
            return;
        };
        if msg.opcode == OpCode::Close {
            // fastwebsockets queued the close reply; push it out.
            let _ = ws.flush().await;
            return;
        }
        let frame = Frame::new(true, msg.opcode, None, msg.payload);
        if ws.write_frame(frame).await.is_err() {
            return;
        }
    }
}

/// `/json`: answers every text message, a JSON object with a string `seq`, with
/// `{"seq": "<seq>", "ok": true}` until the client closes. A binary message closes the
/// connection with 1003 (unsupported data), a message that is not such an object with
/// 1007 (invalid payload).
pub async fn json_loop(mut ws: WebSocket<Conn>) {
    loop {
        let Ok(msg) = read_message(&mut ws).await else {
            return;
        };
        let code = match msg.opcode {
            OpCode::Close => {
                let _ = ws.flush().await;
                return;
            }
            OpCode::Text => match serde_json::from_slice::<JsonRequest<'_>>(&msg.payload) {
                Ok(req) => {
                    let reply = json_reply(&req.seq).into_bytes();
                    let frame = Frame::new(true, OpCode::Text, None, Payload::Owned(reply));
                    if ws.write_frame(frame).await.is_err() {
                        return;
                    }
                    continue;
                }
                Err(_) => 1007,
            },
            _ => 1003,
        };
        let _ = ws.write_frame(Frame::close(code, b"")).await;
        let _ = ws.flush().await;
        return;
    }
}

/// `/push`: answers each request with its messages; returns when the client goes away.
pub async fn push_loop(mut ws: WebSocket<Conn>) {
    loop {
        let Ok(msg) = read_message(&mut ws).await else {
            return;
        };
        match msg.opcode {
            OpCode::Close => {
                let _ = ws.flush().await;
                return;
            }
            OpCode::Text => {}
            _ => continue,
        }
        let req: PushRequest = match serde_json::from_slice(&msg.payload) {
            Ok(
                r @ PushRequest {
                    count: 1.., size, ..
                },
            ) if (MIN_SIZE..=MAX_MESSAGE_SIZE).contains(&size) => r,
            _ => {
                let _ = ws.write_frame(Frame::close(1008, b"bad request")).await;
                let _ = ws.flush().await;
                return;
            }
        };
        let opcode = if req.binary {
            OpCode::Binary
        } else {
            OpCode::Text
        };
        let mut buf = template(req.size);
        for i in 0..req.count {
            write_seq(&mut buf, i);
            let frame = Frame::new(true, opcode, None, Payload::Borrowed(&buf));
            if ws.write_frame(frame).await.is_err() {
                return;
            }
        }
        if ws.flush().await.is_err() {
            return;
        }
    }
}

/// A server running on its own thread with a current-thread runtime, on an ephemeral
/// 127.0.0.1 port; stopped (and joined) on drop. Meant for tests.
pub struct BackgroundServer {
    /// The bound address.
    pub addr: SocketAddr,
    /// It serves TLS: [`BackgroundServer::url`] gives `wss://` URLs.
    pub tls: bool,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl BackgroundServer {
    /// Starts the reference server.
    pub fn reference() -> io::Result<Self> {
        Self::start(handle)
    }

    /// Starts the reference server answering offers of permessage-deflate as `deflate`
    /// says.
    pub fn reference_with(deflate: ServerPolicy) -> io::Result<Self> {
        let deflate = Arc::new(deflate);
        Self::start(move |tcp| handle_with(tcp, deflate.clone()))
    }

    /// Starts the reference server over TLS with `tls` (e.g. from
    /// [`crate::transport::tls::acceptor`]), answering offers of permessage-deflate as
    /// `deflate` says.
    pub fn reference_tls(tls: TlsAcceptor, deflate: ServerPolicy) -> io::Result<Self> {
        let deflate = Arc::new(deflate);
        let mut server = Self::start(move |tcp| handle_tls(tcp, tls.clone(), deflate.clone()))?;
        server.tls = true;
        Ok(server)
    }

    /// Starts a server running `handler` on every accepted connection.
    pub fn start<H, Fut>(handler: H) -> io::Result<Self>
    where
        H: Fn(TcpStream) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        let (tx, rx) = oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async move {
                let listener = TcpListener::from_std(std_listener).expect("listener");
                let _ = serve(listener, handler, async {
                    let _ = rx.await;
                })
                .await;
            });
        });
        Ok(BackgroundServer {
            addr,
            tls: false,
            stop: Some(tx),
            thread: Some(thread),
        })
    }

    /// `ws://127.0.0.1:PORT{path}` for this server (`wss://` when it serves TLS).
    pub fn url(&self, path: &str) -> WsUrl {
        WsUrl {
            tls: self.tls,
            host: self.addr.ip().to_string(),
            port: self.addr.port(),
            path: path.to_string(),
        }
    }
}

impl Drop for BackgroundServer {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
