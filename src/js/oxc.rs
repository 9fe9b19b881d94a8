//! The fast front end: oxc parses, and its AST is written out as the tree
//! tree-sitter-javascript would give for the same text (`js::tree::Tree`:
//! the same kinds, fields, anonymous tokens, comments and spans), so every
//! analysis reads one kind of tree whichever parser made it.
//!
//! Why: tree-sitter's parse was over half of a cold check and its tree
//! 27–66 bytes per source byte (docs/performance.md); oxc parses ≈ 17×
//! faster into an arena that is freed as soon as the tree is written.
//!
//! Only what oxc accepts without a diagnostic comes through here; anything
//! else — a syntax error, JSX, TypeScript, a construct this writer does not
//! know, or a spot where tree-sitter's grammar is known to read the text
//! differently — returns `None` and the caller parses with tree-sitter, whose
//! error recovery the syntax rules need anyway. The tests compare the two
//! trees node by node on every fixture, and `examples/front_diff.rs` does on
//! a whole corpus.
//!
//! The AST has no punctuation or comments: they are lexed from the text
//! between the children ([`Writer::gap`]), where only whitespace, comments,
//! punctuators and keywords can be. A comment belongs to the smallest node
//! that has a token on both sides of it, as in tree-sitter, with one
//! exception that tree-sitter's scanner makes: a statement ended by an
//! automatic semicolon can take a comment on its last line inside it
//! ([`Writer::asi_end`]).

use std::sync::OnceLock;

use oxc_allocator::Allocator;
use oxc_ast::ast::*;
use oxc_span::{GetSpan, SourceType, Span};

use super::tree::{self, Builder, Tree};

/// The tree of `text`, or `None` when tree-sitter has to parse it.
pub fn parse(text: &str) -> Option<Tree> {
    parse_or_why(text).ok()
}

/// [`parse`], or why not: the writer's source line that gave up (0: oxc
/// rejected the text) and the offset it had reached.
#[doc(hidden)]
pub fn parse_or_why(text: &str) -> Result<Tree, (u32, usize)> {
    // Offsets are u32 in the tree; leave tree-sitter the rest.
    if text.len() >= (u32::MAX / 2) as usize {
        return Err((0, 0));
    }
    // oxc's parser and this writer recurse once per level of nesting; a
    // text that could nest deeper than a thread's stack allows goes to
    // tree-sitter, which does not recurse (tests/pathological.rs).
    if nesting_bound(text.as_bytes()) > MAX_NESTING {
        return Err((line!(), 0));
    }
    // One arena per file, dropped as soon as the tree is written: the model
    // is built after it, so the two never hold memory at once.
    let arena = Allocator::default();
    let ret = oxc_parser::Parser::new(&arena, text, SourceType::mjs()).parse();
    if ret.panicked || ret.diagnostics.has_errors() {
        return Err((0, 0));
    }
    let mut w = Writer::new(text);
    w.program(&ret.program);
    w.finish()
}

/// Kind ids of the named kinds the writer emits, looked up once.
macro_rules! kinds {
    ($($name:ident),* $(,)?) => {
        #[allow(non_snake_case)]
        struct Kinds { $($name: u16,)* }
        fn kinds() -> &'static Kinds {
            static K: OnceLock<Kinds> = OnceLock::new();
            K.get_or_init(|| Kinds {
                $($name: tree::kind_id(stringify!($name).trim_end_matches('_')).unwrap_or(0),)*
            })
        }
    };
}

kinds! {
    program, hash_bang_line, comment, expression_statement, statement_block,
    empty_statement, debugger_statement, break_statement, continue_statement,
    return_statement, throw_statement, if_statement, else_clause, while_statement,
    do_statement, with_statement, for_statement, for_in_statement, labeled_statement,
    statement_identifier, switch_statement, switch_body, switch_case, switch_default,
    try_statement, catch_clause, finally_clause, lexical_declaration,
    variable_declaration, variable_declarator, function_declaration,
    generator_function_declaration, function_expression, generator_function,
    arrow_function, formal_parameters, class, class_declaration, class_heritage,
    class_body, method_definition, field_definition, class_static_block,
    import_statement, import_clause, named_imports, import_specifier,
    namespace_import, export_statement, export_clause, export_specifier,
    namespace_export, identifier, property_identifier, private_property_identifier,
    shorthand_property_identifier, shorthand_property_identifier_pattern,
    undefined, this, super_, true_, false_, null, number, string, string_fragment,
    escape_sequence, template_string, template_substitution, regex, regex_pattern,
    regex_flags, array, object, pair, computed_property_name, spread_element,
    parenthesized_expression, sequence_expression, assignment_expression,
    augmented_assignment_expression, binary_expression, unary_expression,
    update_expression, ternary_expression, await_expression, yield_expression,
    call_expression, new_expression, arguments, member_expression,
    subscript_expression, optional_chain, meta_property, import, object_pattern,
    array_pattern, pair_pattern, assignment_pattern, object_assignment_pattern,
    rest_pattern,
}

macro_rules! fields {
    ($($name:ident),* $(,)?) => {
        #[allow(non_snake_case)]
        struct Fields { $($name: u8,)* }
        fn fields() -> &'static Fields {
            static F: OnceLock<Fields> = OnceLock::new();
            F.get_or_init(|| Fields {
                $($name: tree::field_number(stringify!($name)),)*
            })
        }
    };
}

fields! {
    alias, alternative, argument, arguments, body, condition, consequence,
    constructor, declaration, finalizer, flags, function, handler, increment,
    index, initializer, key, kind, label, left, member, name, object, operator,
    optional_chain, parameter, parameters, pattern, property, right, source,
    value,
}

