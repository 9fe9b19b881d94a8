//! Names a module reads that no scope binds and that are no JavaScript or
//! Node.js global: reading one throws a `ReferenceError` when the line runs.
//! `undefined-reference` reports them; the summary keeps them so a
//! project rule can tell a lost read (`campaignScore`, once
//! `const campaignScore = quality.overallScore`) from a field nobody wanted.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::js::model::globals::is_known_global;
use crate::js::model::scope::BindingKind;
use crate::js::syntax::tree::Node;
use crate::js::JsModel;

/// A name the module reads and never defines where it reads it.
pub struct Undefined<'t> {
    pub name: &'t str,
    /// Its uses, in source order (never empty).
    pub uses: Vec<Node<'t>>,
    /// The module's last declaration of the name (`let`, `const`, `var`,
    /// a function or a class; not a parameter) before its first use, in a
    /// scope that does not enclose the use: a block or function that has
    /// ended.
    pub declared: Option<Node<'t>>,
    /// Some use calls it (`score(…)`, `new Scorer()`): a missing function.
    pub called: bool,
}

/// Each undefined name with its uses, the names ordered by their first
/// use. Names a configuration declares as globals are the caller's to
/// drop. A module that does not parse has none (the broken part's names
/// are noise).
pub fn undefined_names<'t>(m: &JsModel<'t>) -> Vec<Undefined<'t>> {
    if !m.syntax_errors.is_empty() || m.unresolved.is_empty() {
        return Vec::new();
    }
    let guarded = typeof_names(m);
    let written = written_names(m);
    let esm = !is_commonjs(m);
    let block_functions = if esm {
        HashSet::new()
    } else {
        function_names(m)
    };
    let mut uses: BTreeMap<&str, Vec<Node>> = BTreeMap::new();
    for &node in &m.unresolved {
        let name = m.text(node);
        if is_known_global(name)
            || matches!(name, "arguments" | "undefined")
            || guarded.contains(name)
            || in_typeof(m, node)
            || exported(node)
        {
            continue;
        }
        // Sloppy-mode CommonJS creates a global on assignment, and makes a
        // function declared in a block visible to the whole function once
        // the block has run (Annex B).
        if !esm && (written.contains(name) || block_functions.contains(name)) {
            continue;
        }
        uses.entry(name).or_default().push(node);
    }
    // Every declaration of the names found, in one pass over the bindings.
    let mut declarations: HashMap<&str, Vec<Node>> = HashMap::new();
    for b in &m.scopes.bindings {
        if matches!(
            b.kind,
            BindingKind::Let
                | BindingKind::Const
                | BindingKind::Var
                | BindingKind::Function
                | BindingKind::Class
        ) {
            if let Some((name, _)) = uses.get_key_value(b.name.as_str()) {
                declarations.entry(name).or_default().push(b.node);
            }
        }
    }
    let mut found: Vec<Undefined> = uses
        .into_iter()
        .filter_map(|(name, mut nodes)| {
            nodes.sort_by_key(|n| n.start_byte());
            let first = *nodes.first()?;
            let declared = declarations
                .get(name)
                .into_iter()
                .flatten()
                .filter(|d| d.start_byte() < first.start_byte())
                .max_by_key(|d| d.start_byte())
                .copied();
            let called = nodes.iter().any(|u| {
                u.parent().is_some_and(|p| {
                    matches!(p.kind_str(), "call_expression" | "new_expression")
                        && (p.field("function") == Some(*u) || p.field("constructor") == Some(*u))
                })
            });
            Some(Undefined {
                name,
                uses: nodes,
                declared,
                called,
            })
        })
        .collect();
    found.sort_by_key(|u| u.uses.first().map(|n| n.start_byte()));
    found
}

/// `export { name }` of a name the module does not declare: Node refuses
/// to load the module (`parse-error` says so), so nothing runs to throw.
fn exported(node: Node) -> bool {
    node.parent()
        .is_some_and(|p| p.kind_str() == "export_specifier")
}

/// Whether `node` is the operand of `typeof` (which never throws).
fn in_typeof(m: &JsModel, node: Node) -> bool {
    let mut cur = node;
    while let Some(p) = cur.parent() {
        match p.kind_str() {
            "parenthesized_expression" => cur = p,
            "unary_expression" => {
                return p.field("operator").is_some_and(|o| m.text(o) == "typeof");
            }
            _ => return false,
        }
    }
    false
}

/// Names tested with `typeof` anywhere in the module: the author knows they
/// may be missing and guards them.
fn typeof_names<'t>(m: &JsModel<'t>) -> HashSet<&'t str> {
    m.unresolved
        .iter()
        .filter(|n| in_typeof(m, **n))
        .map(|n| m.text(*n))
        .collect()
}

/// Unresolved names that are assigned somewhere (`x = 1` without a
/// declaration).
fn written_names<'t>(m: &JsModel<'t>) -> HashSet<&'t str> {
    m.unresolved
        .iter()
        .filter(|n| {
            n.parent().is_some_and(|p| {
                matches!(
                    p.kind_str(),
                    "assignment_expression" | "augmented_assignment_expression"
                ) && p.field("left").is_some_and(|l| l.id() == n.id())
            })
        })
        .map(|n| m.text(*n))
        .collect()
}

/// Names of the module's function declarations (one not bound at a use is
/// in a block).
fn function_names<'m>(m: &'m JsModel) -> HashSet<&'m str> {
    m.scopes
        .bindings
        .iter()
        .filter(|b| b.kind == BindingKind::Function)
        .map(|b| b.name.as_str())
        .collect()
}

/// A module that uses `module.exports`/`exports.x`/`require` is CommonJS.
fn is_commonjs(m: &JsModel) -> bool {
    m.unresolved
        .iter()
        .any(|n| matches!(m.text(*n), "module" | "exports" | "require"))
}
