//! The fast front end: oxc parses, and its AST is written out as the tree
//! tree-sitter-javascript would give for the same text (`js::syntax::tree::Tree`:
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
//! One text has no tree-sitter tree to match: a tagged template's invalid
//! escapes (``String.raw`C:\users` ``), valid JavaScript that its grammar
//! reads as an ERROR. The writer renders them as escapes (`fragments` in
//! `expressions`), so the CLI agrees with Node there.
//!
//! The AST has no punctuation or comments: they are lexed from the text
//! between the children ([`Writer::gap`]), where only whitespace, comments,
//! punctuators and keywords can be. A comment belongs to the smallest node
//! that has a token on both sides of it, as in tree-sitter, with one
//! exception that tree-sitter's scanner makes: a statement ended by an
//! automatic semicolon can take a comment on its last line inside it
//! ([`Writer::asi_end`]).
//!
//! The writer is one type, `Writer`, whose methods live by what they write:
//! `text` (tokens and comments between children), `asi` (the scanner's
//! automatic semicolons), `statements`, `functions` (and classes),
//! `patterns`, `expressions` (and literals); `nesting` is the pre-scan
//! that keeps deep text away from oxc's recursion.

use std::sync::OnceLock;

use oxc_allocator::Allocator;
use oxc_span::SourceType;

use crate::js::syntax::tree::{self, Builder, Tree};

mod asi;
mod expressions;
mod functions;
mod nesting;
mod patterns;
mod statements;
#[cfg(test)]
mod tests;
mod text;

use nesting::{nesting_bound, MAX_NESTING};

/// The tree of `text`, or `None` when tree-sitter has to parse it.
pub fn parse(text: &str) -> Option<Tree> {
    parse_or_why(text).ok()
}

/// [`parse`], or why not: the writer's source line that gave up (0: oxc
/// rejected the text) and the offset it had reached.
#[doc(hidden)]
pub fn parse_or_why(text: &str) -> Result<Tree, (u32, usize)> {
    // The text tree-sitter reads (the same length): a lone CR is a line
    // break for the writer's port of its scanner too, and the characters
    // both should reject are rejected by oxc as well.
    let text = &*crate::js::syntax::parser_text(text);
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
    let mut tree = w.finish()?;
    tree.cook_names(text);
    Ok(tree)
}

/// How Node could load a text: as an ES module, as a CommonJS module (a
/// script wrapped in a function, so `return` is allowed at the top), both,
/// or neither, by oxc's parser (which reports ECMAScript's syntax errors).
/// `None` when the text could nest deeper than is safe to parse here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loads {
    pub module: bool,
    pub commonjs: bool,
}

pub fn loads(text: &str) -> Option<Loads> {
    // Each level of nesting is at least a byte, so a text this short cannot
    // recurse deeper than a large stack holds, even where the pre-scan
    // gives up; longer texts the pre-scan cannot bound are not judged.
    const CHECKABLE: usize = 512 << 10;
    if text.len() >= (u32::MAX / 2) as usize {
        return None;
    }
    if nesting_bound(text.as_bytes()) <= MAX_NESTING {
        return Some(loads_unbounded(text));
    }
    if text.len() > CHECKABLE {
        return None;
    }
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn({
            let text = text.to_string();
            move || loads_unbounded(&text)
        })
        .ok()?
        .join()
        .ok()
}

/// [`loads`] without the guard against deep nesting.
fn loads_unbounded(text: &str) -> Loads {
    Loads {
        module: first_error(SourceType::mjs(), text).is_none(),
        commonjs: commonjs_error(text).is_none(),
    }
}

/// How Node would load a file, from its name and the nearest package.json
/// (decided by the engine): as an ES module (`.mjs`, `"type": "module"`), as
/// CommonJS (`.cjs`, `"type": "commonjs"`), or, with no `"type"`, as CommonJS
/// unless that fails on module syntax (an `import`, `export`, top-level
/// `await`, a `let require`…), when Node compiles it again as an ES module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadAs {
    Module,
    CommonJs,
    Either,
}

/// Why Node refuses to load a text, from oxc's first diagnostic (by
/// position): its message, the span it points at and its other labelled
/// spans (the first declaration of a name declared twice). Offsets are the
/// text's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub message: String,
    pub span: (usize, usize),
    pub label: Option<String>,
    pub related: Vec<((usize, usize), Option<String>)>,
    /// oxc's advice, when it gives one.
    pub help: Option<String>,
}

