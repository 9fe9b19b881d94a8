//! `undefined-reference`: a name no scope of the module binds and that is
//! not a JavaScript or Node.js global. Reading it throws a `ReferenceError`
//! when the line runs; inside a template literal that is usually a shell
//! variable (`${i}`) that JavaScript interpolated (babysitter #83).

use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::js::syntax::tree::Node;

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::{Edit, Fix, Severity};
use crate::js::syntax::span;
use crate::js::JsModel;
use crate::project::config::Config;
use crate::source::names::distance_within;
use crate::source::Span;

pub struct UndefinedReference;

const ID: &str = "undefined-reference";

/// `[rules.undefined-reference] globals = ["myGlobal"]` for names a harness
/// injects.
const GLOBALS: &str = "globals";

static META: RuleMeta = RuleMeta {
    id: ID,
    summary:
        "A name that no scope binds and that is not a global: reading it throws a ReferenceError.",
    severity: Severity::Error,
    area: Area::RuntimeCorrectness,
    category: Category::Correctness,
    doc: include_str!("../../rules/undefined-reference.md"),
    builtin: false,
    options: &[GLOBALS],
    fix: crate::rules::FixAvailability::Sometimes,
};

impl Rule for UndefinedReference {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::ProcessModules,
            praise: "Every name the modules read is defined",
            sdk_hint: "A process that throws a ReferenceError fails only when the run reaches the line. Validating a process module (e.g. `node --check` plus an undefined-name pass) at `run:create` would stop it before any effect runs.",
        }
    }

    fn validate_options(&self, options: &toml::Table) -> Result<(), String> {
        crate::rules::validate_string_list(options, GLOBALS, "[\"myGlobal\"]")
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let extra = configured_globals(cx.config);
        let found = crate::js::analysis::undefined::undefined_names(m)
            .into_iter()
            .filter(|u| !extra.contains(u.name));
        let mut candidates: Option<Candidates> = None;
        // One finding per name, at its first use.
        for undefined in found {
            let (name, nodes) = (undefined.name, &undefined.uses);
            let Some(&first) = nodes.first() else {
                continue;
            };
            let more = nodes.len() - 1;
            let also = match more {
                0 => String::new(),
                1 => " (and 1 more use)".to_string(),
                n => format!(" (and {n} more uses)"),
            };
            let template = enclosing_template(first);
            let shell = template.filter(|t| looks_like_shell(m, *t));
            if let (Some(t), Some(subst)) = (shell, first.parent()) {
                let d = sink
                    .diag(
                        span(subst),
                        format!(
                            "`${{{name}}}` in this template literal is JavaScript interpolation, not a \
                             shell variable: `{name}` is not defined, so building the string throws a \
                             ReferenceError{also}"
                        ),
                    )
                    .with_help(format!(
                        "escape it so the shell sees it: `\\${{{name}}}`{}",
                        if in_command(m, t) { "" } else { " (or pass the value in as an argument)" }
                    ));
                let fix = escape_fix(m.src(), nodes, t);
                sink.push(match fix {
                    Some(f) => d.with_fix(f),
                    None => d,
                });
                continue;
            }
            let hint = match candidates
                .get_or_insert_with(|| Candidates::of(m))
                .suggestion(name)
            {
                Some(s) => format!("did you mean `{s}`? Otherwise declare or import `{name}`"),
                None => format!("declare or import `{name}`, or pass it in as an argument"),
            };
            let place = if template.is_some() {
                " inside a template literal"
            } else {
                ""
            };
            // `x = …` without a declaration: only ES modules get here (see
            // `js::analysis::undefined`), where strict mode makes it throw too.
            let assigned = first.parent().is_some_and(|p| {
                matches!(
                    p.kind_str(),
                    "assignment_expression" | "augmented_assignment_expression"
                ) && p.field("left").is_some_and(|l| l.id() == first.id())
            });
            let verb = if assigned { "assigning to" } else { "reading" };
            // Agent-edited processes often read a `const` after the block
            // that declared it has ended: say so, and point at it. Only a
            // declaration before the use counts (a scope that started
            // before the use and does not enclose it has ended); a
            // parameter elsewhere is another variable, and a typo's "did
            // you mean" says more.
            let d = match undefined.declared {
                Some(declared) => sink
                    .diag(
                        span(first),
                        format!(
                            "`{name}` is declared in this module only in a scope that does not \
                             enclose this use (a block or function that has ended): {verb} it{place} \
                             throws a ReferenceError when the line runs{also}"
                        ),
                    )
                    .with_related(sink.location(span(declared)), "declared here")
                    .with_help(format!(
                        "declare `{name}` where this use can see it (e.g. `let {name};` before the \
                         block that declares it now), or pass it in as an argument"
                    )),
                None => sink
                    .diag(
                        span(first),
                        format!(
                            "`{name}` is not defined in this module or as a JavaScript or Node.js \
                             global: {verb} it{place} throws a ReferenceError when the line runs{also}"
                        ),
                    )
                    .with_help(hint),
            };
            sink.push(d);
        }
    }
}

fn configured_globals(config: &Config) -> HashSet<String> {
    crate::rules::string_list(config, ID, GLOBALS)
        .into_iter()
        .collect()
}

/// The template literal whose `${…}` holds `node` directly (the
/// substitution's expression is the identifier itself).
fn enclosing_template<'t>(node: Node<'t>) -> Option<Node<'t>> {
    let subst = node.parent()?;
    if subst.kind_str() != "template_substitution" {
        return None;
    }
    subst.parent().filter(|t| t.kind_str() == "template_string")
}

