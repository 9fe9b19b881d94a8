//! miette graphical reports with source snippets.

use super::Options;
use crate::diagnostic::Rendered;
use crate::lint::Outcome;

pub fn render(outcome: &Outcome, options: &Options) -> String {
    let theme = if options.color {
        miette::GraphicalTheme::unicode()
    } else {
        miette::GraphicalTheme::unicode_nocolor()
    };
    let handler = miette::GraphicalReportHandler::new_themed(theme).with_context_lines(1);
    let mut out = String::new();
    // Sources are re-read only for files with findings, so memory stays
    // proportional to the report, not the tree.
    let mut current: Option<(std::sync::Arc<str>, String)> = None;
    for d in &outcome.diagnostics {
        let path = d.location.path.clone();
        if current.as_ref().map(|(p, _)| p) != Some(&path) {
            let text = outcome
                .files
                .iter()
                .find(|f| f.display == path)
                .and_then(|f| std::fs::read(&f.path).ok())
                // Files that were not linted (run journals from `--run`) are
                // named as the user typed them.
                .or_else(|| std::fs::read(&*path).ok())
                .map(|b| crate::source::decode(b).0)
                .unwrap_or_default();
            current = Some((path.clone(), text));
        }
        let text = current.as_ref().map(|(_, t)| t.clone()).unwrap_or_default();
        let mut diag = d.clone();
        for r in d
            .related
            .iter()
            .filter(|r| r.location.path != d.location.path)
        {
            let extra = format!(
                "{}:{}:{}: {}",
                r.location.path, r.location.start.line, r.location.start.column, r.message
            );
            diag.help = Some(match diag.help {
                Some(h) => format!("{h}\nsee also {extra}"),
                None => format!("see also {extra}"),
            });
        }
        let rendered = Rendered {
            diag: &diag,
            source: miette::NamedSource::new(&path, text),
        };
        if handler.render_report(&mut out, &rendered).is_err() {
            out.push_str(&super::concise::line(d));
        }
        out.push('\n');
    }
    if !options.quiet {
        out.push_str(&format!("proclint: {}\n", super::summary_line(outcome)));
    }
    out
}
