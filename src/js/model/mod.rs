//! The process model of one module, built in a single walk of the syntax
//! tree and then queried by every rule.
//!
//! This file holds the model's types and the queries rules use; building it
//! is `walk` (the one walk: scopes, functions, calls, loops, imports,
//! exports) then `passes` (task definitions, contexts, effects, call
//! sites, over what the walk found); `index` collects the few node kinds
//! rules look up by kind.

use crate::js::syntax::tree::{Node, Tree};

use crate::js::model::scope::{BindingId, BindingKind, FnId, ScopeId, ScopeKind, Scopes};
use crate::js::syntax::ids::{IdMap, IdSet};
use crate::js::syntax::{self, text, unparen};
use crate::source::{SourceFile, Span};

pub mod context_api;
pub mod globals;
mod index;
pub mod objects;
mod passes;
pub mod scope;
#[cfg(test)]
pub mod testing;
mod walk;

pub use walk::pushes_onto;

use index::KindLists;
use walk::{collect_errors, Builder};

/// Nesting beyond this is not analysed (the rest of the file still is);
/// keeps the recursive walk far from the thread's stack limit.
pub const MAX_DEPTH: usize = 1500;

pub const SDK_PACKAGES: &[&str] = &["@a5c-ai/babysitter-sdk", "@a5c-ai/babysitter"];

#[derive(Debug, Clone)]
pub struct ModelOptions {
    /// Parameter names treated as a process context.
    pub context_names: Vec<String>,
}

impl Default for ModelOptions {
    fn default() -> Self {
        ModelOptions {
            context_names: vec!["ctx".into(), "context".into()],
        }
    }
}

pub type CallId = usize;
pub type LoopId = usize;

#[derive(Debug)]
pub struct Function<'t> {
    pub node: Node<'t>,
    pub name: Option<String>,
    /// Parameter pattern nodes, by position.
    pub params: Vec<Node<'t>>,
    /// Binding of each parameter when it is a plain identifier.
    pub param_bindings: Vec<Option<BindingId>>,
    pub scope: ScopeId,
    pub parent: Option<FnId>,
    pub is_async: bool,
}

#[derive(Debug)]
pub struct Call<'t> {
    pub node: Node<'t>,
    pub callee: Node<'t>,
    pub args: Vec<Node<'t>>,
    /// Innermost enclosing function.
    pub func: Option<FnId>,
    /// Lexically enclosing loops, outermost first (across function bounds).
    pub loops: Vec<LoopId>,
    pub scope: ScopeId,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopKind {
    For,
    ForIn,
    ForOf,
    While,
    DoWhile,
}

#[derive(Debug)]
pub struct Loop<'t> {
    pub node: Node<'t>,
    pub kind: LoopKind,
    pub condition: Option<Node<'t>>,
    pub body: Option<Node<'t>>,
    pub func: Option<FnId>,
}

