//! Code that runs on replay, and where the names it calls come from.
//!
//! The orchestrator re-runs the process function from the top on every
//! iteration, so everything it executes outside an effect runs again: the
//! process functions (any function that receives a process context, and the
//! module's exports), the helpers they call, the callbacks nested in them,
//! and the module's top level (re-evaluated whenever the module is loaded).
//! Task factories are not: the SDK calls them to build a definition.
//!
//! [`origin`] names what a callee or member chain denotes —
//! `fsp.writeFile` with `import * as fsp from 'node:fs/promises'` is
//! `fs/promises` `writeFile`; `execSync` from
//! `const { execSync } = require('child_process')` is `child_process`
//! `execSync`; an unbound `fetch` is the global `fetch`.

use std::collections::HashSet;

use crate::js::syntax::tree::Node;

use crate::js::analysis::results::enclosing_function;
use crate::js::model::scope::{BindingKind, FnId};
use crate::js::model::{Imported, JsModel};
use crate::js::syntax::{key_name, string_value, unparen};

/// Bounds call-graph and alias walks.
const MAX_ALIAS_DEPTH: usize = 4;

/// Which functions of a module run on replay.
#[derive(Debug, Clone)]
pub struct Replay {
    runs: Vec<bool>,
    factories: Vec<bool>,
}

impl Replay {
    pub fn of(m: &JsModel) -> Replay {
        Self::build(m, true)
    }

    /// Like [`Replay::of`], but an exported function is a root only when it
    /// is the process export or takes the process context: an exported
    /// utility (`export function readJsonSafe(path)`) that no process
    /// function of the module reaches is library code, not process code.
    pub fn of_process(m: &JsModel) -> Replay {
        Self::build(m, false)
    }

    fn build(m: &JsModel, exports_are_roots: bool) -> Replay {
        let n = m.functions.len();
        let mut factories = vec![false; n];
        for t in &m.task_defs {
            if let Some(f) = t.factory {
                factories[f] = true;
            }
        }
        // A function nested in a factory is part of building the definition.
        for f in 0..n {
            let mut p = m.functions[f].parent;
            while let Some(pf) = p {
                if factories[pf] {
                    factories[f] = true;
                    break;
                }
                p = m.functions[pf].parent;
            }
        }
        let mut runs = vec![false; n];
        let mut work: Vec<FnId> = Vec::new();
        let mut root = |f: FnId, work: &mut Vec<FnId>| {
            if !factories[f] && !runs[f] {
                runs[f] = true;
                work.push(f);
            }
        };
        for (f, func) in m.functions.iter().enumerate() {
            if func
                .param_bindings
                .iter()
                .flatten()
                .any(|b| m.contexts.contains(b))
            {
                root(f, &mut work);
            }
        }
        for e in &m.exports {
            if !exports_are_roots && !m.is_process_export(&e.name) {
                continue;
            }
            if let Some(f) = e.value.and_then(|v| m.function_of_expr(v)) {
                root(f, &mut work);
            }
        }
        // Calls from the top level run whenever the module is loaded.
        for c in &m.calls {
            if c.func.is_none() {
                if let Some(f) = m.function_of_expr(c.callee) {
                    root(f, &mut work);
                }
            }
        }
        // Close over nested functions and same-module callees.
        let mut children: Vec<Vec<FnId>> = vec![Vec::new(); n];
        for (f, func) in m.functions.iter().enumerate() {
            if let Some(p) = func.parent {
                children[p].push(f);
            }
        }
        let mut callees: Vec<Vec<FnId>> = vec![Vec::new(); n];
        for c in &m.calls {
            if let (Some(from), Some(to)) = (c.func, m.function_of_expr(c.callee)) {
                callees[from].push(to);
            }
        }
        while let Some(f) = work.pop() {
            for &g in children[f].iter().chain(callees[f].iter()) {
                if !factories[g] && !runs[g] {
                    runs[g] = true;
                    work.push(g);
                }
            }
        }
        Replay { runs, factories }
    }

    /// Whether a function's body runs on replay.
    pub fn runs(&self, f: FnId) -> bool {
        self.runs.get(f).copied().unwrap_or(false)
    }

    /// Whether a node sits in code that runs on replay: inside such a
    /// function, or at the module's top level.
    pub fn covers(&self, m: &JsModel, node: Node) -> bool {
        match enclosing_function(m, node) {
            Some(f) => self.runs(f),
            None => true,
        }
    }

