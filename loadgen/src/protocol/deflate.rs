//! permessage-deflate (RFC 7692) as a browser offers it: the offer, the checks of the
//! server's answer (§7.1), and the compressor and decompressor of one connection's
//! messages (§7.2), on flate2's raw DEFLATE streams (its zlib-rs backend, which takes a
//! window size).
//!
//! No I/O here: the client's handshake ([`crate::transport::handshake`], `--deflate`)
//! sends [`OFFER`] and reads the answer with [`agree`]; the reference server answers an
//! offer with [`respond`] as its [`ServerPolicy`] says. A connection that agreed
//! compresses each data message it sends with a [`Deflater`] (and sets RSV1 on its first
//! frame) and inflates each RSV1 message it receives with an [`Inflater`]: the frames
//! around them are in [`crate::protocol::deflate_wire`].

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

/// The extension offer a browser sends (Chromium and Firefox alike): permessage-deflate,
/// the server free to limit the client's window (`client_max_window_bits` without a value).
pub const OFFER: &str = "permessage-deflate; client_max_window_bits";

/// The extension's name in `Sec-WebSocket-Extensions`.
pub const NAME: &str = "permessage-deflate";

/// The largest LZ77 window, in bits (32 KiB), and the default of both directions.
pub const MAX_WINDOW_BITS: u8 = 15;
/// The smallest window a peer may ask for, in bits (256 bytes).
pub const MIN_WINDOW_BITS: u8 = 8;
/// The smallest window zlib compresses with; an agreed window of 8 bits is sent as stored
/// (uncompressed) DEFLATE blocks, which refer to nothing earlier and so fit any window.
const MIN_ZLIB_WINDOW_BITS: u8 = 9;

/// The four octets a sync flush ends with, removed from every compressed message and put
/// back before inflating it (RFC 7692 §7.2.1, §7.2.2).
const SYNC_TAIL: [u8; 4] = [0x00, 0x00, 0xff, 0xff];

/// What both sides agreed to, from the client's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Agreed {
    /// The server resets its compression context after each message.
    pub server_no_context_takeover: bool,
    /// The client resets its compression context after each message.
    pub client_no_context_takeover: bool,
    /// The server's window, in bits (8..=15).
    pub server_max_window_bits: u8,
    /// The client's window, in bits (8..=15).
    pub client_max_window_bits: u8,
}

impl Default for Agreed {
    fn default() -> Self {
        Agreed {
            server_no_context_takeover: false,
            client_no_context_takeover: false,
            server_max_window_bits: MAX_WINDOW_BITS,
            client_max_window_bits: MAX_WINDOW_BITS,
        }
    }
}

impl Agreed {
    /// The parameters as the report records them, e.g.
    /// `"permessage-deflate; server_no_context_takeover; client_max_window_bits=15"`.
    pub fn describe(&self) -> String {
        let mut out = String::from(NAME);
        if self.server_no_context_takeover {
            out.push_str("; server_no_context_takeover");
        }
        if self.client_no_context_takeover {
            out.push_str("; client_no_context_takeover");
        }
        out.push_str(&format!(
            "; server_max_window_bits={}",
            self.server_max_window_bits
        ));
        out.push_str(&format!(
            "; client_max_window_bits={}",
            self.client_max_window_bits
        ));
        out
    }
}

/// Why the server's answer fails the connection (RFC 7692 §7.1: the client must fail it on
/// any of these), or why a message cannot be inflated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeflateError {
    /// The answer names an extension the client did not offer.
    UnofferedExtension(String),
    /// The answer accepts permessage-deflate more than once.
    AcceptedTwice,
    /// A parameter the extension does not define.
    UnknownParameter(String),
    /// A parameter given twice.
    DuplicateParameter(String),
    /// A parameter's value is missing, not allowed, or out of range.
    InvalidValue(String),
    /// `client_max_window_bits` in the answer, which the offer did not include.
    UnofferedClientWindow,
    /// The compressed data is not valid DEFLATE.
    Corrupt(String),
    /// The inflated message would exceed the connection's limit (bytes).
    TooLarge(usize),
    /// RSV1 where RFC 7692 does not allow it (a control frame, a continuation frame), or
    /// a new data message inside a compressed fragmented one.
    Framing(&'static str),
}

