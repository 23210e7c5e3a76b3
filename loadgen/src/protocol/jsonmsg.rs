//! The JSON workload (PROTOCOL.md, "Endpoint /json"): the 97-byte price object the client
//! sends, the 39-byte answer, and the checks of both sides.
//!
//! Message `i` is, exactly (97 bytes, `seq` = `i` as 16 lowercase hex digits):
//!
//! ```text
//! {"seq": "000000000000002a", "symbol": "BTC-USDT", "price": 43251.17, "timestamp": 1732406400.123}
//! ```
//!
//! and its answer is Python's `json.dumps({"seq": request["seq"], "ok": True})`:
//! `{"seq": "000000000000002a", "ok": true}` (39 bytes). Socket.IO carries the same
//! objects as the one argument of the event `json`.

use std::borrow::Cow;

use serde::Deserialize;

use crate::protocol::payload::{parse_seq, write_seq, Inspection, SEQ_LEN};

/// Size of every JSON message the client sends, bytes.
pub const JSON_SIZE: usize = 97;

/// Offset of the 16 sequence digits in a JSON message, bytes (after `{"seq": "`).
pub const JSON_SEQ_OFFSET: usize = 9;

/// The Socket.IO event of the JSON workload.
pub const JSON_EVENT: &str = "json";

/// The request path of the plain WebSocket endpoint.
pub const JSON_PATH: &str = "/json";

const TEMPLATE: &str = concat!(
    r#"{"seq": "0000000000000000", "symbol": "BTC-USDT", "price": 43251.17, "#,
    r#""timestamp": 1732406400.123}"#
);

/// JSON message `seq` (97 bytes).
pub fn json_message(seq: u64) -> Vec<u8> {
    let mut v = TEMPLATE.as_bytes().to_vec();
    write_seq(&mut v[JSON_SEQ_OFFSET..], seq);
    v
}

/// The bytes of a JSON message before its sequence digits: `{"seq": "`.
pub fn json_prefix() -> &'static [u8] {
    &TEMPLATE.as_bytes()[..JSON_SEQ_OFFSET]
}

/// The rest of a JSON message from its sequence digits on (digits of sequence 0), the
/// template [`crate::protocol::ws::encode_client_frame`] writes after [`json_prefix`].
pub fn json_body_template() -> Vec<u8> {
    TEMPLATE.as_bytes()[JSON_SEQ_OFFSET..].to_vec()
}

/// A request as a server decodes it: only `seq` is used; the rest of the object is
/// parsed (and must be valid JSON) but not kept.
#[derive(Debug, Deserialize)]
pub struct JsonRequest<'a> {
    /// The sequence number as sent (16 hex digits from the load generator).
    #[serde(borrow)]
    pub seq: Cow<'a, str>,
}

