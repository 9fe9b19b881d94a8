//! Panics become findings: any stage that panics on a file (or a rule that
//! panics in a pass) yields an `internal-error` diagnostic naming the file
//! and stage, and the run goes on. In: the file and the panic payload. Out:
//! a diagnostic.

use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::source::{Pos, SourceFile, Span};

/// The start of a file, for findings about the file as a whole.
pub(super) fn whole_file(path: Arc<str>) -> Location {
    let p = Pos { line: 1, column: 1 };
    Location {
        path,
        span: Span::default(),
        start: p,
        end: p,
    }
}

pub(crate) fn internal(file: &SourceFile, stage: &str, message: String) -> Diagnostic {
    Diagnostic::new(
        "internal-error",
        Severity::Error,
        file.location(Span::default()),
        format!("internal error in {stage} on this file: {message}"),
    )
    .with_help("this is a bug in proclint; please report it with the file")
}

pub(crate) fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".into()
    }
}