impl std::fmt::Display for DeflateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeflateError::UnofferedExtension(name) => {
                write!(
                    f,
                    "the server accepted an extension that was not offered: {name}"
                )
            }
            DeflateError::AcceptedTwice => write!(f, "the server accepted {NAME} twice"),
            DeflateError::UnknownParameter(p) => write!(f, "unknown {NAME} parameter {p:?}"),
            DeflateError::DuplicateParameter(p) => write!(f, "{NAME} parameter {p} given twice"),
            DeflateError::InvalidValue(p) => write!(f, "invalid {NAME} parameter {p:?}"),
            DeflateError::UnofferedClientWindow => write!(
                f,
                "client_max_window_bits in the answer although the offer did not include it"
            ),
            DeflateError::Corrupt(why) => write!(f, "corrupted compressed message: {why}"),
            DeflateError::TooLarge(limit) => {
                write!(f, "inflated message larger than {limit} bytes")
            }
            DeflateError::Framing(why) => write!(f, "{NAME} framing error: {why}"),
        }
    }
}

impl std::error::Error for DeflateError {}

impl DeflateError {
    /// The status code of the close frame that fails the connection after this error in a
    /// message (RFC 6455 §7.4.1): 1007 for data that does not inflate (the message's data
    /// is not consistent with its type), 1009 for a message over the size limit, 1002 for
    /// RSV1 where it does not belong and for the answers §7.1 refuses (a protocol error).
    pub fn close_code(&self) -> u16 {
        match self {
            DeflateError::Corrupt(_) => 1007,
            DeflateError::TooLarge(_) => 1009,
            _ => 1002,
        }
    }
}

/// An extension parameter: its name (lower case) and its value, if any (quotes removed).
type Param = (String, Option<String>);

/// The extension elements of a `Sec-WebSocket-Extensions` value: each one's name (lower
/// case) and parameters.
fn elements(value: &str) -> Vec<(String, Vec<Param>)> {
    value
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|element| {
            let mut parts = element.split(';').map(str::trim);
            let name = parts.next().unwrap_or("").to_ascii_lowercase();
            let params = parts
                .filter(|p| !p.is_empty())
                .map(|p| match p.split_once('=') {
                    Some((k, v)) => (
                        k.trim().to_ascii_lowercase(),
                        Some(v.trim().trim_matches('"').to_string()),
                    ),
                    None => (p.to_ascii_lowercase(), None),
                })
                .collect();
            (name, params)
        })
        .collect()
}

fn window_bits(name: &str, value: Option<&str>) -> Result<u8, DeflateError> {
    let invalid = || DeflateError::InvalidValue(format!("{name}={}", value.unwrap_or("")));
    let text = value.ok_or_else(invalid)?;
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) || text.len() > 2 {
        return Err(invalid());
    }
    let bits: u8 = text.parse().map_err(|_| invalid())?;
    if (MIN_WINDOW_BITS..=MAX_WINDOW_BITS).contains(&bits) {
        Ok(bits)
    } else {
        Err(invalid())
    }
}

/// The agreement in the server's `Sec-WebSocket-Extensions` answers (every header line's
/// value), checked as RFC 7692 §7.1 requires of a client that sent [`OFFER`]: `None` when
/// the server declined (no permessage-deflate element).
///
/// # Errors
/// Any element other than permessage-deflate, more than one of it, an unknown or repeated
/// parameter, a missing or out-of-range window, or a value on a flag
/// ([`DeflateError`]): the client must fail the connection.
pub fn agree(values: &[&str]) -> Result<Option<Agreed>, DeflateError> {
    let mut found: Option<Agreed> = None;
    for value in values {
        for (name, params) in elements(value) {
            if name != NAME {
                return Err(DeflateError::UnofferedExtension(name));
            }
            if found.is_some() {
                return Err(DeflateError::AcceptedTwice);
            }
            let mut agreed = Agreed::default();
            let mut seen: Vec<String> = Vec::new();
            for (key, val) in params {
                if seen.contains(&key) {
                    return Err(DeflateError::DuplicateParameter(key));
                }
                seen.push(key.clone());
                let flag = |v: &Option<String>| {
                    if v.is_some() {
                        Err(DeflateError::InvalidValue(key.clone()))
                    } else {
                        Ok(true)
                    }
                };
                match key.as_str() {
                    "server_no_context_takeover" => agreed.server_no_context_takeover = flag(&val)?,
                    "client_no_context_takeover" => agreed.client_no_context_takeover = flag(&val)?,
                    "server_max_window_bits" => {
                        agreed.server_max_window_bits = window_bits(&key, val.as_deref())?
                    }
                    // The offer includes it without a value, so the answer may set it
                    // (§7.1.2.2); it must carry one.
                    "client_max_window_bits" => {
                        agreed.client_max_window_bits = window_bits(&key, val.as_deref())?
                    }
                    _ => return Err(DeflateError::UnknownParameter(key)),
                }
            }
            found = Some(agreed);
        }
    }
    Ok(found)
}

