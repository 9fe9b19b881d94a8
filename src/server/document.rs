//! An open document's text and tree, and the edits LSP sends applied to
//! both: positions are 0-based lines (broken at `\n`, `\r\n` or a lone
//! `\r`, as LSP counts them) and UTF-16 code units within the line; the
//! tree's edit is in bytes and tree-sitter's rows (broken at `\n`, and at a
//! lone `\r`, which it reads as `\n`: `js::syntax::parser_text`).
//!
//! A notification may carry thousands of changes (a multi-cursor edit, a
//! formatter's result sent as one edit per line), each in the coordinates
//! the previous ones left. They are applied to a gap buffer that keeps the
//! line starts on both sides of its gap, so a change costs the distance the
//! gap moves and the length of its lines, not the document's size: changes
//! in document order, or in reverse order as VS Code sends them, cost
//! O(size + changes × change size) together. The tree gets one edit per
//! notification, spanning everything the changes touched.

use lsp_types as lsp;
use tree_sitter::Tree;

use crate::js::syntax::parse;

/// A document's text and, for a process module, the tree of its last
/// parse with every change since applied ([`Tree::edit`]), which makes the
/// next parse incremental.
#[derive(Default)]
pub(super) struct Text {
    pub text: String,
    pub tree: Option<Tree>,
    /// Where each LSP line of `text` starts ([`crate::source::line_starts`]).
    starts: Vec<usize>,
}

impl Text {
    pub fn new(text: String) -> Text {
        let starts = crate::source::line_starts(&text);
        Text {
            text,
            tree: None,
            starts,
        }
    }

    /// Applies one content change: a range and its replacement, or the
    /// whole text (which drops the tree: nothing of it can be re-used).
    #[cfg(test)]
    pub fn apply(&mut self, range: Option<lsp::Range>, new: &str) -> usize {
        self.apply_all([(range, new)])
    }

    /// Applies a notification's content changes in order, each to the
    /// text the previous ones left. Returns the bytes it moved, copied or
    /// scanned: its cost, which the tests bound.
    pub fn apply_all<'a>(
        &mut self,
        changes: impl IntoIterator<Item = (Option<lsp::Range>, &'a str)>,
    ) -> usize {
        let text = std::mem::take(&mut self.text);
        // The tree's edit is computed against the text before the changes.
        let original = self.tree.as_ref().map(|_| text.clone());
        let mut work = original.as_ref().map_or(0, String::len);
        let mut gap = Gap::new(text, std::mem::take(&mut self.starts));
        // What the changes touched: `text[lo..len - tail]` of the new text
        // replaces `original[lo..original.len() - tail]`.
        let mut touched: Option<(usize, usize)> = None;
        for (range, new) in changes {
            let Some(range) = range else {
                work += new.len();
                gap = Gap::new(new.to_string(), crate::source::line_starts(new));
                self.tree = None;
                touched = None;
                continue;
            };
            let len = gap.len();
            let (from, to) = gap.replace(range, new);
            touched = Some(match touched {
                None => (from, len - to),
                Some((lo, tail)) => (lo.min(from), tail.min(len - to)),
            });
        }
        work += gap.work;
        let (text, starts) = gap.into_parts();
        work += text.len();
        if let (Some(tree), Some(original), Some((lo, tail))) = (&mut self.tree, original, touched)
        {
            let new_end = text.len().saturating_sub(tail).max(lo);
            let new = text.get(lo..new_end).unwrap_or("");
            let old_end = original.len().saturating_sub(tail).max(lo);
            tree.edit(&parse::input_edit(&original, lo, old_end, new));
        }
        self.text = text;
        self.starts = starts;
        work
    }
}

/// A text with a gap at the last change, and its line starts: those at or
/// before the gap as offsets, those after it as distances from the end,
/// which an edit at the gap leaves as they are.
struct Gap {
    /// The text before the gap, the gap, the text after it.
    buf: Vec<u8>,
    gap_start: usize,
    gap_end: usize,
    /// Line starts at or before `gap_start`, ascending.
    before: Vec<usize>,
    /// Line starts after `gap_start`, as distances from the end of the
    /// text, the farthest from the gap first.
    after: Vec<usize>,
    /// Bytes moved, copied or scanned.
    work: usize,
}

impl Gap {
    /// `starts` are the line starts of `text`.
    fn new(text: String, starts: Vec<usize>) -> Gap {
        let buf = text.into_bytes();
        let len = buf.len();
        Gap {
            buf,
            gap_start: len,
            gap_end: len,
            before: starts,
            after: Vec::new(),
            work: 0,
        }
    }

