//! Small, allocation-free helpers over syntax nodes (`js::syntax::tree`).

pub mod cook;
pub mod ids;
pub mod oxc;
pub mod parse;
pub mod tree;

use std::borrow::Cow;

use crate::js::syntax::tree::Node;

use crate::source::Span;

/// The text both parsers read: `text` byte for byte, except where a parser
/// would read it otherwise than Node does, replaced by bytes of the same
/// length, so every span of the tree holds in `text` (nothing reads the
/// replaced text but the parsers):
///
/// - a lone `\r` is a line terminator (it ends a `//` comment or a `#!`
///   line and allows an automatic semicolon), which tree-sitter's scanner
///   does not know: it becomes `\n`;
/// - every other ECMAScript `WhiteSpace` that is not ASCII (U+00A0, U+1680,
///   U+2000–U+200A, U+202F, U+205F, U+3000, U+FEFF) becomes ASCII spaces:
///   tree-sitter's scanner, which decides where automatic semicolons go,
///   knows only ASCII whitespace (`let a = 1` and U+00A0 before a line
///   break was a missing `;`);
/// - a character Node rejects outside strings, comments, templates and
///   regular expressions but a parser skipped as whitespace or read as
///   part of a name — DEL and the C1 controls (U+0085, NEL, among them:
///   oxc skips it, tree-sitter takes it into a name), U+180E, U+200B (both
///   parsers skip it), U+200E, U+200F, U+202A–U+202E, U+2060–U+2064
///   (tree-sitter skips U+2060), U+2066–U+206F — becomes U+0001 bytes,
///   which both parsers reject there as Node does, and keep as text
///   elsewhere.
///
/// U+2028 and U+2029 both parsers already read as Node does.
pub fn parser_text(text: &str) -> Cow<'_, str> {
    #[derive(Clone, Copy)]
    enum Put {
        Newline,
        Spaces(usize),
        Rejected(usize),
    }
    let bytes = text.as_bytes();
    let what = |at: usize| -> Option<Put> {
        let next = |i: usize| bytes.get(at + i).copied().unwrap_or(0);
        match (bytes[at], next(1), next(2)) {
            (b'\r', b'\n', _) => None,
            (b'\r', _, _) => Some(Put::Newline),
            (0x7f, _, _) => Some(Put::Rejected(1)),
            (0xc2, 0xa0, _) => Some(Put::Spaces(2)),
            (0xc2, 0x80..=0x9f, _) => Some(Put::Rejected(2)),
            (0xe1, 0x9a, 0x80) | (0xe3, 0x80, 0x80) | (0xef, 0xbb, 0xbf) => Some(Put::Spaces(3)),
            (0xe2, 0x80, 0x80..=0x8a | 0xaf) | (0xe2, 0x81, 0x9f) => Some(Put::Spaces(3)),
            (0xe1, 0xa0, 0x8e)
            | (0xe2, 0x80, 0x8b | 0x8e | 0x8f | 0xaa..=0xae)
            | (0xe2, 0x81, 0xa0..=0xa4 | 0xa6..=0xaf) => Some(Put::Rejected(3)),
            _ => None,
        }
    };
    let mut found: Vec<(usize, Put)> = Vec::new();
    for at in memchr::memchr3_iter(b'\r', 0xc2, 0xe2, bytes)
        .chain(memchr::memchr3_iter(0x7f, 0xe1, 0xe3, bytes))
        .chain(memchr::memchr_iter(0xef, bytes))
    {
        if let Some(put) = what(at) {
            found.push((at, put));
        }
    }
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = bytes.to_vec();
    for (at, put) in found {
        match put {
            Put::Newline => out[at] = b'\n',
            Put::Spaces(len) => out[at..at + len].fill(b' '),
            Put::Rejected(len) => out[at..at + len].fill(1),
        }
    }
    // Whole characters were replaced by ASCII: still UTF-8.
    String::from_utf8(out).map_or(Cow::Borrowed(text), Cow::Owned)
}

