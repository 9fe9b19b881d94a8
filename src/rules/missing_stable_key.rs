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
                // A task whose definition cannot be built, or has no
                // `kind`, records no effect to mis-identify; the error on
                // its definition is the one finding it needs.
                if p.task_of(module_index, &inv.target)
                    .is_some_and(|(mi, ti)| p.modules[mi].tasks[ti].never_records)
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
            let unique = |calls: &[&InvocationSummary]| {
                calls.iter().all(|c| {
                    c.key_edit
                        .as_deref()
                        .and_then(|e| key_text(&e.replacement))
                        .is_none_or(|t| !shared(t))
                })
            };
            // Repetitions whose calls only an edit during a run can shift
            // are one decision for the module (key its repeated calls), so
            // one finding; a callback whose order can change without an
            // edit keeps its own.
            let (by_order, by_edit): (Vec<_>, Vec<_>) = groups
                .iter()
                .partition(|(_, calls)| calls.iter().any(|c| c.order_varies));
            for (info, calls) in &by_order {
                sink.push(unkeyed_finding(sink, info, calls, unique(calls)));
            }
            match by_edit.as_slice() {
                [] => {}
                [(info, calls)] => sink.push(unkeyed_finding(sink, info, calls, unique(calls))),
                several => {
                    let fixable: Vec<bool> =
                        several.iter().map(|(_, calls)| unique(calls)).collect();
                    sink.push(module_finding(sink, several, &fixable));
                }
            }
        }
    }
}

/// The SDK's identity for an unkeyed call, and when it goes wrong: each
/// iteration replays the process from the start, so while the code is
/// unchanged the calls come in the same order and match their records.
const WHEN: &str = "to their records by task id, label, argument shape and call order, which holds while the process is unchanged; if it is edited during a run (a fix, then resume) or the number of calls depends on data read outside a task, a call can get another call's recorded result or re-dispatch its effect";

/// The identity of a callback's call made after an earlier effect of the
/// item ([`InvocationSummary::order_varies`]): its count follows the order
/// in which the items' earlier effects resolved, with no edit needed.
const WHEN_ORDER: &str = "to their records by task id, label, argument shape and call order, and each item makes this call only after an earlier effect of its own, so the order of the items' calls follows which of those effects have resolved; that can change from one iteration to the next without any edit, and then a call gets another item's recorded result or re-dispatches its effect";

