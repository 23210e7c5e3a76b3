//! TLS: rustls 0.23 on its ring provider, through tokio-rustls.
//!
//! **Client** (`wss://` URLs, `--tls-ca PATH`): the one certificate authority bundle given
//! is all the client trusts (no system roots, no way to skip verification); the server's
//! certificate must chain to it and be valid for the URL's host (a name, or an IP address
//! in its subjectAltName). Every connection makes a full handshake: session resumption is
//! off, so that connection setup costs the same on every connection and does not depend
//! on whether the server issues session tickets. ALPN offers `http/1.1` (what a browser
//! ends up using for a WebSocket; servers that speak HTTP/2 as well pick it then). TLS
//! 1.3 and 1.2, the provider's default cipher suites and key exchange groups, in its
//! order of preference. A [`ClientTls`] serves every connection of a run and keeps what
//! the report says: the first connection's version, cipher suite and key exchange group,
//! and every failed handshake's reason (e.g. `TLS handshake failed: invalid peer
//! certificate: UnknownIssuer`), which [`ClientTls::report`] gives as the report's `tls`
//! object with the percentiles of the handshake's parts ([`HandshakeParts`]).
//!
//! **Server** (`serve --certfile PATH --keyfile PATH`, PEM; the key PKCS#8, PKCS#1 or
//! SEC1): [`acceptor`]. TLS 1.3 and 1.2; no session tickets and no session cache (the
//! load generator never resumes, so they would only cost the reference server).
//!
//! The connection's bytes then flow through a [`crate::transport::stream::Stream`].

use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rustls::client::Resumption;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::server::NoServerSessionStorage;
use rustls::{ClientConfig, ClientConnection, InvalidMessage, RootCertStore, ServerConfig};
use serde::Serialize;
use tokio::net::TcpStream;
use tokio_rustls::{client, TlsAcceptor, TlsConnector};

use crate::stats::{Hist, Summary};

/// The ALPN protocol the client offers.
pub const ALPN_HTTP1: &[u8] = b"http/1.1";

/// Distinct failure reasons a run keeps; the others are counted under
/// [`OTHER_REASONS`].
pub const MAX_REASONS: usize = 16;
/// The reason under which failures beyond [`MAX_REASONS`] distinct ones are counted.
pub const OTHER_REASONS: &str = "(other reasons)";

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The certificates of the PEM file `path` (every `CERTIFICATE` block, in order).
///
/// # Errors
/// The file cannot be read, a block is malformed, or it holds no certificate (the message
/// names the file).
pub fn load_certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|it| it.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("cannot read certificates from {}: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "no certificate in {} (PEM expected)",
            path.display()
        ));
    }
    Ok(certs)
}

/// The TLS configuration of a run's client connections, and what they agreed and why
/// any failed; see the module documentation.
pub struct ClientTls {
    connector: TlsConnector,
    /// The first handshake's outcome.
    session: OnceLock<Session>,
    /// Failed handshakes by reason.
    failures: Mutex<BTreeMap<String, u64>>,
}

/// What a handshake agreed, as reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Session {
    /// `"TLSv1.3"` or `"TLSv1.2"`.
    pub version: String,
    /// The cipher suite's IANA name, e.g. `"TLS_AES_256_GCM_SHA384"`.
    pub cipher_suite: String,
    /// The key exchange group, e.g. `"X25519"`.
    pub key_exchange: Option<String>,
}

impl Session {
    fn of(conn: &ClientConnection) -> Session {
        let version = match conn.protocol_version() {
            Some(rustls::ProtocolVersion::TLSv1_3) => "TLSv1.3".to_string(),
            Some(rustls::ProtocolVersion::TLSv1_2) => "TLSv1.2".to_string(),
            Some(v) => format!("{v:?}"),
            None => "unknown".to_string(),
        };
        let cipher_suite = conn
            .negotiated_cipher_suite()
            .map(|s| iana_name(&format!("{:?}", s.suite())))
            .unwrap_or_else(|| "unknown".to_string());
        let key_exchange = conn
            .negotiated_key_exchange_group()
            .map(|g| format!("{:?}", g.name()));
        Session {
            version,
            cipher_suite,
            key_exchange,
        }
    }
}

/// A rustls cipher suite name as IANA registers it: rustls names the TLS 1.3 suites
/// `TLS13_…`, IANA `TLS_…` (the TLS 1.2 names are already IANA's).
fn iana_name(rustls_name: &str) -> String {
    match rustls_name.strip_prefix("TLS13_") {
        Some(rest) => format!("TLS_{rest}"),
        None => rustls_name.to_string(),
    }
}

