//! Functions, parameters, classes and their members.

use oxc_ast::ast::*;
use oxc_span::{GetSpan, Span};

use super::*;

impl Writer<'_> {
    /// `after`: the ASI state after the body's `}` (see `After`).
    pub(super) fn function(&mut self, func: &Function, field: u8, declaration: bool, after: After) {
        let (k, f) = (self.k, self.f);
        let kind = match (declaration, func.generator) {
            (true, false) => k.function_declaration,
            (true, true) => k.generator_function_declaration,
            (false, false) => k.function_expression,
            (false, true) => k.generator_function,
        };
        if func.type_parameters.is_some() || func.this_param.is_some() || func.return_type.is_some()
        {
            self.fail(line!());
            return;
        }
        self.open(kind, field, func.span.start as usize);
        if let Some(id) = &func.id {
            self.binding_identifier(id.span, id.name.as_str(), f.name);
        }
        self.formal_parameters(&func.params, f.parameters);
        self.function_body(func.body.as_deref(), f.body, after);
        if declaration {
            self.close_optional_asi(func.span.end as usize, After::Other);
        } else {
            self.close(func.span.end as usize);
        }
    }

    pub(super) fn formal_parameters(&mut self, params: &FormalParameters, field: u8) {
        let (k, f) = (self.k, self.f);
        self.open(k.formal_parameters, field, params.span.start as usize);
        for p in &params.items {
            if !p.decorators.is_empty() || p.type_annotation.is_some() {
                self.fail(line!());
                return;
            }
            match &p.initializer {
                Some(init) => {
                    let start = p.pattern.span().start as usize;
                    self.open(k.assignment_pattern, NO_FIELD, start);
                    self.binding(&p.pattern, f.left);
                    self.expression(init, f.right);
                    self.close(init.span().end as usize);
                }
                None => self.binding(&p.pattern, NO_FIELD),
            }
        }
        if let Some(r) = &params.rest {
            self.rest_binding(&r.rest, NO_FIELD);
        }
        self.close(params.span.end as usize);
    }

    pub(super) fn rest_binding(&mut self, r: &BindingRestElement, field: u8) {
        self.open(self.k.rest_pattern, field, r.span.start as usize);
        self.binding(&r.argument, NO_FIELD);
        self.close(r.span.end as usize);
    }

    pub(super) fn arrow(&mut self, a: &ArrowFunctionExpression, field: u8) {
        let (k, f) = (self.k, self.f);
        if a.type_parameters.is_some() || a.return_type.is_some() {
            self.fail(line!());
            return;
        }
        self.open(k.arrow_function, field, a.span.start as usize);
        let ps = a.params.span.start as usize;
        if self.bytes.get(ps) == Some(&b'(') {
            self.formal_parameters(&a.params, f.parameters);
        } else {
            match (a.params.items.as_slice(), &a.params.rest) {
                ([p], None) if p.initializer.is_none() => match &p.pattern {
                    BindingPattern::BindingIdentifier(id) => {
                        self.binding_identifier(id.span, id.name.as_str(), f.parameter)
                    }
                    _ => self.fail(line!()),
                },
                _ => self.fail(line!()),
            }
        }
        match &a.body {
            ArrowFunctionBody::FunctionBody(b) => self.block(
                b.span,
                &b.directives,
                &b.statements,
                f.body,
                After::Expression,
            ),
            body => match body.as_expression() {
                Some(e) => self.expression(e, f.body),
                None => self.fail(line!()),
            },
        }
        self.close(a.span.end as usize);
    }

    pub(super) fn class(&mut self, c: &Class, field: u8, declaration: bool, after: After) {
        let (k, f) = (self.k, self.f);
        if !c.decorators.is_empty()
            || c.type_parameters.is_some()
            || !c.implements.is_empty()
            || c.r#abstract
            || c.declare
        {
            self.fail(line!());
            return;
        }
        if declaration && c.id.is_none() {
            self.fail(line!());
            return;
        }
        let kind = if declaration {
            k.class_declaration
        } else {
            k.class
        };
        self.open(kind, field, c.span.start as usize);
        if let Some(id) = &c.id {
            self.binding_identifier(id.span, id.name.as_str(), f.name);
        }
        if let Some(h) = &c.heritage {
            let at = self.find(self.pos, "extends");
            self.open(k.class_heritage, NO_FIELD, at);
            self.expression(&h.expression, NO_FIELD);
            self.close(h.expression.span().end as usize);
        }
        self.open(k.class_body, f.body, c.body.span.start as usize);
        for m in &c.body.body {
            if self.failed() {
                return;
            }
            match m {
                ClassElement::MethodDefinition(m) => {
                    if !m.decorators.is_empty()
                        || m.r#type != MethodDefinitionType::MethodDefinition
                        || m.optional
                        || m.accessibility.is_some()
                        || m.r#override
                    {
                        self.fail(line!());
                        return;
                    }
                    self.method(
                        m.span,
                        &m.key,
                        m.computed,
                        &m.value,
                        f.member,
                        m.r#static && m.kind == MethodDefinitionKind::Get,
                    );
                }
                ClassElement::PropertyDefinition(p) => {
                    if !p.decorators.is_empty()
                        || p.r#type != PropertyDefinitionType::PropertyDefinition
                        || p.type_annotation.is_some()
                        || p.declare
                        || p.optional
                        || p.definite
                        || p.readonly
                        || p.accessibility.is_some()
                        || p.r#override
                    {
                        self.fail(line!());
                        return;
                    }
                    self.open(k.field_definition, f.member, p.span.start as usize);
                    self.property_name(&p.key, p.computed, f.property);
                    if let Some(v) = &p.value {
                        self.expression(v, f.value);
                    }
                    self.close(self.pos);
                }
                ClassElement::StaticBlock(s) => {
                    self.open(k.class_static_block, f.member, s.span.start as usize);
                    let brace = self.find(self.pos, "{");
                    self.block(
                        Span::new(brace as u32, s.span.end),
                        &[],
                        &s.body,
                        f.body,
                        After::Other,
                    );
                    self.close(s.span.end as usize);
                }
                _ => {
                    self.fail(line!());
                    return;
                }
            }
        }
        self.close(c.body.span.end as usize);
        if declaration {
            self.close_optional_asi(c.span.end as usize, after);
        } else {
            self.close(c.span.end as usize);
        }
    }

    /// A method of a class or an object literal: modifiers, name,
    /// parameters and body, without the function node the AST has.
    pub(super) fn method(
        &mut self,
        span: Span,
        key: &PropertyKey,
        computed: bool,
        func: &Function,
        field: u8,
        static_get: bool,
    ) {
        let (k, f) = (self.k, self.f);
        if static_get {
            // tree-sitter reads `static get` + newline as one token.
            let key_start = key.span().start as usize;
            if self.text[span.start as usize..key_start].contains('\n') {
                self.fail(line!());
                return;
            }
        }
        self.open(k.method_definition, field, span.start as usize);
        self.property_name(key, computed, f.name);
        self.formal_parameters(&func.params, f.parameters);
        self.function_body(func.body.as_deref(), f.body, After::Other);
        self.close(span.end as usize);
    }

    pub(super) fn property_name(&mut self, key: &PropertyKey, computed: bool, field: u8) {
        let k = self.k;
        if computed {
            let open = self.find(self.pos, "[");
            self.open(k.computed_property_name, field, open);
            match key.as_expression() {
                Some(e) => self.expression(e, NO_FIELD),
                None => self.fail(line!()),
            }
            let close = self.find(self.pos, "]");
            self.close(close + 1);
            return;
        }
        match key {
            PropertyKey::StaticIdentifier(id) => self.leaf(k.property_identifier, field, id.span),
            PropertyKey::PrivateIdentifier(id) => {
                self.leaf(k.private_property_identifier, field, id.span)
            }
            PropertyKey::StringLiteral(s) => self.string(&s.span, field),
            PropertyKey::NumericLiteral(n) => self.leaf(k.number, field, n.span),
            PropertyKey::BigIntLiteral(n) => self.leaf(k.number, field, n.span),
            _ => self.fail(line!()),
        }
    }
}
