//! The node index: one pre-order walk of the whole tree linking every named
//! node to its parent, first child and next sibling, so neither the model
//! walk nor the analyses that climb need a tree-sitter cursor or
//! `Node::parent`.

use tree_sitter::Node;

use crate::js::syntax::{text, NodeExt};

pub(super) const NONE: u32 = u32::MAX;

/// What one pre-order walk of the whole tree records: the named nodes with
/// parent and child links (so neither the model walk nor the analyses that
/// climb need a tree-sitter cursor or `Node::parent`), and the few node
/// kinds rules look up by kind.
#[derive(Default)]
pub struct NodeIndex<'t> {
    /// Named nodes in pre-order, so in order of their start byte: a node's
    /// slot is found by binary search (a hash map from node id to slot cost
    /// ≈ 25 bytes per node, a quarter of the index on dense code).
    pub(super) nodes: Vec<Node<'t>>,
    parent: Vec<u32>,
    pub(super) first_child: Vec<u32>,
    pub(super) next_sibling: Vec<u32>,
    pub(super) new_expressions: Vec<Node<'t>>,
    pub(super) env_members: Vec<Node<'t>>,
    /// String and template literals whose text holds `{{` or `${`.
    pub(super) placeholder_strings: Vec<Node<'t>>,
    /// Strings are indexed, their children are not.
    string_kind: u16,
}

impl<'t> NodeIndex<'t> {
    /// One cursor, no recursion (nesting depth is input) and no per-node
    /// allocation.
    pub(super) fn build(root: Node<'t>, src: &str) -> NodeIndex<'t> {
        let mut index = NodeIndex::default();
        let new_kind = root.language().id_for_node_kind("new_expression", true);
        let member_kind = root.language().id_for_node_kind("member_expression", true);
        let string_kind = root.language().id_for_node_kind("string", true);
        let template_kind = root.language().id_for_node_kind("template_string", true);
        index.string_kind = string_kind;
        // Per open ancestor: its slot (NONE for an anonymous node) and the
        // slot of its last named child so far.
        let mut ancestors: Vec<(u32, u32)> = Vec::new();
        let mut cursor = root.walk();
        loop {
            let node = cursor.node();
            let mut slot = NONE;
            if node.is_named() {
                // More nodes than u32 slots: leave the rest unindexed (they
                // fall back to tree-sitter's own navigation).
                if let Ok(i) = u32::try_from(index.nodes.len()) {
                    slot = i;
                    index.add(node, slot, ancestors.last_mut());
                }
                let kind = node.kind_id();
                if (kind == string_kind || kind == template_kind)
                    && holds_placeholder(text(node, src).as_bytes())
                {
                    index.placeholder_strings.push(node);
                }
                if kind == new_kind {
                    index.new_expressions.push(node);
                } else if kind == member_kind
                    && node
                        .field("property")
                        .is_some_and(|p| text(p, src) == "env")
                {
                    index.env_members.push(node);
                }
            }
            // A string literal's children (quotes, fragments, escapes) hold
            // no names and are a sixth of a prompt-heavy module's nodes:
            // not indexed, they fall back to tree-sitter's navigation.
            if node.kind_id() != string_kind && cursor.goto_first_child() {
                ancestors.push((slot, NONE));
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return index;
                }
                ancestors.pop();
            }
        }
    }

    fn add(&mut self, node: Node<'t>, slot: u32, parent: Option<&mut (u32, u32)>) {
        self.nodes.push(node);
        self.first_child.push(NONE);
        self.next_sibling.push(NONE);
        let Some((p, last)) = parent else {
            self.parent.push(NONE);
            return;
        };
        self.parent.push(*p);
        if *p != NONE {
            match *last {
                NONE => self.first_child[*p as usize] = slot,
                prev => self.next_sibling[prev as usize] = slot,
            }
            *last = slot;
        }
    }

    pub(super) fn named_children(&self, node: Node<'t>) -> NamedChildren<'_, 't> {
        match self
            .slot(node)
            .filter(|_| node.kind_id() != self.string_kind)
        {
            Some(i) => NamedChildren::Indexed {
                index: self,
                next: self.first_child[i],
            },
            None => {
                let mut cursor = node.walk();
                let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
                NamedChildren::Collected(children.into_iter())
            }
        }
    }

    pub(super) fn slot(&self, node: Node) -> Option<usize> {
        // Pre-order start bytes never decrease; the nodes sharing one (a
        // chain of first children) are few.
        let start = start_byte(node);
        let first = self.nodes.partition_point(|n| start_byte(*n) < start);
        let id = node.id();
        self.nodes[first..]
            .iter()
            .take_while(|n| start_byte(**n) == start)
            .position(|n| n.id() == id)
            .map(|i| first + i)
    }

    pub(super) fn parent_of(&self, slot: usize) -> Option<Node<'t>> {
        match self.parent.get(slot) {
            Some(&p) if p != NONE => self.nodes.get(p as usize).copied(),
            _ => None,
        }
    }
}

/// See [`super::JsModel::named_children`]. A node whose children the index does
/// not link (a string literal's, or any past `u32::MAX` nodes) falls back
/// to a cursor.
#[derive(Clone)]
pub enum NamedChildren<'i, 't> {
    Indexed { index: &'i NodeIndex<'t>, next: u32 },
    Collected(std::vec::IntoIter<Node<'t>>),
}

impl<'t> Iterator for NamedChildren<'_, 't> {
    type Item = Node<'t>;

    fn next(&mut self) -> Option<Node<'t>> {
        match self {
            NamedChildren::Indexed { index, next } => {
                let i = *next as usize;
                let node = *index.nodes.get(i)?;
                *next = index.next_sibling[i];
                Some(node)
            }
            NamedChildren::Collected(it) => it.next(),
        }
    }
}

/// `Node::start_byte` without its call into C (`ts_node_start_byte` returns
/// the node's first context word, which the binary search above reads
/// ≈ 15 times per lookup). `index_links_agree_with_tree_sitter` checks every
/// fixture node against `Node::start_byte`.
#[inline]
pub(super) fn start_byte(node: Node) -> u32 {
    node.into_raw().context[0]
}

/// `{{` or `${` in a literal's text (a template's `${` is its own
/// substitution, kept so that rules see templates with `{{` too).
fn holds_placeholder(text: &[u8]) -> bool {
    memchr::memchr_iter(b'{', text).any(|i| i > 0 && matches!(text[i - 1], b'{' | b'$'))
}
