//! The few node kinds rules look up by kind rather than by walking: found in
//! one pass over the tree's nodes while the model is built.

use crate::js::syntax::text;
use crate::js::syntax::tree::{self, Node, Tree};

#[derive(Default)]
pub struct KindLists<'t> {
    pub(super) new_expressions: Vec<Node<'t>>,
    pub(super) env_members: Vec<Node<'t>>,
    /// String and template literals whose text holds `{{` or `${`.
    pub(super) placeholder_strings: Vec<Node<'t>>,
    /// How many call expressions there are: the model's calls are sized
    /// once, as a dense module has one per statement and a doubling array
    /// leaves its old copies to the allocator.
    pub(super) call_count: usize,
}

impl<'t> KindLists<'t> {
    pub(super) fn build(tree: &'t Tree, src: &str) -> KindLists<'t> {
        let kind = |name| tree::kind_id(name).unwrap_or(u16::MAX);
        let new_kind = kind("new_expression");
        let member_kind = kind("member_expression");
        let string_kind = kind("string");
        let template_kind = kind("template_string");
        let call_kind = kind("call_expression");
        let mut lists = KindLists::default();
        for node in tree.nodes().filter(|n| n.is_named()) {
            let k = node.kind_id();
            lists.call_count += usize::from(k == call_kind);
            if (k == string_kind || k == template_kind)
                && holds_placeholder(text(node, src).as_bytes())
            {
                lists.placeholder_strings.push(node);
            }
            if k == new_kind {
                lists.new_expressions.push(node);
            } else if k == member_kind
                && node
                    .field("property")
                    .is_some_and(|p| text(p, src) == "env")
            {
                lists.env_members.push(node);
            }
        }
        lists
    }
}

/// `{{` or `${` in a literal's text (a template's `${` is its own
/// substitution, kept so that rules see templates with `{{` too).
fn holds_placeholder(text: &[u8]) -> bool {
    memchr::memchr_iter(b'{', text).any(|i| i > 0 && matches!(text[i - 1], b'{' | b'$'))
}
