//! A CommonMark outline of a Markdown body from `pulldown-cmark`'s offset iterator.
//!
//! Links inside code spans and code blocks never appear as link events, which is exactly the
//! "not in code" rule later checks need; a regex scan could not know that.

use std::collections::HashMap;
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};

use crate::markdown::slug::Slugger;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    pub level: u8,
    /// Plain text of the heading (formatting stripped, inline code kept).
    pub text: String,
    /// GitHub's anchor for it, de-duplicated (`setup`, `setup-1`, …).
    pub slug: String,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    Link,
    Image,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub kind: LinkKind,
    /// The destination as CommonMark reads it (backslash escapes and entities resolved,
    /// percent-encoding untouched).
    pub dest: String,
    /// The whole `[text](dest)` / `![alt][ref]` construct.
    pub span: Range<usize>,
    /// Where the destination is written: inside the parentheses for inline links, in the
    /// reference definition for reference-style ones. `None` when it cannot be located exactly.
    pub dest_span: Option<Range<usize>>,
    /// The reference label of a reference-style link.
    pub reference: Option<String>,
    /// `<https://…>` and `<me@example.com>` autolinks.
    pub autolink: bool,
}

/// A heading's scope: from the heading to the next heading of the same or a higher level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Index into [`MarkdownDoc::headings`].
    pub heading: usize,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    Paragraph,
    /// The item's own text; a nested list's items are blocks of their own.
    ListItem,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextBlock {
    pub kind: BlockKind,
    pub text: String,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeBlock {
    /// The full info string of a fenced block (empty for indented blocks).
    pub info: String,
    /// The first word of the info string (```dot → `dot`).
    pub lang: String,
    pub fenced: bool,
    pub content: String,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MarkdownDoc {
    pub headings: Vec<Heading>,
    pub links: Vec<Link>,
    pub sections: Vec<Section>,
    pub blocks: Vec<TextBlock>,
    pub code_blocks: Vec<CodeBlock>,
}

impl MarkdownDoc {
    /// Whether a heading in this document has GitHub anchor `slug`.
    pub fn has_anchor(&self, slug: &str) -> bool {
        self.headings.iter().any(|h| h.slug == slug)
    }
}

/// What is being collected while inside a container.
enum Open {
    Heading {
        level: u8,
        start: usize,
        text: String,
    },
    Block {
        kind: BlockKind,
        start: usize,
        text: String,
    },
    Code {
        info: String,
        fenced: bool,
        start: usize,
        content: String,
    },
}

/// Parses `text[body_start..]` (the part after any frontmatter); spans are relative to `text`.
pub fn parse(text: &str, body_start: usize) -> MarkdownDoc {
    let body = text.get(body_start..).unwrap_or("");
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS;
    let iter = Parser::new_ext(body, options).into_offset_iter();
    let ref_defs: HashMap<String, Range<usize>> = iter
        .reference_definitions()
        .iter()
        .map(|(label, def)| (label.to_string(), def.span.clone()))
        .collect();

    let mut doc = MarkdownDoc::default();
    let mut slugger = Slugger::default();
    let mut stack: Vec<Open> = Vec::new();
    let shift = |r: Range<usize>| r.start + body_start..r.end + body_start;

    for (event, range) in iter {
        match event {
            Event::Start(Tag::Heading { level, .. }) => stack.push(Open::Heading {
                level: heading_level(level),
                start: range.start,
                text: String::new(),
            }),
            Event::Start(Tag::Paragraph) => stack.push(Open::Block {
                kind: BlockKind::Paragraph,
                start: range.start,
                text: String::new(),
            }),
            Event::Start(Tag::Item) => stack.push(Open::Block {
                kind: BlockKind::ListItem,
                start: range.start,
                text: String::new(),
            }),
            Event::Start(Tag::CodeBlock(kind)) => {
                let (info, fenced) = match kind {
                    CodeBlockKind::Fenced(info) => (info.to_string(), true),
                    CodeBlockKind::Indented => (String::new(), false),
                };
                stack.push(Open::Code {
                    info,
                    fenced,
                    start: range.start,
                    content: String::new(),
                });
            }
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                id,
                ..
            }) => doc.links.push(make_link(
                LinkKind::Link,
                link_type,
                &dest_url,
                &id,
                body,
                range.clone(),
                &ref_defs,
                body_start,
            )),
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                id,
                ..
            }) => doc.links.push(make_link(
                LinkKind::Image,
                link_type,
                &dest_url,
                &id,
                body,
                range.clone(),
                &ref_defs,
                body_start,
            )),
            Event::End(TagEnd::Heading(_)) => {
                if let Some(Open::Heading { level, start, text }) = stack.pop() {
                    let text = text.trim().to_string();
                    let slug = slugger.slug(&text);
                    doc.headings.push(Heading {
                        level,
                        text,
                        slug,
                        span: shift(start..range.end),
                    });
                }
            }
            Event::End(TagEnd::Paragraph | TagEnd::Item) => {
                if let Some(Open::Block { kind, start, text }) = stack.pop() {
                    doc.blocks.push(TextBlock {
                        kind,
                        text: text.trim().to_string(),
                        span: shift(start..range.end),
                    });
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(Open::Code {
                    info,
                    fenced,
                    start,
                    content,
                }) = stack.pop()
                {
                    let lang = info.split_whitespace().next().unwrap_or("").to_string();
                    doc.code_blocks.push(CodeBlock {
                        info,
                        lang,
                        fenced,
                        content,
                        span: shift(start..range.end),
                    });
                }
            }
            Event::Text(t) | Event::Code(t) => push_text(&mut stack, &t, false),
            Event::SoftBreak | Event::HardBreak => push_text(&mut stack, " ", true),
            _ => {}
        }
    }
    doc.blocks.sort_by_key(|b| (b.span.start, b.span.end));
    doc.sections = sections(&doc.headings, text.len());
    doc
}

