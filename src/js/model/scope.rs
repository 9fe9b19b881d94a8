//! Lexical scopes, bindings and resolved references.

use crate::js::syntax::ids::IdMap;

use crate::js::syntax::tree::Node;

pub type ScopeId = usize;
pub type BindingId = usize;
pub type FnId = usize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    Program,
    Function,
    Block,
}

#[derive(Debug)]
pub struct Scope {
    pub kind: ScopeKind,
    pub parent: Option<ScopeId>,
    pub names: IdMap<String, BindingId>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindingKind {
    Var,
    Let,
    Const,
    Param,
    Function,
    Class,
    Import,
    CatchParam,
}

#[derive(Debug)]
pub struct Binding<'t> {
    pub name: String,
    pub kind: BindingKind,
    /// The declaring identifier.
    pub node: Node<'t>,
    pub scope: ScopeId,
    /// The initialiser when declared as `name = <init>` by a plain
    /// identifier declarator (not through a destructuring pattern).
    pub init: Option<Node<'t>>,
    /// For parameters: the function and position.
    pub param: Option<(FnId, usize)>,
    /// For function declarations: the function.
    pub function: Option<FnId>,
    /// Read references (writes excluded).
    pub reads: Vec<Node<'t>>,
    /// Indices into `reads` of the reads that do not push onto the value
    /// (`list.push(x)`, `list.unshift(x)`): a walk that follows an element
    /// into a list visits only these, so thousands of results pushed into
    /// one list are not each walked over every push.
    pub other_reads: Vec<u32>,
    /// Write references (assignment targets, `++`/`--`).
    pub writes: Vec<Node<'t>>,
}

#[derive(Debug, Default)]
pub struct Scopes<'t> {
    pub scopes: Vec<Scope>,
    pub bindings: Vec<Binding<'t>>,
    /// Identifier node id → binding it resolves to.
    pub resolved: IdMap<usize, BindingId>,
}

impl<'t> Scopes<'t> {
    pub fn new_scope(&mut self, kind: ScopeKind, parent: Option<ScopeId>) -> ScopeId {
        self.scopes.push(Scope {
            kind,
            parent,
            names: IdMap::default(),
        });
        self.scopes.len() - 1
    }

    /// Nearest enclosing function (or program) scope, where `var` lands.
    pub fn function_scope(&self, mut scope: ScopeId) -> ScopeId {
        loop {
            let s = &self.scopes[scope];
            if s.kind != ScopeKind::Block {
                return scope;
            }
            match s.parent {
                Some(p) => scope = p,
                None => return scope,
            }
        }
    }

    pub fn declare(
        &mut self,
        scope: ScopeId,
        name: &str,
        kind: BindingKind,
        node: Node<'t>,
    ) -> BindingId {
        let scope = if kind == BindingKind::Var {
            self.function_scope(scope)
        } else {
            scope
        };
        if let Some(&existing) = self.scopes[scope].names.get(name) {
            // Redeclaration (`var x` twice, function overloads in sloppy
            // code): keep one binding so reads are not split.
            self.resolved.insert(node.id(), existing);
            return existing;
        }
        self.bindings.push(Binding {
            name: name.to_string(),
            kind,
            node,
            scope,
            init: None,
            param: None,
            function: None,
            reads: Vec::new(),
            other_reads: Vec::new(),
            writes: Vec::new(),
        });
        let id = self.bindings.len() - 1;
        self.scopes[scope].names.insert(name.to_string(), id);
        self.resolved.insert(node.id(), id);
        id
    }

    pub fn lookup(&self, mut scope: ScopeId, name: &str) -> Option<BindingId> {
        loop {
            let s = &self.scopes[scope];
            if let Some(&b) = s.names.get(name) {
                return Some(b);
            }
            scope = s.parent?;
        }
    }

    /// The binding an identifier node resolves to, if any.
    pub fn binding_of(&self, ident: Node) -> Option<BindingId> {
        self.resolved.get(&ident.id()).copied()
    }

    pub fn get(&self, id: BindingId) -> &Binding<'t> {
        &self.bindings[id]
    }
}
