//! `skill-broken-link`: a SKILL.md links to a sibling file or heading that is not there.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{Area, Category, ReportMeta, Rule, RuleMeta, Sink, Sites, SkillContext};
use crate::diagnostic::Severity;
use crate::markdown::{Link, LinkKind, MarkdownDoc, SkillMarkdown};
use crate::project::config::Config;
use crate::source::Span;

pub struct SkillBrokenLink;

static META: RuleMeta = RuleMeta {
    id: "skill-broken-link",
    summary: "A SKILL.md links to a file or heading that does not exist.",
    severity: Severity::Warning,
    area: Area::SkillHygiene,
    category: Category::Correctness,
    doc: include_str!("../../rules/skill-broken-link.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

/// Where a link points once URL syntax is taken apart.
#[derive(Debug, PartialEq, Eq)]
enum Target {
    /// Not something to check: a URL with a scheme, an absolute path, an empty link.
    Skip,
    /// `#anchor` in this file.
    SameFile { anchor: String },
    /// A path relative to the SKILL.md, with an optional anchor.
    Relative {
        path: String,
        anchor: Option<String>,
    },
}

fn classify(dest: &str) -> Target {
    let dest = dest.trim();
    if dest.is_empty() || dest.starts_with("//") || has_scheme(dest) {
        return Target::Skip;
    }
    if let Some(anchor) = dest.strip_prefix('#') {
        return Target::SameFile {
            anchor: percent_decode(anchor),
        };
    }
    let (before_fragment, fragment) = match dest.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (dest, None),
    };
    let path = before_fragment.split('?').next().unwrap_or(before_fragment);
    // Repository-absolute paths depend on where the skill is published; nothing to resolve against.
    if path.starts_with('/') {
        return Target::Skip;
    }
    if path.is_empty() {
        // `?query#x` alone refers to this file.
        return match fragment {
            Some(f) if !f.is_empty() => Target::SameFile {
                anchor: percent_decode(f),
            },
            _ => Target::Skip,
        };
    }
    Target::Relative {
        path: percent_decode(path),
        anchor: fragment.filter(|f| !f.is_empty()).map(percent_decode),
    }
}

/// `scheme:` per RFC 3986 (`http:`, `mailto:`, `vscode:`…); a Windows drive letter is not one.
fn has_scheme(dest: &str) -> bool {
    let Some(colon) = dest.find(':') else {
        return false;
    };
    let scheme = &dest[..colon];
    scheme.len() > 1
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Decodes `%XX` escapes; malformed escapes stay as written, invalid UTF-8 becomes U+FFFD.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(b) = hex {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn is_markdown(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "md" | "markdown"))
}

impl Rule for SkillBrokenLink {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::SkillFiles,
            praise: "Every relative link in the skills resolves",
            sdk_hint: "",
        }
    }

    fn check_skill(&self, cx: &SkillContext, sink: &mut Sink) {
        if !cx.is_skill_file() {
            return;
        }
        let file_path = Path::new(&*cx.file.path);
        let dir = file_path.parent().unwrap_or(Path::new(""));
        // Other Markdown files' headings, read once per target per SKILL.md.
        let mut outlines: HashMap<PathBuf, Option<MarkdownDoc>> = HashMap::new();
        // Found at the first relative link.
        let mut repository: Option<Repository> = None;
        for link in &cx.skill.doc.links {
            if link.autolink {
                continue;
            }
            let span = link
                .dest_span
                .as_ref()
                .map_or(Span::new(link.span.start, link.span.end), |s| {
                    Span::new(s.start, s.end)
                });
            let what = match link.kind {
                LinkKind::Link => "link",
                LinkKind::Image => "image",
            };
            match classify(&link.dest) {
                Target::Skip => {}
                Target::SameFile { anchor } => {
                    if !cx.skill.doc.has_anchor(&anchor) {
                        sink.push(
                            sink.diag(span, format!("{what} to `#{anchor}`: no heading in this file has that anchor"))
                                .with_help(anchor_help(&cx.skill.doc, &anchor)),
                        );
                    }
                }
                Target::Relative { path, anchor } => {
                    let target = dir.join(&path);
                    let repository =
                        repository.get_or_insert_with(|| Repository::of(dir, cx.config));
                    // Not even its existence is looked at: it would show
                    // in the message.
                    if !repository.holds(&target) {
                        sink.push(
                            sink.diag(
                                span,
                                format!("{what} target `{path}` is outside the repository"),
                            )
                            .with_help(
                                "link to a file inside the repository: proclint does not read files outside it, and a published skill carries only its repository",
                            ),
                        );
                        continue;
                    }
                    if !target.exists() {
                        if repository.is_example(dir) {
                            continue;
                        }
                        let message = if is_directory_link(&path) {
                            format!("{what} target `{path}`: the directory does not exist next to this SKILL.md")
                        } else {
                            format!("{what} target `{path}` does not exist next to this SKILL.md")
                        };
                        sink.push(
                            sink.diag(span, message)
                                .with_help(missing_help(link, &path)),
                        );
                        continue;
                    }
                    let Some(anchor) = anchor else { continue };
                    if !is_markdown(&target) || !target.is_file() {
                        continue;
                    }
                    let outline = outlines.entry(target.clone()).or_insert_with(|| {
                        std::fs::read_to_string(&target)
                            .ok()
                            .map(|text| SkillMarkdown::parse(&text).doc)
                    });
                    if let Some(doc) = outline {
                        if !doc.has_anchor(&anchor) {
                            sink.push(
                                sink.diag(
                                    span,
                                    format!("{what} to `{path}#{anchor}`: `{path}` has no heading with that anchor"),
                                )
                                .with_help(anchor_help(doc, &anchor)),
                            );
                        }
                    }
                }
            }
        }
    }
}

