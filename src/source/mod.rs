//! Source text and byte-offset → line/column conversion.
//!
//! Columns are counted in UTF-16 code units (what SARIF, GitHub and LSP editors
//! expect); lines break at LF, CRLF and lone CR so positions agree with editors
//! on every line-ending style.

pub mod inject;
pub mod names;
pub mod output;

use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// A byte range into a source file.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A 1-based line and 1-based UTF-16 column.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Hash, Serialize, Deserialize,
)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

/// Line starts of a text, for position lookups.
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    starts: Vec<usize>,
    /// UTF-16 code units before a char boundary, about every
    /// [`CHECKPOINT`] bytes: (byte offset, units before it). Empty for
    /// ASCII text, where the two counts are equal. Columns are counted
    /// from the nearest checkpoint, so a position on a long (minified) line
    /// costs at most one checkpoint interval, not the line.
    utf16: Vec<(usize, u32)>,
}

const CHECKPOINT: usize = 1024;

/// Where each line of `text` starts: after `\n`, `\r\n` or a lone `\r`.
pub fn line_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    let mut i = 0;
    while let Some(found) = memchr::memchr2(b'\n', b'\r', &bytes[i..]) {
        let at = i + found;
        i = if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
            at + 2
        } else {
            at + 1
        };
        starts.push(i);
    }
    starts
}

/// The length of the line break at `at`: 2 for `\r\n`, 1 for `\n` or a
/// lone `\r` (old Mac files), 0 when none starts there.
pub fn break_len(text: &str, at: usize) -> usize {
    match text.as_bytes().get(at..).unwrap_or_default() {
        [b'\r', b'\n', ..] => 2,
        [b'\n' | b'\r', ..] => 1,
        _ => 0,
    }
}

/// The lines of `text`, each with its break (`\n`, `\r\n` or a lone
/// `\r`), as `str::split_inclusive('\n')` gives them for `\n` files.
pub fn lines_inclusive(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = memchr::memchr2(b'\n', b'\r', rest.as_bytes())
            .map_or(rest.len(), |at| at + break_len(rest, at));
        let (line, tail) = rest.split_at(end);
        rest = tail;
        Some(line)
    })
}

/// The file's own line break, from its first line: `\r\n`, a lone `\r`,
/// else `\n`. Fixes insert lines with it.
pub fn newline_of(text: &str) -> &'static str {
    let bytes = text.as_bytes();
    match memchr::memchr2(b'\n', b'\r', bytes) {
        Some(at) if bytes.get(at..at + 2) == Some(b"\r\n") => "\r\n",
        Some(at) if bytes[at] == b'\r' => "\r",
        _ => "\n",
    }
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let starts = line_starts(text);
        let mut utf16 = Vec::new();
        if !text.is_ascii() {
            let mut units = 0u32;
            let mut next = 0;
            for (at, c) in text.char_indices() {
                if at >= next {
                    utf16.push((at, units));
                    next = at + CHECKPOINT;
                }
                units = units.saturating_add(c.len_utf16() as u32);
            }
        }
        LineIndex { starts, utf16 }
    }

    /// UTF-16 code units in `text[..offset]` (`offset` on a char boundary).
    fn units_before(&self, text: &str, offset: usize) -> u32 {
        if self.utf16.is_empty() {
            return u32::try_from(offset).unwrap_or(u32::MAX);
        }
        let i = self.utf16.partition_point(|&(at, _)| at <= offset);
        let (at, units) = match i.checked_sub(1).and_then(|i| self.utf16.get(i)) {
            Some(&c) => c,
            None => (0, 0),
        };
        units
            + text
                .get(at..offset)
                .unwrap_or("")
                .chars()
                .map(|c| c.len_utf16() as u32)
                .sum::<u32>()
    }

    /// Number of lines (a trailing newline does not start a counted line).
    pub fn line_count(&self, text: &str) -> usize {
        let n = self.starts.len();
        if n > 1 && self.starts[n - 1] >= text.len() {
            n - 1
        } else {
            n
        }
    }

    /// Byte offset where the 0-based line starts.
    pub fn line_start(&self, line0: usize) -> usize {
        self.starts.get(line0).copied().unwrap_or(0)
    }

    /// Converts a byte offset to a position; offsets are clamped into the text
    /// and moved back to a char boundary so a bad span can never panic.
    pub fn pos(&self, text: &str, offset: usize) -> Pos {
        let mut offset = offset.min(text.len());
        while offset > 0 && !text.is_char_boundary(offset) {
            offset -= 1;
        }
        // Between the CR and LF of a CRLF is not a place on any line: count
        // it as the end of the line (one past the last character), like
        // the CR itself.
        if offset > 0
            && text.as_bytes().get(offset) == Some(&b'\n')
            && text.as_bytes()[offset - 1] == b'\r'
        {
            offset -= 1;
        }
        let line0 = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let mut start = self.starts[line0];
        // A byte-order mark is not a column: editors, GitHub and SARIF
        // viewers all start the first line after it.
        if start == 0 && text.starts_with('\u{feff}') && offset >= 3 {
            start = 3;
        }
        // Most lines are shorter than a checkpoint's stride: counting the
        // line's own characters is cheaper than two checkpoint scans.
        let units = if self.utf16.is_empty() {
            u32::try_from(offset.saturating_sub(start)).unwrap_or(u32::MAX)
        } else if offset.saturating_sub(start) <= CHECKPOINT {
            text.get(start..offset)
                .unwrap_or("")
                .chars()
                .map(|c| c.len_utf16() as u32)
                .sum()
        } else {
            self.units_before(text, offset)
                .saturating_sub(self.units_before(text, start))
        };
        let column = units.saturating_add(1);
        Pos {
            line: line0 as u32 + 1,
            column,
        }
    }

    /// The text of the 0-based line without its terminator.
    pub fn line_text<'a>(&self, text: &'a str, line0: usize) -> &'a str {
        let start = self.line_start(line0).min(text.len());
        let end = self
            .starts
            .get(line0 + 1)
            .copied()
            .unwrap_or(text.len())
            .min(text.len());
        text.get(start..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }
}