impl Loop<'_> {
    /// The loop header: from the keyword to the start of the body.
    pub fn header(&self) -> Span {
        let end = match self.kind {
            LoopKind::DoWhile => self.node.start_byte() + 2,
            _ => self
                .body
                .map(|b| b.start_byte())
                .unwrap_or(self.node.end_byte()),
        };
        Span::new(self.node.start_byte(), end)
    }

    /// The loop as a reader names it, at most `max` characters:
    /// `for (const item of items)`, `while (!passed)`, `do … while (n < max)`;
    /// a long header keeps its keyword and parentheses and shortens what is
    /// inside them at a token boundary: `for (let i = 0; i < items.length; …)`.
    pub fn display(&self, src: &str, max: usize) -> String {
        let (keyword, inner) = match self.kind {
            LoopKind::DoWhile => {
                let cond = self.condition.map(|c| text(unparen(c), src)).unwrap_or("…");
                ("do … while (", cond)
            }
            _ => {
                let h = self.header();
                let header = src.get(h.start..h.end).unwrap_or("loop").trim();
                let header = header.trim_end_matches('{').trim_end();
                match (header.find('('), header.rfind(')')) {
                    (Some(open), Some(close)) if open < close => {
                        let keyword = &header[..=open];
                        let one_line = keyword.split_whitespace().collect::<Vec<_>>().join(" ");
                        return format!(
                            "{one_line}{})",
                            syntax::shorten_code(
                                &header[open + 1..close],
                                max.saturating_sub(one_line.chars().count() + 1).max(8)
                            )
                        );
                    }
                    _ => return syntax::shorten_code(header, max),
                }
            }
        };
        format!(
            "{keyword}{})",
            syntax::shorten_code(
                inner,
                max.saturating_sub(keyword.chars().count() + 1).max(8)
            )
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Imported {
    Named(String),
    Default,
    Namespace,
}

#[derive(Debug, Clone)]
pub struct Import {
    pub local: BindingId,
    pub source: String,
    pub imported: Imported,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Export<'t> {
    pub name: String,
    /// `export { x } from './y.js'`: the module re-exported from.
    pub source: Option<String>,
    /// The exported value: an identifier, a function or another expression.
    pub value: Option<Node<'t>>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EffectKind {
    Task,
    Breakpoint,
    ParallelAll,
    ParallelMap,
    SleepUntil,
    Halt,
    Log,
    Now,
    /// Any other method on the context (`ctx.orchestratorTask`, typos…).
    Other,
}

impl EffectKind {
    /// Methods that dispatch an effect (and may throw the SDK's pending signal).
    pub fn dispatches(self) -> bool {
        matches!(
            self,
            EffectKind::Task
                | EffectKind::Breakpoint
                | EffectKind::ParallelAll
                | EffectKind::ParallelMap
                | EffectKind::SleepUntil
        )
    }
}

#[derive(Debug)]
pub struct Effect {
    pub call: CallId,
    pub kind: EffectKind,
    /// `task`, `breakpoint`, `parallel.map`, …
    pub method: String,
}

#[derive(Debug)]
pub struct TaskDef<'t> {
    pub call: CallId,
    /// The literal task id, when it is one.
    pub id: Option<String>,
    /// The id argument (or the whole call when there is none).
    pub id_node: Node<'t>,
    pub factory: Option<FnId>,
    /// Object literals the definition is built from (every `return {…}` of
    /// the factory, or the single-object form).
    pub objects: Vec<Node<'t>>,
    /// Variable the definition is assigned to.
    pub binding: Option<BindingId>,
    /// Per object of `objects` (same order): its `kind` property, if it has
    /// one. Read once here so rules ask the definition, not the syntax.
    pub kinds: Vec<Option<TaskKind<'t>>>,
}

/// A definition object's `kind` property.
#[derive(Debug)]
pub struct TaskKind<'t> {
    /// The property's value (`'shell'`, or an expression).
    pub value: Node<'t>,
    /// The value as a string, when it is a literal.
    pub literal: Option<String>,
}

impl<'t> TaskDef<'t> {
    /// The task's kind when every definition object gives the same literal
    /// one: a factory with one return of `kind: 'shell'` and another of
    /// `kind: 'agent'`, or a computed kind, has none.
    pub fn literal_kind(&self) -> Option<&str> {
        let mut kinds = self.kinds.iter().map(|k| k.as_ref()?.literal.as_deref());
        let first = kinds.next()??;
        kinds.all(|k| k == Some(first)).then_some(first)
    }

    /// The `kind` value of the first definition object whose kind is the
    /// literal `kind`: where a finding about that kind points. Unlike
    /// [`TaskDef::literal_kind`], one such object is enough.
    pub fn kind_value_of(&self, kind: &str) -> Option<Node<'t>> {
        self.kinds
            .iter()
            .flatten()
            .find(|k| k.literal.as_deref() == Some(kind))
            .map(|k| k.value)
    }

    /// The literal of the first `kind` any definition object declares (a
    /// computed first one gives none, whatever later objects declare): the
    /// kind that facts and module summaries record.
    pub fn declared_kind(&self) -> Option<&str> {
        self.kinds.iter().flatten().next()?.literal.as_deref()
    }
}

/// How the first argument of a `ctx.task` call resolves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskTarget {
    Local(usize),
    Imported { source: String, name: String },
    Unknown,
}