    /// Whether a node is inside a task factory.
    pub fn in_factory(&self, m: &JsModel, node: Node) -> bool {
        enclosing_function(m, node).is_some_and(|f| self.factories.get(f).copied() == Some(true))
    }
}

/// What a name denotes: a module export path or a global.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// Normalised module specifier (`fs`, `fs/promises`, `child_process`,
    /// `axios`); `None` for a global.
    pub module: Option<String>,
    /// Member path inside the module (empty for the module object itself):
    /// `["writeFileSync"]`, `["promises", "writeFile"]` is normalised to
    /// module `fs/promises`, path `["writeFile"]`. For a global, the first
    /// segment is the global's name (`["Date", "now"]`).
    pub path: Vec<String>,
}

impl Origin {
    /// `fs.writeFileSync`, `Date.now`, `child_process.execSync`.
    pub fn display(&self) -> String {
        match &self.module {
            Some(m) if self.path.is_empty() => m.clone(),
            Some(m) => format!("{m}.{}", self.path.join(".")),
            None => self.path.join("."),
        }
    }

    pub fn is(&self, module: Option<&str>, path: &[&str]) -> bool {
        self.module.as_deref() == module
            && self.path.len() == path.len()
            && self.path.iter().zip(path).all(|(a, b)| a == b)
    }
}

/// `node:fs` → `fs`; `fs/promises` stays.
pub fn normalise_module(spec: &str) -> String {
    spec.strip_prefix("node:").unwrap_or(spec).to_string()
}

/// What an expression (a callee, a member chain) denotes, when it is rooted
/// in an import, a `require`, or a global.
pub fn origin(m: &JsModel, node: Node) -> Option<Origin> {
    origin_at(m, node, 0)
}

fn origin_at(m: &JsModel, node: Node, depth: usize) -> Option<Origin> {
    if depth > MAX_ALIAS_DEPTH {
        return None;
    }
    let node = unparen(node);
    match node.kind_str() {
        "member_expression" | "subscript_expression" => {
            let obj = node.field("object")?;
            let prop = if node.kind_str() == "member_expression" {
                m.text(node.field("property")?).to_string()
            } else {
                string_value(node.field("index")?, m.src())?
            };
            let mut o = origin_at(m, obj, depth)?;
            o.path.push(prop);
            Some(normalise(o))
        }
        "identifier" => identifier_origin(m, node, depth),
        // `require('fs').writeFileSync(…)`
        "call_expression" => {
            let source = require_source(m, node)?;
            Some(Origin {
                module: Some(normalise_module(&source)),
                path: Vec::new(),
            })
        }
        // `(await import('fs'))`
        "await_expression" => origin_at(m, node.named_child(0)?, depth + 1),
        _ => None,
    }
}

fn identifier_origin(m: &JsModel, node: Node, depth: usize) -> Option<Origin> {
    let global = || {
        Some(Origin {
            module: None,
            path: vec![m.text(node).to_string()],
        })
    };
    let Some(b) = m.scopes.binding_of(node) else {
        return global();
    };
    // `export async function process(inputs, ctx)` shadows Node's global
    // `process` in its module; `process.env` there is meant as the global
    // (and reads nothing useful, a bug of its own), so it is treated as one.
    if shadows_global_process(m, b) {
        return global();
    }
    if let Some(imp) = m.import_of(b) {
        let path = match &imp.imported {
            Imported::Named(n) => vec![n.clone()],
            Imported::Default | Imported::Namespace => Vec::new(),
        };
        return Some(normalise(Origin {
            module: Some(normalise_module(&imp.source)),
            path,
        }));
    }
    let binding = m.scopes.get(b);
    if !matches!(
        binding.kind,
        BindingKind::Const | BindingKind::Let | BindingKind::Var
    ) || !binding.writes.is_empty()
    {
        return None;
    }
    // `const fsp = fs.promises;`
    if let Some(init) = binding.init {
        return origin_at(m, init, depth + 1);
    }
    // `const { writeFile } = fs.promises;` (or `= require('fs').promises`).
    let (key, value) = destructured_from(m, binding.node)?;
    let mut o = origin_at(m, value, depth + 1)?;
    o.path.push(key);
    Some(normalise(o))
}

fn shadows_global_process(m: &JsModel, b: crate::js::model::scope::BindingId) -> bool {
    let binding = m.scopes.get(b);
    binding.name == "process" && binding.kind == BindingKind::Function
}

