//! A small strict JSON reader that keeps the byte span of every value.
//!
//! `serde_json` gives values but no positions, and `--fix` must edit a version string in place
//! without re-serializing the file, so this reader records where each string's contents sit.
//! It follows RFC 8259 as `JSON.parse` does (no comments, no trailing commas), because that is
//! what npm accepts; a leading BOM is skipped, as npm's reader strips it.

use std::fmt;
use std::ops::Range;

/// Nesting beyond this is reported as an error instead of risking the stack on hostile input.
const MAX_DEPTH: usize = 512;

/// A parsed JSON value with the byte span it occupies in the source.
#[derive(Debug, Clone, PartialEq)]
pub struct Json {
    pub kind: JsonKind,
    /// Bytes of the whole value (for strings: including the quotes).
    pub span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum JsonKind {
    Null,
    Bool(bool),
    /// Kept as written: package.json numbers are never interpreted by the rules.
    Number(String),
    String(JsonString),
    Array(Vec<Json>),
    Object(Vec<JsonMember>),
}

/// A decoded string and the span of its raw contents *inside* the quotes.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonString {
    pub value: String,
    pub inner_span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct JsonMember {
    pub key: JsonString,
    pub value: Json,
}

/// Why the text is not JSON, and the byte offset where reading stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.offset)
    }
}

impl std::error::Error for JsonError {}