/// Whether Node would load `text` as `load_as` says: `Ok(())`, or the first
/// error, by oxc's parser (regular expressions validated) and ECMAScript's
/// early errors (`oxc_semantic`'s syntax checks). `None` when the text could
/// nest deeper than is safe to parse here.
pub fn load_error(text: &str, load_as: LoadAs) -> Option<Result<(), LoadError>> {
    const CHECKABLE: usize = 512 << 10;
    // The characters Node rejects between tokens and oxc skips as
    // whitespace (U+0085, U+200B…) are made ones oxc rejects too; the
    // length is kept, so spans hold in `text`.
    let text = &*crate::js::syntax::parser_text(text);
    if text.len() >= (u32::MAX / 2) as usize {
        return None;
    }
    if nesting_bound(text.as_bytes()) <= MAX_NESTING {
        return Some(load_error_unbounded(text, load_as));
    }
    if text.len() > CHECKABLE {
        return None;
    }
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn({
            let text = text.to_string();
            move || load_error_unbounded(&text, load_as)
        })
        .ok()?
        .join()
        .ok()
}

fn load_error_unbounded(text: &str, load_as: LoadAs) -> Result<(), LoadError> {
    let module = || first_error(SourceType::mjs(), text);
    let error = match load_as {
        LoadAs::Module => module(),
        LoadAs::CommonJs => commonjs_error(text),
        // Node compiles CommonJS first and, when that fails on module
        // syntax, the module; what compiles as a module fails as CommonJS
        // only on such syntax (`import`, `let require`, top-level `await`),
        // so the module is judged first: one parse for most files.
        LoadAs::Either => module().and_then(|esm| {
            if has_module_syntax(text) {
                Some(esm)
            } else {
                commonjs_error(text)
            }
        }),
    };
    error.map_or(Ok(()), Err)
}

/// The error compiling `text` as CommonJS does: the body of a function of
/// the wrapper's parameters (`return` allowed at the top, `let module` a
/// redeclaration), after a `#!` line, which Node drops.
fn commonjs_error(text: &str) -> Option<LoadError> {
    const HEAD: &str = "(function (exports, require, module, __filename, __dirname) {\n";
    let body = match text.strip_prefix("#!") {
        Some(rest) => rest.find(['\n', '\r']).map_or("", |i| &rest[i..]),
        None => text,
    };
    let wrapped = format!("{HEAD}{body}\n}});");
    // Positions in the wrapper, back to the text: the body starts at
    // `HEAD.len()` there and at `text.len() - body.len()` here.
    first_error(SourceType::script(), &wrapped).map(|mut e| {
        let back =
            |at: usize| (at.saturating_sub(HEAD.len()) + text.len() - body.len()).min(text.len());
        e.span = (back(e.span.0), back(e.span.1));
        for (span, _) in &mut e.related {
            *span = (back(span.0), back(span.1));
        }
        e
    })
}

/// Whether `text` holds an `import` or `export` declaration, `import.meta`
/// or a top-level `await`: what makes Node retry a file as a module.
fn has_module_syntax(text: &str) -> bool {
    let arena = Allocator::default();
    let ret = oxc_parser::Parser::new(&arena, text, SourceType::unambiguous()).parse();
    ret.module_record.has_module_syntax
}

/// The first error (by position) oxc reports for `source`, parsed as
/// `source_type`.
fn first_error(source_type: SourceType, source: &str) -> Option<LoadError> {
    // Each call assigned to is a parse that stops there: a text can hold
    // only so many, and one with more is judged by the last parse.
    let mut source = std::borrow::Cow::Borrowed(source);
    for _ in 0..64 {
        match parse_errors(source_type, &source) {
            Err(at) => {
                let mut text = source.into_owned();
                text.replace_range(at.0..at.1, &"_".repeat(at.1 - at.0));
                source = std::borrow::Cow::Owned(text);
            }
            Ok(error) => return error,
        }
    }
    None
}

/// The first error of one parse, or `Err` with the span of a call that
/// is assigned to, which V8 accepts when it compiles (the assignment throws
/// a ReferenceError when it runs) and oxc's parser does not.
fn parse_errors(
    source_type: SourceType,
    source: &str,
) -> Result<Option<LoadError>, (usize, usize)> {
    let arena = Allocator::default();
    let options = oxc_parser::ParseOptions {
        parse_regular_expression: true,
        ..oxc_parser::ParseOptions::default()
    };
    let ret = oxc_parser::Parser::new(&arena, source, source_type)
        .with_options(options)
        .parse();
    let first = ret
        .diagnostics
        .errors()
        .map(|d| load_error_of(d, source.len()))
        .min_by_key(|e| e.span);
    if let Some(e) = first {
        if e.message == "Cannot assign to this expression" && call_assigned_to(source, e.span) {
            return Err(e.span);
        }
        return Ok(Some(e));
    }
    if ret.panicked {
        return Ok(Some(LoadError {
            message: "Unexpected token".into(),
            span: (0, 0),
            label: None,
            related: Vec::new(),
            help: None,
        }));
    }
    let semantic = oxc_semantic::SemanticBuilder::new()
        .with_check_syntax_error(true)
        .build(&ret.program);
    Ok(semantic
        .diagnostics
        .errors()
        .map(|d| load_error_of(d, source.len()))
        .min_by_key(|e| e.span))
}

