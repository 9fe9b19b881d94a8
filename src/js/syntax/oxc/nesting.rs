//! How deeply a text could nest, over-estimated in one pass, so that what
//! could overflow oxc's recursion goes to tree-sitter.
//!
//! oxc's parser recurses once per level of nesting, has no limit of its
//! own, and goes on parsing after most errors: a stack overflow aborts the
//! process. So the estimate must never be low, whatever the text. It rests
//! on two things:
//! - **Tokens as oxc reads them.** Strings, templates, comments and
//!   regular expressions are skipped as oxc skips them, which needs the one
//!   decision a tokenizer cannot make alone: whether a `/` divides or
//!   starts a regular expression. Where the tokens before it do not settle
//!   that (a `/` after `}`, `++`, `--`, `.`, a contextual keyword, or a
//!   line break after a value), and wherever oxc reads text differently
//!   from its plain bytes (escapes in names, HTML-like comments), the text
//!   goes to tree-sitter rather than guess: one wrong guess could hide a
//!   whole file's nesting inside a string the scan believed in.
//! - **Levels as a stack.** Each bracket's contents start one level above
//!   everything open when the bracket opened, including the operators and
//!   keywords before it; within a bracket, every operator, nesting keyword
//!   and closed bracket adds a level. A `,` drops the expression's levels
//!   but keeps the statement's (`if`, `else`, loops); a `;` outside
//!   parentheses, or a new statement after `}`, drops both — unless an
//!   `else` or a `while` follows, which keeps the `if` or the `do` open.
//!
//! `examples/front_diff.rs` reports how many real modules fall back.

use crate::js::syntax::oxc::starts_with_line_separator;

/// Nesting past which the text goes to tree-sitter: far beyond real code
/// (the library's deepest module nests ≈ 40 levels), far within a 2 MB
/// stack.
pub(super) const MAX_NESTING: usize = 400;

/// What the last token makes of a `/` after it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slash {
    /// After an operator, `(`, a keyword that takes an operand, or the
    /// start: a regular expression.
    Regex,
    /// After a value (a name, a literal, `)`, `]`): division.
    Divide,
    /// Either, depending on what came before; the scan gives up.
    Unknown,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    /// `(`, and whether it heads an `if`, `for`, `while` or `with`, after
    /// which a `/` starts a regular expression.
    Paren {
        head: bool,
    },
    Bracket,
    Brace,
    /// A template literal's `${`.
    Substitution,
}

/// Levels where the innermost bracket's contents start (`base`), added
/// since then by statements that nest (`floor`), and in all (`run`).
#[derive(Clone, Copy, Default)]
struct Levels {
    base: usize,
    floor: usize,
    run: usize,
}

struct Scan {
    at: Levels,
    max: usize,
    /// Per open bracket: what it opened and the levels outside it.
    frames: Vec<(Open, Levels)>,
}

impl Scan {
    /// One more level in the current run.
    fn step(&mut self) {
        self.at.run += 1;
        self.max = self.max.max(self.at.base + self.at.run);
    }

    /// Opens a bracket: its contents start one level above everything
    /// open.
    fn open(&mut self, open: Open) {
        self.frames.push((open, self.at));
        let base = self.at.base + self.at.run + 1;
        self.at = Levels {
            base,
            floor: 0,
            run: 0,
        };
        self.max = self.max.max(base);
    }

    /// Closes the innermost bracket; what follows it continues the
    /// enclosing run, one level deeper (`f()()`, `a[0][0]`, `{} + {}`).
    fn close(&mut self) -> Option<Open> {
        let (open, outside) = self.frames.pop()?;
        self.at = outside;
        self.step();
        Some(open)
    }

    fn innermost(&self) -> Option<Open> {
        self.frames.last().map(|f| f.0)
    }
}

