//! What the two JSON-RPC servers (the language server and `proclint mcp`)
//! share about reading a message they cannot trust: the size limit, and
//! turning bytes into JSON or into the error to reply with. A message that
//! is not UTF-8, holds a lone surrogate escape (`"\ud800"`: valid JSON, but
//! no Rust string holds it, so serde_json refuses it) or is not JSON at all
//! is answered with a parse error that carries the request's id when what
//! is left of the message still names one.

use serde_json::Value;

/// The largest message either server reads, in bytes: 64 MiB, far above
/// any real document or request, far below an allocation that could hurt.
pub const MAX_MESSAGE: usize = 64 << 20;

/// JSON-RPC's "Parse error": the message is not JSON (or not UTF-8).
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "Invalid Request": JSON, but not a message this server takes.
pub const INVALID_REQUEST: i64 = -32600;

/// A message that cannot be served: the error to reply with.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    /// The request's id when it could be read, else null (a notification,
    /// or a message too broken to tell).
    pub id: Value,
    pub code: i64,
    pub message: String,
}

/// A message's bytes as JSON, or the error to reply with.
pub fn parse(bytes: &[u8]) -> Result<Value, Invalid> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            return Err(Invalid {
                id: recover_id(&String::from_utf8_lossy(bytes)),
                code: PARSE_ERROR,
                message: format!(
                    "parse error: the message is not UTF-8 (byte {} of {})",
                    e.valid_up_to(),
                    bytes.len()
                ),
            })
        }
    };
    serde_json::from_str(text).map_err(|e| Invalid {
        id: recover_id(text),
        code: PARSE_ERROR,
        message: format!("parse error: {e}"),
    })
}

/// The id of a message, if it has one a reply can carry (a number or a
/// string); else null.
pub fn id_of(message: &Value) -> Value {
    match message.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    }
}

/// The id of a message serde_json refused, read again with each lone
/// surrogate escape replaced by `\ufffd` (and, for bytes that were not
/// UTF-8, after their replacement by U+FFFD); null if it still does not
/// parse.
fn recover_id(text: &str) -> Value {
    serde_json::from_str::<Value>(&replace_lone_surrogates(text)).map_or(Value::Null, |m| id_of(&m))
}

/// `text` with every `\uD800`–`\uDFFF` escape inside a string that is not
/// half of a surrogate pair replaced by `\ufffd`; other bytes as they are.
fn replace_lone_surrogates(text: &str) -> String {
    let bytes = text.as_bytes();
    let unit = |at: usize| -> Option<u16> {
        let escape = bytes.get(at..at + 6)?;
        if escape[0] != b'\\' || escape[1] != b'u' {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&escape[2..]).ok()?, 16).ok()
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !in_string {
            in_string = b == b'"';
            out.push(b);
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = false;
                out.push(b);
                i += 1;
            }
            b'\\' => match unit(i) {
                Some(0xD800..=0xDBFF)
                    if unit(i + 6).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)) =>
                {
                    out.extend_from_slice(&bytes[i..i + 12]);
                    i += 12;
                }
                Some(0xD800..=0xDFFF) => {
                    out.extend_from_slice(b"\\ufffd");
                    i += 6;
                }
                _ => {
                    // `\"`, `\\` and the rest: the escape and what it
                    // escapes, so an escaped quote does not end the string.
                    out.extend_from_slice(bytes.get(i..i + 2).unwrap_or(&bytes[i..]));
                    i += 2;
                }
            },
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    // Only ASCII escapes were replaced: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_of_unreadable_messages() {
        // A lone leading surrogate, a lone trailing one, one at the end of
        // a string: serde_json refuses each; the id is still read.
        for text in [
            r#"{"id":7,"method":"m","params":{"s":"a\ud800b"}}"#,
            r#"{"method":"m","params":{"s":"\udc00"},"id":"x"}"#,
            r#"{"id":7,"params":["\ud800"],"method":"m"}"#,
        ] {
            let e = parse(text.as_bytes()).unwrap_err();
            assert_eq!(e.code, PARSE_ERROR, "{text}");
            assert!(e.id == json!(7) || e.id == json!("x"), "{text}: {e:?}");
        }
        // A pair is a character; an escaped backslash before `u` is text.
        let ok = parse(br#"{"id":1,"s":"\ud83d\ude00 \\ud800"}"#).unwrap();
        assert_eq!(ok["s"], "😀 \\ud800");
        // Bytes that are not UTF-8.
        let e = parse(b"{\"id\":3,\"s\":\"\xff\xfe\"}").unwrap_err();
        assert_eq!((e.id, e.code), (json!(3), PARSE_ERROR));
        assert!(e.message.contains("not UTF-8"), "{}", e.message);
        // Nothing to recover: null.
        for text in [
            &b"{\"id\":3,"[..],
            b"\"\\ud800\"",
            b"[{\"id\":1}",
            b"{\"id\":null,\"s\":\"\\ud800\"}",
        ] {
            assert_eq!(parse(text).unwrap_err().id, Value::Null);
        }
    }
}
