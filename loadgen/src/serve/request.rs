//! What the reference server's plain endpoints ([`crate::serve`]) and its Socket.IO
//! endpoint ([`crate::serve::sio`]) both decode: the push request of `/push` and of the
//! Socket.IO event `push`.

use serde::Deserialize;

/// A `/push` request.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct PushRequest {
    /// Number of messages to send (≥ 1).
    pub count: u64,
    /// Size of each message, bytes (≥ 16).
    pub size: usize,
    /// Binary frames if true, text frames otherwise.
    #[serde(default = "yes")]
    pub binary: bool,
}

fn yes() -> bool {
    true
}
