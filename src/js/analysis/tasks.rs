//! Queries over task definitions and task arguments: what a value provably
//! is, what a factory returns, what a task id evaluates to, whether a
//! definition can be built at all.

use crate::js::syntax::tree::Node;

use crate::js::model::objects;
use crate::js::model::scope::{BindingKind, FnId};
use crate::js::model::{JsModel, TaskDef};
use crate::js::syntax::{self, string_value, unparen};

/// Bounds `const a = b; const b = …` chains.
const MAX_ALIAS_DEPTH: usize = 8;

/// What an expression provably evaluates to, as far as one module tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A function (literal, declaration, or const bound to one).
    Function(FnId),
    /// A class.
    Class,
    /// A `defineTask(…)` result.
    TaskDef(usize),
    /// A literal or literal-like value: "a string literal", "an object literal"…
    Literal(&'static str),
    /// An identifier declared nowhere in the module and not a known global.
    Unbound,
    /// Anything else (imports, parameters, calls, member accesses…).
    Unknown,
}

/// Classifies an expression, following `const` aliases.
pub fn value_of(m: &JsModel, node: Node) -> Value {
    value_at(m, node, 0)
}

fn value_at(m: &JsModel, node: Node, depth: usize) -> Value {
    let node = unparen(node);
    if depth > MAX_ALIAS_DEPTH {
        return Value::Unknown;
    }
    if let Some(f) = m.function_of_node(node) {
        return Value::Function(f);
    }
    match node.kind_str() {
        "string" => Value::Literal("a string literal"),
        "template_string" => Value::Literal("a template string"),
        "number" => Value::Literal("a number"),
        "object" => Value::Literal("an object literal"),
        "array" => Value::Literal("an array"),
        "true" | "false" => Value::Literal("a boolean"),
        "null" => Value::Literal("null"),
        "undefined" => Value::Literal("undefined"),
        "regex" => Value::Literal("a regular expression"),
        "class" => Value::Class,
        "call_expression" => match m
            .call_of_node(node)
            .and_then(|c| m.task_defs.iter().position(|t| t.call == c))
        {
            Some(t) => Value::TaskDef(t),
            // `makeTask('x')` where `makeTask` returns a bare factory.
            None => node
                .field("function")
                .and_then(|callee| match value_at(m, callee, depth + 1) {
                    Value::Function(f) => returned_function(m, f),
                    _ => None,
                })
                .map_or(Value::Unknown, Value::Function),
        },
        "identifier" => {
            let Some(b) = m.scopes.binding_of(node) else {
                return if m.text(node) == "undefined" {
                    Value::Literal("undefined")
                } else if is_global(m.text(node)) {
                    Value::Unknown
                } else {
                    Value::Unbound
                };
            };
            if let Some(t) = m.task_defs.iter().position(|t| t.binding == Some(b)) {
                return Value::TaskDef(t);
            }
            let binding = m.scopes.get(b);
            match binding.kind {
                BindingKind::Function => binding.function.map_or(Value::Unknown, Value::Function),
                BindingKind::Class => Value::Class,
                BindingKind::Const => match binding.init {
                    Some(init) => value_at(m, init, depth + 1),
                    None => Value::Unknown,
                },
                // `let`/`var` keep their initial value only when never
                // reassigned.
                BindingKind::Let | BindingKind::Var if binding.writes.is_empty() => {
                    match binding.init {
                        Some(init) => value_at(m, init, depth + 1),
                        None => Value::Unknown,
                    }
                }
                _ => Value::Unknown,
            }
        }
        _ => Value::Unknown,
    }
}

/// Globals a module may use without declaring them; anything else that is
/// not declared would be a `ReferenceError`.
fn is_global(name: &str) -> bool {
    matches!(
        name,
        "globalThis"
            | "window"
            | "global"
            | "process"
            | "require"
            | "module"
            | "exports"
            | "__dirname"
            | "__filename"
            | "arguments"
    )
}

/// What a `defineTask` factory returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Returns<'t> {
    /// Every return path yields one of these object literals.
    Objects(Vec<Node<'t>>),
    /// The factory returns nothing (no `return` with a value).
    Nothing,
    /// Some return value is not an object literal this module resolves.
    Unknown,
}

/// The values a function returns, resolved to object literals.
pub fn factory_returns<'t>(m: &JsModel<'t>, f: FnId) -> Returns<'t> {
    let Some(values) = return_values(m, f) else {
        return Returns::Unknown;
    };
    if values.is_empty() {
        return Returns::Nothing;
    }
    let mut objects = Vec::new();
    for v in values {
        if mutated_later(m, v) {
            return Returns::Unknown;
        }
        match m.object_of_expr(v) {
            Some(o) => objects.push(o),
            None => return Returns::Unknown,
        }
    }
    objects.sort_by_key(|n| n.start_byte());
    Returns::Objects(objects)
}

/// The function every `return` of `f` yields, when they all yield the same
/// one (`function make(t) { return (args) => ({ … }); }`): a helper that
/// builds a bare factory rather than a task definition.
fn returned_function(m: &JsModel, f: FnId) -> Option<FnId> {
    let values = return_values(m, f)?;
    let mut found = None;
    for v in values {
        let g = m.function_of_node(unparen(v))?;
        if found.is_some_and(|h| h != g) {
            return None;
        }
        found = Some(g);
    }
    found
}

