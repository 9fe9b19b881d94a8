//! How deeply a text could nest, over-estimated in one pass, so that what
//! could overflow oxc's recursion goes to tree-sitter.

use super::starts_with_line_separator;

/// Nesting past which the text goes to tree-sitter: far beyond real code
/// (the library's deepest module nests ≈ 40 levels), far within a 2 MB
/// stack.
pub(super) const MAX_NESTING: usize = 400;

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
pub(super) fn nesting_bound(text: &[u8]) -> usize {
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
