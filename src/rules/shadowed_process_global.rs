//! `shadowed-process-global`: `process.env`, `process.cwd()`, … in a module
//! whose own module-scope `process` (the exported process function) hides
//! Node's global. Every `process` in that module is the function.

use crate::js::syntax::tree::Node;

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::model::scope::{BindingKind, ScopeKind};
use crate::js::syntax::{is_function, span, unparen};
use crate::js::JsModel;

pub struct ShadowedProcessGlobal;

static META: RuleMeta = RuleMeta {
    id: "shadowed-process-global",
    summary: "Node's `process` read in a module whose own `process` function hides it.",
    severity: Severity::Error,
    area: Area::RuntimeCorrectness,
    category: Category::Correctness,
    doc: include_str!("../../rules/shadowed-process-global.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

/// What a function object has: reading these from the module's own
/// `process` is deliberate.
const FUNCTION_MEMBERS: &[&str] = &[
    "name",
    "length",
    "call",
    "apply",
    "bind",
    "toString",
    "prototype",
    "constructor",
];

impl Rule for ShadowedProcessGlobal {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::ProcessModules,
            praise: "No module reads Node's `process` through its own `process` function",
            sdk_hint: "The SDK's convention of exporting `function process` shadows Node's global in every process module. Accepting another export name (or documenting `globalThis.process`) would remove the trap.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let Some(b) = module_process_binding(m) else {
            return;
        };
        let binding = m.scopes.get(b);
        let declared = binding.node;
        // Functions nested in a task factory's definition (`script: () => …`
        // of a node task) are serialised with the definition, never called.
        let factories: Vec<Node> = m
            .task_defs
            .iter()
            .filter_map(|t| t.factory)
            .map(|f| m.functions[f].node)
            .collect();
        for &read in &binding.reads {
            if in_nested_function_of(read, &factories) {
                continue;
            }
            let Some(member) = m.member_of_object(read) else {
                continue;
            };
            let Some(prop) = member.field("property").map(|p| m.text(p)) else {
                continue;
            };
            if FUNCTION_MEMBERS.contains(&prop) {
                continue;
            }
            let (shown, consequence) = consequence(m, member, prop);
            sink.push(
                sink.diag(
                    span(member),
                    format!(
                        "`{shown}` reads the module's own `process` function, not Node's global \
                         (the exported `function process` shadows it everywhere in this module): \
                         {consequence}"
                    ),
                )
                .with_help(format!(
                    "use `globalThis.process.{prop}`, or better, pass the value in through the \
                     process inputs so runs stay reproducible"
                ))
                .with_related(sink.location(span(declared)), "`process` is bound here"),
            );
        }
    }
}

/// Whether `node` is inside a function that is itself inside one of
/// `factories` (not the factory's own body, which runs at dispatch).
fn in_nested_function_of(node: Node, factories: &[Node]) -> bool {
    let mut nested = false;
    let mut cur = node;
    while let Some(p) = cur.parent() {
        if factories.iter().any(|f| f.id() == p.id()) {
            return nested;
        }
        if is_function(p) {
            nested = true;
        }
        cur = p;
    }
    false
}

/// The module-scope function named `process`, when there is one (an
/// `import process from 'node:process'` is Node's object, not a shadow).
pub fn module_process_binding(m: &JsModel) -> Option<crate::js::model::scope::BindingId> {
    let program = m
        .scopes
        .scopes
        .iter()
        .position(|s| s.kind == ScopeKind::Program)?;
    let b = *m.scopes.scopes[program].names.get("process")?;
    let binding = m.scopes.get(b);
    let is_function = binding.kind == BindingKind::Function
        || binding.init.is_some_and(|i| {
            matches!(
                unparen(i).kind_str(),
                "function_expression" | "function" | "arrow_function"
            )
        });
    is_function.then_some(b)
}

/// What happens at run time, with the expression as the reader wrote it.
fn consequence(m: &JsModel, member: Node, prop: &str) -> (String, String) {
    let parent = member.parent();
    let called = parent.is_some_and(|p| {
        p.kind_str() == "call_expression"
            && p.field("function").map(|f| f.id()) == Some(member.id())
    });
    if called {
        return (
            format!("process.{prop}()"),
            format!("`process.{prop}` is undefined, so the call throws a TypeError"),
        );
    }
    let deeper = parent.filter(|p| {
        matches!(p.kind_str(), "member_expression" | "subscript_expression")
            && p.field("object").map(|o| o.id()) == Some(member.id())
    });
    if let Some(p) = deeper {
        let optional = m.text(p)[m.text(member).len()..].starts_with("?.");
        let shown = shorten(m.text(p));
        if optional {
            return (
                shown,
                format!("`process.{prop}` is undefined, so this is always undefined"),
            );
        }
        return (
            shown,
            format!(
                "`process.{prop}` is undefined, so reading a property of it throws a TypeError"
            ),
        );
    }
    (
        format!("process.{prop}"),
        "it is always undefined".to_string(),
    )
}

fn shorten(s: &str) -> String {
    if s.chars().count() <= 40 {
        return s.to_string();
    }
    let cut: String = s.chars().take(39).collect();
    format!("{cut}…")
}
