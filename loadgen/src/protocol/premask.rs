//! Large message bodies masked in advance with a few masking keys.
//!
//! A client masks every frame it sends (RFC 6455 §5.3). Masking a 64 KiB message as it
//! is sent costs two passes over it in user space (copy into the output buffer, XOR) and
//! a third in the kernel. But every message of a run has the same body: the bytes after
//! its 16-digit sequence number. So, for messages of [`PREMASK_MIN_SIZE`] bytes or more,
//! the body is masked once per key from a small pool of [`PREMASK_KEYS`] random keys; a
//! frame is then its header, its masked sequence number and a shared pre-masked body that
//! `writev` hands to the kernel without a user-space copy (see
//! [`crate::transport::outqueue`]).
//!
//! Servers cannot tell the difference: every frame is masked, each with one of several
//! keys drawn at random. RFC 6455 wants unpredictable keys to protect intermediaries that
//! misread client data; a benchmark on loopback has none.

use std::sync::Arc;

use crate::protocol::ws::{apply_mask_from, MaskGen};

/// Message size (bytes) from which bodies are pre-masked; smaller messages are encoded
/// directly, which is cheaper than an extra `iovec` each.
pub const PREMASK_MIN_SIZE: usize = 4096;

/// Number of masking keys (and pre-masked copies of the body) per run.
pub const PREMASK_KEYS: usize = 4;

/// The shared body masked with each key of a pool; see the module documentation.
#[derive(Debug)]
pub struct PremaskedBodies {
    entries: Vec<([u8; 4], Arc<[u8]>)>,
}

impl PremaskedBodies {
    /// Masks `body` with `keys` keys drawn from `masks`. `offset` is the position of the
    /// body's first byte in the frame payload (the masking key repeats every 4 bytes from
    /// the payload's start).
    ///
    /// # Panics
    /// If `keys` is 0.
    pub fn new(body: &[u8], offset: usize, keys: usize, masks: &mut MaskGen) -> Self {
        assert!(keys > 0, "at least one masking key");
        let entries = (0..keys)
            .map(|_| {
                let key = masks.next_mask();
                let mut masked = body.to_vec();
                apply_mask_from(&mut masked, key, offset);
                (key, Arc::from(masked))
            })
            .collect();
        PremaskedBodies { entries }
    }

    /// A key of the pool, chosen at random by `masks`, with the body masked by it.
    pub fn pick(&self, masks: &mut MaskGen) -> ([u8; 4], Arc<[u8]>) {
        let r = u32::from_le_bytes(masks.next_mask()) as usize;
        let (key, body) = &self.entries[r % self.entries.len()];
        (*key, body.clone())
    }
}
