//! miette graphical reports with source snippets.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use super::{escape, Options, Snippet};
use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::Outcome;
use crate::report::snippet::Clip;
use crate::source::Span;

/// Findings rendered in parallel per batch, then written in order: miette's
/// layout is most of this format's cost, and a batch bounds what is held.
const BATCH: usize = 512;

/// Lines of a finding's span drawn in its snippet: a span over a whole
/// function shows the line where it starts.
const MAX_SPAN_LINES: usize = 1;

pub fn write(
    outcome: &Outcome,
    options: &Options,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let theme = if options.color {
        miette::GraphicalTheme::unicode()
    } else {
        miette::GraphicalTheme::unicode_nocolor()
    };
    let handler = miette::GraphicalReportHandler::new_themed(theme)
        // Context is the spans' own lines ([`Snippet::tight`]).
        .with_context_lines(1)
        // A message or help is one line however long (the terminal wraps
        // it), as rustc and ruff print theirs.
        .with_wrap_lines(false);
    let paths: HashMap<&str, &Path> = outcome
        .files
        .iter()
        .map(|f| (&*f.display, f.path.as_path()))
        .collect();
    // Sources are re-read only for files with findings, one batch at a
    // time, so memory stays proportional to a batch, not the tree.
    let mut last: Option<(Arc<str>, Snippet)> = None;
    for batch in outcome.diagnostics.chunks(BATCH) {
        let mut sources: Vec<(Arc<str>, Snippet)> = Vec::new();
        for d in batch {
            let path = &d.location.path;
            if sources.last().is_some_and(|(p, _)| p == path) {
                continue;
            }
            let text = match &last {
                Some((p, t)) if p == path => t.clone(),
                _ => source_text(&paths, path),
            };
            sources.push((path.clone(), text));
        }
        let text_of = |path: &Arc<str>| {
            sources
                .iter()
                .rev()
                .find(|(p, _)| p == path)
                .map(|(_, t)| t.clone())
                .unwrap_or_else(|| Snippet::new(Arc::from("")))
        };
        let rendered: Vec<String> = crate::engine::on_pool(|| {
            batch
                .par_iter()
                .map(|d| {
                    render_one(
                        &handler,
                        d,
                        text_of(&d.location.path),
                        options.unsafe_fixes,
                        options.color,
                    )
                })
                .collect()
        });
        for r in &rendered {
            out.write_all(r.as_bytes())?;
        }
        last = sources.pop();
    }
    if !options.quiet {
        writeln!(
            out,
            "proclint: {}",
            crate::report::summary_with_fixes(outcome, options)
        )?;
        if let Some(hint) = crate::report::next_steps(outcome) {
            writeln!(out, "{hint}")?;
        }
    }
    Ok(())
}

/// The text of a reported file, as its snippets show it
/// ([`escape::source`]: what a terminal or CI log would act on replaced,
/// offsets kept). Files that were not linted (run journals from `--run`)
/// are named as the user typed them.
fn source_text(paths: &HashMap<&str, &Path>, display: &Arc<str>) -> Snippet {
    let text = paths
        .get(&**display)
        .and_then(|p| std::fs::read(p).ok())
        .or_else(|| std::fs::read(&**display).ok())
        .map(|b| {
            let text = crate::source::decode(b).0;
            let shown = match escape::source(&text) {
                Cow::Owned(shown) => Some(shown),
                Cow::Borrowed(_) => None,
            };
            Arc::from(shown.unwrap_or(text))
        })
        .unwrap_or_else(|| Arc::from(""));
    Snippet::new(text).tight()
}

/// Related locations within this many lines of the finding are drawn on
/// its snippet; the others are one-line notes, so a label never makes the
/// snippet longer than a few lines (a warning once drew the 1,429 lines
/// between two of its labels).
const NEAR_LINES: u32 = 1;

/// Notes printed per finding; the rest are counted (a module's ten
/// unlabelled tasks are named in the message already).
const MAX_NOTES: usize = 3;