/// An over-estimate of how deeply `text` nests; `usize::MAX` when the scan
/// cannot tokenize it as oxc would.
pub(super) fn nesting_bound(text: &[u8]) -> usize {
    let n = text.len();
    let mut s = Scan {
        at: Levels::default(),
        max: 0,
        frames: Vec::new(),
    };
    let mut slash = Slash::Regex;
    // The last token was `.`, `?.` or `#`: a word after it is a property
    // name, never a keyword.
    let mut member = false;
    // The last token was `if`, `for`, `while`, `with` (or `for await`).
    let mut head = false;
    // The last token closed a brace: a word now, other than one that
    // continues what the brace ended, starts a new statement or member.
    let mut after_brace = false;
    // A line break since the last token: automatic semicolon insertion
    // may end the statement there.
    let mut line_break = false;
    // The next token starts a statement (after `;`, a brace, `:`, an
    // `if (…)` head, `else` or `do`), and the last token was a word that
    // did: a `:` now ends a label, a statement that nests a statement.
    let mut statement_start = true;
    let mut label = false;
    let mut i = 0;
    if text.starts_with(b"#!") {
        i = line_end(text, 0);
    }
    while i < n {
        let b = text[i];
        if let Some((len, breaks)) = space_len(&text[i..]) {
            line_break |= breaks;
            i += len;
            continue;
        }
        if b == b'/' && text.get(i + 1) == Some(&b'/') {
            i = line_end(text, i);
            continue;
        }
        if b == b'/' && text.get(i + 1) == Some(&b'*') {
            let end = memchr::memmem::find(&text[i + 2..], b"*/").map_or(n, |j| i + 2 + j + 2);
            line_break |= has_line_break(&text[i..end]);
            i = end;
            continue;
        }
        let was_after_brace = std::mem::take(&mut after_brace);
        let was_member = std::mem::take(&mut member);
        let was_head = std::mem::take(&mut head);
        let was_line_break = std::mem::take(&mut line_break);
        let was_statement_start = std::mem::take(&mut statement_start);
        let was_label = std::mem::take(&mut label);
        match b {
            b'/' if slash == Slash::Unknown => return usize::MAX,
            // `let a` ⏎ `/re/`: a line break may end the statement before
            // a regular expression.
            b'/' if slash == Slash::Divide && was_line_break => return usize::MAX,
            b'/' if slash == Slash::Regex => {
                i = regex_end(text, i + 1);
                // Its flags, which oxc reads as part of it: `/a/in` is
                // not followed by the keyword `in`.
                i = word_end(text, i);
                slash = Slash::Divide;
                continue;
            }
            b'\'' | b'"' => {
                i = string_end(text, i);
                slash = Slash::Divide;
                continue;
            }
            b'`' => {
                i = template_text(text, i + 1);
                slash = enter_template(&mut s, text, &mut i);
                continue;
            }
            b'}' if s.innermost() == Some(Open::Substitution) => {
                s.close();
                i = template_text(text, i + 1);
                slash = enter_template(&mut s, text, &mut i);
                continue;
            }
            b'(' | b'[' | b'{' => {
                s.open(match b {
                    b'(' => Open::Paren { head: was_head },
                    b'[' => Open::Bracket,
                    _ => Open::Brace,
                });
                statement_start = b == b'{';
                slash = Slash::Regex;
                i += 1;
            }
            b')' | b']' | b'}' => {
                slash = match s.close() {
                    // An `if (…)` is part of the statement that nests.
                    Some(Open::Paren { head: true }) => {
                        s.at.floor = s.at.run;
                        statement_start = true;
                        Slash::Regex
                    }
                    _ if b == b'}' => Slash::Unknown,
                    _ => Slash::Divide,
                };
                after_brace = b == b'}';
                statement_start |= after_brace;
                i += 1;
            }
            b';' | b',' => {
                let in_list = matches!(s.innermost(), Some(Open::Paren { .. } | Open::Bracket));
                if b == b',' || in_list {
                    // The next element or clause of what nests here.
                    s.at.run = s.at.floor;
                } else if [&b"else"[..], b"while"]
                    .iter()
                    .any(|w| starts_word(text, skip_space_and_comments(text, i + 1), w))
                {
                    // `if (a) b; else …`, `do a; while (…)`: the `if` or
                    // the `do` stays open.
                    s.at.run = s.at.floor;
                } else {
                    // A new statement: oxc loops over statements.
                    s.at.run = 0;
                    s.at.floor = 0;
                }
                statement_start = b == b';';
                slash = Slash::Regex;
                i += 1;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$' | b'0'..=b'9' | b'\\' | 0x80.. => {
                let start = i;
                i = word_end(text, i);
                let word = &text[start..i];
                // oxc reads escaped names as what they spell, keywords
                // included.
                if word.contains(&b'\\') {
                    return usize::MAX;
                }
                if was_member {
                    slash = Slash::Divide;
                    continue;
                }
                label = was_statement_start;
                statement_start = matches!(word, b"else" | b"do");
                if was_after_brace && !CONTINUES.contains(&word) {
                    s.at.run = 0;
                    s.at.floor = 0;
                }
                if KEYWORDS.contains(&word) {
                    s.step();
                }
                if STATEMENTS.contains(&word) {
                    s.at.floor = s.at.run;
                }
                slash = match word {
                    // Keywords or names, depending on where they stand.
                    b"of" | b"yield" | b"await" | b"async" | b"let" | b"static" | b"get"
                    | b"set" => Slash::Unknown,
                    b"class" | b"function" => Slash::Divide,
                    w if KEYWORDS.contains(&w) => Slash::Regex,
                    _ => Slash::Divide,
                };
                head = matches!(word, b"if" | b"for" | b"while" | b"with")
                    || (word == b"await" && was_head);
                continue;
            }
            _ => {
                // HTML-like comments: oxc skips them (with an error).
                if text[i..].starts_with(b"<!--") || text[i..].starts_with(b"-->") {
                    return usize::MAX;
                }
                // An operator or other punctuator, read as one token.
                let len = punctuator_len(&text[i..]);
                let token = &text[i..i + len];
                member = matches!(token, b"." | b"?." | b"#");
                // After `.`, a `/` divides a number (`1./2`) or is an
                // error; after `++`/`--` it depends on which side they
                // stand.
                slash = if member || matches!(token, b"++" | b"--") {
                    Slash::Unknown
                } else {
                    Slash::Regex
                };
                s.step();
                if token == b":" {
                    // A label (or a `case`'s colon, or an object's first
                    // key: counted once more, not per key).
                    if was_label {
                        s.at.floor = s.at.run;
                    }
                    statement_start = true;
                }
                i += len;
            }
        }
    }
    s.max
}