/// The values `f`'s `return` statements yield (its body, for an arrow
/// with an expression body); `None` when it has no body.
fn return_values<'t>(m: &JsModel<'t>, f: FnId) -> Option<Vec<Node<'t>>> {
    let func = m.functions.get(f)?;
    let body = func.node.field("body")?;
    let mut values = Vec::new();
    if body.kind_str() == "statement_block" {
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            if n.kind_str() == "return_statement" {
                if let Some(v) = n.named_child(0) {
                    values.push(v);
                }
                continue;
            }
            for child in n.named() {
                if !syntax::is_function(child) {
                    stack.push(child);
                }
            }
        }
    } else {
        values.push(body);
    }
    Some(values)
}

/// `const def = {…}; def.kind = 'agent'; return def;` and
/// `Object.assign(def, extra)`: the literal is not the whole story.
fn mutated_later(m: &JsModel, value: Node) -> bool {
    let Some(b) = m.binding_of_expr(value) else {
        return false;
    };
    m.scopes.get(b).reads.iter().any(|r| {
        let Some(parent) = r.parent() else {
            return false;
        };
        match parent.kind_str() {
            "arguments" => true,
            "member_expression" | "subscript_expression" => parent
                .parent()
                .filter(|g| {
                    g.kind_str() == "assignment_expression"
                        || g.kind_str() == "augmented_assignment_expression"
                })
                .and_then(|g| g.field("left"))
                .is_some_and(|l| l.id() == parent.id()),
            _ => false,
        }
    })
}

/// Whether an object literal provably lacks a property (spreads resolved).
pub fn lacks_property(m: &JsModel, obj: Node, name: &str) -> bool {
    objects::property(m, obj, name).is_none() && !has_opaque_spread_deep(m, obj, 0)
}

/// `has_opaque_spread`, also through resolved spreads.
fn has_opaque_spread_deep(m: &JsModel, obj: Node, depth: usize) -> bool {
    if depth > MAX_ALIAS_DEPTH || objects::has_opaque_spread(m, obj) {
        return true;
    }
    let spreads: Vec<Node> = obj
        .named()
        .filter(|n| n.kind_str() == "spread_element")
        .collect();
    spreads.into_iter().any(|s| {
        s.named_child(0)
            .and_then(|e| m.object_of_expr(e))
            .is_some_and(|o| has_opaque_spread_deep(m, o, depth + 1))
    })
}

/// What a task id evaluates to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskId {
    /// A string literal (or a template without substitutions).
    Literal(String),
    /// A `const` bound to a string literal.
    Const(String),
    /// Computed at run time.
    Computed,
    /// No id at all.
    Missing,
}

/// The id of a task definition.
pub fn task_id(m: &JsModel, td: &TaskDef) -> TaskId {
    if let Some(id) = &td.id {
        return TaskId::Literal(id.clone());
    }
    // The single-object form without an `id` keeps the object; `defineTask()`
    // keeps the call.
    let is_call = m
        .calls
        .get(td.call)
        .is_some_and(|c| c.node.id() == td.id_node.id());
    if is_call {
        return TaskId::Missing;
    }
    if td.id_node.kind_str() == "object" {
        // The SDK also takes `name` as the id of the single-object form.
        return match objects::property(m, td.id_node, "name") {
            Some(v) => match string_value(v, m.src()) {
                Some(s) => TaskId::Literal(s),
                None => TaskId::Computed,
            },
            None => TaskId::Missing,
        };
    }
    let node = unparen(td.id_node);
    if node.kind_str() == "identifier" {
        if let Some(b) = m.scopes.binding_of(node) {
            let b = m.scopes.get(b);
            if b.kind == BindingKind::Const {
                if let Some(s) = b.init.and_then(|i| string_value(i, m.src())) {
                    return TaskId::Const(s);
                }
            }
        }
    }
    TaskId::Computed
}

/// Whether building the definition throws on every call: its factory calls
/// an effect method on the task-build context (its second parameter), which
/// has none (`unknown-context-method` reports the call). The SDK builds the
/// definition before it requests an effect (`runtime/intrinsics/task.ts`),
/// so no call of such a task ever records one.
pub fn build_throws(m: &JsModel, td: &TaskDef) -> bool {
    let Some(f) = td.factory else {
        return false;
    };
    let fnode = m.functions[f].node;
    m.task_context_calls.iter().any(|&c| {
        let call = &m.calls[c];
        syntax::contains(fnode, call.node)
            && crate::js::analysis::effects::method_path(m, call.callee).is_some_and(
                |(_, method)| {
                    crate::js::model::context_api::EFFECT_METHODS_NOT_ON_TASK_CONTEXT
                        .contains(&method.as_str())
                },
            )
    })
}

/// Whether no call of the task ever records an effect: building it throws
/// ([`build_throws`]), or the definition it builds has no `kind`
/// ([`lacks_kind`]).
pub fn never_records(m: &JsModel, td: &TaskDef) -> bool {
    build_throws(m, td) || lacks_kind(m, td)
}

