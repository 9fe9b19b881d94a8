//! `unbounded-loop-instruction`: "repeat until approved" with no cap, in
//! Markdown prose, in ```dot flowcharts, and in agent task prompts.

mod dot;
pub mod phrases;

use std::collections::BTreeSet;
use std::ops::Range;

use super::{Area, Category, ProjectSink, ReportMeta, Rule, RuleMeta, Sink, Sites, SkillContext};
use crate::diagnostic::{Location, Severity};
use crate::project::config::Config;
use crate::project::{Project, StringLit};
use crate::source::{Pos, Span};
use phrases::Matchers;

pub struct UnboundedLoopInstruction;

static META: RuleMeta = RuleMeta {
    id: phrases::RULE_ID,
    summary: "An instruction to loop until approval states no cap and nothing to do at the cap.",
    severity: Severity::Warning,
    area: Area::SkillHygiene,
    category: Category::Suspicious,
    doc: include_str!("../../../rules/unbounded-loop-instruction.md"),
    builtin: false,
    options: &["phrases"],
    fix: crate::rules::FixAvailability::Never,
};

const HELP: &str = "state the cap and what happens at it (arbitration, a ledger entry, or a \
     stop), e.g. \"Fix round R of 5; at the cap the controller adjudicates each open finding\"";

