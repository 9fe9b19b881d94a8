//! How deeply a text could nest, over-estimated in one pass, so that what
//! could overflow oxc's recursion goes to tree-sitter.
//!
//! oxc's parser recurses once per level of nesting and has no limit of its
//! own: a stack overflow aborts the process. So the estimate must never be
//! low, whatever the text. It rests on two things:
//! - **Tokens as oxc reads them.** Strings, templates, comments and
//!   regular expressions are skipped exactly, which needs the one decision
//!   a tokenizer cannot make alone: whether a `/` divides or starts a
//!   regular expression. Where the tokens before it do not settle that (a
//!   `/` after `}`, `++`, `--` or the word `of`), the text goes to
//!   tree-sitter rather than guess: one wrong guess could hide a whole
//!   file's nesting inside a string the scan believed in.
//! - **Levels as a stack.** Each bracket's contents start one level above
//!   everything open when the bracket opened, including the operators and
//!   keywords before it; within a bracket, every operator, nesting keyword
//!   and closed bracket adds a level until a boundary where oxc loops
//!   instead of recursing: a `,`, a `;` outside parentheses, or the start
//!   of a new statement after `}`.

use super::starts_with_line_separator;

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
    /// After `}`, `++`, `--` or `of`: either, depending on what came
    /// before; the scan gives up.
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

struct Frame {
    open: Open,
    /// The enclosing bracket's base and run when this one opened.
    base: usize,
    run: usize,
}

/// An over-estimate of how deeply `text` nests; `usize::MAX` when the scan
/// cannot tokenize it with certainty.
pub(super) fn nesting_bound(text: &[u8]) -> usize {
    let n = text.len();
    // Levels open where the innermost bracket's contents start, and levels
    // added since its last boundary.
    let mut base = 0usize;
    let mut run = 0usize;
    let mut max = 0usize;
    let mut frames: Vec<Frame> = Vec::new();
    let mut slash = Slash::Regex;
    // The last token was `.`, `?.` or `#`: a word after it is a property
    // name, never a keyword.
    let mut member = false;
    // The last token was `if`, `for`, `while`, `with` (or `for await`).
    let mut head = false;
    // The last token closed a brace: a word now, other than one that
    // continues what the brace ended, starts a new statement or member.
    let mut after_brace = false;
    let mut i = 0;
    if text.starts_with(b"#!") {
        i = line_end(text, 0);
    }
    while i < n {
        let b = text[i];
        if let Some(len) = space_len(&text[i..]) {
            i += len;
            continue;
        }
        if b == b'/' && text.get(i + 1) == Some(&b'/') {
            i = line_end(text, i);
            continue;
        }
        if b == b'/' && text.get(i + 1) == Some(&b'*') {
            i = memchr::memmem::find(&text[i + 2..], b"*/").map_or(n, |j| i + 2 + j + 2);
            continue;
        }
        let was_after_brace = std::mem::take(&mut after_brace);
        let was_member = std::mem::take(&mut member);
        let was_head = std::mem::take(&mut head);
        match b {
            b'/' if slash == Slash::Unknown => return usize::MAX,
            b'/' if slash == Slash::Regex => {
                i = regex_end(text, i + 1);
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
                if text.get(i) == Some(&b'$') {
                    open(
                        &mut frames,
                        &mut base,
                        &mut run,
                        &mut max,
                        Open::Substitution,
                    );
                    i += 2;
                    slash = Slash::Regex;
                } else {
                    i += 1;
                    slash = Slash::Divide;
                }
                continue;
            }
            b'}' if frames.last().is_some_and(|f| f.open == Open::Substitution) => {
                close(&mut frames, &mut base, &mut run, &mut max);
                i = template_text(text, i + 1);
                if text.get(i) == Some(&b'$') {
                    open(
                        &mut frames,
                        &mut base,
                        &mut run,
                        &mut max,
                        Open::Substitution,
                    );
                    i += 2;
                    slash = Slash::Regex;
                } else {
                    i += 1;
                    slash = Slash::Divide;
                }
                continue;
            }
            b'(' | b'[' | b'{' => {
                let kind = match b {
                    b'(' => Open::Paren { head: was_head },
                    b'[' => Open::Bracket,
                    _ => Open::Brace,
                };
                open(&mut frames, &mut base, &mut run, &mut max, kind);
                slash = Slash::Regex;
                i += 1;
            }
            b')' | b']' | b'}' => {
                let closed = close(&mut frames, &mut base, &mut run, &mut max);
                slash = match closed {
                    Some(Open::Paren { head: true }) => Slash::Regex,
                    _ if b == b'}' => Slash::Unknown,
                    _ => Slash::Divide,
                };
                after_brace = b == b'}';
                i += 1;
            }
            b';' | b',' => {
                // oxc loops over list elements and statements: a `,`, or a
                // `;` outside parentheses and brackets, starts afresh at the
                // enclosing bracket's level.
                let in_list = matches!(
                    frames.last().map(|f| f.open),
                    Some(Open::Paren { .. } | Open::Bracket)
                );
                if b == b',' || !in_list {
                    // …except a `;` before `else`, which keeps the `if`
                    // (and every `if` it is the `else` of) open.
                    let next = skip_space(text, i + 1);
                    if b == b',' || !starts_word(text, next, b"else") {
                        run = 0;
                    }
                }
                slash = Slash::Regex;
                i += 1;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$' | b'0'..=b'9' | b'\\' | 0x80.. => {
                let start = i;
                i = word_end(text, i);
                let word = &text[start..i];
                if was_member {
                    slash = Slash::Divide;
                    continue;
                }
                // A word after `}` that does not continue what it closed
                // starts a new statement or class member.
                if was_after_brace && !CONTINUES.contains(&word) {
                    run = 0;
                }
                if KEYWORDS.contains(&word) {
                    run += 1;
                    max = max.max(base + run);
                }
                slash = match word {
                    b"of" => Slash::Unknown,
                    b"class" | b"function" | b"async" => Slash::Divide,
                    w if KEYWORDS.contains(&w) => Slash::Regex,
                    _ => Slash::Divide,
                };
                head = matches!(word, b"if" | b"for" | b"while" | b"with")
                    || (word == b"await" && was_head);
                continue;
            }
            _ => {
                // An operator or other punctuator, read as one token.
                let len = punctuator_len(&text[i..]);
                let token = &text[i..i + len];
                member = matches!(token, b"." | b"?." | b"#");
                slash = if matches!(token, b"++" | b"--") {
                    Slash::Unknown
                } else {
                    Slash::Regex
                };
                run += 1;
                max = max.max(base + run);
                i += len;
            }
        }
    }
    max
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
    b"in",
    b"of",
    b"instanceof",
    b"class",
    b"extends",
    b"async",
    b"function",
];

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