    fn len(&self) -> usize {
        self.buf.len() - (self.gap_end - self.gap_start)
    }

    fn byte(&self, at: usize) -> Option<u8> {
        if at < self.gap_start {
            self.buf.get(at).copied()
        } else {
            self.buf.get(at + (self.gap_end - self.gap_start)).copied()
        }
    }

    /// The bytes `from..to` of the text, both at or after the gap.
    fn after_gap(&self, from: usize, to: usize) -> &[u8] {
        let shift = self.gap_end - self.gap_start;
        self.buf.get(from + shift..to + shift).unwrap_or_default()
    }

    fn line_start(&self, line: usize) -> Option<usize> {
        if let Some(&start) = self.before.get(line) {
            return Some(start);
        }
        let nearest = line - self.before.len();
        let distance = self.after.get(self.after.len().checked_sub(nearest + 1)?)?;
        Some(self.len() - distance)
    }

    /// Moves the gap to `to` (an offset in the text), and the line starts
    /// it passes to its other side.
    fn move_gap(&mut self, to: usize) {
        let to = to.min(self.len());
        let len = self.len();
        if to < self.gap_start {
            let n = self.gap_start - to;
            self.buf.copy_within(to..self.gap_start, self.gap_end - n);
            self.gap_start = to;
            self.gap_end -= n;
            self.work += n;
            while let Some(&start) = self.before.last().filter(|&&s| s > to) {
                self.before.pop();
                self.after.push(len - start);
            }
        } else if to > self.gap_start {
            let n = to - self.gap_start;
            self.buf
                .copy_within(self.gap_end..self.gap_end + n, self.gap_start);
            self.gap_start = to;
            self.gap_end += n;
            self.work += n;
            while let Some(&distance) = self.after.last().filter(|&&d| len - d <= to) {
                self.after.pop();
                self.before.push(len - distance);
            }
        }
    }

    /// The byte offset of an LSP position (UTF-16 units within the line),
    /// the gap at or before its line's start; positions past a line's end
    /// or the text's end are clamped, as the protocol asks.
    fn offset_after_gap(&mut self, at: lsp::Position) -> usize {
        let line = at.line as usize;
        let Some(start) = self.line_start(line) else {
            return self.len();
        };
        let end = self.line_start(line + 1).unwrap_or(self.len());
        let bytes = self.after_gap(start, end);
        // Line starts are char boundaries: the slice is whole characters.
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
        };
        let (offset, scanned) = column_offset(text, at.character);
        self.work += scanned;
        start + offset
    }

    /// Replaces an LSP range by `new`; the byte range it replaced.
    fn replace(&mut self, range: lsp::Range, new: &str) -> (usize, usize) {
        let first = range.start.line as usize;
        if let Some(start) = self.line_start(first) {
            self.move_gap(start);
        } else {
            self.move_gap(self.len());
        }
        let from = self.offset_after_gap(range.start);
        let to = if range.end.line < range.start.line {
            from
        } else {
            self.offset_after_gap(range.end).max(from)
        };
        self.move_gap(from);
        // The line starts in `from..=to + 1` may move or go (a break
        // deleted, a CR now followed by an LF): they are found again
        // below. Line 0 starts at 0 whatever the text.
        if from > 0 && self.before.last() == Some(&from) {
            self.before.pop();
        }
        let len = self.len();
        while self.after.last().is_some_and(|&d| len - d <= to + 1) {
            self.after.pop();
        }
        // Delete, then insert at the gap.
        self.gap_end += to - from;
        self.work += to - from;
        if self.gap_end - self.gap_start < new.len() {
            self.grow(new.len());
        }
        self.buf[self.gap_start..self.gap_start + new.len()].copy_from_slice(new.as_bytes());
        self.gap_start += new.len();
        self.work += new.len();
        // A line starts at `p` after an LF, or after a CR that no LF
        // follows: only positions whose bytes changed can differ.
        let len = self.len();
        let is_start = |p: usize| match self.byte(p - 1) {
            Some(b'\n') => true,
            Some(b'\r') => self.byte(p) != Some(b'\n'),
            _ => false,
        };
        let last = (from + new.len() + 1).min(len);
        let found: Vec<usize> = (from.max(1)..=last).filter(|&p| is_start(p)).collect();
        for p in found {
            if p <= self.gap_start {
                self.before.push(p);
            } else {
                self.after.push(len - p);
            }
        }
        (from, to)
    }

    /// Makes room for at least `need` bytes in the gap.
    fn grow(&mut self, need: usize) {
        let tail = self.buf.len() - self.gap_end;
        let extra = need.max(self.buf.len() / 4).max(64);
        let size = self.buf.len() + extra;
        self.buf.resize(size, 0);
        self.buf
            .copy_within(self.gap_end..self.gap_end + tail, size - tail);
        self.gap_end = size - tail;
        self.work += tail;
    }

    /// The text and its line starts.
    fn into_parts(mut self) -> (String, Vec<usize>) {
        self.move_gap(self.len());
        let Gap {
            mut buf,
            gap_start,
            before,
            ..
        } = self;
        buf.truncate(gap_start);
        // Every change replaced whole characters by a `str`.
        let text = String::from_utf8(buf)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        (text, before)
    }
}