/// Whether a template literal reads as a shell script: a `for … in …; do` /
/// `done` / `$(…)` / `then … fi` in its text, or it is a shell task's
/// `command`.
fn looks_like_shell(m: &JsModel, template: Node) -> bool {
    if in_command(m, template) {
        return true;
    }
    let text = m.text(template);
    let words = [
        "; do", ";do", "\ndo\n", " do\n", "done", "$(", "; then", "\nfi", " fi;", "esac", "$((",
    ];
    words.iter().any(|w| text.contains(w)) || text.contains("$(") || shell_env_style(text)
}

/// `"$OUT_DIR/…"`: a `$NAME` written without braces nearby says the text is
/// shell.
fn shell_env_style(text: &str) -> bool {
    let b = text.as_bytes();
    b.windows(2).enumerate().any(|(i, w)| {
        w[0] == b'$'
            && w[1].is_ascii_uppercase()
            && (i == 0 || b[i - 1] != b'\\')
            && b.get(i + 2)
                .is_some_and(|c| c.is_ascii_uppercase() || *c == b'_')
    })
}

/// Whether the template is the value of a `command:` property (a shell
/// task's command) or is passed to `execSync`/`exec`/`spawn`.
fn in_command(m: &JsModel, template: Node) -> bool {
    let Some(p) = template.parent() else {
        return false;
    };
    match p.kind_str() {
        "pair" => p.field("key").is_some_and(|k| {
            matches!(
                m.text(k).trim_matches(['"', '\'']),
                "command" | "script" | "cmd"
            )
        }),
        "arguments" => p
            .parent()
            .and_then(|c| c.field("function"))
            .is_some_and(|f| {
                let t = m.text(f);
                let last = t.rsplit('.').next().unwrap_or(t);
                matches!(
                    last,
                    "execSync" | "exec" | "spawnSync" | "spawn" | "execa" | "$"
                )
            }),
        _ => false,
    }
}

/// Escaping every use of the name in the template (`${f}` → `\${f}`) is
/// what the shell author meant; safe because the string could not be built
/// before.
fn escape_fix(src: &str, nodes: &[Node], template: Node) -> Option<Fix> {
    let mut edits = Vec::new();
    for n in nodes {
        let subst = n.parent()?;
        if subst.parent().map(|t| t.id()) != Some(template.id()) {
            continue;
        }
        let s = span(subst);
        // Escaping makes everything up to the `}` template text: offered
        // only for a plain name or dotted path (`${HOME}`, `${env.USER}`).
        // Text inside that is code — a comment holding a backtick, a string
        // — would end the template there and turn what follows into code.
        let inner = src
            .get(s.start + 2..s.end.saturating_sub(1))
            .map(str::trim)
            .unwrap_or("");
        let plain = !inner.is_empty()
            && inner.split('.').all(|part| {
                part.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
                    && part
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
            });
        if !plain {
            return None;
        }
        edits.push(Edit {
            span: Span::new(s.start, s.start),
            replacement: "\\".to_string(),
        });
    }
    (!edits.is_empty()).then(|| Fix {
        description: "escape the shell variable (`\\${…}`)".to_string(),
        edits,
        safe: true,
    })
}

/// How much comparing one module's "did you mean" may do, in cells of the
/// distance table (a pair of names costs the product of their lengths): a
/// module of tens of thousands of undefined names and bindings, or of long
/// names, would otherwise compare every pair in full. Past it, a name gets
/// the help without a guess.
const SUGGESTION_BUDGET: usize = 400_000_000;

/// The module's binding names, each once, by length in chars: a typo is
/// at most two edits away, so only names of about the same length are
/// compared.
struct Candidates<'m> {
    by_len: BTreeMap<usize, Vec<(&'m str, Vec<char>)>>,
    budget: usize,
}

impl<'m> Candidates<'m> {
    fn of(m: &'m JsModel) -> Self {
        let names: BTreeSet<&str> = m
            .scopes
            .bindings
            .iter()
            .map(|b| &*b.name)
            .filter(|n| n.len() >= 2)
            .collect();
        let mut by_len: BTreeMap<usize, Vec<(&str, Vec<char>)>> = BTreeMap::new();
        for n in names {
            let chars: Vec<char> = n.chars().collect();
            by_len.entry(chars.len()).or_default().push((n, chars));
        }
        Candidates {
            by_len,
            budget: SUGGESTION_BUDGET,
        }
    }

    /// A binding with a name close to `name` (a typo): the nearest, ties to
    /// the first by name.
    fn suggestion(&mut self, name: &str) -> Option<String> {
        let chars: Vec<char> = name.chars().collect();
        let limit = (chars.len() / 3).clamp(1, 2);
        let mut best: Option<(usize, &str)> = None;
        let range = chars.len().saturating_sub(limit)..=chars.len() + limit;
        for bucket in self.by_len.range(range).map(|(_, v)| v) {
            for (candidate, cchars) in bucket {
                if *candidate == name {
                    continue;
                }
                let cost = chars.len().max(1) * cchars.len().max(1);
                if self.budget < cost {
                    self.budget = 0;
                    return None;
                }
                self.budget -= cost;
                if let Some(d) = distance_within(&chars, cchars, limit) {
                    if best.is_none_or(|(bd, bn)| d < bd || d == bd && *candidate < bn) {
                        best = Some((d, candidate));
                    }
                }
            }
        }
        best.map(|(_, n)| n.to_string())
    }
}
