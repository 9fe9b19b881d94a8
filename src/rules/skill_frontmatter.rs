//! `skill-frontmatter`: a SKILL.md whose frontmatter agents cannot use to discover it.
//!
//! The checks follow the Agent Skills format as the reference validator (`skills-ref`)
//! implements it, so that under `skill-spec = "agentskills"` an error here means exactly
//! "`agentskills validate` rejects this skill". Findings the validator does not make
//! (metadata shape under `agentskills`, keys unknown to both specs under `claude-code`)
//! are warnings.
//!
//! Under `claude-code` an unknown key is one decision for the project (declare it in
//! `extra-keys`, or rename it), not one per file: the warnings for the same key are merged
//! into the first file's after every file is checked ([`Rule::merge_across_files`]), so
//! the per-file results the cache keeps stay complete.

use std::collections::HashMap;
use std::path::Path;

use super::{Area, Category, MergeContext, ReportMeta, Rule, RuleMeta, Sink, Sites, SkillContext};
use crate::diagnostic::{Diagnostic, Edit, Fix, Severity};
use crate::markdown::yaml::{YamlError, YamlNode, YamlValue};
use crate::markdown::Frontmatter;
use crate::source::names::nearest;
use crate::source::Span;

pub struct SkillFrontmatter;

static META: RuleMeta = RuleMeta {
    id: "skill-frontmatter",
    summary: "A SKILL.md frontmatter is missing, invalid, or breaks the Agent Skills format.",
    severity: Severity::Error,
    area: Area::SkillHygiene,
    category: Category::Correctness,
    doc: include_str!("../../rules/skill-frontmatter.md"),
    builtin: false,
    options: &["skill-spec", "extra-keys"],
    fix: crate::rules::FixAvailability::Sometimes,
};

const MAX_NAME: usize = 64;
const MAX_DESCRIPTION: usize = 1024;
const MAX_COMPATIBILITY: usize = 500;

/// Fields of the Agent Skills specification.
const AGENTSKILLS_FIELDS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// Extra fields Claude Code documents for a skill's frontmatter (its skills reference).
const CLAUDE_CODE_FIELDS: &[&str] = &[
    "when_to_use",
    "argument-hint",
    "arguments",
    "disable-model-invocation",
    "user-invocable",
    "disallowed-tools",
    "model",
    "effort",
    "context",
    "agent",
    "hooks",
    "paths",
    "shell",
];

/// Fields the babysitter SDK's own skill discovery reads besides `name` and `description`
/// (`cli/commands/skill/discoveryLocal.ts`: `category`, falling back to `domain`).
const BABYSITTER_FIELDS: &[&str] = &["category", "domain"];

/// How an unknown-key warning starts under `claude-code`; the warnings for one key are
/// merged across files by this text.
const UNKNOWN_KEY: &str = "unknown frontmatter field `";
const UNKNOWN_KEY_REST: &str =
    "`: neither the Agent Skills format, Claude Code nor the babysitter SDK's skill discovery reads it";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SkillSpec {
    /// The open Agent Skills format, as `agentskills validate` checks it.
    AgentSkills,
    /// Agent Skills plus the keys Claude Code understands.
    ClaudeCode,
}

/// `extra-keys`: frontmatter keys the project's own tooling reads.
fn extra_keys(table: Option<&toml::Table>) -> Result<Vec<String>, String> {
    let Some(v) = table.and_then(|t| t.get("extra-keys")) else {
        return Ok(Vec::new());
    };
    let bad = || format!("`extra-keys` must be a list of key names, such as [\"graph\"], not {v}");
    let items = v.as_array().ok_or_else(bad)?;
    items
        .iter()
        .map(|item| match item.as_str() {
            Some(k) if !k.trim().is_empty() => Ok(k.to_string()),
            _ => Err(bad()),
        })
        .collect()
}

fn skill_spec(table: Option<&toml::Table>) -> Result<SkillSpec, String> {
    match table.and_then(|t| t.get("skill-spec")) {
        None => Ok(SkillSpec::ClaudeCode),
        Some(v) => match v.as_str() {
            Some("agentskills") => Ok(SkillSpec::AgentSkills),
            Some("claude-code") => Ok(SkillSpec::ClaudeCode),
            _ => Err(format!(
                "`skill-spec` must be \"agentskills\" or \"claude-code\", not {v}"
            )),
        },
    }
}

