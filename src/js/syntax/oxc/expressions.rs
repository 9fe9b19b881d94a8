//! Expressions and literals.

use oxc_ast::ast::*;
use oxc_span::{GetSpan, Span};

use super::*;

impl Writer<'_> {
    pub(super) fn expression(&mut self, e: &Expression, field: u8) {
        if self.failed() || self.too_deep() {
            return;
        }
        let (k, f) = (self.k, self.f);
        match e {
            Expression::BooleanLiteral(b) => {
                self.leaf(if b.value { k.true_ } else { k.false_ }, field, b.span)
            }
            Expression::NullLiteral(n) => self.leaf(k.null, field, n.span),
            Expression::NumericLiteral(n) => self.leaf(k.number, field, n.span),
            Expression::BigIntLiteral(n) => self.leaf(k.number, field, n.span),
            Expression::RegExpLiteral(r) => {
                let (start, end) = (r.span.start as usize, r.span.end as usize);
                let Some(slash) = self.text[start..end].rfind('/').map(|i| start + i) else {
                    self.fail(line!());
                    return;
                };
                self.open(k.regex, field, start);
                self.gap(start + 1);
                self.out
                    .leaf(k.regex_pattern, true, f.pattern, start + 1, slash);
                self.pos = slash;
                self.gap(slash + 1);
                if slash + 1 < end {
                    self.out.leaf(k.regex_flags, true, f.flags, slash + 1, end);
                    self.pos = end;
                }
                self.close(end);
            }
            Expression::StringLiteral(s) => self.string(&s.span, field),
            Expression::TemplateLiteral(t) => self.template(t, field, false),
            Expression::Identifier(id) if id.name == "yield" => {
                // tree-sitter reads `yield` as a yield expression anywhere.
                self.fail(line!());
            }
            Expression::Identifier(id) => {
                let kind = if self.is_undefined(id.span) {
                    k.undefined
                } else {
                    k.identifier
                };
                self.leaf(kind, field, id.span)
            }
            Expression::Super(s) => self.leaf(k.super_, field, s.span),
            Expression::ThisExpression(t) => self.leaf(k.this, field, t.span),
            Expression::ArrayExpression(a) => {
                self.open(k.array, field, a.span.start as usize);
                for el in &a.elements {
                    match el {
                        ArrayExpressionElement::SpreadElement(s) => self.spread(s),
                        ArrayExpressionElement::Elision(_) => {}
                        el => match el.as_expression() {
                            Some(e) => self.expression(e, NO_FIELD),
                            None => self.fail(line!()),
                        },
                    }
                }
                self.close(a.span.end as usize);
            }
            Expression::ArrowFunctionExpression(a) => self.arrow(a, field),
            Expression::AssignmentExpression(a) => {
                if a.span.start != a.left.span().start {
                    // `(a) = b`: the AST drops the parentheses.
                    self.fail(line!());
                    return;
                }
                let plain = a.operator == AssignmentOperator::Assign;
                let kind = if plain {
                    k.assignment_expression
                } else {
                    k.augmented_assignment_expression
                };
                self.open(kind, field, a.span.start as usize);
                self.assignment_target(&a.left, f.left);
                let op_field = if plain { NO_FIELD } else { f.operator };
                self.gap_with(a.right.span().start as usize, op_field);
                self.expression(&a.right, f.right);
                self.close(a.span.end as usize);
            }
            Expression::AwaitExpression(a) => {
                // `await (a)(b)`, `await (a).b`, `await [a][0]`: tree-sitter
                // reads `await` as a name called or indexed there.
                let next = self.skip_ws(a.span.start as usize + 5);
                let bracketed = matches!(self.bytes.get(next), Some(b'(' | b'[' | b'`'));
                let whole = matches!(
                    a.argument,
                    Expression::ParenthesizedExpression(_)
                        | Expression::ArrayExpression(_)
                        | Expression::TemplateLiteral(_)
                );
                if (bracketed && !whole) || self.comment_end(next).is_some() {
                    self.fail(line!());
                    return;
                }
                self.open(k.await_expression, field, a.span.start as usize);
                self.expression(&a.argument, NO_FIELD);
                self.close(a.span.end as usize);
            }
            Expression::BinaryExpression(b) => {
                self.binary(b.span, &b.left, &b.right, field);
            }
            Expression::LogicalExpression(b) => {
                self.binary(b.span, &b.left, &b.right, field);
            }
            Expression::PrivateInExpression(p) => {
                self.open(k.binary_expression, field, p.span.start as usize);
                self.leaf(k.private_property_identifier, f.left, p.left.span);
                self.gap_with(p.right.span().start as usize, f.operator);
                self.expression(&p.right, f.right);
                self.close(p.span.end as usize);
            }
            Expression::CallExpression(c) => self.call(c, field),
            Expression::ChainExpression(c) => match &c.expression {
                ChainElement::CallExpression(call) => self.call(call, field),
                el => match el.as_member_expression() {
                    Some(m) => self.member(m, field),
                    None => self.fail(line!()),
                },
            },
            Expression::ClassExpression(c) => self.class(c, field, false, After::Expression),
            Expression::ConditionalExpression(c) => {
                self.open(k.ternary_expression, field, c.span.start as usize);
                self.expression(&c.test, f.condition);
                self.expression(&c.consequent, f.consequence);
                self.expression(&c.alternate, f.alternative);
                self.close(c.span.end as usize);
            }
            Expression::FunctionExpression(func) => {
                self.function(func, field, false, After::Expression)
            }
            Expression::ImportExpression(i) => {
                if i.phase.is_some() {
                    self.fail(line!());
                    return;
                }
                self.open(k.call_expression, field, i.span.start as usize);
                let start = i.span.start as usize;
                // tree-sitter's `import` node holds the keyword as a token.
                self.open(k.import, f.function, start);
                self.close(start + 6);
                let open = self.find(self.pos, "(");
                self.open(k.arguments, f.arguments, open);
                self.expression(&i.source, NO_FIELD);
                if let Some(o) = &i.options {
                    self.expression(o, NO_FIELD);
                }
                self.close(i.span.end as usize);
                self.close(i.span.end as usize);
            }
            Expression::NewExpression(n) => {
                if n.type_arguments.is_some() {
                    self.fail(line!());
                    return;
                }
                self.open(k.new_expression, field, n.span.start as usize);
                self.expression(&n.callee, f.constructor);
                let end = n.span.end as usize;
                if self.pos < end {
                    let open = self.find(self.pos, "(");
                    self.arguments(open, end, &n.arguments);
                }
                self.close(end);
            }
            Expression::ObjectExpression(o) => self.object(o, field),
            Expression::ParenthesizedExpression(p) => {
                self.open(k.parenthesized_expression, field, p.span.start as usize);
                self.expression(&p.expression, NO_FIELD);
                self.close(p.span.end as usize);
            }
            Expression::SequenceExpression(s) => {
                self.open(k.sequence_expression, field, s.span.start as usize);
                for e in &s.expressions {
                    self.expression(e, NO_FIELD);
                }
                self.close(s.span.end as usize);
            }
            Expression::TaggedTemplateExpression(t) => {
                if t.type_arguments.is_some() {
                    self.fail(line!());
                    return;
                }
                self.open(k.call_expression, field, t.span.start as usize);
                self.expression(&t.tag, f.function);
                self.template(&t.quasi, f.arguments, true);
                self.close(t.span.end as usize);
            }
            Expression::UnaryExpression(u) => {
                self.open(k.unary_expression, field, u.span.start as usize);
                self.gap_with(u.argument.span().start as usize, f.operator);
                self.expression(&u.argument, f.argument);
                self.close(u.span.end as usize);
            }
            Expression::UpdateExpression(u) => {
                self.open(k.update_expression, field, u.span.start as usize);
                let arg = u.argument.span();
                self.no_parenthesized_target(arg);
                if u.prefix {
                    self.gap_with(arg.start as usize, f.operator);
                }
                match u.argument.as_member_expression() {
                    Some(m) => self.member(m, f.argument),
                    None => match &u.argument {
                        SimpleAssignmentTarget::AssignmentTargetIdentifier(id) => {
                            let kind = if self.is_undefined(id.span) {
                                k.undefined
                            } else {
                                k.identifier
                            };
                            self.leaf(kind, f.argument, id.span)
                        }
                        _ => self.fail(line!()),
                    },
                }
                if !u.prefix {
                    self.gap_with(u.span.end as usize, f.operator);
                }
                self.close(u.span.end as usize);
            }
            Expression::YieldExpression(y) => {
                self.open(k.yield_expression, field, y.span.start as usize);
                if let Some(a) = &y.argument {
                    self.expression(a, NO_FIELD);
                }
                self.close(y.span.end as usize);
            }
            Expression::ImportMeta(m) => {
                self.open(k.meta_property, field, m.span.start as usize);
                self.close(m.span.end as usize);
            }
            Expression::NewTarget(m) => {
                self.open(k.meta_property, field, m.span.start as usize);
                self.close(m.span.end as usize);
            }
            e => match e.as_member_expression() {
                Some(m) => self.member(m, field),
                None => self.fail(line!()),
            },
        }
    }

    pub(super) fn binary(&mut self, span: Span, left: &Expression, right: &Expression, field: u8) {
        let (k, f) = (self.k, self.f);
        self.open(k.binary_expression, field, span.start as usize);
        self.expression(left, f.left);
        self.gap_with(right.span().start as usize, f.operator);
        self.expression(right, f.right);
        self.close(span.end as usize);
    }

    pub(super) fn spread(&mut self, s: &SpreadElement) {
        self.open(self.k.spread_element, NO_FIELD, s.span.start as usize);
        self.expression(&s.argument, NO_FIELD);
        self.close(s.span.end as usize);
    }

    pub(super) fn optional_chain(&mut self) {
        let at = self.find(self.pos, "?.");
        self.leaf(
            self.k.optional_chain,
            self.f.optional_chain,
            Span::new(at as u32, at as u32 + 2),
        );
    }

    pub(super) fn member(&mut self, m: &MemberExpression, field: u8) {
        let (k, f) = (self.k, self.f);
        let (kind, object, optional) = match m {
            MemberExpression::StaticMemberExpression(s) => {
                (k.member_expression, &s.object, s.optional)
            }
            MemberExpression::PrivateFieldExpression(s) => {
                (k.member_expression, &s.object, s.optional)
            }
            MemberExpression::ComputedMemberExpression(s) => {
                (k.subscript_expression, &s.object, s.optional)
            }
        };
        self.open(kind, field, m.span().start as usize);
        self.expression(object, f.object);
        if optional {
            self.optional_chain();
        }
        match m {
            MemberExpression::StaticMemberExpression(s) => {
                self.leaf(k.property_identifier, f.property, s.property.span)
            }
            MemberExpression::PrivateFieldExpression(s) => {
                self.leaf(k.private_property_identifier, f.property, s.field.span)
            }
            MemberExpression::ComputedMemberExpression(s) => {
                self.expression(&s.expression, f.index)
            }
        }
        self.close(m.span().end as usize);
    }

    pub(super) fn call(&mut self, c: &CallExpression, field: u8) {
        let (k, f) = (self.k, self.f);
        if c.type_arguments.is_some() {
            self.fail(line!());
            return;
        }
        self.open(k.call_expression, field, c.span.start as usize);
        self.expression(&c.callee, f.function);
        if c.optional {
            self.optional_chain();
        }
        let open = self.find(self.pos, "(");
        self.arguments(open, c.span.end as usize, &c.arguments);
        self.close(c.span.end as usize);
    }

    pub(super) fn arguments(&mut self, start: usize, end: usize, args: &[Argument]) {
        self.open(self.k.arguments, self.f.arguments, start);
        for a in args {
            match a {
                Argument::SpreadElement(s) => self.spread(s),
                a => match a.as_expression() {
                    Some(e) => self.expression(e, NO_FIELD),
                    None => self.fail(line!()),
                },
            }
        }
        self.close(end);
    }

    pub(super) fn object(&mut self, o: &ObjectExpression, field: u8) {
        let (k, f) = (self.k, self.f);
        self.open(k.object, field, o.span.start as usize);
        for p in &o.properties {
            if self.failed() {
                return;
            }
            match p {
                ObjectPropertyKind::SpreadProperty(s) => self.spread(s),
                ObjectPropertyKind::ObjectProperty(p) => {
                    if p.shorthand {
                        self.leaf(k.shorthand_property_identifier, NO_FIELD, p.key.span());
                    } else if p.method || p.kind != PropertyKind::Init {
                        let Expression::FunctionExpression(func) = &p.value else {
                            self.fail(line!());
                            return;
                        };
                        self.method(p.span, &p.key, p.computed, func, NO_FIELD, false);
                    } else {
                        self.open(k.pair, NO_FIELD, p.span.start as usize);
                        self.property_name(&p.key, p.computed, f.key);
                        self.expression(&p.value, f.value);
                        self.close(p.span.end as usize);
                    }
                }
            }
        }
        self.close(o.span.end as usize);
    }

    // ---- literals ----------------------------------------------------------

    /// A string literal: its quotes, fragments and escape sequences.
    pub(super) fn string(&mut self, span: &Span, field: u8) {
        let k = self.k;
        let (start, end) = (span.start as usize, span.end as usize);
        if end < start + 2 {
            self.fail(line!());
            return;
        }
        self.open(k.string, field, start);
        self.gap(start + 1);
        self.fragments(start + 1, end - 1, Fragments::String);
        self.gap(end);
        self.close(end);
    }

    /// The text of a string or template between `start` and `end`, as
    /// `string_fragment` and `escape_sequence` nodes.
    pub(super) fn fragments(&mut self, start: usize, end: usize, text: Fragments) {
        let k = self.k;
        let template = !matches!(text, Fragments::String);
        let mut at = start;
        while at < end {
            if self.bytes[at] == b'\\' {
                let mut len = self.escape_len(at, end);
                if len == 0 && matches!(text, Fragments::Tagged) {
                    // An escape only a tagged template may hold (`\x`, `\u`
                    // not followed by hex digits: ``String.raw`C:\users` ``).
                    // tree-sitter's grammar has no tree for it but an ERROR;
                    // this is the one it would give if it took the escape:
                    // the backslash and its letter, then the text.
                    len = 1 + self.text[at + 1..end]
                        .chars()
                        .next()
                        .map_or(0, char::len_utf8);
                }
                if len <= 1 {
                    self.fail(line!());
                    return;
                }
                self.out
                    .leaf(k.escape_sequence, true, NO_FIELD, at, at + len);
                at += len;
            } else {
                let next = memchr::memchr(b'\\', &self.bytes[at..end]).map_or(end, |i| at + i);
                if !template
                    && self.bytes[at..next]
                        .iter()
                        .any(|b| *b == b'\n' || *b == b'\r')
                {
                    self.fail(line!());
                    return;
                }
                self.out.leaf(k.string_fragment, true, NO_FIELD, at, next);
                at = next;
            }
        }
        self.pos = end;
    }

    /// tree-sitter-javascript's `escape_sequence` at `at` (a backslash).
    pub(super) fn escape_len(&self, at: usize, end: usize) -> usize {
        let rest = &self.bytes[at + 1..end];
        let hex = |s: &[u8]| s.iter().all(|b| b.is_ascii_hexdigit());
        match rest.first() {
            None => 0,
            Some(b'x') if rest.len() >= 3 && hex(&rest[1..3]) => 4,
            Some(b'x') => 0,
            Some(b'u') => {
                if rest.len() >= 5 && hex(&rest[1..5]) {
                    6
                } else if rest.get(1) == Some(&b'{') {
                    match rest.iter().position(|b| *b == b'}') {
                        Some(close) if close > 2 && hex(&rest[2..close]) => close + 2,
                        _ => 0,
                    }
                } else {
                    0
                }
            }
            Some(b'0'..=b'7') => {
                1 + rest
                    .iter()
                    .take(3)
                    .take_while(|b| (b'0'..=b'7').contains(*b))
                    .count()
            }
            Some(b'\r' | b'?') if rest.get(1) == Some(&b'\n') => 3,
            Some(b'\r' | b'?') if starts_with_line_separator(&rest[1..]) => 5,
            Some(_) => {
                let c = self.text[at + 1..].chars().next().map_or(1, char::len_utf8);
                1 + c
            }
        }
    }

    /// A template literal; `tagged` when it is a tag's argument, where an
    /// escape may be invalid.
    pub(super) fn template(&mut self, t: &TemplateLiteral, field: u8, tagged: bool) {
        let k = self.k;
        let (start, end) = (t.span.start as usize, t.span.end as usize);
        self.open(k.template_string, field, start);
        let text = if tagged {
            Fragments::Tagged
        } else {
            Fragments::Template
        };
        for (i, q) in t.quasis.iter().enumerate() {
            let (qs, qe) = (q.span.start as usize, q.span.end as usize);
            self.gap(qs);
            self.fragments(qs, qe, text);
            if let Some(e) = t.expressions.get(i) {
                self.open(k.template_substitution, NO_FIELD, qe);
                self.expression(e, NO_FIELD);
                let next = t.quasis.get(i + 1).map_or(end, |n| n.span.start as usize);
                self.close(next);
            }
        }
        self.close(end);
    }
}

/// What [`Writer::fragments`] writes the text of.
#[derive(Clone, Copy)]
pub(super) enum Fragments {
    String,
    Template,
    /// A tagged template's: its escapes need not be valid.
    Tagged,
}
