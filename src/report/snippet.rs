//! A file's text for miette's snippets that finds a span's lines from an
//! index of line starts. miette's own `SourceCode for str` scans from the
//! start of the file for every finding, which makes the pretty report of
//! a long file with many findings quadratic.

use std::sync::Arc;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

/// The text of one file and where its lines start, by miette's rules: a
/// line ends at `\n`, `\r\n` or a lone `\r`.
#[derive(Debug, Clone)]
pub struct Snippet {
    text: Arc<str>,
    line_starts: Arc<[usize]>,
    /// For an excerpt ([`Snippet::clip`]): where it sits in the file.
    origin: Option<Arc<Origin>>,
    /// Context is the spans' own lines ([`Snippet::tight`]).
    tight: bool,
}

/// An excerpt's place in its file: the file line of its first line, and per
/// excerpt line how many bytes of the file line were cut before what it
/// shows (minus the `…` marker), so miette's line and column headers name
/// the file's positions.
#[derive(Debug)]
struct Origin {
    first_line: usize,
    column_shift: Vec<isize>,
}

/// Lines longer than this many bytes are cut around the finding before
/// miette lays them out: miette pads with a width argument, and Rust's
/// formatter panics ("Formatting argument out of range") past 65,535
/// columns — a minified bundle, or 17,000 tabs (4 columns each).
pub const LONG_LINE: usize = 1_000;
/// Bytes kept on each side of a finding on a cut line.
const WINDOW: usize = 120;
const MARKER: &str = "…";

/// Where the pieces of an excerpt come from: (file start, file end,
/// excerpt start), in order. Maps a file offset into the excerpt.
#[derive(Debug, Clone, Default)]
pub struct Clip {
    pieces: Vec<(usize, usize, usize)>,
}

impl Clip {
    /// The excerpt offset of a file offset; one that was cut away lands on
    /// the nearest kept byte after it (or the end of the excerpt).
    pub fn map(&self, offset: usize) -> usize {
        for &(start, end, at) in &self.pieces {
            if offset < start {
                return at;
            }
            if offset <= end {
                return at + (offset - start);
            }
        }
        self.pieces.last().map_or(0, |&(s, e, at)| at + (e - s))
    }

    /// Whether the excerpt shows the file byte range `start..end` whole.
    pub fn covers(&self, start: usize, end: usize) -> bool {
        self.pieces
            .iter()
            .any(|&(s, e, _)| s <= start && start <= e)
            && self.pieces.iter().any(|&(s, e, _)| s <= end && end <= e)
    }
}

impl Snippet {
    pub fn new(text: Arc<str>) -> Snippet {
        Snippet {
            line_starts: crate::source::line_starts(&text).into(),
            text,
            origin: None,
            tight: false,
        }
    }

    /// A snippet whose context is the whole lines of the spans and no line
    /// more: miette with no context lines draws a span's bytes only, not its
    /// line, so the pretty report asks for context and gets just the lines.
    /// The (0, 0) reads miette makes for a label's line and column are as
    /// before.
    pub fn tight(mut self) -> Snippet {
        self.tight = true;
        self
    }