/// For an identifier declared in `const { key: name } = value`: the key
/// and the value expression.
fn destructured_from<'t>(m: &JsModel<'t>, ident: Node<'t>) -> Option<(String, Node<'t>)> {
    let parent = ident.parent()?;
    let (key, pattern) = match parent.kind_str() {
        "object_pattern" => (m.text(ident).to_string(), parent),
        "pair_pattern" => (key_name(parent.field("key")?, m.src())?, parent.parent()?),
        _ => return None,
    };
    let decl = pattern
        .parent()
        .filter(|d| d.kind_str() == "variable_declarator")?;
    if decl.field("name") != Some(pattern) {
        return None;
    }
    Some((key, decl.field("value")?))
}

/// `require('x')` → `x`.
fn require_source(m: &JsModel, call: Node) -> Option<String> {
    let f = call.field("function")?;
    if m.text(f) != "require" || m.scopes.binding_of(f).is_some() {
        return None;
    }
    let arg = call.field("arguments")?.named_child(0)?;
    string_value(arg, m.src())
}

/// `fs` + `promises.x` → `fs/promises` + `x`; `globalThis.fetch` → `fetch`.
fn normalise(mut o: Origin) -> Origin {
    if o.module.as_deref() == Some("fs") && o.path.first().is_some_and(|p| p == "promises") {
        o.module = Some("fs/promises".into());
        o.path.remove(0);
    }
    if o.module.is_none() && o.path.len() > 1 && o.path[0] == "globalThis" {
        o.path.remove(0);
    }
    o
}

/// Functions a function calls in the module, followed to a fixed depth:
/// the set includes `f` itself.
pub fn reachable_functions(m: &JsModel, f: FnId, depth: usize) -> HashSet<FnId> {
    let mut seen = HashSet::from([f]);
    let mut frontier = vec![f];
    for _ in 0..depth {
        let mut next = Vec::new();
        for c in &m.calls {
            let Some(from) = c.func else { continue };
            if !frontier.contains(&from) {
                continue;
            }
            if let Some(g) = m.function_of_expr(c.callee) {
                if seen.insert(g) {
                    next.push(g);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::syntax::parse;
    use crate::js::ModelOptions;
    use crate::source::SourceFile;

    fn with_model(src: &str, f: impl FnOnce(&JsModel)) {
        let file = SourceFile::new("t.js", src.to_string());
        let Some(tree) = parse::parse_tree(&file.text) else {
            panic!("parse failed");
        };
        let m = JsModel::build(&file, &tree, &ModelOptions::default());
        f(&m);
    }

    fn callee_origins(m: &JsModel) -> Vec<String> {
        m.calls
            .iter()
            .filter_map(|c| origin(m, c.callee))
            .map(|o| o.display())
            .collect()
    }

    #[test]
    fn origins_through_imports_requires_and_aliases() {
        let src = r#"
import * as fsp from 'node:fs/promises';
import { promises as pfs, writeFileSync as wfs } from 'fs';
const { execSync } = require('child_process');
const cp = require('node:child_process');
const { writeFile } = require('fs').promises;
fsp.writeFile('a', 'b');
pfs.rm('a');
wfs('a', 'b');
execSync('ls');
cp.spawn('ls');
writeFile('a');
require('fs').unlinkSync('a');
Date.now();
globalThis.fetch('x');
"#;
        with_model(src, |m| {
            let got = callee_origins(m);
            for want in [
                "fs/promises.writeFile",
                "fs/promises.rm",
                "fs.writeFileSync",
                "child_process.execSync",
                "child_process.spawn",
                "fs/promises.writeFile",
                "fs.unlinkSync",
                "Date.now",
                "fetch",
            ] {
                assert!(got.iter().any(|g| g == want), "{want} not in {got:?}");
            }
        });
    }

    #[test]
    fn replay_excludes_factories_and_includes_helpers() {
        let src = r#"
import { defineTask } from '@a5c-ai/babysitter-sdk';
const t = defineTask('x', (args) => { const inner = () => 1; return { kind: 'agent' }; });
function helper() { return 1; }
function unused() { return 2; }
export async function process(inputs, ctx) { helper(); [1].map(x => x); }
"#;
        with_model(src, |m| {
            let r = Replay::of(m);
            let name = |f: FnId| m.functions[f].name.clone().unwrap_or_default();
            let running: Vec<String> = (0..m.functions.len())
                .filter(|f| r.runs(*f))
                .map(name)
                .collect();
            assert!(running.contains(&"helper".to_string()), "{running:?}");
            assert!(running.contains(&"process".to_string()), "{running:?}");
            assert!(!running.contains(&"unused".to_string()), "{running:?}");
            assert!(!running.contains(&"inner".to_string()), "{running:?}");
        });
    }
}
