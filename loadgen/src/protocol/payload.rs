//! Message layout shared with every server (see `impls/PROTOCOL.md`).
//!
//! Message `i` of size `S` bytes is `format!("{:016x}", i)` followed by `S - 16` filler
//! bytes, where the byte at offset `k` (16 ≤ k < S) is `b'a' + (k % 26)`. The whole
//! message is ASCII, so the same bytes are sent as text or binary frames.

/// Length of the sequence-number prefix, in bytes (16 lowercase hex digits).
pub const SEQ_LEN: usize = 16;

/// Smallest valid message size, in bytes.
pub const MIN_SIZE: usize = SEQ_LEN;

/// Largest message size the command line accepts, in bytes (64 MiB).
pub const MAX_SIZE: usize = 64 << 20;

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Filler byte expected at byte offset `k` (k ≥ 16) of every message.
#[inline]
pub fn filler_byte(k: usize) -> u8 {
    b'a' + (k % 26) as u8
}

/// Builds a message template of `size` bytes: sixteen `'0'` digits (sequence 0) and the
/// filler. Callers overwrite the first 16 bytes with [`write_seq`].
pub fn template(size: usize) -> Vec<u8> {
    let mut v = vec![b'0'; size];
    for (k, b) in v.iter_mut().enumerate().skip(SEQ_LEN) {
        *b = filler_byte(k);
    }
    v
}

/// Writes `seq` as 16 lowercase hex digits into `buf[..16]`.
///
/// # Panics
/// If `buf` is shorter than 16 bytes.
#[inline]
pub fn write_seq(buf: &mut [u8], seq: u64) {
    let head = &mut buf[..SEQ_LEN];
    for (i, b) in head.iter_mut().rev().enumerate() {
        *b = HEX[((seq >> (4 * i)) & 0xf) as usize];
    }
}

/// Builds message `seq` of `size` bytes (convenience for tests and tools).
pub fn message(seq: u64, size: usize) -> Vec<u8> {
    let mut v = template(size);
    write_seq(&mut v, seq);
    v
}

/// Parses the 16-digit lowercase hex sequence number at the start of `msg`.
/// Returns `None` if the message is shorter than 16 bytes or a digit is not `[0-9a-f]`.
#[inline]
pub fn parse_seq(msg: &[u8]) -> Option<u64> {
    let head = msg.get(..SEQ_LEN)?;
    let mut v: u64 = 0;
    for &c in head {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => return None,
        };
        v = (v << 4) | d as u64;
    }
    Some(v)
}

/// Outcome of checking one received message against the expected layout.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Inspection {
    /// Sequence number, if the 16-digit prefix parses.
    pub seq: Option<u64>,
    /// True when frame type, length and filler are all exactly as expected.
    pub intact: bool,
}

/// Checks a received message: `type_ok` says whether the frame type matched, `template`
/// is the expected message (its first 16 bytes are ignored).
#[inline]
pub fn inspect(msg: &[u8], type_ok: bool, template: &[u8]) -> Inspection {
    let seq = parse_seq(msg);
    let intact = type_ok
        && seq.is_some()
        && msg.len() == template.len()
        && msg[SEQ_LEN..] == template[SEQ_LEN..];
    Inspection { seq, intact }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_protocol() {
        let m = message(0x1f, 30);
        assert_eq!(&m[..16], b"000000000000001f");
        assert_eq!(m[16], b'a' + 16);
        assert_eq!(m[29], b'a' + (29 % 26) as u8);
        assert_eq!(m.len(), 30);
        let expected: Vec<u8> = format!("{:016x}", 0x1fu64)
            .into_bytes()
            .into_iter()
            .chain((16..30).map(|k| b'a' + (k % 26) as u8))
            .collect();
        assert_eq!(m, expected);
    }

    #[test]
    fn seq_roundtrip() {
        for s in [0u64, 1, 255, 1 << 31, u64::MAX] {
            let m = message(s, 16);
            assert_eq!(parse_seq(&m), Some(s));
        }
        assert_eq!(parse_seq(b"000000000000000G"), None);
        assert_eq!(parse_seq(b"00000000000000A0"), None);
        assert_eq!(parse_seq(b"short"), None);
    }

    #[test]
    fn inspect_detects_corruption() {
        let t = template(40);
        let mut m = message(7, 40);
        assert_eq!(
            inspect(&m, true, &t),
            Inspection {
                seq: Some(7),
                intact: true
            }
        );
        assert!(!inspect(&m, false, &t).intact);
        m[20] ^= 1;
        assert_eq!(
            inspect(&m, true, &t),
            Inspection {
                seq: Some(7),
                intact: false
            }
        );
        assert!(!inspect(&m[..39], true, &t).intact);
    }
}
