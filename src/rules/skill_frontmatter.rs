//! `skill-frontmatter`: a SKILL.md whose frontmatter agents cannot use to discover it.
//!
//! The checks follow the Agent Skills format as the reference validator (`skills-ref`)
//! implements it, so that under `skill-spec = "agentskills"` an error here means exactly
//! "`agentskills validate` rejects this skill". Findings the validator does not make
//! (metadata shape, keys unknown to both specs under `claude-code`) are warnings.

use std::path::Path;

use super::{Area, Category, ReportMeta, Rule, RuleMeta, Sink, Sites, SkillContext};
use crate::diagnostic::Severity;
use crate::markdown::yaml::{YamlError, YamlNode, YamlValue};
use crate::markdown::Frontmatter;
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
    options: &["skill-spec"],
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

/// Extra fields Claude Code reads from a skill's frontmatter.
const CLAUDE_CODE_FIELDS: &[&str] = &[
    "argument-hint",
    "disable-model-invocation",
    "user-invocable",
    "model",
    "context",
    "agent",
    "hooks",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SkillSpec {
    /// The open Agent Skills format, as `agentskills validate` checks it.
    AgentSkills,
    /// Agent Skills plus the keys Claude Code understands.
    ClaudeCode,
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
        skill_spec(Some(table)).map(|_| ())
    }

    fn check_skill(&self, cx: &SkillContext, sink: &mut Sink) {
        if !cx.is_skill_file() {
            return;
        }
        let spec = skill_spec(cx.config.rule_options.get(META.id)).unwrap_or(SkillSpec::ClaudeCode);
        let text = &cx.file.text;
        let first_line = Span::new(0, text.find(['\n', '\r']).unwrap_or(text.len()));
        let block = match &cx.skill.frontmatter {
            Frontmatter::Missing => {
                sink.push(
                    sink.diag(
                        first_line,
                        "SKILL.md has no YAML frontmatter: agents discover a skill by the `name` and `description` in a leading `---` block",
                    )
                    .with_help("start the file with:\n---\nname: <folder-name>\ndescription: <what the skill does and when to use it>\n---"),
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
                sink.push(yaml_error(sink, e, block.yaml_span.start, text));
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
        "agents skip a skill whose frontmatter does not parse; fix the YAML at this position",
    )
}

struct Checker<'s, 'a, 'p> {
    sink: &'s mut Sink<'a>,
    text: &'p str,
    spec: SkillSpec,
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
            None => self.error(
                self.fence,
                "the frontmatter has no `name`: agents cannot list this skill".to_string(),
                Some("add `name: <folder-name>` (lowercase letters, digits and hyphens)"),
            ),
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
        if let Some((key, value)) = get("metadata") {
            self.metadata(key, value);
        }
    }

    fn unknown_fields(&mut self, entries: &[(YamlNode, YamlNode)]) {
        for (key, _) in entries {
            let name = key.value.scalar_text().unwrap_or_default();
            if AGENTSKILLS_FIELDS.contains(&name.as_str()) {
                continue;
            }
            let claude = CLAUDE_CODE_FIELDS.contains(&name.as_str());
            match self.spec {
                SkillSpec::AgentSkills => {
                    let extra = if claude {
                        " (Claude Code reads it; set skill-spec = \"claude-code\" to allow its keys)"
                    } else {
                        ""
                    };
                    self.error(
                        span_of(key),
                        format!("unknown frontmatter field `{name}`: the Agent Skills format allows only name, description, license, compatibility, metadata and allowed-tools{extra}"),
                        Some("move custom data under `metadata:`"),
                    );
                }
                SkillSpec::ClaudeCode if !claude => self.warning(
                    span_of(key),
                    format!("unknown frontmatter field `{name}`: neither the Agent Skills format nor Claude Code reads it"),
                    Some("move custom data under `metadata:`, or fix the spelling of a known field"),
                ),
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
                "`name` is empty: agents cannot list this skill".to_string(),
                None,
            );
            return;
        }
        let len = name.chars().count();
        if len > MAX_NAME {
            self.error(
                span,
                format!("`name` is {len} characters, over the {MAX_NAME}-character limit"),
                None,
            );
        }
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
        if !problems.is_empty() {
            self.error(
                span,
                format!("`name: {name}` {}", problems.join(", ")),
                Some("use lowercase letters, digits and single hyphens, e.g. `pdf-tools`"),
            );
        }
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
    use crate::config::Config;
    use crate::discover::FileKind;
    use crate::engine::lint_text;

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
    fn claude_code_keys_depend_on_the_spec() {
        let text = "---\nname: a\ndescription: b\nargument-hint: <file>\ncolour: red\n---\n";
        let agentskills = check("x/a/SKILL.md", text, &config("agentskills"));
        assert_eq!(agentskills.len(), 2, "{agentskills:?}");
        assert!(agentskills.iter().all(|(s, _)| *s == Severity::Error));
        let claude = check("x/a/SKILL.md", text, &Config::default());
        assert_eq!(claude.len(), 1, "{claude:?}");
        assert_eq!(claude[0].0, Severity::Warning);
        assert!(claude[0].1.contains("`colour`"));
    }

    #[test]
    fn each_name_defect() {
        let cfg = Config::default();
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
        assert!(msg("pdf", "other")[0]
            .1
            .contains("does not match the skill's folder `other`"));
        let long = "a".repeat(65);
        assert!(msg(&long, &long)[0]
            .1
            .contains("over the 64-character limit"));
        assert!(msg("\"\"", "x")[0].1.contains("empty"));
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