/// What the reference server does with an offer of permessage-deflate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ServerPolicy {
    /// Ignore every offer: no `Sec-WebSocket-Extensions` in the answer, messages
    /// uncompressed (the default, and what a server without the extension does).
    #[default]
    Ignore,
    /// Accept the first permessage-deflate offer with the defaults: context takeover both
    /// ways and 15-bit windows, but for the server's parameters the offer asks for
    /// (`server_no_context_takeover`, `server_max_window_bits`), which it grants.
    Accept,
    /// Answer every offer of permessage-deflate with exactly this header value (tests: an
    /// agreement with given parameters, or an answer the client must refuse). The server
    /// follows it when [`agree`] accepts it, and compresses nothing otherwise.
    Answer(String),
}

/// The server's side of the negotiation: under `policy`, what it answers to the offers in
/// `values` (every `Sec-WebSocket-Extensions` line of the upgrade request), and the
/// agreement it then follows (`None`: no compression). `None` when nothing is answered:
/// the policy ignores offers, or no permessage-deflate was offered (or none the server
/// can accept: a malformed offer is declined, RFC 7692 §5).
pub fn respond(values: &[&str], policy: &ServerPolicy) -> Option<(String, Option<Agreed>)> {
    let offers: Vec<Vec<Param>> = values
        .iter()
        .flat_map(|v| elements(v))
        .filter(|(name, _)| name == NAME)
        .map(|(_, params)| params)
        .collect();
    if offers.is_empty() {
        return None;
    }
    match policy {
        ServerPolicy::Ignore => None,
        ServerPolicy::Answer(answer) => {
            Some((answer.clone(), agree(&[answer.as_str()]).ok().flatten()))
        }
        ServerPolicy::Accept => offers.iter().find_map(|params| {
            let answer = accept_offer(params)?;
            let agreed = agree(&[answer.as_str()]).ok().flatten()?;
            Some((answer, Some(agreed)))
        }),
    }
}

/// The answer to one offer under [`ServerPolicy::Accept`]; `None` for an offer it cannot
/// accept (an unknown, repeated or malformed parameter).
fn accept_offer(params: &[Param]) -> Option<String> {
    let mut answer = String::from(NAME);
    let mut seen: Vec<&str> = Vec::new();
    for (key, val) in params {
        if seen.contains(&key.as_str()) {
            return None;
        }
        seen.push(key);
        match (key.as_str(), val) {
            ("server_no_context_takeover", None) => answer.push_str("; server_no_context_takeover"),
            ("client_no_context_takeover", None) => {}
            ("server_max_window_bits", Some(v)) => {
                let bits = window_bits(key, Some(v)).ok()?;
                answer.push_str(&format!("; server_max_window_bits={bits}"));
            }
            // The client may limit its window: the default (15) is not answered.
            ("client_max_window_bits", None) => {}
            ("client_max_window_bits", Some(v)) => {
                window_bits(key, Some(v)).ok()?;
            }
            _ => return None,
        }
    }
    Some(answer)
}

/// Compresses one side's messages (RFC 7692 §7.2.1): each message is DEFLATE data ending
/// with a sync flush, its last four octets (`00 00 ff ff`) removed. With context takeover
/// the LZ77 window carries over from one message to the next; without, it is reset after
/// each.
///
/// The zlib state (about 300 KiB at 15 bits) is allocated at the first message, so that a
/// connection that never sends (`hold`) holds none.
pub struct Deflater {
    compress: Option<Compress>,
    level: Compression,
    window_bits: u8,
    no_context_takeover: bool,
}

