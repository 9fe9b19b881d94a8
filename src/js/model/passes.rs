//! The passes that complete the model after the walk: call sites and
//! exported functions per function, task definitions, the bindings that
//! hold the process (or a task-build) context, and the effects dispatched
//! on them. In: the model as the walk left it. Out: its `task_defs`,
//! `contexts`, `task_contexts`, `task_context_calls`, `effects`,
//! `call_sites` and `exported_as`.

use std::collections::HashSet;

use crate::js::syntax::tree::Node;

use super::*;
use crate::js::model::scope::BindingId;
use crate::js::syntax::{string_value, unparen};

impl<'t> JsModel<'t> {
    pub(super) fn index_call_sites(&mut self) {
        let mut sites = vec![Vec::new(); self.functions.len()];
        for (ci, call) in self.calls.iter().enumerate() {
            if let Some(f) = self.function_of_expr(call.callee) {
                sites[f].push(ci);
            }
        }
        self.call_sites = sites;
        let mut exported = vec![Vec::new(); self.functions.len()];
        for (ei, e) in self.exports.iter().enumerate() {
            if let Some(f) = e.value.and_then(|v| self.function_of_expr(v)) {
                exported[f].push(ei);
            }
        }
        self.exported_as = exported;
    }

    pub(super) fn find_task_defs(&mut self) {
        for (ci, call) in self.calls.iter().enumerate() {
            let callee = unparen(call.callee);
            let is_define = match callee.kind_str() {
                "identifier" => self.text(callee) == "defineTask",
                "member_expression" => callee
                    .field("property")
                    .is_some_and(|p| self.text(p) == "defineTask"),
                _ => false,
            };
            if !is_define {
                continue;
            }
            let first = call.args.first().copied();
            let mut factory = None;
            let mut objects = Vec::new();
            let mut id = None;
            let id_node;
            match first.map(unparen) {
                Some(obj) if obj.kind_str() == "object" => {
                    // Single-object form: defineTask({ id, kind, … }).
                    objects.push(obj);
                    id_node = crate::js::model::objects::property(self, obj, "id")
                        .or_else(|| crate::js::model::objects::property(self, obj, "name"))
                        .unwrap_or(obj);
                    id = string_value(id_node, self.src());
                }
                Some(first) => {
                    id_node = first;
                    id = string_value(first, self.src());
                    if let Some(f) = call.args.get(1).and_then(|a| self.function_of_expr(*a)) {
                        factory = Some(f);
                        objects = self.returned_objects(f);
                    }
                }
                None => id_node = call.node,
            }
            let binding = declared_binding(self, call.node);
            let kinds = objects
                .iter()
                .map(|o| {
                    crate::js::model::objects::property(self, *o, "kind").map(|value| TaskKind {
                        value,
                        literal: string_value(value, self.src()),
                    })
                })
                .collect();
            self.task_defs.push(TaskDef {
                call: ci,
                id,
                id_node,
                factory,
                objects,
                binding,
                kinds,
            });
        }
    }

    pub(super) fn find_contexts(&mut self) {
        // Factory parameters: the second is the task-build context.
        let factories: HashSet<FnId> = self.task_defs.iter().filter_map(|t| t.factory).collect();
        for &f in &factories {
            for (i, b) in self.functions[f].param_bindings.iter().enumerate() {
                if let (1, Some(b)) = (i, b) {
                    self.task_contexts.insert(*b);
                }
            }
        }
        let exported_process: HashSet<FnId> = self
            .exports
            .iter()
            .filter(|e| e.name == "process" || e.name == "default")
            .filter_map(|e| e.value.and_then(|v| self.function_of_expr(v)))
            .collect();
        for (fi, f) in self.functions.iter().enumerate() {
            if factories.contains(&fi) {
                continue;
            }
            for (i, b) in f.param_bindings.iter().enumerate() {
                let Some(b) = *b else { continue };
                let name = &self.scopes.get(b).name;
                let named = self.context_names.iter().any(|n| n == name)
                    // `ctx` is the SDK's convention; other names (`context`
                    // is also a canvas or Koa object) need evidence.
                    && (name == "ctx" || self.used_like_context(b));
                let process_param = i == 1
                    && exported_process.contains(&fi)
                    && (f.name.as_deref() == Some("process") || f.params.len() >= 2);
                if named || process_param {
                    self.contexts.insert(b);
                }
            }
        }
        // Propagate: aliases and parameters that receive a context argument.
        loop {
            let mut added = Vec::new();
            for (bi, b) in self.scopes.bindings.iter().enumerate() {
                if self.contexts.contains(&bi) || self.task_contexts.contains(&bi) {
                    continue;
                }
                if matches!(
                    b.kind,
                    BindingKind::Const | BindingKind::Let | BindingKind::Var
                ) && b.init.is_some_and(|i| self.is_context_expr(i))
                {
                    added.push(bi);
                }
            }
            for call in &self.calls {
                let Some(f) = self.function_of_expr(call.callee) else {
                    continue;
                };
                if factories.contains(&f) {
                    continue;
                }
                for (i, arg) in call.args.iter().enumerate() {
                    if !self.is_context_expr(*arg) {
                        continue;
                    }
                    if let Some(Some(p)) = self.functions[f].param_bindings.get(i) {
                        if !self.contexts.contains(p) {
                            added.push(*p);
                        }
                    }
                }
            }
            if added.is_empty() {
                break;
            }
            self.contexts.extend(added);
        }
    }