impl Rule for SkillFrontmatter {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::SkillFiles,
            praise: "Every SKILL.md has valid frontmatter",
            sdk_hint: "",
        }
    }

    fn validate_options(&self, table: &toml::Table) -> Result<(), String> {
        skill_spec(Some(table))?;
        extra_keys(Some(table)).map(|_| ())
    }

    fn merges_across_files(&self) -> bool {
        true
    }

    fn merge_across_files(&self, found: Vec<Diagnostic>, cx: &MergeContext) -> Vec<Diagnostic> {
        let options = cx.config.rule_options.get(META.id);
        if skill_spec(options).unwrap_or(SkillSpec::ClaudeCode) != SkillSpec::ClaudeCode {
            // Under `agentskills` the reference validator rejects each file.
            return found;
        }
        merge_unknown_keys(found)
    }

    fn check_skill(&self, cx: &SkillContext, sink: &mut Sink) {
        if !cx.is_skill_file() {
            return;
        }
        let options = cx.config.rule_options.get(META.id);
        let spec = skill_spec(options).unwrap_or(SkillSpec::ClaudeCode);
        let extra = extra_keys(options).unwrap_or_default();
        let text = &cx.file.text;
        let first_line = Span::new(0, text.find(['\n', '\r']).unwrap_or(text.len()));
        let block = match &cx.skill.frontmatter {
            Frontmatter::Missing => {
                sink.push(
                    sink.diag(
                        first_line,
                        "SKILL.md has no YAML frontmatter: agents discover a skill by the `name` and `description` in a leading `---` block",
                    )
                    .with_help("start the file with a `---` line, `name: <folder-name>`, `description: <what the skill does and when to use it>` and a closing `---` line"),
                );
                return;
            }
            Frontmatter::Unclosed { open } => {
                sink.push(
                    sink.diag(
                        Span::new(open.start, open.end),
                        "the frontmatter opened here is never closed with a `---` line",
                    )
                    .with_help("add a line `---` after the last frontmatter field"),
                );
                return;
            }
            Frontmatter::Present(block) => block,
        };
        let fence = Span::new(block.span.start, block.span.start + 3);
        let yaml = match &block.yaml {
            Ok(yaml) => yaml,
            Err(e) => {
                let d = match &block.runs_into_body {
                    Some(body) => runs_into_body(sink, e, body, block.span.clone(), text),
                    None => yaml_error(sink, e, block.yaml_span.start, text),
                };
                sink.push(d);
                return;
            }
        };
        let Some(entries) = yaml.entries() else {
            let what = yaml.value.type_name();
            sink.push(sink.diag(
                fence,
                format!("the frontmatter is {what}, not a mapping of fields such as `name` and `description`"),
            ));
            return;
        };
        let mut checker = Checker {
            sink,
            text,
            spec,
            extra: &extra,
            fence,
            path: Path::new(&*cx.file.path),
        };
        if spec == SkillSpec::AgentSkills {
            checker.flow_style(yaml);
        }
        checker.fields(entries);
    }
}

fn yaml_error(
    sink: &Sink,
    e: &YamlError,
    yaml_start: usize,
    text: &str,
) -> crate::diagnostic::Diagnostic {
    let at = e.offset.unwrap_or(yaml_start).min(text.len());
    let end = text
        .get(at..)
        .and_then(|rest| rest.chars().next())
        .map_or(at, |c| at + c.len_utf8());
    sink.diag(
        Span::new(at, end),
        format!("invalid YAML in the frontmatter: {}", e.message),
    )
    .with_help(
        "the Agent Skills reference validator rejects this skill, and agents that read the frontmatter as YAML skip it; fix the YAML at this position",
    )
}

/// The closing `---` is missing after the fields: the block ran on into the body up to a
/// later `---` line, and the body is not YAML.
fn runs_into_body(
    sink: &Sink,
    e: &YamlError,
    body: &std::ops::Range<usize>,
    block: std::ops::Range<usize>,
    text: &str,
) -> crate::diagnostic::Diagnostic {
    // The closing fence is the block's last line.
    let fence_end = text
        .get(..block.end)
        .map_or(block.end, |t| t.trim_end_matches(['\n', '\r']).len());
    let fence_start = text
        .get(..fence_end)
        .and_then(|t| t.rfind(['\n', '\r']))
        .map_or(block.start, |at| at + 1);
    let fence_line = sink.location(Span::new(fence_start, fence_end)).start.line;
    sink.diag(
        Span::new(body.start, body.end),
        format!(
            "the frontmatter is not closed after its fields: with no `---` line after them it runs on to the `---` at line {fence_line}, and the text from here on, read as YAML, does not parse ({})",
            e.message
        ),
    )
    .with_help(
        "end the frontmatter with a `---` line after its last field, before the body: until then \
         the reference validator rejects the skill, and agents that read the frontmatter as YAML \
         get no `name` or `description` from it",
    )
}

struct Checker<'s, 'a, 'p> {
    sink: &'s mut Sink<'a>,
    text: &'p str,
    spec: SkillSpec,
    extra: &'p [String],
    fence: Span,
    path: &'p Path,
}