/// The folder no link is followed out of: the repository root (the
/// nearest folder at or above the SKILL.md's with `.git`), else the configuration's
/// root (the folder of `proclint.toml`, or the working directory) when it
/// holds the SKILL.md, else the SKILL.md's own folder.
struct Repository {
    /// Absolute, lexically normalised (`..` folded, links not followed).
    lexical: PathBuf,
    /// Its real path (links followed).
    real: PathBuf,
}

/// Symbolic links followed, one after another, before a target counts as
/// outside (the kernel's own limit is 40).
const MAX_LINKS: usize = 40;

impl Repository {
    fn of(skill_dir: &Path, config: &Config) -> Repository {
        let dir = crate::project::module_key(skill_dir);
        let configured = crate::project::module_key(&config.root);
        let lexical = dir
            .ancestors()
            .find(|a| a.join(".git").exists())
            .map(Path::to_path_buf)
            .or_else(|| dir.starts_with(&configured).then_some(configured))
            .unwrap_or(dir);
        let real = std::fs::canonicalize(&lexical).unwrap_or_else(|_| lexical.clone());
        Repository { lexical, real }
    }

    /// Whether `skill_dir` lies in a folder named `examples` or `example`
    /// inside the repository. Such a SKILL.md illustrates a skill (an
    /// SDK's or harness's documentation): no agent loads it from there, and
    /// its relative links name files of the project it would be copied
    /// into, so a missing target is expected, not stale.
    fn is_example(&self, skill_dir: &Path) -> bool {
        crate::project::module_key(skill_dir)
            .strip_prefix(&self.lexical)
            .is_ok_and(|inside| {
                inside.components().any(|c| {
                    c.as_os_str().to_str().is_some_and(|n| {
                        n.eq_ignore_ascii_case("examples") || n.eq_ignore_ascii_case("example")
                    })
                })
            })
    }

    /// Whether `target` is inside: `..` folded first, without touching the
    /// file system (`../../../home/…` is outside whatever is there), then
    /// its real path (symbolic links followed). A target that does not
    /// exist is judged by the deepest folder above it that does, and by
    /// where a dangling link on the way points.
    fn holds(&self, target: &Path) -> bool {
        self.holds_within(target, MAX_LINKS)
    }

    fn holds_within(&self, target: &Path, links: usize) -> bool {
        if !crate::project::module_key(target).starts_with(&self.lexical) {
            return false;
        }
        // The real path of the target as it will be opened: `..` after a
        // link is the link's target's parent, not the link's folder.
        let target = std::path::absolute(target).unwrap_or_else(|_| target.to_path_buf());
        for at in target.ancestors() {
            if let Ok(real) = std::fs::canonicalize(at) {
                return real.starts_with(&self.real);
            }
            // A link that cannot be resolved (dangling, or a loop):
            // followed by hand, as far as [`MAX_LINKS`].
            if let Ok(to) = std::fs::read_link(at) {
                let Some(links) = links.checked_sub(1) else {
                    return false;
                };
                let rest = target.strip_prefix(at).unwrap_or(Path::new(""));
                let next = at.parent().unwrap_or(at).join(to).join(rest);
                return self.holds_within(&next, links);
            }
        }
        false
    }
}