impl ClientTls {
    /// The client configuration trusting the certificates of the PEM file `ca` alone.
    ///
    /// # Errors
    /// The file cannot be read or holds no usable certificate (the message names it).
    pub fn from_ca_file(ca: &Path) -> Result<Arc<ClientTls>, String> {
        let mut roots = RootCertStore::empty();
        for cert in load_certificates(ca)? {
            roots
                .add(cert)
                .map_err(|e| format!("{}: not a CA certificate: {e}", ca.display()))?;
        }
        ClientTls::with_roots(roots)
    }

    /// The client configuration trusting `roots` alone.
    ///
    /// # Errors
    /// The provider refuses the protocol versions (not with ring).
    pub fn with_roots(roots: RootCertStore) -> Result<Arc<ClientTls>, String> {
        let mut config = ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS configuration: {e}"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.resumption = Resumption::disabled();
        config.alpn_protocols = vec![ALPN_HTTP1.to_vec()];
        Ok(Arc::new(ClientTls {
            connector: TlsConnector::from(Arc::new(config)),
            session: OnceLock::new(),
            failures: Mutex::new(BTreeMap::new()),
        }))
    }

    /// The TLS handshake on `tcp` with the server named `host` (the URL's host). On
    /// failure the reason (also counted for the report) starts `TLS handshake failed: `.
    pub async fn handshake(
        &self,
        tcp: TcpStream,
        host: &str,
    ) -> Result<client::TlsStream<TcpStream>, String> {
        let name = match ServerName::try_from(host.to_string()) {
            Ok(n) => n,
            Err(e) => return Err(self.failed(format!("TLS: `{host}` is not a server name: {e}"))),
        };
        match self.connector.connect(name, tcp).await {
            Ok(tls) => {
                self.session.get_or_init(|| Session::of(tls.get_ref().1));
                Ok(tls)
            }
            Err(e) => Err(self.failed(handshake_error(&e))),
        }
    }

    /// Counts a failure for `reason` and returns it.
    fn failed(&self, reason: String) -> String {
        let mut f = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let key = if f.len() < MAX_REASONS || f.contains_key(&reason) {
            reason.clone()
        } else {
            OTHER_REASONS.to_string()
        };
        *f.entry(key).or_default() += 1;
        reason
    }

    /// The first handshake's outcome (`None` before any succeeded).
    pub fn session(&self) -> Option<&Session> {
        self.session.get()
    }

    /// The report's `tls` object: what the first connection agreed, the percentiles of
    /// `parts`, and the failed handshakes by reason.
    pub fn report(&self, parts: &HandshakeParts) -> TlsReport {
        let session = self.session.get();
        TlsReport {
            version: session.map(|s| s.version.clone()),
            cipher_suite: session.map(|s| s.cipher_suite.clone()),
            key_exchange: session.and_then(|s| s.key_exchange.clone()),
            tcp_connect_us: parts.tcp_connect.summary_us(),
            handshake_us: parts.tls.summary_us(),
            upgrade_us: parts.upgrade.summary_us(),
            failures: self
                .failures
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        }
    }
}

/// Why a TLS handshake failed, as reported: `TLS handshake failed: ` and rustls' reason
/// (e.g. `invalid peer certificate: UnknownIssuer`), with a hint when the server's answer
/// is not TLS at all.
fn handshake_error(e: &io::Error) -> String {
    let rustls_error = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>());
    let why = match rustls_error {
        Some(r @ rustls::Error::InvalidMessage(InvalidMessage::InvalidContentType)) => {
            format!("{r} (the server's answer is not TLS: a plain ws:// server?)")
        }
        Some(r) => r.to_string(),
        None => match e.kind() {
            io::ErrorKind::UnexpectedEof => {
                "the server closed the connection during the handshake".to_string()
            }
            io::ErrorKind::ConnectionReset => {
                "the server reset the connection during the handshake".to_string()
            }
            _ => e.to_string(),
        },
    };
    format!("TLS handshake failed: {why}")
}