fn span_of(node: &YamlNode) -> Span {
    Span::new(node.span.start, node.span.end)
}

/// The value's span, or the key's when the value has no text of its own (`description:`).
fn value_span(key: &YamlNode, value: &YamlNode) -> Span {
    if value.span.is_empty() {
        span_of(key)
    } else {
        span_of(value)
    }
}

impl Checker<'_, '_, '_> {
    fn error(&mut self, span: Span, message: String, help: Option<&str>) {
        let mut d = self.sink.diag_at(Severity::Error, span, message);
        if let Some(h) = help {
            d = d.with_help(h);
        }
        self.sink.push(d);
    }

    fn warning(&mut self, span: Span, message: String, help: Option<&str>) {
        let mut d = self.sink.diag_at(Severity::Warning, span, message);
        if let Some(h) = help {
            d = d.with_help(h);
        }
        self.sink.push(d);
    }

    /// The reference validator reads frontmatter with strictyaml, which rejects `[a, b]` and
    /// `{k: v}` collections.
    fn flow_style(&mut self, node: &YamlNode) {
        let children: Vec<&YamlNode> = match &node.value {
            YamlValue::Seq(items) => items.iter().collect(),
            YamlValue::Map(entries) => entries.iter().map(|(_, v)| v).collect(),
            _ => return,
        };
        for child in children {
            let is_flow = matches!(child.value, YamlValue::Seq(_) | YamlValue::Map(_))
                && self.starts_with_bracket(child);
            if is_flow {
                self.error(
                    span_of(child),
                    "flow-style YAML (`[…]` or `{…}`) is rejected by the Agent Skills reference validator".to_string(),
                    Some("write the collection in block style, one item per line"),
                );
            } else {
                self.flow_style(child);
            }
        }
    }

    fn starts_with_bracket(&self, node: &YamlNode) -> bool {
        self.text
            .get(node.span.clone())
            .is_some_and(|t| t.starts_with(['[', '{']))
    }

    /// The text of a field that must be a string. Under `agentskills` every scalar counts,
    /// as strictyaml reads `123` as the string "123"; under `claude-code` the YAML type matters.
    fn string_field(&mut self, key: &str, key_node: &YamlNode, node: &YamlNode) -> Option<String> {
        let text = match (&node.value, self.spec) {
            (YamlValue::String(s), _) => Some(s.clone()),
            // `key:` with nothing after it: strictyaml reads "", js-yaml null; either way empty.
            (YamlValue::Null, _) => Some(String::new()),
            (v, SkillSpec::AgentSkills) => v.scalar_text(),
            _ => None,
        };
        if text.is_none() {
            let found = node.value.type_name();
            let span = value_span(key_node, node);
            self.error(
                span,
                format!("`{key}` must be a non-empty string, found {found}"),
                None,
            );
        }
        text
    }

    fn fields(&mut self, entries: &[(YamlNode, YamlNode)]) {
        let get = |name: &str| {
            entries
                .iter()
                .find(|(k, _)| k.value.scalar_text().as_deref() == Some(name))
        };
        self.unknown_fields(entries);

        match get("name") {
            None => {
                let mut d = self.sink.diag_at(
                    Severity::Error,
                    self.fence,
                    "the frontmatter has no `name`: the babysitter SDK's skill discovery skips this skill, and the Agent Skills format requires one",
                ).with_help("add `name: <folder-name>` (lowercase letters, digits and hyphens)");
                if let Some(fix) = self.name_fix(entries) {
                    d = d.with_fix(fix);
                }
                self.sink.push(d);
            }
            Some((key, value)) => self.name(key, value),
        }
        match get("description") {
            None => self.error(
                self.fence,
                "the frontmatter has no `description`: agents decide when to use a skill from it"
                    .to_string(),
                Some("add `description:` saying what the skill does and when to use it"),
            ),
            Some((key, value)) => self.description(key, value),
        }
        if let Some((key, value)) = get("compatibility") {
            if let Some(text) = self.string_field("compatibility", key, value) {
                let n = text.chars().count();
                if n > MAX_COMPATIBILITY {
                    self.error(
                        span_of(value),
                        format!("`compatibility` is {n} characters, over the {MAX_COMPATIBILITY}-character limit"),
                        None,
                    );
                }
            }
        }
        // The format asks for string values, but neither Claude Code nor the babysitter
        // SDK reads `metadata`: only a project that targets the format is told.
        if let Some((key, value)) = get("metadata").filter(|_| self.spec == SkillSpec::AgentSkills)
        {
            self.metadata(key, value);
        }
    }

    fn unknown_fields(&mut self, entries: &[(YamlNode, YamlNode)]) {
        let mut body_text_seen = false;
        for (key, _) in entries {
            let name = key.value.scalar_text().unwrap_or_default();
            if AGENTSKILLS_FIELDS.contains(&name.as_str()) {
                continue;
            }
            // Body lines left inside an unclosed-looking frontmatter read as one key each:
            // one finding says it under `claude-code`.
            let body_text = name.contains(char::is_whitespace);
            if body_text && body_text_seen && self.spec == SkillSpec::ClaudeCode {
                continue;
            }
            body_text_seen |= body_text;
            let claude = CLAUDE_CODE_FIELDS.contains(&name.as_str());
            let babysitter = BABYSITTER_FIELDS.contains(&name.as_str());
            match self.spec {
                SkillSpec::AgentSkills => {
                    let extra = if claude {
                        " (Claude Code reads it; set skill-spec = \"claude-code\" to allow its keys)"
                    } else if babysitter {
                        " (the babysitter SDK's skill discovery reads it; set skill-spec = \"claude-code\" to allow it)"
                    } else {
                        ""
                    };
                    self.error(
                        span_of(key),
                        format!("unknown frontmatter field `{name}`: the Agent Skills format allows only name, description, license, compatibility, metadata and allowed-tools{extra}"),
                        Some("move custom data under `metadata:`"),
                    );
                }
                SkillSpec::ClaudeCode if !claude && !babysitter && !self.extra.contains(&name) => {
                    let known: Vec<&str> = AGENTSKILLS_FIELDS
                        .iter()
                        .chain(CLAUDE_CODE_FIELDS)
                        .chain(BABYSITTER_FIELDS)
                        .copied()
                        .collect();
                    let message = format!("{UNKNOWN_KEY}{name}{UNKNOWN_KEY_REST}");
                    let declare = format!(
                        "if your own tooling reads it, declare it in proclint.toml (`extra-keys = [\"{name}\"]` under `[rules.skill-frontmatter]`)"
                    );
                    if body_text {
                        self.warning(
                            span_of(key),
                            message,
                            Some("a key with spaces is usually body text left inside the frontmatter: end the frontmatter with a `---` line before it"),
                        );
                    } else if let Some(near) = meant_key(&name, &known) {
                        // A misspelt known key: what it sets is lost.
                        self.warning(
                            span_of(key),
                            message,
                            Some(&format!("did you mean `{near}`? Otherwise, {declare}")),
                        );
                    } else {
                        // The skill's own metadata (`id`, `slug`, `status`):
                        // ignored, and nothing is lost by that.
                        let d = self
                            .sink
                            .diag_at(Severity::Info, span_of(key), message)
                            .with_help(format!(
                                "nothing to do if it is metadata of your own; {declare}, or move it under `metadata:`"
                            ));
                        self.sink.push(d);
                    }
                }
                SkillSpec::ClaudeCode => {}
            }
        }
    }

    fn name(&mut self, key: &YamlNode, value: &YamlNode) {
        let Some(raw) = self.string_field("name", key, value) else {
            return;
        };
        let name = raw.trim();
        let span = value_span(key, value);
        if name.is_empty() {
            self.error(
                span,
                "`name` is empty: the babysitter SDK's skill discovery skips this skill, and the Agent Skills format requires one".to_string(),
                None,
            );
            return;
        }
        // Nothing under `claude-code` depends on the name's format: the
        // babysitter SDK's skill discovery needs a non-empty name and uses it
        // as it is (`discoveryLocal.ts` reads it, lists it and dedupes by it),
        // and Claude Code documents the format without saying it rejects
        // anything else. Only the Agent Skills reference validator does.
        if self.spec != SkillSpec::AgentSkills {
            return;
        }
        let len = name.chars().count();
        if len > MAX_NAME {
            self.error(
                span,
                format!("`name` is {len} characters, over the {MAX_NAME}-character limit: the Agent Skills reference validator rejects it"),
                None,
            );
        }
        let problems = name_problems(name);
        if !problems.is_empty() {
            self.error(
                span,
                format!(
                    "`name: {name}` {}: the Agent Skills reference validator rejects it",
                    problems.join(", ")
                ),
                Some("use lowercase letters, digits and single hyphens, e.g. `pdf-tools`"),
            );
        }
        // Claude Code lists a skill by its `name` wherever it lives; only the Agent
        // Skills format requires the folder to match.
        if let Some(folder) = folder_name(self.path) {
            if folder != name {
                self.error(
                    span,
                    format!("`name: {name}` does not match the skill's folder `{folder}`"),
                    Some("rename the folder or the skill so they are the same"),
                );
            }
        }
    }

    /// `name: <folder>` as the frontmatter's first line, when the folder's
    /// name is one the Agent Skills format accepts (so the fix leaves no
    /// finding of its own) and the fields are a block mapping starting on
    /// the line after the fence (a line inserted before a flow mapping
    /// would break the YAML).
    fn name_fix(&self, entries: &[(YamlNode, YamlNode)]) -> Option<Fix> {
        let folder = folder_name(self.path)?;
        if folder.is_empty()
            || folder.chars().count() > MAX_NAME
            || !name_problems(&folder).is_empty()
        {
            return None;
        }
        let (first_key, _) = entries.first()?;
        let at = first_key.span.start;
        let fence_line_end =
            self.fence.end + self.text.get(self.fence.end..)?.find(['\n', '\r'])?;
        let line_start = fence_line_end + crate::source::break_len(self.text, fence_line_end);
        let between = self.text.get(line_start..at)?;
        // Only blank or comment lines between the fence and the first key,
        // which starts its line.
        if !between.is_empty() && !between.ends_with(['\n', '\r']) {
            return None;
        }
        if !between
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
        {
            return None;
        }
        let newline = &self.text[fence_line_end..line_start];
        // `123`, `1e3`, `0x1f`, `true` or `null` unquoted would be read as
        // a number, a boolean or null by a YAML 1.2 reader such as js-yaml.
        let value = if reads_as_string(&folder) {
            folder.clone()
        } else {
            format!("\"{folder}\"")
        };
        Some(Fix {
            description: format!("add `name: {value}`, the skill's folder"),
            edits: vec![Edit {
                span: Span::new(line_start, line_start),
                replacement: format!("name: {value}{newline}"),
            }],
            safe: false,
        })
    }

    fn description(&mut self, key: &YamlNode, value: &YamlNode) {
        let Some(text) = self.string_field("description", key, value) else {
            return;
        };
        let span = value_span(key, value);
        if text.trim().is_empty() {
            self.error(
                span,
                "`description` is empty: agents decide when to use a skill from it".to_string(),
                None,
            );
            return;
        }
        let n = text.chars().count();
        if n > MAX_DESCRIPTION {
            self.error(
                span,
                format!("`description` is {n} characters, over the {MAX_DESCRIPTION}-character limit"),
                Some("keep the description to what the skill does and when to use it; move detail into the body"),
            );
        }
    }

    /// `metadata` should map strings to strings. The reference validator does not check it,
    /// so this is a warning.
    fn metadata(&mut self, key: &YamlNode, value: &YamlNode) {
        match &value.value {
            YamlValue::Map(entries) => {
                for (k, v) in entries {
                    if matches!(
                        v.value,
                        YamlValue::Seq(_) | YamlValue::Map(_) | YamlValue::Null
                    ) {
                        let name = k.value.scalar_text().unwrap_or_default();
                        self.warning(
                            value_span(k, v),
                            format!(
                                "`metadata.{name}` is {}; metadata values should be strings",
                                v.value.type_name()
                            ),
                            None,
                        );
                    }
                }
            }
            other => {
                let span = value_span(key, value);
                self.warning(
                    span,
                    format!(
                        "`metadata` is {}; it should be a mapping of string keys to string values",
                        other.type_name()
                    ),
                    None,
                );
            }
        }
    }
}

