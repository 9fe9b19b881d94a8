//! Splits a `---`-fenced YAML frontmatter block off the top of a Markdown file and parses it.

use std::ops::Range;

use crate::markdown::yaml::{self, YamlError, YamlNode};

/// The frontmatter block as found at the top of a file.
#[derive(Debug, Clone, PartialEq)]
pub enum Frontmatter {
    /// The file does not start with a `---` line.
    Missing,
    /// An opening `---` line with no closing one; `open` spans the opening fence.
    Unclosed {
        open: Range<usize>,
    },
    Present(FrontmatterBlock),
}

#[derive(Debug, Clone, PartialEq)]
pub struct FrontmatterBlock {
    /// From the opening fence to the end of the closing fence line.
    pub span: Range<usize>,
    /// The YAML text between the fences.
    pub yaml_span: Range<usize>,
    /// The parsed YAML, spans relative to the whole file.
    pub yaml: Result<YamlNode, YamlError>,
    /// When the YAML fails because the block ran on past its fields into
    /// the Markdown body (the closing `---` is missing, and a later `---`,
    /// a thematic break, closed it): the line where the body starts.
    pub runs_into_body: Option<Range<usize>>,
}

impl Frontmatter {
    /// Where the Markdown body starts: after the closing fence, or 0 without frontmatter.
    pub fn body_offset(&self) -> usize {
        match self {
            Frontmatter::Present(block) => block.span.end,
            Frontmatter::Missing | Frontmatter::Unclosed { .. } => 0,
        }
    }
}

fn is_fence(line: &str) -> bool {
    line.trim_end_matches(['\n', '\r']).trim_end() == "---"
}

/// Reads the frontmatter of `text`. A leading BOM is tolerated, as editors add one.
pub fn split(text: &str) -> Frontmatter {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    // Lines end at `\n`, `\r\n` or a lone `\r` (old Mac files, which YAML
    // and CommonMark also read as line breaks).
    let mut lines = crate::source::lines_inclusive(&text[start..]);
    let Some(first) = lines.next() else {
        return Frontmatter::Missing;
    };
    if !is_fence(first) {
        return Frontmatter::Missing;
    }
    let yaml_start = start + first.len();
    let mut offset = yaml_start;
    for line in lines {
        if is_fence(line) {
            let yaml_span = yaml_start..offset;
            let yaml = yaml::parse(&text[yaml_span.clone()], yaml_start);
            let runs_into_body = match &yaml {
                Err(e) => body_start(text, yaml_span.clone(), e),
                Ok(_) => None,
            };
            return Frontmatter::Present(FrontmatterBlock {
                span: start..offset + line.len(),
                yaml_span,
                yaml,
                runs_into_body,
            });
        }
        offset += line.len();
    }
    Frontmatter::Unclosed {
        open: start..start + first.trim_end().len(),
    }
}

/// How many lines above a YAML error the fields' end is looked for.
const BODY_LOOKBACK: usize = 20;

/// The line where the Markdown body starts inside a frontmatter block whose
/// YAML fails at `error`: a line at column 0 at or above the error that is
/// not a `key:` line, with everything above it a mapping that parses. A
/// heading right above it (`# Steps`, a YAML comment) starts the body too.
/// `None` when the error is inside the fields themselves.
fn body_start(text: &str, yaml: Range<usize>, error: &YamlError) -> Option<Range<usize>> {
    let at = error.offset?;
    let mut lines: Vec<Range<usize>> = Vec::new();
    let mut offset = yaml.start;
    for line in crate::source::lines_inclusive(text.get(yaml.clone())?) {
        if offset > at {
            break;
        }
        lines.push(offset..offset + line.len());
        offset += line.len();
    }
    let starts_line = |r: &Range<usize>| {
        text.get(r.clone())
            .is_some_and(|l| l.starts_with(|c: char| !c.is_whitespace()))
    };
    let is_comment = |r: &Range<usize>| text.get(r.clone()).is_some_and(|l| l.starts_with('#'));
    let is_blank = |r: &Range<usize>| text.get(r.clone()).is_some_and(|l| l.trim().is_empty());
    let candidates = lines.iter().enumerate().rev().take(BODY_LOOKBACK);
    for (i, line) in candidates {
        if !starts_line(line) || is_comment(line) {
            continue;
        }
        let first = text.get(line.clone()).unwrap_or("");
        if is_key_line(first) {
            // A field: the error is in the fields, or further up.
            return None;
        }
        let above = text.get(yaml.start..line.start)?;
        let fields = yaml::parse(above, yaml.start)
            .ok()
            .is_some_and(|n| n.entries().is_some_and(|e| !e.is_empty()));
        if !fields {
            continue;
        }
        // A heading (a comment to YAML) right above the first body line.
        let mut begin = i;
        while begin > 0 && (is_comment(&lines[begin - 1]) || is_blank(&lines[begin - 1])) {
            begin -= 1;
        }
        while begin < i && is_blank(&lines[begin]) {
            begin += 1;
        }
        let body = &lines[begin];
        let end = text.get(body.clone()).map_or(body.end, |l| {
            body.start + l.trim_end_matches(['\n', '\r']).len()
        });
        return Some(body.start..end);
    }
    None
}

