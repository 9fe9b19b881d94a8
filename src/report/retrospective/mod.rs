//! `--format retrospective`: the process-only retrospective, in the fixed
//! shape reviewers write by hand (Context, What went well, What went poorly,
//! Process-quality review, Suggestions, Evidence). Every claim comes from the
//! model's facts or a diagnostic; headlines, "why it matters" and praise come
//! from rule metadata, so a new rule extends the report by itself. What it
//! prints of the input (paths, names, task ids, titles, journal values,
//! quoted code) goes through `report::escape::markdown`: code fenced with
//! more backticks than it holds, text with HTML and Markdown escaped.

mod grade;
mod groups;
mod praise;
mod run;
mod suggest;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

pub use grade::{grade, Grade};
use groups::{Group, Sites as SiteCounts};

use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::Outcome;
use crate::project::facts::Facts;
use crate::report::escape::markdown::{self, code, one_line};
use crate::report::Options;
use crate::rules::{self, Area, Sites};

/// Everything the document needs besides the outcome.
#[derive(Debug, Clone, Default)]
pub struct RetroInfo {
    pub date: String,
    pub commit: Option<String>,
    pub command: String,
    pub config: Option<String>,
    /// Rules that ran (praise is only claimed for those).
    pub enabled: BTreeSet<&'static str>,
    /// How `--run` chose the run ("the most recent failed run").
    pub run_selection: Option<&'static str>,
    /// `--long-gap`: gaps longer than this are called out (default 5 min).
    pub long_gap_ms: Option<i64>,
}

/// GitHub's limit for a comment or a job summary, in characters.
pub const MAX_CHARS: usize = 65_536;

/// The document, sized for a pull-request comment: when the full text
/// would exceed [`MAX_CHARS`], the evidence under each finding is cut to a
/// few locations with a count of the rest (summary and grades stay whole),
/// and a note says where the rest is.
pub fn render(outcome: &Outcome, options: &Options) -> String {
    let info = options.retro.clone().unwrap_or_default();
    let prepared = Prepared::new(outcome, &info);
    let full = render_with(outcome, &info, &prepared, None);
    if full.chars().count() <= MAX_CHARS {
        return full;
    }
    let mut last = full;
    for keep in [10, 4, 1] {
        let text = render_with(outcome, &info, &prepared, Some(keep));
        let fits = text.chars().count() <= MAX_CHARS;
        last = text;
        if fits {
            return last;
        }
    }
    // Still too long (hundreds of processes, a long run): keep the header
    // and the cross-process summary, then whole sections (a process's
    // `<details>`, a `##` section) while they fit, and say what was left out.
    let tail_for = |sections: usize| {
        format!(
            "\n> **{sections} more section{} left out** to fit GitHub's 65,536-character limit; \
             `proclint check --format json` (and, with `--run`, `proclint runs --format json`) \
             has everything.\n",
            if sections == 1 { "" } else { "s" }
        )
    };
    let budget = MAX_CHARS - tail_for(usize::MAX).chars().count() - 1;
    let cut = last
        .char_indices()
        .nth(budget)
        .map_or(last.len(), |(i, _)| i);
    let boundaries = |text: &str| -> Vec<usize> {
        let mut b: Vec<usize> = text
            .match_indices("\n<details>")
            .chain(text.match_indices("\n## "))
            .map(|(i, _)| i + 1)
            .collect();
        b.sort_unstable();
        b
    };
    let all = boundaries(&last);
    let at = all.iter().copied().rfind(|&i| i <= cut).unwrap_or(cut);
    let left_out = all.iter().filter(|&&i| i >= at).count();
    let mut text = last[..at].to_string();
    text.push_str(&tail_for(left_out));
    text
}

