//! `missing-stable-key`: a repeated `ctx.task` call without an explicit key.
//! (A constant key in a repeated call is `colliding-effect-key`'s.)

use super::{Area, Category, ProjectSink, ReportMeta, Rule, RuleMeta, Sites};
use crate::diagnostic::Fix;
use crate::diagnostic::Severity;
use crate::js::summary::build::key_example;
use crate::js::summary::{InvocationSummary, RepeatInfo};
use crate::project::config::Config;
use crate::project::Project;

pub struct MissingStableKey;

static META: RuleMeta = RuleMeta {
    id: "missing-stable-key",
    summary:
        "A task dispatched repeatedly has no explicit key, so replay tells its calls apart by order alone.",
    severity: Severity::Warning,
    area: Area::Idempotency,
    category: Category::Suspicious,
    doc: include_str!("../../rules/missing-stable-key.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Sometimes,
};

impl Rule for MissingStableKey {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::RepeatedInvocations,
            praise: "Every repeated dispatch has an explicit key",
            sdk_hint: "Unkeyed repeated dispatches recur across modules: the SDK could warn at run time when the same task id is requested twice in one iteration without a key, or derive the key from a loop counter it is given.",
        }
    }

    /// Unkeyed repeated calls, one finding per loop or batch naming its
    /// calls. A `stableKey` in the task definition is not a key: the SDK
    /// reads `key`/`stableKey` only from the invocation options.
    fn check_project(&self, p: &Project, _config: &Config, sink: &mut ProjectSink) {
        for (module_index, module) in p.modules.iter().enumerate() {
            if !module.report {
                continue;
            }
            // (what repeats, its unkeyed calls), in the order first met.
            let mut groups: Vec<(&RepeatInfo, Vec<&InvocationSummary>)> = Vec::new();
            for inv in &module.invocations {
                let Some(info) = inv.unkeyed_repeat() else {
                    continue;
                };
                // A task whose definition cannot be built records no
                // effect to mis-identify; the error on its definition is
                // the one finding it needs.
                if p.task_of(module_index, &inv.target)
                    .is_some_and(|(mi, ti)| p.modules[mi].tasks[ti].build_throws)
                {
                    continue;
                }
                match groups
                    .iter_mut()
                    .find(|(g, _)| g.location == info.location && g.what == info.what)
                {
                    Some((_, calls)) => calls.push(inv),
                    None => groups.push((info, vec![inv])),
                }
            }
            // A key template two groups would both get (`review-${i}` in
            // two loops over one task) collides across them: no fix there.
            let mut templates: Vec<&str> = groups
                .iter()
                .flat_map(|(_, calls)| calls.iter())
                .filter_map(|c| c.key_edit.as_deref().and_then(|e| key_text(&e.replacement)))
                .collect();
            templates.sort_unstable();
            let shared = |t: &str| templates.iter().filter(|x| **x == t).count() > 1;
            for (info, calls) in &groups {
                let unique = calls.iter().all(|c| {
                    c.key_edit
                        .as_deref()
                        .and_then(|e| key_text(&e.replacement))
                        .is_none_or(|t| !shared(t))
                });
                sink.push(unkeyed_finding(sink, info, calls, unique));
            }
        }
    }
}

/// The SDK's identity for an unkeyed call, and when it goes wrong: each
/// iteration replays the process from the start, so while the code is
/// unchanged the calls come in the same order and match their records.
const WHEN: &str = "to their records by task id, label, argument shape and call order, which holds while the process is unchanged; if it is edited during a run (a fix, then resume) or the number of calls depends on data read outside a task, a call can get another call's recorded result or re-dispatch its effect";