/// After a template's text up to `i`: into its next substitution, or past
/// its end. What a `/` after it means.
fn enter_template(s: &mut Scan, text: &[u8], i: &mut usize) -> Slash {
    if text.get(*i) == Some(&b'$') {
        s.open(Open::Substitution);
        *i += 2;
        Slash::Regex
    } else {
        *i += 1;
        Slash::Divide
    }
}

/// Words that nest what follows them (or take an operand, so that a `/`
/// after them starts a regular expression).
const KEYWORDS: &[&[u8]] = &[
    b"if",
    b"else",
    b"for",
    b"while",
    b"do",
    b"with",
    b"return",
    b"typeof",
    b"void",
    b"delete",
    b"await",
    b"new",
    b"yield",
    b"throw",
    b"case",
    b"default",
    b"in",
    b"of",
    b"instanceof",
    b"class",
    b"extends",
    b"async",
    b"function",
];

/// Keywords of statements that nest a statement: their levels last past a
/// `,` in it.
const STATEMENTS: &[&[u8]] = &[b"if", b"else", b"for", b"while", b"do", b"with"];

/// Words after `}` that continue the statement or expression it closed.
const CONTINUES: &[&[u8]] = &[
    b"else",
    b"catch",
    b"finally",
    b"while",
    b"in",
    b"instanceof",
    b"of",
];

/// Whitespace as oxc's lexer skips it, ASCII and Unicode (U+0085 and
/// U+200B included): its length at the start of `b`, and whether it
/// breaks the line.
fn space_len(b: &[u8]) -> Option<(usize, bool)> {
    match *b {
        [b' ' | b'\t' | 0x0b | 0x0c, ..] => Some((1, false)),
        [b'\n' | b'\r', ..] => Some((1, true)),
        // U+00A0, U+0085
        [0xc2, 0xa0 | 0x85, ..] => Some((2, false)),
        // U+2028, U+2029
        [0xe2, 0x80, 0xa8 | 0xa9, ..] => Some((3, true)),
        // U+FEFF, U+1680, U+2000–U+200B, U+202F, U+205F, U+3000: oxc's
        // `is_irregular_whitespace`
        [0xef, 0xbb, 0xbf, ..]
        | [0xe1, 0x9a, 0x80, ..]
        | [0xe2, 0x80, 0x80..=0x8b | 0xaf, ..]
        | [0xe2, 0x81, 0x9f, ..]
        | [0xe3, 0x80, 0x80, ..] => Some((3, false)),
        _ => None,
    }
}

