//! YAML values with byte spans, read with `serde-saphyr` (duplicate keys rejected).
//!
//! Scalars keep their source spelling next to their type, because the reference Agent Skills
//! validator reads YAML with strictyaml, where `name: 123` is the string "123".

use std::fmt;
use std::ops::Range;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{DuplicateKeyPolicy, Location, Spanned};

#[derive(Debug, Clone, PartialEq)]
pub struct YamlNode {
    pub value: YamlValue,
    /// Bytes of the node in the text handed to [`parse`], shifted by its `base_offset`.
    pub span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum YamlValue {
    Null,
    Bool(bool),
    /// Integers and floats, as YAML resolved them.
    Number(String),
    String(String),
    Seq(Vec<YamlNode>),
    /// Entries in document order.
    Map(Vec<(YamlNode, YamlNode)>),
}

impl YamlValue {
    /// The text of a scalar (strings, numbers, booleans); `None` for null and collections.
    pub fn scalar_text(&self) -> Option<String> {
        match self {
            YamlValue::String(s) | YamlValue::Number(s) => Some(s.clone()),
            YamlValue::Bool(b) => Some(b.to_string()),
            YamlValue::Null | YamlValue::Seq(_) | YamlValue::Map(_) => None,
        }
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            YamlValue::Null => "null",
            YamlValue::Bool(_) => "a boolean",
            YamlValue::Number(_) => "a number",
            YamlValue::String(_) => "a string",
            YamlValue::Seq(_) => "a list",
            YamlValue::Map(_) => "a mapping",
        }
    }
}

impl YamlNode {
    /// The entries of a mapping node.
    pub fn entries(&self) -> Option<&[(YamlNode, YamlNode)]> {
        match &self.value {
            YamlValue::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The value under `key` in a mapping node (duplicates are rejected at parse time).
    pub fn get(&self, key: &str) -> Option<&YamlNode> {
        self.entries()?
            .iter()
            .find(|(k, _)| k.value.scalar_text().as_deref() == Some(key))
            .map(|(_, v)| v)
    }
}

/// A YAML syntax or structure error, positioned in the text handed to [`parse`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub message: String,
    /// Byte offset (shifted by `base_offset`) of the error, when the parser reports one.
    pub offset: Option<usize>,
    /// 1-based line within the YAML text, when known.
    pub line: Option<usize>,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Parses one YAML document. Spans are shifted by `base_offset`, so a caller that slices the
/// YAML out of a larger file gets spans relative to the whole file.
pub fn parse(text: &str, base_offset: usize) -> Result<YamlNode, YamlError> {
    if text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        return Ok(YamlNode {
            value: YamlValue::Null,
            span: base_offset..base_offset + text.len(),
        });
    }
    // YAML 1.2 core booleans only, as the reference validator and js-yaml read them:
    // `name: yes` is the string "yes", not a boolean.
    let options = serde_saphyr::options! {
        duplicate_keys: DuplicateKeyPolicy::Error,
        strict_booleans: true,
    };
    match serde_saphyr::from_str_with_options::<Spanned<YamlValue>>(text, options) {
        Ok(spanned) => Ok(to_node(spanned, text, base_offset)),
        Err(e) => {
            let location = e.location();
            Err(YamlError {
                message: first_line(&e.to_string()),
                offset: location
                    .and_then(|l| byte_offset(&l, text))
                    .map(|o| o + base_offset),
                line: location.and_then(|l| usize::try_from(l.line()).ok()),
            })
        }
    }
}

/// serde-saphyr renders errors as `error: line L column C: what[, advice for the caller]`
/// plus a snippet. The position is reported separately (and L is relative to the YAML, not
/// the file), so only `what` is kept.
fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or(message).trim();
    let line = line.strip_prefix("error:").map_or(line, str::trim_start);
    let line = match line.strip_prefix("line ") {
        Some(rest) => rest
            .split_once(": ")
            .filter(|(pos, _)| pos.contains("column"))
            .map_or(line, |(_, what)| what),
        None => line,
    };
    let line = line
        .split(", set DuplicateKeyPolicy")
        .next()
        .unwrap_or(line);
    line.to_string()
}

fn byte_offset(location: &Location, text: &str) -> Option<usize> {
    if let Some(offset) = location.span().byte_offset() {
        return usize::try_from(offset).ok().filter(|o| *o <= text.len());
    }
    // Fall back to line/column (1-based, in characters).
    let line = usize::try_from(location.line()).ok()?.checked_sub(1)?;
    let column = usize::try_from(location.column()).ok()?.saturating_sub(1);
    let line_start: usize = crate::source::lines_inclusive(text)
        .take(line)
        .map(str::len)
        .sum();
    let rest = text.get(line_start..)?;
    let col_bytes: usize = rest.chars().take(column).map(char::len_utf8).sum();
    Some(line_start + col_bytes)
}

fn to_node(spanned: Spanned<YamlValue>, text: &str, base: usize) -> YamlNode {
    let start = byte_offset(&spanned.referenced, text).unwrap_or(0);
    let len = spanned
        .referenced
        .span()
        .byte_len()
        .and_then(|l| usize::try_from(l).ok())
        .unwrap_or(0);
    let end = (start + len).min(text.len());
    YamlNode {
        value: shift(spanned.value, base),
        span: base + start..base + end,
    }
}