/// `unique_keys`: no key the fix would write is written for another call of
/// the module too.
fn unkeyed_finding(
    sink: &ProjectSink,
    info: &RepeatInfo,
    calls: &[&InvocationSummary],
    unique_keys: bool,
) -> crate::diagnostic::Diagnostic {
    let first = calls[0];
    let mut distinct: Vec<String> = Vec::new();
    for c in calls {
        let text = format!("`{}`", c.call_text);
        if !distinct.contains(&text) {
            distinct.push(text);
        }
    }
    let message = if calls.len() == 1 {
        format!(
            "`{}` is dispatched repeatedly (in {}) without a key: replay matches its calls {WHEN}",
            first.call_text, info.what
        )
    } else {
        format!(
            "{} calls are dispatched repeatedly (in {}) without a key, {}: replay matches them {WHEN}",
            calls.len(),
            info.what,
            super::prose_list(&distinct, 4)
        )
    };
    let task = first
        .call_text
        .split_once('(')
        .map(|(_, rest)| rest.trim_end_matches(", …)"))
        .unwrap_or("task");
    let callee = first.call_text.split('(').next().unwrap_or("ctx.task");
    let each = if calls.len() == 1 {
        ""
    } else {
        " of each call"
    };
    let mut d = sink
        .diag(first.location.clone(), message)
        .with_help(format!(
            "pass an explicit key in the invocation options{each}, built from what differs per repetition (a string or number) and unlike the keys of the task's other calls: `` {callee}(…, {}) ``{}",
            key_example(task, info.variable.as_deref()),
            placeholder_note(info.variable.as_deref()),
        ));
    d.occurrences = calls.len();
    // The other calls first: the retrospective counts them as sites.
    for c in &calls[1..] {
        d = d.with_related(
            c.location.clone(),
            format!("`{}` has no key either", c.call_text),
        );
    }
    d = d.with_related(info.location.clone(), "repeats here");
    // Not safe to apply blindly: a new key changes the identity of effects
    // already recorded by in-flight runs. Offered when every call can get
    // one, so the fix leaves no call of the group behind.
    let edits: Option<Vec<_>> = calls
        .iter()
        .map(|c| c.key_edit.as_deref().cloned())
        .collect();
    // Two calls of one task would get the same key, and a key shared by two
    // calls returns the first one's result to both: no fix then.
    let edits = edits.filter(|_| unique_keys);
    if let Some(edits) = edits {
        d = d.with_fix(Fix {
            description: if calls.len() == 1 {
                "add an invocation key".into()
            } else {
                format!("add an invocation key to each of the {} calls", calls.len())
            },
            edits,
            safe: false,
        });
    }
    d
}

/// The key template in a key edit's text: `` key: `review-${f}` ``.
fn key_text(replacement: &str) -> Option<&str> {
    let start = replacement.find("key: `")?;
    let rest = &replacement[start + "key: `".len()..];
    Some(&rest[..rest.find('`')?])
}