/// What every rendering of the document shares, computed once. `render`
/// renders up to four times to fit the size limit, and each rendering
/// found a group's findings by scanning every finding of the tree, per
/// group, per graded area in the cross-process summary, and re-read the
/// source of every suggestion: 17.7 CPU-s for a warm run on the SDK
/// library's 2,281 processes (issue 18), against 0.5 s for the check.
struct Prepared<'a> {
    groups: Vec<Group>,
    /// Per group, in the same order.
    sections: Vec<Section<'a>>,
    /// The cross-process summary (with several groups).
    summary: String,
}

/// A group's findings and the parts of its section that do not depend on
/// the evidence limit.
struct Section<'a> {
    diags: Vec<&'a Diagnostic>,
    /// What the grades read (`groups::graded`).
    graded: Vec<&'a Diagnostic>,
    /// Practices present, per criterion (`praise::evidence`).
    evidence: BTreeMap<Area, Vec<String>>,
    /// Context and What went well.
    head: String,
    /// Process-quality review and Suggestions.
    tail: String,
}

impl<'a> Prepared<'a> {
    fn new(outcome: &'a Outcome, info: &RetroInfo) -> Prepared<'a> {
        let mut groups = groups::build(outcome, &info.enabled);
        let mut diags = groups::diagnostics_by_group(&groups, outcome);
        // A group with neither a process module nor a finding (the
        // repository's README skill and manifest) has nothing to review:
        // the summary names its files in one line instead of a section.
        let mut quiet: Vec<usize> = Vec::new();
        if groups.len() > 1 {
            let mut keep = vec![true; groups.len()];
            for (gi, g) in groups.iter().enumerate() {
                let processes = g
                    .files
                    .iter()
                    .any(|&i| outcome.files[i].kind == crate::engine::discover::FileKind::Process);
                if g.entry.is_none() && !g.shared && !processes && diags[gi].is_empty() {
                    keep[gi] = false;
                    quiet.extend(g.files.iter().copied());
                }
            }
            let mut k = keep.iter();
            groups.retain(|_| k.next().copied().unwrap_or(true));
            let mut k = keep.iter();
            diags.retain(|_| k.next().copied().unwrap_or(true));
        }
        order(&mut groups, &mut diags);
        let sites: Vec<SiteCounts> = groups.iter().map(|g| g.sites(outcome)).collect();
        let single = groups.len() == 1;
        let h = if single { "##" } else { "###" };
        // The SDK every group runs on, when it is the same for all: said
        // once above the sections instead of in each Context.
        let pins: Vec<Vec<(String, u32)>> = groups
            .iter()
            .map(|g| {
                g.sdk_pins(outcome)
                    .into_iter()
                    .map(|(p, pin)| (p, pin.line))
                    .collect()
            })
            .collect();
        let sdk_once = !single && pins.windows(2).all(|w| w[0] == w[1]);
        let mut sources = suggest::Sources::new(outcome);
        let mut exemplified = BTreeMap::new();
        let sections = groups
            .iter()
            .enumerate()
            .zip(diags)
            .zip(&sites)
            .map(|(((gi, g), diags), sites)| {
                let mut head = String::new();
                context(&mut head, outcome, g, sites, h, !sdk_once);
                let graded = groups::graded(g, &diags, outcome);
                praise::went_well(&mut head, outcome, g, &graded, h);
                let evidence = praise::evidence(outcome, g);
                let mut tail = String::new();
                review_table(&mut tail, &graded, sites, &evidence, h);
                suggest::suggestions(&mut tail, &mut sources, &diags, h, single, &mut exemplified);
                praise::reuse(&mut tail, outcome, &groups, Some(gi), h);
                Section {
                    diags,
                    graded,
                    evidence,
                    head,
                    tail,
                }
            })
            .collect::<Vec<_>>();
        let mut summary = String::new();
        if !single {
            cross_process_summary(&mut summary, &groups, &sections, &sites);
            if sdk_once {
                if let Some(g) = groups.first() {
                    sdk_lines(&mut summary, outcome, g, "**SDK** (every process)");
                    summary.push('\n');
                }
            }
            if !quiet.is_empty() {
                // A tree of clean skills would fill the summary: the
                // Evidence table lists every file.
                let mut list: Vec<String> = quiet
                    .iter()
                    .take(WORST_LISTED)
                    .map(|&i| code(&outcome.files[i].display))
                    .collect();
                if quiet.len() > WORST_LISTED {
                    list.push(format!("and {} more", quiet.len() - WORST_LISTED));
                }
                let _ = writeln!(
                    summary,
                    "**Also checked, without findings:** {}.\n",
                    list.join(", ")
                );
            }
            praise::reuse(&mut summary, outcome, &groups, None, h);
            let all: Vec<&Diagnostic> = sections
                .iter()
                .flat_map(|s| s.diags.iter().copied())
                .collect();
            suggest::patterns(&mut summary, &all, h);
        }
        Prepared {
            groups,
            sections,
            summary,
        }
    }
}

/// Sections in reading order: the flagship's (the module several processes
/// build on) first, then the processes worst first, then the files no
/// process imports. A document cut to fit a comment keeps what matters.
fn order<'a>(groups: &mut Vec<Group>, diags: &mut Vec<Vec<&'a Diagnostic>>) {
    let weight = |d: &[&Diagnostic]| {
        let c = |s: Severity| d.iter().filter(|x| x.severity == s).count();
        grade::weight(c(Severity::Error), c(Severity::Warning), c(Severity::Info))
    };
    let rank = |g: &Group| {
        if g.flagship.is_some() {
            0
        } else if g.entry.is_some() || g.shared {
            1
        } else {
            2
        }
    };
    let mut both: Vec<(Group, Vec<&'a Diagnostic>)> = std::mem::take(groups)
        .into_iter()
        .zip(std::mem::take(diags))
        .collect();
    // Stable: processes that weigh the same keep the tree's order.
    both.sort_by(|(ga, da), (gb, db)| rank(ga).cmp(&rank(gb)).then(weight(db).cmp(&weight(da))));
    for (g, d) in both {
        groups.push(g);
        diags.push(d);
    }
}

fn render_with(
    outcome: &Outcome,
    info: &RetroInfo,
    prepared: &Prepared,
    limit: Option<usize>,
) -> String {
    let groups = &prepared.groups;
    let mut out = String::new();
    let entries: Vec<&Group> = groups.iter().filter(|g| g.entry.is_some()).collect();
    let entry_files: BTreeSet<usize> = entries.iter().filter_map(|g| g.entry).collect();
    let project = markdown::text(&groups::project_name(outcome));
    let titles: Vec<String> = entries.iter().map(|g| markdown::text(&g.title)).collect();
    let listed = match titles.len() {
        0 => "no entry process".to_string(),
        1..=3 => titles.join(", "),
        n => format!("{}, {}, … ({n} processes)", titles[0], titles[1]),
    };
    // The module the processes build on is the document's subject.
    let title = match groups.iter().find_map(|g| g.flagship) {
        Some(f) => format!(
            "{} and the {} built on it ({listed})",
            markdown::text(&outcome.files[f].display),
            match titles.len() {
                1 => "process".to_string(),
                n => format!("{n} processes"),
            }
        ),
        None => listed,
    };
    let _ = writeln!(out, "# Retrospective: {project} — {title}\n");
    if let Some(keep) = limit {
        let _ = writeln!(
            out,
            "> Shortened to fit GitHub's 65,536-character comment limit: at most {keep} location{} per finding and module below. \
             `proclint check --format json` lists every finding.\n",
            if keep == 1 { "" } else { "s" }
        );
    }
    let entry_paths: Vec<String> = entries
        .iter()
        .filter_map(|g| g.entry.map(|e| code(&outcome.files[e].display)))
        .collect();
    // Distinct process modules that are not entries.
    let helpers = groups
        .iter()
        .filter(|g| g.entry.is_some() || g.shared)
        .flat_map(|g| g.files.iter().copied())
        .filter(|i| {
            outcome.files[*i].kind == crate::engine::discover::FileKind::Process
                && !entry_files.contains(i)
        })
        .collect::<BTreeSet<usize>>()
        .len();
    let findings = outcome_line(
        &outcome.diagnostics.iter().collect::<Vec<_>>(),
        outcome.files.len(),
    );
    // With a run the outcome is what the journal says happened; the static
    // counts (which then include the run rules) follow it.
    let (run_text, outcome_text) = match &outcome.run {
        Some(a) => (
            run::header_run(a, info),
            format!("{} · Findings: {findings}", run::header_outcome(a)),
        ),
        None => (
            format!(
                "process-only (static analysis by proclint {})",
                env!("CARGO_PKG_VERSION")
            ),
            findings,
        ),
    };
    let _ = writeln!(
        out,
        "Date: {} · Source commit: {} · Process: {} (+ {helpers} helper module{}) · Run: {run_text} · Outcome: {outcome_text}\n",
        info.date,
        info.commit.as_deref().map(code).unwrap_or_else(|| "not a git checkout".into()),
        match entry_paths.len() {
            0 => "none found".to_string(),
            // A tree of hundreds of processes would fill the header line;
            // the sections below name every one.
            n if n > 10 => format!("{}, and {} more", entry_paths[..10].join(", "), n - 10),
            _ => entry_paths.join(", "),
        },
        if helpers == 1 { "" } else { "s" },
    );

    let single = groups.len() == 1;
    let mut explained = BTreeSet::new();
    if single {
        if let Some(section) = prepared.sections.first() {
            section_body(&mut out, section, "##", limit, &mut explained);
        }
    } else {
        out.push_str(&prepared.summary);
        for (g, section) in groups.iter().zip(&prepared.sections) {
            let diags = &section.diags;
            let modules = g.files.len();
            let _ = writeln!(
                out,
                "<details>\n<summary><b>{}</b> — {} file{}: {}</summary>\n",
                markdown::html(&g.title),
                modules,
                if modules == 1 { "" } else { "s" },
                outcome_line(diags, modules)
            );
            section_body(&mut out, section, "###", limit, &mut explained);
            out.push_str("</details>\n\n");
        }
    }
    if let Some(a) = &outcome.run {
        run::sections(&mut out, outcome, a, info);
    }
    evidence(&mut out, outcome, info, limit);
    out
}

fn outcome_line(diags: &[&Diagnostic], files: usize) -> String {
    let count = |s: Severity| diags.iter().filter(|d| d.severity == s).count();
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}, {}, {} in {}",
        plural(count(Severity::Error), "error"),
        plural(count(Severity::Warning), "warning"),
        plural(count(Severity::Info), "note"),
        plural(files, "file"),
    )
}