/// `name: …`, `allowed-tools:`: a line that starts a field.
fn is_key_line(line: &str) -> bool {
    let key_end = line
        .find(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(line.len());
    key_end > 0 && line[key_end..].starts_with(':') && {
        let rest = &line[key_end + 1..];
        rest.is_empty() || rest.starts_with(char::is_whitespace)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::markdown::yaml::YamlValue;

    #[test]
    fn splits_and_parses() {
        let text = "---\nname: pdf\ndescription: x\n---\n# Title\n";
        let Frontmatter::Present(block) = split(text) else {
            panic!("no frontmatter")
        };
        assert_eq!(
            &text[block.yaml_span.clone()],
            "name: pdf\ndescription: x\n"
        );
        assert_eq!(&text[block.span.end..], "# Title\n");
        let yaml = block.yaml.unwrap();
        assert_eq!(&text[yaml.get("name").unwrap().span.clone()], "pdf");
    }

    #[test]
    fn missing_unclosed_and_crlf() {
        assert_eq!(split("# Title\n---\n"), Frontmatter::Missing);
        assert_eq!(split(""), Frontmatter::Missing);
        assert_eq!(
            split("---\nname: x\n"),
            Frontmatter::Unclosed { open: 0..3 }
        );
        let crlf = "---\r\nname: x\r\n---\r\nbody";
        let fm = split(crlf);
        assert_eq!(fm.body_offset(), crlf.len() - 4);
    }

    /// A lone-CR file (old Mac line endings) was "missing" its frontmatter.
    #[test]
    fn lone_cr_lines() {
        let text = "---\rname: x\rdescription: y\r---\rbody\r";
        let Frontmatter::Present(block) = split(text) else {
            panic!("no frontmatter in {text:?}")
        };
        assert_eq!(&text[block.span.end..], "body\r");
        assert_eq!(&text[block.yaml_span.clone()], "name: x\rdescription: y\r");
        let YamlValue::Map(map) = block.yaml.unwrap().value else {
            panic!("not a map")
        };
        assert_eq!(map.len(), 2, "{map:?}");
        assert_eq!(
            split("---\rname: x\r"),
            Frontmatter::Unclosed { open: 0..3 }
        );
    }

    #[test]
    fn yaml_errors_point_into_the_file() {
        let text = "---\nname: x\nname: y\n---\n";
        let Frontmatter::Present(block) = split(text) else {
            panic!("no frontmatter")
        };
        let err = block.yaml.unwrap_err();
        assert_eq!(err.line, Some(2));
        assert!(err.offset.unwrap() >= 4);
    }

    #[test]
    fn body_inside_the_block() {
        let body = |text: &str| {
            let Frontmatter::Present(block) = split(text) else {
                panic!("no frontmatter in {text:?}")
            };
            block.runs_into_body.map(|r| text[r].to_string())
        };
        assert_eq!(
            body("---\nname: a\ngraph:\n  x: [y]\n2. Do not guess\n3. Read\n---\n").as_deref(),
            Some("2. Do not guess")
        );
        // An error in a field is not the body.
        assert_eq!(body("---\nname: a\nhint: [x] [y]\n---\n"), None);
        assert_eq!(body("---\nname: a\ndescription: \"open\n---\n"), None);
        // Nothing parses above the failing line: no fields to end.
        assert_eq!(body("---\n1. Read\n2. Think\n---\n"), None);
    }

    #[test]
    fn empty_frontmatter_is_null() {
        let Frontmatter::Present(block) = split("---\n---\nbody") else {
            panic!("no frontmatter")
        };
        assert_eq!(block.yaml.unwrap().value, YamlValue::Null);
    }
}