/// Opens a bracket: its contents start one level above everything open.
fn open(frames: &mut Vec<Frame>, base: &mut usize, run: &mut usize, max: &mut usize, open: Open) {
    frames.push(Frame {
        open,
        base: *base,
        run: *run,
    });
    *base += *run + 1;
    *run = 0;
    *max = (*max).max(*base);
}

/// Closes the innermost bracket; what follows it continues the enclosing
/// run, one level deeper (`f()()`, `a[0][0]`, `{} + {}`).
fn close(
    frames: &mut Vec<Frame>,
    base: &mut usize,
    run: &mut usize,
    max: &mut usize,
) -> Option<Open> {
    let frame = frames.pop()?;
    *base = frame.base;
    *run = frame.run + 1;
    *max = (*max).max(*base + *run);
    Some(frame.open)
}

/// Whitespace as oxc skips it, ASCII and Unicode: its length at the start
/// of `b`, if any.
fn space_len(b: &[u8]) -> Option<usize> {
    match *b {
        [b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c, ..] => Some(1),
        // U+00A0
        [0xc2, 0xa0, ..] => Some(2),
        // U+FEFF, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F,
        // U+3000
        [0xef, 0xbb, 0xbf, ..]
        | [0xe1, 0x9a, 0x80, ..]
        | [0xe2, 0x80, 0x80..=0x8a | 0xa8 | 0xa9 | 0xaf, ..]
        | [0xe2, 0x81, 0x9f, ..]
        | [0xe3, 0x80, 0x80, ..] => Some(3),
        _ => None,
    }
}

fn skip_space(text: &[u8], mut i: usize) -> usize {
    while let Some(len) = text.get(i..).and_then(space_len) {
        i += len;
    }
    i
}

/// The end of the word (name, keyword or number) starting at `i`: ASCII
/// name characters, `\` escapes and any non-ASCII character that is not
/// whitespace.
fn word_end(text: &[u8], mut i: usize) -> usize {
    while i < text.len() {
        match text[i] {
            // `\u{…}`: the braces are the escape's.
            b'\\' if text[i + 1..].starts_with(b"u{") => {
                i = memchr::memchr(b'}', &text[i..]).map_or(text.len(), |j| i + j + 1);
            }
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
            .get(i + word.len())
            .is_none_or(|&c| word_end(&[c], 0) == 0)
}

/// The offset of the next line break (`\n`, `\r`, U+2028, U+2029) from
/// `from`, or the end.
fn line_end(text: &[u8], from: usize) -> usize {
    (from..text.len())
        .find(|&j| matches!(text[j], b'\n' | b'\r') || starts_with_line_separator(&text[j..]))
        .unwrap_or(text.len())
}

/// The end of a string literal opening at `i`: past its closing quote, or
/// at the line break that ends it unclosed (oxc's error).
fn string_end(text: &[u8], i: usize) -> usize {
    let quote = text[i];
    let mut j = i + 1;
    while j < text.len() {
        match text[j] {
            c if c == quote => return j + 1,
            // An escape, including an escaped line break (a continuation).
            b'\\' if text[j + 1..].starts_with(b"\r\n") => j += 3,
            b'\\' if starts_with_line_separator(&text[j + 1..]) => j += 4,
            b'\\' => j += 2,
            b'\n' | b'\r' => return j,
            _ if starts_with_line_separator(&text[j..]) => return j,
            _ => j += 1,
        }
    }
    text.len()
}

/// The end of a regular expression whose body starts at `i`: past its
/// closing `/` (flags are a word after it), or at the line break that ends
/// it unclosed.
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
