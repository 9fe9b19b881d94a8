//! Graphviz flowcharts in ```dot blocks: nodes, edges and labels, enough to
//! find a cycle that returns to a review/approval node.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Range;

/// Bounds work on a pathological block.
const MAX_TOKENS: usize = 50_000;

#[derive(Debug, Clone)]
pub struct Edge {
    pub from: String,
    pub to: String,
    pub label: Option<String>,
    /// From the source node to the target node, relative to the block.
    pub span: Range<usize>,
}

#[derive(Debug, Default)]
pub struct Graph {
    /// Node id → label (the id when it has none).
    pub nodes: BTreeMap<String, String>,
    pub edges: Vec<Edge>,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Id(String),
    Arrow,
    LBracket,
    RBracket,
    Eq,
    /// `;`, `,`, `{`, `}`: statement or list separators.
    Sep,
}

fn tokenize(src: &str) -> Vec<(Tok, Range<usize>)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() && out.len() < MAX_TOKENS {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => i = line_end(b, i),
            b'#' => i = line_end(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = src
                    .get(i + 2..)
                    .and_then(|t| t.find("*/"))
                    .map(|j| i + 2 + j + 2)
                    .unwrap_or(b.len());
            }
            b'-' if matches!(b.get(i + 1), Some(b'>' | b'-')) => {
                out.push((Tok::Arrow, i..i + 2));
                i += 2;
            }
            b'[' => {
                out.push((Tok::LBracket, i..i + 1));
                i += 1;
            }
            b']' => {
                out.push((Tok::RBracket, i..i + 1));
                i += 1;
            }
            b'=' => {
                out.push((Tok::Eq, i..i + 1));
                i += 1;
            }
            b';' | b',' | b'{' | b'}' => {
                out.push((Tok::Sep, i..i + 1));
                i += 1;
            }
            b'"' => {
                let start = i;
                let mut value = String::new();
                i += 1;
                let mut seg = i;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' && i + 1 < b.len() {
                        value.push_str(src.get(seg..i).unwrap_or(""));
                        // `\n`, `\l`, `\r` are line breaks in labels.
                        value.push(if matches!(b[i + 1], b'n' | b'l' | b'r') {
                            ' '
                        } else {
                            b[i + 1] as char
                        });
                        i += 2;
                        seg = i;
                        continue;
                    }
                    i += 1;
                }
                value.push_str(src.get(seg..i.min(b.len())).unwrap_or(""));
                i = (i + 1).min(b.len());
                out.push((Tok::Id(value), start..i));
            }
            b'<' => {
                // HTML-like label: `<…>` with nesting.
                let start = i;
                let mut depth = 0usize;
                while i < b.len() {
                    match b[i] {
                        b'<' => depth += 1,
                        b'>' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                i += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                let inner = src.get(start + 1..i.saturating_sub(1)).unwrap_or("");
                out.push((Tok::Id(strip_tags(inner)), start..i));
            }
            _ => {
                let start = i;
                while i < b.len() && is_id_byte(b[i]) {
                    i += 1;
                }
                if i == start {
                    // Anything else (`:` ports, stray bytes): skip one char.
                    i += src
                        .get(i..)
                        .and_then(|t| t.chars().next())
                        .map(char::len_utf8)
                        .unwrap_or(1);
                    continue;
                }
                out.push((
                    Tok::Id(src.get(start..i).unwrap_or("").to_string()),
                    start..i,
                ));
            }
        }
    }
    out
}

fn line_end(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .position(|c| *c == b'\n')
        .map(|p| from + p)
        .unwrap_or(b.len())
}

fn is_id_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c >= 0x80
}

fn strip_tags(s: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

const KEYWORDS: &[&str] = &["graph", "digraph", "subgraph", "node", "edge", "strict"];

/// Parses the statements of a DOT graph leniently: node chains joined by
/// `->`/`--` with optional `[attr=value, …]` lists. Anything else is
/// skipped.
pub fn parse(src: &str) -> Graph {
    let toks = tokenize(src);
    let mut g = Graph::default();
    let mut i = 0;
    // The current statement: its nodes (with spans) and whether the last
    // token was an edge operator.
    let mut chain: Vec<(String, Range<usize>)> = Vec::new();
    let mut pending_arrow = false;
    let mut first_edge = 0usize;
    while i < toks.len() {
        let (tok, range) = &toks[i];
        match tok {
            Tok::Id(id) => {
                if toks.get(i + 1).is_some_and(|(t, _)| *t == Tok::Eq) {
                    // `rankdir = LR`: a graph attribute.
                    chain.clear();
                    pending_arrow = false;
                    i += 3;
                    continue;
                }
                if KEYWORDS.contains(&id.to_lowercase().as_str()) && !pending_arrow {
                    chain.clear();
                    i += 1;
                    continue;
                }
                if !pending_arrow {
                    chain.clear();
                    first_edge = g.edges.len();
                }
                g.nodes.entry(id.clone()).or_insert_with(|| id.clone());
                if pending_arrow {
                    if let Some((from, from_range)) = chain.last() {
                        g.edges.push(Edge {
                            from: from.clone(),
                            to: id.clone(),
                            label: None,
                            span: from_range.start..range.end,
                        });
                    }
                }
                chain.push((id.clone(), range.clone()));
                pending_arrow = false;
            }
            Tok::Arrow => pending_arrow = !chain.is_empty(),
            Tok::LBracket => {
                let (attrs, next) = attributes(&toks, i + 1);
                i = next;
                let label = attrs
                    .into_iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case("label") || k == "xlabel")
                    .map(|(_, v)| v);
                if let Some(label) = label {
                    if g.edges.len() > first_edge && chain.len() > 1 {
                        for e in &mut g.edges[first_edge..] {
                            e.label = Some(label.clone());
                        }
                    } else if let Some((id, _)) = chain.last() {
                        g.nodes.insert(id.clone(), label);
                    }
                }
                continue;
            }
            Tok::RBracket | Tok::Eq => {}
            Tok::Sep => {
                chain.clear();
                pending_arrow = false;
            }
        }
        i += 1;
    }
    g
}