fn has_line_break(b: &[u8]) -> bool {
    memchr::memchr2(b'\n', b'\r', b).is_some() || b.windows(3).any(starts_with_line_separator)
}

/// The first offset from `i` that is neither whitespace nor a comment.
fn skip_space_and_comments(text: &[u8], mut i: usize) -> usize {
    loop {
        let rest = text.get(i..).unwrap_or_default();
        if let Some((len, _)) = space_len(rest) {
            i += len;
        } else if rest.starts_with(b"//") {
            i = line_end(text, i);
        } else if rest.starts_with(b"/*") {
            i = memchr::memmem::find(&rest[2..], b"*/").map_or(text.len(), |j| i + 2 + j + 2);
        } else {
            return i;
        }
    }
}

/// The end of the word (name, keyword or number) starting at `i`: ASCII
/// name characters, `\` and any non-ASCII character that is not
/// whitespace.
fn word_end(text: &[u8], mut i: usize) -> usize {
    while i < text.len() {
        match text[i] {
            b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$' | b'0'..=b'9' | b'\\' => i += 1,
            0x80.. if space_len(&text[i..]).is_none() => i += 1,
            _ => break,
        }
    }
    i
}

/// `word` at `i`, as a whole word.
fn starts_word(text: &[u8], i: usize, word: &[u8]) -> bool {
    text.get(i..).is_some_and(|t| t.starts_with(word))
        && text
            .get(i + word.len()..)
            .is_none_or(|rest| word_end(rest, 0) == 0)
}

/// The offset of the next line break (`\n`, `\r`, U+2028, U+2029) from
/// `from`, or the end.
fn line_end(text: &[u8], from: usize) -> usize {
    (from..text.len())
        .find(|&j| matches!(text[j], b'\n' | b'\r') || starts_with_line_separator(&text[j..]))
        .unwrap_or(text.len())
}

/// The end of a string literal opening at `i`: past its closing quote, or
/// at the `\n` or `\r` that ends it unclosed (oxc's error). U+2028 and
/// U+2029 are allowed in strings.
fn string_end(text: &[u8], i: usize) -> usize {
    let quote = text[i];
    let mut j = i + 1;
    while j < text.len() {
        match text[j] {
            c if c == quote => return j + 1,
            // An escape, including an escaped line break (a continuation).
            b'\\' if text[j + 1..].starts_with(b"\r\n") => j += 3,
            b'\\' => j += 2,
            b'\n' | b'\r' => return j,
            _ => j += 1,
        }
    }
    text.len()
}

/// The end of a regular expression's body starting at `i`: past its
/// closing `/` (before its flags), or at the line break that ends it
/// unclosed.
fn regex_end(text: &[u8], mut i: usize) -> usize {
    let mut class = false;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'[' => {
                class = true;
                i += 1;
            }
            b']' => {
                class = false;
                i += 1;
            }
            b'/' if !class => return i + 1,
            b'\n' | b'\r' => return i,
            _ if starts_with_line_separator(&text[i..]) => return i,
            _ => i += 1,
        }
    }
    text.len()
}

/// The length of the punctuator at the start of `b` (longest match; one
/// byte for anything unknown). `/` and `/=` are decided before this.
fn punctuator_len(b: &[u8]) -> usize {
    const LONG: &[&[u8]] = &[
        b">>>=", b"...", b"===", b"!==", b"**=", b"<<=", b">>=", b">>>", b"&&=", b"||=", b"??=",
        b"=>", b"==", b"!=", b"<=", b">=", b"&&", b"||", b"??", b"++", b"--", b"+=", b"-=", b"*=",
        b"/=", b"%=", b"&=", b"|=", b"^=", b"**", b"<<", b">>",
    ];
    // `?.` but not `a ? .5 : b`.
    if b.starts_with(b"?.") && !b.get(2).is_some_and(u8::is_ascii_digit) {
        return 2;
    }
    LONG.iter()
        .find(|p| b.starts_with(p))
        .map_or(1, |p| p.len())
}

/// The end of a template literal's text starting at `i`: the offset of its
/// closing backtick or of the `$` of a `${`, or the end.
pub(super) fn template_text(text: &[u8], mut i: usize) -> usize {
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