/// The plain WebSocket answer to a request with `seq`, spaced as Python's `json.dumps`:
/// `{"seq": "<seq>", "ok": true}`.
pub fn json_reply(seq: &str) -> String {
    format!(r#"{{"seq": {}, "ok": true}}"#, json_string(seq))
}

/// The Socket.IO answer's argument, compact as python-socketio's packet encoder writes
/// it: `{"seq":"<seq>","ok":true}`.
pub fn json_reply_compact(seq: &str) -> String {
    format!(r#"{{"seq":{},"ok":true}}"#, json_string(seq))
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

/// An answer as the client parses it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonAnswer<'a> {
    #[serde(borrow)]
    seq: Cow<'a, str>,
    ok: bool,
}

/// Checks one answer (`text`: whether it came as text, i.e. a text frame or, with
/// Socket.IO, a JSON argument): it must be a JSON object with exactly the keys `seq`, a
/// string of 16 lowercase hex digits, and `ok`, `true`. The sequence number is returned
/// whenever `seq` is readable, so the reply can still be matched; `intact` only when
/// everything is as expected.
pub fn inspect_reply(bytes: &[u8], text: bool) -> Inspection {
    // serde also reads a struct from an array (`["…", true]`): only an object will do.
    let object = bytes.trim_ascii_start().first() == Some(&b'{');
    let parsed = serde_json::from_slice::<JsonAnswer<'_>>(bytes);
    let (true, Ok(answer)) = (object, parsed) else {
        return Inspection {
            seq: None,
            intact: false,
        };
    };
    let digits = answer.seq.as_bytes();
    let seq = (digits.len() == SEQ_LEN)
        .then(|| parse_seq(digits))
        .flatten();
    Inspection {
        seq,
        intact: text && answer.ok && seq.is_some(),
    }
}

/// Splits the JSON payload of a Socket.IO event, `["name",<argument>]`, into the event's
/// name (a JSON string without escapes) and its one argument's JSON text (whitespace
/// around it trimmed; not validated). `None` if the payload has another shape (no
/// argument, another name encoding).
pub fn split_event(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let data = data.trim_ascii();
    let inner = data.strip_prefix(b"[")?.strip_suffix(b"]")?.trim_ascii();
    let rest = inner.strip_prefix(b"\"")?;
    let end = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
    if rest[end] != b'"' {
        return None;
    }
    let name = &rest[..end];
    let arg = rest[end + 1..]
        .trim_ascii()
        .strip_prefix(b",")?
        .trim_ascii();
    (!arg.is_empty()).then_some((name, arg))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of PROTOCOL.md, both ways.
    const EXAMPLE: &str = r#"{"seq": "000000000000002a", "symbol": "BTC-USDT", "price": 43251.17, "timestamp": 1732406400.123}"#;
    const ANSWER: &str = r#"{"seq": "000000000000002a", "ok": true}"#;

    #[test]
    fn messages_follow_the_protocol() {
        assert_eq!(json_message(0x2a), EXAMPLE.as_bytes());
        assert_eq!(json_message(u64::MAX).len(), JSON_SIZE);
        let mut whole = json_prefix().to_vec();
        whole.extend_from_slice(&json_body_template());
        assert_eq!(whole, json_message(0));
        let v: serde_json::Value = serde_json::from_slice(&json_message(7)).unwrap();
        assert_eq!(v["seq"], "0000000000000007");
        assert_eq!(v["price"], 43251.17);
        let req: JsonRequest<'_> = serde_json::from_str(EXAMPLE).unwrap();
        assert_eq!(req.seq, "000000000000002a");
        assert_eq!(json_reply(&req.seq), ANSWER);
        assert_eq!(ANSWER.len(), 39);
        assert_eq!(
            json_reply_compact(&req.seq),
            r#"{"seq":"000000000000002a","ok":true}"#
        );
        assert_eq!(json_reply(r#"a"b"#), r#"{"seq": "a\"b", "ok": true}"#);
    }

    #[test]
    fn answers_are_checked() {
        let good = |s: &str| inspect_reply(s.as_bytes(), true);
        assert_eq!(
            good(ANSWER),
            Inspection {
                seq: Some(0x2a),
                intact: true
            }
        );
        assert_eq!(
            good(r#"{"ok":true,"seq":"000000000000002a"}"#).seq,
            Some(0x2a)
        );
        assert!(good(r#"{"ok":true,"seq":"000000000000002a"}"#).intact);
        assert!(!inspect_reply(ANSWER.as_bytes(), false).intact, "binary");
        for (bad, seq) in [
            (r#"{"seq": "000000000000002a", "ok": false}"#, Some(0x2a)),
            (
                r#"{"seq": "000000000000002a", "ok": true, "x": 1}"#,
                None, // unknown key: not the answer at all
            ),
            (r#"{"seq": "2a", "ok": true}"#, None),
            (r#"{"seq": "000000000000002A", "ok": true}"#, None),
            (r#"{"seq": 42, "ok": true}"#, None),
            (r#"{"ok": true}"#, None),
            (r#"["000000000000002a", true]"#, None),
            ("000000000000002a", None),
            (r#"{"seq": "000000000000002a", "ok": true"#, None),
            (r#"{"seq": "000000000000002a", "ok": true} x"#, None),
        ] {
            assert_eq!(good(bad), Inspection { seq, intact: false }, "{bad}");
        }
    }

    #[test]
    fn socketio_events_split_into_name_and_argument() {
        assert_eq!(
            split_event(br#"["json",{"seq":"01","ok":true}]"#),
            Some((&b"json"[..], &br#"{"seq":"01","ok":true}"#[..]))
        );
        assert_eq!(
            split_event(b" [ \"json\" , {\"a\": 1} ] "),
            Some((&b"json"[..], &b"{\"a\": 1}"[..]))
        );
        // Two arguments: the "argument" is not one JSON value and fails to parse later.
        assert_eq!(
            split_event(br#"["json",{},1]"#),
            Some((&b"json"[..], &b"{},1"[..]))
        );
        for bad in [
            &b"[\"json\"]"[..],
            b"[\"json\",]",
            b"{}",
            b"[1,2]",
            b"[\"j\\u0073on\",1]",
        ] {
            assert_eq!(split_event(bad), None, "{bad:?}");
        }
    }
}
