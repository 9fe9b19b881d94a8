//! Binding patterns and assignment targets.

use oxc_ast::ast::*;
use oxc_span::{GetSpan, Span};

use super::*;

impl Writer<'_> {
    /// tree-sitter's `undefined` node is the word as written (an escaped
    /// `undefin\u0065d` is an identifier).
    pub(super) fn is_undefined(&self, span: Span) -> bool {
        &self.text[span.start as usize..span.end as usize] == "undefined"
    }

    pub(super) fn binding_identifier(&mut self, span: Span, name: &str, field: u8) {
        if name == "undefined"
            || name == "yield"
            || self.text[span.start as usize..span.end as usize].contains('\\')
        {
            self.fail(line!());
            return;
        }
        self.leaf(self.k.identifier, field, span);
    }

    pub(super) fn binding(&mut self, p: &BindingPattern, field: u8) {
        if self.failed() {
            return;
        }
        let (k, f) = (self.k, self.f);
        match p {
            BindingPattern::BindingIdentifier(id) => {
                self.binding_identifier(id.span, id.name.as_str(), field)
            }
            BindingPattern::AssignmentPattern(a) => {
                self.open(k.assignment_pattern, field, a.span.start as usize);
                self.binding(&a.left, f.left);
                self.expression(&a.right, f.right);
                self.close(a.span.end as usize);
            }
            BindingPattern::ArrayPattern(a) => {
                self.open(k.array_pattern, field, a.span.start as usize);
                for e in a.elements.iter().flatten() {
                    self.binding(e, NO_FIELD);
                }
                if let Some(r) = &a.rest {
                    self.rest_binding(r, NO_FIELD);
                }
                self.close(a.span.end as usize);
            }
            BindingPattern::ObjectPattern(o) => {
                self.open(k.object_pattern, field, o.span.start as usize);
                for p in &o.properties {
                    if p.shorthand {
                        match &p.value {
                            BindingPattern::AssignmentPattern(a) => {
                                self.shorthand_with_default(p.span, p.key.span(), &a.right)
                            }
                            _ => self.leaf(
                                k.shorthand_property_identifier_pattern,
                                NO_FIELD,
                                p.key.span(),
                            ),
                        }
                    } else {
                        self.open(k.pair_pattern, NO_FIELD, p.span.start as usize);
                        self.property_name(&p.key, p.computed, f.key);
                        self.binding(&p.value, f.value);
                        self.close(p.span.end as usize);
                    }
                }
                if let Some(r) = &o.rest {
                    self.rest_binding(r, NO_FIELD);
                }
                self.close(o.span.end as usize);
            }
        }
    }

    pub(super) fn assignment_target(&mut self, t: &AssignmentTarget, field: u8) {
        let (k, f) = (self.k, self.f);
        self.no_parenthesized_target(t.span());
        match t {
            AssignmentTarget::AssignmentTargetIdentifier(id) if id.name == "yield" => {
                self.fail(line!());
            }
            AssignmentTarget::AssignmentTargetIdentifier(id) => {
                let kind = if self.is_undefined(id.span) {
                    k.undefined
                } else {
                    k.identifier
                };
                self.leaf(kind, field, id.span)
            }
            AssignmentTarget::ArrayAssignmentTarget(a) => {
                self.open(k.array_pattern, field, a.span.start as usize);
                for e in a.elements.iter().flatten() {
                    self.target_maybe_default(e, NO_FIELD);
                }
                if let Some(r) = &a.rest {
                    self.open(k.rest_pattern, NO_FIELD, r.span.start as usize);
                    self.assignment_target(&r.target, NO_FIELD);
                    self.close(r.span.end as usize);
                }
                self.close(a.span.end as usize);
            }
            AssignmentTarget::ObjectAssignmentTarget(o) => {
                self.open(k.object_pattern, field, o.span.start as usize);
                for p in &o.properties {
                    match p {
                        AssignmentTargetProperty::AssignmentTargetPropertyIdentifier(p) => match &p
                            .init
                        {
                            Some(init) => self.shorthand_with_default(p.span, p.binding.span, init),
                            None => self.leaf(
                                k.shorthand_property_identifier_pattern,
                                NO_FIELD,
                                p.binding.span,
                            ),
                        },
                        AssignmentTargetProperty::AssignmentTargetPropertyProperty(p) => {
                            self.open(k.pair_pattern, NO_FIELD, p.span.start as usize);
                            self.property_name(&p.name, p.computed, f.key);
                            self.target_maybe_default(&p.binding, f.value);
                            self.close(p.span.end as usize);
                        }
                    }
                }
                if let Some(r) = &o.rest {
                    self.open(k.rest_pattern, NO_FIELD, r.span.start as usize);
                    self.assignment_target(&r.target, NO_FIELD);
                    self.close(r.span.end as usize);
                }
                self.close(o.span.end as usize);
            }
            t => match t.as_member_expression() {
                Some(m) => self.member(m, field),
                None => self.fail(line!()),
            },
        }
    }

    /// `(a) = 1`, `(a)++`, `[(a)] = b`: the AST drops the parentheses
    /// around an assignment target, so the writer cannot put them back.
    pub(super) fn no_parenthesized_target(&mut self, span: Span) {
        let start = span.start as usize;
        if self.pos <= start && self.bytes[self.pos..start].contains(&b'(') {
            self.fail(line!());
        }
    }

    pub(super) fn target_maybe_default(&mut self, t: &AssignmentTargetMaybeDefault, field: u8) {
        let (k, f) = (self.k, self.f);
        match t {
            AssignmentTargetMaybeDefault::AssignmentTargetWithDefault(d) => {
                self.open(k.assignment_pattern, field, d.span.start as usize);
                self.assignment_target(&d.binding, f.left);
                self.expression(&d.init, f.right);
                self.close(d.span.end as usize);
            }
            t => match t.as_assignment_target() {
                Some(t) => self.assignment_target(t, field),
                None => self.fail(line!()),
            },
        }
    }

    /// `{ a = 1 }` in a pattern: the name and its default value.
    fn shorthand_with_default(&mut self, span: Span, name: Span, init: &Expression) {
        let (k, f) = (self.k, self.f);
        self.open(k.object_assignment_pattern, NO_FIELD, span.start as usize);
        self.leaf(k.shorthand_property_identifier_pattern, f.left, name);
        self.expression(init, f.right);
        self.close(span.end as usize);
    }
}
