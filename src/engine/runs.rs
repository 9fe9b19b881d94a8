//! The run rules (`check --run`): each enabled rule's `check_run` over the
//! recorded run read against the project, a panicking rule becoming an
//! `internal-error`. In: the [`RunAnalysis`]. Out: its findings.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::guard::{panic_message, whole_file};
use crate::project::config::Config;
use crate::project::run_analysis::RunAnalysis;
use crate::rules::{self, ProjectSink, RuleSwitches, RunContext};

/// Every enabled rule's `check_run`, a panicking rule becoming an
/// `internal-error` like in the other passes.
pub(super) fn check_run_rules(analysis: &RunAnalysis, config: &Config, out: &mut Vec<Diagnostic>) {
    let cx = RunContext { analysis, config };
    for rule in rules::all() {
        let meta = rule.meta();
        if meta.builtin || !config.is_enabled(meta.id) {
            continue;
        }
        let mut sink = ProjectSink::new(meta, config);
        match catch_unwind(AssertUnwindSafe(|| rule.check_run(&cx, &mut sink))) {
            Ok(()) => out.append(&mut sink.out),
            Err(p) => out.push(
                Diagnostic::new(
                    "internal-error",
                    Severity::Error,
                    whole_file(Arc::from(analysis.run.rel_dir.as_str())),
                    format!(
                        "internal error in {} (run pass): {}",
                        meta.id,
                        panic_message(&p)
                    ),
                )
                .with_help("this is a bug in proclint; please report it"),
            ),
        }
    }
}