/// One file's text, ready for analysis.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Display path: as walked from the argument, with `/` separators.
    pub path: Arc<str>,
    pub text: String,
    pub lines: LineIndex,
}

impl SourceFile {
    pub fn new(path: impl Into<Arc<str>>, text: String) -> Self {
        let lines = LineIndex::new(&text);
        SourceFile {
            path: path.into(),
            text,
            lines,
        }
    }

    pub fn pos(&self, offset: usize) -> Pos {
        self.lines.pos(&self.text, offset)
    }

    pub fn location(&self, span: Span) -> Location {
        Location {
            path: self.path.clone(),
            span,
            start: self.pos(span.start),
            end: self.pos(span.end),
        }
    }

    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.start..span.end).unwrap_or("")
    }
}

/// Decodes file bytes for analysis. Invalid UTF-8 sequences are replaced
/// byte-for-byte by `?` so every byte offset stays valid against the file on
/// disk (a lossy decode would shift later spans). Returns the text and the
/// offset of the first invalid byte, if any. A leading BOM is kept (as spaces
/// would shift nothing either, but the BOM is valid UTF-8 and tree-sitter
/// treats it as whitespace).
pub fn decode(bytes: Vec<u8>) -> (String, Option<usize>) {
    match String::from_utf8(bytes) {
        Ok(s) => (s, None),
        Err(e) => {
            let first = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            let mut i = first;
            while i < bytes.len() {
                match std::str::from_utf8(&bytes[i..]) {
                    Ok(_) => break,
                    Err(err) => {
                        let good = i + err.valid_up_to();
                        let bad = err.error_len().unwrap_or(bytes.len() - good);
                        for b in &mut bytes[good..good + bad] {
                            *b = b'?';
                        }
                        i = good + bad;
                    }
                }
            }
            (String::from_utf8_lossy(&bytes).into_owned(), Some(first))
        }
    }
}

/// A resolved place in a file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Location {
    #[serde(with = "interned_path")]
    pub path: Arc<str>,
    pub span: Span,
    pub start: Pos,
    pub end: Pos,
}

/// The result cache's encoding of a [`Location`]'s path. Locations in a
/// cache entry almost all name the entry's own file; writing the
/// path once per location made entries larger than the source and cost an
/// allocation per location on every warm run. While an entry is encoded
/// or decoded, the file's display path is set here and stands for itself
/// as an empty string (a display path is never empty).
pub mod interned_path {
    use std::borrow::Cow;
    use std::cell::RefCell;
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serializer};

    thread_local! {
        static CURRENT: RefCell<Option<Arc<str>>> = const { RefCell::new(None) };
    }

    /// Runs `f` with `path` as the entry's own path on this thread.
    pub fn with<R>(path: &Arc<str>, f: impl FnOnce() -> R) -> R {
        let previous = CURRENT.with(|c| c.replace(Some(path.clone())));
        let out = f();
        CURRENT.with(|c| *c.borrow_mut() = previous);
        out
    }

    pub fn serialize<S: Serializer>(path: &Arc<str>, s: S) -> Result<S::Ok, S::Error> {
        let own = CURRENT.with(|c| c.borrow().as_deref() == Some(&**path));
        s.serialize_str(if own { "" } else { path })
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<str>, D::Error> {
        let text = Cow::<'de, str>::deserialize(d)?;
        if text.is_empty() {
            if let Some(own) = CURRENT.with(|c| c.borrow().clone()) {
                return Ok(own);
            }
        }
        Ok(Arc::from(text.as_ref()))
    }
}

