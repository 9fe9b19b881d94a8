//! The program, statements, declarations and modules' imports and exports.

use oxc_ast::ast::*;
use oxc_span::{GetSpan, Span};

use super::*;

impl Writer<'_> {
    pub(super) fn program(&mut self, p: &Program) {
        let k = self.k;
        let start = self.skip_ws(0);
        self.out.open(k.program, NO_FIELD, start);
        self.pos = start;
        if let Some(h) = &p.hashbang {
            // tree-sitter's `#!.*` runs to `\n`, over a `\r` and other breaks.
            let (start, end) = (h.span.start as usize, h.span.end as usize);
            let line_end =
                memchr::memchr(b'\n', &self.bytes[start..]).map_or(self.bytes.len(), |i| start + i);
            let rest = &self.bytes[end.min(line_end)..line_end];
            if !(rest.is_empty() || rest == b"\r") {
                self.fail(line!());
                return;
            }
            self.leaf(
                k.hash_bang_line,
                NO_FIELD,
                Span::new(h.span.start, line_end as u32),
            );
        }
        for d in &p.directives {
            self.directive(d);
        }
        for s in &p.body {
            self.statement(s, NO_FIELD);
        }
        self.gap(self.bytes.len());
        self.out.close(self.bytes.len());
    }

    pub(super) fn directive(&mut self, d: &Directive) {
        self.open(self.k.expression_statement, NO_FIELD, d.span.start as usize);
        self.string(&d.expression.span, NO_FIELD);
        self.close_semicolon(d.span, After::Expression);
    }

    pub(super) fn statement(&mut self, s: &Statement, field: u8) {
        if self.failed() || self.too_deep() {
            return;
        }
        let (k, f) = (self.k, self.f);
        match s {
            Statement::BlockStatement(b) => {
                // An empty block is also an empty object to tree-sitter,
                // whose reading as an expression lets `||` follow it.
                let after = if b.body.is_empty() {
                    After::Expression
                } else {
                    After::Other
                };
                self.block(b.span, &[], &b.body, field, after)
            }
            Statement::BreakStatement(b) => {
                self.open(k.break_statement, field, b.span.start as usize);
                if let Some(l) = &b.label {
                    self.leaf(k.statement_identifier, f.label, l.span);
                }
                self.close_semicolon(b.span, After::Other);
            }
            Statement::ContinueStatement(b) => {
                self.open(k.continue_statement, field, b.span.start as usize);
                if let Some(l) = &b.label {
                    self.leaf(k.statement_identifier, f.label, l.span);
                }
                self.close_semicolon(b.span, After::Other);
            }
            Statement::DebuggerStatement(d) => {
                self.open(k.debugger_statement, field, d.span.start as usize);
                self.close_semicolon(d.span, After::Other);
            }
            Statement::DoWhileStatement(d) => {
                self.open(k.do_statement, field, d.span.start as usize);
                self.statement(&d.body, f.body);
                self.parenthesized(&d.test, f.condition);
                let end = d.span.end as usize;
                if self.bytes.get(end.wrapping_sub(1)) == Some(&b';') && end > self.pos {
                    self.close(end);
                } else {
                    self.close_optional_asi(end, After::Other);
                }
            }
            Statement::EmptyStatement(e) => self.empty_statement(e.span.start as usize, field),
            Statement::ExpressionStatement(e) => {
                self.open(k.expression_statement, field, e.span.start as usize);
                self.expression(&e.expression, NO_FIELD);
                self.close_semicolon(e.span, After::Expression);
            }
            Statement::ForInStatement(x) => {
                self.for_in(x.span, false, &x.left, &x.right, &x.body, field)
            }
            Statement::ForOfStatement(x) => {
                self.for_in(x.span, x.r#await, &x.left, &x.right, &x.body, field)
            }
            Statement::ForStatement(x) => self.for_statement(x, field),
            Statement::IfStatement(x) => {
                self.open(k.if_statement, field, x.span.start as usize);
                self.parenthesized(&x.test, f.condition);
                self.statement(&x.consequent, f.consequence);
                if let Some(alt) = &x.alternate {
                    let at = self.find(self.pos, "else");
                    self.open(k.else_clause, f.alternative, at);
                    self.statement(alt, NO_FIELD);
                    self.close(alt.span().end as usize);
                }
                self.close(x.span.end as usize);
            }
            Statement::LabeledStatement(x) => {
                self.open(k.labeled_statement, field, x.span.start as usize);
                self.leaf(k.statement_identifier, f.label, x.label.span);
                self.statement(&x.body, f.body);
                self.close(x.span.end as usize);
            }
            Statement::ReturnStatement(x) => {
                self.open(k.return_statement, field, x.span.start as usize);
                let after = match &x.argument {
                    Some(a) => {
                        self.expression(a, NO_FIELD);
                        After::Expression
                    }
                    None => After::Other,
                };
                self.close_semicolon(x.span, after);
            }
            Statement::SwitchStatement(x) => self.switch(x, field),
            Statement::ThrowStatement(x) => {
                self.open(k.throw_statement, field, x.span.start as usize);
                self.expression(&x.argument, NO_FIELD);
                self.close_semicolon(x.span, After::Expression);
            }
            Statement::TryStatement(x) => {
                self.open(k.try_statement, field, x.span.start as usize);
                self.block(x.block.span, &[], &x.block.body, f.body, After::Other);
                if let Some(h) = &x.handler {
                    self.open(k.catch_clause, f.handler, h.span.start as usize);
                    if let Some(p) = &h.param {
                        self.binding(&p.pattern, f.parameter);
                    }
                    self.block(h.body.span, &[], &h.body.body, f.body, After::Other);
                    self.close(h.span.end as usize);
                }
                if let Some(fin) = &x.finalizer {
                    let at = self.find(self.pos, "finally");
                    self.open(k.finally_clause, f.finalizer, at);
                    self.block(fin.span, &[], &fin.body, f.body, After::Other);
                    self.close(fin.span.end as usize);
                }
                self.close(x.span.end as usize);
            }
            Statement::WhileStatement(x) => {
                self.open(k.while_statement, field, x.span.start as usize);
                self.parenthesized(&x.test, f.condition);
                self.statement(&x.body, f.body);
                self.close(x.span.end as usize);
            }
            Statement::WithStatement(x) => {
                self.open(k.with_statement, field, x.span.start as usize);
                self.parenthesized(&x.object, f.object);
                self.statement(&x.body, f.body);
                self.close(x.span.end as usize);
            }
            Statement::VariableDeclaration(d) => self.declaration(d, field, false),
            // A declaration statement is also an expression statement to
            // tree-sitter's GLR parser, whose reading lets `||` follow it.
            Statement::FunctionDeclaration(func) => {
                self.function(func, field, true, After::Expression)
            }
            Statement::ClassDeclaration(c) => self.class(c, field, true, After::Expression),
            Statement::ImportDeclaration(x) => self.import(x, field),
            Statement::ExportNamedDeclaration(x) => {
                self.open(k.export_statement, field, x.span.start as usize);
                self.export_clause(&x.specifiers);
                self.close_semicolon(x.span, After::Other);
            }
            Statement::ExportFromDeclaration(x) => {
                if x.with_clause.is_some() {
                    self.fail(line!());
                    return;
                }
                self.open(k.export_statement, field, x.span.start as usize);
                self.export_clause(&x.specifiers);
                self.string(&x.source.span, f.source);
                self.close_semicolon(x.span, After::Other);
            }
            Statement::ExportDeclaration(x) => {
                self.open(k.export_statement, field, x.span.start as usize);
                match &x.declaration {
                    Declaration::VariableDeclaration(d) => {
                        self.declaration(d, f.declaration, false)
                    }
                    Declaration::FunctionDeclaration(func) => {
                        self.function(func, f.declaration, true, After::Other)
                    }
                    Declaration::ClassDeclaration(c) => {
                        self.class(c, f.declaration, true, After::Other)
                    }
                    _ => self.fail(line!()),
                }
                self.close(x.span.end as usize);
            }
            Statement::ExportDefaultDeclaration(x) => {
                self.open(k.export_statement, field, x.span.start as usize);
                match &x.declaration {
                    ExportDefaultDeclarationKind::FunctionDeclaration(func)
                        if func.id.is_some() =>
                    {
                        self.function(func, f.declaration, true, After::Expression);
                        self.close(x.span.end as usize);
                    }
                    ExportDefaultDeclarationKind::FunctionDeclaration(func) => {
                        self.function(func, f.value, false, After::Expression);
                        self.close_semicolon(x.span, After::Expression);
                    }
                    ExportDefaultDeclarationKind::ClassDeclaration(c) if c.id.is_some() => {
                        self.class(c, f.declaration, true, After::Expression);
                        self.close(x.span.end as usize);
                    }
                    ExportDefaultDeclarationKind::ClassDeclaration(c) => {
                        self.class(c, f.value, false, After::Expression);
                        self.close_semicolon(x.span, After::Expression);
                    }
                    ExportDefaultDeclarationKind::TSInterfaceDeclaration(_) => self.fail(line!()),
                    e => {
                        if let Some(e) = e.as_expression() {
                            self.expression(e, f.value);
                        } else {
                            self.fail(line!());
                        }
                        self.close_semicolon(x.span, After::Expression);
                    }
                }
            }
            Statement::ExportAllDeclaration(x) => {
                if x.with_clause.is_some() {
                    self.fail(line!());
                    return;
                }
                self.open(k.export_statement, field, x.span.start as usize);
                if let Some(name) = &x.exported {
                    let at = self.find(self.pos, "*");
                    self.open(k.namespace_export, NO_FIELD, at);
                    self.module_export_name(name, NO_FIELD);
                    self.close(name.span().end as usize);
                }
                self.string(&x.source.span, f.source);
                self.close_semicolon(x.span, After::Other);
            }
            _ => self.fail(line!()),
        }
    }

    /// A statement block: `{`, the directives and statements, `}`.
    pub(super) fn block(
        &mut self,
        span: Span,
        directives: &[Directive],
        body: &[Statement],
        field: u8,
        after: After,
    ) {
        if directives.is_empty() && body.first().is_some_and(object_like) {
            // tree-sitter reads `{ a: 1 }` as an object literal.
            self.fail(line!());
            return;
        }
        self.open(self.k.statement_block, field, span.start as usize);
        for d in directives {
            self.directive(d);
        }
        for s in body {
            self.statement(s, NO_FIELD);
        }
        self.close_optional_asi(span.end as usize, after);
    }

    pub(super) fn function_body(&mut self, body: Option<&FunctionBody>, field: u8, after: After) {
        match body {
            Some(b) => self.block(b.span, &b.directives, &b.statements, field, after),
            None => self.fail(line!()),
        }
    }

    /// `;` alone (tree-sitter's node holds the token).
    pub(super) fn empty_statement(&mut self, at: usize, field: u8) {
        self.open(self.k.empty_statement, field, at);
        self.close(at + 1);
    }

    /// `( expression )` where the grammar has a parenthesized condition the
    /// AST leaves out.
    pub(super) fn parenthesized(&mut self, e: &Expression, field: u8) {
        let open = self.find(self.pos, "(");
        self.open(self.k.parenthesized_expression, field, open);
        self.expression(e, NO_FIELD);
        let close = self.find(self.pos, ")");
        self.close(close + 1);
    }

    pub(super) fn declaration(&mut self, d: &VariableDeclaration, field: u8, in_for: bool) {
        let (k, f) = (self.k, self.f);
        let kind = match d.kind {
            VariableDeclarationKind::Var => k.variable_declaration,
            VariableDeclarationKind::Let | VariableDeclarationKind::Const => k.lexical_declaration,
            _ => {
                self.fail(line!());
                return;
            }
        };
        let start = d.span.start as usize;
        self.gap(start);
        self.out.open(kind, field, start);
        self.pos = start;
        let first = d.declarations.first().map_or(d.span.end, |x| x.span.start) as usize;
        let kind_field = if kind == k.lexical_declaration {
            f.kind
        } else {
            NO_FIELD
        };
        self.gap_with(first, kind_field);
        let mut after = After::Other;
        for v in &d.declarations {
            self.open(k.variable_declarator, NO_FIELD, v.span.start as usize);
            match &v.id {
                // A declarator's name is an identifier even when it is
                // `undefined` (a pattern's is the `undefined` node).
                BindingPattern::BindingIdentifier(id) if id.name == "undefined" => {
                    self.leaf(k.identifier, f.name, id.span)
                }
                p => self.binding(p, f.name),
            }
            after = After::Other;
            if let Some(init) = &v.init {
                self.expression(init, f.value);
                after = After::Expression;
            }
            self.close(v.span.end as usize);
        }
        if in_for {
            let semi = self.find(self.pos, ";");
            self.close(semi + 1);
        } else {
            self.close_semicolon(d.span, after);
        }
    }

    pub(super) fn for_statement(&mut self, x: &ForStatement, field: u8) {
        let (k, f) = (self.k, self.f);
        self.open(k.for_statement, field, x.span.start as usize);
        match &x.init {
            Some(ForStatementInit::VariableDeclaration(d)) => {
                self.declaration(d, f.initializer, true)
            }
            Some(init) => {
                match init.as_expression() {
                    Some(e) => self.expression(e, f.initializer),
                    None => self.fail(line!()),
                }
                let semi = self.find(self.pos, ";");
                self.gap(semi + 1);
            }
            None => {
                let semi = self.find(self.pos, ";");
                self.empty_statement(semi, f.initializer);
            }
        }
        match &x.test {
            Some(t) => {
                self.expression(t, f.condition);
                let semi = self.find(self.pos, ";");
                self.gap_with(semi + 1, f.condition);
            }
            None => {
                let semi = self.find(self.pos, ";");
                self.empty_statement(semi, f.condition);
            }
        }
        if let Some(u) = &x.update {
            self.expression(u, f.increment);
        }
        self.statement(&x.body, f.body);
        self.close(x.span.end as usize);
    }

    pub(super) fn for_in(
        &mut self,
        span: Span,
        _await: bool,
        left: &ForStatementLeft,
        right: &Expression,
        body: &Statement,
        field: u8,
    ) {
        let (k, f) = (self.k, self.f);
        self.open(k.for_in_statement, field, span.start as usize);
        match left {
            ForStatementLeft::VariableDeclaration(d) => {
                let [v] = d.declarations.as_slice() else {
                    self.fail(line!());
                    return;
                };
                if v.init.is_some()
                    || !matches!(
                        d.kind,
                        VariableDeclarationKind::Var
                            | VariableDeclarationKind::Let
                            | VariableDeclarationKind::Const
                    )
                {
                    self.fail(line!());
                    return;
                }
                let kw = match d.kind {
                    VariableDeclarationKind::Var => "var",
                    VariableDeclarationKind::Let => "let",
                    _ => "const",
                };
                let at = self.find(self.pos, kw);
                self.gap(at);
                self.gap_with(v.span.start as usize, f.kind);
                self.binding(&v.id, f.left);
            }
            target => match target.as_assignment_target() {
                Some(t) => {
                    // The header's `(` is not the target's.
                    let header = self.find(self.pos, "(");
                    self.gap(header + 1);
                    self.no_parenthesized_target(t.span());
                    self.gap(t.span().start as usize);
                    self.assignment_target(t, f.left)
                }
                None => self.fail(line!()),
            },
        }
        self.gap_with(right.span().start as usize, f.operator);
        self.expression(right, f.right);
        self.statement(body, f.body);
        self.close(span.end as usize);
    }

    pub(super) fn switch(&mut self, x: &SwitchStatement, field: u8) {
        let (k, f) = (self.k, self.f);
        self.open(k.switch_statement, field, x.span.start as usize);
        self.parenthesized(&x.discriminant, f.value);
        let brace = self.find(self.pos, "{");
        self.open(k.switch_body, f.body, brace);
        for c in &x.cases {
            let kind = if c.test.is_some() {
                k.switch_case
            } else {
                k.switch_default
            };
            self.open(kind, NO_FIELD, c.span.start as usize);
            if let Some(t) = &c.test {
                self.expression(t, f.value);
            }
            let colon = self.find(self.pos, ":");
            self.gap(colon + 1);
            for s in &c.consequent {
                self.statement(s, f.body);
            }
            self.close(self.pos);
        }
        self.close(x.span.end as usize);
        self.close(x.span.end as usize);
    }

    pub(super) fn import(&mut self, x: &ImportDeclaration, field: u8) {
        let (k, f) = (self.k, self.f);
        if x.with_clause.is_some() || x.phase.is_some() {
            self.fail(line!());
            return;
        }
        self.open(k.import_statement, field, x.span.start as usize);
        if let Some(specs) = &x.specifiers {
            let Some(first) = specs.first() else {
                // `import {} from "x"`
                self.fail(line!());
                return;
            };
            let start = match first {
                ImportDeclarationSpecifier::ImportSpecifier(_) => self.find(self.pos, "{"),
                ImportDeclarationSpecifier::ImportNamespaceSpecifier(_) => self.find(self.pos, "*"),
                ImportDeclarationSpecifier::ImportDefaultSpecifier(s) => s.span.start as usize,
            };
            let named = specs
                .iter()
                .any(|s| matches!(s, ImportDeclarationSpecifier::ImportSpecifier(_)));
            if !named && self.text[start..x.source.span.start as usize].contains('{') {
                // `import a, {} from "b"`: an empty list the AST leaves out.
                self.fail(line!());
                return;
            }
            self.open(k.import_clause, NO_FIELD, start);
            let mut named_open = false;
            for s in specs {
                match s {
                    ImportDeclarationSpecifier::ImportDefaultSpecifier(s) => {
                        self.leaf(k.identifier, NO_FIELD, s.local.span)
                    }
                    ImportDeclarationSpecifier::ImportNamespaceSpecifier(s) => {
                        let star = self.find(self.pos, "*");
                        self.open(k.namespace_import, NO_FIELD, star);
                        self.leaf(k.identifier, NO_FIELD, s.local.span);
                        self.close(s.local.span.end as usize);
                    }
                    ImportDeclarationSpecifier::ImportSpecifier(s) => {
                        if !named_open {
                            let brace = self.find(self.pos, "{");
                            self.open(k.named_imports, NO_FIELD, brace);
                            named_open = true;
                        }
                        self.open(k.import_specifier, NO_FIELD, s.span.start as usize);
                        if s.imported.span() == s.local.span {
                            self.leaf(k.identifier, f.name, s.local.span);
                        } else {
                            self.module_export_name(&s.imported, f.name);
                            self.leaf(k.identifier, f.alias, s.local.span);
                        }
                        self.close(s.span.end as usize);
                    }
                }
            }
            if named_open {
                let brace = self.find(self.pos, "}");
                self.close(brace + 1);
            }
            self.close(self.pos);
        }
        self.string(&x.source.span, f.source);
        self.close_semicolon(x.span, After::Other);
    }

    pub(super) fn export_clause(&mut self, specs: &[ExportSpecifier]) {
        let (k, f) = (self.k, self.f);
        let brace = self.find(self.pos, "{");
        self.open(k.export_clause, NO_FIELD, brace);
        for s in specs {
            self.open(k.export_specifier, NO_FIELD, s.span.start as usize);
            self.module_export_name(&s.local, f.name);
            if s.exported.span() != s.local.span() {
                self.module_export_name(&s.exported, f.alias);
            }
            self.close(s.span.end as usize);
        }
        let close = self.find(self.pos, "}");
        self.close(close + 1);
    }

    pub(super) fn module_export_name(&mut self, n: &ModuleExportName, field: u8) {
        match n {
            ModuleExportName::StringLiteral(s) => self.string(&s.span, field),
            n => {
                let span = n.span();
                if &self.text[span.start as usize..span.end as usize] == "default" {
                    self.gap(span.start as usize);
                    self.gap_with(span.end as usize, field);
                } else {
                    self.leaf(self.k.identifier, field, span);
                }
            }
        }
    }
}

/// A block's first statement that makes tree-sitter read the block as an
/// object literal: a label over an expression, a declaration, or a block
/// that is empty or itself read as an object (`{ a: 1 }`, `{ a: {} }`).
fn object_like(first: &Statement) -> bool {
    let Statement::LabeledStatement(l) = first else {
        return false;
    };
    match &l.body {
        Statement::ExpressionStatement(_)
        | Statement::FunctionDeclaration(_)
        | Statement::ClassDeclaration(_) => true,
        Statement::BlockStatement(b) => b.body.first().is_none_or(object_like),
        _ => false,
    }
}
