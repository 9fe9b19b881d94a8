//! The tree-sitter parser, one per thread, and the edits that let it
//! re-parse a changed buffer incrementally.

use std::cell::RefCell;

use tree_sitter::{InputEdit, Parser, Point, Tree};

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses JavaScript source. `None` only if tree-sitter itself gives up
/// (it does not on any input we have seen, but the caller reports it).
pub fn parse(text: &str) -> Option<Tree> {
    parse_from(text, None)
}

/// [`parse`], then the analyses' own tree of it (the parser's is freed).
pub fn parse_tree(text: &str) -> Option<crate::js::syntax::tree::Tree> {
    parse(text).map(|t| crate::js::syntax::tree::Tree::from_tree_sitter(&t, text))
}

/// Parses `text` re-using `old`, the tree of the previous text with every
/// change since applied to it ([`edit`]): tree-sitter re-parses only what
/// the edits touched. The result is the tree a full parse gives: a text
/// with a syntax error is parsed afresh, because tree-sitter's error
/// recovery from an edited tree can differ from a parse from scratch.
pub fn parse_from(text: &str, old: Option<&Tree>) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_javascript::LANGUAGE.into())
                .ok()?;
            *slot = Some(parser);
        }
        let parser = slot.as_mut()?;
        // What Node reads, where tree-sitter's grammar reads otherwise.
        let text = &*crate::js::syntax::parser_text(text);
        let tree = parser.parse(text, old)?;
        // Error recovery is not the same from an edited tree as from
        // scratch: a buffer with a syntax error is parsed afresh, so the
        // editor reports the same parse error (and findings) as `check`.
        if old.is_some() && tree.root_node().has_error() {
            return parser.parse(text, None);
        }
        Some(tree)
    })
}

/// Where byte `offset` of `text` is, as tree-sitter counts in the text it
/// parses ([`crate::js::syntax::parser_text`], where a lone `\r` is `\n`):
/// rows end at `\n` or a lone `\r` (the `\r` of a CRLF is the last byte of
/// its row), columns are bytes.
pub fn point_at(text: &str, offset: usize) -> Point {
    let bytes = text.as_bytes();
    let before = &bytes[..offset.min(text.len())];
    let (mut row, mut line_start) = (0, 0);
    for at in memchr::memchr2_iter(b'\n', b'\r', before) {
        if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
            continue;
        }
        row += 1;
        line_start = at + 1;
    }
    Point::new(row, before.len() - line_start)
}

/// The edit that replaces `text[start..old_end]` by `new_text`, for
/// [`Tree::edit`] on the tree of `text` (before the replacement). Offsets
/// past the end are clamped.
pub fn input_edit(text: &str, start: usize, old_end: usize, new_text: &str) -> InputEdit {
    let start = start.min(text.len());
    let old_end = old_end.clamp(start, text.len());
    let start_position = point_at(text, start);
    let old_end_position = point_at(text, old_end);
    // The new text's own rows, and its last row's length; a `\r` at its end
    // is lone unless the text after the edit starts with `\n`.
    let after = text.as_bytes().get(old_end).copied();
    let mut joined = new_text.to_string();
    joined.extend(after.map(char::from).filter(|c| *c == '\n'));
    let end = point_at(&joined, new_text.len());
    let new_end_position = if end.row == 0 {
        Point::new(start_position.row, start_position.column + new_text.len())
    } else {
        Point::new(start_position.row + end.row, end.column)
    };
    InputEdit {
        start_byte: start,
        old_end_byte: old_end,
        new_end_byte: start + new_text.len(),
        start_position,
        old_end_position,
        new_end_position,
    }
}

/// What a syntax error most likely is, for the `parse-error` message: a
/// backtick that closed a template literal early (Markdown code in a
/// prompt is the usual cause), or a plain syntax error.
pub fn describe_syntax_error(
    tree: &crate::js::syntax::tree::Tree,
    text: &str,
    at: usize,
) -> SyntaxErrorKind {
    let root = tree.root_node();
    // The token just before the error: a template literal that ends right
    // there closed at a backtick the author meant as text.
    let before = text[..at.min(text.len())].trim_end();
    if before.ends_with('`') || text[at.min(text.len())..].starts_with('`') {
        let mut probe = before.len().saturating_sub(1);
        let mut first = None;
        // ```` ``` ```` closes the prompt's template and opens an empty
        // one: step back over adjacent templates to the one the author
        // opened.
        while let Some(t) = template_at(root, probe) {
            first = Some(t.start_byte());
            match text[..t.start_byte()].trim_end().strip_suffix('`') {
                Some(rest) if t.start_byte() > 0 => probe = rest.len(),
                _ => break,
            }
        }
        if let Some(start) = first {
            let line = text[..start].bytes().filter(|b| *b == b'\n').count() + 1;
            return SyntaxErrorKind::TemplateBacktick {
                template_line: line,
            };
        }
        if text[..at.min(text.len())]
            .bytes()
            .filter(|b| *b == b'`')
            .count()
            % 2
            == 1
        {
            return SyntaxErrorKind::TemplateBacktick { template_line: 0 };
        }
    }
    SyntaxErrorKind::Plain
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    Plain,
    /// `template_line` is the 1-based line where the template literal that
    /// ended early starts (0 when unknown).
    TemplateBacktick {
        template_line: usize,
    },
}

/// The template literal at `at`: the token there or one of its closest
/// ancestors (a literal further up is not the one that ended early).
fn template_at(
    root: crate::js::syntax::tree::Node,
    at: usize,
) -> Option<crate::js::syntax::tree::Node> {
    let mut node = root.descendant_for_byte_range(at, at);
    for _ in 0..4 {
        let n = node?;
        if n.kind() == "template_string" {
            return Some(n);
        }
        node = n.parent();
    }
    None
}