/// A fast 64-bit hash of file bytes (`--fix` compares it to refuse
/// overwriting a file that changed since it was read). Word-at-a-time
/// multiply-rotate, so hashing a tree costs little next to reading it;
/// not collision-resistant, which this check does not need (the result
/// cache keys on SHA-256 instead).
pub fn content_hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h: u64 = (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = (h.rotate_left(5) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    // Final avalanche (from splitmix64).
    h ^= h >> 31;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 29)
}

/// Reads `path` only if it is a regular file of at most `limit` bytes and,
/// when `within` is given as (canonical folder, its name for messages), only
/// if its real path (after every symbolic link) stays inside that folder.
///
/// Files named by untrusted trees (run journals, ignore files: git stores
/// symbolic links, so a committed `.a5c/runs/` can hold any) must not make
/// proclint read a device until memory runs out (`metadata().len()` is 0 for
/// `/dev/zero`), hang on a FIFO, or leak a file from elsewhere. The file is
/// opened non-blocking (opening a FIFO for reading waits for a writer) and
/// its type and size are checked on the open handle, so what is read is what
/// was checked; reading stops past `limit` even if the file grows.
pub fn read_regular(
    path: &std::path::Path,
    limit: u64,
    within: Option<(&std::path::Path, &str)>,
) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    if let Some((root, name)) = within {
        let real = std::fs::canonicalize(path)?;
        if !real.starts_with(root) {
            return Err(std::io::Error::other(format!(
                "a symbolic link leaving {name} (to {}): not read",
                real.display()
            )));
        }
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other(format!(
            "not a regular file ({}): not read",
            file_type_name(&meta.file_type())
        )));
    }
    if meta.len() > limit {
        return Err(std::io::Error::other(format!(
            "file is {} bytes, larger than the {limit}-byte limit",
            meta.len()
        )));
    }
    let capacity = usize::try_from(meta.len()).map_or(0, |n| n.saturating_add(1));
    let mut bytes = Vec::with_capacity(capacity);
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::other(format!(
            "the file grew past the {limit}-byte limit while being read"
        )));
    }
    Ok(bytes)
}

/// "a directory", "a FIFO", "a device"… for messages about what was skipped.
pub fn file_type_name(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Characters no text output writes as they are: control characters (C0,
/// DEL, C1), the line and paragraph separators, and the bidirectional
/// controls (which reorder what a terminal or browser shows).
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// `c` as a visible escape: `\n`, `\r`, `\t`, else `\u{1b}`.
pub fn push_visible(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c => {
            let _ = std::fmt::Write::write_fmt(out, format_args!("\\u{{{:x}}}", u32::from(c)));
        }
    }
}

/// `text` with the characters of [`is_unsafe`] as visible escapes
/// ([`push_visible`]), for a message on a terminal or in a CI log: a file
/// name or a value from a pull request must not move the cursor, ring, or
/// start a line of its own.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) {
            push_visible(&mut out, c);
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The repository a path is in: the nearest folder at or above its folder
/// that holds a `.git`, else its folder (both resolved).
pub fn repository_of(path: &Path) -> Option<std::path::PathBuf> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let folder = std::fs::canonicalize(folder).ok()?;
    let repo = folder
        .ancestors()
        .find(|a| std::fs::symlink_metadata(a.join(".git")).is_ok())
        .map(Path::to_path_buf);
    Some(repo.unwrap_or(folder))
}