/// Whether the definition the task builds has no `kind` on any path: its
/// factory returns nothing, or only object literals without one (a `kind`
/// in `defineTask`'s third argument is not read into the definition), or
/// the single-object form without `run` has none. The SDK then throws
/// before it records an effect (`requestNewEffect` in
/// `runtime/intrinsics/task.ts`: "did not provide a kind"); this is
/// `invalid-task-definition`'s finding.
pub fn lacks_kind(m: &JsModel, td: &TaskDef) -> bool {
    let Some(f) = td.factory else {
        let call = &m.calls[td.call];
        return call
            .args
            .first()
            .and_then(|a| m.object_of_expr(*a))
            .is_some_and(|o| {
                objects::property(m, o, "run").is_none() && lacks_property(m, o, "kind")
            });
    };
    match factory_returns(m, f) {
        Returns::Objects(objs) => {
            !objs.is_empty() && objs.iter().all(|o| lacks_property(m, *o, "kind"))
        }
        Returns::Nothing => true,
        Returns::Unknown => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::model::testing::with_model;

    #[test]
    fn values() {
        let src = "import { t } from './t.js';\nconst s = 'x';\nconst alias = s;\nfunction f() {}\nconst g = () => 1;\nconst d = defineTask('a', () => ({ kind: 'agent' }));\nlet r = 1; r = 2;\nuse(s, alias, f, g, d, t, nope, r, [1], {}, undefined, process);\n";
        with_model(src, |m| {
            let call = m.calls.iter().find(|c| m.text(c.callee) == "use");
            let args = &call.unwrap_or_else(|| panic!("no call")).args;
            let v: Vec<Value> = args.iter().map(|a| value_of(m, *a)).collect();
            assert_eq!(v[0], Value::Literal("a string literal"));
            assert_eq!(v[1], Value::Literal("a string literal"));
            assert!(matches!(v[2], Value::Function(_)));
            assert!(matches!(v[3], Value::Function(_)));
            assert_eq!(v[4], Value::TaskDef(0));
            assert_eq!(v[5], Value::Unknown);
            assert_eq!(v[6], Value::Unbound);
            assert_eq!(v[7], Value::Unknown);
            assert_eq!(v[8], Value::Literal("an array"));
            assert_eq!(v[9], Value::Literal("an object literal"));
            assert_eq!(v[10], Value::Literal("undefined"));
            assert_eq!(v[11], Value::Unknown);
        });
    }

    #[test]
    fn returns() {
        let src = "const base = { kind: 'agent' };\n\
                   defineTask('a', () => ({ ...base, title: 'x' }));\n\
                   defineTask('b', (args) => { if (args.x) { return { kind: 'shell' }; } return { title: 'y' }; });\n\
                   defineTask('c', () => { const o = { title: 1 }; });\n\
                   defineTask('d', () => build());\n\
                   defineTask('e', () => ({ ...other, title: 'z' }));\n\
                   defineTask('f', () => { const d = { title: 1 }; d.kind = 'agent'; return d; });\n\
                   defineTask('g', () => { const d = { title: 1 }; Object.assign(d, more); return d; });\n";
        with_model(src, |m| {
            let r: Vec<Returns> = m
                .task_defs
                .iter()
                .map(|t| factory_returns(m, t.factory.unwrap_or(usize::MAX)))
                .collect();
            match &r[0] {
                Returns::Objects(o) => assert!(!lacks_property(m, o[0], "kind")),
                other => panic!("{other:?}"),
            }
            match &r[1] {
                Returns::Objects(o) => {
                    assert_eq!(o.len(), 2);
                    assert!(!lacks_property(m, o[0], "kind"));
                    assert!(lacks_property(m, o[1], "kind"));
                }
                other => panic!("{other:?}"),
            }
            assert_eq!(r[2], Returns::Nothing);
            assert_eq!(r[3], Returns::Unknown);
            match &r[4] {
                Returns::Objects(o) => assert!(!lacks_property(m, o[0], "kind")),
                other => panic!("{other:?}"),
            }
            assert_eq!(r[5], Returns::Unknown);
            assert_eq!(r[6], Returns::Unknown);
        });
    }

    #[test]
    fn ids() {
        let src = "const ID = 'review';\nlet v = 'x';\ndefineTask('lit', f);\ndefineTask(ID, f);\ndefineTask(`a-${v}`, f);\ndefineTask({ kind: 'agent' });\ndefineTask();\ndefineTask({ id: 'obj', kind: 'agent' });\ndefineTask({ name: 'named', kind: 'agent' });\n";
        with_model(src, |m| {
            let ids: Vec<TaskId> = m.task_defs.iter().map(|t| task_id(m, t)).collect();
            assert_eq!(
                ids,
                [
                    TaskId::Literal("lit".into()),
                    TaskId::Const("review".into()),
                    TaskId::Computed,
                    TaskId::Missing,
                    TaskId::Missing,
                    TaskId::Literal("obj".into()),
                    TaskId::Literal("named".into()),
                ]
            );
        });
    }
}
