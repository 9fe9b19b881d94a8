//! "What went well": practices found present in the group's modules, each
//! with the lines that show it (`js::analysis::practices`, the task facts,
//! the test files beside the modules), and the shapes repeated often enough
//! to deserve a shared helper. Never a rule that found nothing: that is
//! true of almost any code, and not what a reviewer praises.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use super::groups::Group;
use crate::diagnostic::Diagnostic;
use crate::engine::discover::FileKind;
use crate::engine::Outcome;
use crate::js::analysis::practices::Practices;
use crate::project::facts::{Facts, ProcessFacts};
use crate::report::escape::markdown::code;
use crate::rules::Area;

/// Locations listed per practice before "and N more".
const SHOWN: usize = 5;

fn places(list: &[String]) -> String {
    let shown: Vec<&str> = list.iter().take(SHOWN).map(String::as_str).collect();
    let more = list.len().saturating_sub(SHOWN);
    if more > 0 {
        format!("{}, and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

fn at(path: &str, line: u32) -> String {
    code(&format!("{path}:{line}"))
}

/// "**title** (N units): why — places." when `list` has any place.
fn praise(items: &mut Vec<String>, title: &str, unit: (&str, &str), why: &str, list: &[String]) {
    if list.is_empty() {
        return;
    }
    let why = if why.is_empty() {
        String::new()
    } else {
        format!("{why} — ")
    };
    items.push(format!(
        "**{title}** ({}): {why}{}.",
        plural(list.len(), unit.0, unit.1),
        places(list)
    ));
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The group's process modules with their facts.
fn modules<'a>(outcome: &'a Outcome, g: &Group) -> Vec<(&'a str, &'a Path, &'a ProcessFacts)> {
    g.files
        .iter()
        .filter_map(|&i| {
            let f = &outcome.files[i];
            match &f.facts {
                Some(Facts::Process(p)) if f.kind == FileKind::Process => {
                    Some((&*f.display, f.path.as_path(), &**p))
                }
                _ => None,
            }
        })
        .collect()
}

pub fn went_well(out: &mut String, outcome: &Outcome, g: &Group, diags: &[&Diagnostic], h: &str) {
    let _ = writeln!(out, "{h} What went well\n");
    let mods = modules(outcome, g);
    let fired = |rule: &str| diags.iter().any(|d| d.rule == rule);
    let mut items: Vec<String> = Vec::new();

    // Output schemas on every agent task.
    let agents: Vec<String> = mods
        .iter()
        .flat_map(|(path, _, p)| {
            p.tasks
                .iter()
                .filter(|t| t.kind.as_deref() == Some("agent"))
                .map(move |t| (t.has_schema, at(path, t.line)))
        })
        .filter_map(|(schema, l)| schema.then_some(l))
        .collect();
    let all_agents = mods
        .iter()
        .flat_map(|(_, _, p)| &p.tasks)
        .filter(|t| t.kind.as_deref() == Some("agent"))
        .count();
    if all_agents > 0 && agents.len() == all_agents {
        items.push(format!(
            "**Every agent task declares an output schema** ({n}/{n}: {}), so the results the process branches on have a declared shape.",
            places(&agents),
            n = all_agents
        ));
    }

    // Side effects in tasks: the process code only orchestrates.
    let invocations: usize = mods.iter().map(|(_, _, p)| p.invocations.len()).sum();
    if invocations > 0
        && g.rule_enabled("side-effect-outside-task")
        && !fired("side-effect-outside-task")
    {
        let tasks: Vec<String> = mods
            .iter()
            .flat_map(|(path, _, p)| p.tasks.iter().map(move |t| at(path, t.line)))
            .collect();
        // The tasks may be defined in a module another section reports
        // ("0 task definitions" would read as no work at all).
        let work = if tasks.is_empty() {
            String::new()
        } else {
            format!(
                ", and the work is in {} ({})",
                plural(tasks.len(), "task definition", "task definitions"),
                places(&tasks)
            )
        };
        items.push(format!(
            "**Every side effect runs inside a task**: the process code only orchestrates {}{work}.",
            plural(invocations, "`ctx.task` call", "`ctx.task` calls"),
        ));
    }

    let all = |f: &dyn Fn(&Practices) -> Vec<(u32, String)>| -> Vec<String> {
        mods.iter()
            .flat_map(|(path, _, p)| {
                f(&p.practices)
                    .into_iter()
                    .map(move |(l, what)| format!("{}{what}", at(path, l)))
            })
            .collect()
    };

    // Loops capped by a counter that escalate at the cap.
    let capped = all(&|p| {
        p.capped_loops
            .iter()
            .map(|c| {
                (
                    c.line,
                    format!(
                        " (cap at line {}, {} at line {})",
                        c.cap,
                        if c.how == "throw" {
                            "`throw`"
                        } else {
                            "breakpoint"
                        },
                        c.escalation
                    ),
                )
            })
            .collect()
    });
    praise(
        &mut items,
        "Bounded loops escalate at the cap",
        ("loop", "loops"),
        "when the counter runs out the process stops for a human or fails loudly instead of going on as if the work had passed",
        &capped,
    );

    let gated = all(&|p| {
        p.gated_breakpoints
            .iter()
            .map(|b| (b.line, format!(" (`.{}`, `.{}`)", b.decision, b.feedback)))
            .collect()
    });
    praise(
        &mut items,
        "Breakpoints branch on the decision and keep the feedback",
        ("breakpoint", "breakpoints"),
        "",
        &gated,
    );

    let keyed = all(&|p| {
        p.keyed_repeats
            .iter()
            .map(|&l| (l, String::new()))
            .collect()
    });
    praise(
        &mut items,
        "Repeated dispatches carry explicit keys",
        ("call", "calls"),
        "",
        &keyed,
    );

    let fixers = all(&|p| {
        p.review_loops
            .iter()
            .filter_map(|r| {
                let fixer = r.fixer.as_ref()?;
                Some((
                    r.line,
                    format!(" ({} → {})", code(&r.reviewer), code(fixer)),
                ))
            })
            .collect()
    });
    praise(
        &mut items,
        "A dedicated fixer task in the review loop",
        ("loop", "loops"),
        "the issues a review finds go to a separate fixer rather than back to the implementer",
        &fixers,
    );

    let verifying = all(&|p| {
        p.verifying_prompts
            .iter()
            .map(|v| (v.line, format!(" ({})", code(&v.name))))
            .collect()
    });
    praise(
        &mut items,
        "Reviewer prompts demand independent verification",
        ("prompt", "prompts"),
        "they tell the reviewer not to trust the implementer's report and to read the code",
        &verifying,
    );

    // Review loops of one function, one after the other.
    let mut sequences: Vec<String> = Vec::new();
    for (path, _, p) in &mods {
        let mut loops: Vec<_> = p.practices.review_loops.iter().collect();
        loops.sort_by_key(|r| (r.function, r.line));
        for pair in loops.windows(2) {
            if let [a, b] = pair {
                if a.function.is_some() && a.function == b.function {
                    sequences.push(format!(
                        "{} {} then {} {}",
                        code(&a.reviewer),
                        at(path, a.line),
                        code(&b.reviewer),
                        at(path, b.line)
                    ));
                }
            }
        }
    }
    if !sequences.is_empty() {
        items.push(format!(
            "**Review gates in sequence**: {}.",
            places(&sequences)
        ));
    }

    let ordered = all(&|p| {
        p.ordered_batches
            .iter()
            .map(|b| {
                let mut parts = Vec::new();
                if let Some((l, name)) = &b.snapshot {
                    parts.push(format!("{} copied at line {l}", code(name)));
                }
                if let Some(l) = b.sorted {
                    parts.push(format!("results sorted at line {l}"));
                }
                (b.line, format!(" ({})", parts.join(", ")))
            })
            .collect()
    });
    praise(
        &mut items,
        "Parallel batches do not depend on completion order",
        ("batch", "batches"),
        "the shared state is copied before the batch and its results are sorted before they are used",
        &ordered,
    );

    let tests: Vec<String> = mods
        .iter()
        .filter_map(|(display, path, _)| test_of(display, path))
        .collect();
    if !tests.is_empty() {
        let n = mods.len();
        items.push(format!(
            "**Test files import the process modules** ({}/{n} modules): {}.",
            tests.len(),
            places(&tests)
        ));
    }

    if items.is_empty() {
        out.push_str("- No specific good practice that the static model recognises.\n");
    }
    for i in items {
        let _ = writeln!(out, "- {i}");
    }
    out.push('\n');
}

/// A test file beside the module (`x.test.js`, `__tests__/x.test.js`, …)
/// that imports it: "`x.test.js:3` imports `x.js`".
fn test_of(display: &str, path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let name = path.file_name()?.to_str()?;
    let dir = path.parent()?;
    let shown_dir = display.rsplit_once('/').map(|(d, _)| d);
    for sub in ["", "__tests__", "test", "tests"] {
        for suffix in ["test", "spec"] {
            for ext in ["js", "mjs", "cjs", "ts"] {
                let file = format!("{stem}.{suffix}.{ext}");
                let candidate = if sub.is_empty() {
                    dir.join(&file)
                } else {
                    dir.join(sub).join(&file)
                };
                let Ok(bytes) = std::fs::read(&candidate) else {
                    continue;
                };
                let text = crate::source::decode(bytes).0;
                let needles = [
                    format!("/{name}"),
                    format!("/{stem}'"),
                    format!("/{stem}\""),
                ];
                let line = text
                    .lines()
                    .position(|l| needles.iter().any(|n| l.contains(n.as_str())))?;
                let rel = if sub.is_empty() {
                    file
                } else {
                    format!("{sub}/{file}")
                };
                let shown = match shown_dir {
                    Some(d) => format!("{d}/{rel}"),
                    None => rel,
                };
                return Some(format!(
                    "{} imports {}",
                    at(&shown, line as u32 + 1),
                    code(name)
                ));
            }
        }
    }
    None
}

/// Shapes repeated in two or more places of the repository: a shared
/// helper would keep them the same. With `only`, the shapes whose places
/// all lie in that group (printed under its suggestions); without, the
/// shapes whose places span several groups (printed once, in the
/// cross-process summary, instead of under every group).
pub fn reuse(out: &mut String, outcome: &Outcome, groups: &[Group], only: Option<usize>, h: &str) {
    let mut review_fix: Vec<(usize, String)> = Vec::new();
    let mut capped: Vec<(usize, String)> = Vec::new();
    for (i, f) in outcome.files.iter().enumerate() {
        let Some(Facts::Process(p)) = &f.facts else {
            continue;
        };
        for r in &p.practices.review_loops {
            if r.fixer.is_some() && r.cap.is_some() && r.escalation.is_some() {
                review_fix.push((i, at(&f.display, r.line)));
            }
        }
        for c in &p.practices.capped_loops {
            let is_review = p
                .practices
                .review_loops
                .iter()
                .any(|r| r.line == c.line && r.fixer.is_some());
            if !is_review {
                capped.push((i, at(&f.display, c.line)));
            }
        }
    }
    let shown = |list: &[(usize, String)]| -> Option<Vec<String>> {
        if list.len() < 2 {
            return None;
        }
        let owners: BTreeSet<usize> = list
            .iter()
            .filter_map(|(f, _)| groups.iter().position(|g| g.files.contains(f)))
            .collect();
        let show = match only {
            Some(gi) => owners.len() == 1 && owners.contains(&gi),
            None => owners.len() > 1,
        };
        show.then(|| list.iter().map(|(_, s)| s.clone()).collect())
    };
    let mut lines = Vec::new();
    if let Some(list) = shown(&review_fix) {
        lines.push(format!(
            "- **The review → fix loop with a cap and an escalation appears {} times**: {}. One helper (for example `reviewFixLoop(ctx, {{ reviewer, fixer, maxAttempts, escalate }})`) would keep the cap, the escalation and the hand-off to the fixer the same everywhere.",
            list.len(),
            places(&list)
        ));
    }
    if let Some(list) = shown(&capped) {
        lines.push(format!(
            "- **A counter-capped loop that escalates at the cap appears {} times**: {}. A shared helper (for example `retryWithEscalation`) would hold the cap and the escalation once.",
            list.len(),
            places(&list)
        ));
    }
    if lines.is_empty() {
        return;
    }
    match only {
        Some(_) => {
            let _ = writeln!(out, "{h}# Shared helpers\n");
        }
        None => out.push_str("**Shared helpers:**\n\n"),
    }
    for l in lines {
        let _ = writeln!(out, "{l}");
    }
    out.push('\n');
}

/// The practices present in the group, per graded criterion they bear on,
/// as short phrases: the process-quality review cites them as the evidence
/// behind a grade (a good grade is more than "no findings"; a poor one says
/// what the process already does right).
pub fn evidence(outcome: &Outcome, g: &Group) -> BTreeMap<Area, Vec<String>> {
    let mods = modules(outcome, g);
    let mut out: BTreeMap<Area, Vec<String>> = BTreeMap::new();
    let count = |f: &dyn Fn(&Practices) -> usize| -> usize {
        mods.iter().map(|(_, _, p)| f(&p.practices)).sum()
    };
    let mut add = |area: Area, n: usize, one: &str, many: &str, what: &str| {
        if n > 0 {
            out.entry(area)
                .or_default()
                .push(format!("{} {what}", plural(n, one, many)));
        }
    };
    add(
        Area::BreakpointDiscipline,
        count(&|p| p.gated_breakpoints.len()),
        "breakpoint branches on the decision and keeps",
        "breakpoints branch on the decision and keep",
        "the feedback",
    );
    add(
        Area::Idempotency,
        count(&|p| p.keyed_repeats.len()),
        "repeated call carries",
        "repeated calls carry",
        "an explicit key",
    );
    add(
        Area::ErrorSurfacing,
        count(&|p| p.capped_loops.len()),
        "bounded loop escalates",
        "bounded loops escalate",
        "at the cap",
    );
    add(
        Area::Determinism,
        count(&|p| p.ordered_batches.len()),
        "parallel batch does",
        "parallel batches do",
        "not depend on completion order",
    );
    add(
        Area::Determinism,
        count(&|p| p.verifying_prompts.len()),
        "reviewer prompt demands",
        "reviewer prompts demand",
        "independent verification",
    );
    let agents: Vec<bool> = mods
        .iter()
        .flat_map(|(_, _, p)| &p.tasks)
        .filter(|t| t.kind.as_deref() == Some("agent"))
        .map(|t| t.has_schema)
        .collect();
    if !agents.is_empty() && agents.iter().all(|s| *s) {
        out.entry(Area::EffectGranularity)
            .or_default()
            .push(format!(
                "every agent task declares an output schema ({n}/{n})",
                n = agents.len()
            ));
    }
    out
}