fn render_one(
    handler: &miette::GraphicalReportHandler,
    d: &Diagnostic,
    text: Snippet,
    unsafe_fixes: bool,
    color: bool,
) -> String {
    let (first, last) = (d.location.start.line, d.location.end.line);
    let near = |r: &crate::diagnostic::Related| {
        r.location.path == d.location.path
            && r.location.start.line + NEAR_LINES >= first
            && r.location.start.line
                <= first.max(last.min(first + MAX_SPAN_LINES as u32 - 1)) + NEAR_LINES
    };
    // Long lines are cut to a window around the finding (miette panics past
    // 65,535 columns); related spans the excerpt does not show become notes.
    let others: Vec<(usize, usize)> = d
        .related
        .iter()
        .filter(|r| near(r))
        .map(|r| (r.location.span.start, r.location.span.end))
        .collect();
    let (text, clip) = match text.clip((d.location.span.start, d.location.span.end), &others) {
        Some((excerpt, clip)) => (excerpt, Some(clip)),
        None => (text, None),
    };
    let shown = |r: &crate::diagnostic::Related| {
        near(r)
            && clip
                .as_ref()
                .is_none_or(|c| c.covers(r.location.span.start, r.location.span.end))
    };
    let (drawn, noted): (Vec<_>, Vec<_>) = d.related.iter().partition(|r| shown(r));
    let rendered = Rendered {
        diag: d,
        message: format!("{}: {}", d.rule, escape::line(&d.message)),
        source: miette::NamedSource::new(escape::line(&d.location.path), text),
        clip,
        drawn,
    };
    let mut drawn = String::new();
    let mut out = String::new();
    if handler.render_report(&mut drawn, &rendered).is_err() {
        out = crate::report::concise::line(d);
        out.push('\n');
    }
    // The line that closes the snippet's frame is left out: the notes and
    // the help below it end the finding as well, a line shorter.
    for line in drawn.split_inclusive('\n') {
        if !closes_frame(line) {
            out.push_str(line);
        }
    }
    let paint = |label: &str| {
        if color {
            format!("\x1b[36m{label}\x1b[0m")
        } else {
            label.to_string()
        }
    };
    // What the snippet does not show, one line each: related locations in
    // other files or further away, then the help and what the fix does.
    let more = noted.len().saturating_sub(MAX_NOTES);
    for r in noted.into_iter().take(MAX_NOTES) {
        out.push_str(&format!(
            "  = {} {} at {}:{}\n",
            paint("note:"),
            escape::line(&r.message),
            escape::line(&r.location.path),
            r.location.start.line,
        ));
    }
    if more > 0 {
        out.push_str(&format!(
            "  = {} {more} more related location{} (`--format sarif` lists them all)\n",
            paint("note:"),
            if more == 1 { "" } else { "s" },
        ));
    }
    let mut help = d.help.as_deref().map(|h| escape::line(h).into_owned());
    if let Some(extra) = d
        .fix
        .as_ref()
        .and_then(|f| crate::report::fixes::help_line(f, unsafe_fixes))
    {
        let extra = escape::line(&extra).into_owned();
        help = Some(match help {
            Some(h) => format!("{h}\n        {extra}"),
            None => extra,
        });
    }
    if let Some(help) = help {
        out.push_str(&format!("  {} {help}\n", paint("help:")));
    }
    out.push('\n');
    out
}

/// Whether `line` is miette's `╰────` under a snippet (colours aside).
fn closes_frame(line: &str) -> bool {
    let mut rest = line.trim();
    let mut seen = String::new();
    while let Some(c) = rest.chars().next() {
        if c == '\x1b' {
            // An SGR sequence: ESC [ … m.
            match rest.find('m') {
                Some(end) => rest = &rest[end + 1..],
                None => return false,
            }
        } else {
            seen.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    seen == "╰────"
}

/// A diagnostic paired with its file text, for miette's graphical reports.
/// What it shows of the input is escaped ([`escape::line`]): the message,
/// the help, the labels, the file name.
struct Rendered<'a> {
    diag: &'a Diagnostic,
    /// The rule and the message, on the report's first line.
    message: String,
    source: miette::NamedSource<Snippet>,
    /// Set when `source` is an excerpt: maps the file's offsets into it.
    clip: Option<Clip>,
    /// The related locations drawn on the snippet.
    drawn: Vec<&'a crate::diagnostic::Related>,
}

impl fmt::Debug for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.diag, f)
    }
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Rendered<'_> {}

impl miette::Diagnostic for Rendered<'_> {
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diag.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let text = self.source.inner();
        let len = text.len();
        let clip = self.clip.as_ref();
        let clamp = move |s: Span| {
            // Long lines are cut to a window first (positions re-anchored),
            // then a span is cut to a few lines.
            let (start, end) = match clip {
                Some(c) => (c.map(s.start), c.map(s.end.max(s.start))),
                None => (s.start, s.end),
            };
            let start = start.min(len);
            let end = text.clip_end(start, end.min(len), MAX_SPAN_LINES);
            miette::SourceSpan::from((start, end.saturating_sub(start)))
        };
        // The rule names itself on the first line: the primary span is
        // underlined without a label (a label costs two lines).
        let primary =
            miette::LabeledSpan::new_primary_with_span(None, clamp(self.diag.location.span));
        let same_file = self.drawn.iter().map(move |r| {
            miette::LabeledSpan::new_with_span(
                Some(escape::line(&r.message).into_owned()),
                clamp(r.location.span),
            )
        });
        Some(Box::new(std::iter::once(primary).chain(same_file)))
    }
}
