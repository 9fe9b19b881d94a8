//! `unresolved-placeholder`: template placeholders left in text an agent or
//! a human reads: `{{name}}` in prompts, titles and SKILL.md, and `${name}`
//! in a quoted JavaScript string, which is never interpolated.

use crate::js::syntax::tree::Node;

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites, SkillContext};
use crate::diagnostic::{Edit, Fix, Severity};
use crate::js::model::objects;
use crate::js::syntax::is_function;
use crate::js::JsModel;
use crate::source::Span;

pub struct UnresolvedPlaceholder;

static META: RuleMeta = RuleMeta {
    id: "unresolved-placeholder",
    summary: "A `{{placeholder}}` or a `${…}` in a quoted string that nothing fills in.",
    severity: Severity::Warning,
    area: Area::RuntimeCorrectness,
    category: Category::Correctness,
    doc: include_str!("../../rules/unresolved-placeholder.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Sometimes,
};

/// Properties whose text an agent or a human reads.
const PROSE_KEYS: &[&str] = &[
    "task",
    "role",
    "goal",
    "instructions",
    "context",
    "title",
    "description",
    "question",
    "prompt",
    "outputFormat",
    "message",
    "summary",
    "content",
    "system",
    "user",
];

/// Roots of GitHub Actions expressions (`{{ github.sha }}` in a workflow a
/// prompt quotes) and similar tool syntax that is not a placeholder.
const TOOL_ROOTS: &[&str] = &[
    "github", "secrets", "matrix", "env", "steps", "needs", "vars", "runner", "job", "inputs",
    "strategy", "this", "config", "var", "loop", "item",
];

/// Code that fills `{{…}}` templates itself: a module that does this builds
/// templates on purpose.
const TEMPLATE_ENGINES: &[&str] = &[
    ".replace(",
    ".replaceAll(",
    "Handlebars",
    "handlebars",
    "Mustache",
    "mustache",
    "nunjucks",
    "render(",
];

impl Rule for UnresolvedPlaceholder {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::ProcessModules,
            praise: "No prompt or skill carries an unfilled placeholder",
            sdk_hint: "Nothing in the SDK fills `{{…}}` in prompts. Rejecting (or warning on) unfilled placeholders at `run:create`, as genty's validator does for generated processes, would catch them for every author.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let src = m.src();
        let templating = TEMPLATE_ENGINES.iter().any(|t| src.contains(t));
        let mut seen: Vec<usize> = Vec::new();
        // Definitions without `kind` never request an effect (the SDK throws
        // "did not provide a kind" first): no agent reads their text, and
        // invalid-task-definition reports them.
        let never_read: Vec<(usize, usize)> = m
            .task_defs
            .iter()
            .flat_map(|t| t.objects.iter().zip(&t.kinds))
            .filter(|(o, kind)| kind.is_none() && !objects::has_opaque_spread(m, **o))
            .map(|(o, _)| (o.start_byte(), o.end_byte()))
            .collect();
        for &lit in &m.placeholder_strings {
            if never_read
                .iter()
                .any(|&(start, end)| start <= lit.start_byte() && lit.end_byte() <= end)
            {
                continue;
            }
            let text = m.text(lit);
            if !templating && prose_value(m, lit) {
                let names: Vec<(usize, &str)> = mustaches(text)
                    .into_iter()
                    .filter(|(o, _)| !talks_about_templates(text, *o))
                    .collect();
                if let Some((offset, first)) = names.first() {
                    seen.push(lit.id());
                    let start = lit.start_byte() + offset;
                    sink.push(
                        sink.diag(
                            Span::new(start, start + first.len()),
                            format!(
                                "`{first}` is never filled in: nothing in the SDK expands `{{{{…}}}}`, \
                                 so the agent (or reviewer) reads the placeholder itself{}",
                                more(names.len())
                            ),
                        )
                        .with_help(
                            "write the value in with a template literal (`${args.goal}`), or pass \
                             it in the prompt's `context` and refer to it by name",
                        ),
                    );
                }
            }
            if lit.kind_str() != "string" || seen.contains(&lit.id()) {
                continue;
            }
            // Every `${…}` of the string, and whether the string's scope
            // binds its name (then the author meant that value; a key of the
            // prompt's `context` the agent resolves by name is not one).
            let interpolations: Vec<(usize, &str, bool)> =
                memchr::memmem::find_iter(text.as_bytes(), b"${")
                    .filter_map(|offset| {
                        let expr = interpolation(&text[offset..])?;
                        let head = expr.split(['.', '[', '?']).next().unwrap_or(expr);
                        Some((offset, expr, bound_at(m, lit, head)))
                    })
                    .collect();
            let meant: Vec<(usize, &str)> = interpolations
                .iter()
                .filter(|(_, _, bound)| *bound)
                .map(|(o, e, _)| (*o, *e))
                .collect();
            let Some(&(offset, expr)) = meant.first() else {
                continue;
            };
            let at = lit.start_byte() + offset;
            let quote = text.chars().next().unwrap_or('\'');
            let also: Vec<String> = meant[1..]
                .iter()
                .map(|(_, e)| format!("`${{{e}}}`"))
                .collect();
            let also = if also.is_empty() {
                String::new()
            } else {
                format!(" (and {} too)", also.join(", "))
            };
            let mut d = sink
                .diag(
                    Span::new(at, at + expr.len() + 3),
                    format!(
                        "`${{{expr}}}` is inside a {} string, which JavaScript never \
                         interpolates: the text keeps `${{{expr}}}` literally{also}",
                        if quote == '"' {
                            "double-quoted"
                        } else {
                            "single-quoted"
                        }
                    ),
                )
                .with_help("use a template literal: quote the string with backticks");
            // Every `${` of the text is a bound name's (not `${HOME}`, a
            // call, or one the agent resolves), each declared before the
            // string and outside the value it initializes (no temporal dead
            // zone), and the string sits where a template cannot become a
            // tagged call (`f\n'…'` would): after `[`, `,`, `:`, `(` or `=`.
            let every = memchr::memmem::find_iter(text.as_bytes(), b"${").count() == meant.len();
            let settled = meant.iter().all(|(_, e)| {
                let head = e.split(['.', '[', '?']).next().unwrap_or(e);
                declared_before(m, lit, head)
            });
            let placed = lit.parent().is_some_and(|p| {
                matches!(
                    p.kind_str(),
                    "array" | "pair" | "arguments" | "variable_declarator"
                )
            });
            if every && settled && placed && !text.contains("\\${") {
                if let Some(fix) = template_fix(text, lit.start_byte()) {
                    d = d.with_fix(fix);
                }
            }
            sink.push(d);
        }
    }

    fn check_skill(&self, cx: &SkillContext, sink: &mut Sink) {
        if !cx.is_skill_file() {
            return;
        }
        let text = &cx.file.text;
        let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
        if let crate::markdown::Frontmatter::Present(fm) = &cx.skill.frontmatter {
            ranges.push(fm.yaml_span.clone());
        }
        ranges.extend(cx.skill.doc.blocks.iter().map(|b| b.span.clone()));
        // Headings are read as the body is (`# Reviewer for {{AGENT_NAME}}`).
        ranges.extend(cx.skill.doc.headings.iter().map(|h| h.span.clone()));
        let mut reported: Vec<usize> = Vec::new();
        for r in ranges {
            let Some(slice) = text.get(r.clone()) else {
                continue;
            };
            // One finding per block or heading: the first placeholder in it.
            if let Some((offset, name)) = outside_inline_code(slice)
                .into_iter()
                .find(|(o, _)| !talks_about_templates(slice, *o))
            {
                let start = r.start + offset;
                // A heading inside a list item is in the item's block too.
                if reported.contains(&start) {
                    continue;
                }
                reported.push(start);
                sink.push(
                    sink.diag(
                        Span::new(start, start + name.len()),
                        format!(
                            "`{name}` is never filled in: a SKILL.md is read as written, so the \
                             agent sees the placeholder itself"
                        ),
                    )
                    .with_help(
                        "write the actual value, or describe what goes there in words (`the \
                         project's name`); put template text in a code block if it is meant to be \
                         copied",
                    ),
                );
            }
        }
    }
}

