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
    /// Context and What went well.
    head: String,
    /// Process-quality review and Suggestions.
    tail: String,
}

impl<'a> Prepared<'a> {
    fn new(outcome: &'a Outcome, info: &RetroInfo) -> Prepared<'a> {
        let groups = groups::build(outcome, &info.enabled);
        let diags = groups::diagnostics_by_group(&groups, outcome);
        let sites: Vec<SiteCounts> = groups.iter().map(|g| g.sites(outcome)).collect();
        let h = if groups.len() == 1 { "##" } else { "###" };
        let mut sources = suggest::Sources::new(outcome);
        let sections = groups
            .iter()
            .zip(diags)
            .zip(&sites)
            .map(|((g, diags), sites)| {
                let mut head = String::new();
                context(&mut head, outcome, g, sites, h);
                went_well(&mut head, outcome, g, &diags, sites, h);
                let mut tail = String::new();
                review_table(&mut tail, &diags, sites, h);
                suggest::suggestions(&mut tail, &mut sources, &diags, h);
                Section { diags, head, tail }
            })
            .collect::<Vec<_>>();
        let mut summary = String::new();
        if groups.len() > 1 {
            cross_process_summary(&mut summary, &groups, &sections, &sites);
        }
        Prepared {
            groups,
            sections,
            summary,
        }
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
    let title = match titles.len() {
        0 => "no entry process".to_string(),
        1..=3 => titles.join(", "),
        n => format!("{}, {}, … ({n} processes)", titles[0], titles[1]),
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
    if single {
        if let Some(section) = prepared.sections.first() {
            section_body(&mut out, section, "##", limit);
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
            section_body(&mut out, section, "###", limit);
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
fn section_body(out: &mut String, section: &Section, h: &str, limit: Option<usize>) {
    out.push_str(&section.head);
    went_poorly(out, &section.diags, h, limit);
    out.push_str(&section.tail);
}

fn context(out: &mut String, outcome: &Outcome, g: &Group, sites: &SiteCounts, h: &str) {
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
    let _ = writeln!(
        out,
        "- **Task definitions**: {total}{}",
        if by_kind.is_empty() {
            String::new()
        } else {
            format!(" ({})", by_kind.join(", "))
        }
    );
    let _ = writeln!(
        out,
        "- **Invocation sites**: {} (`ctx.task`; {} repeated in loops, batches or helpers)",
        sites.count(Sites::Invocations),
        sites.count(Sites::RepeatedInvocations)
    );
    for (label, kind) in [
        ("Breakpoints", Sites::Breakpoints),
        ("Loops that dispatch effects", Sites::EffectLoops),
        ("Parallel batches", Sites::ParallelSites),
    ] {
        let _ = writeln!(
            out,
            "- **{label}**: {}{}",
            sites.count(kind),
            sites.lines_suffix(kind)
        );
    }
    let pins = g.sdk_pins(outcome);
    if pins.is_empty() {
        let _ = writeln!(
            out,
            "- **SDK**: no package.json pinning the SDK was checked"
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
            "- **SDK**: {} {} ({}{resolved})",
            code(&pin.package),
            code(&pin.spec),
            code(&format!("{path}:{}", pin.line))
        );
    }
    out.push('\n');
}

fn went_well(
    out: &mut String,
    outcome: &Outcome,
    g: &Group,
    diags: &[&Diagnostic],
    sites: &SiteCounts,
    h: &str,
) {
    let _ = writeln!(out, "{h} What went well\n");
    let fired: BTreeSet<&str> = diags.iter().map(|d| d.rule).collect();
    let mut any = false;
    for rule in rules::all() {
        let meta = rule.meta();
        let report = rule.report();
        if report.praise.is_empty() || fired.contains(meta.id) || !g.rule_enabled(meta.id) {
            continue;
        }
        let n = sites.count(report.sites);
        if n == 0 {
            continue;
        }
        let shared = rule.praise_shared_with();
        if diags.iter().any(|d| {
            shared.contains(&d.rule)
                && sites.contains(report.sites, &d.location.path, d.location.start.line)
        }) {
            continue;
        }
        any = true;
        let _ = writeln!(
            out,
            "- **{}** ({n}/{n}{}) — `{}` finds nothing.",
            report.praise,
            sites.lines_colon(report.sites),
            meta.id
        );
    }
    let parse_clean = !diags.iter().any(|d| d.rule == "parse-error");
    let js = g.process_files(outcome);
    if parse_clean && js > 0 {
        any = true;
        let _ = writeln!(
            out,
            "- **Every module parses cleanly** ({js}/{js} process modules)."
        );
    }
    if !any {
        out.push_str("- Nothing the static model can prove yet.\n");
    }
    out.push('\n');
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

/// `limit`: at most this many locations per module, and modules per rule,
/// with a count of the rest.
fn went_poorly(out: &mut String, diags: &[&Diagnostic], h: &str, limit: Option<usize>) {
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
        let _ = writeln!(
            out,
            "- **{}** (`{rule}`, {} finding{} in {} module{})",
            meta.summary.trim_end_matches('.'),
            ds.len(),
            if ds.len() == 1 { "" } else { "s" },
            modules.len(),
            if modules.len() == 1 { "" } else { "s" },
        );
        let keep = limit.unwrap_or(usize::MAX);
        for module in modules.iter().take(keep) {
            let lines: Vec<String> = ds
                .iter()
                .filter(|d| &*d.location.path == *module)
                .map(|d| code(&format!("{module}:{}", d.location.start.line)))
                .collect();
            let more = lines.len().saturating_sub(keep);
            let shown = lines.into_iter().take(keep).collect::<Vec<_>>().join(", ");
            if more > 0 {
                let _ = writeln!(out, "  - {shown} and {more} more");
            } else {
                let _ = writeln!(out, "  - {shown}");
            }
        }
        if modules.len() > keep {
            let _ = writeln!(
                out,
                "  - and {} more module{}",
                modules.len() - keep,
                if modules.len() - keep == 1 { "" } else { "s" }
            );
        }
        let w = why(meta.doc);
        if !w.is_empty() {
            let _ = writeln!(out, "  - Why it matters: {w}");
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
fn assess(area: Area, diags: &[&Diagnostic], sites: &SiteCounts) -> (Grade, String) {
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
    // A grouped finding's other sites are its first related locations.
    let mut where_: Vec<String> = found
        .iter()
        .flat_map(|d| {
            let others = d.related.iter().take(d.occurrences.saturating_sub(1));
            std::iter::once(&d.location).chain(others.map(|r| &r.location))
        })
        .map(|l| code(&format!("{}:{}", l.path, l.start.line)))
        .collect();
    where_.dedup();
    let shown: Vec<String> = where_.iter().take(4).cloned().collect();
    let more = where_.len().saturating_sub(4);
    let reason = if found.is_empty() {
        format!("no findings over {}", site_kind.count(n))
    } else {
        format!(
            "{} finding{} ({e} error{}, {w} warning{}, {i} note{}) over {}: {}{}",
            e + w + i,
            if e + w + i == 1 { "" } else { "s" },
            if e == 1 { "" } else { "s" },
            if w == 1 { "" } else { "s" },
            if i == 1 { "" } else { "s" },
            site_kind.count(n),
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        )
    };
    if g == Grade::Fails {
        return (g, format!("the process cannot run as written — {reason}"));
    }
    (g, reason)
}

fn review_table(out: &mut String, diags: &[&Diagnostic], sites: &SiteCounts, h: &str) {
    let _ = writeln!(out, "{h} Process-quality review\n");
    out.push_str("| Criterion | Grade | Assessment |\n|---|---|---|\n");
    for area in Area::GRADED {
        let (g, reason) = assess(area, diags, sites);
        let _ = writeln!(
            out,
            "| {} | **{}** | {} |",
            area.name(),
            g,
            markdown::cell(&reason)
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
            let (grade, _) = assess(area, &section.diags, sites);
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
