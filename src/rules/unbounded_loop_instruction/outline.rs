//! A minimal, line-based Markdown outline: heading sections, prose blocks
//! (paragraphs and list items), fenced code and HTML comments, all as byte
//! ranges into the file.
//!
//! Stand-in until the shared SKILL.md front end (`src/markdown/`, built on
//! pulldown-cmark) lands on main; its `MarkdownDoc` has the same shape
//! (sections, text blocks, code blocks), so switching is mechanical.
//! Known simplifications: setext headings and indented code blocks are read
//! as prose; a block ends at a blank line.

use std::ops::Range;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeBlock {
    /// First word of the info string (```dot → `dot`).
    pub lang: String,
    /// The lines between the fences.
    pub content: Range<usize>,
}

#[derive(Debug, Default)]
pub struct Outline {
    /// (level, start of the heading line).
    headings: Vec<(usize, usize)>,
    /// Paragraphs and list items (own text only, up to the next item).
    pub blocks: Vec<Range<usize>>,
    pub code: Vec<CodeBlock>,
    /// `<!-- … -->` ranges: suppression directives, not instructions.
    pub comments: Vec<Range<usize>>,
    body_start: usize,
    len: usize,
}

impl Outline {
    pub fn parse(text: &str) -> Outline {
        let body_start = frontmatter_end(text);
        let mut o = Outline {
            body_start,
            len: text.len(),
            ..Outline::default()
        };
        let mut fence: Option<(u8, usize, String, usize)> = None;
        let mut block: Option<Range<usize>> = None;
        let mut offset = body_start;
        let body = text.get(body_start..).unwrap_or("");
        for line in body.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let content = line.trim_end_matches(['\n', '\r']);
            let trimmed = content.trim_start();
            if let Some((ch, len, lang, from)) = &fence {
                if is_fence_close(trimmed, *ch, *len) {
                    o.code.push(CodeBlock {
                        lang: lang.clone(),
                        content: *from..start,
                    });
                    fence = None;
                }
                continue;
            }
            if let Some((ch, len, lang)) = fence_open(trimmed) {
                close(&mut block, &mut o.blocks);
                fence = Some((ch, len, lang, offset));
                continue;
            }
            if trimmed.is_empty() {
                close(&mut block, &mut o.blocks);
                continue;
            }
            if let Some(level) = heading_level(content) {
                close(&mut block, &mut o.blocks);
                o.headings.push((level, start));
                o.blocks.push(start..start + content.len());
                continue;
            }
            if is_list_item(trimmed) {
                close(&mut block, &mut o.blocks);
            }
            let end = start + content.len();
            match &mut block {
                Some(b) => b.end = end,
                None => block = Some(start..end),
            }
        }
        close(&mut block, &mut o.blocks);
        if let Some((_, _, lang, from)) = fence {
            // An unclosed fence runs to the end of the file (CommonMark).
            o.code.push(CodeBlock {
                lang,
                content: from..text.len(),
            });
        }
        o.comments = html_comments(text, body_start);
        o
    }

    /// The heading scope containing `pos`: from its heading to the next
    /// heading of the same or a higher level (the text before the first
    /// heading is a section of its own).
    pub fn section_of(&self, pos: usize) -> Range<usize> {
        let Some(i) = self.headings.iter().rposition(|(_, s)| *s <= pos) else {
            let end = self.headings.first().map(|(_, s)| *s).unwrap_or(self.len);
            return self.body_start..end;
        };
        let (level, start) = self.headings[i];
        let end = self.headings[i + 1..]
            .iter()
            .find(|(l, _)| *l <= level)
            .map(|(_, s)| *s)
            .unwrap_or(self.len);
        start..end
    }

    pub fn in_comment(&self, r: &Range<usize>) -> bool {
        self.comments
            .iter()
            .any(|c| c.start <= r.start && r.end <= c.end)
    }
}

fn close(block: &mut Option<Range<usize>>, blocks: &mut Vec<Range<usize>>) {
    if let Some(b) = block.take() {
        blocks.push(b);
    }
}