impl Rule for UnboundedLoopInstruction {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::SkillFiles,
            praise: "Every loop instruction in the skills and prompts states a cap",
            sdk_hint: "",
        }
    }

    fn validate_options(&self, options: &toml::Table) -> Result<(), String> {
        phrases::validate(options)
    }

    fn check_skill(&self, cx: &SkillContext, sink: &mut Sink) {
        let matchers = Matchers::new(cx.config);
        let prose = Prose::new(cx);
        let mut reported = BTreeSet::new();
        // One finding per heading scope: its cap (or its absence) is one
        // answer for every loop phrase in it.
        let mut sections_reported = BTreeSet::new();
        for block in &prose.blocks {
            for hit in prose.find(block, |t| matchers.phrases(t)) {
                if !reported.insert((hit.start, hit.end)) {
                    continue;
                }
                let condition = phrases::condition(prose.text, &hit);
                let condition_text = condition.as_ref().map(|c| prose.text(c));
                if condition_text.is_some_and(phrases::self_bounded) {
                    continue;
                }
                // One step of a list of method steps, aiming at a target
                // the agent measures itself: its own work loop.
                if prose.in_list_item(hit.start)
                    && phrases::method_step(prose.text, &hit)
                    && condition_text.is_some_and(phrases::measurable)
                {
                    continue;
                }
                // Caps count only in prose of the same heading scope (the
                // block itself included), never in code.
                let section = prose.section_of(hit.start);
                let capped = prose
                    .blocks
                    .iter()
                    .filter(|b| section.start <= b.start && b.end <= section.end)
                    .any(|b| !prose.find(b, |t| matchers.caps(t)).is_empty());
                if capped || !sections_reported.insert((section.start, section.end)) {
                    continue;
                }
                let end = condition.as_ref().map_or(hit.end, |c| c.end.max(hit.end));
                let phrase = prose.text(&(hit.start..end));
                sink.push(
                    sink.diag(
                        Span::new(hit.start, hit.end),
                        format!(
                            "\"{phrase}\" sets no cap: nothing in this section says how many \
                             rounds or {}, so only the agent's own limits (its turns, its context) \
                             end the loop, with no outcome defined",
                            phrases::missing_exit(condition_text)
                        ),
                    )
                    .with_help(HELP),
                );
            }
        }
        for code in &cx.skill.doc.code_blocks {
            if !code.fenced || !code.lang.eq_ignore_ascii_case("dot") {
                continue;
            }
            let Some(inner) = fence_inner(&cx.file.text, &code.span) else {
                continue;
            };
            let graph = dot::parse(prose.text(&inner));
            let is_review = |s: &str| {
                let s = s.to_lowercase();
                s.contains("review") || s.contains("approv")
            };
            for cycle in dot::open_cycles(&graph, is_review, |s| !matchers.caps(s).is_empty()) {
                let span = Span::new(
                    inner.start + cycle.closing.span.start,
                    inner.start + cycle.closing.span.end,
                );
                sink.push(
                    sink.diag(
                        span,
                        format!(
                            "the flowchart cycle back to \"{}\" (`{} -> {}`) has no cap on any \
                             of its nodes or edges: nothing ends the loop if approval never comes",
                            cycle.node, cycle.closing.from, cycle.closing.to
                        ),
                    )
                    .with_help(
                        "label the cycle with its cap and the exit at the cap, e.g. an edge \
                         `fix -> review [label=\"round R of 5\"]` and `review -> adjudicate \
                         [label=\"after 5 rounds\"]`",
                    ),
                );
            }
        }
    }

    fn check_project(&self, p: &Project, config: &Config, sink: &mut ProjectSink) {
        let matchers = Matchers::new(config);
        let mut reported = BTreeSet::new();
        for (mi, module) in p.modules.iter().enumerate() {
            if !module.report {
                continue;
            }
            for (ti, task) in module.tasks.iter().enumerate() {
                if task.kind.as_deref().is_some_and(|k| k != "agent") {
                    continue;
                }
                let Some(prompt) = &task.prompt else { continue };
                // The task's strings — its prompt, through consts and
                // imports, and what call sites pass for `args.x` — are one
                // scope for caps.
                let mut strings = p.resolve_strings(mi, prompt);
                if !prompt.arg_fields.is_empty() {
                    for (mj, ii) in p.invocations_of(mi, ti) {
                        let inv = &p.modules[mj].invocations[ii];
                        for (key, set) in &inv.args {
                            if prompt.arg_fields.contains(key) {
                                strings.extend(p.resolve_strings(mj, set));
                            }
                        }
                    }
                }
                if strings.iter().any(|s| !matchers.caps(&s.text).is_empty()) {
                    continue;
                }
                let id = task.id.as_deref().unwrap_or("task");
                // One finding per prompt, at its first open-ended phrase;
                // the others are related locations.
                let mut hits = Vec::new();
                for lit in &strings {
                    for hit in matchers.phrases(&lit.text) {
                        let condition = phrases::condition(&lit.text, &hit);
                        let condition_text =
                            condition.as_ref().and_then(|c| lit.text.get(c.clone()));
                        if condition_text.is_some_and(phrases::self_bounded) {
                            continue;
                        }
                        // A step of the agent's method ("4. Iterate until
                        // compliant", "Fix the errors. Repeat until clean.")
                        // aiming at a target it measures itself.
                        if phrases::method_step(&lit.text, &hit)
                            && condition_text.is_some_and(phrases::measurable)
                        {
                            continue;
                        }
                        let location = sub_location(lit, &hit);
                        if !reported.insert((location.path.clone(), location.span)) {
                            continue;
                        }
                        let end = condition.as_ref().map_or(hit.end, |c| c.end.max(hit.end));
                        let phrase = lit.text.get(hit.start..end).unwrap_or("");
                        hits.push((lit, location, phrase, condition_text));
                    }
                }
                let Some((lit, location, phrase, condition_text)) = hits.first() else {
                    continue;
                };
                let mut d = sink
                    .diag(
                        location.clone(),
                        format!(
                            "the prompt of agent task `{id}` says \"{phrase}\" with no cap: \
                             nothing in its instructions says how many rounds or {}",
                            phrases::missing_exit(*condition_text)
                        ),
                    )
                    .with_help(HELP);
                if lit.location.path != task.definition.path {
                    d = d.with_related(
                        task.definition.clone(),
                        format!("agent task `{id}` is defined here"),
                    );
                }
                for (_, other, phrase, _) in hits.iter().skip(1) {
                    d = d.with_related(other.clone(), format!("also open-ended: \"{phrase}\""));
                }
                sink.push(d);
            }
        }
    }
}

/// The prose of a Markdown file: paragraphs, list items and headings as
/// raw byte ranges, with fenced code and HTML comments masked out.
struct Prose<'a> {
    text: &'a str,
    blocks: Vec<Range<usize>>,
    /// Code blocks and `<!-- … -->` comments: never instructions.
    masked: Vec<Range<usize>>,
    /// Heading scopes, in heading order, and where the body starts.
    sections: Vec<Range<usize>>,
    body_start: usize,
}

