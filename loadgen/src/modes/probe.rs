//! `probe`: one connect (+ TLS handshake, `wss://`) + WebSocket upgrade attempt, then a
//! clean close.

use std::time::{Duration, Instant};

use std::path::Path;

use crate::modes::run::{block_on, client_tls, resolve};
use crate::protocol::ws::close_gracefully;
use crate::transport::handshake::connect;
use crate::transport::url::WsUrl;

/// Connects to `url` (`wss://`: over TLS, trusting the CA file `tls_ca`), upgrades and
/// closes cleanly, all within `timeout`. The error is one line naming why: `connection
/// refused`, `handshake failed: status …`, `TLS handshake failed: invalid peer
/// certificate: UnknownIssuer`, `timeout`, ….
pub async fn probe(url: &WsUrl, timeout: Duration, tls_ca: Option<&Path>) -> Result<(), String> {
    let start = Instant::now();
    let tls = client_tls(tls_ca).map_err(|e| e.to_string())?;
    let left = || timeout.saturating_sub(start.elapsed());
    let addr = tokio::time::timeout(timeout, resolve(url))
        .await
        .map_err(|_| "timeout".to_string())?
        .map_err(|e| e.to_string())?;
    let mut ws = connect(addr, url, left(), tls.as_deref())
        .await
        .map_err(|e| e.to_string())?
        .ws;
    // The upgrade succeeded; the close is a courtesy and cannot fail the probe.
    close_gracefully(&mut ws, left().min(Duration::from_secs(1))).await;
    Ok(())
}

/// [`probe`] on its own current-thread runtime.
pub fn run_probe(url: &WsUrl, timeout: Duration, tls_ca: Option<&Path>) -> Result<(), String> {
    block_on(1, &[], probe(url, timeout, tls_ca)).map_err(|e| e.to_string())?
}
