//! Output formats. Each takes the finished, sorted [`Outcome`] and returns
//! the whole report as a string, so `--output` can write it atomically
//! (through a temporary file). JSON is also written as it is produced
//! ([`write`]), so its report is never held whole in memory.

use crate::lint::Outcome;

pub mod concise;
pub mod github;
pub mod json;
pub mod pretty;
pub mod retrospective;
pub mod sarif;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Pretty,
    Concise,
    Json,
    Sarif,
    Github,
    Retrospective,
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub color: bool,
    /// Print only findings (no summary line).
    pub quiet: bool,
    /// Date, commit, command line… for `--format retrospective`.
    pub retro: Option<retrospective::RetroInfo>,
}

pub fn render(format: Format, outcome: &Outcome, options: &Options) -> String {
    match format {
        Format::Pretty => pretty::render(outcome, options),
        Format::Concise => concise::render(outcome, options),
        Format::Json => json::render(outcome),
        Format::Sarif => sarif::render(outcome),
        Format::Github => github::render(outcome),
        Format::Retrospective => retrospective::render(outcome, options),
    }
}

/// [`render`] into `out`; the JSON report is streamed.
pub fn write(
    format: Format,
    outcome: &Outcome,
    options: &Options,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        Format::Json => json::write(outcome, out),
        _ => out.write_all(render(format, outcome, options).as_bytes()),
    }
}

/// "3 errors, 1 warning and 2 infos in 4 files".
pub fn summary_line(outcome: &Outcome) -> String {
    use crate::diagnostic::Severity::*;
    let plural = |n: usize, word: &str| {
        if n == 1 {
            format!("{n} {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    format!(
        "{}, {} and {} in {}",
        plural(outcome.count(Error), "error"),
        plural(outcome.count(Warning), "warning"),
        plural(outcome.count(Info), "info"),
        plural(outcome.files.len(), "file"),
    )
}