pub struct JsModel<'t> {
    pub file: &'t SourceFile,
    pub tree: &'t Tree,
    pub scopes: Scopes<'t>,
    pub functions: Vec<Function<'t>>,
    pub calls: Vec<Call<'t>>,
    pub loops: Vec<Loop<'t>>,
    pub imports: Vec<Import>,
    pub exports: Vec<Export<'t>>,
    pub task_defs: Vec<TaskDef<'t>>,
    pub effects: Vec<Effect>,
    /// Bindings that hold the process context.
    pub contexts: IdSet<BindingId>,
    /// Bindings that hold a task-build context (second factory parameter).
    pub task_contexts: IdSet<BindingId>,
    /// Calls on a task-build context (`taskCtx.task(…)` is a mistake).
    pub task_context_calls: Vec<CallId>,
    /// First syntax error, if any.
    pub syntax_errors: Vec<Span>,
    /// Identifiers read (or written) where no enclosing scope of this module
    /// binds the name, in source order: globals, or `ReferenceError`s.
    pub unresolved: Vec<Node<'t>>,
    /// Set when nesting exceeded [`MAX_DEPTH`].
    pub depth_limited: Option<Span>,
    /// Every `new …` expression, in source order.
    pub new_expressions: Vec<Node<'t>>,
    /// Every member expression whose property is `env` (`process.env`
    /// candidates), in source order.
    pub env_members: Vec<Node<'t>>,
    /// String and template literals whose text holds `{{` or `${`, in
    /// source order.
    pub placeholder_strings: Vec<Node<'t>>,
    fn_by_node: IdMap<usize, FnId>,
    call_by_node: IdMap<usize, CallId>,
    /// Per element of an array literal passed to `ctx.parallel.all`: its
    /// position (comments not counted). Counting siblings per element made
    /// one batch of n thunks quadratic in the result flow.
    batch_positions: IdMap<usize, usize>,
    /// Per function: the calls in this module whose callee is it.
    call_sites: Vec<Vec<CallId>>,
    /// Per function: the exports (indices into `exports`) that are it.
    exported_as: Vec<Vec<usize>>,
    context_names: Vec<String>,
}

