//! An open document's text and tree, and the edits LSP sends applied to
//! both: positions are 0-based lines (broken at `\n`, `\r\n` or a lone
//! `\r`, as LSP counts them) and UTF-16 code units within the line; the
//! tree's edit is in bytes and tree-sitter's rows (broken at `\n`, and at a
//! lone `\r`, which it reads as `\n`: `js::syntax::parser_text`).

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
}

impl Text {
    pub fn new(text: String) -> Text {
        Text { text, tree: None }
    }

    /// Applies one content change: a range and its replacement, or the
    /// whole text (which drops the tree: nothing of it can be re-used).
    pub fn apply(&mut self, range: Option<lsp::Range>, new: &str) {
        let Some(range) = range else {
            self.text = new.to_string();
            self.tree = None;
            return;
        };
        let starts = crate::source::line_starts(&self.text);
        let from = offset_of(&self.text, &starts, range.start);
        let to = offset_of(&self.text, &starts, range.end).max(from);
        if let Some(tree) = &mut self.tree {
            tree.edit(&parse::input_edit(&self.text, from, to, new));
        }
        self.text.replace_range(from..to, new);
    }
}

/// The byte offset of an LSP position (UTF-16 units within the line);
/// positions past a line's end or the text's end are clamped, as the
/// protocol asks. `starts` are the text's line starts
/// ([`crate::source::line_starts`]).
pub(super) fn offset_of(text: &str, starts: &[usize], at: lsp::Position) -> usize {
    let Some(&start) = starts.get(at.line as usize) else {
        return text.len();
    };
    let end = starts
        .get(at.line as usize + 1)
        .copied()
        .unwrap_or(text.len());
    let line = text.get(start..end).unwrap_or("");
    let mut units = 0u32;
    for (i, c) in line.char_indices() {
        if units >= at.character || c == '\n' || c == '\r' {
            return start + i;
        }
        units += c.len_utf16() as u32;
    }
    end
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
                let changes = 1 + next(3);
                for _ in 0..changes {
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
                    doc.apply(Some(range), new);
                    expected.replace_range(from..to, new);
                    assert_eq!(doc.text, expected, "{}", path.display());
                }
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
