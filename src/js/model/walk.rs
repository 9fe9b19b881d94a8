//! The one walk over the syntax tree that builds the model's skeleton:
//! scopes and bindings with their reads and writes, functions, calls with
//! their enclosing function and loops, loops, imports and exports (ES
//! modules and CommonJS). Depth-bounded by [`MAX_DEPTH`]. In: the tree.
//! Out: a [`Builder`] whose parts `JsModel::build` takes.

use crate::js::syntax::tree::Node;

use super::*;
use crate::js::model::scope::{BindingKind, FnId, ScopeId, ScopeKind, Scopes};
use crate::js::syntax::ids::IdMap;
use crate::js::syntax::{self, span, string_value, text, unparen};

pub(super) fn collect_errors(root: Node, out: &mut Vec<Span>) {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if !n.has_error() {
            continue;
        }
        if n.is_error() || n.is_missing() {
            out.push(span(n));
            continue;
        }
        stack.extend(n.all_children());
    }
    out.sort();
}

pub(super) struct Ref<'t> {
    node: Node<'t>,
    scope: ScopeId,
    read: bool,
    write: bool,
}

pub(super) struct Builder<'s, 't> {
    pub(super) src: &'s str,
    pub(super) scopes: Scopes<'t>,
    pub(super) functions: Vec<Function<'t>>,
    pub(super) calls: Vec<Call<'t>>,
    pub(super) loops: Vec<Loop<'t>>,
    pub(super) imports: Vec<Import>,
    pub(super) exports: Vec<Export<'t>>,
    pub(super) refs: Vec<Ref<'t>>,
    pub(super) unresolved: Vec<Node<'t>>,
    pub(super) fn_stack: Vec<FnId>,
    pub(super) loop_stack: Vec<LoopId>,
    pub(super) depth_limited: Option<Span>,
    pub(super) fn_by_node: IdMap<usize, FnId>,
}