/// Text goes to the innermost open container, so a list item does not repeat its paragraphs'
/// text twice and a nested item's text stays out of its parent.
fn push_text(stack: &mut [Open], text: &str, is_break: bool) {
    match stack.last_mut() {
        Some(Open::Heading { text: t, .. } | Open::Block { text: t, .. }) => t.push_str(text),
        Some(Open::Code { content, .. }) if !is_break => content.push_str(text),
        _ => {}
    }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

#[allow(clippy::too_many_arguments)]
fn make_link(
    kind: LinkKind,
    link_type: LinkType,
    dest: &str,
    id: &str,
    body: &str,
    range: Range<usize>,
    ref_defs: &HashMap<String, Range<usize>>,
    body_start: usize,
) -> Link {
    let reference = matches!(
        link_type,
        LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut
    )
    .then(|| id.to_string());
    // A destination is searched for within the text that states it: the link itself for an
    // inline link (last occurrence, so `[x.md](x.md)` finds the one in parentheses), the
    // definition for a reference.
    let home = match &reference {
        Some(label) => lookup_def(ref_defs, label),
        None => Some(range.clone()),
    };
    let dest_span = home.and_then(|home| {
        let haystack = body.get(home.clone())?;
        let at = haystack.rfind(dest).filter(|_| !dest.is_empty())?;
        Some(home.start + at + body_start..home.start + at + dest.len() + body_start)
    });
    Link {
        kind,
        dest: dest.to_string(),
        span: range.start + body_start..range.end + body_start,
        dest_span,
        reference,
        autolink: matches!(link_type, LinkType::Autolink | LinkType::Email),
    }
}

/// Reference labels match case-insensitively with collapsed whitespace (CommonMark §4.7).
fn lookup_def(ref_defs: &HashMap<String, Range<usize>>, label: &str) -> Option<Range<usize>> {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let wanted = norm(label);
    ref_defs
        .iter()
        .find(|(k, _)| norm(k) == wanted)
        .map(|(_, span)| span.clone())
}

fn sections(headings: &[Heading], end: usize) -> Vec<Section> {
    headings
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let stop = headings[i + 1..]
                .iter()
                .find(|next| next.level <= h.level)
                .map_or(end, |next| next.span.start);
            Section {
                heading: i,
                span: h.span.start..stop,
            }
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const TEXT: &str = "---\nname: x\n---\n# Review loop\n\nUse [the template](implementer-prompt.md#setup \"t\") and ![diagram](img/flow.png).\n\n## Setup\n\n- See [ref][Tpl]\n- `[not a link](nope.md)`\n  - nested [deep](deep.md)\n\n```dot\ndigraph { a -> b }\n```\n\n    [indented](code.md)\n\n## Setup\n\n<https://example.com>\n\n[tpl]: scripts/review-package\n";

    fn doc() -> MarkdownDoc {
        parse(TEXT, 16)
    }

    #[test]
    fn headings_have_github_slugs_and_spans() {
        let d = doc();
        let got: Vec<_> = d
            .headings
            .iter()
            .map(|h| (h.level, h.slug.as_str()))
            .collect();
        assert_eq!(got, vec![(1, "review-loop"), (2, "setup"), (2, "setup-1")]);
        assert_eq!(&TEXT[d.headings[0].span.clone()], "# Review loop\n");
        assert!(d.has_anchor("setup-1"));
    }

    #[test]
    fn links_and_images_outside_code_with_destination_spans() {
        let d = doc();
        let dests: Vec<_> = d.links.iter().map(|l| l.dest.as_str()).collect();
        assert_eq!(
            dests,
            vec![
                "implementer-prompt.md#setup",
                "img/flow.png",
                "scripts/review-package",
                "deep.md",
                "https://example.com"
            ]
        );
        for link in &d.links {
            let span = link.dest_span.clone().unwrap();
            assert_eq!(&TEXT[span], link.dest);
        }
        assert_eq!(d.links[1].kind, LinkKind::Image);
        assert_eq!(
            &TEXT[d.links[0].span.clone()],
            "[the template](implementer-prompt.md#setup \"t\")"
        );
        assert_eq!(d.links[2].reference.as_deref(), Some("Tpl"));
        assert!(d.links[4].autolink);
    }

    #[test]
    fn fenced_code_blocks_keep_info_and_content() {
        let d = doc();
        let fenced: Vec<_> = d.code_blocks.iter().filter(|c| c.fenced).collect();
        assert_eq!(fenced.len(), 1);
        assert_eq!(fenced[0].lang, "dot");
        assert_eq!(fenced[0].content, "digraph { a -> b }\n");
        assert!(TEXT[fenced[0].span.clone()].starts_with("```dot"));
        assert!(d
            .code_blocks
            .iter()
            .any(|c| !c.fenced && c.content.contains("[indented]")));
    }

    #[test]
    fn sections_scope_until_the_next_peer_heading() {
        let d = doc();
        assert_eq!(d.sections.len(), 3);
        assert_eq!(d.sections[0].span.end, TEXT.len());
        assert_eq!(d.sections[1].span.end, d.headings[2].span.start);
    }

    #[test]
    fn paragraphs_and_list_items() {
        let d = doc();
        let items: Vec<_> = d
            .blocks
            .iter()
            .filter(|b| b.kind == BlockKind::ListItem)
            .map(|b| b.text.as_str())
            .collect();
        assert_eq!(
            items,
            vec!["See ref", "[not a link](nope.md)", "nested deep"]
        );
        let para = d
            .blocks
            .iter()
            .find(|b| b.kind == BlockKind::Paragraph)
            .unwrap();
        assert_eq!(para.text, "Use the template and diagram.");
        assert!(TEXT[para.span.clone()].starts_with("Use [the template]"));
    }
}