/// Keys written for a known key under another name: `tools` is a
/// subagent's field; a skill's is `allowed-tools`.
const KEY_ALIASES: &[(&str, &str)] = &[("tools", "allowed-tools"), ("desc", "description")];

/// The known key an unknown one was meant to be: an alias, or a near miss
/// of a name long enough for a near miss to mean a typo (`mode` is a word
/// of its own, not `model` misspelt).
fn meant_key<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    if let Some((_, target)) = KEY_ALIASES.iter().find(|(a, _)| *a == name) {
        return known.iter().find(|k| *k == target).copied();
    }
    if name.chars().count() < 5 {
        return None;
    }
    nearest(name, known)
}

/// One warning per unknown key under `claude-code`: the first file's (the list is in
/// output order, so by path), saying how many other files have the key too.
fn merge_unknown_keys(found: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut first: HashMap<String, usize> = HashMap::new();
    let mut others: Vec<usize> = Vec::new();
    let mut out: Vec<Diagnostic> = Vec::with_capacity(found.len());
    for d in found {
        if d.message.starts_with(UNKNOWN_KEY) && d.message.ends_with(UNKNOWN_KEY_REST) {
            if let Some(&at) = first.get(&d.message) {
                others[at] += 1;
                continue;
            }
            first.insert(d.message.clone(), out.len());
        }
        others.push(0);
        out.push(d);
    }
    for (d, n) in out.iter_mut().zip(others) {
        if n > 0 {
            let files = if n == 1 { "file" } else { "files" };
            if let Some(key) = d.message.strip_suffix(UNKNOWN_KEY_REST) {
                d.message = format!(
                    "{key}` (here and in {n} other SKILL.md {files}){}",
                    &UNKNOWN_KEY_REST[1..]
                );
            }
        }
    }
    out
}

