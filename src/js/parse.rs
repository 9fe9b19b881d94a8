//! The tree-sitter parser, one per thread.

use std::cell::RefCell;

use tree_sitter::{Parser, Tree};

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses JavaScript source. `None` only if tree-sitter itself gives up
/// (it does not on any input we have seen, but the caller reports it).
pub fn parse(text: &str) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_javascript::LANGUAGE.into())
                .ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()?.parse(text, None)
    })
}

/// What a syntax error most likely is, for the `parse-error` message: a
/// backtick that closed a template literal early (Markdown code in a
/// prompt is the usual cause), or a plain syntax error.
pub fn describe_syntax_error(tree: &Tree, text: &str, at: usize) -> SyntaxErrorKind {
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
/// ancestors (each `parent` call re-descends from the root, so the climb is
/// kept short for deeply nested files).
fn template_at(root: tree_sitter::Node, at: usize) -> Option<tree_sitter::Node> {
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