fn more(n: usize) -> String {
    match n {
        0 | 1 => String::new(),
        2 => " (and 1 more placeholder in this text)".to_string(),
        n => format!(" (and {} more placeholders in this text)", n - 1),
    }
}

/// Whether a literal is read as prose: the value of a prompt-like property,
/// directly, in an array, or joined/concatenated there.
fn prose_value(m: &JsModel, lit: Node) -> bool {
    let mut n = lit;
    for _ in 0..6 {
        let Some(p) = n.parent() else {
            return false;
        };
        match p.kind_str() {
            "pair" => {
                return p.field("key").is_some_and(|k| {
                    let key = m.text(k).trim_matches(['"', '\'']);
                    PROSE_KEYS.contains(&key)
                })
            }
            "array"
            | "binary_expression"
            | "parenthesized_expression"
            | "arguments"
            | "member_expression"
            | "call_expression" => n = p,
            _ => return false,
        }
    }
    false
}

/// `{{name}}` placeholders (genty's pattern), with their byte offsets; not
/// `${{ … }}` (GitHub Actions) nor tool expressions (`{{ github.sha }}`).
fn mustaches(text: &str) -> Vec<(usize, &str)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(pos) = memchr::memmem::find(&b[i..], b"{{") {
        let start = i + pos;
        i = start + 2;
        if start > 0 && b[start - 1] == b'$' {
            continue;
        }
        let Some(len) = memchr::memmem::find(&b[start + 2..], b"}}") else {
            break;
        };
        let inner = text[start + 2..start + 2 + len].trim();
        let valid = !inner.is_empty()
            && inner
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
            && inner
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'));
        let root = inner.split('.').next().unwrap_or(inner);
        if valid && !TOOL_ROOTS.contains(&root) {
            out.push((start, &text[start..start + len + 4]));
        }
        i = start + 2 + len + 2;
    }
    out
}

