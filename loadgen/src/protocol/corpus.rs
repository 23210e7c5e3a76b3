//! The JSON corpus (`impls/PROTOCOL.md`, "The JSON corpus"): 128 realistic JSON messages of
//! exactly 1,024 bytes (chat messages, order book updates, API events), compiled in from
//! `loadgen/corpus/json-1024.jsonl`, sent where compression is measured (`--corpus`).
//!
//! Message `i` is line `i mod 128` with `i` as 16 lowercase hex digits in its first member,
//! `"seq":"<16 digits>"`, at byte [`SEQ_OFFSET`]; a reply is intact when it is exactly the
//! message of the sequence number it carries. Socket.IO sends a message as the event's
//! string argument, so there it travels JSON-escaped ([`Corpus::escaped`]): `"` as `\"`,
//! which is what every Socket.IO server's JSON encoder writes back.

use crate::protocol::payload::{parse_seq, write_seq, Inspection, SEQ_LEN};

/// The corpus file, one message per line.
const TEXT: &str = include_str!("../../corpus/json-1024.jsonl");

/// The size of every message of the corpus, bytes.
pub const SIZE: usize = 1024;

/// The byte offset of the sequence digits in a message (after `{"seq":"`).
pub const SEQ_OFFSET: usize = 8;

/// The corpus's messages (sequence 0), and their JSON-escaped forms.
#[derive(Debug, Clone)]
pub struct Corpus {
    lines: Vec<Vec<u8>>,
    escaped: Vec<Vec<u8>>,
}

/// A corpus whose layout is not the protocol's (a line of another size, or without the
/// sequence slot where it belongs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusError(pub String);

impl std::fmt::Display for CorpusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the JSON corpus: {}", self.0)
    }
}

impl std::error::Error for CorpusError {}

/// `msg` JSON-escaped, as a JSON string's contents: `"` and `\` escaped with `\`, control
/// characters as `\u00XX` (the corpus has none).
fn json_escaped(msg: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(msg.len() + msg.len() / 4);
    for &b in msg {
        match b {
            b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
            0..=0x1f => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            _ => out.push(b),
        }
    }
    out
}

impl Corpus {
    /// The compiled-in corpus.
    ///
    /// # Errors
    /// A line that is not [`SIZE`] bytes or lacks the sequence slot (a corpus file edited
    /// by hand; `make_corpus.py --check` catches it first).
    pub fn load() -> Result<Self, CorpusError> {
        Self::parse(TEXT)
    }