/// A statement ended by `;` or an automatic semicolon: what tree-sitter's
/// scanner is told about the state after its last token (whether `||`
/// could continue it, which decides where the semicolon goes).
#[derive(Clone, Copy)]
enum After {
    /// The last token ends an expression.
    Expression,
    /// It does not (`break`, a declaration without initialiser, `}`).
    Other,
}

struct Writer<'s> {
    text: &'s str,
    bytes: &'s [u8],
    out: Builder,
    /// Everything before this offset has been written.
    pos: usize,
    /// A construct the writer does not render as tree-sitter would.
    bail: bool,
    /// Where the writer gave up (its source line and the text offset).
    why: Option<(u32, usize)>,
    k: &'static Kinds,
    f: &'static Fields,
}

const NO_FIELD: u8 = 0;

impl<'s> Writer<'s> {
    fn new(text: &'s str) -> Writer<'s> {
        Writer {
            text,
            bytes: text.as_bytes(),
            // Dense code has up to ≈ 0.75 visible nodes per byte, formatted
            // code far fewer. Reserving one per byte means the array is
            // not copied as it grows (a doubling holds 1.5× the nodes);
            // the pages no node is written to are never touched, so they
            // cost address space, not memory.
            out: Builder::with_capacity(text.len() + 16),
            pos: 0,
            bail: false,
            why: None,
            k: kinds(),
            f: fields(),
        }
    }

    fn finish(self) -> Result<Tree, (u32, usize)> {
        match self.why {
            None if self.out.depth() == 0 => Ok(self.out.finish()),
            None => Err((line!(), self.pos)),
            Some(why) => Err(why),
        }
    }

    /// The writer recurses per open node; `nesting_bound` should keep it
    /// far from this, which is a second guard for its stack.
    fn too_deep(&mut self) -> bool {
        if self.out.depth() > 4 * MAX_NESTING {
            self.fail(line!());
            return true;
        }
        false
    }

    fn fail(&mut self, line: u32) {
        self.bail = true;
        self.why.get_or_insert((line, self.pos));
    }

    // ---- the text between children -------------------------------------

    /// Offset of the first byte at or after `at` that is not whitespace.
    fn skip_ws(&self, mut at: usize) -> usize {
        while at < self.bytes.len() {
            let b = self.bytes[at];
            if b == b' ' || (b'\t'..=b'\r').contains(&b) {
                at += 1;
            } else if b >= 0x80 {
                match self.text[at..].chars().next() {
                    Some(c) if is_js_space(c) => at += c.len_utf8(),
                    _ => break,
                }
            } else {
                break;
            }
        }
        at
    }

    /// The end of the comment starting at `at`, if one does.
    fn comment_end(&self, at: usize) -> Option<usize> {
        let rest = &self.bytes[at..];
        if rest.starts_with(b"//") {
            let mut end = at + 2;
            while end < self.bytes.len() {
                let b = self.bytes[end];
                if b == b'\n'
                    || b == b'\r'
                    || (b == 0xe2
                        && self.bytes.get(end + 1) == Some(&0x80)
                        && matches!(self.bytes.get(end + 2), Some(0xa8 | 0xa9)))
                {
                    break;
                }
                end += 1;
            }
            Some(end)
        } else if rest.starts_with(b"/*") {
            memchr::memmem::find(&rest[2..], b"*/").map(|i| at + 2 + i + 2)
        } else {
            None
        }
    }

    /// The length of the token (punctuator or word) at `at`.
    fn token_len(&self, at: usize) -> usize {
        let rest = &self.text[at..];
        let Some(c) = rest.chars().next() else {
            return 0;
        };
        if rest.starts_with("${") {
            return 2;
        }
        if c.is_alphabetic() || c == '_' || c == '$' {
            return rest
                .char_indices()
                .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '$'))
                .map_or(rest.len(), |(i, _)| i);
        }
        const PUNCT: [&str; 50] = [
            ">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=", "=>",
            "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=",
            "%=", "&=", "|=", "^=", "<<", ">>", "**", "${", "{", "}", "(", ")", "[", "]", ";", ",",
            "<", ">", "+", "-", "*", "/", "%", "&",
        ];
        const SINGLE: &[u8] = b"|^!~?:=.@#`\"'";
        if rest.starts_with("?.") && rest.as_bytes().get(2).is_some_and(u8::is_ascii_digit) {
            // `a?.5:b` is a conditional.
            return 1;
        }
        for p in PUNCT {
            if rest.starts_with(p) {
                return p.len();
            }
        }
        if SINGLE.contains(&rest.as_bytes()[0]) {
            return 1;
        }
        0
    }

    /// Writes the tokens and comments from `self.pos` to `to` as children
    /// of the open node; the first token gets `field`.
    fn gap_with(&mut self, to: usize, mut field: u8) {
        if to < self.pos || to > self.bytes.len() {
            self.fail(line!());
            return;
        }
        let mut at = self.pos;
        loop {
            at = self.skip_ws(at);
            if at >= to {
                break;
            }
            if let Some(end) = self.comment_end(at) {
                if end > to {
                    self.fail(line!());
                    return;
                }
                if self.line_break_inside_a_line(at, end) {
                    return;
                }
                self.out.leaf(self.k.comment, true, NO_FIELD, at, end);
                at = end;
                continue;
            }
            let len = self.token_len(at);
            let Some(id) = (len > 0 && at + len <= to)
                .then(|| tree::token_id(&self.text[at..at + len]))
                .flatten()
            else {
                self.fail(line!());
                return;
            };
            self.out.leaf(id, false, field, at, at + len);
            field = NO_FIELD;
            at += len;
            if self.keyword_before_newline(at - len, at) {
                return;
            }
        }
        self.pos = to;
    }

    /// A block comment with a line break in it between two tokens of one
    /// line (`a /*\n*/ = b`): tree-sitter's scanner takes the break as a
    /// line end and can insert a semicolon there where JavaScript does not.
    fn line_break_inside_a_line(&mut self, start: usize, end: usize) -> bool {
        let comment = &self.bytes[start..end];
        if !comment.starts_with(b"/*") || !has_line_break(comment) {
            return false;
        }
        let line_start = memchr::memrchr(b'\n', &self.bytes[..start]).map_or(0, |i| i + 1);
        let line_end =
            memchr::memchr(b'\n', &self.bytes[end..]).map_or(self.bytes.len(), |i| end + i);
        let token = |s: &[u8]| s.iter().any(|b| !b.is_ascii_whitespace());
        if token(&self.bytes[line_start..start]) && token(&self.bytes[end..line_end]) {
            self.fail(line!());
            return true;
        }
        false
    }

    /// tree-sitter reads a keyword it also accepts as a name (`await`,
    /// `export`, `async`, `let`, `static`, `get`, `set`) followed by a line
    /// break as that name, ending the statement there; JavaScript does not.
    /// Such text goes to tree-sitter, so the trees never disagree.
    fn keyword_before_newline(&mut self, start: usize, end: usize) -> bool {
        if !matches!(
            &self.text[start..end],
            "await" | "export" | "async" | "let" | "static" | "get" | "set"
        ) {
            return false;
        }
        let mut at = end;
        loop {
            let next = self.skip_ws(at);
            if has_line_break(&self.bytes[at..next]) {
                self.fail(line!());
                return true;
            }
            match self.comment_end(next) {
                Some(e) => {
                    if has_line_break(&self.bytes[next..e]) {
                        self.fail(line!());
                        return true;
                    }
                    at = e;
                }
                None => return false,
            }
        }
    }

    fn gap(&mut self, to: usize) {
        self.gap_with(to, NO_FIELD);
    }

    /// The offset of the next token `tok` at or after `self.pos`, skipping
    /// other tokens and comments (they stay for [`Writer::gap`]).
    fn find(&mut self, from: usize, tok: &str) -> usize {
        let mut at = from;
        loop {
            at = self.skip_ws(at);
            if at >= self.bytes.len() {
                self.fail(line!());
                return self.bytes.len();
            }
            if let Some(end) = self.comment_end(at) {
                at = end;
                continue;
            }
            let len = self.token_len(at);
            if len == 0 {
                self.fail(line!());
                return self.bytes.len();
            }
            if &self.text[at..at + len] == tok {
                return at;
            }
            at += len;
        }
    }

    fn leaf(&mut self, kind: u16, field: u8, span: Span) {
        self.gap(span.start as usize);
        self.out
            .leaf(kind, true, field, span.start as usize, span.end as usize);
        self.pos = span.end as usize;
    }

    fn open(&mut self, kind: u16, field: u8, start: usize) {
        self.gap(start);
        self.out.open(kind, field, start);
        self.pos = start;
    }

    /// Closes the open node at `end`, or where its last child ended if that
    /// is later (a statement that took a comment in).
    fn close(&mut self, end: usize) {
        if end > self.pos {
            self.gap(end);
        }
        self.out.close(self.pos);
    }

    // ---- automatic semicolons ------------------------------------------

    /// Where tree-sitter-javascript's scanner puts the automatic semicolon
    /// after a token ending at `end` (`None`: it does not insert one). A
    /// port of `scan_automatic_semicolon`, repeated after each comment the
    /// lexer takes when the scanner declines, as tree-sitter does.
    fn asi_end(&self, end: usize, after: After) -> Option<usize> {
        let mut at = end;
        for _ in 0..64 {
            if self.scan_asi(at, after) {
                return Some(at);
            }
            let next = self.skip_ws(at);
            at = self.comment_end(next)?;
        }
        None
    }

    fn peek(&self, at: usize) -> Option<char> {
        self.text.get(at..).and_then(|s| s.chars().next())
    }

    fn scan_asi(&self, start: usize, after: After) -> bool {
        let comment_condition = matches!(after, After::Other);
        let mut at = start;
        let is_nl = |c: char| c == '\n' || c == '\u{2028}' || c == '\u{2029}';
        loop {
            let Some(c) = self.peek(at) else {
                return true;
            };
            if c == '/' {
                match self.ws_and_comments(at, false) {
                    (Ws::Reject, _) => return false,
                    (r, next) => {
                        at = next;
                        if r == Ws::Accept
                            && comment_condition
                            && !matches!(self.peek(at), Some(',') | Some('='))
                        {
                            return true;
                        }
                    }
                }
            }
            let Some(c) = self.peek(at) else {
                // tree-sitter's loop checks for the end only at its top.
                return false;
            };
            if c == '}' {
                return true;
            }
            if is_nl(c) {
                at += c.len_utf8();
                break;
            }
            if !is_c_space(c) {
                return false;
            }
            at += c.len_utf8();
        }
        let (r, next) = self.ws_and_comments(at, true);
        if r == Ws::Reject {
            return false;
        }
        at = next;
        let Some(c) = self.peek(at) else {
            return true;
        };
        let after_c = self.peek(at + c.len_utf8());
        match c {
            '`' | ',' | ':' | ';' | '*' | '%' | '>' | '<' | '=' | '[' | '(' | '?' | '^' | '|'
            | '&' | '/' => false,
            '.' => after_c.is_some_and(|d| d.is_ascii_digit()),
            '+' => after_c == Some('+'),
            '-' => after_c == Some('-'),
            '!' => after_c != Some('='),
            'i' => {
                let rest = &self.text[at + 1..];
                let mut chars = rest.chars();
                match chars.next() {
                    Some('n') => {}
                    _ => return true,
                }
                match chars.next() {
                    Some(x) if x.is_alphabetic() => {}
                    _ => return false,
                }
                let tail = &rest[1..];
                if !tail.starts_with("stanceof") {
                    return true;
                }
                !tail[8..].chars().next().is_some_and(|x| x.is_alphabetic())
            }
            _ => true,
        }
    }

    /// `scan_whitespace_and_comments`: from `at`, at a `/` or whitespace.
    fn ws_and_comments(&self, mut at: usize, consume: bool) -> (Ws, usize) {
        let mut saw_block_newline = false;
        loop {
            while let Some(c) = self.peek(at) {
                if !is_c_space(c) {
                    break;
                }
                at += c.len_utf8();
            }
            if self.peek(at) != Some('/') {
                return (Ws::Accept, at);
            }
            match self.peek(at + 1) {
                Some('/') => {
                    at = self.comment_end(at).unwrap_or(self.bytes.len());
                }
                Some('*') => {
                    let Some(end) = self.comment_end(at) else {
                        return (Ws::Accept, self.bytes.len());
                    };
                    if self.text[at..end].contains(['\n', '\u{2028}', '\u{2029}']) {
                        saw_block_newline = true;
                    }
                    at = end;
                    if self.peek(at) != Some('/') && !consume {
                        return (
                            if saw_block_newline {
                                Ws::Accept
                            } else {
                                Ws::NoNewline
                            },
                            at,
                        );
                    }
                }
                _ => return (Ws::Reject, at + 1),
            }
        }
    }

    /// Closes a statement that ends in `_semicolon`: at its `;`, or where
    /// the automatic semicolon goes.
    fn close_semicolon(&mut self, span: Span, after: After) {
        let end = span.end as usize;
        if end > 0 && self.bytes[end - 1] == b';' && end > self.pos {
            self.close(end);
            return;
        }
        match self.asi_end(end.max(self.pos), after) {
            Some(at) => self.close(at),
            None => {
                self.fail(line!());
                self.close(end);
            }
        }
    }

    /// Closes a node whose rule ends in an optional automatic semicolon
    /// (declarations, blocks): it takes a comment in where the scanner puts
    /// one after it.
    fn close_optional_asi(&mut self, end: usize, after: After) {
        let end = end.max(self.pos);
        match self.asi_end(end, after) {
            Some(at) if at > end => self.close(at),
            _ => self.close(end),
        }
    }

    // ---- program and statements ------------------------------------------

    fn program(&mut self, p: &Program) {
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

    fn directive(&mut self, d: &Directive) {
        self.open(self.k.expression_statement, NO_FIELD, d.span.start as usize);
        self.string(&d.expression.span, NO_FIELD);
        self.close_semicolon(d.span, After::Expression);
    }

    fn statement(&mut self, s: &Statement, field: u8) {
        if self.bail || self.too_deep() {
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
    fn block(
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

    fn function_body(&mut self, body: Option<&FunctionBody>, field: u8, after: After) {
        match body {
            Some(b) => self.block(b.span, &b.directives, &b.statements, field, after),
            None => self.fail(line!()),
        }
    }

    /// `;` alone (tree-sitter's node holds the token).
    fn empty_statement(&mut self, at: usize, field: u8) {
        self.open(self.k.empty_statement, field, at);
        self.close(at + 1);
    }

    /// `( expression )` where the grammar has a parenthesized condition the
    /// AST leaves out.
    fn parenthesized(&mut self, e: &Expression, field: u8) {
        let open = self.find(self.pos, "(");
        self.open(self.k.parenthesized_expression, field, open);
        self.expression(e, NO_FIELD);
        let close = self.find(self.pos, ")");
        self.close(close + 1);
    }

    fn declaration(&mut self, d: &VariableDeclaration, field: u8, in_for: bool) {
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

    fn for_statement(&mut self, x: &ForStatement, field: u8) {
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

    fn for_in(
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

    fn switch(&mut self, x: &SwitchStatement, field: u8) {
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

    fn import(&mut self, x: &ImportDeclaration, field: u8) {
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

    fn export_clause(&mut self, specs: &[ExportSpecifier]) {
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

    fn module_export_name(&mut self, n: &ModuleExportName, field: u8) {
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

    // ---- functions and classes -------------------------------------------

    /// `after`: the ASI state after the body's `}` (see `After`).
    fn function(&mut self, func: &Function, field: u8, declaration: bool, after: After) {
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

    fn formal_parameters(&mut self, params: &FormalParameters, field: u8) {
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

    fn rest_binding(&mut self, r: &BindingRestElement, field: u8) {
        self.open(self.k.rest_pattern, field, r.span.start as usize);
        self.binding(&r.argument, NO_FIELD);
        self.close(r.span.end as usize);
    }

    fn arrow(&mut self, a: &ArrowFunctionExpression, field: u8) {
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

    fn class(&mut self, c: &Class, field: u8, declaration: bool, after: After) {
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
            if self.bail {
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
    fn method(
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

    fn property_name(&mut self, key: &PropertyKey, computed: bool, field: u8) {
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

    // ---- patterns ----------------------------------------------------------

    /// tree-sitter's `undefined` node is the word as written (an escaped
    /// `undefin\u0065d` is an identifier).
    fn is_undefined(&self, span: Span) -> bool {
        &self.text[span.start as usize..span.end as usize] == "undefined"
    }

    fn binding_identifier(&mut self, span: Span, name: &str, field: u8) {
        if name == "undefined"
            || name == "yield"
            || self.text[span.start as usize..span.end as usize].contains('\\')
        {
            self.fail(line!());
            return;
        }
        self.leaf(self.k.identifier, field, span);
    }

    fn binding(&mut self, p: &BindingPattern, field: u8) {
        if self.bail {
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
                                self.open(
                                    k.object_assignment_pattern,
                                    NO_FIELD,
                                    p.span.start as usize,
                                );
                                self.leaf(
                                    k.shorthand_property_identifier_pattern,
                                    f.left,
                                    p.key.span(),
                                );
                                self.expression(&a.right, f.right);
                                self.close(p.span.end as usize);
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

    fn assignment_target(&mut self, t: &AssignmentTarget, field: u8) {
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
                        AssignmentTargetProperty::AssignmentTargetPropertyIdentifier(p) => {
                            match &p.init {
                                Some(init) => {
                                    self.open(
                                        k.object_assignment_pattern,
                                        NO_FIELD,
                                        p.span.start as usize,
                                    );
                                    self.leaf(
                                        k.shorthand_property_identifier_pattern,
                                        f.left,
                                        p.binding.span,
                                    );
                                    self.expression(init, f.right);
                                    self.close(p.span.end as usize);
                                }
                                None => self.leaf(
                                    k.shorthand_property_identifier_pattern,
                                    NO_FIELD,
                                    p.binding.span,
                                ),
                            }
                        }
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
    fn no_parenthesized_target(&mut self, span: Span) {
        let start = span.start as usize;
        if self.pos <= start && self.bytes[self.pos..start].contains(&b'(') {
            self.fail(line!());
        }
    }

    fn target_maybe_default(&mut self, t: &AssignmentTargetMaybeDefault, field: u8) {
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

    // ---- expressions -------------------------------------------------------

    fn expression(&mut self, e: &Expression, field: u8) {
        if self.bail || self.too_deep() {
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
            Expression::TemplateLiteral(t) => self.template(t, field),
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
                let plain = a.operator == oxc_syntax_assign();
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
                self.template(&t.quasi, f.arguments);
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

    fn binary(&mut self, span: Span, left: &Expression, right: &Expression, field: u8) {
        let (k, f) = (self.k, self.f);
        self.open(k.binary_expression, field, span.start as usize);
        self.expression(left, f.left);
        self.gap_with(right.span().start as usize, f.operator);
        self.expression(right, f.right);
        self.close(span.end as usize);
    }

    fn spread(&mut self, s: &SpreadElement) {
        self.open(self.k.spread_element, NO_FIELD, s.span.start as usize);
        self.expression(&s.argument, NO_FIELD);
        self.close(s.span.end as usize);
    }

    fn optional_chain(&mut self) {
        let at = self.find(self.pos, "?.");
        self.leaf(
            self.k.optional_chain,
            self.f.optional_chain,
            Span::new(at as u32, at as u32 + 2),
        );
    }

    fn member(&mut self, m: &MemberExpression, field: u8) {
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

    fn call(&mut self, c: &CallExpression, field: u8) {
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

    fn arguments(&mut self, start: usize, end: usize, args: &[Argument]) {
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

    fn object(&mut self, o: &ObjectExpression, field: u8) {
        let (k, f) = (self.k, self.f);
        self.open(k.object, field, o.span.start as usize);
        for p in &o.properties {
            if self.bail {
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
    fn string(&mut self, span: &Span, field: u8) {
        let k = self.k;
        let (start, end) = (span.start as usize, span.end as usize);
        if end < start + 2 {
            self.fail(line!());
            return;
        }
        self.open(k.string, field, start);
        self.gap(start + 1);
        self.fragments(start + 1, end - 1, false);
        self.gap(end);
        self.close(end);
    }

    /// The text of a string or template between `start` and `end`, as
    /// `string_fragment` and `escape_sequence` nodes.
    fn fragments(&mut self, start: usize, end: usize, template: bool) {
        let k = self.k;
        let mut at = start;
        while at < end {
            if self.bytes[at] == b'\\' {
                let len = self.escape_len(at, end);
                if len == 0 {
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
    fn escape_len(&self, at: usize, end: usize) -> usize {
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

    fn template(&mut self, t: &TemplateLiteral, field: u8) {
        let k = self.k;
        let (start, end) = (t.span.start as usize, t.span.end as usize);
        self.open(k.template_string, field, start);
        for (i, q) in t.quasis.iter().enumerate() {
            let (qs, qe) = (q.span.start as usize, q.span.end as usize);
            self.gap(qs);
            self.fragments(qs, qe, true);
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

/// Nesting past which the text goes to tree-sitter: far beyond real code
/// (the library's deepest module nests ≈ 40 levels), far within a 2 MB
/// stack.
const MAX_NESTING: usize = 400;

/// An over-estimate of how deeply `text` nests, from one pass over its
/// bytes: open brackets (strings, templates and comments skipped) plus the
/// longest run of operators, nesting keywords, `(` and `[` between two
/// statement or list boundaries (`,`, braces, and `;` outside parentheses
/// within the innermost braces),
/// which is how `if (x) if (x) …`, `else if` chains, `for (;;) for (;;) …`,
/// `!!!!x`, `a ? b : c ? …`, `a + b + …`, `a.b.c…`, `f()()…` and
/// `class extends class extends …` nest without staying inside brackets.
///
/// A guess can only err upwards: a regular expression's body is scanned as
/// code (its brackets count, closers never below the depth it started at),
/// and a string or comment ends at the first line break of any kind.
fn nesting_bound(text: &[u8]) -> usize {
    let mut depth: usize = 0;
    // Unclosed `(` and `[` since the innermost open brace: inside them `;`
    // and `,` end nothing. The counts of the enclosing braces are stacked.
    let mut parens: usize = 0;
    let mut outer_parens: Vec<usize> = Vec::new();
    let mut run: usize = 0;
    let mut max = 0;
    // Template literals open inside substitutions: the brace depth at
    // which each open `${` started.
    let mut templates: Vec<usize> = Vec::new();
    // Inside a regular expression: the depth it started at (its brackets
    // count, its closers never below that), and whether in a class.
    let mut regex_floor: Option<usize> = None;
    let mut class = false;
    // Whether a `/` here starts a regular expression, as a tokenizer
    // decides it: after a value (a name, a literal, `)` or `]`) it divides,
    // except after the `)` of an `if`/`for`/`while`/`with` head; after `}`
    // it is taken for a regular expression, whose scan counts every
    // bracket, so a wrong guess can only err upwards.
    let mut regex_ok = true;
    // Per open `(`: whether it heads an `if`, `for`, `while` or `with`.
    let mut heads: Vec<bool> = Vec::new();
    let mut after_head_keyword = false;
    let mut i = 0;
    let n = text.len();
    let line_end = |from: usize| {
        (from..n)
            .find(|&j| matches!(text[j], b'\n' | b'\r') || starts_with_line_separator(&text[j..]))
            .unwrap_or(n)
    };
    while i < n {
        let b = text[i];
        if let Some(floor) = regex_floor {
            match b {
                b'\\' => i += 1,
                b'/' if !class => {
                    regex_floor = None;
                    regex_ok = false;
                }
                b'\n' | b'\r' => regex_floor = None,
                b'(' | b'[' => {
                    depth += 1;
                    run += 1;
                    class |= b == b'[';
                }
                b')' | b']' => {
                    depth = depth.saturating_sub(1).max(floor);
                    class &= b != b']';
                }
                _ => {}
            }
            max = max.max(depth + run);
            i += 1;
            continue;
        }
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'/' if text.get(i + 1) == Some(&b'/') => {
                i = line_end(i);
                continue;
            }
            b'/' if text.get(i + 1) == Some(&b'*') => {
                i = memchr::memmem::find(&text[i + 2..], b"*/").map_or(n, |j| i + 2 + j + 2);
                continue;
            }
            b'/' if regex_ok => {
                regex_floor = Some(depth);
                class = false;
                run += 1;
                i += 1;
                continue;
            }
            b'\'' | b'"' => {
                // To the closing quote, over escaped line breaks, or to an
                // unescaped line break.
                let mut j = i + 1;
                while j < n && text[j] != b {
                    if text[j] == b'\\' {
                        j += 1;
                        if text[j..].starts_with(b"\r\n") {
                            j += 2;
                        } else if starts_with_line_separator(&text[j..]) {
                            j += 3;
                        } else {
                            j += 1;
                        }
                    } else if matches!(text[j], b'\n' | b'\r')
                        || starts_with_line_separator(&text[j..])
                    {
                        break;
                    } else {
                        j += 1;
                    }
                }
                // Unclosed on its line: not a string; count what follows.
                i = if text.get(j) == Some(&b) {
                    j + 1
                } else {
                    i + 1
                };
                regex_ok = false;
                after_head_keyword = false;
                continue;
            }
            // A template's text, from its backtick or from the `}` that
            // ends one of its substitutions, to its end or next `${`.
            b'`' | b'}' if b == b'`' || templates.last() == Some(&(depth.saturating_sub(1))) => {
                if b == b'}' {
                    templates.pop();
                    depth = depth.saturating_sub(1);
                    parens = outer_parens.pop().unwrap_or(0);
                }
                i = template_text(text, i + 1);
                if text.get(i) == Some(&b'$') {
                    templates.push(depth);
                    depth += 1;
                    outer_parens.push(parens);
                    parens = 0;
                    i += 2;
                    regex_ok = true;
                } else {
                    i += 1;
                    regex_ok = false;
                }
                after_head_keyword = false;
                max = max.max(depth + run);
                continue;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                // `f()()…` and `a[0][0]…` nest without staying open.
                if b == b'{' {
                    run = 0;
                    outer_parens.push(parens);
                    parens = 0;
                } else {
                    run += 1;
                    parens += 1;
                }
                if b == b'(' {
                    heads.push(after_head_keyword);
                }
                regex_ok = true;
                after_head_keyword = false;
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if b == b'}' {
                    run = 0;
                    parens = outer_parens.pop().unwrap_or(0);
                } else {
                    parens = parens.saturating_sub(1);
                }
                regex_ok = match b {
                    b')' => heads.pop().unwrap_or(false),
                    b']' => false,
                    _ => true,
                };
                after_head_keyword = false;
            }
            b';' | b',' => {
                let next = text[i + 1..]
                    .iter()
                    .position(|c| !c.is_ascii_whitespace())
                    .map_or(n, |j| i + 1 + j);
                if (b == b',' || parens == 0) && !text[next..].starts_with(b"else") {
                    run = 0;
                }
                regex_ok = true;
                after_head_keyword = false;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$' | b'0'..=b'9' | 0x80.. => {
                let start = i;
                while i < n
                    && (text[i].is_ascii_alphanumeric() || matches!(text[i], b'_' | b'$' | 0x80..))
                {
                    i += 1;
                }
                let word = &text[start..i];
                let keyword = matches!(
                    word,
                    b"if"
                        | b"else"
                        | b"for"
                        | b"while"
                        | b"do"
                        | b"with"
                        | b"return"
                        | b"typeof"
                        | b"void"
                        | b"delete"
                        | b"await"
                        | b"new"
                        | b"yield"
                        | b"throw"
                        | b"case"
                        | b"in"
                        | b"of"
                        | b"instanceof"
                        | b"class"
                        | b"extends"
                        | b"async"
                        | b"function"
                );
                if keyword {
                    run += 1;
                }
                // After these a `/` starts a regular expression; after any
                // other word it divides.
                regex_ok = keyword && !matches!(word, b"class" | b"async" | b"function")
                    || word == b"extends";
                after_head_keyword = matches!(word, b"if" | b"for" | b"while" | b"with");
                max = max.max(depth + run);
                continue;
            }
            _ => {
                // An operator or other punctuator.
                run += 1;
                regex_ok = true;
                after_head_keyword = false;
            }
        }
        max = max.max(depth + run);
        i += 1;
    }
    max
}

/// The end of a template literal's text starting at `i`: the offset of its
/// closing backtick or of the `$` of a `${`, or the end.
fn template_text(text: &[u8], mut i: usize) -> usize {
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'`' => return i,
            b'$' if text.get(i + 1) == Some(&b'{') => return i,
            _ => i += 1,
        }
    }
    text.len()
}

/// U+2028 or U+2029 (3 bytes in UTF-8).
fn starts_with_line_separator(b: &[u8]) -> bool {
    b.len() >= 3 && b[0] == 0xe2 && b[1] == 0x80 && matches!(b[2], 0xa8 | 0xa9)
}

/// `\n`, U+2028 or U+2029 in `b`: what tree-sitter's scanner takes as a
/// line break.
fn has_line_break(b: &[u8]) -> bool {
    b.contains(&b'\n') || b.windows(3).any(starts_with_line_separator)
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ws {
    Reject,
    NoNewline,
    Accept,
}

/// `iswspace` as tree-sitter-javascript's scanner sees it, and the
/// whitespace its grammar skips.
/// `iswspace` in the C locale tree-sitter's scanner runs in: ASCII only.
fn is_c_space(c: char) -> bool {
    c == ' ' || ('\t'..='\r').contains(&c)
}

fn is_js_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

fn oxc_syntax_assign() -> oxc_ast::ast::AssignmentOperator {
    oxc_ast::ast::AssignmentOperator::Assign
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The writer's tree for `src`, which must be tree-sitter's.
    fn same_tree_both_ways(src: &str) -> Result<(), String> {
        let ts = crate::js::parse::parse_tree(src).ok_or("no tree")?;
        if ts.root_node().has_error() {
            return Err(format!("tree-sitter error in {src:?}"));
        }
        let ours = parse_or_why(src).map_err(|why| format!("fell back at {why:?}: {src:?}"))?;
        match ts.first_difference(&ours) {
            Some(d) => Err(format!("{d}\nin {src:?}")),
            None => Ok(()),
        }
    }

    #[test]
    fn constructs_come_out_as_the_grammar_writes_them() {
        let cases = [
            "#!/usr/bin/env node\n'use strict';\nimport a, { b as c, d } from \"x\";\nimport * as ns from 'y';\nimport 'z';\n",
            "const a = 1, b = 2;\nexport { a, b as c };\nexport * from 'm';\nexport * as n from 'm';\nexport { default as dk } from 'k';\nexport default function process(inputs, ctx) {}\n",
            "export default async function () {}\nexport const t = 1, u = 2;\nexport class K extends Base { static x = 1; #p; get v() { return this.#p } set v(x) {} static { init() } async *gen() {} [k]() {} 'q'() {} 1() {} }\n",
            "const o = { a, b: 1, 'c': 2, [d]: 3, ...e, f() {}, async g() {}, get h() { return 1 }, *i() {} };\n",
            "const { a, b: [c, d = 1], ...rest } = x; let [p, , q = 2, ...r] = y; var z;\n",
            "({ a, b: c = 1, d = 2 } = o); [x, [y], ...z] = arr; a.b += 1; a[b] ??= c; x++; --y;\n",
            "for (let i = 0; i < n; i++) {} for (;;) break; for (x in o); for (const v of vs) continue; for await (const v of it) {}\n",
            "outer: { inner: { let x = 1; break outer; } }\nlabel: for (;;) { if (a) continue label; else break label; }\nwhile (a) a--; do { b() } while (c)\nwith_(x);\n",
            "switch (v) { case 1: case 2: f(); break; default: g() }\ntry { a() } catch { b() } finally { c() }\ntry { a() } catch ({ message }) {}\nthrow new Error(`bad ${x}`);\n",
            "const f = async (a, { b }, ...c) => { await a; }; const g = x => x * 2; const h = async x => ({ x });\n",
            "const s = 'it\\'s \\n \\x41 \\u0041 \\u{1F600} \\0 \\\n end'; const t = `a\\`b ${c} $d ${ `n${e}` }`; tag`x${y}`;\n",
            "const r = /a[/]b\\//gi; const q = a / b / c; const n = 0x1f + 1_000n + .5e3;\n",
            "a?.b?.[c]?.(d); new Foo; new Foo.Bar(1); function nt() { return new.target }; import.meta.url; import('x').then(y);\n",
            "x = a ? b : c; y = a?.5:1; z = (a, b), w = !a && -b || typeof c; n = a ?? void 0; delete o[k]; v = a instanceof B, u = 'k' in o;\n",
            "function* g() { yield; yield a; yield* b; }\nclass C { #x = 1; has(o) { return #x in o } }\nconst undef = undefined; function f(a = undefined) {}\n",
            // Comments at every level, and statements ended by an automatic
            // semicolon with a comment on their last line.
            "/* lead */ a() // one\nb = 1 /* two */\n// three\nc /* four */ // five\n{ d() // six\n}\nreturn_()\n",
            "function f() {\n  return // none\n}\nconst g = () => {\n} // after arrow body\nfoo()\nlet x // after a name\nlet y = 1 // after a value\nexport default y // after a default\n",
            "if (a) b() // c\nelse d()\nconst e = f( // g\n  h, /* i */ j)\n",
            // Blocks and declarations that tree-sitter also reads as
            // expressions take a comment after their `}` in.
            "function f() {\n  b()\n}// z\nasync function g() {}// y\nclass A {\n}// w\nfoo()\n",
            "{\n}// z\nif (a) {\n} else {\n}// y\nlabel: {\n}// x\ndo {\n}// v\nwhile (a)\n",
            "if (a) {\n  b()\n}// z\ntry {\n}// y\nfinally {\n}// x\nexport function h() {\n}// w\nexport class K {\n}// u\nfoo()\n",
            "x = { m() {\n}// z\n}; class B { m() {\n  }// y\n  static {\n  }// x\n}\n",
            // Found by the second review.
            "export default function f() {} // c\nfoo()\n",
            "export default class A {} // c\nfoo()\n",
            "s = '\\?\u{2028}'; u = '\\\r\u{2028}';\n",
            "#!/usr/bin/env node\r\nx = 1;\r\n",
            "undefin\\u0065d = 1; undefined++; ++undefined;\n",
            "for (;;) { break\u{a0}// c\nfoo() }\nlet x\u{a0}// c\ny = 1\n",
            "var a = 1\n;[b] = c\nvar d = 1\n// e\n(f)\n",
        ];
        let failed: Vec<String> = cases
            .iter()
            .filter_map(|c| same_tree_both_ways(c).err())
            .collect();
        assert!(failed.is_empty(), "{}", failed.join("\n\n"));
    }

    #[test]
    fn what_the_writer_cannot_render_falls_back() {
        for src in [
            "const a = ;", // a syntax error
            "(a) = 1;",    // parentheses the AST drops
            "++(a);",
            "[(a)] = b;",
            "for ((a) in b);",
            "{ a: 1 }",               // tree-sitter reads an object
            "const x = <div />;",     // JSX
            "let v: number = 1;",     // TypeScript
            "import a, {} from 'b';", // an empty list the AST drops
            "function f(yield) {}",   // tree-sitter reads a yield
            "async function f() { await // c\n g() }",
            "export // c\nconst a = 1;",
            "const a /* x\n */ = 1;",
            "async function f() { x = await (a)(b) }",
            "async function f() { x = await (a).b }",
            "{ a: {} }",
            "{ a: function f() {} }",
            "class A { get\u{2028} x() {} }",
            "#!/x\ry = 1",
        ] {
            assert!(parse(src).is_none(), "{src:?} should fall back");
        }
    }

    #[test]
    fn every_fixture_module_it_accepts_has_the_same_tree() {
        let mut files = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures"
        ))];
        while let Some(dir) = dirs.pop() {
            for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "js" || x == "mjs") {
                    files.push(p);
                }
            }
        }
        assert!(files.len() > 50, "fixtures not found");
        let mut accepted = 0;
        for f in &files {
            let Ok(text) = std::fs::read_to_string(f) else {
                continue;
            };
            let Some(ts) = crate::js::parse::parse_tree(&text) else {
                continue;
            };
            if let Some(ours) = parse(&text) {
                accepted += 1;
                assert_eq!(ts.first_difference(&ours), None, "{}", f.display());
            } else {
                assert!(
                    ts.root_node().has_error(),
                    "{} fell back without a syntax error",
                    f.display()
                );
            }
        }
        assert!(
            accepted * 10 >= files.len() * 9,
            "{accepted} of {}",
            files.len()
        );
    }

    /// On a test thread's 2 MB stack: nesting past the bound goes to
    /// tree-sitter before oxc recurses, and nesting just under it parses.
    #[test]
    fn deep_nesting_falls_back_before_the_stack_runs_out() {
        let n = 100_000;
        let deep = [
            format!("x = {}1{};", "(".repeat(n), ")".repeat(n)),
            format!("x = {}1{};", "[".repeat(n), "]".repeat(n)),
            format!("x = {}1{};", "{a: ".repeat(n), "}".repeat(n)),
            format!("{}{}", "{".repeat(n), "}".repeat(n)),
            format!("{}y();", "if (x) ".repeat(n)),
            format!("x = {}y;", "!".repeat(n)),
            format!("x = {}y;", "a ? b : ".repeat(n)),
            format!("x = {}y;", "a => ".repeat(n)),
            format!("x = {}y;", "a = ".repeat(n)),
            format!("x = {}y;", "new ".repeat(n)),
            format!("x = a{};", " + a".repeat(n)),
            format!("x = a{};", ".b".repeat(n)),
            format!("{}x();", "if (a);else ".repeat(n)),
            format!("{}x();", "for (;;) ".repeat(n)),
            format!(
                "x = {}A {{}}{};",
                "class extends ".repeat(n),
                " {}".repeat(n)
            ),
            format!("// c\r{}1{};", "(".repeat(n), ")".repeat(n)),
            format!("// c\u{2028}{}1{};", "(".repeat(n), ")".repeat(n)),
            format!("x = a++ / 2; y = {}1{}/3;", "(".repeat(n), ")".repeat(n)),
            format!("if (x) /'/; y = {}1{};", "(".repeat(n), ")".repeat(n)),
            format!("x = {}1{};", "`${".repeat(n), "}`".repeat(n)),
        ];
        for src in &deep {
            assert!(parse(src).is_none(), "{}", &src[..20]);
        }
        let near = MAX_NESTING / 2 - 10;
        let fine = format!("x = {}1{};", "(".repeat(near), ")".repeat(near));
        assert!(parse(&fine).is_some());
    }
}
