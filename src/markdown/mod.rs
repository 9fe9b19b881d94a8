//! The SKILL.md front end: YAML frontmatter with locations, and a CommonMark outline of the
//! body (headings, links, sections, text blocks, code blocks), all with file-relative byte spans.

pub mod document;
pub mod frontmatter;
pub mod slug;
pub mod yaml;

pub use document::{
    BlockKind, CodeBlock, Heading, Link, LinkKind, MarkdownDoc, Section, TextBlock,
};
pub use frontmatter::{Frontmatter, FrontmatterBlock};

/// A parsed SKILL.md (or any Markdown file with optional frontmatter).
#[derive(Debug, Clone, PartialEq)]
pub struct SkillMarkdown {
    pub frontmatter: Frontmatter,
    /// The body after the frontmatter; spans are relative to the whole file.
    pub doc: MarkdownDoc,
}

impl SkillMarkdown {
    pub fn parse(text: &str) -> Self {
        let frontmatter = frontmatter::split(text);
        let doc = document::parse(text, frontmatter.body_offset());
        SkillMarkdown { frontmatter, doc }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn body_spans_are_file_relative() {
        let text = "---\nname: a\ndescription: b\n---\n# Heading\n[x](y.md)\n";
        let skill = SkillMarkdown::parse(text);
        assert!(matches!(skill.frontmatter, Frontmatter::Present(_)));
        assert_eq!(&text[skill.doc.headings[0].span.clone()], "# Heading\n");
        assert_eq!(&text[skill.doc.links[0].dest_span.clone().unwrap()], "y.md");
    }

    #[test]
    fn frontmatter_fences_are_not_read_as_markdown() {
        // Without the split, `---` after a line would make a setext heading of `name: a`.
        let skill = SkillMarkdown::parse("---\nname: a\n---\nbody\n");
        assert!(skill.doc.headings.is_empty());
    }
}