/// [`read_regular`] of a small UTF-8 file proclint takes data from (a
/// configuration, a baseline), with the message to show when it cannot.
///
/// A file that is a symbolic link must lead inside the repository holding
/// the link (the nearest folder above it with a `.git`, else its folder): a
/// committed `proclint.toml` → `/proc/self/environ` or `~/.ssh/…` would
/// otherwise be read and quoted in the error it gives.
pub fn read_small_file(path: &Path, limit: u64) -> Result<String, String> {
    let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let repository = linked.then(|| repository_of(path)).flatten();
    if linked && repository.is_none() {
        return Err("cannot read: a symbolic link whose folder cannot be resolved".into());
    }
    let within = repository.as_deref().map(|r| (r, "the repository"));
    let bytes = read_regular(path, limit, within).map_err(|e| format!("cannot read: {e}"))?;
    String::from_utf8(bytes).map_err(|_| "cannot read: not UTF-8".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_on_every_line_ending() {
        let text = "a\nbb\r\nccc\rd";
        let idx = LineIndex::new(text);
        assert_eq!(idx.pos(text, 0), Pos { line: 1, column: 1 });
        assert_eq!(idx.pos(text, 2), Pos { line: 2, column: 1 });
        assert_eq!(idx.pos(text, 6), Pos { line: 3, column: 1 });
        assert_eq!(idx.pos(text, 10), Pos { line: 4, column: 1 });
        assert_eq!(idx.line_text(text, 1), "bb");
        assert_eq!(idx.line_text(text, 2), "ccc");
    }

    #[test]
    fn lines_and_breaks_of_every_line_ending() {
        let text = "a\nbb\r\nccc\rd";
        let lines: Vec<&str> = lines_inclusive(text).collect();
        assert_eq!(lines, ["a\n", "bb\r\n", "ccc\r", "d"]);
        assert_eq!(lines_inclusive("").count(), 0);
        assert_eq!(lines_inclusive("x\r\r").collect::<Vec<_>>(), ["x\r", "\r"]);
        assert_eq!(
            (break_len(text, 1), break_len(text, 4), break_len(text, 9)),
            (1, 2, 1)
        );
        assert_eq!(break_len(text, 0), 0);
        assert_eq!(break_len(text, text.len()), 0);
        assert_eq!(newline_of("a\r\nb\n"), "\r\n");
        assert_eq!(newline_of("a\rb\r"), "\r");
        assert_eq!(newline_of("a\nb\r"), "\n");
        assert_eq!(newline_of("a"), "\n");
    }

    #[test]
    fn columns_are_utf16_units() {
        let text = "é😀x";
        let idx = LineIndex::new(text);
        // é = 1 unit, 😀 = 2 units
        assert_eq!(idx.pos(text, text.len() - 1).column, 4);
        // Offsets inside a multibyte char clamp back to its start.
        assert_eq!(idx.pos(text, 1).column, 1);
    }

    /// Columns counted from checkpoints agree with counting the whole line,
    /// on lines far longer than a checkpoint interval, with multi-unit
    /// characters straddling checkpoints, and after a BOM.
    #[test]
    fn checkpointed_columns_match_a_full_count() {
        let mut text = String::from("\u{feff}");
        for i in 0..3000 {
            text.push_str(if i % 7 == 0 { "é😀" } else { "ab" });
            if i % 1000 == 999 {
                text.push('\n');
            }
        }
        let idx = LineIndex::new(&text);
        for offset in (0..=text.len()).filter(|o| text.is_char_boundary(*o)) {
            let line0 = idx.starts.partition_point(|&s| s <= offset) - 1;
            let mut start = idx.starts[line0];
            if start == 0 && offset >= 3 {
                start = 3;
            }
            let expected = text[start..offset].encode_utf16().count() as u32 + 1;
            assert_eq!(idx.pos(&text, offset).column, expected, "offset {offset}");
        }
    }

    #[test]
    fn inside_crlf_is_the_end_of_the_line() {
        let text = "ab\r\ncd";
        let idx = LineIndex::new(text);
        assert_eq!(idx.pos(text, 2), Pos { line: 1, column: 3 });
        assert_eq!(idx.pos(text, 3), Pos { line: 1, column: 3 });
        assert_eq!(idx.pos(text, 4), Pos { line: 2, column: 1 });
    }

    #[test]
    fn bom_is_not_a_column() {
        let text = "\u{feff}ab\ncd";
        let idx = LineIndex::new(text);
        assert_eq!(idx.pos(text, 0), Pos { line: 1, column: 1 });
        assert_eq!(idx.pos(text, 3), Pos { line: 1, column: 1 });
        assert_eq!(idx.pos(text, 4), Pos { line: 1, column: 2 });
        assert_eq!(idx.pos(text, 7), Pos { line: 2, column: 2 });
    }

    #[test]
    fn decode_keeps_offsets() {
        let (s, bad) = decode(b"ab\xffcd\xe2\x82".to_vec());
        assert_eq!(s, "ab?cd??");
        assert_eq!(bad, Some(2));
    }
}