/// Children were deserialized with spans relative to `text`; rebase them on the file.
fn shift(value: YamlValue, base: usize) -> YamlValue {
    match value {
        YamlValue::Seq(items) => YamlValue::Seq(
            items
                .into_iter()
                .map(|n| YamlNode {
                    value: shift(n.value, base),
                    span: n.span.start + base..n.span.end + base,
                })
                .collect(),
        ),
        YamlValue::Map(entries) => YamlValue::Map(
            entries
                .into_iter()
                .map(|(k, v)| {
                    (
                        YamlNode {
                            value: shift(k.value, base),
                            span: k.span.start + base..k.span.end + base,
                        },
                        YamlNode {
                            value: shift(v.value, base),
                            span: v.span.start + base..v.span.end + base,
                        },
                    )
                })
                .collect(),
        ),
        other => other,
    }
}

/// Children as deserialized: spans relative to the YAML text, and only byte offsets reported
/// by the parser (no text to fall back on here, so a missing offset becomes 0..0).
fn child(spanned: Spanned<YamlValue>) -> YamlNode {
    let start = spanned
        .referenced
        .span()
        .byte_offset()
        .and_then(|o| usize::try_from(o).ok())
        .unwrap_or(0);
    let len = spanned
        .referenced
        .span()
        .byte_len()
        .and_then(|l| usize::try_from(l).ok())
        .unwrap_or(0);
    YamlNode {
        value: spanned.value,
        span: start..start + len,
    }
}

impl<'de> Deserialize<'de> for YamlValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = YamlValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<YamlValue, E> {
        Ok(YamlValue::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<YamlValue, E> {
        Ok(YamlValue::Number(v.to_string()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<YamlValue, E> {
        Ok(YamlValue::Number(v.to_string()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<YamlValue, E> {
        Ok(YamlValue::Number(v.to_string()))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<YamlValue, E> {
        Ok(YamlValue::Number(v.to_string()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<YamlValue, E> {
        Ok(YamlValue::Number(v.to_string()))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<YamlValue, E> {
        Ok(YamlValue::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<YamlValue, E> {
        Ok(YamlValue::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<YamlValue, E> {
        Ok(YamlValue::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<YamlValue, E> {
        Ok(YamlValue::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<YamlValue, D::Error> {
        YamlValue::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<YamlValue, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<YamlValue>>()? {
            items.push(child(item));
        }
        Ok(YamlValue::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<YamlValue, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<Spanned<YamlValue>, Spanned<YamlValue>>()? {
            entries.push((child(k), child(v)));
        }
        Ok(YamlValue::Map(entries))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn spans_are_relative_to_the_file() {
        let file =
            "---\nname: pdf-tools\ndescription: \"Fill forms\"\nmetadata:\n  author: me\n---\n";
        let yaml = &file[4..file.len() - 4];
        let node = parse(yaml, 4).unwrap();
        let name = node.get("name").unwrap();
        assert_eq!(name.value, YamlValue::String("pdf-tools".into()));
        assert_eq!(&file[name.span.clone()], "pdf-tools");
        let (key, _) = &node.entries().unwrap()[1];
        assert_eq!(&file[key.span.clone()], "description");
        let author = node.get("metadata").unwrap().get("author").unwrap();
        assert_eq!(&file[author.span.clone()], "me");
    }

    #[test]
    fn duplicate_keys_are_rejected_with_a_line() {
        let err = parse("name: a\ndescription: b\nname: c\n", 0).unwrap_err();
        assert_eq!(err.line, Some(3), "{err:?}");
        assert!(err.message.to_lowercase().contains("duplicate"), "{err:?}");
    }

    #[test]
    fn syntax_errors_carry_a_position() {
        let err = parse("name: a\ndescription: [unclosed\n", 10).unwrap_err();
        assert!(err.line.is_some(), "{err:?}");
        assert!(err.offset.unwrap() >= 10);
    }

    #[test]
    fn scalars_keep_their_type_and_text() {
        let node = parse("a: 123\nb: true\nc:\nd: [x, y]\n", 0).unwrap();
        assert_eq!(
            node.get("a").unwrap().value.scalar_text().as_deref(),
            Some("123")
        );
        assert_eq!(node.get("b").unwrap().value, YamlValue::Bool(true));
        assert_eq!(node.get("c").unwrap().value, YamlValue::Null);
        assert!(matches!(node.get("d").unwrap().value, YamlValue::Seq(ref v) if v.len() == 2));
    }

    #[test]
    fn yes_and_no_are_strings_as_in_yaml_1_2() {
        let node = parse("a: yes\nb: No\nc: on\nd: True\n", 0).unwrap();
        assert_eq!(
            node.get("a").unwrap().value,
            YamlValue::String("yes".into())
        );
        assert_eq!(node.get("b").unwrap().value, YamlValue::String("No".into()));
        assert_eq!(node.get("c").unwrap().value, YamlValue::String("on".into()));
        assert_eq!(node.get("d").unwrap().value, YamlValue::Bool(true));
    }

    #[test]
    fn empty_and_comment_only_documents_are_null() {
        assert_eq!(parse("", 0).unwrap().value, YamlValue::Null);
        assert_eq!(parse("# nothing\n\n", 0).unwrap().value, YamlValue::Null);
    }
}
