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

/// Lines of a finding's span drawn in its snippet (plus one line of context
/// around it): a span over a whole function shows where it starts.
const MAX_SPAN_LINES: usize = 3;

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
    let handler = miette::GraphicalReportHandler::new_themed(theme).with_context_lines(1);
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
                .map(|d| render_one(&handler, d, text_of(&d.location.path), options.unsafe_fixes))
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
    Snippet::new(text)
}

fn render_one(
    handler: &miette::GraphicalReportHandler,
    d: &Diagnostic,
    text: Snippet,
    unsafe_fixes: bool,
) -> String {
    // Long lines are cut to a window around the finding (miette panics past
    // 65,535 columns); related spans the excerpt does not show are listed in
    // the help like those in other files.
    let others: Vec<(usize, usize)> = d
        .related
        .iter()
        .filter(|r| r.location.path == d.location.path)
        .map(|r| (r.location.span.start, r.location.span.end))
        .collect();
    let (text, clip) = match text.clip((d.location.span.start, d.location.span.end), &others) {
        Some((excerpt, clip)) => (excerpt, Some(clip)),
        None => (text, None),
    };
    let shown = |r: &crate::diagnostic::Related| {
        r.location.path == d.location.path
            && clip
                .as_ref()
                .is_none_or(|c| c.covers(r.location.span.start, r.location.span.end))
    };
    // Related locations in other files cannot be drawn on this file's
    // snippet: they are listed in the help, one line each.
    let mut help = d.help.as_deref().map(|h| escape::line(h).into_owned());
    for r in d.related.iter().filter(|r| !shown(r)) {
        let extra = format!(
            "see also {}:{}:{}: {}",
            escape::line(&r.location.path),
            r.location.start.line,
            r.location.start.column,
            escape::line(&r.message)
        );
        help = Some(match help {
            Some(h) => format!("{h}\n{extra}"),
            None => extra,
        });
    }
    // What the fix does, and whether `--fix` applies it under these flags.
    if let Some(extra) = d
        .fix
        .as_ref()
        .and_then(|f| crate::report::fixes::help_line(f, unsafe_fixes))
    {
        let extra = escape::line(&extra).into_owned();
        help = Some(match help {
            Some(h) => format!("{h}\n{extra}"),
            None => extra,
        });
    }
    let rendered = Rendered {
        diag: d,
        message: escape::line(&d.message),
        help,
        source: miette::NamedSource::new(escape::line(&d.location.path), text),
        clip,
    };
    let mut out = String::new();
    if handler.render_report(&mut out, &rendered).is_err() {
        out = crate::report::concise::line(d);
    }
    out.push('\n');
    out
}

/// A diagnostic paired with its file text, for miette's graphical reports.
/// What it shows of the input is escaped ([`escape::line`]): the message,
/// the help, the labels, the file name.
struct Rendered<'a> {
    diag: &'a Diagnostic,
    message: Cow<'a, str>,
    /// The help, and the related locations the snippet does not show.
    help: Option<String>,
    source: miette::NamedSource<Snippet>,
    /// Set when `source` is an excerpt: maps the file's offsets into it.
    clip: Option<Clip>,
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
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(self.diag.rule))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diag.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
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
        let primary = miette::LabeledSpan::new_primary_with_span(
            Some(self.diag.rule.to_string()),
            clamp(self.diag.location.span),
        );
        // miette draws one source per report: related spans in other files
        // are listed in the help text by the pretty reporter instead.
        let same_file = self
            .diag
            .related
            .iter()
            .filter(|r| r.location.path == self.diag.location.path)
            .filter(move |r| {
                clip.is_none_or(|c| c.covers(r.location.span.start, r.location.span.end))
            })
            .map(move |r| {
                miette::LabeledSpan::new_with_span(
                    Some(escape::line(&r.message).into_owned()),
                    clamp(r.location.span),
                )
            });
        Some(Box::new(std::iter::once(primary).chain(same_file)))
    }
}
