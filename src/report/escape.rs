//! Text from the input — file names, messages built from the code
//! (identifiers, strings, task ids, labels), run-journal values — is
//! escaped where an output writes it, by one helper per format:
//!
//! - [`line`]: plain text (`pretty`, `concise`, `proclint runs`), with
//!   [`source`] for the source lines `pretty` quotes;
//! - `github::escape_data` and `github::escape_property`: workflow commands;
//! - [`markdown`]: the retrospective and the GitHub step summary.
//!
//! Each keeps what a CI log reader acts on out of the text: no line break
//! or other control character (C0, DEL, C1), line or paragraph separator or
//! bidirectional control is written as it is, so the input cannot start a
//! line; no `::` or leading `:` (a line starting with `::`, after
//! whitespace, is a GitHub workflow command) and no `##[` (the runner's
//! legacy command prefix, honoured anywhere in a line) comes from the input.
//! JSON and SARIF need none of this: their strings are JSON-escaped.

use std::borrow::Cow;

// The characters no text output writes as they are, and how they are
// shown: shared with the messages proclint itself prints.
pub use crate::source::{is_unsafe, push_visible};

/// Plain text on one line, as `pretty`, `concise` and `proclint runs`
/// write input: unsafe characters as visible escapes ([`push_visible`]), a
/// `:` that starts the text or follows a `:` as `\:`, and the `[` of `##[`
/// as `\[`. Text that needs none of it is returned as it is.
pub fn line(s: &str) -> Cow<'_, str> {
    if !(s.starts_with(':') || s.contains("::") || s.contains("##[") || s.chars().any(is_unsafe)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut prev = None;
    for c in s.chars() {
        match c {
            c if is_unsafe(c) => push_visible(&mut out, c),
            ':' if matches!(prev, None | Some(':')) => out.push_str("\\:"),
            '[' if out.ends_with("##") => out.push_str("\\["),
            c => out.push(c),
        }
        prev = Some(c);
    }
    Cow::Owned(out)
}