impl<'a> Prose<'a> {
    fn new(cx: &'a SkillContext) -> Prose<'a> {
        let text = cx.file.text.as_str();
        let doc = &cx.skill.doc;
        let mut blocks: Vec<Range<usize>> = doc.blocks.iter().map(|b| b.span.clone()).collect();
        blocks.extend(doc.headings.iter().map(|h| h.span.clone()));
        blocks.sort_by_key(|b| (b.start, b.end));
        let body_start = cx.skill.frontmatter.body_offset();
        let mut masked: Vec<Range<usize>> =
            doc.code_blocks.iter().map(|c| c.span.clone()).collect();
        masked.extend(html_comments(text, body_start));
        Prose {
            text,
            blocks,
            masked,
            sections: doc.sections.iter().map(|s| s.span.clone()).collect(),
            body_start,
        }
    }

    fn text(&self, r: &Range<usize>) -> &'a str {
        self.text.get(r.clone()).unwrap_or("")
    }

    /// Matches of `find` in a block's raw text, as file ranges, outside
    /// code and comments.
    fn find(
        &self,
        block: &Range<usize>,
        find: impl Fn(&str) -> Vec<Range<usize>>,
    ) -> Vec<Range<usize>> {
        find(self.text(block))
            .into_iter()
            .map(|r| block.start + r.start..block.start + r.end)
            .filter(|r| {
                !self
                    .masked
                    .iter()
                    .any(|m| m.start < r.end && r.start < m.end)
            })
            .collect()
    }

    /// Whether `pos` is on a line of a list item (`- …`, `* …`, `1. …`,
    /// `2) …`).
    fn in_list_item(&self, pos: usize) -> bool {
        let before = self.text.get(..pos).unwrap_or("");
        let line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
        let line = line.trim_start();
        let digits = line.chars().take_while(char::is_ascii_digit).count();
        let rest = &line[digits..];
        if digits > 0 {
            rest.starts_with(". ") || rest.starts_with(") ")
        } else {
            ["- ", "* ", "+ "].iter().any(|m| line.starts_with(m))
        }
    }

    /// The innermost heading scope containing `pos` (the text before the
    /// first heading is a scope of its own).
    fn section_of(&self, pos: usize) -> Range<usize> {
        match self.sections.iter().rposition(|s| s.start <= pos) {
            Some(i) => self.sections[i].clone(),
            None => {
                let end = self
                    .sections
                    .first()
                    .map(|s| s.start)
                    .unwrap_or(self.text.len());
                self.body_start..end
            }
        }
    }
}

/// The lines between a fenced block's fences, as a file range (raw, so
/// offsets inside it are file offsets; DOT does not mind indentation).
fn fence_inner(text: &str, span: &Range<usize>) -> Option<Range<usize>> {
    let raw = text.get(span.clone())?;
    let first_nl = raw.find('\n')?;
    let start = span.start + first_nl + 1;
    let body = raw.get(first_nl + 1..)?;
    let trimmed = body.trim_end();
    let end = match trimmed.rfind('\n') {
        // The last line is the closing fence when it is only fence chars.
        Some(i)
            if trimmed[i + 1..]
                .trim()
                .chars()
                .all(|c| c == '`' || c == '~') =>
        {
            i + 1
        }
        _ if trimmed.trim().chars().all(|c| c == '`' || c == '~') => 0,
        _ => body.len(),
    };
    Some(start..start + end)
}

fn html_comments(text: &str, from: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut pos = from;
    while let Some(i) = text.get(pos..).and_then(|t| t.find("<!--")) {
        let start = pos + i;
        let end = text
            .get(start + 4..)
            .and_then(|t| t.find("-->"))
            .map(|j| start + 4 + j + 3)
            .unwrap_or(text.len());
        out.push(start..end);
        pos = end;
    }
    out
}

/// The location of `hit` inside a string literal: exact when the literal
/// is on one line and written without escapes (its text then maps 1:1 to
/// the source after the opening quote), else the whole literal.
fn sub_location(lit: &StringLit, hit: &Range<usize>) -> Location {
    let loc = &lit.location;
    let exact = loc.start.line == loc.end.line && loc.span.len() == lit.text.len() + 2;
    let (Some(prefix), Some(phrase), true) =
        (lit.text.get(..hit.start), lit.text.get(hit.clone()), exact)
    else {
        return loc.clone();
    };
    let utf16 = |s: &str| s.chars().map(|c| c.len_utf16() as u32).sum::<u32>();
    let column = loc.start.column + 1 + utf16(prefix);
    Location {
        path: loc.path.clone(),
        span: Span::new(loc.span.start + 1 + hit.start, loc.span.start + 1 + hit.end),
        start: Pos {
            line: loc.start.line,
            column,
        },
        end: Pos {
            line: loc.start.line,
            column: column + utf16(phrase),
        },
    }
}