/// Context … Suggestions for one group of modules.
fn section_body(
    out: &mut String,
    section: &Section,
    h: &str,
    limit: Option<usize>,
    explained: &mut BTreeSet<&'static str>,
) {
    out.push_str(&section.head);
    went_poorly(out, &section.diags, h, limit, explained);
    out.push_str(&section.tail);
}

/// `sdk`: whether to name the SDK the group runs on (not when the
/// summary says it once for every group).
fn context(out: &mut String, outcome: &Outcome, g: &Group, sites: &SiteCounts, h: &str, sdk: bool) {
    let _ = writeln!(out, "{h} Context\n");
    if let Some(doc) = g.entry.and_then(|e| match &outcome.files[e].facts {
        Some(Facts::Process(p)) => p.doc.clone(),
        _ => None,
    }) {
        if let Some(p) = &doc.process {
            let _ = write!(out, "- **Process** {}", code(&one_line(p)));
            if let Some(d) = &doc.description {
                let _ = write!(out, ": {}", markdown::text(&one_line(d)));
            }
            out.push('\n');
        }
        if let Some(i) = &doc.inputs {
            let _ = writeln!(out, "- **Inputs** {}", code(&one_line(i)));
        }
        if let Some(o) = &doc.outputs {
            let _ = writeln!(out, "- **Outputs** {}", code(&one_line(o)));
        }
        for s in &doc.skills {
            let _ = writeln!(out, "- **Skill** {}", code(&one_line(s)));
        }
    }
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for t in g.tasks(outcome) {
        *kinds
            .entry(t.kind.clone().unwrap_or_else(|| "unknown kind".into()))
            .or_default() += 1;
    }
    let total: usize = kinds.values().sum();
    let by_kind: Vec<String> = kinds
        .iter()
        .map(|(k, n)| format!("{n} {}", markdown::text(k)))
        .collect();
    // What the group does not have goes unsaid: a reviewer lists what is there.
    if total > 0 {
        let _ = writeln!(
            out,
            "- **Task definitions**: {total} ({})",
            by_kind.join(", ")
        );
    }
    let invocations = sites.count(Sites::Invocations);
    if invocations > 0 {
        let _ = writeln!(
            out,
            "- **Invocation sites**: {invocations} (`ctx.task`; {} repeated in loops, batches or helpers)",
            sites.count(Sites::RepeatedInvocations)
        );
    }
    for (label, kind) in [
        ("Breakpoints", Sites::Breakpoints),
        ("Loops that dispatch effects", Sites::EffectLoops),
        ("Parallel batches", Sites::ParallelSites),
    ] {
        if sites.count(kind) > 0 {
            let _ = writeln!(
                out,
                "- **{label}**: {}{}",
                sites.count(kind),
                sites.lines_suffix(kind)
            );
        }
    }
    if sdk {
        sdk_lines(out, outcome, g, "**SDK**");
    }
    out.push('\n');
}