impl<'t> JsModel<'t> {
    pub fn build(file: &'t SourceFile, tree: &'t Tree, options: &ModelOptions) -> JsModel<'t> {
        let mut b = Builder {
            src: &file.text,
            scopes: Scopes::default(),
            functions: Vec::new(),
            calls: Vec::new(),
            loops: Vec::new(),
            imports: Vec::new(),
            exports: Vec::new(),
            refs: Vec::new(),
            unresolved: Vec::new(),
            fn_stack: Vec::new(),
            loop_stack: Vec::new(),
            depth_limited: None,
            fn_by_node: IdMap::default(),
        };
        let lists = KindLists::build(tree, &file.text);
        b.calls.reserve_exact(lists.call_count);
        let root = tree.root_node();
        let program = b.scopes.new_scope(ScopeKind::Program, None);
        b.visit_children(root, program, 0);
        b.resolve();
        let mut syntax_errors = Vec::new();
        if root.has_error() {
            collect_errors(root, &mut syntax_errors);
        }
        // Source order (the walk is nearly pre-order already; class
        // heritage is visited after the body). Lookups binary-search on it.
        b.calls.sort_by_key(|c| c.node.start_byte());
        let call_by_node = b
            .calls
            .iter()
            .enumerate()
            .map(|(i, c)| (c.node.id(), i))
            .collect();
        let mut m = JsModel {
            file,
            tree,
            scopes: b.scopes,
            functions: b.functions,
            calls: b.calls,
            loops: b.loops,
            imports: b.imports,
            exports: b.exports,
            task_defs: Vec::new(),
            effects: Vec::new(),
            contexts: IdSet::default(),
            task_contexts: IdSet::default(),
            task_context_calls: Vec::new(),
            syntax_errors,
            unresolved: std::mem::take(&mut b.unresolved),
            depth_limited: b.depth_limited,
            fn_by_node: b.fn_by_node,
            call_by_node,
            batch_positions: IdMap::default(),
            call_sites: Vec::new(),
            exported_as: Vec::new(),
            new_expressions: lists.new_expressions,
            env_members: lists.env_members,
            placeholder_strings: lists.placeholder_strings,
            context_names: options.context_names.clone(),
        };
        m.index_call_sites();
        m.find_task_defs();
        m.find_contexts();
        m.find_effects();
        m
    }

    /// The member expression `node.x` whose object is `node` itself (not
    /// one where `node` is the property), for reads of a binding's members.
    pub fn member_of_object(&self, node: Node<'t>) -> Option<Node<'t>> {
        node.parent()
            .filter(|p| p.kind_str() == "member_expression")
            .filter(|p| p.field("object").map(|o| o.id()) == Some(node.id()))
    }

    pub fn src(&self) -> &'t str {
        &self.file.text
    }

    pub fn text(&self, node: Node<'t>) -> &'t str {
        text(node, &self.file.text)
    }

    /// The position of `node` among the arguments `args` of a call (comments
    /// not counted), from the call's recorded arguments when it has them.
    pub fn arg_position(&self, args: Node<'t>, node: Node<'t>) -> usize {
        let recorded = args
            .parent()
            .and_then(|call| self.call_of_node(call))
            .and_then(|ci| self.calls[ci].args.iter().position(|a| a.id() == node.id()));
        recorded.unwrap_or_else(|| syntax::arg_index(args, node))
    }

    /// The position of `node` among the elements of the array literal
    /// `list` (comments not counted).
    pub fn element_position(&self, list: Node<'t>, node: Node<'t>) -> usize {
        if let Some(&at) = self.batch_positions.get(&node.id()) {
            return at;
        }
        list.named()
            .filter(|c| c.kind_str() != "comment")
            .position(|c| c.id() == node.id())
            .unwrap_or(0)
    }

    pub fn function_of_node(&self, node: Node) -> Option<FnId> {
        self.fn_by_node.get(&node.id()).copied()
    }

    pub fn call_of_node(&self, node: Node) -> Option<CallId> {
        self.call_by_node.get(&node.id()).copied()
    }

    /// The function an expression denotes: a function literal, or an
    /// identifier bound to a function declaration or a const function.
    pub fn function_of_expr(&self, node: Node) -> Option<FnId> {
        let node = unparen(node);
        if let Some(f) = self.function_of_node(node) {
            return Some(f);
        }
        // `module.exports = { process }` names the function by shorthand.
        if matches!(
            node.kind_str(),
            "identifier" | "shorthand_property_identifier"
        ) {
            let b = self.scopes.get(self.scopes.binding_of(node)?);
            if let Some(f) = b.function {
                return Some(f);
            }
            if b.kind != BindingKind::Param {
                return b.init.and_then(|init| self.function_of_node(unparen(init)));
            }
        }
        None
    }

    /// The binding an identifier expression resolves to.
    pub fn binding_of_expr(&self, node: Node) -> Option<BindingId> {
        let node = unparen(node);
        if node.kind_str() == "identifier" || node.kind_str() == "shorthand_property_identifier" {
            self.scopes.binding_of(node)
        } else {
            None
        }
    }

    /// Whether an expression denotes the process context.
    pub fn is_context_expr(&self, node: Node) -> bool {
        let node = unparen(node);
        if node.kind_str() != "identifier" {
            return false;
        }
        match self.scopes.binding_of(node) {
            Some(b) => self.contexts.contains(&b),
            // A free `ctx` (script-style processes) is still a context.
            None => self.context_names.iter().any(|n| n == self.text(node)),
        }
    }

    pub fn import_of(&self, binding: BindingId) -> Option<&Import> {
        self.imports.iter().find(|i| i.local == binding)
    }

    /// Resolves the first argument of a `ctx.task` call.
    pub fn task_target(&self, node: Node) -> TaskTarget {
        let node = unparen(node);
        match node.kind_str() {
            "identifier" => {
                let Some(b) = self.scopes.binding_of(node) else {
                    return TaskTarget::Unknown;
                };
                if let Some(i) = self.task_defs.iter().position(|t| t.binding == Some(b)) {
                    return TaskTarget::Local(i);
                }
                if let Some(imp) = self.import_of(b) {
                    if let Imported::Named(name) = &imp.imported {
                        return TaskTarget::Imported {
                            source: imp.source.clone(),
                            name: name.clone(),
                        };
                    }
                }
                TaskTarget::Unknown
            }
            "member_expression" => {
                // `tasks.reviewTask` with `import * as tasks from './tasks.js'`.
                let (Some(obj), Some(prop)) = (node.field("object"), node.field("property")) else {
                    return TaskTarget::Unknown;
                };
                let Some(b) = self.binding_of_expr(obj) else {
                    return TaskTarget::Unknown;
                };
                match self.import_of(b) {
                    Some(imp) if imp.imported != Imported::Named(String::new()) => {
                        if matches!(imp.imported, Imported::Namespace | Imported::Default) {
                            TaskTarget::Imported {
                                source: imp.source.clone(),
                                name: self.text(prop).to_string(),
                            }
                        } else {
                            TaskTarget::Unknown
                        }
                    }
                    _ => TaskTarget::Unknown,
                }
            }
            "call_expression" => {
                // `ctx.task(defineTask(...), …)`
                match self.call_of_node(node) {
                    Some(c) => self
                        .task_defs
                        .iter()
                        .position(|t| t.call == c)
                        .map(TaskTarget::Local)
                        .unwrap_or(TaskTarget::Unknown),
                    None => TaskTarget::Unknown,
                }
            }
            _ => TaskTarget::Unknown,
        }
    }

    /// The effect a call is, if any. Effects are recorded in call order, so
    /// this is a binary search (rules ask per call; a scan was quadratic).
    pub fn effect_of_call(&self, call: CallId) -> Option<&Effect> {
        self.effects
            .binary_search_by_key(&call, |e| e.call)
            .ok()
            .and_then(|i| self.effects.get(i))
    }

    /// Effects of a kind, in source order.
    pub fn effects_of(&self, kind: EffectKind) -> impl Iterator<Item = &Effect> {
        self.effects.iter().filter(move |e| e.kind == kind)
    }

    pub fn is_sdk_import(&self, binding: BindingId, name: &str) -> bool {
        self.import_of(binding).is_some_and(|i| {
            SDK_PACKAGES.iter().any(|p| i.source.starts_with(p))
                && i.imported == Imported::Named(name.to_string())
        })
    }

    /// Object literals a function returns (arrow expression bodies and
    /// `return {…}` statements that belong to the function itself).
    pub fn returned_objects(&self, f: FnId) -> Vec<Node<'t>> {
        let mut out = Vec::new();
        let node = self.functions[f].node;
        let Some(body) = node.field("body") else {
            return out;
        };
        if body.kind_str() != "statement_block" {
            if let Some(o) = self.object_of_expr(body) {
                out.push(o);
            }
            return out;
        }
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            if n.kind_str() == "return_statement" {
                if let Some(o) = n.named_child(0).and_then(|v| self.object_of_expr(v)) {
                    out.push(o);
                }
                continue;
            }
            for child in n.named() {
                if !syntax::is_function(child) {
                    stack.push(child);
                }
            }
        }
        out.sort_by_key(|n| n.start_byte());
        out
    }

    /// An object literal an expression evaluates to: the literal itself or a
    /// `const` bound to one.
    pub fn object_of_expr(&self, node: Node<'t>) -> Option<Node<'t>> {
        let node = unparen(node);
        match node.kind_str() {
            "object" => Some(node),
            "identifier" => {
                let b = self.scopes.get(self.scopes.binding_of(node)?);
                if b.kind == BindingKind::Const && b.writes.is_empty() {
                    let init = unparen(b.init?);
                    (init.kind_str() == "object").then_some(init)
                } else {
                    None
                }
            }
            _ => None,
        }
    }
}

impl JsModel<'_> {
    /// The exports that are function `f`.
    pub fn exports_of_fn(&self, f: FnId) -> impl Iterator<Item = &Export<'_>> {
        self.exported_as
            .get(f)
            .into_iter()
            .flatten()
            .filter_map(|&i| self.exports.get(i))
    }

    /// Calls in this module whose callee is function `f` (by name or
    /// literal), in source order.
    pub fn call_sites_of(&self, f: FnId) -> &[CallId] {
        self.call_sites.get(f).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Whether an export name is the process entry (`process` or default).
    pub fn is_process_export(&self, name: &str) -> bool {
        name == "process" || name == "default"
    }
}
