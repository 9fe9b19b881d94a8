//! Output formats. Each writes the finished, sorted [`Outcome`] to a
//! writer as it goes ([`write`]), so a report over a large tree is never
//! held whole in memory, and `--output` writes it atomically through a
//! temporary file. [`render`] collects the same bytes into a string.

use crate::engine::Outcome;

pub mod concise;
pub mod escape;
pub mod fixes;
pub mod github;
pub mod json;
pub mod pretty;
pub mod retrospective;
pub mod sarif;
mod snippet;

pub use snippet::Snippet;

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
    /// `--unsafe-fixes` (or `unsafe-fixes = true`): which fixes `--fix`
    /// applies, for the summary's counts and the findings' marks.
    pub unsafe_fixes: bool,
    /// The buffer linted from stdin (`--stdin-filename`): the text its
    /// fixes' edits are placed in (see [`fixes::Texts`]).
    pub stdin: Option<std::sync::Arc<[u8]>>,
}

pub fn render(format: Format, outcome: &Outcome, options: &Options) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail; a writer's own error would show as a
    // truncated string, never as a panic.
    let _ = write(format, outcome, options, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Writes the report for `outcome` in `format` to `out`.
pub fn write(
    format: Format,
    outcome: &Outcome,
    options: &Options,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        Format::Pretty => pretty::write(outcome, options, out),
        Format::Concise => concise::write(outcome, options, out),
        Format::Json => json::write(outcome, options, out),
        Format::Sarif => sarif::write(outcome, options, out),
        Format::Github => github::write(outcome, out),
        Format::Retrospective => out.write_all(retrospective::render(outcome, options).as_bytes()),
    }
}

/// What ends `pretty`'s and `concise`'s output: the summary line, and what
/// `--fix` would fix.
pub fn summary_with_fixes(outcome: &Outcome, options: &Options) -> String {
    let line = summary_line(outcome);
    match fixes::summary(outcome, options.unsafe_fixes) {
        Some(fixable) => format!("{line}; {fixable}"),
        None => line,
    }
}

/// Above this many findings the pretty report ends by saying how to take
/// them in parts.
pub const MANY_FINDINGS: usize = 50;

/// The pretty report's last line when it reported many findings: how to
/// count, narrow or set aside the rest (the flags as `check --help` names
/// them).
pub fn next_steps(outcome: &Outcome) -> Option<String> {
    let n = outcome.diagnostics.len();
    (n > MANY_FINDINGS).then(|| {
        format!(
            "hint: {n} findings — `--statistics` counts them by rule; `--select RULES` or \
             `--ignore RULES` narrows the run; `--write-baseline FILE` adopts them as a \
             baseline, so runs with `--baseline FILE` report only new ones"
        )
    })
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
