//! `ws://host:port/path` and `wss://host:port/path` URLs (`wss://`: WebSocket over TLS,
//! see [`crate::transport::tls`]).

use std::fmt;
use std::str::FromStr;

/// A parsed `ws://` or `wss://` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WsUrl {
    /// `wss://`: the connection is TLS (the host is the name the server's certificate
    /// must be valid for).
    pub tls: bool,
    /// Host name or IP address (IPv6 without brackets).
    pub host: String,
    /// TCP port (80 when the URL has none; `wss://`: 443).
    pub port: u16,
    /// Request target: path plus optional query, always starting with `/`.
    pub path: String,
}

impl WsUrl {
    /// `host:port` as used in the `Host` header and for address resolution.
    pub fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

impl fmt::Display for WsUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.tls { "wss" } else { "ws" };
        write!(f, "{scheme}://{}{}", self.authority(), self.path)
    }
}

impl FromStr for WsUrl {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let (tls, rest) = match (s.strip_prefix("ws://"), s.strip_prefix("wss://")) {
            (Some(rest), _) => (false, rest),
            (_, Some(rest)) => (true, rest),
            _ => {
                return Err(format!(
                    "`{s}` is not a ws:// or wss:// URL (expected ws://HOST:PORT/PATH)"
                ))
            }
        };
        let (auth, path) = match rest.find(['/', '?']) {
            Some(i) if rest.as_bytes()[i] == b'/' => (&rest[..i], rest[i..].to_string()),
            Some(i) => (&rest[..i], format!("/{}", &rest[i..])),
            None => (rest, "/".to_string()),
        };
        if auth.contains('@') {
            return Err(format!("`{s}`: user information is not supported"));
        }
        let (host, port) = if let Some(r) = auth.strip_prefix('[') {
            let end = r.find(']').ok_or_else(|| format!("`{s}`: unclosed '['"))?;
            let host = &r[..end];
            match &r[end + 1..] {
                "" => (host, None),
                p => (
                    host,
                    Some(
                        p.strip_prefix(':')
                            .ok_or_else(|| format!("`{s}`: bad port"))?,
                    ),
                ),
            }
        } else {
            match auth.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (auth, None),
            }
        };
        if host.is_empty() {
            return Err(format!("`{s}`: missing host"));
        }
        if host.chars().any(|c| c.is_whitespace()) {
            return Err(format!("`{s}`: bad host"));
        }
        let port = match port {
            None if tls => 443,
            None => 80,
            Some(p) => p
                .parse::<u16>()
                .ok()
                .filter(|&p| p != 0)
                .ok_or_else(|| format!("`{s}`: bad port `{p}` (expected 1-65535)"))?,
        };
        if path.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!("`{s}`: bad path"));
        }
        Ok(WsUrl {
            tls,
            host: host.to_string(),
            port,
            path,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        let u: WsUrl = "ws://127.0.0.1:8080/echo".parse().unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str()),
            ("127.0.0.1", 8080, "/echo")
        );
        let u: WsUrl = "ws://localhost".parse().unwrap();
        assert_eq!((u.port, u.path.as_str()), (80, "/"));
        let u: WsUrl = "ws://[::1]:9/push?x=1".parse().unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str()),
            ("::1", 9, "/push?x=1")
        );
        assert_eq!(u.to_string(), "ws://[::1]:9/push?x=1");
        // The Socket.IO URL keeps its query in the request target.
        let u: WsUrl = "ws://127.0.0.1:8000/socket.io/?EIO=4&transport=websocket"
            .parse()
            .unwrap();
        assert_eq!(u.path, "/socket.io/?EIO=4&transport=websocket");
        assert!(!u.tls);
        // wss://: TLS, port 443 by default.
        let u: WsUrl = "wss://localhost/echo".parse().unwrap();
        assert_eq!((u.tls, u.host.as_str(), u.port), (true, "localhost", 443));
        let u: WsUrl = "wss://127.0.0.1:8443/echo".parse().unwrap();
        assert_eq!((u.tls, u.port), (true, 8443));
        assert_eq!(u.to_string(), "wss://127.0.0.1:8443/echo");
        for bad in [
            "http://x/",
            "ws://",
            "ws://h:0/",
            "ws://h:99999/",
            "ws://h:x/",
            "wss://",
            "https://h/",
            "ws:/h",
        ] {
            assert!(bad.parse::<WsUrl>().is_err(), "{bad}");
        }
    }
}
