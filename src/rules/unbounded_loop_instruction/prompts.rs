//! The string literals an agent task's prompt is built from, in the same
//! module: literals in `agent.prompt`, consts they name, and — for
//! `args.x` / destructured `{ x }` — the values passed as `x` at this
//! module's `ctx.task(thatTask, { x: … })` call sites.
//!
//! Imported values are not followed (no cross-module resolution yet).

use std::collections::HashSet;

use tree_sitter::Node;

use crate::js::model::TaskTarget;
use crate::js::objects;
use crate::js::scope::{BindingId, BindingKind};
use crate::js::syntax::{key_name, text, unparen};
use crate::js::{EffectKind, JsModel};

/// Bounds how far values are followed (consts naming consts, spreads…).
const MAX_DEPTH: usize = 12;

/// The string and template literals of one agent task's prompt.
pub struct PromptStrings<'t> {
    /// The task id, for messages.
    pub task: String,
    pub strings: Vec<Node<'t>>,
}

pub fn agent_prompts<'t>(m: &JsModel<'t>) -> Vec<PromptStrings<'t>> {
    let mut out = Vec::new();
    for (ti, def) in m.task_defs.iter().enumerate() {
        let mut strings = Vec::new();
        let mut seen = HashSet::new();
        for obj in &def.objects {
            let Some(prompt) = objects::path(m, *obj, &["agent", "prompt"]) else {
                continue;
            };
            let cx = Collector {
                m,
                task: ti,
                args: def
                    .factory
                    .and_then(|f| m.functions[f].param_bindings.first().copied().flatten()),
                factory: def.factory,
            };
            cx.collect(prompt, 0, &mut strings, &mut seen);
        }
        if strings.is_empty() {
            continue;
        }
        strings.sort_by_key(|n| n.start_byte());
        out.push(PromptStrings {
            task: def
                .id
                .clone()
                .unwrap_or_else(|| m.text(def.id_node).to_string()),
            strings,
        });
    }
    out
}

struct Collector<'a, 't> {
    m: &'a JsModel<'t>,
    task: usize,
    /// The factory's first parameter (`args`), when it is an identifier.
    args: Option<BindingId>,
    factory: Option<usize>,
}

impl<'t> Collector<'_, 't> {
    fn collect(
        &self,
        node: Node<'t>,
        depth: usize,
        out: &mut Vec<Node<'t>>,
        seen: &mut HashSet<usize>,
    ) {
        if depth > MAX_DEPTH || !seen.insert(node.id()) {
            return;
        }
        let node = unparen(node);
        let m = self.m;
        match node.kind() {
            "string" => out.push(node),
            "template_string" => {
                out.push(node);
                self.children(node, depth, out, seen);
            }
            "identifier" | "shorthand_property_identifier" => {
                let Some(b) = m.binding_of_expr(node) else {
                    return;
                };
                let binding = m.scopes.get(b);
                match binding.param {
                    // `({ instructions }) => …`: a field of the task args.
                    Some((f, 0)) if Some(f) == self.factory && Some(b) != self.args => {
                        self.call_site_values(&binding.name, depth, out, seen);
                    }
                    Some(_) => {}
                    None => {
                        if binding.kind != BindingKind::Import {
                            if let Some(init) = binding.init {
                                self.collect(init, depth + 1, out, seen);
                            }
                        }
                    }
                }
            }
            "member_expression" => {
                let obj = node.child_by_field_name("object").map(unparen);
                let prop = node.child_by_field_name("property");
                match (obj, prop) {
                    (Some(o), Some(p))
                        if self.args.is_some() && m.binding_of_expr(o) == self.args =>
                    {
                        self.call_site_values(text(p, m.src()), depth, out, seen);
                    }
                    (Some(o), _) => self.collect(o, depth + 1, out, seen),
                    _ => {}
                }
            }
            "pair" => {
                if let Some(v) = node.child_by_field_name("value") {
                    self.collect(v, depth + 1, out, seen);
                }
            }
            // Keys and nested functions carry no prompt text.
            "property_identifier" | "arrow_function" | "function_expression" => {}
            _ => self.children(node, depth, out, seen),
        }
    }

    fn children(
        &self,
        node: Node<'t>,
        depth: usize,
        out: &mut Vec<Node<'t>>,
        seen: &mut HashSet<usize>,
    ) {
        let mut c = node.walk();
        let children: Vec<Node<'t>> = node.named_children(&mut c).collect();
        for child in children {
            self.collect(child, depth + 1, out, seen);
        }
    }

    /// The values passed as `name` in this module's `ctx.task(task, {…})`.
    fn call_site_values(
        &self,
        name: &str,
        depth: usize,
        out: &mut Vec<Node<'t>>,
        seen: &mut HashSet<usize>,
    ) {
        let m = self.m;
        for e in m.effects_of(EffectKind::Task) {
            let call = &m.calls[e.call];
            let Some(first) = call.args.first() else {
                continue;
            };
            if m.task_target(*first) != TaskTarget::Local(self.task) {
                continue;
            }
            let Some(args) = call.args.get(1).and_then(|a| m.object_of_expr(*a)) else {
                continue;
            };
            for (key, prop) in objects::properties(m, args) {
                if key == name || key_name(prop.key, m.src()).as_deref() == Some(name) {
                    self.collect(prop.value, depth + 1, out, seen);
                }
            }
        }
    }
}