/// A valid skill name (lowercase letters, digits, inner hyphens) that a
/// YAML 1.2 core-schema reader takes as a string when unquoted: not
/// `true`/`false`/`null`, nor an integer (`123`, `0x1f`, `0o17`) or a
/// float in exponent form (`1e3`).
fn reads_as_string(name: &str) -> bool {
    let digits = |t: &str, radix: u32| !t.is_empty() && t.chars().all(|c| c.is_digit(radix));
    let number = digits(name, 10)
        || name.strip_prefix("0x").is_some_and(|t| digits(t, 16))
        || name.strip_prefix("0o").is_some_and(|t| digits(t, 8))
        || name
            .split_once('e')
            .is_some_and(|(m, e)| digits(m, 10) && digits(e.strip_prefix('-').unwrap_or(e), 10));
    !number && !matches!(name, "true" | "false" | "null")
}

/// What the Agent Skills reference validator rejects in a name (its length
/// aside).
fn name_problems(name: &str) -> Vec<&'static str> {
    let mut problems = Vec::new();
    if name.to_lowercase() != name {
        problems.push("must be lowercase");
    }
    if name.starts_with('-') || name.ends_with('-') {
        problems.push("cannot start or end with a hyphen");
    }
    if name.contains("--") {
        problems.push("cannot contain `--`");
    }
    if !name.chars().all(|c| c.is_alphanumeric() || c == '-') {
        problems.push("may contain only letters, digits and hyphens");
    }
    problems
}