    /// The file line (0-based) that holds `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.line_starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// The bytes of line `line` without its line break, and where the next
    /// line starts.
    fn line_bounds(&self, line: usize) -> (usize, usize, usize) {
        let start = self
            .line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len());
        let next = self
            .line_starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len());
        let bytes = self.text.as_bytes();
        let mut end = next;
        while end > start && matches!(bytes[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        (start, end, next)
    }

    /// `primary` and the `others` spans on the lines around it, cut to
    /// windows where a line is longer than [`LONG_LINE`]; `None` when no
    /// line miette would draw for the spans is that long. The excerpt holds
    /// the primary span's lines and one line of context each side (as the
    /// pretty report draws them); spans in `others` outside it map to its
    /// edges, so the caller keeps only those [`Clip::covers`] says are in.
    pub fn clip(
        &self,
        primary: (usize, usize),
        others: &[(usize, usize)],
    ) -> Option<(Snippet, Clip)> {
        let len = self.text.len();
        let (start, end) = (
            primary.0.min(len),
            primary.1.min(len).max(primary.0.min(len)),
        );
        let first = self.line_of(start).saturating_sub(1);
        let last = (self.line_of(end) + 1).min(self.line_starts.len().saturating_sub(1));
        let long = |line: usize| {
            let (s, e, _) = self.line_bounds(line);
            e - s > LONG_LINE
        };
        let mut lines_of_others = others.iter().flat_map(|&(s, e)| {
            let (s, e) = (s.min(len), e.min(len));
            self.line_of(s).saturating_sub(1)..=self.line_of(e) + 1
        });
        if !(first..=last).any(long)
            && !lines_of_others.any(|l| l < self.line_starts.len() && long(l))
        {
            return None;
        }
        let bytes = self.text.as_bytes();
        let mut text = String::new();
        let mut clip = Clip::default();
        let mut column_shift = Vec::new();
        let spans: Vec<(usize, usize)> = std::iter::once((start, end))
            .chain(others.iter().map(|&(s, e)| (s.min(len), e.min(len))))
            .collect();
        for line in first..=last {
            let (ls, le, next) = self.line_bounds(line);
            let (mut ws, mut we) = (ls, le);
            let mut shift = 0isize;
            if le - ls > LONG_LINE {
                // Anchor on the first label boundary on this line.
                let anchor = spans
                    .iter()
                    .flat_map(|&(s, e)| [s, e])
                    .find(|&p| p >= ls && p <= le)
                    .unwrap_or(ls);
                ws = floor_char(&self.text, anchor.saturating_sub(WINDOW).max(ls));
                we = floor_char(&self.text, (anchor + WINDOW).min(le));
                if we < ws {
                    we = ws;
                }
            }
            if ws > ls {
                text.push_str(MARKER);
                shift = (ws - ls) as isize - MARKER.len() as isize;
            }
            clip.pieces.push((ws, we, text.len()));
            text.push_str(&self.text[ws..we]);
            if we < le {
                text.push_str(MARKER);
            }
            // The line break itself, kept as it is (miette's line rules).
            let at = text.len();
            clip.pieces.push((le, next, at));
            text.push_str(std::str::from_utf8(&bytes[le..next]).unwrap_or("\n"));
            column_shift.push(shift);
        }
        let mut snippet = Snippet::new(Arc::from(text));
        snippet.tight = self.tight;
        snippet.origin = Some(Arc::new(Origin {
            first_line: first,
            column_shift,
        }));
        Some((snippet, clip))
    }

    pub fn len(&self) -> usize {
        self.text.len()
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The end of a span that starts at `start`, cut after `max_lines`
    /// lines: a finding on a 150-line function is shown by its first lines,
    /// not the whole body.
    pub fn clip_end(&self, start: usize, end: usize, max_lines: usize) -> usize {
        let first = self.line_starts.partition_point(|&s| s <= start);
        match self.line_starts.get(first + max_lines.saturating_sub(1)) {
            // The line break before the line that would be one too many.
            Some(&next) if next < end => next.saturating_sub(1).max(start),
            _ => end,
        }
    }
}

impl SourceCode for Snippet {
    /// miette's scan started `context_lines_before + 1` lines above the span
    /// instead of at the top of the file, its lines and offsets then moved
    /// back to whole-file terms: the scan's state at a line start depends
    /// only on the lines it keeps for context, so the result is the same
    /// (the test below compares the two on every span of a sample).
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        if self.tight && (context_lines_before > 0 || context_lines_after > 0) {
            let end = span.offset() + span.len().saturating_sub(1);
            let (start, _, _) = self.line_bounds(self.line_of(span.offset()));
            let (_, end, _) = self.line_bounds(self.line_of(end.max(span.offset())));
            let lines = SourceSpan::new(start.into(), end.saturating_sub(start));
            return self.read_span(&lines, 0, 0);
        }
        let line = self
            .line_starts
            .partition_point(|&s| s <= span.offset())
            .saturating_sub(1);
        // One line more than the context: for an empty span at a line
        // start, miette's scan stops at the newline before it.
        let base_line = line.saturating_sub(context_lines_before + 1);
        let base = self.line_starts.get(base_line).copied().unwrap_or(0);
        let bytes = self.text.as_bytes();
        let Some(rest) = bytes.get(base..) else {
            return Err(MietteError::OutOfBounds);
        };
        let local = SourceSpan::new((span.offset() - base).into(), span.len());
        let found = rest.read_span(&local, context_lines_before, context_lines_after)?;
        let start = base + found.span().offset();
        let data = bytes
            .get(start..start + found.span().len())
            .ok_or(MietteError::OutOfBounds)?;
        let (mut line, mut column, mut line_count) = (
            base_line + found.line(),
            found.column(),
            base_line + found.line_count(),
        );
        if let Some(origin) = &self.origin {
            // miette reports a column only without context lines before.
            if context_lines_before == 0 {
                let shift = origin.column_shift.get(line).copied().unwrap_or(0);
                column = column.saturating_add_signed(shift);
            }
            line += origin.first_line;
            line_count += origin.first_line;
        }
        Ok(Box::new(MietteSpanContents::new(
            data,
            SourceSpan::new(start.into(), found.span().len()),
            line,
            column,
            line_count,
        )))
    }
}

/// The largest char boundary at or before `at`.
fn floor_char(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_contents_as_miettes_whole_file_scan() {
        let text = "a\nbb\r\nccc\rdddd\n\n  e = 1;\r\n\r\nlast line\nno newline at end";
        let snippet = Snippet::new(Arc::from(text));
        let mut compared = 0;
        for offset in 0..=text.len() {
            for len in [0, 1, 3, 9] {
                for before in 0..3 {
                    for after in 0..3 {
                        let span = SourceSpan::new(offset.into(), len);
                        let ours = snippet.read_span(&span, before, after);
                        let theirs = text.read_span(&span, before, after);
                        match (ours, theirs) {
                            (Ok(o), Ok(t)) => {
                                let what = format!("{offset}+{len} ({before}, {after})");
                                assert_eq!(o.data(), t.data(), "{what}");
                                assert_eq!(o.span(), t.span(), "{what}");
                                assert_eq!(o.line(), t.line(), "{what}");
                                assert_eq!(o.column(), t.column(), "{what}");
                                assert_eq!(o.line_count(), t.line_count(), "{what}");
                                compared += 1;
                            }
                            (Err(_), Err(_)) => {}
                            (o, t) => panic!(
                                "{offset}+{len} ({before}, {after}): ours ok {}, miette's ok {}",
                                o.is_ok(),
                                t.is_ok()
                            ),
                        }
                    }
                }
            }
        }
        assert!(compared > 1000, "{compared}");
    }
}