/// A file's text as `pretty` quotes it in its snippets: every byte offset
/// and every character count stays (the spans point into it), so each
/// unsafe character other than a line break or a tab becomes one
/// replacement of its own UTF-8 length — `?` (C0, DEL), `¿` (C1), `�`
/// (separators, bidirectional controls) — and `##[` becomes `#?[`.
pub fn source(text: &str) -> Cow<'_, str> {
    let replaced = |c: char| is_unsafe(c) && !matches!(c, '\n' | '\r' | '\t');
    if !(text.contains("##[") || text.chars().any(replaced)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if replaced(c) {
            out.push(match c.len_utf8() {
                1 => '?',
                2 => '¿',
                _ => '\u{fffd}',
            });
        } else if c == '[' && out.ends_with("##") {
            out.pop();
            out.push_str("?[");
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// GitHub-flavoured Markdown (the retrospective, the step summary). Text
/// outside code is escaped ([`text`], [`html`]); code is fenced with more
/// backticks than it holds ([`code`], [`fence`]).
pub mod markdown {
    use std::fmt::Write as _;

    use super::{is_unsafe, push_visible};

    /// Text outside code, on one line: unsafe characters as visible
    /// escapes, `&`, `<` and `>` as HTML entities (no tag, comment or
    /// autolink), and Markdown's punctuation backslash-escaped where it
    /// could mean something (no emphasis, link, image, code span or
    /// heading; `##[` is `##\[`). A `:` that starts the text or follows a
    /// `:` is escaped too, which Markdown shows as `:`.
    pub fn text(s: &str) -> String {
        let mut out = String::with_capacity(s.len() + 8);
        push_text(&mut out, s, None);
        out
    }

    /// [`text`] after `prev` (the character before it in the line).
    fn push_text(out: &mut String, s: &str, mut prev: Option<char>) {
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            let next = chars.peek().copied();
            let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
            match c {
                c if is_unsafe(c) => push_visible(out, c),
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                // `_` inside a word (`PROCESS_LOG`) emphasises nothing; a
                // `#` starts a heading only at the start of a line.
                '_' if word(prev) && word(next) => out.push('_'),
                '#' if prev.is_some() => out.push('#'),
                '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '~' => {
                    out.push('\\');
                    out.push(c);
                }
                ':' if matches!(prev, None | Some(':')) => out.push_str("\\:"),
                c => out.push(c),
            }
            prev = Some(c);
        }
    }

    /// Text inside raw HTML (a `<summary>`), where Markdown escapes are
    /// not read: entities only.
    pub fn html(s: &str) -> String {
        let mut out = String::with_capacity(s.len() + 8);
        let mut prev = None;
        for c in s.chars() {
            match c {
                c if is_unsafe(c) => push_visible(&mut out, c),
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '"' => out.push_str("&quot;"),
                '#' => out.push_str("&#35;"),
                ':' if matches!(prev, None | Some(':')) => out.push_str("&#58;"),
                c => out.push(c),
            }
            prev = Some(c);
        }
        out
    }

    /// An inline code span holding `s` on one line: unsafe characters as
    /// visible escapes, the `[` of `##[` as `\[`, delimited by one backtick
    /// more than the longest run inside, and padded with a space where the
    /// text starts or ends with a backtick or a space (Markdown strips one).
    pub fn code(s: &str) -> String {
        let mut body = String::with_capacity(s.len());
        for c in s.chars() {
            match c {
                c if is_unsafe(c) => push_visible(&mut body, c),
                '[' if body.ends_with("##") => body.push_str("\\["),
                c => body.push(c),
            }
        }
        if body.is_empty() {
            return "` `".to_string();
        }
        let ticks = "`".repeat(longest_run(&body, '`') + 1);
        let pad = if body.contains('`') || body.starts_with(' ') || body.ends_with(' ') {
            " "
        } else {
            ""
        };
        format!("{ticks}{pad}{body}{pad}{ticks}")
    }

    /// A proclint message (prose with code spans, as every output shows
    /// it): its code spans — read as Markdown reads them, a run of
    /// backticks closed by the next run of the same length — become
    /// [`code`], the rest [`text`]. Backticks in the input can only move
    /// where a span ends: every piece is escaped either way, and a run that
    /// closes nothing is shown as backticks.
    pub fn message(s: &str) -> String {
        // The runs of backticks, (start, length), and for each the next run
        // of its length.
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for (i, c) in s.char_indices() {
            match runs.last_mut() {
                Some((start, len)) if c == '`' && *start + *len == i => *len += 1,
                _ if c == '`' => runs.push((i, 1)),
                _ => {}
            }
        }
        let mut next_same = vec![None; runs.len()];
        let mut seen = std::collections::HashMap::new();
        for (k, &(_, len)) in runs.iter().enumerate().rev() {
            next_same[k] = seen.insert(len, k);
        }
        let mut out = String::with_capacity(s.len() + 8);
        let (mut at, mut prev, mut k) = (0, None, 0);
        while let Some(&(start, len)) = runs.get(k) {
            push_text(&mut out, &s[at..start], prev);
            prev = Some('`');
            match next_same[k] {
                Some(j) => {
                    let (close, _) = runs[j];
                    let content = &s[start + len..close];
                    let content = match content.strip_prefix(' ').and_then(|c| c.strip_suffix(' '))
                    {
                        Some(inner) if !content.trim().is_empty() => inner,
                        _ => content,
                    };
                    out.push_str(&code(content));
                    at = close + len;
                    k = j + 1;
                }
                None => {
                    // Backticks that close nothing are text.
                    push_text(&mut out, &s[start..start + len], prev);
                    at = start + len;
                    k += 1;
                }
            }
        }
        push_text(&mut out, &s[at..], prev);
        out
    }

    /// Multi-line text (a journal's error message, a doc comment's
    /// description) as one line: its lines trimmed and joined by a space.
    /// Still to be escaped as text or code.
    pub fn one_line(s: &str) -> String {
        s.split(['\n', '\r', '\u{2028}', '\u{2029}'])
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A table cell: `|` escaped, which GitHub reads as a pipe in code
    /// spans too, so nothing the cell holds can end it; on one line (the
    /// helpers above write no line break).
    pub fn cell(s: &str) -> String {
        s.replace(['\n', '\r'], " ").replace('|', "\\|")
    }

    /// A fenced code block, each line after `indent`: lines end at `\n`,
    /// `\r\n` or a lone `\r`; unsafe characters other than a tab are
    /// visible escapes, `##[` is `##\[`, and a line whose text starts with
    /// `::` gets a `\` before it (code quoted as it is, except what a CI
    /// log would run). The fence is one backtick longer than the longest
    /// run inside (at least three); blank lines are left empty.
    pub fn fence(lang: &str, body: &str, indent: &str) -> String {
        let ticks = "`".repeat((longest_run(body, '`') + 1).max(3));
        let mut out = format!("{indent}{ticks}{lang}\n");
        let body = body.replace("\r\n", "\n").replace('\r', "\n");
        for l in body.lines() {
            if l.trim().is_empty() {
                out.push('\n');
                continue;
            }
            let text = l.trim_start();
            out.push_str(indent);
            out.push_str(&l[..l.len() - text.len()]);
            if text.starts_with("::") {
                out.push('\\');
            }
            let start = out.len();
            for c in text.chars() {
                match c {
                    '\t' => out.push('\t'),
                    c if is_unsafe(c) => push_visible(&mut out, c),
                    '[' if out[start..].ends_with("##") => out.push_str("\\["),
                    c => out.push(c),
                }
            }
            out.push('\n');
        }
        let _ = writeln!(out, "{indent}{ticks}");
        out
    }

    /// The longest run of `c` in `s`.
    fn longest_run(s: &str, c: char) -> usize {
        let (mut longest, mut run) = (0, 0);
        for x in s.chars() {
            run = if x == c { run + 1 } else { 0 };
            longest = longest.max(run);
        }
        longest
    }
}

#[cfg(test)]
mod tests {
    use super::markdown::{cell, code, fence, html, message, text};
    use super::*;

    #[test]
    fn plain_text_stays_on_its_line_and_starts_no_command() {
        assert_eq!(line("task `a`"), "task `a`");
        assert!(matches!(line("plain"), Cow::Borrowed(_)));
        assert_eq!(
            line("x\n::error::pwned\r\u{7}\u{1b}[2J\u{9b}\u{2028}\u{202e}\t"),
            "x\\n:\\:error:\\:pwned\\r\\u{7}\\u{1b}[2J\\u{9b}\\u{2028}\\u{202e}\\t"
        );
        assert_eq!(line("::warning::x.js"), "\\:\\:warning:\\:x.js");
        assert_eq!(line(":x"), "\\:x");
        assert_eq!(line("a ##[error]b"), "a ##\\[error]b");
        assert_eq!(line("a:b c: d"), "a:b c: d");
    }

    #[test]
    fn source_keeps_offsets_and_character_counts() {
        let text = "a\u{1b}[2J b\u{9b}c \u{202e}d\t// ##[error]x\r\n";
        let shown = source(text);
        assert_eq!(shown, "a?[2J b¿c \u{fffd}d\t// #?[error]x\r\n");
        assert_eq!(shown.len(), text.len());
        assert_eq!(shown.chars().count(), text.chars().count());
        assert!(matches!(source("a\n\tb\r\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn markdown_text_is_inert() {
        assert_eq!(
            text("<img src=x onerror=alert(1)> & *b* _i_ [l](u) `c` ~s~ \\ ::x A_B ##[y"),
            "&lt;img src=x onerror=alert(1)&gt; &amp; \\*b\\* \\_i\\_ \\[l\\](u) \\`c\\` \\~s\\~ \\\\ :\\:x A_B ##\\[y"
        );
        assert_eq!(text("# h"), "\\# h");
        assert_eq!(text("a\nb\u{1b}"), "a\\nb\\u{1b}");
        assert_eq!(text(":a"), "\\:a");
        assert_eq!(html("<b>x</b> ##[a"), "&lt;b&gt;x&lt;/b&gt; &#35;&#35;[a");
    }

    #[test]
    fn code_spans_hold_any_backticks() {
        assert_eq!(code("a.js"), "`a.js`");
        assert_eq!(code("a`b"), "`` a`b ``");
        assert_eq!(code("`x``"), "``` `x`` ```");
        assert_eq!(code(""), "` `");
        assert_eq!(code("a\nb ##[c"), "`a\\nb ##\\[c`");
        assert_eq!(message("task `x` ran <b>"), "task `x` ran &lt;b&gt;");
        assert_eq!(message("a `b` c `d"), "a `b` c \\`d");
        assert_eq!(message("`x`: y"), "`x`: y");
        assert_eq!(
            message("use `` f(`k-${i}`) `` here"),
            "use `` f(`k-${i}`) `` here"
        );
        assert_eq!(message("a ``b` c"), "a \\`\\`b\\` c");
        assert_eq!(message("a `x``y` b"), "a ``` x``y ``` b");
        assert_eq!(message("`…` ok … `é`"), "`…` ok … `é`");
        assert_eq!(cell(&code("a|b")), "`a\\|b`");
    }

    #[test]
    fn fences_outlast_the_code() {
        assert_eq!(fence("js", "a\n", "   "), "   ```js\n   a\n   ```\n");
        assert_eq!(
            fence("js", "x = `\n```\n\n  ::error::y ##[z\u{1b}\r\n", ""),
            "````js\nx = `\n```\n\n  \\::error::y ##\\[z\\u{1b}\n````\n"
        );
    }
}
