//! Where tree-sitter-javascript's scanner puts an automatic semicolon: a
//! port of `scan_automatic_semicolon` and `scan_whitespace_and_comments`.

use oxc_span::Span;

use super::*;

impl Writer<'_> {
    /// Where tree-sitter-javascript's scanner puts the automatic semicolon
    /// after a token ending at `end` (`None`: it does not insert one). A
    /// port of `scan_automatic_semicolon`, repeated after each comment the
    /// lexer takes when the scanner declines, as tree-sitter does.
    pub(super) fn asi_end(&self, end: usize, after: After) -> Option<usize> {
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

    pub(super) fn peek(&self, at: usize) -> Option<char> {
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
    pub(super) fn close_semicolon(&mut self, span: Span, after: After) {
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
    pub(super) fn close_optional_asi(&mut self, end: usize, after: After) {
        let end = end.max(self.pos);
        match self.asi_end(end, after) {
            Some(at) if at > end => self.close(at),
            _ => self.close(end),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ws {
    Reject,
    NoNewline,
    Accept,
}

/// `iswspace` in the C locale tree-sitter's scanner runs in: ASCII only.
fn is_c_space(c: char) -> bool {
    c == ' ' || ('\t'..='\r').contains(&c)
}