/// "- {label}: `@a5c-ai/babysitter-sdk` `^1.2.0`, which …" for each SDK
/// dependency the group runs on.
fn sdk_lines(out: &mut String, outcome: &Outcome, g: &Group, label: &str) {
    let pins = g.sdk_pins(outcome);
    if pins.is_empty() {
        let _ = writeln!(
            out,
            "- {label}: no package.json pinning the SDK was checked"
        );
    }
    for (path, pin) in pins {
        let resolved = pin
            .resolved
            .as_ref()
            .map(|(v, lock)| format!(", resolved {} in {}", markdown::text(v), code(lock)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "- {label}: {} {}, which {} ({}{resolved})",
            code(&pin.package),
            code(&pin.spec),
            markdown::text(&crate::manifest::spec::classify(&pin.spec).describe()),
            code(&format!("{path}:{}", pin.line))
        );
    }
}

/// First sentences of a doc section.
fn why(doc: &str) -> String {
    let text = crate::report::sarif::doc_section(doc, "## Why is this bad?").replace('\n', " ");
    let mut out = String::new();
    for (i, sentence) in text.split_inclusive(". ").enumerate() {
        if i >= 2 {
            break;
        }
        out.push_str(sentence);
    }
    out.trim().to_string()
}

/// One entry per rule: its findings counted, every line named (`limit`: at
/// most this many per module, and modules per rule, with a count of the
/// rest), and why it matters the first time the document names the rule
/// (`explained` carries that across sections).
fn went_poorly(
    out: &mut String,
    diags: &[&Diagnostic],
    h: &str,
    limit: Option<usize>,
    explained: &mut BTreeSet<&'static str>,
) {
    let _ = writeln!(out, "{h} What went poorly\n");
    let by_rule = by_rule(diags);
    if by_rule.is_empty() {
        out.push_str("- No findings.\n\n");
        return;
    }
    for (rule, ds) in by_rule {
        let Some(meta) = rules::meta(rule) else {
            continue;
        };
        let modules: BTreeSet<&str> = ds.iter().map(|d| &*d.location.path).collect();
        let keep = limit.unwrap_or(usize::MAX);
        let mut places: Vec<String> = Vec::new();
        for module in modules.iter().take(keep) {
            let lines: Vec<String> = ds
                .iter()
                .filter(|d| &*d.location.path == *module)
                .map(|d| code(&format!("{module}:{}", d.location.start.line)))
                .collect();
            let more = lines.len().saturating_sub(keep);
            places.extend(lines.into_iter().take(keep));
            if more > 0 {
                places.push(format!("and {more} more in {}", code(module)));
            }
        }
        if modules.len() > keep {
            let n = modules.len() - keep;
            places.push(format!(
                "and {n} more module{}",
                if n == 1 { "" } else { "s" }
            ));
        }
        let counted = if ds.len() == 1 {
            String::new()
        } else if modules.len() == 1 {
            format!(", {} findings", ds.len())
        } else {
            format!(", {} findings in {} modules", ds.len(), modules.len())
        };
        let _ = writeln!(
            out,
            "- **{}** (`{rule}`{counted}): {}",
            meta.summary.trim_end_matches('.'),
            places.join(", ")
        );
        if explained.insert(rule) {
            let w = why(meta.doc);
            if !w.is_empty() {
                let _ = writeln!(out, "  - Why it matters: {w}");
            }
        }
    }
    out.push('\n');
}

/// Diagnostics per rule, most serious first (severity, then count, then id).
fn by_rule<'a>(diags: &[&'a Diagnostic]) -> Vec<(&'static str, Vec<&'a Diagnostic>)> {
    let mut map: BTreeMap<&'static str, Vec<&Diagnostic>> = BTreeMap::new();
    for d in diags {
        map.entry(d.rule).or_default().push(d);
    }
    let mut v: Vec<_> = map.into_iter().collect();
    v.sort_by(|(ra, a), (rb, b)| {
        let sa = a.iter().map(|d| d.severity).max();
        let sb = b.iter().map(|d| d.severity).max();
        sb.cmp(&sa).then(b.len().cmp(&a.len())).then(ra.cmp(rb))
    });
    v
}