/// `unique_keys`: no key the fix would write is written for another call of
/// the module too.
fn unkeyed_finding(
    sink: &ProjectSink,
    info: &RepeatInfo,
    calls: &[&InvocationSummary],
    unique_keys: bool,
) -> crate::diagnostic::Diagnostic {
    let first = calls[0];
    let distinct = distinct_calls(calls);
    let when = if calls.iter().any(|c| c.order_varies) {
        WHEN_ORDER
    } else {
        WHEN
    };
    let message = if calls.len() == 1 {
        format!(
            "`{}` is dispatched repeatedly (in {}) without a key: replay matches its calls {when}",
            first.call_text, info.what
        )
    } else {
        format!(
            "{} calls are dispatched repeatedly (in {}) without a key, {}: replay matches them {}",
            calls.len(),
            info.what,
            super::prose_list(&distinct, 4),
            when.replace("makes this call", "makes some of them")
        )
    };
    let (callee, task) = callee_and_task(first);
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

/// One finding for a module's repetitions whose unkeyed calls only an edit
/// during a run can shift: at the first call, naming each repetition; the
/// other calls, then the repetitions, are related locations.
fn module_finding(
    sink: &ProjectSink,
    groups: &[&(&RepeatInfo, Vec<&InvocationSummary>)],
    unique_keys: &[bool],
) -> crate::diagnostic::Diagnostic {
    let calls: Vec<&InvocationSummary> =
        groups.iter().flat_map(|(_, c)| c.iter().copied()).collect();
    let first = calls[0];
    let distinct = distinct_calls(&calls);
    let places: Vec<String> = groups.iter().map(|(info, _)| info.what.clone()).collect();
    let verb = if distinct.len() == 1 { "is" } else { "are" };
    let message = format!(
        "{} {verb} dispatched repeatedly without a key in {} places of this module ({}): replay matches their {} calls {WHEN}",
        super::prose_list(&distinct, 4),
        groups.len(),
        super::prose_list(&places, 3),
        calls.len(),
    );
    let (info, _) = groups[0];
    let (callee, task) = callee_and_task(first);
    // Keys from one template in two loops (the same counter name) would
    // collide: then the example names no variable, and the help says so.
    let help = if unique_keys.iter().all(|u| *u) {
        format!(
            "pass an explicit key in the invocation options of each call, built from what differs per repetition (a string or number) and unlike the keys of the task's other calls: `` {callee}(…, {}) ``{}",
            key_example(task, info.variable.as_deref()),
            placeholder_note(info.variable.as_deref()),
        )
    } else {
        format!(
            "pass an explicit key in the invocation options of each call, unlike the keys of the task's other calls: `` {callee}(…, {}) ``, with `…` naming the loop as well as the repetition (`data-${{attempt}}`, `ui-${{attempt}}`): the same counter in two loops would give two calls one key",
            key_example(task, None),
        )
    };
    let mut d = sink.diag(first.location.clone(), message).with_help(help);
    d.occurrences = calls.len();
    for (info, group) in groups {
        for c in group {
            if std::ptr::eq(*c, first) {
                continue;
            }
            d = d.with_related(
                c.location.clone(),
                format!("`{}` has no key either (in {})", c.call_text, info.what),
            );
        }
    }
    for (info, _) in groups {
        d = d.with_related(info.location.clone(), "repeats here");
    }
    // Each repetition whose calls can all get keys of their own gets them;
    // the others are left as they are, and reported again after the fix.
    let mut edits = Vec::new();
    let mut keyed = 0;
    // Why the other repetitions are left: no string or number to build a
    // key from, or a template another repetition would get too.
    let (mut no_value, mut shared) = (false, false);
    for ((_, group), unique) in groups.iter().zip(unique_keys) {
        let group_edits: Option<Vec<_>> = group
            .iter()
            .map(|c| c.key_edit.as_deref().cloned())
            .collect();
        match group_edits {
            Some(group_edits) if *unique => {
                keyed += group.len();
                edits.extend(group_edits);
            }
            Some(_) => shared = true,
            None => no_value = true,
        }
    }
    if !edits.is_empty() {
        let why = match (no_value, shared) {
            (true, true) => "the others' repetitions have no string or number to build a key from, or would share one key template",
            (true, false) => "the others' repetitions have no string or number to build a key from",
            _ => "the others would share one key template",
        };
        d = d.with_fix(Fix {
            description: if keyed == calls.len() {
                format!("add an invocation key to each of the {} calls", calls.len())
            } else {
                format!(
                    "add an invocation key to {keyed} of the {} calls ({why})",
                    calls.len()
                )
            },
            edits,
            safe: false,
        });
    }
    d
}

/// The calls as written (`` `ctx.task(reviewTask, …)` ``), each once.
fn distinct_calls(calls: &[&InvocationSummary]) -> Vec<String> {
    let mut distinct: Vec<String> = Vec::new();
    for c in calls {
        let text = format!("`{}`", c.call_text);
        if !distinct.contains(&text) {
            distinct.push(text);
        }
    }
    distinct
}

/// `("ctx.task", "reviewTask")` of `ctx.task(reviewTask, …)`.
fn callee_and_task(call: &InvocationSummary) -> (&str, &str) {
    let task = call
        .call_text
        .split_once('(')
        .map(|(_, rest)| rest.trim_end_matches(", …)"))
        .unwrap_or("task");
    let callee = call.call_text.split('(').next().unwrap_or("ctx.task");
    (callee, task)
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
            "for (const f of inputs.files) {\n  if (f.skip) continue;\n  await ctx.task(reviewTask, { f });\n  await ctx.task(fixTask, { f });\n  await ctx.task(reviewTask, { f, again: true });\n}",
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
        assert_eq!(lines, [8, 9, 5]);
        // Keys from one template would collide on the two review calls.
        assert!(d.fix.is_none());
        // So would the same task's keys in two loops.
        let ds = lint("for (const f of inputs.a) await ctx.task(reviewTask, { f });\nfor (const f of inputs.b) await ctx.task(reviewTask, { f });");
        assert_eq!(ds.len(), 1);
        assert!(ds.iter().all(|d| d.fix.is_none()), "{ds:#?}");
        // Nor does the help offer the one template for both loops.
        let ds = lint("for (let i = 0; i < 3; i++) await ctx.task(reviewTask, { i });\nfor (let i = 0; i < 2; i++) await ctx.task(reviewTask, { i });");
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert!(ds[0].fix.is_none(), "{ds:#?}");
        let help = ds[0].help.as_deref().unwrap_or("");
        assert!(
            help.contains("`review-${…}`") && help.contains("naming the loop as well"),
            "{help}"
        );
        let ds = lint("for (let f = 0; f < inputs.n; f++) {\n  if (f === inputs.skip) continue;\n  await ctx.task(reviewTask, { f });\n  await ctx.task(fixTask, { f });\n}");
        // One fix keys every call of the loop, each with its own key.
        let fix = ds[0]
            .fix
            .as_ref()
            .unwrap_or_else(|| panic!("no fix: {:?}", ds[0]));
        let keys: Vec<&str> = fix.edits.iter().map(|e| e.replacement.as_str()).collect();
        assert_eq!(keys, [", { key: `review-${f}` }", ", { key: `fix-${f}` }"]);
        assert!(!fix.safe);
    }

    /// Keying a module's repeated calls is one decision: the loops whose
    /// calls only an edit can shift are one finding naming each loop; a
    /// callback whose calls can change order without an edit keeps its own.
    #[test]
    fn a_modules_loops_are_one_finding() {
        let ds = lint(
            "for (const k in inputs.map) await ctx.task(reviewTask, { f: k });\nfor (let i = 0; i < 3; i++) await ctx.task(reviewTask, { f: i });",
        );
        assert_eq!(ds.len(), 1, "{ds:#?}");
        let d = &ds[0];
        assert!(
            d.message.starts_with("`ctx.task(reviewTask, …)` is dispatched repeatedly without a key in 2 places of this module (the `for (const k in inputs.map)` loop and the `for (let i = 0; i < 3; i++)` loop): replay matches their 2 calls"),
            "{}",
            d.message
        );
        assert_eq!(d.occurrences, 2);
        // The other call, then both loops.
        let lines: Vec<u32> = d.related.iter().map(|r| r.location.start.line).collect();
        assert_eq!(lines, [6, 5, 6]);
        // Each call gets its own key from its own loop.
        let keys: Vec<&str> = d
            .fix
            .as_ref()
            .map(|f| f.edits.iter().map(|e| e.replacement.as_str()).collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            [", { key: `review-${k}` }", ", { key: `review-${i}` }"],
            "{d:#?}"
        );
        let ds = lint(
            "for (const f of inputs.files) { if (f.skip) continue; await ctx.task(reviewTask, { f }); }\nawait ctx.parallel.map(inputs.files, async (f) => {\n  const r = await ctx.task(fixTask, { f });\n  return ctx.task(reviewTask, { f, r });\n});",
        );
        assert_eq!(ds.len(), 2, "{ds:#?}");
        assert!(ds.iter().any(|d| d.message.contains("without any edit")));
    }

    #[test]
    fn the_message_says_when_order_alone_goes_wrong() {
        let ds = lint("for (const f of inputs.files) {\n  if (!f) continue;\n  await ctx.task(reviewTask, { f });\n}");
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
            "await ctx.task(reviewTask, { f: inputs.main }, { label: 'review' });\nfor (const f of inputs.files) await ctx.task(reviewTask, { f }, { label: 'review' });",
            "const stage = inputs.stage;\nawait ctx.task(reviewTask, { f: inputs.main }, { label: `review:${stage}` });\nfor (const f of inputs.files) await ctx.task(reviewTask, { f }, { label: `review:${stage}` });",
        ] {
            assert_eq!(lint(unkeyed).len(), 1, "{unkeyed}");
        }
    }

    /// The fix keys the repetitions it can and says why it leaves the others.
    #[test]
    fn a_partial_fix_says_what_it_leaves() {
        let ds = lint("for (let i = 0; i < 3; i++) await ctx.task(reviewTask, { i });\nfor (let i = 0; i < 2; i++) await ctx.task(reviewTask, { i });\nfor (let j = 0; j < 2; j++) await ctx.task(fixTask, { n: j });\nfor (let k = 0; k < 2; k++) await ctx.task(fixTask, { n: k });");
        assert_eq!(ds.len(), 1, "{ds:#?}");
        let fix = ds[0]
            .fix
            .as_ref()
            .unwrap_or_else(|| panic!("no fix: {:?}", ds[0]));
        assert_eq!(
            fix.description,
            "add an invocation key to 2 of the 4 calls (the others would share one key template)"
        );
        let keys: Vec<&str> = fix.edits.iter().map(|e| e.replacement.as_str()).collect();
        assert_eq!(keys, [", { key: `fix-${j}` }", ", { key: `fix-${k}` }"]);
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
        let ds = lint("await ctx.task(reviewTask, { attempt: -1 });\nfor (let attempt = 0; attempt < 3; attempt++) await ctx.task(reviewTask, { attempt });");
        assert!(ds[0].fix.is_some());
    }

    /// The body, after a call of `reviewTask` with the args shape of the
    /// body's calls (`{ X }`, X the first key there), which shares their count.
    fn shared_count(body: &str) -> String {
        let key = body
            .split("reviewTask, { ")
            .nth(1)
            .and_then(|r| r.split(|c: char| !c.is_alphanumeric()).next())
            .unwrap_or("x");
        format!("await ctx.task(reviewTask, {{ {key}: null }});\n{body}")
    }

    /// Without a key the SDK counts calls per task id, label and args
    /// shape: a call alone in its count that runs on every pass of one loop
    /// (or every pass after the first) gets the pass's own position.
    #[test]
    fn a_count_that_follows_the_pass_needs_no_key() {
        for aligned in [
            "for (const f of inputs.files) await ctx.task(reviewTask, { f });",
            "const out = [];\nfor (const f of inputs.files) {\n  out.push(await ctx.task(reviewTask, { f }));\n}",
            "let n = 0;\nwhile (n < 3) { n++; const r = await ctx.task(reviewTask, { n }); if (r.ok) break; }",
            // Another shape outside the loop is another count.
            "let d = await ctx.task(reviewTask, { a: 1 });\nlet fb = null;\nfor (let i = 0; i < 3; i++) {\n  if (fb) {\n    d = await ctx.task(reviewTask, { ...{ a: 1 }, fb, i });\n  }\n  const bp = await ctx.breakpoint({ question: 'ok?' });\n  if (bp.approved) break;\n  fb = bp.response || 'Changes requested';\n}",
            "for (const f of inputs.files) await ctx.task(reviewTask, { f }, { label: 'a' });\nfor (const f of inputs.files) await ctx.task(reviewTask, { f }, { label: 'b' });",
            // A member of the result is read after the call is made.
            "let done = false;\nfor (let round = 1; round <= 3 && !done; round++) {\n  done = (await ctx.task(reviewTask, { round })).done;\n}",
            // Before the body's first `continue`, nothing can skip it yet.
            "for (const f of inputs.files) {\n  await ctx.task(reviewTask, { f });\n  if (f.skip) continue;\n  log(f);\n}",
            // A history pushed before the first `continue` grows on every
            // pass, and with it the args' shape.
            "const history = [];\nfor (let round = 0; round < 3; round++) {\n  history.push(round);\n  if (inputs.skip[round]) continue;\n  await ctx.task(reviewTask, { history });\n}",
            // Two `if` blocks on one value the run fixes: one runs at most.
            "if (inputs.mode === 'a') {\n  for (const f of inputs.files) await ctx.task(reviewTask, { f });\n}\nif (inputs.mode === 'b') {\n  for (const f of inputs.files) await ctx.task(reviewTask, { f });\n}",
            // At most once: the loop ends right after it.
            "for (let round = 0; round < 2; round++) {\n  const bp = await ctx.breakpoint({ question: 'ok?' });\n  if (bp.approved) {\n    await ctx.task(reviewTask, { round });\n    break;\n  }\n}",
            // A retry from the second pass on, by the loop's counter.
            // The same shape after the loop comes once its calls are made.
            "for (const f of inputs.files) await ctx.task(reviewTask, { f });\nawait ctx.task(reviewTask, { ...inputs.extra });",
            "let d = await ctx.task(reviewTask, { a: 1 });\nfor (let round = 0; round < 2; round++) {\n  if (round > 0) {\n    d = await ctx.task(reviewTask, { a: 1, fb: d });\n  }\n  const bp = await ctx.breakpoint({ question: 'ok?' });\n  if (bp.approved) break;\n}",
        ] {
            assert!(lint(aligned).is_empty(), "{aligned}: {:#?}", lint(aligned));
        }
        for at_risk in [
            // The same shape elsewhere shares the count.
            "await ctx.task(reviewTask, { f: inputs.main });\nfor (const f of inputs.files) await ctx.task(reviewTask, { f });",
            // Args whose keys are unknown may have the same shape (before
            // the loop: a call after it cannot shift the loop's count).
            "await ctx.task(reviewTask, { ...inputs.extra });\nfor (const f of inputs.files) await ctx.task(reviewTask, { f });",
            // Two `if` blocks that may both run.
            "if (inputs.mode === 'a') {\n  for (const f of inputs.files) await ctx.task(reviewTask, { f });\n}\nif (inputs.level === 'b') {\n  for (const f of inputs.files) await ctx.task(reviewTask, { f });\n}",
            "let mode = inputs.mode;\nif (mode === 'a') {\n  for (const f of inputs.files) await ctx.task(reviewTask, { f });\n  mode = 'b';\n}\nif (mode === 'b') {\n  for (const f of inputs.files) await ctx.task(reviewTask, { f });\n}",
            "const plan = { mode: inputs.mode };\nif (plan.mode === 'a') {\n  for (const f of inputs.files) await ctx.task(reviewTask, { f });\n  plan.mode = 'b';\n}\nif (plan.mode === 'b') {\n  for (const f of inputs.files) await ctx.task(reviewTask, { f });\n}",
            // Skipped passes.
            "for (const f of inputs.files) { if (f.skip) continue; await ctx.task(reviewTask, { f }); }",
            // A history that does not grow on every pass.
            "const history = [];\nfor (let round = 0; round < 3; round++) {\n  if (inputs.more[round]) history.push(round);\n  if (inputs.skip[round]) continue;\n  await ctx.task(reviewTask, { history });\n}",
            "for (const f of inputs.files) { if (f.big) await ctx.task(reviewTask, { f }); }",
            "for (const f of inputs.files) { log(f.big && (await ctx.task(reviewTask, { f }))); }",
            // A `break` in a `switch` leaves the `switch`, not the loop.
            "for (const f of inputs.files) {\n  switch (f.kind) {\n    case 'a':\n      await ctx.task(reviewTask, { f });\n      break;\n  }\n}",
            // A counter written in the body too.
            "for (let round = 0; round < 3; round++) {\n  if (round > 0) await ctx.task(reviewTask, { round });\n  if (inputs.skip) round++;\n}",
            // A guard that may turn false again.
            "let fb = null;\nfor (let i = 0; i < 3; i++) {\n  if (fb) await ctx.task(reviewTask, { fb });\n  const bp = await ctx.breakpoint({ question: 'ok?' });\n  fb = bp.response;\n}",
        ] {
            assert_eq!(lint(at_risk).len(), 1, "{at_risk}");
        }
    }

    /// A callback's first call, made unconditionally before anything is
    /// awaited, is made once per item in list order: `map`/`forEach` call
    /// their callback synchronously item by item, and `ctx.parallel.all` /
    /// `ctx.parallel.map` start their thunks in list order
    /// (`runtime/intrinsics/parallel.ts`), the SDK deriving the key when
    /// `ctx.task` is called. Its count is the item's index while the list
    /// is one the run fixes (inputs, a literal, a recorded result).
    #[test]
    fn a_callbacks_first_call_over_a_fixed_list_needs_no_key() {
        for aligned in [
            "await ctx.parallel.map(inputs.files, (f) => ctx.task(reviewTask, { f }));",
            "await ctx.parallel.all(inputs.files.map((f) => () => ctx.task(reviewTask, { f })));",
            "const { files = [] } = inputs;\nawait ctx.parallel.all(files.map((f) => async () => {\n  ctx.log('info', f);\n  return ctx.task(reviewTask, { f });\n}));",
            "const plan = await ctx.task(fixTask, {});\nconst jobs = plan.items.filter((i) => i.on).map((i) => ctx.task(reviewTask, { i }));\nawait ctx.parallel.all(jobs);",
            "await ctx.parallel.all(['a', 'b'].map((p) => () => ctx.task(reviewTask, { p })));",
            // Through a function of the module that reads nothing outside it.
            "const picked = check(inputs.files);\nawait ctx.parallel.map(picked, (f) => ctx.task(reviewTask, { f }));\nfunction check(list) {\n  if (!Array.isArray(list)) throw new Error('files must be a list');\n  return list;\n}",
        ] {
            assert!(lint(aligned).is_empty(), "{aligned}: {:#?}", lint(aligned));
        }
        for at_risk in [
            // A later call: the items' calls come in the order their
            // earlier effects resolve.
            "await ctx.parallel.map(inputs.files, async (f) => {\n  const r = await ctx.task(fixTask, { f });\n  return ctx.task(reviewTask, { f, r });\n});",
            // After an await, or on some items only.
            "await ctx.parallel.map(inputs.files, async (f) => {\n  const text = await readFile(f);\n  return ctx.task(reviewTask, { f, text });\n});",
            "await ctx.parallel.map(inputs.files, async (f) => {\n  if (f.skip) return null;\n  return ctx.task(reviewTask, { f });\n});",
            // A list the run does not fix.
            "const picked = recent(inputs.files);\nawait ctx.parallel.map(picked, (f) => ctx.task(reviewTask, { f }));\nfunction recent(list) {\n  return list.filter((f) => f.at > new Date().getTime());\n}",
            "await ctx.parallel.map(fs.readdirSync('.'), (f) => ctx.task(reviewTask, { f }));",
            // Another call of the same shape shares the count.
            "await ctx.task(reviewTask, { f: inputs.main });\nawait ctx.parallel.map(inputs.files, (f) => ctx.task(reviewTask, { f }));",
            // A callback in a loop repeats for two reasons.
            "for (const g of inputs.groups) await ctx.parallel.map(g.files, (f) => ctx.task(reviewTask, { f }));",
        ] {
            assert_eq!(lint(at_risk).len(), 1, "{at_risk}: {:#?}", lint(at_risk));
        }
    }

    /// A callback's call made after an earlier effect of the item: its
    /// order among the items follows which earlier effects have resolved,
    /// so the message does not say it holds while the process is unchanged.
    #[test]
    fn a_later_call_of_a_callback_says_its_order_can_change() {
        let ds = lint("await ctx.parallel.map(inputs.files, async (f) => {\n  const r = await ctx.task(fixTask, { f });\n  return ctx.task(reviewTask, { f, r });\n});");
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert!(
            ds[0].message.contains("without any edit"),
            "{}",
            ds[0].message
        );
        assert!(!ds[0].message.contains("while the process is unchanged"));
        // A literal list inside a callback, after an earlier effect of the item.
        let ds = lint("await ctx.parallel.map(inputs.files, async (f) => {\n  const r = await ctx.task(fixTask, { f });\n  return ctx.parallel.all([() => ctx.task(reviewTask, { f, r })]);\n});");
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert!(
            ds[0].message.contains("without any edit"),
            "{}",
            ds[0].message
        );
        // One call per item, in exclusive branches: none waits for another.
        let ds = lint("await ctx.task(reviewTask, { branch: 1 });\nawait ctx.parallel.all(inputs.branches.map((b) => async () => {\n  switch (b) {\n    case 'a': return ctx.task(fixTask, { b });\n    default: return ctx.task(reviewTask, { b });\n  }\n}));");
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert!(
            ds[0].message.contains("while the process is unchanged"),
            "{}",
            ds[0].message
        );
        let ds = lint("await ctx.task(reviewTask, { f: 1 });\nawait ctx.parallel.map(inputs.files, (f) => ctx.task(reviewTask, { f }));");
        assert!(
            ds[0].message.contains("while the process is unchanged"),
            "{}",
            ds[0].message
        );
    }

    /// `if (!ok && i < max) fix()` as the last statement of a `while (i <
    /// max && !ok)` body runs on every pass but the one that exits: its
    /// count is the pass's position minus one.
    #[test]
    fn a_fix_on_every_pass_but_the_last_needs_no_key() {
        let aligned = "let i = 0;\nlet ok = false;\nwhile (i < inputs.max && !ok) {\n  i++;\n  const r = await ctx.task(reviewTask, { i });\n  ok = r.ok === true;\n  if (!ok && i < inputs.max) {\n    await ctx.task(fixTask, { r, i });\n  }\n}";
        assert!(lint(aligned).is_empty(), "{:#?}", lint(aligned));
        for at_risk in [
            // A guard the loop condition does not imply.
            "let i = 0;\nlet ok = false;\nwhile (i < inputs.max && !ok) {\n  i++;\n  const r = await ctx.task(reviewTask, { i });\n  ok = r.ok === true;\n  if (!ok && r.fixable) {\n    await ctx.task(fixTask, { r, i });\n  }\n}",
            // Not the last statement: what follows may change the condition.
            "let i = 0;\nlet ok = false;\nwhile (i < inputs.max && !ok) {\n  i++;\n  const r = await ctx.task(reviewTask, { i });\n  if (!ok && i < inputs.max) {\n    await ctx.task(fixTask, { r, i });\n  }\n  ok = r.ok === true;\n}",
            // A `for` update runs between the body and the condition.
            "let ok = false;\nfor (let i = 0; i < inputs.max && !ok; i++) {\n  const r = await ctx.task(reviewTask, { i });\n  ok = r.ok === true;\n  if (!ok && i < inputs.max) {\n    await ctx.task(fixTask, { r, i });\n  }\n}",
        ] {
            let ds = lint(at_risk);
            assert_eq!(ds.len(), 1, "{at_risk}: {ds:#?}");
            assert!(ds[0].message.contains("fixTask"), "{}", ds[0].message);
        }
    }

    /// A task whose factory returns no `kind` never records an effect
    /// (`requestNewEffect` throws "did not provide a kind").
    #[test]
    fn a_task_without_a_kind_is_not_flagged() {
        let src = "import { defineTask } from '@a5c-ai/babysitter-sdk';\nconst noKind = defineTask('nk', () => ({ title: 'x' }));\nexport async function process(inputs, ctx) {\n  for (const f of inputs.files) { if (f.skip) continue; await ctx.task(noKind, { f }); }\n}\n";
        let ds = super::super::testing::lint_source("missing-stable-key", src);
        assert!(ds.is_empty(), "{ds:#?}");
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
            let ds = lint(&shared_count(unknown));
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
            let ds = lint(&shared_count(known));
            assert!(ds[0].fix.is_some(), "{known}: {ds:#?}");
        }
    }
}