    pub(super) fn find_effects(&mut self) {
        for (ci, call) in self.calls.iter().enumerate() {
            let callee = unparen(call.callee);
            if callee.kind_str() != "member_expression" {
                continue;
            }
            let (Some(obj), Some(prop)) = (callee.field("object"), callee.field("property")) else {
                continue;
            };
            let method = self.text(prop);
            let obj = unparen(obj);
            let (root, path) = if obj.kind_str() == "member_expression" {
                let (Some(inner), Some(inner_prop)) = (obj.field("object"), obj.field("property"))
                else {
                    continue;
                };
                (
                    unparen(inner),
                    format!("{}.{}", self.text(inner_prop), method),
                )
            } else {
                (obj, method.to_string())
            };
            if root.kind_str() != "identifier" {
                continue;
            }
            if let Some(b) = self.scopes.binding_of(root) {
                if self.task_contexts.contains(&b) {
                    self.task_context_calls.push(ci);
                    continue;
                }
            }
            if !self.is_context_expr(root) {
                continue;
            }
            let kind = match path.as_str() {
                "task" => EffectKind::Task,
                "breakpoint" => EffectKind::Breakpoint,
                "parallel.all" => EffectKind::ParallelAll,
                "parallel.map" => EffectKind::ParallelMap,
                "sleepUntil" => EffectKind::SleepUntil,
                "halt" => EffectKind::Halt,
                "log" => EffectKind::Log,
                "now" => EffectKind::Now,
                _ => EffectKind::Other,
            };
            self.effects.push(Effect {
                call: ci,
                kind,
                method: path,
            });
        }
        let mut positions = Vec::new();
        for e in &self.effects {
            if e.kind != EffectKind::ParallelAll {
                continue;
            }
            let Some(list) = self.calls[e.call].args.first().map(|a| unparen(*a)) else {
                continue;
            };
            if list.kind_str() != "array" {
                continue;
            }
            let elements = list.named().filter(|c| c.kind_str() != "comment");
            positions.extend(elements.enumerate().map(|(at, c)| (c.id(), at)));
        }
        self.batch_positions.extend(positions);
    }

    /// A binding some read of which calls a context method, reads a context
    /// property, or passes it on to another function.
    fn used_like_context(&self, b: BindingId) -> bool {
        self.used_like_context_at(b, 0)
    }

    fn used_like_context_at(&self, b: BindingId, depth: usize) -> bool {
        self.scopes.get(b).reads.iter().any(|r| {
            let Some(parent) = r.parent() else {
                return false;
            };
            match parent.kind_str() {
                "arguments" => true,
                // `const c = context;` — judged by how the alias is used.
                "variable_declarator" if depth < 3 => parent
                    .field("name")
                    .and_then(|n| self.scopes.binding_of(n))
                    .is_some_and(|alias| self.used_like_context_at(alias, depth + 1)),
                "member_expression" => {
                    parent
                        .field("property")
                        .map(|p| self.text(p))
                        .is_some_and(|p| {
                            let head = |m: &&str| m.split('.').next() == Some(p);
                            crate::js::model::context_api::CONTEXT_METHODS
                                .iter()
                                .any(head)
                                || crate::js::model::context_api::CONTEXT_PROPERTIES.contains(&p)
                        })
                }
                _ => false,
            }
        })
    }
}

/// The variable a call's value is declared into (`const x = call(…)`,
/// `export const x = call(…)`).
fn declared_binding(m: &JsModel, call: Node) -> Option<BindingId> {
    let scopes = &m.scopes;
    let mut n = call;
    while let Some(p) = n.parent() {
        match p.kind_str() {
            "parenthesized_expression" | "await_expression" => n = p,
            "variable_declarator" => {
                let name = p.field("name")?;
                return if name.kind_str() == "identifier" {
                    scopes.binding_of(name)
                } else {
                    None
                };
            }
            _ => return None,
        }
    }
    None
}
