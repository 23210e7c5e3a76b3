//! `autobahn-client`: the load generator's WebSocket client graded by the
//! Autobahn|Testsuite's fuzzing server (`wstest -m fuzzingserver`), a conformance harness
//! for the client, not a load scenario.
//!
//! The fuzzing server grades a client: the client asks `/getCaseCount` for the number of
//! cases (one text message), connects to `/runCase?case=N&agent=AGENT` for each case N,
//! sends back every text and binary message it receives (same type, same bytes), answers
//! pings and completes the closing handshake; `/updateReports?agent=AGENT` then makes the
//! suite write its reports (`reports/clients/index.json`).
//!
//! Every case runs on the code paths the scenarios use: the upgrade of
//! [`crate::transport::handshake::connect`] on a [`crate::transport::conn::Conn`], frames
//! read, reassembled and checked (reserved bits, opcodes, UTF-8 of text messages, close
//! frames) by [`crate::protocol::ws::read_message`] over fastwebsockets configured by
//! [`crate::protocol::ws::configure`] (auto-pong, auto-close), echoes encoded and masked by
//! [`crate::protocol::ws::encode_client_frame`] into the connection's outbox as the echo
//! scenario's messages are, and a read error answered by
//! [`crate::protocol::ws::fail_connection`].

use std::time::Duration;

use fastwebsockets::OpCode;
use serde::Serialize;

use crate::modes::echo::append_frame;
use crate::modes::run::{block_on, client_tls, resolve, RunError};
use crate::protocol::ws::{
    close_code, fail_connection, failure_close_code, finish_server_close, read_message, MaskGen,
};
use crate::transport::handshake::{connect, Client};
use crate::transport::tls::ClientTls;
use crate::transport::url::WsUrl;

/// What `autobahn-client` is given.
#[derive(Debug, Clone)]
pub struct AutobahnConfig {
    /// The fuzzing server, `ws://HOST:PORT` (its path is ignored).
    pub url: WsUrl,
    /// The agent name the cases are reported under (letters, digits, `-`, `_`, `.`).
    pub agent: String,
    /// Limit of each case (connect, echoes and close), and of the two other requests.
    pub timeout: Duration,
    /// `wss://` URLs: the CA file the client trusts (`--tls-ca`).
    pub tls_ca: Option<std::path::PathBuf>,
}

/// How the client's side of one case ended (the suite grades the case itself).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct CaseEnd {
    /// Case number, from 1.
    pub case: u32,
    /// Data messages echoed.
    pub echoed: u64,
    /// `"closed"` (the server's close frame, answered), `"failed"` (the client failed the
    /// connection on a protocol error), `"dropped"` (the connection ended without a close
    /// frame), `"timeout"` or `"connect"` (the upgrade failed).
    pub end: &'static str,
    /// The close code the server sent (`closed`), or the client sent (`failed`; none
    /// when the error had fastwebsockets send it, or for an I/O error).
    pub close_code: Option<u16>,
    /// The error, for `failed`, `dropped` and `connect`.
    pub error: Option<String>,
}

/// The report: one JSON document on stdout.
#[derive(Debug, Clone, Serialize)]
pub struct AutobahnReport {
    /// `"wsbench-loadgen"`.
    pub tool: &'static str,
    /// Crate version.
    pub version: &'static str,
    /// `"autobahn-client"`.
    pub scenario: &'static str,
    /// The fuzzing server's URL as given.
    pub url: String,
    /// The agent name.
    pub agent: String,
    /// The case count the server announced.
    pub case_count: u32,
    /// One entry per case, in order.
    pub cases: Vec<CaseEnd>,
}

/// Runs every case on its own current-thread runtime and asks the server to write its
/// reports.
pub fn run_autobahn(cfg: &AutobahnConfig) -> Result<AutobahnReport, RunError> {
    block_on(1, &[], autobahn(cfg))?
}

/// `url` with the request target `path` (host and port kept).
fn at(url: &WsUrl, path: String) -> WsUrl {
    WsUrl {
        tls: url.tls,
        host: url.host.clone(),
        port: url.port,
        path,
    }
}