impl<'t> Builder<'_, 't> {
    pub(super) fn visit_children(&mut self, node: Node<'t>, scope: ScopeId, depth: usize) {
        for child in node.named() {
            self.visit(child, scope, depth + 1);
        }
    }

    fn visit_field(&mut self, node: Node<'t>, field: &str, scope: ScopeId, depth: usize) {
        if let Some(child) = node.field(field) {
            self.visit(child, scope, depth + 1);
        }
    }

    fn reference(&mut self, node: Node<'t>, scope: ScopeId, read: bool, write: bool) {
        self.refs.push(Ref {
            node,
            scope,
            read,
            write,
        });
    }

    fn visit(&mut self, node: Node<'t>, scope: ScopeId, depth: usize) {
        if depth > MAX_DEPTH {
            if self.depth_limited.is_none() {
                self.depth_limited = Some(span(node));
            }
            return;
        }
        match node.kind_str() {
            "identifier" | "shorthand_property_identifier" => {
                self.reference(node, scope, true, false)
            }
            // Quotes, fragments and escapes: nothing to bind or reference.
            "string" => {}
            "function_declaration" | "generator_function_declaration" => {
                let f = self.enter_function(node, scope, depth);
                if let Some(name) = node.field("name") {
                    let b = self.scopes.declare(
                        scope,
                        text(name, self.src),
                        BindingKind::Function,
                        name,
                    );
                    self.scopes.bindings[b].function = Some(f);
                }
            }
            "function_expression"
            | "function"
            | "generator_function"
            | "arrow_function"
            | "method_definition" => {
                self.enter_function(node, scope, depth);
            }
            "class_declaration" => {
                if let Some(name) = node.field("name") {
                    self.scopes
                        .declare(scope, text(name, self.src), BindingKind::Class, name);
                }
                self.visit_field(node, "body", scope, depth);
                if let Some(h) = node
                    .named_child(1)
                    .filter(|c| c.kind_str() == "class_heritage")
                {
                    self.visit(h, scope, depth + 1);
                }
            }
            "lexical_declaration" | "variable_declaration" => {
                let kind = match node.child(0).map(|c| text(c, self.src)) {
                    Some("const") => BindingKind::Const,
                    Some("let") => BindingKind::Let,
                    _ => BindingKind::Var,
                };
                for d in node.named() {
                    if d.kind_str() != "variable_declarator" {
                        continue;
                    }
                    let value = d.field("value");
                    if let Some(name) = d.field("name") {
                        self.declare_pattern(name, kind, scope, value, depth);
                        if let Some(v) = value {
                            self.record_require(name, v);
                        }
                    }
                    if let Some(v) = value {
                        self.visit(v, scope, depth + 1);
                    }
                }
            }
            "import_statement" => self.record_import(node, scope),
            "export_statement" => self.record_export(node, scope, depth),
            "statement_block" => {
                let inner = self.scopes.new_scope(ScopeKind::Block, Some(scope));
                self.visit_children(node, inner, depth);
            }
            "class_body" => {
                let inner = self.scopes.new_scope(ScopeKind::Block, Some(scope));
                self.visit_children(node, inner, depth);
            }
            "for_statement" => {
                let inner = self.scopes.new_scope(ScopeKind::Block, Some(scope));
                self.visit_field(node, "initializer", inner, depth);
                self.visit_field(node, "condition", inner, depth);
                self.visit_field(node, "increment", inner, depth);
                let condition = node
                    .field("condition")
                    .filter(|c| c.kind_str() != ";" && c.kind_str() != "empty_statement")
                    .map(|c| {
                        if c.kind_str() == "expression_statement" {
                            c.named_child(0).unwrap_or(c)
                        } else {
                            c
                        }
                    });
                self.enter_loop(node, LoopKind::For, condition, inner, depth);
            }
            "for_in_statement" => {
                let inner = self.scopes.new_scope(ScopeKind::Block, Some(scope));
                let declared = node.field("kind").map(|k| text(k, self.src));
                if let Some(left) = node.field("left") {
                    match declared {
                        Some(k) => {
                            let kind = match k {
                                "const" => BindingKind::Const,
                                "let" => BindingKind::Let,
                                _ => BindingKind::Var,
                            };
                            self.declare_pattern(left, kind, inner, None, depth);
                        }
                        None => self.assign_target(left, inner, depth, false),
                    }
                }
                self.visit_field(node, "right", scope, depth);
                let of = node
                    .field("operator")
                    .is_some_and(|o| text(o, self.src) == "of");
                let kind = if of { LoopKind::ForOf } else { LoopKind::ForIn };
                self.enter_loop(node, kind, None, inner, depth);
            }
            "while_statement" => {
                self.visit_field(node, "condition", scope, depth);
                let cond = node.field("condition");
                self.enter_loop(node, LoopKind::While, cond, scope, depth);
            }
            "do_statement" => {
                self.visit_field(node, "condition", scope, depth);
                let cond = node.field("condition");
                self.enter_loop(node, LoopKind::DoWhile, cond, scope, depth);
            }
            "catch_clause" => {
                let inner = self.scopes.new_scope(ScopeKind::Block, Some(scope));
                if let Some(p) = node.field("parameter") {
                    self.declare_pattern(p, BindingKind::CatchParam, inner, None, depth);
                }
                if let Some(body) = node.field("body") {
                    self.visit_children(body, inner, depth + 1);
                }
            }
            "assignment_expression" => {
                if let Some(left) = node.field("left") {
                    self.assign_target(left, scope, depth, false);
                    self.record_commonjs_export(left, node.field("right"));
                }
                self.visit_field(node, "right", scope, depth);
            }
            "augmented_assignment_expression" => {
                if let Some(left) = node.field("left") {
                    self.assign_target(left, scope, depth, true);
                }
                self.visit_field(node, "right", scope, depth);
            }
            "update_expression" => {
                if let Some(arg) = node.field("argument") {
                    self.assign_target(arg, scope, depth, true);
                }
            }
            "call_expression" => {
                let callee = node.field("function");
                let args: Vec<Node<'t>> = node
                    .field("arguments")
                    .map(|a| a.named().filter(|n| n.kind_str() != "comment").collect())
                    .unwrap_or_default();
                if let Some(callee) = callee {
                    self.calls.push(Call {
                        node,
                        callee,
                        args,
                        func: self.fn_stack.last().copied(),
                        loops: self.loop_stack.clone(),
                        scope,
                    });
                }
                self.visit_children(node, scope, depth);
            }
            _ => self.visit_children(node, scope, depth),
        }
    }

    fn enter_loop(
        &mut self,
        node: Node<'t>,
        kind: LoopKind,
        condition: Option<Node<'t>>,
        scope: ScopeId,
        depth: usize,
    ) {
        let body = node.field("body");
        self.loops.push(Loop {
            node,
            kind,
            condition,
            body,
            func: self.fn_stack.last().copied(),
        });
        self.loop_stack.push(self.loops.len() - 1);
        if let Some(body) = body {
            self.visit(body, scope, depth + 1);
        }
        self.loop_stack.pop();
    }

    fn enter_function(&mut self, node: Node<'t>, scope: ScopeId, depth: usize) -> FnId {
        let fscope = self.scopes.new_scope(ScopeKind::Function, Some(scope));
        let fid = self.functions.len();
        let parent = node.parent();
        let name = function_name(node, parent, self.src);
        let is_async = node
            .all_children()
            .any(|ch| !ch.is_named() && text(ch, self.src) == "async");
        self.functions.push(Function {
            node,
            name,
            params: Vec::new(),
            param_bindings: Vec::new(),
            scope: fscope,
            parent: self.fn_stack.last().copied(),
            is_async,
        });
        self.fn_by_node.insert(node.id(), fid);
        if node.kind_str() == "function_expression" {
            if let Some(n) = node.field("name") {
                self.scopes
                    .declare(fscope, text(n, self.src), BindingKind::Function, n);
            }
        }
        if node.kind_str() == "method_definition" {
            // Computed keys are expressions of the enclosing scope.
            if let Some(k) = node.field("name") {
                if k.kind_str() == "computed_property_name" {
                    self.visit(k, scope, depth + 1);
                }
            }
        }
        let params: Vec<Node<'t>> = if let Some(p) = node.field("parameters") {
            p.named().filter(|n| n.kind_str() != "comment").collect()
        } else if let Some(p) = node.field("parameter") {
            vec![p]
        } else {
            Vec::new()
        };
        let mut bindings = Vec::with_capacity(params.len());
        for (i, p) in params.iter().enumerate() {
            let before = self.scopes.bindings.len();
            self.declare_pattern(*p, BindingKind::Param, fscope, None, depth);
            for b in &mut self.scopes.bindings[before..] {
                b.param = Some((fid, i));
            }
            let simple = match p.kind_str() {
                "identifier" => self.scopes.binding_of(*p),
                "assignment_pattern" => p
                    .field("left")
                    .filter(|l| l.kind_str() == "identifier")
                    .and_then(|l| self.scopes.binding_of(l)),
                _ => None,
            };
            bindings.push(simple);
        }
        self.functions[fid].params = params;
        self.functions[fid].param_bindings = bindings;
        self.fn_stack.push(fid);
        if let Some(body) = node.field("body") {
            if body.kind_str() == "statement_block" {
                // Parameters and body share the function scope.
                self.visit_children(body, fscope, depth + 1);
            } else {
                self.visit(body, fscope, depth + 1);
            }
        }
        self.fn_stack.pop();
        fid
    }

    /// Declares every identifier a binding pattern introduces and visits
    /// the expressions inside it (defaults, computed keys).
    fn declare_pattern(
        &mut self,
        node: Node<'t>,
        kind: BindingKind,
        scope: ScopeId,
        init: Option<Node<'t>>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        match node.kind_str() {
            "identifier" | "shorthand_property_identifier_pattern" => {
                let b = self.scopes.declare(scope, text(node, self.src), kind, node);
                if init.is_some() {
                    self.scopes.bindings[b].init = init;
                }
                // Re-declared `var x = …` adds a write.
                if self.scopes.bindings[b].node.id() != node.id() {
                    self.scopes.bindings[b].writes.push(node);
                }
            }
            "object_pattern" | "array_pattern" => {
                for child in node.named() {
                    match child.kind_str() {
                        "pair_pattern" => {
                            if let Some(k) = child.field("key") {
                                if k.kind_str() == "computed_property_name" {
                                    self.visit(k, scope, depth + 1);
                                }
                            }
                            if let Some(v) = child.field("value") {
                                self.declare_pattern(v, kind, scope, None, depth + 1);
                            }
                        }
                        "object_assignment_pattern" => {
                            if let Some(l) = child.field("left") {
                                self.declare_pattern(l, kind, scope, None, depth + 1);
                            }
                            self.visit_field(child, "right", scope, depth);
                        }
                        "comment" => {}
                        _ => self.declare_pattern(child, kind, scope, None, depth + 1),
                    }
                }
            }
            "assignment_pattern" => {
                if let Some(l) = node.field("left") {
                    self.declare_pattern(l, kind, scope, None, depth + 1);
                }
                self.visit_field(node, "right", scope, depth);
            }
            "rest_pattern" => {
                if let Some(inner) = node.named_child(0) {
                    self.declare_pattern(inner, kind, scope, None, depth + 1);
                }
            }
            _ => self.visit(node, scope, depth + 1),
        }
    }

    /// Records references in an assignment target.
    fn assign_target(&mut self, node: Node<'t>, scope: ScopeId, depth: usize, also_read: bool) {
        match node.kind_str() {
            "identifier" => self.reference(node, scope, also_read, true),
            "parenthesized_expression" => {
                let inner = unparen(node);
                if inner.id() != node.id() {
                    self.assign_target(inner, scope, depth + 1, also_read);
                }
            }
            "object_pattern" | "array_pattern" => {
                for child in node.named() {
                    match child.kind_str() {
                        "shorthand_property_identifier_pattern" => {
                            self.reference(child, scope, false, true)
                        }
                        "pair_pattern" => {
                            if let Some(v) = child.field("value") {
                                self.assign_target(v, scope, depth + 1, false);
                            }
                        }
                        "object_assignment_pattern" | "assignment_pattern" => {
                            if let Some(l) = child.field("left") {
                                self.assign_target(l, scope, depth + 1, false);
                            }
                            self.visit_field(child, "right", scope, depth);
                        }
                        "rest_pattern" => {
                            if let Some(inner) = child.named_child(0) {
                                self.assign_target(inner, scope, depth + 1, false);
                            }
                        }
                        _ => self.assign_target(child, scope, depth + 1, false),
                    }
                }
            }
            // Member targets read their object.
            _ => self.visit(node, scope, depth + 1),
        }
    }

    fn record_import(&mut self, node: Node<'t>, scope: ScopeId) {
        let Some(source) = node.field("source").and_then(|s| string_value(s, self.src)) else {
            return;
        };
        let clause = node.named().find(|n| n.kind_str() == "import_clause");
        let Some(clause) = clause else { return };
        for part in clause.named() {
            match part.kind_str() {
                "identifier" => self.add_import(part, scope, &source, Imported::Default),
                "namespace_import" => {
                    if let Some(id) = part.named_child(0) {
                        self.add_import(id, scope, &source, Imported::Namespace);
                    }
                }
                "named_imports" => {
                    for spec in part.named() {
                        if spec.kind_str() != "import_specifier" {
                            continue;
                        }
                        let Some(name) = spec.field("name") else {
                            continue;
                        };
                        let imported = syntax::key_name(name, self.src)
                            .unwrap_or_else(|| text(name, self.src).to_string());
                        let local = spec.field("alias").unwrap_or(name);
                        let imported = if imported == "default" {
                            Imported::Default
                        } else {
                            Imported::Named(imported)
                        };
                        self.add_import(local, scope, &source, imported);
                    }
                }
                _ => {}
            }
        }
    }

    fn add_import(&mut self, local: Node<'t>, scope: ScopeId, source: &str, imported: Imported) {
        let b = self
            .scopes
            .declare(scope, text(local, self.src), BindingKind::Import, local);
        self.imports.push(Import {
            local: b,
            source: source.to_string(),
            imported,
            span: span(local),
        });
    }

    /// `const { a, b: c } = require('x')` and `const x = require('x')`.
    fn record_require(&mut self, name: Node<'t>, value: Node<'t>) {
        let value = unparen(value);
        if value.kind_str() != "call_expression" {
            return;
        }
        let is_require = value
            .field("function")
            .is_some_and(|f| text(f, self.src) == "require");
        if !is_require {
            return;
        }
        let Some(source) = value
            .field("arguments")
            .and_then(|a| a.named_child(0))
            .and_then(|s| string_value(s, self.src))
        else {
            return;
        };
        let add = |this: &mut Self, local: Node<'t>, imported: Imported| {
            if let Some(b) = this.scopes.binding_of(local) {
                this.imports.push(Import {
                    local: b,
                    source: source.clone(),
                    imported,
                    span: span(local),
                });
            }
        };
        match name.kind_str() {
            "identifier" => add(self, name, Imported::Namespace),
            "object_pattern" => {
                for child in name.named() {
                    match child.kind_str() {
                        "shorthand_property_identifier_pattern" => {
                            let n = text(child, self.src).to_string();
                            add(self, child, Imported::Named(n));
                        }
                        "pair_pattern" => {
                            let key = child
                                .field("key")
                                .and_then(|k| syntax::key_name(k, self.src));
                            let val = child
                                .field("value")
                                .filter(|v| v.kind_str() == "identifier");
                            if let (Some(k), Some(v)) = (key, val) {
                                add(self, v, Imported::Named(k));
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    fn record_export(&mut self, node: Node<'t>, scope: ScopeId, depth: usize) {
        let is_default = node
            .all_children()
            .any(|ch| !ch.is_named() && text(ch, self.src) == "default");
        if let Some(decl) = node.field("declaration") {
            match decl.kind_str() {
                "function_declaration" | "generator_function_declaration" | "class_declaration" => {
                    if let Some(name) = decl.field("name") {
                        self.exports.push(Export {
                            source: None,
                            name: text(name, self.src).to_string(),
                            value: Some(decl),
                            span: span(name),
                        });
                    }
                    if is_default {
                        self.exports.push(Export {
                            source: None,
                            name: "default".into(),
                            value: Some(decl),
                            span: span(decl),
                        });
                    }
                }
                "lexical_declaration" | "variable_declaration" => {
                    for d in decl.named() {
                        if let Some(name) = d.field("name") {
                            if name.kind_str() == "identifier" {
                                self.exports.push(Export {
                                    source: None,
                                    name: text(name, self.src).to_string(),
                                    value: Some(name),
                                    span: span(name),
                                });
                            }
                        }
                    }
                }
                _ => {}
            }
            self.visit(decl, scope, depth + 1);
            return;
        }
        if let Some(value) = node.field("value") {
            self.exports.push(Export {
                source: None,
                name: "default".into(),
                value: Some(value),
                span: span(value),
            });
            self.visit(value, scope, depth + 1);
            return;
        }
        for child in node.named() {
            if child.kind_str() != "export_clause" {
                continue;
            }
            for spec in child.named() {
                let Some(name) = spec.field("name") else {
                    continue;
                };
                let alias = spec.field("alias").unwrap_or(name);
                let exported = syntax::key_name(alias, self.src)
                    .unwrap_or_else(|| text(alias, self.src).to_string());
                // Re-exports (`export { x } from './y.js'`) name no local.
                let local = node.field("source").is_none();
                self.exports.push(Export {
                    source: node.field("source").and_then(|s| string_value(s, self.src)),
                    name: exported,
                    value: local.then_some(name),
                    span: span(alias),
                });
                if local && name.kind_str() == "identifier" {
                    self.reference(name, scope, true, false);
                }
            }
        }
    }

    /// `module.exports = {…}`, `module.exports.x = …`, `exports.x = …`.
    fn record_commonjs_export(&mut self, left: Node<'t>, right: Option<Node<'t>>) {
        let target = text(left, self.src);
        let Some(right) = right else { return };
        let right = unparen(right);
        if target == "module.exports" {
            if right.kind_str() == "object" {
                for p in right.named() {
                    match p.kind_str() {
                        "shorthand_property_identifier" => self.exports.push(Export {
                            source: None,
                            name: text(p, self.src).to_string(),
                            value: Some(p),
                            span: span(p),
                        }),
                        "pair" => {
                            let key = p.field("key").and_then(|k| syntax::key_name(k, self.src));
                            if let Some(k) = key {
                                self.exports.push(Export {
                                    source: None,
                                    name: k,
                                    value: p.field("value"),
                                    span: span(p),
                                });
                            }
                        }
                        "method_definition" => {
                            if let Some(n) = p.field("name") {
                                self.exports.push(Export {
                                    source: None,
                                    name: text(n, self.src).to_string(),
                                    value: Some(p),
                                    span: span(n),
                                });
                            }
                        }
                        _ => {}
                    }
                }
            } else {
                self.exports.push(Export {
                    source: None,
                    name: "default".into(),
                    value: Some(right),
                    span: span(right),
                });
            }
        } else if let Some(name) = target
            .strip_prefix("module.exports.")
            .or_else(|| target.strip_prefix("exports."))
        {
            if name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
            {
                self.exports.push(Export {
                    source: None,
                    name: name.to_string(),
                    value: Some(right),
                    span: span(left),
                });
            }
        }
    }

    pub(super) fn resolve(&mut self) {
        for r in std::mem::take(&mut self.refs) {
            let name = text(r.node, self.src);
            let Some(b) = self.scopes.lookup(r.scope, name) else {
                self.unresolved.push(r.node);
                continue;
            };
            self.scopes.resolved.insert(r.node.id(), b);
            let binding = &mut self.scopes.bindings[b];
            if r.read {
                binding.reads.push(r.node);
            }
            if r.write {
                binding.writes.push(r.node);
            }
        }
        for binding in &mut self.scopes.bindings {
            binding.other_reads = (0u32..)
                .zip(&binding.reads)
                .filter(|(_, r)| !pushes_onto(**r, self.src))
                .map(|(i, _)| i)
                .collect();
        }
    }
}

/// Whether `node` is the object of `.push`/`.unshift` (`list` of
/// `list.push(x)`).
pub fn pushes_onto(node: Node, src: &str) -> bool {
    node.parent().is_some_and(|p| {
        p.kind_str() == "member_expression"
            && p.field("object") == Some(node)
            && p.field("property")
                .is_some_and(|k| matches!(text(k, src), "push" | "unshift"))
    })
}

/// A function's name: its own, or the variable/property it is assigned to.
fn function_name(node: Node, parent: Option<Node>, src: &str) -> Option<String> {
    if let Some(n) = node.field("name") {
        return syntax::key_name(n, src).or_else(|| Some(text(n, src).to_string()));
    }
    let parent = parent?;
    match parent.kind_str() {
        "variable_declarator" => parent
            .field("name")
            .filter(|n| n.kind_str() == "identifier")
            .map(|n| text(n, src).to_string()),
        "pair" => parent.field("key").and_then(|k| syntax::key_name(k, src)),
        "assignment_expression" => parent.field("left").map(|l| text(l, src).to_string()),
        _ => None,
    }
}