/// The byte offset in `line` (one line and its break) of a position
/// `character` UTF-16 units in, clamped before the break; and how many
/// bytes it scanned.
fn column_offset(line: &str, character: u32) -> (usize, usize) {
    let mut units = 0u32;
    for (i, c) in line.char_indices() {
        if units >= character || c == '\n' || c == '\r' {
            return (i, i);
        }
        units += c.len_utf16() as u32;
    }
    (line.len(), line.len())
}

/// The byte offset of an LSP position (UTF-16 units within the line);
/// positions past a line's end or the text's end are clamped, as the
/// protocol asks. `starts` are the text's line starts
/// ([`crate::source::line_starts`]).
#[cfg(test)]
pub(super) fn offset_of(text: &str, starts: &[usize], at: lsp::Position) -> usize {
    let Some(&start) = starts.get(at.line as usize) else {
        return text.len();
    };
    let end = starts
        .get(at.line as usize + 1)
        .copied()
        .unwrap_or(text.len());
    start + column_offset(text.get(start..end).unwrap_or(""), at.character).0
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use tree_sitter::Point;

    fn pos(line: u32, character: u32) -> lsp::Position {
        lsp::Position { line, character }
    }

    fn range(a: (u32, u32), b: (u32, u32)) -> Option<lsp::Range> {
        Some(lsp::Range {
            start: pos(a.0, a.1),
            end: pos(b.0, b.1),
        })
    }

    #[test]
    fn changes_count_utf16_units_and_every_line_break() {
        // "😀" is two UTF-16 units and four bytes.
        let mut t = Text::new(String::from("a😀b\r\nline two\n"));
        t.apply(range((0, 3), (0, 4)), "B");
        assert_eq!(t.text, "a😀B\r\nline two\n");
        // Past the end of line 0: clamped before its CRLF.
        t.apply(range((0, 99), (1, 4)), "");
        assert_eq!(t.text, "a😀B two\n");
        // Past the last line: the end of the text.
        t.apply(range((5, 0), (5, 0)), "end\n");
        assert_eq!(t.text, "a😀B two\nend\n");
        // A lone CR ends a line for LSP.
        let mut t = Text::new(String::from("x\ry\nz"));
        t.apply(range((1, 0), (1, 1)), "Y");
        assert_eq!(t.text, "x\rY\nz");
        // Inside a surrogate pair: after the character.
        let mut t = Text::new(String::from("😀z"));
        assert_eq!(offset_of(&t.text, &[0], pos(0, 1)), 4);
        t.apply(range((0, 2), (0, 3)), "é");
        assert_eq!(t.text, "😀é");
        // The whole text.
        t.apply(None, "new");
        assert_eq!(t.text, "new");
    }

    /// Random notifications of random changes to texts made of line
    /// breaks of every kind and multi-byte characters: the text is what
    /// applying the changes one by one to a `String` gives, and the line
    /// starts are the new text's (a CR and an LF joined or split by an
    /// edit, a break deleted or inserted next to the gap).
    #[test]
    fn changes_in_any_order_keep_text_and_line_starts() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n.max(1) as u64) as usize
        };
        let pieces = ["a", "bc", "\r", "\n", "\r\n", "é", "😀", ""];
        for _ in 0..400 {
            let text: String = (0..next(30)).map(|_| pieces[next(pieces.len())]).collect();
            let mut doc = Text::new(text.clone());
            let mut expected = text;
            for _ in 0..3 {
                let mut changes = Vec::new();
                for _ in 0..1 + next(6) {
                    // Positions anywhere, past line ends and the last
                    // line too; the naive application clamps the same way.
                    let starts = crate::source::line_starts(&expected);
                    let a = pos(next(starts.len() + 1) as u32, next(6) as u32);
                    let b = if next(4) == 0 {
                        a
                    } else {
                        pos(a.line + next(3) as u32, next(6) as u32)
                    };
                    let from = offset_of(&expected, &starts, a);
                    let to = offset_of(&expected, &starts, b).max(from);
                    let new = pieces[next(pieces.len())];
                    expected.replace_range(from..to, new);
                    changes.push((Some(lsp::Range { start: a, end: b }), new));
                }
                doc.apply_all(changes);
                assert_eq!(doc.text, expected);
                assert_eq!(
                    doc.starts,
                    crate::source::line_starts(&expected),
                    "{expected:?}"
                );
            }
        }
    }

    /// 40,000 changes to a 40,000-line text cost a few times its size,
    /// in document order, in reverse order, splitting lines or joining
    /// them; recomputing the line starts per change cost 40,000 times it.
    #[test]
    fn many_changes_cost_the_size_not_size_times_changes() {
        let lines = 40_000u32;
        let text: String = (0..lines)
            .map(|i| format!("  const v{i} = f({i}); // 😀 é\n"))
            .collect();
        let size = text.len();
        let edit = |l: u32, a: u32, b: u32, t: &'static str| (range((l, a), (l, b)), t);
        type Changes = Vec<(Option<lsp::Range>, &'static str)>;
        let cases: Vec<(&str, Changes, String)> = vec![
            (
                "reverse order",
                (0..lines).rev().map(|l| edit(l, 2, 7, "let")).collect(),
                text.replace("  const", "  let"),
            ),
            (
                "document order",
                (0..lines).map(|l| edit(l, 2, 7, "var")).collect(),
                text.replace("  const", "  var"),
            ),
            (
                "splitting lines",
                (0..lines).map(|l| edit(2 * l, 0, 2, "\r\n")).collect(),
                text.replace("  const", "\r\nconst"),
            ),
            (
                "joining lines",
                (0..lines - 1)
                    .rev()
                    .map(|l| (range((l, 99), (l + 1, 0)), ""))
                    .collect(),
                text.replace("é\n", "é").to_string() + "\n",
            ),
        ];
        for (name, changes, expected) in cases {
            let mut doc = Text::new(text.clone());
            let work = doc.apply_all(changes);
            assert!(doc.text == expected, "{name}");
            assert!(
                doc.starts == crate::source::line_starts(&expected),
                "{name}"
            );
            assert!(
                work < 10 * size,
                "{name}: {work} bytes for a {size}-byte text"
            );
        }
    }

    #[test]
    fn offsets_of_positions() {
        let text = "ab\r\n😀c\rd\n";
        let starts = crate::source::line_starts(text);
        assert_eq!(offset_of(text, &starts, pos(0, 0)), 0);
        assert_eq!(offset_of(text, &starts, pos(0, 2)), 2);
        assert_eq!(offset_of(text, &starts, pos(0, 3)), 2);
        assert_eq!(offset_of(text, &starts, pos(1, 2)), 8);
        assert_eq!(offset_of(text, &starts, pos(1, 3)), 9);
        assert_eq!(offset_of(text, &starts, pos(2, 0)), 10);
        assert_eq!(offset_of(text, &starts, pos(3, 0)), 12);
        assert_eq!(offset_of(text, &starts, pos(9, 9)), 12);
    }

    #[test]
    fn tree_edits_are_in_bytes_and_newline_rows() {
        let text = "ab\r\n😀c\rd\n";
        assert_eq!(parse::point_at(text, 0), Point::new(0, 0));
        // The CR of a CRLF is the last byte of its row.
        assert_eq!(parse::point_at(text, 3), Point::new(0, 3));
        assert_eq!(parse::point_at(text, 4), Point::new(1, 0));
        // Columns are bytes; a lone CR starts a row (tree-sitter parses it
        // as a LF).
        assert_eq!(parse::point_at(text, 8), Point::new(1, 4));
        assert_eq!(parse::point_at(text, 9), Point::new(1, 5));
        assert_eq!(parse::point_at(text, 10), Point::new(2, 0));
        assert_eq!(parse::point_at(text, 99), Point::new(3, 0));
        let e = parse::input_edit(text, 8, 10, "x\r\nyé");
        assert_eq!((e.start_byte, e.old_end_byte, e.new_end_byte), (8, 10, 14));
        assert_eq!(e.start_position, Point::new(1, 4));
        assert_eq!(e.old_end_position, Point::new(2, 0));
        assert_eq!(e.new_end_position, Point::new(2, 3));
        let e = parse::input_edit(text, 1, 1, "zz");
        assert_eq!(e.new_end_position, Point::new(0, 3));
        // A CR the new text ends with is lone unless a LF follows the edit.
        let e = parse::input_edit(text, 8, 9, "x\r");
        assert_eq!(e.new_end_position, Point::new(2, 0));
        let e = parse::input_edit(text, 0, 3, "x\r");
        assert_eq!(e.new_end_position, Point::new(0, 2));
    }

    /// Every node of a tree, as (kind, bytes, points, error flags), in
    /// pre-order: two trees with the same list are the same parse.
    fn nodes(tree: &Tree) -> Vec<(u16, usize, usize, Point, Point, bool)> {
        let mut out = Vec::new();
        let mut cursor = tree.walk();
        loop {
            let n = cursor.node();
            out.push((
                n.kind_id(),
                n.start_byte(),
                n.end_byte(),
                n.start_position(),
                n.end_position(),
                n.is_error() || n.is_missing(),
            ));
            if cursor.goto_first_child() || cursor.goto_next_sibling() {
                continue;
            }
            loop {
                if !cursor.goto_parent() {
                    return out;
                }
                if cursor.goto_next_sibling() {
                    break;
                }
            }
        }
    }

    /// Random edits to every fixture, sent as LSP changes (UTF-16
    /// positions, several per notification, CRLF and astral characters
    /// among the inserted text): the text is what replacing the bytes
    /// gives, and re-parsing from the edited tree gives the tree and the
    /// findings of a full parse.
    #[test]
    fn incremental_reparse_equals_a_full_parse() {
        let config = crate::project::config::Config::default();
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n.max(1) as u64) as usize
        };
        let inserts = [
            "",
            "x",
            "\n",
            "\r\n",
            "😀",
            "é",
            "(",
            "}",
            "`",
            "'",
            "await ctx.task(t, {})",
            "const r = ",
            "\n  if (!r.approved) return;\n",
            "/*",
            "*/",
            ".summary",
        ];
        let mut fixtures: Vec<std::path::PathBuf> = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from("fixtures")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "js") {
                    fixtures.push(path);
                }
            }
        }
        fixtures.sort();
        assert!(fixtures.len() > 50, "{} fixtures", fixtures.len());
        let mut compared = 0;
        for path in &fixtures {
            let original = std::fs::read_to_string(path).unwrap();
            let mut doc = Text::new(original.clone());
            let Some((_, tree)) =
                crate::engine::open::analyse_buffer(path, &doc.text, None, &config)
            else {
                continue;
            };
            doc.tree = tree;
            for _ in 0..3 {
                let mut expected = doc.text.clone();
                // One notification's changes, each in the coordinates the
                // previous ones left.
                let mut changes = Vec::new();
                for _ in 0..1 + next(4) {
                    let boundary = |at: usize, t: &str| {
                        let mut at = at.min(t.len());
                        while !t.is_char_boundary(at) {
                            at -= 1;
                        }
                        at
                    };
                    let from = boundary(next(expected.len() + 1), &expected);
                    let to = boundary(from + next(12), &expected);
                    // Not between the CR and LF of a CRLF: no LSP
                    // position is there.
                    let inside_crlf = |at: usize, t: &str| {
                        at > 0
                            && t.as_bytes()[at - 1] == b'\r'
                            && t.as_bytes().get(at) == Some(&b'\n')
                    };
                    if inside_crlf(from, &expected) || inside_crlf(to, &expected) {
                        continue;
                    }
                    let new = inserts[next(inserts.len())];
                    let index = crate::source::LineIndex::new(&expected);
                    let lsp_pos = |at: usize| {
                        let p = index.pos(&expected, at);
                        pos(p.line - 1, p.column - 1)
                    };
                    let range = lsp::Range {
                        start: lsp_pos(from),
                        end: lsp_pos(to),
                    };
                    changes.push((Some(range), new));
                    expected.replace_range(from..to, new);
                }
                doc.apply_all(changes);
                assert_eq!(doc.text, expected, "{}", path.display());
                assert_eq!(
                    doc.starts,
                    crate::source::line_starts(&doc.text),
                    "{}",
                    path.display()
                );
                let old = doc.tree.take();
                let incremental =
                    crate::engine::open::analyse_buffer(path, &doc.text, old.as_ref(), &config);
                let full = crate::engine::open::analyse_buffer(path, &doc.text, None, &config);
                let (Some((inc, inc_tree)), Some((full, full_tree))) = (incremental, full) else {
                    // The edit removed the SDK markers: not a process
                    // module any more.
                    break;
                };
                let (inc_tree, full_tree) = (inc_tree.unwrap(), full_tree.unwrap());
                assert_eq!(nodes(&inc_tree), nodes(&full_tree), "{}", path.display());
                assert_eq!(inc.diagnostics, full.diagnostics, "{}", path.display());
                compared += 1;
                doc.tree = Some(inc_tree);
            }
        }
        assert!(compared > 150, "{compared} comparisons");
    }
}