impl Deflater {
    /// A compressor at `level` (flate2's 0-9; 6 is zlib's default) with a window of
    /// `window_bits` (8..=15; 8 sends stored blocks, see [`MIN_WINDOW_BITS`]).
    pub fn new(level: u32, window_bits: u8, no_context_takeover: bool) -> Self {
        let (level, bits) = if window_bits < MIN_ZLIB_WINDOW_BITS {
            (Compression::none(), MIN_ZLIB_WINDOW_BITS)
        } else {
            (Compression::new(level), window_bits.min(MAX_WINDOW_BITS))
        };
        Deflater {
            compress: None,
            level,
            window_bits: bits,
            no_context_takeover,
        }
    }

    /// The client's compressor for `agreed` at zlib's default level.
    pub fn client(agreed: &Agreed) -> Self {
        Deflater::new(
            6,
            agreed.client_max_window_bits,
            agreed.client_no_context_takeover,
        )
    }

    /// The server's compressor for `agreed` at zlib's default level.
    pub fn server(agreed: &Agreed) -> Self {
        Deflater::new(
            6,
            agreed.server_max_window_bits,
            agreed.server_no_context_takeover,
        )
    }

    /// Appends `payload` compressed to `out`; the number of bytes appended.
    pub fn compress(&mut self, payload: &[u8], out: &mut Vec<u8>) -> usize {
        let start = out.len();
        let (level, bits) = (self.level, self.window_bits);
        let compress = self
            .compress
            .get_or_insert_with(|| Compress::new_with_window_bits(level, false, bits));
        let before_in = compress.total_in();
        loop {
            let consumed = (compress.total_in() - before_in) as usize;
            if out.capacity() - out.len() < 64 {
                out.reserve(payload.len() / 2 + 64);
            }
            let status = compress
                .compress_vec(&payload[consumed..], out, FlushCompress::Sync)
                .expect("deflate of in-memory data cannot fail");
            let done = (compress.total_in() - before_in) as usize == payload.len();
            // A sync flush is complete when it leaves spare room in the output.
            if done && out.len() < out.capacity() && matches!(status, Status::Ok | Status::BufError)
            {
                break;
            }
        }
        debug_assert!(
            out[start..].ends_with(&SYNC_TAIL),
            "a sync flush ends with 00 00 ff ff"
        );
        out.truncate(out.len() - SYNC_TAIL.len());
        if self.no_context_takeover {
            compress.reset();
        }
        out.len() - start
    }
}

/// Inflates the other side's messages (RFC 7692 §7.2.2): `00 00 ff ff` appended to each
/// message's data, then inflated with the window of earlier messages (context takeover)
/// or a fresh one.
///
/// The zlib state (with its 32 KiB window) is allocated at the first message.
pub struct Inflater {
    decompress: Option<Decompress>,
    no_context_takeover: bool,
    max_size: usize,
}

impl Inflater {
    /// A decompressor with the largest window (it inflates data compressed with any
    /// smaller one), refusing messages that inflate beyond `max_size` bytes.
    pub fn new(no_context_takeover: bool, max_size: usize) -> Self {
        Inflater {
            decompress: None,
            no_context_takeover,
            max_size,
        }
    }

    /// The client's decompressor for `agreed`.
    pub fn client(agreed: &Agreed, max_size: usize) -> Self {
        Inflater::new(agreed.server_no_context_takeover, max_size)
    }

    /// The server's decompressor for `agreed`. Its window is the largest whatever the
    /// client's agreed one (zlib-rs keeps a 32 KiB window in any case, so a client that
    /// refers further back than it agreed to is not caught here).
    pub fn server(agreed: &Agreed, max_size: usize) -> Self {
        Inflater::new(agreed.client_no_context_takeover, max_size)
    }

