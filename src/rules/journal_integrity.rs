//! `journal-integrity`: the recorded run's journal does not verify (a
//! checksum mismatch, a gap in the sequence, an unparseable or truncated
//! event, a resolution without its request, an event after the end, a
//! missing task file). Reported from the run pass of `check --run`.

use super::{Area, Category, ProjectSink, Rule, RuleMeta, RunContext};
use crate::diagnostic::Severity;
use crate::project::run_analysis::file_location;

pub struct JournalIntegrity;

static META: RuleMeta = RuleMeta {
    id: "journal-integrity",
    summary:
        "The run journal does not verify: an event was edited, lost, truncated or is out of order.",
    severity: Severity::Error,
    area: Area::Run,
    category: Category::Run,
    doc: include_str!("../../rules/journal-integrity.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

impl Rule for JournalIntegrity {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn needs_run(&self) -> bool {
        true
    }

    fn check_run(&self, cx: &RunContext, sink: &mut ProjectSink) {
        let run = &cx.analysis.run;
        for issue in &run.integrity.issues {
            let d = sink
                .diag(
                    file_location(&issue.file, issue.line),
                    format!("run `{}`: {}", run.run_id, issue.message),
                )
                .with_help(
                    "the evidence from this run cannot be trusted past this point; restore the journal from version control or re-run",
                );
            sink.push(d);
        }
    }
}
