//! `unbounded-loop-instruction`: "repeat until approved" with no cap, in
//! SKILL.md prose, in ```dot flowcharts, and in agent task prompts.

mod dot;
mod outline;
pub mod phrases;
mod prompts;

use std::collections::HashSet;
use std::ops::Range;

use super::{Area, JsContext, Rule, RuleMeta, Sink};
use crate::config::Config;
use crate::diagnostic::Severity;
use crate::source::{SourceFile, Span};
use outline::Outline;
use phrases::Matchers;

pub struct UnboundedLoopInstruction;

static META: RuleMeta = RuleMeta {
    id: phrases::RULE_ID,
    summary: "An instruction to loop until approval states no cap and nothing to do at the cap.",
    severity: Severity::Warning,
    area: Area::SkillHygiene,
    doc: include_str!("../../../rules/unbounded-loop-instruction.md"),
    builtin: false,
    options: &["phrases"],
};

const HELP: &str = "state the cap and what happens at it (arbitration, a ledger entry, or a \
     stop), e.g. \"Fix round R of 5; at the cap the controller adjudicates each open finding\"";

impl Rule for UnboundedLoopInstruction {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn validate_options(&self, options: &toml::Table) -> Result<(), String> {
        phrases::validate(options)
    }

    fn check_markdown(&self, file: &SourceFile, config: &Config, sink: &mut Sink) {
        let matchers = Matchers::new(config);
        let text = file.text.as_str();
        let outline = Outline::parse(text);
        let prose = |r: &Range<usize>| text.get(r.clone()).unwrap_or("");
        for block in &outline.blocks {
            for hit in matchers.phrases(prose(block)) {
                let at = block.start + hit.start..block.start + hit.end;
                if outline.in_comment(&at) {
                    continue;
                }
                let section = outline.section_of(at.start);
                // Caps count only in prose of the same heading scope (the
                // block itself included), never in code.
                let capped = outline
                    .blocks
                    .iter()
                    .filter(|b| section.start <= b.start && b.end <= section.end)
                    .any(|b| matchers.has_cap(prose(b)));
                if capped {
                    continue;
                }
                let phrase = prose(&at);
                sink.push(
                    sink.diag(
                        Span::new(at.start, at.end),
                        format!(
                            "\"{phrase}\" sets no cap: nothing in this section says how many \
                             rounds or what happens when approval never comes, so the loop \
                             can run forever"
                        ),
                    )
                    .with_help(HELP),
                );
            }
        }
        for code in outline.code.iter().filter(|c| c.lang == "dot") {
            let src = prose(&code.content);
            let graph = dot::parse(src);
            let is_review = |s: &str| {
                let s = s.to_lowercase();
                s.contains("review") || s.contains("approv")
            };
            for cycle in dot::open_cycles(&graph, is_review, |s| matchers.has_cap(s)) {
                let span = Span::new(
                    code.content.start + cycle.closing.span.start,
                    code.content.start + cycle.closing.span.end,
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

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let matchers = Matchers::new(cx.config);
        let src = m.src();
        let mut reported: HashSet<(usize, usize)> = HashSet::new();
        for prompt in prompts::agent_prompts(m) {
            let texts: Vec<(usize, &str)> = prompt
                .strings
                .iter()
                .map(|n| {
                    (
                        n.start_byte(),
                        src.get(n.start_byte()..n.end_byte()).unwrap_or(""),
                    )
                })
                .collect();
            // The task's strings together are one scope for caps.
            if texts.iter().any(|(_, t)| matchers.has_cap(t)) {
                continue;
            }
            for (start, t) in &texts {
                for hit in matchers.phrases(t) {
                    let at = (start + hit.start, start + hit.end);
                    if !reported.insert(at) {
                        continue;
                    }
                    let phrase = t.get(hit).unwrap_or("");
                    sink.push(
                        sink.diag(
                            Span::new(at.0, at.1),
                            format!(
                                "the prompt of agent task `{}` says \"{phrase}\" with no cap: \
                                 nothing in its instructions says how many rounds or what \
                                 happens when approval never comes",
                                prompt.task
                            ),
                        )
                        .with_help(HELP),
                    );
                }
            }
        }
    }
}
