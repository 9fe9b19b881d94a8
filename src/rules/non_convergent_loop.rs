//! `non-convergent-loop`: a review/fix loop in the recorded run oscillated,
//! stalled, grew, or was left failing. Reported from the run pass of
//! `check --run`, at the `ctx.task` call inside the loop when the checked
//! source has it, else at the task's `defineTask`, else at the journal.

use super::{Area, Category, ProjectSink, Rule, RuleMeta, RunContext};
use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::project::config::Config;
use crate::project::run_analysis::loop_name;
use crate::project::run_analysis::RunAnalysis;
use crate::runs::{LoopClass, LoopTrajectory};

pub struct NonConvergentLoop;

/// The default: the same findings three rounds running is a stall.
pub const DEFAULT_STALL_ROUNDS: usize = 3;

static META: RuleMeta = RuleMeta {
    id: "non-convergent-loop",
    summary: "A review/fix loop in the recorded run did not converge: it oscillated, stalled, grew, or ended still failing.",
    severity: Severity::Warning,
    area: Area::Run,
    category: Category::Run,
    doc: include_str!("../../rules/non-convergent-loop.md"),
    builtin: false,
    options: &["stall-rounds"],
    fix: crate::rules::FixAvailability::Never,
};

/// `[rules.non-convergent-loop] stall-rounds = N` (validated to be ≥ 2).
pub fn stall_rounds(config: &Config) -> usize {
    config
        .rule_options
        .get(META.id)
        .and_then(|t| t.get("stall-rounds"))
        .and_then(toml::Value::as_integer)
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(DEFAULT_STALL_ROUNDS)
}

impl Rule for NonConvergentLoop {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn needs_run(&self) -> bool {
        true
    }

    fn validate_options(&self, options: &toml::Table) -> Result<(), String> {
        match options.get("stall-rounds") {
            None => Ok(()),
            Some(toml::Value::Integer(n)) if *n >= 2 => Ok(()),
            Some(_) => Err("`stall-rounds` must be an integer of at least 2".into()),
        }
    }

    fn check_run(&self, cx: &RunContext, sink: &mut ProjectSink) {
        let a = cx.analysis;
        for t in a
            .trajectories
            .iter()
            .filter(|t| t.class.is_non_convergent())
        {
            sink.push(diagnostic(a, t, sink));
        }
    }
}

fn diagnostic(a: &RunAnalysis, t: &LoopTrajectory, sink: &ProjectSink) -> Diagnostic {
    let rounds = t.rounds.len();
    let name = loop_name(t);
    let sites = a.tasks.get(&t.task_id);
    let in_loop = sites
        .and_then(|s| s.loop_invocation())
        .filter(|i| i.site.reported);
    let definition = sites.and_then(|s| s.definition()).filter(|d| d.reported);
    let last_seq = t.rounds.last().map_or(0, |r| r.seq);
    let journal = a.journal_location(last_seq, "taskId");
    let (location, where_): (Location, String) = match (in_loop, definition) {
        (Some(inv), _) => {
            let what = inv
                .repeat
                .as_ref()
                .map(|r| format!(" in {} at {}", r.what, at(&r.location)))
                .unwrap_or_default();
            (inv.site.location.clone(), what)
        }
        (None, Some(def)) => (def.location.clone(), String::new()),
        (None, None) => (journal.clone(), String::new()),
    };
    // An id defined in several modules of the process: the journal records
    // only the id, so the finding stays at the journal rather than guessing.
    let where_ = match sites.filter(|s| s.ambiguous()) {
        Some(s) => format!(
            "{where_} (ambiguous: `{}` is defined in {} modules of the process, {}; the journal does not say which ran)",
            t.task_id,
            s.definitions.len(),
            s.definitions
                .iter()
                .map(|d| format!("`{}`", at(&d.location)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => where_,
    };
    let message = format!(
        "check loop {name}{where_} is {} after {rounds} round{} in run `{}`: {}",
        t.class.as_str(),
        if rounds == 1 { "" } else { "s" },
        a.run.run_id,
        t.reason
    );
    let mut d = sink
        .diag(location.clone(), message)
        .with_help(help(t.class));
    if let Some(repeat) = in_loop.and_then(|i| i.repeat.as_ref()) {
        d = d.with_related(repeat.location.clone(), "the loop");
    }
    if location != journal {
        d = d.with_related(journal, "the last round in the journal");
    }
    d
}

fn at(l: &Location) -> String {
    format!("{}:{}", l.path, l.start.line)
}

fn help(class: LoopClass) -> &'static str {
    match class {
        LoopClass::Oscillating => "the fixes undo each other: give the fix task the findings of every earlier round (not only the latest) and stop after a bounded number of rounds with an escalation breakpoint",
        LoopClass::Stalled => "the same findings persist: retrying the same fix will not clear them; after N identical rounds escalate (breakpoint or a fresh implementer) instead of looping",
        LoopClass::Growing => "each round finds more than the last: fixes are widening the change; narrow the fix task to the reported findings and cap the rounds",
        LoopClass::EndedUnresolved => "the run moved on while the check still failed (parked is not success): branch on the loop's outcome and surface the open findings, or escalate at a breakpoint",
        _ => "",
    }
}