impl Json {
    /// The member `key` of an object. Like `JSON.parse`, the last duplicate wins.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.members()?
            .iter()
            .rev()
            .find(|m| m.key.value == key)
            .map(|m| &m.value)
    }

    pub fn members(&self) -> Option<&[JsonMember]> {
        match &self.kind {
            JsonKind::Object(members) => Some(members),
            _ => None,
        }
    }

    pub fn elements(&self) -> Option<&[Json]> {
        match &self.kind {
            JsonKind::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_string(&self) -> Option<&JsonString> {
        match &self.kind {
            JsonKind::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        self.as_string().map(|s| s.value.as_str())
    }
}

/// Parses a whole document: one value surrounded by optional whitespace.
pub fn parse(text: &str) -> Result<Json, JsonError> {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut reader = Reader {
        src: text.as_bytes(),
        text,
        pos: start,
    };
    reader.skip_ws();
    if reader.pos >= reader.src.len() {
        return Err(reader.error("the file is empty; expected a JSON object"));
    }
    let value = reader.value(0)?;
    reader.skip_ws();
    if reader.pos < reader.src.len() {
        return Err(reader.error("unexpected content after the end of the JSON value"));
    }
    Ok(value)
}

struct Reader<'a> {
    src: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Reader<'_> {
    fn error(&self, message: &str) -> JsonError {
        JsonError {
            offset: self.pos,
            message: message.to_string(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.error("JSON nested too deeply"));
        }
        let start = self.pos;
        let kind = match self.peek() {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => JsonKind::String(self.string()?),
            Some(b't') => self.literal("true", JsonKind::Bool(true))?,
            Some(b'f') => self.literal("false", JsonKind::Bool(false))?,
            Some(b'n') => self.literal("null", JsonKind::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(_) => {
                return Err(self.error(&format!(
                    "expected a JSON value, found {}",
                    self.describe_here()
                )))
            }
            None => return Err(self.error("unexpected end of file; expected a JSON value")),
        };
        Ok(Json {
            kind,
            span: start..self.pos,
        })
    }

    fn describe_here(&self) -> String {
        match self
            .text
            .get(self.pos..)
            .and_then(|rest| rest.chars().next())
        {
            Some(c) => format!("`{}`", c.escape_debug()),
            None => "the end of the file".to_string(),
        }
    }

    fn literal(&mut self, word: &str, kind: JsonKind) -> Result<JsonKind, JsonError> {
        if self.src[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(kind)
        } else {
            Err(self.error(&format!(
                "expected a JSON value, found {}",
                self.describe_here()
            )))
        }
    }

    fn digits(&mut self) -> usize {
        let from = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - from
    }

    fn number(&mut self) -> Result<JsonKind, JsonError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("invalid number: expected a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error("invalid number: expected a digit after `.`"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("invalid number: expected a digit in the exponent"));
            }
        }
        Ok(JsonKind::Number(self.text[start..self.pos].to_string()))
    }

    fn string(&mut self) -> Result<JsonString, JsonError> {
        // Caller saw the opening quote.
        self.pos += 1;
        let inner_start = self.pos;
        let mut value = String::new();
        loop {
            // Copy the longest run of plain characters at once; `"` and `\` are ASCII, so the
            // run always ends on a character boundary.
            let run_start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            value.push_str(&self.text[run_start..self.pos]);
            match self.peek() {
                Some(b'"') => {
                    let inner_span = inner_start..self.pos;
                    self.pos += 1;
                    return Ok(JsonString { value, inner_span });
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut value)?;
                }
                Some(_) => {
                    return Err(self.error("control character in a string; it must be escaped"))
                }
                None => return Err(self.error("unterminated string")),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), JsonError> {
        let c = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.pos += 1;
                let high = self.hex4()?;
                let c = if (0xD800..0xDC00).contains(&high) {
                    // A high surrogate must be followed by `\uDC00`..`\uDFFF` to form one character.
                    if self.src[self.pos..].starts_with(b"\\u") {
                        self.pos += 2;
                        let low = self.hex4()?;
                        if !(0xDC00..0xE000).contains(&low) {
                            return Err(self.error("invalid surrogate pair in \\u escape"));
                        }
                        char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                    } else {
                        // JSON.parse keeps lone surrogates; Rust strings cannot hold them.
                        Some('\u{fffd}')
                    }
                } else {
                    char::from_u32(high).or(Some('\u{fffd}'))
                };
                out.push(c.unwrap_or('\u{fffd}'));
                return Ok(());
            }
            _ => return Err(self.error("invalid escape sequence in a string")),
        };
        self.pos += 1;
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let digits = self
            .src
            .get(self.pos..self.pos + 4)
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| {
                u32::from_str_radix(d, 16)
                    .ok()
                    .filter(|_| d.bytes().all(|b| b.is_ascii_hexdigit()))
            });
        match digits {
            Some(n) => {
                self.pos += 4;
                Ok(n)
            }
            None => Err(self.error("expected four hex digits after \\u")),
        }
    }

    fn array(&mut self, depth: usize) -> Result<JsonKind, JsonError> {
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(JsonKind::Array(items));
        }
        loop {
            self.skip_ws();
            if self.peek() == Some(b']') && !items.is_empty() {
                return Err(self.error("trailing comma before `]`: JSON does not allow one"));
            }
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(JsonKind::Array(items));
                }
                _ => {
                    return Err(self.error(&format!(
                        "expected `,` or `]` in an array, found {}",
                        self.describe_here()
                    )))
                }
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<JsonKind, JsonError> {
        self.pos += 1;
        let mut members = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(JsonKind::Object(members));
        }
        loop {
            self.skip_ws();
            if self.peek() == Some(b'}') && !members.is_empty() {
                return Err(self.error("trailing comma before `}`: JSON does not allow one"));
            }
            if self.peek() != Some(b'"') {
                return Err(self.error(&format!(
                    "expected a quoted property name, found {}",
                    self.describe_here()
                )));
            }
            let key = self.string()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.error(&format!(
                    "expected `:` after a property name, found {}",
                    self.describe_here()
                )));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value(depth + 1)?;
            members.push(JsonMember { key, value });
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(JsonKind::Object(members));
                }
                _ => {
                    return Err(self.error(&format!(
                        "expected `,` or `}}` in an object, found {}",
                        self.describe_here()
                    )))
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The string value of `key` in the object `text` holds.
    fn string_at(text: &str, key: &str) -> JsonString {
        parse(text)
            .unwrap()
            .get(key)
            .unwrap()
            .as_string()
            .unwrap()
            .clone()
    }

    #[test]
    fn records_the_inner_span_of_strings() {
        let text = "{\n  \"dependencies\": { \"@a5c-ai/babysitter-sdk\": \"^0.0.168\" }\n}\n";
        let json = parse(text).unwrap();
        let dep = json
            .get("dependencies")
            .unwrap()
            .get("@a5c-ai/babysitter-sdk")
            .unwrap();
        let s = dep.as_string().unwrap();
        assert_eq!(s.value, "^0.0.168");
        assert_eq!(&text[s.inner_span.clone()], "^0.0.168");
        assert_eq!(&text[dep.span.clone()], "\"^0.0.168\"");
    }

    #[test]
    fn decodes_escapes_but_spans_the_raw_text() {
        let text = r#"{"a": "\u005e1.2.3 \ud83d\ude00 \n"}"#;
        let s = string_at(text, "a");
        assert_eq!(s.value, "^1.2.3 😀 \n");
        assert_eq!(&text[s.inner_span], r"\u005e1.2.3 \ud83d\ude00 \n");
    }

    #[test]
    fn last_duplicate_key_wins_like_json_parse() {
        let json = parse(r#"{"a": "1", "a": "2"}"#).unwrap();
        assert_eq!(json.get("a").unwrap().as_str(), Some("2"));
    }

    #[test]
    fn multibyte_text_keeps_byte_offsets() {
        let text = "{\"d\": \"é\", \"v\": \"1.0.0\"}";
        let s = string_at(text, "v");
        assert_eq!(&text[s.inner_span], "1.0.0");
    }

    #[test]
    fn errors_carry_the_offset_of_the_problem() {
        let cases: &[(&str, usize)] = &[
            ("{\"a\": 1,}", 8),
            ("{\"a\": 1 \"b\": 2}", 8),
            ("{\"a\": \"x", 8),
            ("", 0),
            ("{} x", 3),
            ("{'a': 1}", 1),
            ("{\"a\": 01}", 7),
            ("{\"a\": \"\t\"}", 7),
            ("{\"a\": tru}", 6),
            ("// c\n{}", 0),
        ];
        for (text, offset) in cases {
            let err = parse(text).unwrap_err();
            assert_eq!(err.offset, *offset, "{text:?}: {err}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        let err = parse(&text).unwrap_err();
        assert!(err.message.contains("nested too deeply"));
        let ok = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert!(parse(&ok).is_ok());
    }

    #[test]
    fn skips_a_leading_bom() {
        let text = "\u{feff}{\"v\": \"1.0.0\"}";
        let s = string_at(text, "v");
        assert_eq!(&text[s.inner_span], "1.0.0");
    }

    #[test]
    fn numbers_literals_and_arrays() {
        let json = parse(r#"[-1.5e+3, 0, true, false, null, {}, []]"#).unwrap();
        let items = json.elements().unwrap();
        assert_eq!(items[0].kind, JsonKind::Number("-1.5e+3".into()));
        assert_eq!(items[2].kind, JsonKind::Bool(true));
        assert_eq!(items[4].kind, JsonKind::Null);
        assert_eq!(items.len(), 7);
    }
}
