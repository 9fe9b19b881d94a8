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
}

impl Snippet {
    pub fn new(text: Arc<str>) -> Snippet {
        Snippet {
            line_starts: crate::source::line_starts(&text).into(),
            text,
        }
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
        Ok(Box::new(MietteSpanContents::new(
            data,
            SourceSpan::new(start.into(), found.span().len()),
            base_line + found.line(),
            found.column(),
            base_line + found.line_count(),
        )))
    }
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