/// A link written with a trailing slash (`environments/`) names a
/// directory: creating a file of that name would not fix it.
fn is_directory_link(path: &str) -> bool {
    path.ends_with('/') || path.ends_with('\\')
}

fn missing_help(link: &Link, path: &str) -> String {
    let kind = if is_directory_link(path) {
        "directory"
    } else if link.kind == LinkKind::Image {
        "image"
    } else {
        "file"
    };
    format!(
        "create the {kind} `{path}` next to the SKILL.md, or fix the path (it is resolved relative to the SKILL.md's folder)"
    )
}

fn anchor_help(doc: &MarkdownDoc, anchor: &str) -> String {
    let mut best: Option<(usize, &str)> = None;
    for h in &doc.headings {
        let d = crate::source::names::edit_distance(anchor, &h.slug);
        if d <= h.slug.len() / 3 + 1 && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, &h.slug));
        }
    }
    match best {
        Some((_, slug)) => format!("did you mean `#{slug}`? anchors are GitHub heading slugs"),
        None => "link to an existing heading: its anchor is the heading text lowercased, spaces as `-`, punctuation dropped".to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::engine::discover::FileKind;
    use crate::engine::lint_text;
    use crate::project::config::Config;

    #[test]
    fn classifies_destinations() {
        assert_eq!(classify("https://x.dev/a"), Target::Skip);
        assert_eq!(classify("mailto:me@x.dev"), Target::Skip);
        assert_eq!(classify("/abs/path.md"), Target::Skip);
        assert_eq!(
            classify("#Setup"),
            Target::SameFile {
                anchor: "Setup".into()
            }
        );
        assert_eq!(
            classify("my%20prompt.md?raw=1#step-2"),
            Target::Relative {
                path: "my prompt.md".into(),
                anchor: Some("step-2".into())
            }
        );
        assert_eq!(
            classify("C:/x.md"),
            Target::Relative {
                path: "C:/x.md".into(),
                anchor: None
            }
        );
    }

    #[test]
    fn percent_decoding_is_lenient() {
        assert_eq!(percent_decode("a%20b%zz%4"), "a b%zz%4");
        assert_eq!(percent_decode("%C3%A9"), "é");
    }

    #[test]
    fn files_and_anchors_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join("review");
        std::fs::create_dir_all(skill.join("scripts")).unwrap();
        std::fs::write(skill.join("implementer prompt.md"), "# Prompt\n## Step 2\n").unwrap();
        std::fs::write(skill.join("scripts/review-package"), "#!/bin/sh\n").unwrap();
        let text = "---\nname: review\ndescription: d\n---\n# Review\n\n\
            [ok](implementer%20prompt.md#step-2) [bad anchor](implementer%20prompt.md#step-3)\n\
            [script](scripts/review-package) [missing](missing.md) ![img](diagram.png)\n\
            [here](#review) [nowhere](#reveiw) `[code](nope.md)`\n\n```\n[fenced](nope.md)\n```\n\
            [the scripts](scripts/) [the templates](templates/)\n";
        let path = skill.join("SKILL.md");
        let diags = lint_text(
            path.to_str().unwrap(),
            FileKind::Skill,
            text.into(),
            &Config::default(),
        );
        let got: Vec<_> = diags
            .iter()
            .filter(|d| d.rule == META.id)
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(
            got,
            vec![
                "link to `implementer prompt.md#step-3`: `implementer prompt.md` has no heading with that anchor",
                "link target `missing.md` does not exist next to this SKILL.md",
                "image target `diagram.png` does not exist next to this SKILL.md",
                "link to `#reveiw`: no heading in this file has that anchor",
                "link target `templates/`: the directory does not exist next to this SKILL.md",
            ]
        );
        let folder = diags
            .iter()
            .find(|d| d.message.contains("templates/"))
            .unwrap();
        assert_eq!(
            folder.help.as_deref(),
            Some("create the directory `templates/` next to the SKILL.md, or fix the path (it is resolved relative to the SKILL.md's folder)")
        );
        let typo = diags
            .iter()
            .find(|d| d.message.contains("#reveiw"))
            .unwrap();
        assert_eq!(
            typo.help.as_deref(),
            Some("did you mean `#review`? anchors are GitHub heading slugs")
        );
        // The span is the destination inside the parentheses.
        let missing = diags
            .iter()
            .find(|d| d.message.contains("missing.md"))
            .unwrap();
        assert_eq!(
            &text[missing.location.span.start..missing.location.span.end],
            "missing.md"
        );
    }
}