/// Whether `source[span]` is a call (not optional, parenthesised or not)
/// that `=`, an arithmetic compound assignment, `++`/`--` or a `for … of`/
/// `in` head assigns to: what V8 compiles (`&&=` and destructuring it
/// rejects, as oxc does).
fn call_assigned_to(source: &str, (start, end): (usize, usize)) -> bool {
    let Some(target) = source.get(start..end) else {
        return false;
    };
    let arena = Allocator::default();
    let mut expr = oxc_parser::Parser::new(&arena, target, SourceType::mjs()).parse_expression();
    while let Ok(oxc_ast::ast::Expression::ParenthesizedExpression(p)) = expr {
        expr = Ok(p.unbox().expression);
    }
    if !matches!(&expr, Ok(oxc_ast::ast::Expression::CallExpression(c)) if !c.optional) {
        return false;
    }
    // `(f()) = 1`: oxc points at the call inside the parentheses.
    let (mut before, mut after) = (source[..start].trim_end(), source[end..].trim_start());
    while let (Some(b), Some(a)) = (before.strip_suffix('('), after.strip_prefix(')')) {
        (before, after) = (b.trim_end(), a.trim_start());
    }
    let compound = [
        "+=", "-=", "*=", "/=", "%=", "**=", "<<=", ">>=", ">>>=", "&=", "|=", "^=",
    ];
    (after.starts_with('=') && !after.starts_with("==") && !after.starts_with("=>"))
        || compound.iter().any(|op| after.starts_with(op))
        || after.starts_with("++")
        || after.starts_with("--")
        || before.ends_with("++")
        || before.ends_with("--")
        || after.starts_with("of ")
        || after.starts_with("in ")
}

/// One of oxc's diagnostics as a [`LoadError`]: the span marked primary,
/// else the last labelled one (oxc labels a redeclaration's first
/// declaration, then the second), the others related.
fn load_error_of(d: &oxc_diagnostics::OxcDiagnostic, len: usize) -> LoadError {
    let clamp = |s: oxc_span::Span| ((s.start as usize).min(len), (s.end as usize).min(len));
    let mut labels: Vec<_> = d.labels.iter().collect();
    let primary = labels
        .iter()
        .position(|l| l.primary())
        .or_else(|| labels.len().checked_sub(1));
    let (span, label) = match primary {
        Some(i) => {
            let l = labels.remove(i);
            (clamp(l.span()), l.label().map(str::to_string))
        }
        None => ((0, 0), None),
    };
    LoadError {
        message: d.message.to_string(),
        help: d.help.as_ref().map(|h| h.to_string()),
        span,
        label,
        related: labels
            .into_iter()
            .map(|l| (clamp(l.span()), l.label().map(str::to_string)))
            .collect(),
    }
}

impl Loads {
    /// Whether `after` still loads every way this text did.
    pub fn kept_by(self, after: Loads) -> bool {
        (!self.module || after.module) && (!self.commonjs || after.commonjs)
    }
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
    /// Where the writer gave up (its source line and the text offset).
    why: Option<(u32, usize)>,
    k: &'static Kinds,
    f: &'static Fields,
}

const NO_FIELD: u8 = 0;

impl<'s> Writer<'s> {
    pub(super) fn new(text: &'s str) -> Writer<'s> {
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
            why: None,
            k: kinds(),
            f: fields(),
        }
    }

    pub(super) fn finish(self) -> Result<Tree, (u32, usize)> {
        match self.why {
            None if self.out.depth() == 0 => Ok(self.out.finish()),
            None => Err((line!(), self.pos)),
            Some(why) => Err(why),
        }
    }

    /// The writer recurses per open node; `nesting_bound` should keep it
    /// far from this, which is a second guard for its stack.
    pub(super) fn too_deep(&mut self) -> bool {
        if self.out.depth() > 4 * MAX_NESTING {
            self.fail(line!());
            return true;
        }
        false
    }

    /// Whether the writer has met something it does not render as
    /// tree-sitter would (then nothing more is written).
    pub(super) fn failed(&self) -> bool {
        self.why.is_some()
    }

    pub(super) fn fail(&mut self, line: u32) {
        self.why.get_or_insert((line, self.pos));
    }
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

/// The whitespace the grammar skips between tokens: ECMAScript's
/// `WhiteSpace` and `LineTerminator` (not U+0085, which Rust's
/// `char::is_whitespace` counts and [`crate::js::syntax::parser_text`]
/// keeps from the parsers).
fn is_js_space(c: char) -> bool {
    // TAB, LF, VT, FF, CR, SP; the Unicode spaces; LS, PS.
    matches!(c, '\t'..='\r' | ' ')
        || matches!(
            c,
            '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}' | '\u{202f}'
        )
        || matches!(
            c,
            '\u{205f}' | '\u{3000}' | '\u{feff}' | '\u{2028}' | '\u{2029}'
        )
}