/// End of a leading `---` YAML frontmatter block (0 when there is none).
fn frontmatter_end(text: &str) -> usize {
    let mut lines = text.split_inclusive('\n');
    let Some(first) = lines.next() else { return 0 };
    if first.trim_end() != "---" {
        return 0;
    }
    let mut offset = first.len();
    for line in lines {
        offset += line.len();
        if matches!(line.trim_end(), "---" | "...") {
            return offset;
        }
    }
    // No closing fence: not frontmatter.
    0
}

/// ```` ```lang ```` or `~~~lang`: (fence char, fence length, language).
fn fence_open(trimmed: &str) -> Option<(u8, usize, String)> {
    let ch = *trimmed.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = trimmed.bytes().take_while(|b| *b == ch).count();
    if len < 3 {
        return None;
    }
    let info = trimmed.get(len..).unwrap_or("").trim();
    if ch == b'`' && info.contains('`') {
        return None;
    }
    let lang = info.split_whitespace().next().unwrap_or("").to_lowercase();
    Some((ch, len, lang))
}

fn is_fence_close(trimmed: &str, ch: u8, len: usize) -> bool {
    let n = trimmed.bytes().take_while(|b| *b == ch).count();
    n >= len && trimmed.get(n..).is_some_and(|rest| rest.trim().is_empty())
}

/// ATX heading level (`## Loop` → 2), at most three spaces of indent.
fn heading_level(line: &str) -> Option<usize> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let level = rest.bytes().take_while(|b| *b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let after = rest.get(level..).unwrap_or("");
    (after.is_empty() || after.starts_with([' ', '\t'])).then_some(level)
}

/// `- item`, `* item`, `+ item`, `1. item`, `1) item`.
fn is_list_item(trimmed: &str) -> bool {
    let b = trimmed.as_bytes();
    match b.first() {
        Some(b'-' | b'*' | b'+') => matches!(b.get(1), Some(b' ' | b'\t')),
        Some(c) if c.is_ascii_digit() => {
            let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
            digits <= 9
                && matches!(b.get(digits), Some(b'.' | b')'))
                && matches!(b.get(digits + 1), Some(b' ' | b'\t') | None)
        }
        _ => false,
    }
}

fn html_comments(text: &str, from: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut pos = from;
    while let Some(i) = text.get(pos..).and_then(|t| t.find("<!--")) {
        let start = pos + i;
        let end = text
            .get(start + 4..)
            .and_then(|t| t.find("-->"))
            .map(|j| start + 4 + j + 3)
            .unwrap_or(text.len());
        out.push(start..end);
        pos = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_blocks_and_code() {
        let text = "---\nname: x\n---\nintro\n# A\n\npara one\nstill one\n\n- item 1\n- item 2\n  more\n## A.1\n```dot\na -> b\n```\n# B\n<!-- c -->\n";
        let o = Outline::parse(text);
        let blocks: Vec<&str> = o
            .blocks
            .iter()
            .filter_map(|r| text.get(r.clone()))
            .collect();
        assert_eq!(
            blocks,
            vec![
                "intro",
                "# A",
                "para one\nstill one",
                "- item 1",
                "- item 2\n  more",
                "## A.1",
                "# B",
                "<!-- c -->"
            ]
        );
        assert_eq!(o.code.len(), 1);
        assert_eq!(o.code[0].lang, "dot");
        assert_eq!(text.get(o.code[0].content.clone()), Some("a -> b\n"));
        let para = text.find("para").unwrap_or(0);
        let a1 = text.find("## A.1").unwrap_or(0);
        let b = text.find("# B").unwrap_or(0);
        // `# A` spans its subsection; `## A.1` ends at `# B`.
        assert_eq!(o.section_of(para), text.find("# A").unwrap_or(0)..b);
        assert_eq!(o.section_of(a1 + 3), a1..b);
        assert_eq!(o.section_of(5), 16..text.find("# A").unwrap_or(0));
        assert_eq!(o.comments.len(), 1);
    }

    #[test]
    fn no_frontmatter_and_unclosed_fence() {
        let text = "x\n---\n```\nrepeat\n";
        let o = Outline::parse(text);
        assert_eq!(o.code.len(), 1);
        assert_eq!(text.get(o.code[0].content.clone()), Some("repeat\n"));
    }
}
