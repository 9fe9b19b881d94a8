//! Small, allocation-free helpers over tree-sitter nodes.

use tree_sitter::Node;

use crate::source::Span;

pub fn span(node: Node) -> Span {
    Span::new(node.start_byte(), node.end_byte())
}

pub fn text<'a>(node: Node, src: &'a str) -> &'a str {
    src.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

/// Strips parentheses around an expression.
pub fn unparen(mut node: Node) -> Node {
    while node.kind() == "parenthesized_expression" {
        match node.named_child(0) {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

/// The value of a string literal or a template literal without
/// substitutions; `None` for anything computed.
pub fn string_value(node: Node, src: &str) -> Option<String> {
    let node = unparen(node);
    match node.kind() {
        "string" => {
            let raw = text(node, src);
            if raw.len() < 2 {
                return None;
            }
            Some(unescape(&raw[1..raw.len() - 1]))
        }
        "template_string" => {
            let mut cursor = node.walk();
            if node
                .named_children(&mut cursor)
                .any(|c| c.kind() == "template_substitution")
            {
                return None;
            }
            let raw = text(node, src);
            if raw.len() < 2 {
                return None;
            }
            Some(raw[1..raw.len() - 1].to_string())
        }
        _ => None,
    }
}

fn unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// Name of a property key node (`foo`, `'foo'`, `"foo"`, `[`foo`]`).
pub fn key_name(node: Node, src: &str) -> Option<String> {
    match node.kind() {
        "property_identifier" | "identifier" | "private_property_identifier" => {
            Some(text(node, src).to_string())
        }
        "string" | "template_string" => string_value(node, src),
        "number" => Some(text(node, src).to_string()),
        "computed_property_name" => node.named_child(0).and_then(|n| string_value(n, src)),
        _ => None,
    }
}

/// The statements of a block-like node, or the node itself for a single
/// statement body.
pub fn is_function(node: Node) -> bool {
    matches!(
        node.kind(),
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
        node.kind(),
        "for_statement" | "for_in_statement" | "while_statement" | "do_statement"
    )
}

/// Next named sibling that is a statement (skips comments).
pub fn next_statement(node: Node) -> Option<Node> {
    let mut next = node.next_named_sibling();
    while let Some(n) = next {
        if n.kind() != "comment" {
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

/// Position of an argument node among a call's arguments (comments skipped).
pub fn arg_index(args: Node, node: Node) -> usize {
    let mut c = args.walk();
    let i = args
        .named_children(&mut c)
        .filter(|n| n.kind() != "comment")
        .position(|n| n.id() == node.id())
        .unwrap_or(0);
    i
}