async fn autobahn(cfg: &AutobahnConfig) -> Result<AutobahnReport, RunError> {
    let addr = resolve(&cfg.url).await?;
    let tls = client_tls(cfg.tls_ca.as_deref())?;
    let tls = tls.as_deref();
    let failed = |url: &WsUrl, why: String| RunError::FuzzingServer(format!("{url}: {why}"));
    let count_url = at(&cfg.url, "/getCaseCount".into());
    let text = tokio::time::timeout(cfg.timeout, async {
        let mut client = connect(addr, &count_url, cfg.timeout, tls)
            .await
            .map_err(|e| e.to_string())?;
        let m = read_message(&mut client.ws)
            .await
            .map_err(|e| e.to_string())?;
        Ok::<_, String>(String::from_utf8_lossy(&m.payload).into_owned())
    })
    .await
    .map_err(|_| failed(&count_url, "timeout".into()))?
    .map_err(|e| failed(&count_url, e))?;
    let case_count: u32 = text
        .trim()
        .parse()
        .map_err(|_| failed(&count_url, format!("not a number: {text:?}")))?;

    let mut cases = Vec::with_capacity(case_count as usize);
    for case in 1..=case_count {
        let url = at(
            &cfg.url,
            format!("/runCase?case={case}&agent={}", cfg.agent),
        );
        let end = run_case(addr, &url, case, cfg.timeout, tls).await;
        eprintln!(
            "wsbench-loadgen autobahn-client: case {case}/{case_count}: {} {}",
            end.end,
            end.error.as_deref().unwrap_or("")
        );
        cases.push(end);
    }

    let update = at(&cfg.url, format!("/updateReports?agent={}", cfg.agent));
    let updated = tokio::time::timeout(cfg.timeout, async {
        let mut client = connect(addr, &update, cfg.timeout, tls)
            .await
            .map_err(|e| e.to_string())?;
        // The server closes once the reports are written.
        while let Ok(m) = read_message(&mut client.ws).await {
            if m.opcode == OpCode::Close {
                break;
            }
        }
        Ok::<_, String>(())
    })
    .await;
    match updated {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(failed(&update, e)),
        Err(_) => return Err(failed(&update, "timeout".into())),
    }
    Ok(AutobahnReport {
        tool: "wsbench-loadgen",
        version: env!("CARGO_PKG_VERSION"),
        scenario: "autobahn-client",
        url: cfg.url.to_string(),
        agent: cfg.agent.clone(),
        case_count,
        cases,
    })
}

/// One case: connect to `url`, echo every data message until the server's close frame
/// (answered by fastwebsockets' auto-close) or an error, all within `timeout`.
async fn run_case(
    addr: std::net::SocketAddr,
    url: &WsUrl,
    case: u32,
    timeout: Duration,
    tls: Option<&ClientTls>,
) -> CaseEnd {
    let mut end = CaseEnd {
        case,
        echoed: 0,
        end: "timeout",
        close_code: None,
        error: None,
    };
    let _ = tokio::time::timeout(timeout, async {
        let client = match connect(addr, url, timeout, tls).await {
            Ok(c) => c,
            Err(e) => {
                end.end = "connect";
                end.error = Some(e.to_string());
                return;
            }
        };
        echo(client, case, timeout, &mut end).await;
    })
    .await;
    end
}

/// Echoes data messages on `client` until the connection ends; records how in `end`.
async fn echo(client: Client, case: u32, timeout: Duration, end: &mut CaseEnd) {
    let Client { mut ws, outbox, .. } = client;
    let mut masks = MaskGen::new(u64::from(case));
    loop {
        let m = match read_message(&mut ws).await {
            Ok(m) => m,
            Err(e) => {
                end.end = match failure_close_code(&e) {
                    Some(_) => "failed",
                    None => "dropped",
                };
                end.error = Some(e.to_string());
                end.close_code = fail_connection(ws, &e, timeout).await;
                return;
            }
        };
        if m.opcode == OpCode::Close {
            end.end = "closed";
            end.close_code = close_code(&m.payload);
            finish_server_close(ws, timeout).await;
            return;
        }
        {
            let mut out = outbox.lock().unwrap_or_else(|e| e.into_inner());
            append_frame(
                &mut out.queue,
                m.opcode,
                &m.payload,
                None,
                b"",
                masks.next_mask(),
            );
        }
        if let Err(e) = ws.flush().await {
            end.end = "dropped";
            end.error = Some(e.to_string());
            return;
        }
        end.echoed += 1;
    }
}