/// Says what the `…` of a key example stands for, when no variable of the
/// repetition was found to put there.
fn placeholder_note(variable: Option<&str>) -> &'static str {
    if variable.is_some() {
        ""
    } else {
        ", with `…` replaced by what tells the repetitions apart"
    }
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::Diagnostic;

    fn lint(body: &str) -> Vec<Diagnostic> {
        super::super::testing::lint_process_body("missing-stable-key", body)
    }

    #[test]
    fn the_unkeyed_calls_of_one_loop_are_one_finding() {
        let ds = lint(
            "for (const f of inputs.files) {\n  await ctx.task(reviewTask, { f });\n  await ctx.task(fixTask, { f });\n  await ctx.task(reviewTask, { f, again: true });\n}",
        );
        assert_eq!(ds.len(), 1, "{ds:#?}");
        let d = &ds[0];
        assert!(
            d.message.starts_with("3 calls are dispatched repeatedly (in the `for (const f of inputs.files)` loop) without a key, `ctx.task(reviewTask, …)` and `ctx.task(fixTask, …)`"),
            "{}",
            d.message
        );
        assert_eq!(d.occurrences, 3);
        // The other two calls, then the loop.
        let lines: Vec<u32> = d.related.iter().map(|r| r.location.start.line).collect();
        assert_eq!(lines, [7, 8, 5]);
        // Keys from one template would collide on the two review calls.
        assert!(d.fix.is_none());
        // So would the same task's keys in two loops.
        let ds = lint("for (const f of inputs.a) await ctx.task(reviewTask, { f });\nfor (const f of inputs.b) await ctx.task(reviewTask, { f });");
        assert_eq!(ds.len(), 2);
        assert!(ds.iter().all(|d| d.fix.is_none()), "{ds:#?}");
        let ds = lint("for (let f = 0; f < inputs.n; f++) {\n  await ctx.task(reviewTask, { f });\n  await ctx.task(fixTask, { f });\n}");
        // One fix keys every call of the loop, each with its own key.
        let fix = ds[0]
            .fix
            .as_ref()
            .unwrap_or_else(|| panic!("no fix: {:?}", ds[0]));
        let keys: Vec<&str> = fix.edits.iter().map(|e| e.replacement.as_str()).collect();
        assert_eq!(keys, [", { key: `review-${f}` }", ", { key: `fix-${f}` }"]);
        assert!(!fix.safe);
    }

    #[test]
    fn two_loops_are_two_findings() {
        let ds = lint(
            "for (const f of inputs.files) await ctx.task(reviewTask, { f });\nfor (const g of inputs.gs) await ctx.task(reviewTask, { g });",
        );
        assert_eq!(ds.len(), 2, "{ds:#?}");
        assert!(ds.iter().all(|d| d.occurrences == 1));
    }

    #[test]
    fn the_message_says_when_order_alone_goes_wrong() {
        let ds = lint("for (const f of inputs.files) await ctx.task(reviewTask, { f });");
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert!(ds[0].message.contains("while the process is unchanged"));
        assert!(ds[0].message.contains("edited during a run"));
    }

    #[test]
    fn a_label_or_task_id_that_differs_per_repetition_identifies_the_call() {
        for keyed in [
            "for (const f of inputs.files) await ctx.task(reviewTask, { f }, { label: `review:${f.id}` });",
            "await ctx.parallel.map(inputs.files, (f) => ctx.task(reviewTask, { f }, { label: f.name }));",
            "for (let i = 0; i < 3; i++) await step(ctx, i);\nasync function step(ctx, i) { return ctx.task(reviewTask, {}, { label: `r${i}` }); }",
            // A task defined per repetition under its own id, from a
            // counter declared before the loop.
            "let n = 0;\nwhile (n < 3) {\n  n++;\n  const t = defineTask(`write-tests-${n}`, () => ({ kind: 'agent', labels: ['w'] }));\n  await ctx.task(t, { n });\n}",
            // A task defined per repetition under its own id.
            "for (let i = 1; i <= 3; i++) {\n  const t = defineTask(`write-tests-${i}`, () => ({ kind: 'agent', labels: ['w'] }));\n  await ctx.task(t, { i });\n}",
        ] {
            assert!(lint(keyed).is_empty(), "{keyed}");
        }
        for unkeyed in [
            "for (const f of inputs.files) await ctx.task(reviewTask, { f }, { label: 'review' });",
            "const stage = inputs.stage;\nfor (const f of inputs.files) await ctx.task(reviewTask, { f }, { label: `review:${stage}` });",
        ] {
            assert_eq!(lint(unkeyed).len(), 1, "{unkeyed}");
        }
    }

    /// A key from the inner loop's variable alone repeats on every outer
    /// pass: no fix, and the help does not suggest it.
    #[test]
    fn nested_repetition_gets_no_key_from_one_variable() {
        for nested in [
            "while (inputs.more) {\n  for (let attempt = 0; attempt < 3; attempt++) await ctx.task(reviewTask, { attempt });\n}",
            "for (const g of inputs.groups) {\n  await ctx.parallel.map(g.files, (f) => ctx.task(reviewTask, { f }));\n}",
            "for (let round = 0; round < 3; round++) await step(ctx, round);\nasync function step(ctx, n) { return ctx.task(reviewTask, { n }); }",
        ] {
            let ds = lint(nested);
            assert_eq!(ds.len(), 1, "{nested}: {ds:#?}");
            assert!(ds[0].fix.is_none(), "{nested}: {:?}", ds[0].fix);
            let help = ds[0].help.as_deref().unwrap_or("");
            assert!(help.contains("`review-${…}`"), "{nested}: {help}");
        }
        let ds = lint("for (let attempt = 0; attempt < 3; attempt++) await ctx.task(reviewTask, { attempt });");
        assert!(ds[0].fix.is_some());
    }

    /// A key from a value not known to be a string or number could render
    /// as `[object Object]` on every repetition: no fix, no such example.
    #[test]
    fn keys_come_only_from_strings_and_numbers() {
        for unknown in [
            "for (const feature of inputs.features) await ctx.task(reviewTask, { feature });",
            "await ctx.parallel.map(inputs.items, (item) => ctx.task(reviewTask, { item }));",
            "let round = 0;\nwhile (round < 3) { await ctx.task(reviewTask, { round }); round++; }",
        ] {
            let ds = lint(unknown);
            assert_eq!(ds.len(), 1, "{unknown}: {ds:#?}");
            assert!(ds[0].fix.is_none(), "{unknown}");
            assert!(
                ds[0]
                    .help
                    .as_deref()
                    .unwrap_or("")
                    .contains("`review-${…}`"),
                "{unknown}"
            );
        }
        for known in [
            "for (let i = 0; i < 3; i++) await ctx.task(reviewTask, { i });",
            "for (const k in inputs.map) await ctx.task(reviewTask, { k });",
            "for (const part of ['api', 'ui']) await ctx.task(reviewTask, { part });",
            "await ctx.parallel.map(['api', 'ui'], (part) => ctx.task(reviewTask, { part }));",
        ] {
            let ds = lint(known);
            assert!(ds[0].fix.is_some(), "{known}: {ds:#?}");
        }
    }
}