/// Findings that mean the process cannot run as written: a module that does
/// not load, or a line that throws whenever it runs.
const RUN_FAILURES: &[&str] = &[
    "parse-error",
    "undefined-reference",
    "shadowed-process-global",
];

/// One graded row: (grade, reason).
/// `present`: the practices present that bear on the criterion, cited
/// after the findings as the evidence of what the process does right.
fn assess(
    area: Area,
    diags: &[&Diagnostic],
    sites: &SiteCounts,
    present: &[String],
) -> (Grade, String) {
    // `parse-error` is a built-in note but a load failure: it counts here.
    let area_rules: Vec<&'static dyn rules::Rule> = rules::all()
        .iter()
        .copied()
        .filter(|r| r.meta().area == area && (!r.meta().builtin || r.meta().id == "parse-error"))
        .collect();
    if area_rules.is_empty() {
        return (
            Grade::NotAssessed,
            "no rule covers this criterion yet".into(),
        );
    }
    let ids: BTreeSet<&str> = area_rules.iter().map(|r| r.meta().id).collect();
    let found: Vec<&&Diagnostic> = diags.iter().filter(|d| ids.contains(d.rule)).collect();
    let (site_kind, n) = area_rules
        .iter()
        .map(|r| r.report().sites)
        .map(|s| (s, sites.count(s)))
        .max_by_key(|(_, n)| *n)
        .unwrap_or((Sites::None, 0));
    // A finding that stands for several sites (one per module for the
    // hygiene rules) weighs as many.
    let count = |s: Severity| {
        found
            .iter()
            .filter(|d| d.severity == s)
            .map(|d| d.occurrences)
            .sum::<usize>()
    };
    let (e, w, i) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    );
    if n == 0 && found.is_empty() {
        return (Grade::NotAssessed, format!("no {} here", site_kind.noun()));
    }
    let fails: Vec<&&&Diagnostic> = found
        .iter()
        .filter(|d| d.severity == Severity::Error && RUN_FAILURES.contains(&d.rule))
        .collect();
    // When every task definition lacks labels, no task has any, and one
    // light warning each must not add up to "Partial".
    let g = if !fails.is_empty() {
        Grade::Fails
    } else if area == Area::Labels && n > 0 && e + w >= n {
        Grade::Missing
    } else {
        grade(e, w, i, n)
    };
    // The findings' lines are under What went poorly; the table counts.
    let mut reason = if found.is_empty() {
        format!("no findings over {}", site_kind.count(n))
    } else {
        let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
        let parts: Vec<String> = [(e, "error"), (w, "warning"), (i, "note")]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, word)| plural(*n, word))
            .collect();
        format!("{} over {}", parts.join(", "), site_kind.count(n))
    };
    if !present.is_empty() {
        let _ = write!(reason, "; {}", present.join("; "));
    }
    if g == Grade::Fails {
        return (g, format!("the process cannot run as written — {reason}"));
    }
    (g, reason)
}

