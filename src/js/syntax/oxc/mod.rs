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
    // The parser's errors (regular expressions validated too), then
    // ECMAScript's early errors (a name declared twice, `await` outside
    // async code…), which only the semantic pass reports: Node refuses to
    // load a module with either.
    let accepts = |source_type: SourceType, text: &str| {
        let arena = Allocator::default();
        let options = oxc_parser::ParseOptions {
            parse_regular_expression: true,
            ..oxc_parser::ParseOptions::default()
        };
        let ret = oxc_parser::Parser::new(&arena, text, source_type)
            .with_options(options)
            .parse();
        if ret.panicked || ret.diagnostics.has_errors() {
            return false;
        }
        let semantic = oxc_semantic::SemanticBuilder::new()
            .with_check_syntax_error(true)
            .build(&ret.program);
        !semantic.diagnostics.has_errors()
    };
    // CommonJS compiles the module as the body of a function of these
    // parameters: `return` is allowed at the top, and `let module` is a
    // redeclaration. A `#!` line is dropped first, as Node does.
    let body = match text.strip_prefix("#!") {
        Some(rest) => rest.find(['\n', '\r']).map_or("", |i| &rest[i..]),
        None => text,
    };
    let wrapped =
        format!("(function (exports, require, module, __filename, __dirname) {{\n{body}\n}});");
    Loads {
        module: accepts(SourceType::mjs(), text),
        commonjs: accepts(SourceType::script(), &wrapped),
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