    /// Appends the message `data` (its frames' payloads joined) inflated to `out`.
    ///
    /// # Errors
    /// [`DeflateError::Corrupt`] when the data is not DEFLATE, [`DeflateError::TooLarge`]
    /// when it inflates beyond the limit; the inflater is unusable after either (the
    /// connection fails).
    pub fn inflate(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), DeflateError> {
        let start = out.len();
        let decompress = self
            .decompress
            .get_or_insert_with(|| Decompress::new_with_window_bits(false, MAX_WINDOW_BITS));
        let mut ended = false;
        for chunk in [data, &SYNC_TAIL[..]] {
            if ended {
                break;
            }
            let before_in = decompress.total_in();
            loop {
                let consumed = (decompress.total_in() - before_in) as usize;
                if out.len() - start > self.max_size {
                    return Err(DeflateError::TooLarge(self.max_size));
                }
                if out.capacity() - out.len() < 1024 {
                    let room =
                        (self.max_size + 1 - (out.len() - start)).min(chunk.len() * 4 + 4096);
                    out.reserve(room.max(1024));
                }
                let before_out = out.len();
                let status = decompress
                    .decompress_vec(&chunk[consumed..], out, FlushDecompress::Sync)
                    .map_err(|e| DeflateError::Corrupt(e.to_string()))?;
                let all_in = (decompress.total_in() - before_in) as usize == chunk.len();
                let produced = out.len() > before_out;
                if matches!(status, Status::StreamEnd) {
                    // A block with BFINAL set ends the DEFLATE stream: what follows it in
                    // the message (the empty block RFC 7692 §7.2.3.5 shows) is padding,
                    // and the next message starts a new stream.
                    decompress.reset(false);
                    ended = true;
                    break;
                }
                if all_in && !produced && out.len() < out.capacity() {
                    break;
                }
                if !produced && (decompress.total_in() - before_in) as usize == consumed {
                    if all_in {
                        break;
                    }
                    return Err(DeflateError::Corrupt("no progress".to_string()));
                }
            }
        }
        if out.len() - start > self.max_size {
            return Err(DeflateError::TooLarge(self.max_size));
        }
        if self.no_context_takeover {
            decompress.reset(false);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HELLO: &[u8] = b"Hello";

    fn inflate(inflater: &mut Inflater, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        inflater.inflate(data, &mut out).unwrap();
        out
    }

    #[test]
    fn the_rfcs_examples_inflate() {
        // RFC 7692 §7.2.3.1: "Hello" compressed (one frame).
        let mut one = Inflater::new(false, 1 << 20);
        assert_eq!(
            inflate(&mut one, &[0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]),
            HELLO
        );
        // §7.2.3.2: the same message again, sharing the window (context takeover).
        assert_eq!(inflate(&mut one, &[0xf2, 0x00, 0x11, 0x00, 0x00]), HELLO);
        // §7.2.3.3: a stored (uncompressed) DEFLATE block.
        let mut stored = Inflater::new(false, 1 << 20);
        let block = [
            0x00, 0x05, 0x00, 0xfa, 0xff, 0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x00,
        ];
        assert_eq!(inflate(&mut stored, &block), HELLO);
        // §7.2.3.4: two DEFLATE blocks in one message.
        let two = [
            0xf2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xff, 0xff, 0xca, 0xc9, 0xc9, 0x07, 0x00,
        ];
        assert_eq!(inflate(&mut Inflater::new(false, 1 << 20), &two), HELLO);
        // §7.2.3.5: a block with BFINAL set, then the next message starts a new stream.
        let mut fin = Inflater::new(false, 1 << 20);
        let last = [0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00];
        assert_eq!(inflate(&mut fin, &last), HELLO);
        assert_eq!(
            inflate(&mut fin, &[0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]),
            HELLO
        );
    }

    #[test]
    fn hello_compresses_as_the_rfc_shows() {
        let mut d = Deflater::new(6, 15, false);
        let mut out = Vec::new();
        d.compress(HELLO, &mut out);
        assert_eq!(out, [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]);
        // §7.2.3.2: the second one refers back to the first (context takeover).
        out.clear();
        d.compress(HELLO, &mut out);
        assert_eq!(out, [0xf2, 0x00, 0x11, 0x00, 0x00]);
    }

    fn corpus() -> Vec<Vec<u8>> {
        (0..200)
            .map(|i| {
                format!(
                    r#"{{"type":"chat","room":"general","user":"user{}","seq":{i},"text":"message number {i} says hello to everyone here"}}"#,
                    i % 7
                )
                .into_bytes()
            })
            .collect()
    }

    fn round_trip(level: u32, client_bits: u8, no_takeover: bool) -> (usize, usize) {
        let mut d = Deflater::new(level, client_bits, no_takeover);
        let mut i = Inflater::new(no_takeover, 1 << 20);
        let (mut wire, mut payload) = (0, 0);
        for message in corpus() {
            let mut compressed = Vec::new();
            wire += d.compress(&message, &mut compressed);
            payload += message.len();
            assert_eq!(inflate(&mut i, &compressed), message);
        }
        (wire, payload)
    }

    #[test]
    fn messages_round_trip_with_and_without_context_takeover() {
        let (takeover, payload) = round_trip(6, 15, false);
        let (fresh, _) = round_trip(6, 15, true);
        // Sharing the window between messages compresses repeated structure much better.
        assert!(
            takeover * 2 < fresh,
            "takeover {takeover} B, without {fresh} B"
        );
        assert!(fresh < payload, "without takeover {fresh} B of {payload} B");
        // Smaller windows still round-trip; 8 bits sends stored blocks (no smaller).
        round_trip(6, 9, false);
        let (stored, payload) = round_trip(6, 8, false);
        assert!(stored > payload);
    }

    #[test]
    fn a_message_without_takeover_needs_no_earlier_window() {
        // Each message of a no-context-takeover side inflates on its own, in a fresh inflater.
        let mut d = Deflater::new(6, 15, true);
        for message in corpus().iter().take(5) {
            let mut compressed = Vec::new();
            d.compress(message, &mut compressed);
            assert_eq!(
                inflate(&mut Inflater::new(true, 1 << 20), &compressed),
                *message
            );
        }
    }

    #[test]
    fn empty_and_large_messages_round_trip() {
        let mut d = Deflater::new(6, 15, false);
        let mut i = Inflater::new(false, 1 << 24);
        for message in [
            Vec::new(),
            vec![b'x'; 1 << 20],
            (0..=255u8).cycle().take(70_000).collect(),
        ] {
            let mut compressed = Vec::new();
            d.compress(&message, &mut compressed);
            assert_eq!(inflate(&mut i, &compressed), message);
        }
    }

    #[test]
    fn corrupted_and_oversized_messages_are_errors() {
        let mut d = Deflater::new(6, 15, false);
        let mut compressed = Vec::new();
        d.compress(&vec![b'a'; 10_000], &mut compressed);
        let mut small = Inflater::new(false, 1_000);
        assert_eq!(
            small.inflate(&compressed, &mut Vec::new()),
            Err(DeflateError::TooLarge(1_000))
        );
        // Block type 3 is reserved: invalid DEFLATE.
        let err = Inflater::new(false, 1 << 20).inflate(&[0xff, 0xff, 0xff], &mut Vec::new());
        assert!(matches!(err, Err(DeflateError::Corrupt(_))), "{err:?}");
    }

    #[test]
    fn the_answer_is_checked_as_rfc_7692_requires() {
        assert_eq!(agree(&[]), Ok(None));
        assert_eq!(agree(&["permessage-deflate"]), Ok(Some(Agreed::default())));
        let all = "permessage-deflate; server_no_context_takeover; client_no_context_takeover; \
                   server_max_window_bits=10; client_max_window_bits=\"9\"";
        assert_eq!(
            agree(&[all]),
            Ok(Some(Agreed {
                server_no_context_takeover: true,
                client_no_context_takeover: true,
                server_max_window_bits: 10,
                client_max_window_bits: 9,
            }))
        );
        assert_eq!(
            agree(&["x-webkit-deflate-frame"]),
            Err(DeflateError::UnofferedExtension(
                "x-webkit-deflate-frame".into()
            ))
        );
        assert_eq!(
            agree(&["permessage-deflate, permessage-deflate"]),
            Err(DeflateError::AcceptedTwice)
        );
        assert_eq!(
            agree(&["permessage-deflate", "permessage-deflate"]),
            Err(DeflateError::AcceptedTwice)
        );
        assert_eq!(
            agree(&["permessage-deflate; mux"]),
            Err(DeflateError::UnknownParameter("mux".into()))
        );
        assert_eq!(
            agree(&["permessage-deflate; server_no_context_takeover; server_no_context_takeover"]),
            Err(DeflateError::DuplicateParameter(
                "server_no_context_takeover".into()
            ))
        );
        for bad in [
            "server_max_window_bits",
            "server_max_window_bits=7",
            "server_max_window_bits=16",
            "client_max_window_bits",
            "client_max_window_bits=08x",
            "server_no_context_takeover=1",
        ] {
            let answer = format!("permessage-deflate; {bad}");
            assert!(
                matches!(agree(&[&answer]), Err(DeflateError::InvalidValue(_))),
                "{bad}"
            );
        }
    }
}