    fn parse(text: &str) -> Result<Self, CorpusError> {
        let mut lines = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let bytes = line.as_bytes();
            if bytes.len() != SIZE {
                return Err(CorpusError(format!(
                    "line {} is {} bytes, not {SIZE}",
                    n + 1,
                    bytes.len()
                )));
            }
            if !bytes.starts_with(b"{\"seq\":\"") || parse_seq(&bytes[SEQ_OFFSET..]) != Some(0) {
                return Err(CorpusError(format!(
                    "line {} does not start with {{\"seq\":\"0000000000000000\"",
                    n + 1
                )));
            }
            lines.push(bytes.to_vec());
        }
        if lines.is_empty() {
            return Err(CorpusError("no messages".into()));
        }
        let escaped = lines.iter().map(|l| json_escaped(l)).collect();
        Ok(Corpus { lines, escaped })
    }

    /// Messages in the corpus.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Always false: [`Corpus::load`] refuses an empty corpus.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    fn index(&self, seq: u64) -> usize {
        (seq % self.lines.len() as u64) as usize
    }

    /// Message `seq` appended to `out` ([`SIZE`] bytes).
    pub fn write_message(&self, seq: u64, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&self.lines[self.index(seq)]);
        write_seq(&mut out[start + SEQ_OFFSET..], seq);
    }

    /// Message `seq` JSON-escaped (a Socket.IO string argument's contents) appended to
    /// `out`; its sequence digits are at [`Corpus::escaped_seq_offset`].
    pub fn write_escaped(&self, seq: u64, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&self.escaped[self.index(seq)]);
        write_seq(&mut out[start + Self::escaped_seq_offset()..], seq);
    }

    /// The byte offset of the sequence digits in an escaped message (after `{\"seq\":\"`).
    pub const fn escaped_seq_offset() -> usize {
        SEQ_OFFSET + 3
    }

    /// Checks a received message (`escaped`: in its JSON-escaped form): intact when the
    /// frame type was right (`type_ok`) and it is exactly the message of the sequence
    /// number it carries.
    pub fn inspect(&self, msg: &[u8], type_ok: bool, escaped: bool) -> Inspection {
        let offset = if escaped {
            Self::escaped_seq_offset()
        } else {
            SEQ_OFFSET
        };
        let seq = msg.get(offset..).and_then(parse_seq);
        let intact = match seq {
            Some(s) if type_ok => {
                let want = if escaped {
                    &self.escaped[self.index(s)]
                } else {
                    &self.lines[self.index(s)]
                };
                msg.len() == want.len()
                    && msg[..offset] == want[..offset]
                    && msg[offset + SEQ_LEN..] == want[offset + SEQ_LEN..]
            }
            _ => false,
        };
        Inspection { seq, intact }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_is_128_json_objects_of_1024_bytes() {
        let corpus = Corpus::load().unwrap();
        assert_eq!(corpus.len(), 128);
        for seq in 0..128u64 {
            let mut m = Vec::new();
            corpus.write_message(seq, &mut m);
            assert_eq!(m.len(), SIZE);
            let value: serde_json::Value = serde_json::from_slice(&m).unwrap();
            assert_eq!(value["seq"], format!("{seq:016x}"));
        }
    }

    #[test]
    fn message_i_is_line_i_mod_128_with_its_sequence_number() {
        let corpus = Corpus::load().unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        corpus.write_message(5, &mut a);
        corpus.write_message(5 + 128, &mut b);
        assert_eq!(&a[..SEQ_OFFSET], b"{\"seq\":\"");
        assert_eq!(&a[SEQ_OFFSET..SEQ_OFFSET + SEQ_LEN], b"0000000000000005");
        assert_eq!(&b[SEQ_OFFSET..SEQ_OFFSET + SEQ_LEN], b"0000000000000085");
        assert_eq!(a[SEQ_OFFSET + SEQ_LEN..], b[SEQ_OFFSET + SEQ_LEN..]);
        let mut c = Vec::new();
        corpus.write_message(6, &mut c);
        assert_ne!(a[SEQ_OFFSET + SEQ_LEN..], c[SEQ_OFFSET + SEQ_LEN..]);
    }

    #[test]
    fn inspect_finds_the_sequence_number_and_any_changed_byte() {
        let corpus = Corpus::load().unwrap();
        let mut m = Vec::new();
        corpus.write_message(300, &mut m);
        let ok = corpus.inspect(&m, true, false);
        assert_eq!((ok.seq, ok.intact), (Some(300), true));
        assert!(!corpus.inspect(&m, false, false).intact);
        let mut changed = m.clone();
        changed[700] ^= 1;
        assert_eq!(corpus.inspect(&changed, true, false).seq, Some(300));
        assert!(!corpus.inspect(&changed, true, false).intact);
        // Another message's body with this sequence number is not this message.
        let mut other = Vec::new();
        corpus.write_message(301, &mut other);
        write_seq(&mut other[SEQ_OFFSET..], 300);
        assert!(!corpus.inspect(&other, true, false).intact);
        assert!(!corpus.inspect(&m[..1000], true, false).intact);
        assert_eq!(corpus.inspect(b"{\"seq\":\"zz", true, false).seq, None);
    }

    #[test]
    fn the_escaped_form_is_what_a_json_encoder_writes_for_the_string() {
        let corpus = Corpus::load().unwrap();
        let (mut m, mut e) = (Vec::new(), Vec::new());
        corpus.write_message(42, &mut m);
        corpus.write_escaped(42, &mut e);
        let as_string = serde_json::to_string(std::str::from_utf8(&m).unwrap()).unwrap();
        assert_eq!(e, as_string.as_bytes()[1..as_string.len() - 1]);
        let found = corpus.inspect(&e, true, true);
        assert_eq!((found.seq, found.intact), (Some(42), true));
        assert!(!corpus.inspect(&m, true, true).intact);
    }

    #[test]
    fn a_malformed_corpus_is_refused_with_the_line() {
        let short = "{\"seq\":\"0000000000000000\"}\n";
        assert_eq!(
            Corpus::parse(short).unwrap_err().0,
            "line 1 is 26 bytes, not 1024"
        );
        let unslotted = format!("{{\"id\":{}}}\n", "1".repeat(SIZE - 7));
        assert!(Corpus::parse(&unslotted)
            .unwrap_err()
            .0
            .contains("does not start with"));
        assert_eq!(Corpus::parse("").unwrap_err().0, "no messages");
    }
}
