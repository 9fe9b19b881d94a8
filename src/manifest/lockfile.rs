//! The version a lockfile resolved for a package: package-lock.json (v1, v2, v3),
//! npm-shrinkwrap.json, yarn.lock (classic and berry) and pnpm-lock.yaml (v5 to v9 shapes).
//!
//! Only what `unpinned-sdk` needs is read: for one package, the version installed for one
//! importer (the manifest's directory relative to the lockfile). Anything that is not a plain
//! semver version (a `link:`, a git URL, a workspace placeholder) counts as unresolved.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use globset::Glob;
use nodejs_semver::Version;
use serde::Deserialize;

use crate::manifest::json::{self, Json};
use crate::manifest::package_json::PackageJson;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LockfileKind {
    NpmShrinkwrap,
    PackageLock,
    PnpmLock,
    YarnLock,
}

impl LockfileKind {
    /// In the order npm and friends give them precedence (a shrinkwrap beats a package-lock).
    pub const ALL: [LockfileKind; 4] = [
        LockfileKind::NpmShrinkwrap,
        LockfileKind::PackageLock,
        LockfileKind::PnpmLock,
        LockfileKind::YarnLock,
    ];

    pub fn file_name(self) -> &'static str {
        match self {
            LockfileKind::NpmShrinkwrap => "npm-shrinkwrap.json",
            LockfileKind::PackageLock => "package-lock.json",
            LockfileKind::PnpmLock => "pnpm-lock.yaml",
            LockfileKind::YarnLock => "yarn.lock",
        }
    }
}

/// A lockfile that may hold the resolution for a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockfileLocation {
    pub kind: LockfileKind,
    pub path: PathBuf,
    /// The manifest's directory relative to the lockfile's, `/`-separated; `.` for the same one.
    pub importer: String,
}

/// A version a lockfile resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    pub version: Version,
    pub lockfile: LockfileLocation,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockfileError {
    pub message: String,
}

impl fmt::Display for LockfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LockfileError {}

/// Lockfiles for the package.json at `manifest`: those next to it, else those of the workspace
/// root above it that lists it as a workspace (npm, yarn and pnpm keep one lockfile at the root).
pub fn find_lockfiles(manifest: &Path) -> Vec<LockfileLocation> {
    let Some(dir) = manifest.parent() else {
        return Vec::new();
    };
    let here = lockfiles_in(dir, ".");
    if !here.is_empty() {
        return here;
    }
    for ancestor in dir.ancestors() {
        if ancestor == dir {
            // The manifest's own directory was searched above; only its repository boundary matters.
            if ancestor.join(".git").exists() {
                break;
            }
            continue;
        }
        let candidates = lockfiles_in(ancestor, "");
        if candidates.is_empty() {
            // A workspace root is inside the same repository: stop at its top.
            if ancestor.join(".git").exists() {
                break;
            }
            continue;
        }
        // The nearest lockfile above belongs to the project the manifest is part of, or to none.
        let Some(importer) = relative_importer(ancestor, dir) else {
            return Vec::new();
        };
        if !workspace_root_claims(ancestor, &importer) {
            return Vec::new();
        }
        return candidates
            .into_iter()
            .map(|l| LockfileLocation {
                importer: importer.clone(),
                ..l
            })
            .collect();
    }
    Vec::new()
}

fn lockfiles_in(dir: &Path, importer: &str) -> Vec<LockfileLocation> {
    LockfileKind::ALL
        .iter()
        .map(|&kind| (kind, dir.join(kind.file_name())))
        .filter(|(_, path)| path.is_file())
        .map(|(kind, path)| LockfileLocation {
            kind,
            path,
            importer: importer.to_string(),
        })
        .collect()
}

fn relative_importer(root: &Path, dir: &Path) -> Option<String> {
    let rel = dir.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    })
}

/// Whether the root's package.json `workspaces` (or pnpm-workspace.yaml `packages`) match `importer`.
fn workspace_root_claims(root: &Path, importer: &str) -> bool {
    let mut patterns: Vec<String> = Vec::new();
    if let Ok(text) = std::fs::read_to_string(root.join("package.json")) {
        if let Ok(pkg) = PackageJson::parse(&text) {
            patterns.extend(pkg.workspaces().into_iter().map(|w| w.pattern));
        }
    }
    if let Ok(text) = std::fs::read_to_string(root.join("pnpm-workspace.yaml")) {
        #[derive(Deserialize)]
        struct PnpmWorkspace {
            #[serde(default)]
            packages: Vec<String>,
        }
        if let Ok(ws) = serde_saphyr::from_str::<PnpmWorkspace>(&text) {
            patterns.extend(ws.packages);
        }
    }
    let mut claimed = false;
    for pattern in &patterns {
        // `!pattern` excludes, as in pnpm-workspace.yaml; later patterns win.
        let (negated, glob) = match pattern.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, pattern.as_str()),
        };
        let glob = glob.trim_start_matches("./").trim_end_matches('/');
        if Glob::new(glob).is_ok_and(|g| g.compile_matcher().is_match(importer)) {
            claimed = !negated;
        }
    }
    claimed
}