/// `{{name}}` outside inline code (`` `{{name}}` `` is quoted on purpose).
fn outside_inline_code(slice: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut in_code = false;
    let mut seg_start = 0;
    for (i, c) in slice
        .char_indices()
        .chain(std::iter::once((slice.len(), '`')))
    {
        if c != '`' {
            continue;
        }
        if !in_code {
            let seg = &slice[seg_start..i];
            out.extend(mustaches(seg).into_iter().map(|(o, n)| (seg_start + o, n)));
        }
        in_code = !in_code;
        seg_start = i + 1;
    }
    out
}

/// `${name}` / `${a.b}` at the start of `text`: the expression.
fn interpolation(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("${")?;
    let end = rest.find('}')?;
    let expr = &rest[..end];
    let ok = expr
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && expr
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '?'));
    // `${HOME}`: a shell variable written for the shell.
    let env_style = expr
        .chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    (ok && !env_style).then_some(expr)
}

/// Requotes a string literal (`text`, quotes included, written at
/// `start`) with backticks, so that its `${…}` interpolate. Unsafe: the
/// text changes at run time, as the finding intends. Not offered when the
/// text holds a backtick, or a backslash before a digit (`\1` is an octal
/// escape, which a template literal rejects).
fn template_fix(text: &str, start: usize) -> Option<Fix> {
    let body = text.get(1..text.len().checked_sub(1)?)?;
    let bytes = body.as_bytes();
    let octal = bytes
        .windows(2)
        .any(|w| w[0] == b'\\' && w[1].is_ascii_digit());
    if body.contains('`') || octal || text.len() < 2 {
        return None;
    }
    let end = start + text.len();
    Some(Fix {
        description: "quote the string with backticks".into(),
        edits: vec![
            Edit {
                span: Span::new(start, start + 1),
                replacement: "`".into(),
            },
            Edit {
                span: Span::new(end - 1, end),
                replacement: "`".into(),
            },
        ],
        safe: false,
    })
}

/// Whether the binding `name` resolves to where `node` is was declared
/// before `node`, outside the value it is initialized with.
fn declared_before(m: &JsModel, node: Node, name: &str) -> bool {
    let Some(b) = m
        .scopes
        .bindings
        .iter()
        .filter(|b| b.name == name && b.node.start_byte() < node.start_byte())
        .max_by_key(|b| b.node.start_byte())
    else {
        // Declared only after the string: it may not be initialized yet.
        return false;
    };
    !b.init
        .is_some_and(|i| i.start_byte() <= node.start_byte() && node.end_byte() <= i.end_byte())
}

/// Whether `name` is bound where `node` is: looked up from the innermost
/// enclosing function's scope (block-scoped names inside it are missed,
/// which only costs recall).
fn bound_at(m: &JsModel, node: Node, name: &str) -> bool {
    let mut cur = node;
    let scope = loop {
        match cur.parent() {
            Some(p) if is_function(p) => match m.function_of_node(p) {
                Some(f) => break Some(m.functions[f].scope),
                None => cur = p,
            },
            Some(p) => cur = p,
            None => {
                break m
                    .scopes
                    .scopes
                    .iter()
                    .position(|s| s.kind == crate::js::model::scope::ScopeKind::Program)
            }
        }
    };
    scope.is_some_and(|s| m.scopes.lookup(s, name).is_some())
}