fn review_table(
    out: &mut String,
    diags: &[&Diagnostic],
    sites: &SiteCounts,
    evidence: &BTreeMap<Area, Vec<String>>,
    h: &str,
) {
    let _ = writeln!(out, "{h} Process-quality review\n");
    out.push_str("| Criterion | Grade | Assessment |\n|---|---|---|\n");
    // Criteria with nothing to grade here are named in one line below the
    // table, not given a row each.
    let mut not_assessed: Vec<String> = Vec::new();
    for area in Area::GRADED {
        let present = evidence.get(&area).map_or(&[][..], Vec::as_slice);
        let (g, reason) = assess(area, diags, sites, present);
        if g == Grade::NotAssessed {
            not_assessed.push(format!("{} ({reason})", area.name()));
            continue;
        }
        let _ = writeln!(
            out,
            "| {} | **{}** | {} |",
            area.name(),
            g,
            markdown::cell(&reason)
        );
    }
    if !not_assessed.is_empty() {
        let _ = writeln!(
            out,
            "\nNot assessed: {}.",
            markdown::text(&not_assessed.join(", "))
        );
    }
    out.push('\n');
}

fn cross_process_summary(
    out: &mut String,
    groups: &[Group],
    sections: &[Section],
    sites: &[SiteCounts],
) {
    out.push_str("## Cross-process summary\n\n");
    let mut header = String::from("| Criterion |");
    let mut rule_line = String::from("|---|");
    for g in Grade::ALL {
        let _ = write!(header, " {} |", g.name());
        rule_line.push_str("---|");
    }
    let _ = writeln!(out, "{header}\n{rule_line}");
    for area in Area::GRADED {
        let mut counts: BTreeMap<Grade, usize> = BTreeMap::new();
        for (section, sites) in sections.iter().zip(sites) {
            let present = section.evidence.get(&area).map_or(&[][..], Vec::as_slice);
            let (grade, _) = assess(area, &section.graded, sites, present);
            *counts.entry(grade).or_default() += 1;
        }
        let _ = write!(out, "| {} |", area.name());
        for g in Grade::ALL {
            let _ = write!(out, " {} |", counts.get(&g).copied().unwrap_or(0));
        }
        out.push('\n');
    }
    out.push('\n');
    let mut affected: BTreeMap<&str, usize> = BTreeMap::new();
    for section in sections {
        let rules: BTreeSet<&str> = section.diags.iter().map(|d| d.rule).collect();
        for r in rules {
            *affected.entry(r).or_default() += 1;
        }
    }
    let mut affected: Vec<(&str, usize)> = affected.into_iter().collect();
    affected.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    out.push_str("**Rules by processes affected:** ");
    if affected.is_empty() {
        out.push_str("none.\n\n");
    } else {
        let list: Vec<String> = affected
            .iter()
            .map(|(r, n)| format!("`{r}` ({n})"))
            .collect();
        let _ = writeln!(out, "{}.\n", list.join(", "));
    }
    let mut worst: Vec<(usize, &Group, &Section)> = groups
        .iter()
        .zip(sections)
        .map(|(g, section)| {
            let d = &section.diags;
            let c = |s: Severity| d.iter().filter(|x| x.severity == s).count();
            (
                grade::weight(c(Severity::Error), c(Severity::Warning), c(Severity::Info)),
                g,
                section,
            )
        })
        .collect();
    worst.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.title.cmp(&b.1.title)));
    out.push_str("**Worst first:** ");
    // The ten worst are what a reader acts on; naming every process makes
    // the summary of a large tree too long to fit any comment.
    let mut list: Vec<String> = worst
        .iter()
        .take(WORST_LISTED)
        .map(|(_, g, section)| {
            format!(
                "{} ({})",
                markdown::text(&g.title),
                outcome_line(&section.diags, g.files.len())
            )
        })
        .collect();
    if worst.len() > WORST_LISTED {
        list.push(format!(
            "and {} more (each has its own section)",
            worst.len() - WORST_LISTED
        ));
    }
    let _ = writeln!(out, "{}.\n", list.join("; "));
}

