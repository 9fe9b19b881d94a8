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
            return Frontmatter::Present(FrontmatterBlock {
                span: start..offset + line.len(),
                yaml_span,
                yaml,
            });
        }
        offset += line.len();
    }
    Frontmatter::Unclosed {
        open: start..start + first.trim_end().len(),
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
    fn empty_frontmatter_is_null() {
        let Frontmatter::Present(block) = split("---\n---\nbody") else {
            panic!("no frontmatter")
        };
        assert_eq!(block.yaml.unwrap().value, YamlValue::Null);
    }
}