/// `key=value` pairs up to the closing `]`; returns them and the index
/// after it.
fn attributes(toks: &[(Tok, Range<usize>)], mut i: usize) -> (Vec<(String, String)>, usize) {
    let mut out = Vec::new();
    while i < toks.len() {
        match &toks[i].0 {
            Tok::RBracket => return (out, i + 1),
            Tok::Id(k) => {
                if toks.get(i + 1).is_some_and(|(t, _)| *t == Tok::Eq) {
                    if let Some((Tok::Id(v), _)) = toks.get(i + 2) {
                        out.push((k.clone(), v.clone()));
                        i += 3;
                        continue;
                    }
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    (out, i)
}

/// A cycle through a review/approval node that nothing caps.
#[derive(Debug)]
pub struct OpenCycle {
    /// The review/approval node the cycle returns to.
    pub node: String,
    /// The edge that closes the cycle.
    pub closing: Edge,
}

/// Cycles that return to a node `is_review` accepts, where no node or edge
/// of the cycle (its strongly connected part) satisfies `has_cap`.
pub fn open_cycles(
    g: &Graph,
    is_review: impl Fn(&str) -> bool,
    has_cap: impl Fn(&str) -> bool,
) -> Vec<OpenCycle> {
    let mut out = Vec::new();
    let mut covered: BTreeSet<String> = BTreeSet::new();
    for (id, label) in &g.nodes {
        if covered.contains(id) || !(is_review(id) || is_review(label)) {
            continue;
        }
        let forward = reach(g, id, true);
        let backward = reach(g, id, false);
        let cycle: BTreeSet<&String> = forward.intersection(&backward).copied().collect();
        let closing = g
            .edges
            .iter()
            .filter(|e| &e.to == id && cycle.contains(&e.from))
            .max_by_key(|e| e.span.start);
        let Some(closing) = closing else { continue };
        covered.extend(cycle.iter().map(|s| (*s).clone()));
        let capped_node = cycle
            .iter()
            .any(|n| has_cap(n) || g.nodes.get(*n).is_some_and(|l| has_cap(l)));
        let capped_edge = g.edges.iter().any(|e| {
            cycle.contains(&e.from)
                && cycle.contains(&e.to)
                && e.label.as_deref().is_some_and(&has_cap)
        });
        if !capped_node && !capped_edge {
            out.push(OpenCycle {
                node: label.clone(),
                closing: closing.clone(),
            });
        }
    }
    out
}

/// Nodes reachable from `start` (following edges forward or backward),
/// including `start` only when it lies on a cycle.
fn reach<'g>(g: &'g Graph, start: &str, forward: bool) -> BTreeSet<&'g String> {
    let mut seen = BTreeSet::new();
    let mut queue: VecDeque<&str> = VecDeque::from([start]);
    while let Some(n) = queue.pop_front() {
        for e in &g.edges {
            let (a, b) = if forward {
                (&e.from, &e.to)
            } else {
                (&e.to, &e.from)
            };
            if a == n && seen.insert(b) {
                queue.push_back(b);
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review(s: &str) -> bool {
        s.to_lowercase().contains("review")
    }

    fn cap(s: &str) -> bool {
        s.contains("max")
    }

    #[test]
    fn finds_uncapped_cycle() {
        let src = r#"digraph G {
  rankdir=LR;
  node [shape=box];
  impl [label="Implement"];
  review [label="Reviewer reviews"];
  impl -> review -> fix;
  fix -> review [label="again"];
  review -> done [label="approved"];
}"#;
        let g = parse(src);
        assert_eq!(g.edges.len(), 4);
        let c = open_cycles(&g, review, cap);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].node, "Reviewer reviews");
        assert_eq!(src.get(c[0].closing.span.clone()), Some("fix -> review"));
    }

    #[test]
    fn capped_cycle_and_acyclic() {
        let src = "digraph { review -> fix; fix -> review [label=\"round < max 3\"]; }";
        assert!(open_cycles(&parse(src), review, cap).is_empty());
        let src = "digraph { a -> review -> done }";
        assert!(open_cycles(&parse(src), review, cap).is_empty());
        // Garbage does not panic.
        let _ = parse("\"unterminated -> [ label = <b>x");
    }
}