/// Code on one line (whitespace collapsed), at most `max` characters: a
/// longer text is cut where a token ends, never inside a name, a number or
/// an operator (`attempt+`), and marked with `…`.
pub fn shorten_code(s: &str, max: usize) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let chars: Vec<(usize, char)> = one_line.char_indices().collect();
    if chars.len() <= max {
        return one_line;
    }
    // A member chain (`inputs.maxAttempts`) is cut whole, like a name.
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '.';
    let op = |c: char| "+-*/%=<>!&|^?".contains(c);
    // Keep chars[..k]; back off while k splits a token.
    let mut k = max.saturating_sub(1).max(1);
    while k > 1 {
        let (a, b) = (chars[k - 1].1, chars[k].1);
        if (word(a) && word(b)) || (op(a) && op(b)) {
            k -= 1;
        } else {
            break;
        }
    }
    format!("{}…", one_line[..chars[k].0].trim_end())
}

pub fn span(node: Node) -> Span {
    Span::new(node.start_byte(), node.end_byte())
}

/// The node's text; for a name written with escapes, the name it stands
/// for (`c\u0074x` is `ctx`: names compare by their cooked value).
pub fn text<'a>(node: Node<'a>, src: &'a str) -> &'a str {
    if let Some(name) = node.cooked_name() {
        return name;
    }
    src.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

/// Strips parentheses around an expression, and the comments inside them
/// (`(/* c */ { … })` is the object).
pub fn unparen(mut node: Node) -> Node {
    while node.kind_str() == "parenthesized_expression" {
        match node.named().find(|c| c.kind_str() != "comment") {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

/// The value of a string literal or a template literal without
/// substitutions, cooked as JavaScript reads it (`'\x61'` is `a`); `None`
/// for anything computed or an invalid escape. A tagged template's text is
/// the tag's to read: its raw text.
pub fn string_value(node: Node, src: &str) -> Option<String> {
    let node = unparen(node);
    // Between the quotes (a literal is never a name: no cooked name).
    let inner = |node: Node| src.get(node.start_byte() + 1..node.end_byte().checked_sub(1)?);
    match node.kind_str() {
        "string" => cook::string(inner(node)?, false),
        "template_string" => {
            if node
                .named()
                .any(|c| c.kind_str() == "template_substitution")
            {
                return None;
            }
            let tagged = node.parent().is_some_and(|p| {
                p.kind_str() == "call_expression"
                    && p.field("arguments").is_some_and(|a| a.id() == node.id())
            });
            if tagged {
                return inner(node).map(str::to_string);
            }
            cook::string(inner(node)?, true)
        }
        _ => None,
    }
}

/// Name of a property key node (`foo`, `'foo'`, `"foo"`, `[`foo`]`).
pub fn key_name(node: Node, src: &str) -> Option<String> {
    match node.kind_str() {
        "property_identifier" | "identifier" | "private_property_identifier" => {
            Some(text(node, src).to_string())
        }
        "string" | "template_string" => string_value(node, src),
        "number" => Some(text(node, src).to_string()),
        "computed_property_name" => node.named_child(0).and_then(|n| string_value(n, src)),
        _ => None,
    }
}

/// Whether a node can contain statements other than through a nested
/// function: blocks and compound statements. `return`, `throw`, `break` and
/// labels are statements, so searches for them skip everything else (an
/// expression holds statements only inside a function, which has its own).
pub fn holds_statements(node: Node) -> bool {
    matches!(
        node.kind_str(),
        "statement_block"
            | "if_statement"
            | "else_clause"
            | "for_statement"
            | "for_in_statement"
            | "while_statement"
            | "do_statement"
            | "try_statement"
            | "catch_clause"
            | "finally_clause"
            | "switch_statement"
            | "switch_body"
            | "switch_case"
            | "switch_default"
            | "labeled_statement"
            | "with_statement"
            | "ERROR"
    )
}

/// The statements of a block-like node, or the node itself for a single
/// statement body.
pub fn is_function(node: Node) -> bool {
    matches!(
        node.kind_str(),
        "function_declaration"
            | "function_expression"
            | "function"
            | "arrow_function"
            | "method_definition"
            | "generator_function"
            | "generator_function_declaration"
    )
}

pub fn is_loop(node: Node) -> bool {
    matches!(
        node.kind_str(),
        "for_statement" | "for_in_statement" | "while_statement" | "do_statement"
    )
}

/// Next named sibling that is a statement (skips comments).
pub fn next_statement(node: Node) -> Option<Node> {
    let mut next = node.next_named_sibling();
    while let Some(n) = next {
        if n.kind_str() != "comment" {
            return Some(n);
        }
        next = n.next_named_sibling();
    }
    None
}

/// True when `inner` lies within `outer` (inclusive).
pub fn contains(outer: Node, inner: Node) -> bool {
    outer.start_byte() <= inner.start_byte() && inner.end_byte() <= outer.end_byte()
}

/// The tree of `text`: oxc's when it takes the text, else tree-sitter's
/// (as the engine parses a module), for callers outside the engine.
pub fn tree_of(text: &str) -> Option<tree::Tree> {
    oxc::parse(text).or_else(|| parse::parse_tree(text))
}

/// The line starts that lie inside a token spanning lines — a string
/// continued with `\`, the text of a template literal (not its `${…}`
/// substitutions) or a block comment — in source order: a line starting
/// there continues the line of code above it, and nothing can be inserted
/// there without changing the token. Lines end at `\n`, `\r\n` or a lone
/// `\r`, as `source` counts them.
pub fn continued_line_starts(tree: &tree::Tree, src: &str) -> Vec<usize> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    for node in tree.nodes() {
        if !matches!(node.kind_str(), "string" | "template_string" | "comment") {
            continue;
        }
        let (start, end) = (node.start_byte(), node.end_byte().min(bytes.len()));
        let Some(inside) = bytes.get(start..end) else {
            continue;
        };
        for at in memchr::memchr2_iter(b'\n', b'\r', inside).map(|i| start + i) {
            if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
                continue;
            }
            let line = at + 1;
            let in_code = || {
                node.named().any(|c| {
                    c.kind_str() == "template_substitution"
                        && c.start_byte() < line
                        && line < c.end_byte()
                })
            };
            if line < end && !in_code() {
                out.push(line);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Position of an argument node among a call's arguments (comments skipped).
pub fn arg_index(args: Node, node: Node) -> usize {
    args.named()
        .filter(|n| n.kind_str() != "comment")
        .position(|n| n.id() == node.id())
        .unwrap_or(0)
}

/// Every JavaScript fixture under `fixtures/`, as a source file, for tests
/// that compare the model's syntax access with tree-sitter's own.
#[cfg(test)]
pub(crate) fn fixture_files() -> Vec<crate::source::SourceFile> {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");
    ignore::Walk::new(fixtures)
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "js"))
        .filter_map(|e| {
            let text = std::fs::read_to_string(e.path()).ok()?;
            Some(crate::source::SourceFile::new(
                e.path().display().to_string(),
                text,
            ))
        })
        .collect()
}

#[cfg(test)]
mod shorten_tests {
    use super::shorten_code;

    #[test]
    fn cuts_at_a_token_boundary() {
        assert_eq!(shorten_code("a  b\n c", 10), "a b c");
        let s = shorten_code("let attempt = 1; attempt <= MAX; attempt++", 40);
        // `attemp` would split a name: the cut backs off to the `;`.
        assert_eq!(s, "let attempt = 1; attempt <= MAX;…");
        assert_eq!(shorten_code("attempt <= MAX_ATTEMPTS", 12), "attempt <=…");
        assert_eq!(shorten_code("alpha beta", 8), "alpha…");
    }
}

#[cfg(test)]
mod continued_tests {
    use super::{continued_line_starts, tree_of};

    fn continued(src: &str) -> Vec<usize> {
        let tree = tree_of(src).unwrap_or_else(|| panic!("no tree"));
        continued_line_starts(&tree, src)
    }

    /// Lines inside a template's text, a continued string or a block
    /// comment continue the line above; lines inside `${…}` are code.
    #[test]
    fn lines_inside_tokens_continue_the_line_above() {
        let src = "a = `x\ny ${\nb\n} z\nw`;\n";
        assert_eq!(continued(src), [7, 18]);
        let src = "a = 'x\\\r\ny';\r\n/* c\rd */\nb = 1;\n";
        assert_eq!(continued(src), [9, 19]);
        assert_eq!(continued("a = `x`;\n// c\nb = 1;\n"), Vec::<usize>::new());
    }
}