/// The report's `tls` object (`null` without TLS). The three parts of each connection's
/// handshake add up to its `handshake_us` (the whole of it).
#[derive(Debug, Clone, Serialize)]
pub struct TlsReport {
    /// The protocol version the first connection agreed, `"TLSv1.3"` or `"TLSv1.2"`;
    /// null when no handshake succeeded.
    pub version: Option<String>,
    /// Its cipher suite (IANA name, e.g. `"TLS_AES_256_GCM_SHA384"`).
    pub cipher_suite: Option<String>,
    /// Its key exchange group (e.g. `"X25519"`).
    pub key_exchange: Option<String>,
    /// TCP connect (from the attempt's start: socket, bind, connect, to the connection
    /// established) of the connections whose `handshake_us` is reported, µs.
    pub tcp_connect_us: Summary,
    /// The TLS handshake (ClientHello to the handshake complete, the server's
    /// certificate verified), µs.
    pub handshake_us: Summary,
    /// The rest: the WebSocket upgrade (request to the `101` response read), plus for
    /// Socket.IO the Engine.IO open packet and the namespace connection, µs.
    pub upgrade_us: Summary,
    /// Failed TLS handshakes by reason (at most [`MAX_REASONS`] reasons; more are
    /// counted under [`OTHER_REASONS`]); each is also a `handshake_failed` error.
    pub failures: BTreeMap<String, u64>,
}

/// Histograms of the parts of TLS connections' handshakes: TCP connect, TLS handshake,
/// and the rest (upgrade, Socket.IO session opening).
#[derive(Debug, Clone, Default)]
pub struct HandshakeParts {
    tcp_connect: Hist,
    tls: Hist,
    upgrade: Hist,
}

impl HandshakeParts {
    /// Records one connection whose whole handshake took `total`, of which `tcp_connect`
    /// the TCP connect and `tls` the TLS handshake (`None`: not TLS, nothing recorded).
    pub fn record(&mut self, total: Duration, tcp_connect: Duration, tls: Option<Duration>) {
        if let Some(tls) = tls {
            self.tcp_connect.record(tcp_connect);
            self.tls.record(tls);
            self.upgrade.record(total.saturating_sub(tcp_connect + tls));
        }
    }

    /// Adds everything `other` recorded.
    pub fn merge(&mut self, other: &HandshakeParts) {
        self.tcp_connect.merge(&other.tcp_connect);
        self.tls.merge(&other.tls);
        self.upgrade.merge(&other.upgrade);
    }
}

/// The reference server's TLS acceptor: the certificate chain of the PEM file `certfile`
/// (the server's certificate first) and the private key of the PEM file `keyfile`
/// (PKCS#8, PKCS#1 or SEC1).
///
/// # Errors
/// A file cannot be read or parsed, or the key does not match the certificate (the
/// message names the file).
pub fn acceptor(certfile: &Path, keyfile: &Path) -> Result<TlsAcceptor, String> {
    let certs = load_certificates(certfile)?;
    let key = PrivateKeyDer::from_pem_file(keyfile)
        .map_err(|e| format!("cannot read a private key from {}: {e}", keyfile.display()))?;
    let mut config = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS configuration: {e}"))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| {
            format!(
                "{} and {}: not a usable certificate and key: {e}",
                certfile.display(),
                keyfile.display()
            )
        })?;
    config.send_tls13_tickets = 0;
    config.session_storage = Arc::new(NoServerSessionStorage {});
    Ok(TlsAcceptor::from(Arc::new(config)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cipher_suites_get_their_iana_names() {
        assert_eq!(
            iana_name("TLS13_AES_256_GCM_SHA384"),
            "TLS_AES_256_GCM_SHA384"
        );
        assert_eq!(
            iana_name("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"),
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"
        );
    }

    #[test]
    fn handshake_errors_name_rustls_reason_or_the_server_that_is_not_tls() {
        let unknown = io::Error::new(
            io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer),
        );
        assert_eq!(
            handshake_error(&unknown),
            "TLS handshake failed: invalid peer certificate: UnknownIssuer"
        );
        let plain = io::Error::new(
            io::ErrorKind::InvalidData,
            rustls::Error::InvalidMessage(InvalidMessage::InvalidContentType),
        );
        assert!(handshake_error(&plain).contains("not TLS"));
        let eof = io::Error::new(io::ErrorKind::UnexpectedEof, "tls handshake eof");
        assert_eq!(
            handshake_error(&eof),
            "TLS handshake failed: the server closed the connection during the handshake"
        );
    }

    #[test]
    fn failure_reasons_are_counted_and_capped() {
        let tls = ClientTls::with_roots(RootCertStore::empty()).unwrap();
        for i in 0..MAX_REASONS + 3 {
            tls.failed(format!("reason {i}"));
        }
        tls.failed("reason 0".to_string());
        let r = tls.report(&HandshakeParts::default());
        assert_eq!(r.failures.len(), MAX_REASONS + 1);
        assert_eq!(r.failures["reason 0"], 2);
        assert_eq!(r.failures[OTHER_REASONS], 3);
        assert_eq!(r.version, None);
    }
}
