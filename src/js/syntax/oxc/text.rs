//! The text between a node's children: whitespace, comments and the
//! tokens the AST leaves out, lexed and written as tree-sitter writes them.

use oxc_span::Span;

use super::*;

impl Writer<'_> {
    /// Offset of the first byte at or after `at` that is not whitespace.
    pub(super) fn skip_ws(&self, mut at: usize) -> usize {
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
    pub(super) fn comment_end(&self, at: usize) -> Option<usize> {
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
    pub(super) fn token_len(&self, at: usize) -> usize {
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
    pub(super) fn gap_with(&mut self, to: usize, mut field: u8) {
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
    pub(super) fn line_break_inside_a_line(&mut self, start: usize, end: usize) -> bool {
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
    pub(super) fn keyword_before_newline(&mut self, start: usize, end: usize) -> bool {
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

    pub(super) fn gap(&mut self, to: usize) {
        self.gap_with(to, NO_FIELD);
    }

    /// The offset of the next token `tok` at or after `self.pos`, skipping
    /// other tokens and comments (they stay for [`Writer::gap`]).
    pub(super) fn find(&mut self, from: usize, tok: &str) -> usize {
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

    pub(super) fn leaf(&mut self, kind: u16, field: u8, span: Span) {
        self.gap(span.start as usize);
        self.out
            .leaf(kind, true, field, span.start as usize, span.end as usize);
        self.pos = span.end as usize;
    }

    pub(super) fn open(&mut self, kind: u16, field: u8, start: usize) {
        self.gap(start);
        self.out.open(kind, field, start);
        self.pos = start;
    }

    /// Closes the open node at `end`, or where its last child ended if that
    /// is later (a statement that took a comment in).
    pub(super) fn close(&mut self, end: usize) {
        if end > self.pos {
            self.gap(end);
        }
        self.out.close(self.pos);
    }
}