/// How many processes the cross-process summary names, worst first.
const WORST_LISTED: usize = 10;

fn evidence(out: &mut String, outcome: &Outcome, info: &RetroInfo, limit: Option<usize>) {
    out.push_str("## Evidence\n\n");
    out.push_str("| File | Kind | Lines |\n|---|---|---|\n");
    // Shortened: the files with findings only.
    let listed: Vec<&crate::engine::FileOutcome> = match limit {
        None => outcome.files.iter().collect(),
        Some(_) => {
            let with_findings: BTreeSet<&str> = outcome
                .diagnostics
                .iter()
                .map(|d| &*d.location.path)
                .collect();
            outcome
                .files
                .iter()
                .filter(|f| with_findings.contains(&*f.display))
                .collect()
        }
    };
    if listed.len() < outcome.files.len() {
        let _ = writeln!(
            out,
            "| {} more files without findings | | |",
            outcome.files.len() - listed.len()
        );
    }
    for f in listed {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            markdown::cell(&code(&f.display)),
            f.kind.as_str(),
            f.lines
        );
    }
    out.push('\n');
    let mut lockfiles = BTreeSet::new();
    for f in &outcome.files {
        if let Some(Facts::Manifest(m)) = &f.facts {
            for pin in &m.sdk {
                let _ = writeln!(
                    out,
                    "- Manifest {}: {} {}{}",
                    code(&format!("{}:{}", f.display, pin.line)),
                    code(&pin.package),
                    code(&pin.spec),
                    pin.resolved
                        .as_ref()
                        .map(|(v, l)| format!(
                            " (lockfile {} resolves {})",
                            code(l),
                            markdown::text(v)
                        ))
                        .unwrap_or_default()
                );
            }
            let dir = f.display.rsplit_once('/').map(|(d, _)| d).unwrap_or(".");
            for l in &m.lockfiles {
                lockfiles.insert(if dir == "." {
                    l.clone()
                } else {
                    format!("{dir}/{l}")
                });
            }
        }
    }
    if !lockfiles.is_empty() {
        let list: Vec<String> = lockfiles.iter().map(|l| code(l)).collect();
        let _ = writeln!(out, "- Lockfiles read: {}", list.join(", "));
    }
    if let Some(a) = &outcome.run {
        let _ = writeln!(out, "{}", run::evidence_line(a));
    }
    let _ = writeln!(out, "- proclint {}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(out, "- Command: {}", code(&info.command));
    let _ = writeln!(
        out,
        "- Configuration: {}",
        info.config
            .as_deref()
            .map(code)
            .unwrap_or_else(|| "none (defaults)".into())
    );
}
