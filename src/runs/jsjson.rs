//! A serializer that reproduces `JSON.stringify(value, null, 2)` byte for byte.
//!
//! The babysitter SDK checksums every journal event over that exact text, so a
//! verifier has to re-create it. `serde_json`'s pretty printer is close but is
//! not specified to match (and its escaping is an implementation detail), so the
//! few rules that matter are spelled out here instead:
//! - two-space indentation, `"key": value`, `[]` / `{}` for empty containers;
//! - keys in the order they were parsed (`preserve_order`);
//! - numbers exactly as written in the source text (`arbitrary_precision`),
//!   because the SDK wrote them with `JSON.stringify` in the first place;
//! - JS string escaping: only `"`, `\`, and C0 controls are escaped, with
//!   `\b \t \n \f \r` short forms and lowercase `\u00xx` otherwise. U+2028/2029,
//!   DEL and all other non-ASCII characters are written literally.

use std::borrow::Cow;

use serde_json::Value;

/// Stands for a lone UTF-16 surrogate in a parsed string, followed by its
/// four lowercase hex digits. JavaScript strings may hold one (`"\ud83d"`:
/// half an emoji cut by `slice`), `JSON.stringify` writes it as that escape
/// and the SDK checksums the escape; a Rust string cannot hold it and
/// `serde_json` rejects the event. U+FDD0 is a noncharacter ("never
/// interchanged"), so a real one followed by four hex digits is the only
/// text this misreads.
const LONE_SURROGATE: char = '\u{FDD0}';

/// Parses JSON as JavaScript's `JSON.parse` does, lone surrogate escapes
/// included (see [`LONE_SURROGATE`]); [`stringify_pretty`] writes them back.
pub fn parse(text: &str) -> serde_json::Result<Value> {
    serde_json::from_str(&mask_lone_surrogates(text))
}

/// `text` with each `\uXXXX` escape of an unpaired surrogate replaced by
/// `\ufdd0` and the surrogate's digits (lowercase, as `JSON.stringify`
/// writes them).
fn mask_lone_surrogates(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let surrogate_at = |i: usize| -> Option<u16> {
        let hex = bytes.get(i + 2..i + 6)?;
        if bytes.get(i..i + 2)? != b"\\u" {
            return None;
        }
        let v = u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
        (0xD800..=0xDFFF).contains(&v).then_some(v)
    };
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while let Some(found) = memchr::memchr(b'\\', &bytes[i..]) {
        let at = i + found;
        let Some(v) = surrogate_at(at) else {
            // Any other escape, `\\` included, is two bytes or more that
            // cannot start a surrogate escape.
            i = at + 2;
            if i >= bytes.len() {
                break;
            }
            continue;
        };
        let paired = (0xD800..0xDC00).contains(&v)
            && surrogate_at(at + 6).is_some_and(|w| (0xDC00..=0xDFFF).contains(&w));
        if paired {
            i = at + 12;
            continue;
        }
        let o = out.get_or_insert_with(|| String::with_capacity(text.len() + 16));
        o.push_str(&text[copied..at]);
        o.push_str(&format!("\\ufdd0{v:04x}"));
        copied = at + 6;
        i = at + 6;
    }
    match out {
        Some(mut o) => {
            o.push_str(&text[copied..]);
            Cow::Owned(o)
        }
        None => Cow::Borrowed(text),
    }
}

/// `JSON.stringify(value, null, 2)`.
pub fn stringify_pretty(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0, None);
    out
}

/// `JSON.stringify(value, null, 2)` of an object with one top-level key left
/// out, which is how the SDK's checksum body relates to the file it writes.
pub fn stringify_pretty_without(value: &Value, skip_key: &str) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0, Some(skip_key));
    out
}

fn write_value(out: &mut String, value: &Value, depth: usize, skip_key: Option<&str>) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline_indent(out, depth + 1);
                write_value(out, item, depth + 1, None);
            }
            newline_indent(out, depth);
            out.push(']');
        }
        Value::Object(map) => {
            let mut wrote_any = false;
            for (key, item) in map {
                if Some(key.as_str()) == skip_key {
                    continue;
                }
                out.push(if wrote_any { ',' } else { '{' });
                wrote_any = true;
                newline_indent(out, depth + 1);
                write_string(out, key);
                out.push_str(": ");
                write_value(out, item, depth + 1, None);
            }
            if wrote_any {
                newline_indent(out, depth);
                out.push('}');
            } else {
                out.push_str("{}");
            }
        }
    }
}

fn newline_indent(out: &mut String, depth: usize) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn write_string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == LONE_SURROGATE {
            let digits = chars.as_str().get(..4).filter(|d| {
                d.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            });
            if let Some(d) = digits {
                out.push_str("\\u");
                out.push_str(d);
                chars = chars.as_str()[4..].chars();
                continue;
            }
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{0C}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                let b = c as u32 as usize;
                out.push_str("\\u00");
                out.push(HEX[b >> 4] as char);
                out.push(HEX[b & 0xf] as char);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Value {
        match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => panic!("test input must parse: {e}"),
        }
    }

    #[test]
    fn matches_json_stringify_layout() {
        // Expected text produced by node: JSON.stringify(JSON.parse(input), null, 2)
        let v = parse(r#"{"b":1,"a":[],"c":{},"d":[1,{"x":null}],"e":true}"#);
        assert_eq!(
            stringify_pretty(&v),
            "{\n  \"b\": 1,\n  \"a\": [],\n  \"c\": {},\n  \"d\": [\n    1,\n    {\n      \"x\": null\n    }\n  ],\n  \"e\": true\n}"
        );
    }

    #[test]
    fn keeps_numbers_as_written() {
        let v = parse(r#"[1e+21, 0.1, -0, 5e-7, 12345678901234567890, 1.50]"#);
        assert_eq!(
            stringify_pretty(&v),
            "[\n  1e+21,\n  0.1,\n  -0,\n  5e-7,\n  12345678901234567890,\n  1.50\n]"
        );
    }

    #[test]
    fn escapes_like_javascript() {
        let v = Value::String("q\"b\\\u{8}\t\n\u{c}\r\u{1}\u{1f}\u{7f}\u{2028}\u{2029}é/🙂".into());
        assert_eq!(
            stringify_pretty(&v),
            "\"q\\\"b\\\\\\b\\t\\n\\f\\r\\u0001\\u001f\u{7f}\u{2028}\u{2029}é/🙂\""
        );
    }

    #[test]
    fn skips_one_top_level_key_only() {
        let v = parse(r#"{"type":"X","data":{"checksum":"keep"},"checksum":"drop"}"#);
        assert_eq!(
            stringify_pretty_without(&v, "checksum"),
            "{\n  \"type\": \"X\",\n  \"data\": {\n    \"checksum\": \"keep\"\n  }\n}"
        );
        let only = parse(r#"{"checksum":"drop"}"#);
        assert_eq!(stringify_pretty_without(&only, "checksum"), "{}");
    }

    #[test]
    fn duplicate_keys_keep_first_position_last_value() {
        // JSON.parse keeps the first position and the last value; so does IndexMap.
        let v = parse(r#"{"a":1,"b":2,"a":3}"#);
        assert_eq!(stringify_pretty(&v), "{\n  \"a\": 3,\n  \"b\": 2\n}");
    }
}