/// The first resolution of `package` (declared with `spec`) among `lockfiles`.
pub fn resolve(
    lockfiles: &[LockfileLocation],
    package: &str,
    spec: &str,
) -> Result<Option<Resolution>, LockfileError> {
    let mut first_error = None;
    for location in lockfiles {
        let text = match std::fs::read_to_string(&location.path) {
            Ok(text) => text,
            Err(e) => {
                first_error.get_or_insert(LockfileError {
                    message: format!("cannot read {}: {e}", location.path.display()),
                });
                continue;
            }
        };
        match resolve_in_text(location.kind, &text, package, spec, &location.importer) {
            Ok(Some(version)) => {
                return Ok(Some(Resolution {
                    version,
                    lockfile: location.clone(),
                }))
            }
            Ok(None) => {}
            Err(e) => {
                first_error.get_or_insert(LockfileError {
                    message: format!("{}: {}", location.path.display(), e.message),
                });
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(None),
    }
}

/// The version of `package` that the lockfile `text` records for `importer`.
pub fn resolve_in_text(
    kind: LockfileKind,
    text: &str,
    package: &str,
    spec: &str,
    importer: &str,
) -> Result<Option<Version>, LockfileError> {
    let raw = match kind {
        LockfileKind::NpmShrinkwrap | LockfileKind::PackageLock => {
            npm_version(text, package, importer)?
        }
        LockfileKind::PnpmLock => pnpm_version(text, package, importer)?,
        LockfileKind::YarnLock => yarn_version(text, package, spec),
    };
    Ok(raw.and_then(|v| Version::parse(v.trim()).ok()))
}

fn npm_version(text: &str, package: &str, importer: &str) -> Result<Option<String>, LockfileError> {
    let root = json::parse(text).map_err(|e| LockfileError {
        message: format!("not valid JSON: {e}"),
    })?;
    let version_of = |entry: Option<&Json>| {
        entry
            .and_then(|e| e.get("version"))
            .and_then(Json::as_str)
            .map(str::to_string)
    };
    // v2/v3: flat `packages` keyed by install path; a workspace's own copy wins over the hoisted one.
    if let Some(packages) = root.get("packages") {
        let mut keys = Vec::new();
        if importer != "." {
            keys.push(format!("{importer}/node_modules/{package}"));
        }
        keys.push(format!("node_modules/{package}"));
        for key in keys {
            if let Some(v) = version_of(packages.get(&key)) {
                return Ok(Some(v));
            }
        }
        return Ok(None);
    }
    // v1: nested `dependencies` tree; the top level is what the root resolved.
    Ok(version_of(
        root.get("dependencies").and_then(|d| d.get(package)),
    ))
}

#[derive(Deserialize, Default)]
struct PnpmImporter {
    #[serde(default)]
    dependencies: BTreeMap<String, PnpmDep>,
    #[serde(default, rename = "devDependencies")]
    dev_dependencies: BTreeMap<String, PnpmDep>,
    #[serde(default, rename = "optionalDependencies")]
    optional_dependencies: BTreeMap<String, PnpmDep>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum PnpmDep {
    /// v5: `name: 1.2.3` or `name: 1.2.3_peer@1.0.0`.
    Plain(String),
    /// v6+: `name: { specifier: ^1.2.3, version: 1.2.3(peer@1.0.0) }`.
    Detailed { version: String },
}

#[derive(Deserialize)]
struct PnpmLock {
    /// v5/v6 single-project lockfiles keep the root importer's tables at the top level.
    #[serde(flatten)]
    root: PnpmImporter,
    #[serde(default)]
    importers: BTreeMap<String, PnpmImporter>,
}

fn pnpm_version(
    text: &str,
    package: &str,
    importer: &str,
) -> Result<Option<String>, LockfileError> {
    let lock: PnpmLock = serde_saphyr::from_str(text).map_err(|e| LockfileError {
        message: format!("not a pnpm lockfile: {e}"),
    })?;
    let entry = match lock.importers.get(importer) {
        Some(imp) => imp,
        None if importer == "." => &lock.root,
        None => return Ok(None),
    };
    let dep = entry
        .dependencies
        .get(package)
        .or_else(|| entry.dev_dependencies.get(package))
        .or_else(|| entry.optional_dependencies.get(package));
    Ok(dep.map(|d| {
        let v = match d {
            PnpmDep::Plain(v) | PnpmDep::Detailed { version: v } => v.as_str(),
        };
        // Strip the peer-dependency suffix: `1.2.3(react@18.0.0)` (v6+) or `1.2.3_react@18.0.0` (v5).
        v.split(['(', '_']).next().unwrap_or(v).to_string()
    }))
}

/// yarn.lock: classic (`"name@^1", name@^1.2:` + `  version "1.2.3"`) and berry
/// (`"name@npm:^1":` + `  version: 1.2.3`) share a line shape, so one reader handles both.
fn yarn_version(text: &str, package: &str, spec: &str) -> Option<String> {
    let mut exact: Option<String> = None;
    let mut any_versions: Vec<String> = Vec::new();
    let mut in_entry = false;
    let mut entry_matches_spec = false;
    for line in text.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        if !line.starts_with([' ', '\t']) {
            let header = line.trim_end().trim_end_matches(':');
            let descriptors: Vec<(String, String)> = header
                .split(',')
                .filter_map(|d| split_descriptor(d.trim().trim_matches('"')))
                .collect();
            in_entry = descriptors.iter().any(|(name, _)| name == package);
            entry_matches_spec = descriptors.iter().any(|(name, range)| {
                name == package && (range == spec || range.strip_prefix("npm:") == Some(spec))
            });
            continue;
        }
        if !in_entry {
            continue;
        }
        let body = line.trim();
        let value = body
            .strip_prefix("version:")
            .or_else(|| body.strip_prefix("version "))
            .map(|v| v.trim().trim_matches('"').to_string());
        if let Some(v) = value {
            if entry_matches_spec && exact.is_none() {
                exact = Some(v.clone());
            }
            if !any_versions.contains(&v) {
                any_versions.push(v);
            }
        }
    }
    // Without an entry for this exact spec, only an unambiguous version is trusted.
    exact.or_else(|| (any_versions.len() == 1).then(|| any_versions.remove(0)))
}

/// `@scope/name@range` → (`@scope/name`, `range`); the separating `@` is the last one after the first byte.
fn split_descriptor(d: &str) -> Option<(String, String)> {
    let at = d.get(1..)?.rfind('@')? + 1;
    Some((d[..at].to_string(), d[at + 1..].to_string()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const SDK: &str = "@a5c-ai/babysitter-sdk";

    fn resolved(kind: LockfileKind, text: &str, importer: &str) -> Option<String> {
        resolve_in_text(kind, text, SDK, "^0.0.168", importer)
            .unwrap()
            .map(|v| v.to_string())
    }

    #[test]
    fn package_lock_v1() {
        let text = r#"{"lockfileVersion": 1, "dependencies": {"@a5c-ai/babysitter-sdk": {"version": "0.0.170"}}}"#;
        assert_eq!(
            resolved(LockfileKind::PackageLock, text, ".").as_deref(),
            Some("0.0.170")
        );
    }

    #[test]
    fn package_lock_v2_v3_prefers_the_workspace_copy() {
        let text = r#"{"lockfileVersion": 3, "packages": {
            "": {"name": "root"},
            "node_modules/@a5c-ai/babysitter-sdk": {"version": "0.0.170"},
            "apps/a/node_modules/@a5c-ai/babysitter-sdk": {"version": "0.0.171"}
        }}"#;
        assert_eq!(
            resolved(LockfileKind::PackageLock, text, ".").as_deref(),
            Some("0.0.170")
        );
        assert_eq!(
            resolved(LockfileKind::PackageLock, text, "apps/a").as_deref(),
            Some("0.0.171")
        );
        assert_eq!(
            resolved(LockfileKind::PackageLock, text, "apps/b").as_deref(),
            Some("0.0.170")
        );
        assert_eq!(
            resolved(LockfileKind::NpmShrinkwrap, text, ".").as_deref(),
            Some("0.0.170")
        );
    }

    #[test]
    fn yarn_classic_and_berry() {
        let classic = "# yarn lockfile v1\n\n\n\"@a5c-ai/babysitter-sdk@^0.0.160\":\n  version \"0.0.160\"\n\n\"@a5c-ai/babysitter-sdk@^0.0.168\", \"@a5c-ai/babysitter-sdk@^0.0.169\":\n  version \"0.0.169\"\n  resolved \"https://example.invalid/sdk.tgz\"\n";
        assert_eq!(
            resolved(LockfileKind::YarnLock, classic, ".").as_deref(),
            Some("0.0.169")
        );
        let berry = "__metadata:\n  version: 8\n  cacheKey: 10c0\n\n\"@a5c-ai/babysitter-sdk@npm:^0.0.168\":\n  version: 0.0.172\n  resolution: \"@a5c-ai/babysitter-sdk@npm:0.0.172\"\n";
        assert_eq!(
            resolved(LockfileKind::YarnLock, berry, ".").as_deref(),
            Some("0.0.172")
        );
        // Unknown spec, single candidate: trusted. Two candidates: ambiguous.
        let one = "sdk@^1:\n  version \"1.4.0\"\n";
        assert_eq!(
            resolve_in_text(LockfileKind::YarnLock, one, "sdk", "~1.4.0", ".")
                .unwrap()
                .map(|v| v.to_string()),
            Some("1.4.0".to_string())
        );
        assert_eq!(
            resolve_in_text(LockfileKind::YarnLock, classic, SDK, "*", ".").unwrap(),
            None
        );
    }

    #[test]
    fn pnpm_v5_v6_v9() {
        let v5 = "lockfileVersion: 5.4\n\nspecifiers:\n  '@a5c-ai/babysitter-sdk': ^0.0.168\n\ndependencies:\n  '@a5c-ai/babysitter-sdk': 0.0.168_zod@3.22.0\n";
        assert_eq!(
            resolved(LockfileKind::PnpmLock, v5, ".").as_deref(),
            Some("0.0.168")
        );
        let v6 = "lockfileVersion: '6.0'\n\ndependencies:\n  '@a5c-ai/babysitter-sdk':\n    specifier: ^0.0.168\n    version: 0.0.173(zod@3.22.0)\n";
        assert_eq!(
            resolved(LockfileKind::PnpmLock, v6, ".").as_deref(),
            Some("0.0.173")
        );
        let v9 = "lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    devDependencies:\n      '@a5c-ai/babysitter-sdk':\n        specifier: ^0.0.168\n        version: 0.0.174\n\n  packages/flows:\n    dependencies:\n      '@a5c-ai/babysitter-sdk':\n        specifier: ^0.0.168\n        version: 0.0.175\n\npackages:\n\n  '@a5c-ai/babysitter-sdk@0.0.174':\n    resolution: {integrity: sha512-x}\n";
        assert_eq!(
            resolved(LockfileKind::PnpmLock, v9, ".").as_deref(),
            Some("0.0.174")
        );
        assert_eq!(
            resolved(LockfileKind::PnpmLock, v9, "packages/flows").as_deref(),
            Some("0.0.175")
        );
        assert_eq!(resolved(LockfileKind::PnpmLock, v9, "packages/other"), None);
    }

    #[test]
    fn non_semver_resolutions_do_not_count() {
        let text = r#"{"lockfileVersion": 3, "packages": {"node_modules/@a5c-ai/babysitter-sdk": {"resolved": "../sdk", "link": true}}}"#;
        assert_eq!(resolved(LockfileKind::PackageLock, text, "."), None);
        let v9 = "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      '@a5c-ai/babysitter-sdk':\n        specifier: link:../sdk\n        version: link:../sdk\n";
        assert_eq!(resolved(LockfileKind::PnpmLock, v9, "."), None);
    }

    #[test]
    fn broken_lockfiles_are_errors_not_panics() {
        assert!(resolve_in_text(LockfileKind::PackageLock, "{", SDK, "^1", ".").is_err());
        assert!(resolve_in_text(LockfileKind::PnpmLock, "importers: [", SDK, "^1", ".").is_err());
        assert_eq!(
            resolve_in_text(LockfileKind::YarnLock, "\u{0}garbage", SDK, "^1", ".").unwrap(),
            None
        );
    }

    #[test]
    fn finds_the_workspace_root_lockfile() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("package.json"),
            r#"{"workspaces": ["packages/*"]}"#,
        )
        .unwrap();
        std::fs::write(root.join("package-lock.json"), "{}").unwrap();
        std::fs::create_dir_all(root.join("packages/flows")).unwrap();
        std::fs::create_dir_all(root.join("other/x")).unwrap();
        let member = root.join("packages/flows/package.json");
        let found = find_lockfiles(&member);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].importer, "packages/flows");
        assert_eq!(found[0].kind, LockfileKind::PackageLock);
        assert!(find_lockfiles(&root.join("other/x/package.json")).is_empty());
        let at_root = find_lockfiles(&root.join("package.json"));
        assert_eq!(at_root[0].importer, ".");
        // A nested repository is its own project, even when a glob above would match it.
        std::fs::create_dir_all(root.join("packages/vendored/.git")).unwrap();
        assert!(find_lockfiles(&root.join("packages/vendored/package.json")).is_empty());
    }
}