/// The folder holding the SKILL.md, resolving `SKILL.md` given without a directory.
fn folder_name(path: &Path) -> Option<String> {
    let parent = path.parent()?;
    let named = parent
        .file_name()
        .and_then(|n| n.to_str())
        .map(str::to_string);
    named.or_else(|| {
        std::fs::canonicalize(path)
            .ok()?
            .parent()?
            .file_name()?
            .to_str()
            .map(str::to_string)
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::engine::discover::FileKind;
    use crate::engine::lint_text;
    use crate::project::config::Config;

    fn config(spec: &str) -> Config {
        let text = format!("[rules.skill-frontmatter]\nskill-spec = \"{spec}\"\n");
        Config::parse(
            &text,
            Path::new("proclint.toml"),
            ".".into(),
            &crate::rules::Registry,
        )
        .unwrap()
    }

    fn check(path: &str, text: &str, config: &Config) -> Vec<(Severity, String)> {
        lint_text(path, FileKind::Skill, text.to_string(), config)
            .into_iter()
            .filter(|d| d.rule == META.id)
            .map(|d| (d.severity, d.message))
            .collect()
    }

    fn fixed(path: &str, text: &str) -> Option<String> {
        let found = lint_text(path, FileKind::Skill, text.to_string(), &Config::default());
        let d = found.iter().find(|d| d.message.contains("has no `name`"))?;
        let edits: &[Edit] = &d.fix.as_ref()?.edits;
        Some(crate::engine::fix::apply(text, &[edits]).0)
    }

    #[test]
    fn a_missing_name_is_the_folder_s_when_that_is_a_valid_name() {
        let text = "---\ndescription: Fill PDF forms.\n---\n# PDF\n";
        let out = fixed("skills/pdf-tools/SKILL.md", text).unwrap();
        assert_eq!(
            out,
            "---\nname: pdf-tools\ndescription: Fill PDF forms.\n---\n# PDF\n"
        );
        assert!(check("skills/pdf-tools/SKILL.md", &out, &config("agentskills")).is_empty());
        let crlf = text.replace('\n', "\r\n");
        assert_eq!(
            fixed("skills/pdf-tools/SKILL.md", &crlf).unwrap(),
            out.replace('\n', "\r\n")
        );
        let commented = "---\n# a comment\n\ndescription: d\n---\n";
        assert_eq!(
            fixed("s/pdf/SKILL.md", commented).unwrap(),
            "---\nname: pdf\n# a comment\n\ndescription: d\n---\n"
        );
        assert_eq!(
            fixed("s/1e3/SKILL.md", text).unwrap(),
            "---\nname: \"1e3\"\ndescription: Fill PDF forms.\n---\n# PDF\n"
        );
        // A folder name the format rejects, a flow mapping: no fix.
        for (path, text) in [
            ("s/PDF_Tools/SKILL.md", text),
            ("s/pdf--tools/SKILL.md", text),
            ("s/pdf/SKILL.md", "---\n{description: d}\n---\n"),
        ] {
            let found = lint_text(path, FileKind::Skill, text.to_string(), &Config::default());
            assert!(
                found.iter().any(|d| d.message.contains("has no `name`")),
                "{path}: {found:#?}"
            );
            assert_eq!(fixed(path, text), None, "{path}");
        }
    }

    #[test]
    fn valid_skill_passes_both_specs() {
        let text = "---\nname: pdf-tools\ndescription: Fill PDF forms.\nlicense: MIT\nmetadata:\n  author: me\n---\n# PDF\n";
        assert!(check("skills/pdf-tools/SKILL.md", text, &config("agentskills")).is_empty());
        assert!(check("skills/pdf-tools/SKILL.md", text, &Config::default()).is_empty());
    }

    #[test]
    fn other_markdown_files_are_not_skills() {
        assert!(check(
            "skills/pdf-tools/README.md",
            "# no frontmatter\n",
            &Config::default()
        )
        .is_empty());
    }

    #[test]
    fn meant_keys() {
        let known = ["name", "description", "allowed-tools", "model"];
        assert_eq!(super::meant_key("tools", &known), Some("allowed-tools"));
        assert_eq!(super::meant_key("descripton", &known), Some("description"));
        assert_eq!(super::meant_key("mode", &known), None);
        assert_eq!(super::meant_key("slug", &known), None);
    }

    #[test]
    fn claude_code_keys_depend_on_the_spec() {
        // A near miss of a known key (`licence`) is a warning; another
        // unknown key is a note (the fixtures' snapshots show it).
        let text = "---\nname: a\ndescription: b\nargument-hint: <file>\nlicence: MIT\n---\n";
        let agentskills = check("x/a/SKILL.md", text, &config("agentskills"));
        assert_eq!(agentskills.len(), 2, "{agentskills:?}");
        assert!(agentskills.iter().all(|(s, _)| *s == Severity::Error));
        let claude = check("x/a/SKILL.md", text, &Config::default());
        assert_eq!(claude.len(), 1, "{claude:?}");
        assert_eq!(claude[0].0, Severity::Warning);
        assert!(claude[0].1.contains("`licence`"));
    }

    #[test]
    fn each_name_defect() {
        let cfg = config("agentskills");
        let msg = |name: &str, folder: &str| {
            check(
                &format!("s/{folder}/SKILL.md"),
                &format!("---\nname: {name}\ndescription: d\n---\n"),
                &cfg,
            )
        };
        assert!(msg("PDF", "PDF")[0].1.contains("must be lowercase"));
        assert!(msg("-pdf", "-pdf")[0].1.contains("hyphen"));
        assert!(msg("pdf--x", "pdf--x")[0].1.contains("`--`"));
        assert!(msg("pdf_x", "pdf_x")[0].1.contains("only letters"));
        assert!(msg("pdf_x", "pdf_x")[0]
            .1
            .ends_with("the Agent Skills reference validator rejects it"));
        assert!(msg("pdf", "other")[0]
            .1
            .contains("does not match the skill's folder `other`"));
        let long = "a".repeat(65);
        assert!(msg(&long, &long)[0]
            .1
            .contains("over the 64-character limit"));
        assert!(msg("\"\"", "x")[0].1.contains("empty"));
    }

    /// The SDK's skill discovery takes any non-empty name as it is, and
    /// Claude Code lists a skill by its name wherever it lives: under the
    /// default spec only a missing or empty name has a consequence.
    #[test]
    fn name_format_is_the_agent_skills_format_s_alone() {
        let cfg = Config::default();
        for (name, folder) in [
            ("PDF", "PDF"),
            ("Spec Review", "spec-review"),
            ("-pdf", "-pdf"),
            ("pdf--x", "pdf--x"),
            ("pdf_x", "pdf_x"),
            ("pdf", "other"),
            (&"a".repeat(65), "a"),
        ] {
            let text = format!("---\nname: {name}\ndescription: d\n---\n");
            let found = check(&format!("s/{folder}/SKILL.md"), &text, &cfg);
            assert!(found.is_empty(), "{name}: {found:?}");
        }
        let empty = check(
            "s/x/SKILL.md",
            "---\nname: \"\"\ndescription: d\n---\n",
            &cfg,
        );
        assert!(
            empty[0].1.contains("skill discovery skips this skill"),
            "{empty:?}"
        );
    }

    /// A frontmatter whose closing `---` is missing runs on into the body
    /// up to the next `---` line (a thematic break), and the body is not
    /// YAML: the finding says the fence is missing, not only what the YAML
    /// parser saw.
    #[test]
    fn body_read_as_yaml_names_the_missing_fence() {
        let text = "---\nname: a\ndescription: d\ngraph:\n  roles: [x]\n# Steps\n1. Read the logs\n2. Find the cause\n\n---\n\nMore.\n";
        let found = check("s/a/SKILL.md", text, &Config::default());
        assert_eq!(found.len(), 1, "{found:?}");
        let msg = &found[0].1;
        assert!(
            msg.contains("not closed") && msg.contains("`---` at line 10"),
            "{msg}"
        );
        let at = lint_text(
            "s/a/SKILL.md",
            FileKind::Skill,
            text.into(),
            &Config::default(),
        );
        assert_eq!(at[0].location.start.line, 6, "the heading starts the body");
        // Body lines that read as keys (`1. **First**: …`) before the failing one.
        let keys = "---\nname: a\ndescription: d\n1. **First**: do this\n\nPlain prose.\n\n---\n";
        let found = check("s/a/SKILL.md", keys, &Config::default());
        assert!(found[0].1.contains("`---` at line 8"), "{found:?}");
        // A YAML error inside the fields is still reported as such.
        let quote = check(
            "s/a/SKILL.md",
            "---\nname: a\ndescription: \"open\n---\n",
            &Config::default(),
        );
        assert!(quote[0].1.starts_with("invalid YAML"), "{quote:?}");
    }

    #[test]
    fn metadata_shape_is_checked_for_the_agent_skills_format_only() {
        let text = "---\nname: a\ndescription: d\nmetadata:\n  tools:\n    - x\n---\n";
        assert!(check("s/a/SKILL.md", text, &Config::default()).is_empty());
        let strict = check("s/a/SKILL.md", text, &config("agentskills"));
        assert_eq!(strict.len(), 1, "{strict:?}");
        assert_eq!(strict[0].0, Severity::Warning);
    }

    #[test]
    fn yes_is_a_name_not_a_boolean() {
        let text = "---\nname: yes\ndescription: d\n---\n";
        assert!(check("s/yes/SKILL.md", text, &Config::default()).is_empty());
        assert!(check("s/yes/SKILL.md", text, &config("agentskills")).is_empty());
    }

    #[test]
    fn extra_keys_are_known_under_claude_code_only() {
        let text = "[rules.skill-frontmatter]\nextra-keys = [\"graph\"]\n";
        let cfg = Config::parse(
            text,
            Path::new("proclint.toml"),
            ".".into(),
            &crate::rules::Registry,
        )
        .unwrap();
        let skill = "---\nname: a\ndescription: b\ngraph:\n  x: y\nlicence: MIT\n---\n";
        let found = check("s/a/SKILL.md", skill, &cfg);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].1.contains("`licence`"));
        for bad in [
            "extra-keys = \"graph\"",
            "extra-keys = [1]",
            "extra-keys = [\"\"]",
        ] {
            let text = format!("[rules.skill-frontmatter]\n{bad}\n");
            assert!(Config::parse(
                &text,
                Path::new("proclint.toml"),
                ".".into(),
                &crate::rules::Registry
            )
            .is_err());
        }
    }

    #[test]
    fn an_unknown_key_is_reported_once_per_project() {
        let skill = |name: &str| {
            (
                format!("s/{name}/SKILL.md"),
                FileKind::Skill,
                format!("---\nname: {name}\ndescription: d\nlicence: g\n---\n"),
            )
        };
        let inputs = vec![skill("c"), skill("a"), skill("b")];
        let found: Vec<_> = crate::engine::lint_texts(inputs.clone(), &Config::default())
            .diagnostics
            .into_iter()
            .filter(|d| d.rule == META.id)
            .collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(&*found[0].location.path, "s/a/SKILL.md");
        assert!(found[0]
            .message
            .contains("`licence` (here and in 2 other SKILL.md files)"));
        // Each file fails the reference validator on its own.
        let strict = crate::engine::lint_texts(inputs, &config("agentskills"));
        assert_eq!(strict.diagnostics.len(), 3, "{:?}", strict.diagnostics);
    }

    #[test]
    fn yaml_errors_point_at_the_line() {
        let text = "---\nname: a\nname: b\ndescription: c\n---\n";
        let diags = lint_text(
            "s/a/SKILL.md",
            FileKind::Skill,
            text.into(),
            &Config::default(),
        );
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(diags[0].message.starts_with("invalid YAML"));
        assert_eq!(diags[0].location.start.line, 3);
    }

    #[test]
    fn bad_option_value_is_a_config_error() {
        let text = "[rules.skill-frontmatter]\nskill-spec = \"openai\"\n";
        assert!(Config::parse(
            text,
            Path::new("proclint.toml"),
            ".".into(),
            &crate::rules::Registry
        )
        .is_err());
    }
}
