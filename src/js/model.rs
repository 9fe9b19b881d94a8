//! The process model of one module, built in a single walk of the syntax
//! tree and then queried by every rule.

use std::collections::HashSet;

use tree_sitter::{Node, Tree};

use super::ids::{IdMap, IdSet};
use super::scope::{BindingId, BindingKind, FnId, ScopeId, ScopeKind, Scopes};
use super::syntax::{self, span, string_value, text, unparen, NodeExt};
use crate::source::{SourceFile, Span};

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
    /// Set when nesting exceeded [`MAX_DEPTH`].
    pub depth_limited: Option<Span>,
    /// Every `new …` expression, in source order.
    pub new_expressions: Vec<Node<'t>>,
    /// Every member expression whose property is `env` (`process.env`
    /// candidates), in source order.
    pub env_members: Vec<Node<'t>>,
    fn_by_node: IdMap<usize, FnId>,
    call_by_node: IdMap<usize, CallId>,
    /// Per function: the calls in this module whose callee is it.
    call_sites: Vec<Vec<CallId>>,
    /// Per function: the exports (indices into `exports`) that are it.
    exported_as: Vec<Vec<usize>>,
    /// Parent and child links. tree-sitter nodes have no parent pointer:
    /// `Node::parent` walks down from the root, which is linear in the
    /// number of top-level statements, so analyses that climb use this.
    index: NodeIndex<'t>,
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
            fn_stack: Vec::new(),
            loop_stack: Vec::new(),
            depth_limited: None,
            fn_by_node: IdMap::default(),
            index: NodeIndex::build(tree.root_node(), &file.text),
        };
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
            depth_limited: b.depth_limited,
            fn_by_node: b.fn_by_node,
            call_by_node,
            call_sites: Vec::new(),
            exported_as: Vec::new(),
            new_expressions: std::mem::take(&mut b.index.new_expressions),
            env_members: std::mem::take(&mut b.index.env_members),
            index: b.index,
            context_names: options.context_names.clone(),
        };
        m.index_call_sites();
        m.find_task_defs();
        m.find_contexts();
        m.find_effects();
        m
    }

    /// A node's parent, in constant time.
    pub fn parent(&self, node: Node<'t>) -> Option<Node<'t>> {
        match self.index.slot(node) {
            // Only the root has no indexed parent, but for a named node under
            // an anonymous one (not in this grammar) ask tree-sitter.
            Some(i) => match self.index.parent_of(i) {
                None if i != 0 => node.parent(),
                p => p,
            },
            // Anonymous nodes (tokens) are not indexed.
            None => node.parent(),
        }
    }

    /// A node's named children (comments included, like tree-sitter's
    /// `named_children`), from the index's child links: stepping a
    /// tree-sitter cursor costs hundreds of instructions per sibling.
    pub fn named_children(&self, node: Node<'t>) -> NamedChildren<'_, 't> {
        self.index.named_children(node)
    }

    pub fn src(&self) -> &'t str {
        &self.file.text
    }

    pub fn text(&self, node: Node) -> &'t str {
        text(node, &self.file.text)
    }

    /// The position of `node` among the arguments `args` of a call (comments
    /// not counted), from the call's recorded arguments when it has them.
    pub fn arg_position(&self, args: Node<'t>, node: Node<'t>) -> usize {
        let recorded = self
            .parent(args)
            .and_then(|call| self.call_of_node(call))
            .and_then(|ci| self.calls[ci].args.iter().position(|a| a.id() == node.id()));
        recorded.unwrap_or_else(|| syntax::arg_index(args, node))
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
        if node.kind_str() == "identifier" {
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

    fn find_task_defs(&mut self) {
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
                    id_node = crate::js::objects::property(self, obj, "id")
                        .or_else(|| crate::js::objects::property(self, obj, "name"))
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
            self.task_defs.push(TaskDef {
                call: ci,
                id,
                id_node,
                factory,
                objects,
                binding,
            });
        }
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
            for child in self.named_children(n) {
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

    fn find_contexts(&mut self) {
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

    fn find_effects(&mut self) {
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
    }
}

const NONE: u32 = u32::MAX;

/// What one pre-order walk of the whole tree records: the named nodes with
/// parent and child links (so neither the model walk nor the analyses that
/// climb need a tree-sitter cursor or `Node::parent`), and the few node
/// kinds rules look up by kind.
#[derive(Default)]
pub struct NodeIndex<'t> {
    /// Named nodes in pre-order.
    nodes: Vec<Node<'t>>,
    /// Node id → position in `nodes`.
    slots: IdMap<usize, u32>,
    parent: Vec<u32>,
    first_child: Vec<u32>,
    next_sibling: Vec<u32>,
    new_expressions: Vec<Node<'t>>,
    env_members: Vec<Node<'t>>,
    /// Strings are indexed, their children are not.
    string_kind: u16,
}

impl<'t> NodeIndex<'t> {
    /// One cursor, no recursion (nesting depth is input) and no per-node
    /// allocation.
    fn build(root: Node<'t>, src: &str) -> NodeIndex<'t> {
        let mut index = NodeIndex::default();
        let new_kind = root.language().id_for_node_kind("new_expression", true);
        let member_kind = root.language().id_for_node_kind("member_expression", true);
        let string_kind = root.language().id_for_node_kind("string", true);
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
        self.slots.insert(node.id(), slot);
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

    fn named_children(&self, node: Node<'t>) -> NamedChildren<'_, 't> {
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

    fn slot(&self, node: Node) -> Option<usize> {
        self.slots.get(&node.id()).map(|&i| i as usize)
    }

    fn parent_of(&self, slot: usize) -> Option<Node<'t>> {
        match self.parent.get(slot) {
            Some(&p) if p != NONE => self.nodes.get(p as usize).copied(),
            _ => None,
        }
    }
}

/// See [`JsModel::named_children`]. A node whose children the index does
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

/// The variable a call's value is declared into (`const x = call(…)`,
/// `export const x = call(…)`).
fn declared_binding(m: &JsModel, call: Node) -> Option<BindingId> {
    let scopes = &m.scopes;
    let mut n = call;
    while let Some(p) = m.parent(n) {
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

fn collect_errors(root: Node, out: &mut Vec<Span>) {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if !n.has_error() {
            continue;
        }
        if n.is_error() || n.is_missing() {
            out.push(span(n));
            continue;
        }
        let mut cursor = n.walk();
        for child in n.children(&mut cursor) {
            stack.push(child);
        }
    }
    out.sort();
}

struct Ref<'t> {
    node: Node<'t>,
    scope: ScopeId,
    read: bool,
    write: bool,
}

struct Builder<'s, 't> {
    src: &'s str,
    scopes: Scopes<'t>,
    functions: Vec<Function<'t>>,
    calls: Vec<Call<'t>>,
    loops: Vec<Loop<'t>>,
    imports: Vec<Import>,
    exports: Vec<Export<'t>>,
    refs: Vec<Ref<'t>>,
    fn_stack: Vec<FnId>,
    loop_stack: Vec<LoopId>,
    depth_limited: Option<Span>,
    fn_by_node: IdMap<usize, FnId>,
    index: NodeIndex<'t>,
}

impl<'t> Builder<'_, 't> {
    fn visit_children(&mut self, node: Node<'t>, scope: ScopeId, depth: usize) {
        if let Some(i) = self.index.slot(node) {
            let mut child = self.index.first_child[i];
            while child != NONE {
                let c = child as usize;
                self.visit(self.index.nodes[c], scope, depth + 1);
                child = self.index.next_sibling[c];
            }
            return;
        }
        let mut cursor = node.walk();
        if !cursor.goto_first_child() {
            return;
        }
        loop {
            let child = cursor.node();
            if child.is_named() {
                self.visit(child, scope, depth + 1);
            }
            if !cursor.goto_next_sibling() {
                break;
            }
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
                let decls: Vec<Node<'t>> = self.index.named_children(node).collect();
                for d in decls {
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
                    .map(|a| {
                        self.index
                            .named_children(a)
                            .filter(|n| n.kind_str() != "comment")
                            .collect()
                    })
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
        let parent = self.index.slot(node).and_then(|i| self.index.parent_of(i));
        let name = function_name(node, parent, self.src);
        let is_async = {
            let mut c = node.walk();
            let found = node
                .children(&mut c)
                .any(|ch| !ch.is_named() && text(ch, self.src) == "async");
            found
        };
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
            self.index
                .named_children(p)
                .filter(|n| n.kind_str() != "comment")
                .collect()
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
                let children: Vec<Node<'t>> = self.index.named_children(node).collect();
                for child in children {
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
                if let Some(inner) = node.named_child(0) {
                    self.assign_target(inner, scope, depth + 1, also_read);
                }
            }
            "object_pattern" | "array_pattern" => {
                let children: Vec<Node<'t>> = self.index.named_children(node).collect();
                for child in children {
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
        let clause = self
            .index
            .named_children(node)
            .find(|n| n.kind_str() == "import_clause");
        let Some(clause) = clause else { return };
        let parts: Vec<Node<'t>> = self.index.named_children(clause).collect();
        for part in parts {
            match part.kind_str() {
                "identifier" => self.add_import(part, scope, &source, Imported::Default),
                "namespace_import" => {
                    if let Some(id) = part.named_child(0) {
                        self.add_import(id, scope, &source, Imported::Namespace);
                    }
                }
                "named_imports" => {
                    let specs: Vec<Node<'t>> = self.index.named_children(part).collect();
                    for spec in specs {
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
                let children: Vec<Node<'t>> = self.index.named_children(name).collect();
                for child in children {
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
        let is_default = {
            let mut c = node.walk();
            let found = node
                .children(&mut c)
                .any(|ch| !ch.is_named() && text(ch, self.src) == "default");
            found
        };
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
                    let decls: Vec<Node<'t>> = self.index.named_children(decl).collect();
                    for d in decls {
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
        let children: Vec<Node<'t>> = self.index.named_children(node).collect();
        for child in children {
            if child.kind_str() != "export_clause" {
                continue;
            }
            let specs: Vec<Node<'t>> = self.index.named_children(child).collect();
            for spec in specs {
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
                let props: Vec<Node<'t>> = self.index.named_children(right).collect();
                for p in props {
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

    fn resolve(&mut self) {
        for r in std::mem::take(&mut self.refs) {
            let name = text(r.node, self.src);
            let Some(b) = self.scopes.lookup(r.scope, name) else {
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
    }
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

impl JsModel<'_> {
    fn index_call_sites(&mut self) {
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

    /// A binding some read of which calls a context method, reads a context
    /// property, or passes it on to another function.
    fn used_like_context(&self, b: BindingId) -> bool {
        self.used_like_context_at(b, 0)
    }

    fn used_like_context_at(&self, b: BindingId, depth: usize) -> bool {
        self.scopes.get(b).reads.iter().any(|r| {
            let Some(parent) = self.parent(*r) else {
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
                            super::context_api::CONTEXT_METHODS.iter().any(head)
                                || super::context_api::CONTEXT_PROPERTIES.contains(&p)
                        })
                }
                _ => false,
            }
        })
    }

    /// Whether an export name is the process entry (`process` or default).
    pub fn is_process_export(&self, name: &str) -> bool {
        name == "process" || name == "default"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index's parent and child links (with their fallbacks for nodes
    /// it does not hold, such as a string's fragments) agree with
    /// tree-sitter's own navigation on every node of every JavaScript
    /// fixture.
    #[test]
    fn index_links_agree_with_tree_sitter() {
        let (mut files, mut nodes, mut unindexed) = (0, 0, 0);
        for file in syntax::fixture_files() {
            let Some(tree) = super::super::parse::parse(&file.text) else {
                continue;
            };
            let m = JsModel::build(&file, &tree, &ModelOptions::default());
            files += 1;
            syntax::each_node(&tree, |n| {
                if !n.is_named() {
                    return;
                }
                nodes += 1;
                if m.index.slot(n).is_none() {
                    unindexed += 1;
                }
                assert_eq!(m.parent(n), n.parent(), "{}: parent of {n:?}", file.path);
                let mut c = n.walk();
                let expected: Vec<Node> = n.named_children(&mut c).collect();
                let got: Vec<Node> = m.named_children(n).collect();
                assert_eq!(got, expected, "{}: children of {n:?}", file.path);
            });
        }
        assert!(files > 50 && nodes > 10_000, "{files} files, {nodes} nodes");
        assert!(unindexed > 0, "string fragments exercise the fallbacks");
    }
}