/// Words around a `{{…}}` that say the text talks about template syntax
/// rather than leaving a value unfilled ("keep the {{name}} placeholders").
const META_WORDS: &[&str] = &[
    "placeholder",
    "template",
    "variable",
    "jinja",
    "handlebars",
    "mustache",
    "syntax",
    "interpolat",
    "preserve",
    "liquid",
    "dbt",
];

/// Whether the line holding byte `at` of `text` talks about template syntax.
fn talks_about_templates(text: &str, at: usize) -> bool {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = text[start..end].to_ascii_lowercase();
    META_WORDS.iter().any(|w| line.contains(w))
}

#[cfg(test)]
mod tests {
    use crate::engine::discover::FileKind;
    use crate::engine::lint_text;
    use crate::project::config::Config;

    fn check(text: &str) -> Vec<String> {
        lint_text(
            "skills/review/SKILL.md",
            FileKind::Skill,
            text.to_string(),
            &Config::default(),
        )
        .into_iter()
        .filter(|d| d.rule == super::META.id)
        .map(|d| d.message)
        .collect()
    }

    const FRONT: &str = "---\nname: review\ndescription: Reviews a change.\n---\n";

    /// A process module whose agent instruction is the string literal
    /// `instruction` (written with its quotes), and the rule's findings.
    fn quoted(instruction: &str) -> (String, Vec<crate::diagnostic::Diagnostic>) {
        let src = format!(
            "import {{ defineTask }} from '@a5c-ai/babysitter-sdk';\n\
             export const t = defineTask('t', (args) => ({{ kind: 'agent', labels: ['t'], agent: {{ name: 'a', prompt: {{ role: 'r', task: 'Do', instructions: [{instruction}] }} }} }}));\n\
             export async function process(inputs, ctx) {{ return ctx.task(t, {{}}, {{ key: 't' }}); }}\n"
        );
        let found = lint_text("p.js", FileKind::Process, src.clone(), &Config::default())
            .into_iter()
            .filter(|d| d.rule == super::META.id)
            .collect();
        (src, found)
    }

    /// The instruction after the finding's fix, or `None` when it offers
    /// none.
    fn fixed(instruction: &str) -> Option<String> {
        let (src, found) = quoted(instruction);
        assert_eq!(found.len(), 1, "{found:#?}");
        let fix = found[0].fix.clone()?;
        assert!(!fix.safe);
        let (out, applied) = crate::engine::fix::apply(&src, &[&fix.edits]);
        assert_eq!(applied, 1);
        let start = out.find("instructions: [")? + "instructions: [".len();
        let end = out[start..].find("] }")? + start;
        Some(out[start..end].to_string())
    }

    #[test]
    fn every_interpolation_is_named_and_the_fix_makes_a_template() {
        let (_, found) = quoted("'Write ${args.team} a plan for ${args.deadline}'");
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(
            found[0].message.contains("(and `${args.deadline}` too)"),
            "{}",
            found[0].message
        );
        assert_eq!(
            fixed("'Write ${args.team} a plan for ${args.deadline}'").as_deref(),
            Some("`Write ${args.team} a plan for ${args.deadline}`")
        );
        assert_eq!(
            fixed("\"Don\\'t miss ${args.team}\"").as_deref(),
            Some("`Don\\'t miss ${args.team}`")
        );
        // A name the scope does not bind would throw once interpolated.
        assert_eq!(fixed("'Write ${args.team} for ${reviewer}'"), None);
        // A backtick or an octal escape changes meaning or fails to parse.
        assert_eq!(fixed("'Run `make` for ${args.team}'"), None);
        assert_eq!(fixed("'Tab\\1 ${args.team}'"), None);
    }

    #[test]
    fn headings_are_read_like_the_body() {
        let found = check(&format!(
            "{FRONT}# Reviewer for {{{{AGENT_NAME}}}}\n\nReview it.\n\nOwner {{{{owner}}}}\n---------\n"
        ));
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(found[0]
            .starts_with("`{{AGENT_NAME}}` is never filled in: a SKILL.md is read as written"));
        assert!(found[1].starts_with("`{{owner}}` is never filled in"));
    }

    #[test]
    fn headings_quoting_or_naming_templates_are_left_alone() {
        let found = check(&format!(
            "{FRONT}# The `{{{{version}}}}` title\n\n## Keep the {{{{date}}}} placeholder\n\nText.\n"
        ));
        assert!(found.is_empty(), "{found:#?}");
    }
}
