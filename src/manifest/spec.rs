//! Classifies an npm dependency spec the way npm reads it, and says in words what a range admits.
//!
//! Semver comes from `nodejs-semver`, a port of npm's own `node-semver`: it accepts all of npm's
//! range syntax (hyphen ranges, `||`, x-ranges, `>= 1.2` with spaces, `v` prefixes) and desugars
//! carets the npm way (`^0.0.168` is `>=0.0.168 <0.0.169-0`). The `semver` crate was rejected: it
//! implements Cargo's flavour, where a bare `1.2.3` means `^1.2.3` (npm: exactly 1.2.3) and
//! hyphen ranges and `||` do not parse. Its 0.x caret rules agree with npm's, but that is not
//! enough to read package.json faithfully.

use std::fmt;

use nodejs_semver::{Range, Version};

/// How a spec names the version it installs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecKind {
    /// `1.2.3`, `=1.2.3`, `v1.2.3`: one version.
    Exact(Version),
    /// `workspace:`, `file:`, `link:` or a relative path: the code is local, nothing to pin.
    Local { protocol: String },
    /// A git spec; `commit` is set only when it names a full 40-hex commit.
    Git { commit: Option<String> },
    /// An `http(s):` tarball URL: its content can change under the same URL.
    Url,
    /// A dist-tag such as `latest` or `next`: moves whenever the publisher says so.
    Tag(String),
    /// A semver range (caret, tilde, comparators, x-ranges, `||`, hyphen).
    Range(RangeInfo),
    /// Not a spec npm understands.
    Invalid,
}

/// What a range admits, and the lowest version it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeInfo {
    /// Human wording, e.g. "any 0.3.x ≥ 0.3.1".
    pub admits: String,
    /// The lowest version the range states as an inclusive bound, when it states one above 0.0.0.
    pub lower_bound: Option<Version>,
    /// The range admits exactly one version (`^0.0.168`), though it is still written as a range.
    pub single_version: bool,
}

/// A classified spec; `inner` is what is left after an `npm:name@` alias.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    pub raw: String,
    pub kind: SpecKind,
    /// For `npm:other-package@spec` aliases, the aliased package.
    pub alias_of: Option<String>,
}

impl Spec {
    /// True when installing can only ever produce the same code.
    pub fn is_pinned(&self) -> bool {
        match &self.kind {
            SpecKind::Exact(_) | SpecKind::Local { .. } => true,
            SpecKind::Git { commit } => commit.is_some(),
            SpecKind::Url | SpecKind::Tag(_) | SpecKind::Range(_) | SpecKind::Invalid => false,
        }
    }

    /// A short phrase naming what kind of spec this is, for messages.
    pub fn describe(&self) -> String {
        match &self.kind {
            SpecKind::Exact(v) => format!("pins exactly {v}"),
            SpecKind::Local { protocol } => format!("points at local code ({protocol})"),
            SpecKind::Git { commit: Some(c) } => format!("pins git commit {c}"),
            SpecKind::Git { commit: None } => {
                "is a git dependency without a full commit hash, so it follows whatever the branch or tag points at".to_string()
            }
            SpecKind::Url => "is a tarball URL whose content can change".to_string(),
            SpecKind::Tag(t) => format!("is the dist-tag `{t}`, which moves with every publish"),
            SpecKind::Range(r) if r.single_version => {
                format!("admits {}, though it reads as a range", r.admits)
            }
            SpecKind::Range(r) => format!("admits {}", r.admits),
            SpecKind::Invalid => "is not a version, range, tag or URL that npm understands".to_string(),
        }
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

/// Classifies `raw` as npm would when it is the value of a dependency entry.
pub fn classify(raw: &str) -> Spec {
    let trimmed = raw.trim();
    if let Some(rest) = trimmed.strip_prefix("npm:") {
        // `npm:@scope/name@spec` or `npm:name@spec`; the `@` that separates the spec is the last one
        // after the first character (a scope starts with `@` too).
        let (name, inner) = match rest.get(1..).and_then(|r| r.rfind('@')) {
            Some(at) => (&rest[..at + 1], &rest[at + 2..]),
            None => (rest, ""),
        };
        let mut spec = classify(if inner.is_empty() { "*" } else { inner });
        spec.raw = raw.to_string();
        spec.alias_of = Some(name.to_string());
        return spec;
    }
    Spec {
        raw: raw.to_string(),
        kind: classify_kind(trimmed),
        alias_of: None,
    }
}

fn classify_kind(s: &str) -> SpecKind {
    if let Some(protocol) = local_protocol(s) {
        return SpecKind::Local {
            protocol: protocol.to_string(),
        };
    }
    if let Some(v) = exact_version(s) {
        return SpecKind::Exact(v);
    }
    if is_git(s) {
        return SpecKind::Git {
            commit: git_commit(s),
        };
    }
    if s.starts_with("http://") || s.starts_with("https://") {
        return SpecKind::Url;
    }
    if let Ok(range) = Range::parse(s) {
        return SpecKind::Range(describe_range(&range));
    }
    if is_tag_name(s) {
        return SpecKind::Tag(s.to_string());
    }
    SpecKind::Invalid
}

fn local_protocol(s: &str) -> Option<&'static str> {
    for protocol in ["workspace:", "file:", "link:", "portal:"] {
        if s.starts_with(protocol) {
            return Some(protocol);
        }
    }
    // npm treats bare paths as `file:` specs.
    if ["./", "../", "/", "~/", ".\\", "..\\"]
        .iter()
        .any(|p| s.starts_with(p))
        || s == "."
        || s == ".."
    {
        return Some("file:");
    }
    None
}

/// `1.2.3`, `=1.2.3`, `v1.2.3`, `= v1.2.3-rc.1+build`: exactly one version, as npm reads it.
fn exact_version(s: &str) -> Option<Version> {
    let s = s.strip_prefix('=').unwrap_or(s).trim_start();
    let s = s.strip_prefix(['v', 'V']).unwrap_or(s);
    let core = s.split(['-', '+']).next().unwrap_or(s);
    let parts: Vec<&str> = core.split('.').collect();
    let numeric = parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if !numeric {
        return None;
    }
    Version::parse(s).ok()
}

fn is_git(s: &str) -> bool {
    const PREFIXES: [&str; 9] = [
        "git:",
        "git+",
        "github:",
        "gitlab:",
        "bitbucket:",
        "gist:",
        "ssh://",
        "git@",
        "git://",
    ];
    if PREFIXES.iter().any(|p| s.starts_with(p)) {
        return true;
    }
    if (s.starts_with("http://") || s.starts_with("https://"))
        && s.split('#').next().is_some_and(|u| u.ends_with(".git"))
    {
        return true;
    }
    // GitHub shorthand `owner/repo` or `owner/repo#ref` (a scope would start with `@`).
    let path = s.split('#').next().unwrap_or(s);
    let mut segments = path.split('/');
    matches!(
        (segments.next(), segments.next(), segments.next()),
        (Some(owner), Some(repo), None)
            if !owner.is_empty() && !repo.is_empty() && !owner.starts_with(['@', '.'])
                && !owner.contains(':')
                && owner.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
    )
}

/// The committish after `#`, if it is a full 40-hex commit (`#semver:` ranges and branch names are not).
fn git_commit(s: &str) -> Option<String> {
    let (_, fragment) = s.split_once('#')?;
    // npm allows several `::`-separated committish parts (`#commit::path:sub`); the commit is
    // the part without a `key:` prefix.
    let committish = fragment.split("::").find(|p| !p.contains(':'))?;
    let is_commit = committish.len() == 40 && committish.bytes().all(|b| b.is_ascii_hexdigit());
    is_commit.then(|| committish.to_ascii_lowercase())
}

/// npm accepts as a tag anything that is not a range and needs no URL encoding.
fn is_tag_name(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~'))
}

/// One comparator set of a range, as lower and upper bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Bounds {
    /// `(version, inclusive)`; `None` means unbounded below.
    lower: Option<(Version, bool)>,
    upper: Option<(Version, bool)>,
}

/// Words for what the range admits. The crate does not expose its comparator sets, so they are
/// read back from its canonical `Display` form (`>=a <b`, `a`, `*`, joined by `||`), which is
/// a fixed, small grammar.
fn describe_range(range: &Range) -> RangeInfo {
    let canonical = range.to_string();
    let sets: Option<Vec<Bounds>> = canonical.split("||").map(parse_bounds).collect();
    let Some(sets) = sets else {
        return RangeInfo {
            admits: format!("any version in `{canonical}`"),
            lower_bound: range
                .min_version()
                .filter(|v| *v != Version::from((0, 0, 0))),
            single_version: false,
        };
    };
    let mut phrases: Vec<String> = Vec::new();
    for set in &sets {
        let phrase = describe_bounds(set);
        if !phrases.contains(&phrase) {
            phrases.push(phrase);
        }
    }
    let singles: Vec<Option<&Version>> = sets.iter().map(single_version).collect();
    let single_version =
        singles.iter().all(Option::is_some) && singles.windows(2).all(|w| w[0] == w[1]);
    let lower_bound = sets
        .iter()
        .map(|b| match &b.lower {
            Some((v, true)) if *v != Version::from((0, 0, 0)) => Some(v.clone()),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()
        .and_then(|vs| vs.into_iter().min());
    RangeInfo {
        admits: phrases.join(" or "),
        lower_bound,
        single_version,
    }
}

fn parse_bounds(set: &str) -> Option<Bounds> {
    let mut bounds = Bounds {
        lower: None,
        upper: None,
    };
    for token in set.split_whitespace() {
        if token == "*" {
            continue;
        }
        if let Some(v) = token.strip_prefix(">=") {
            bounds.lower = Some((Version::parse(v).ok()?, true));
        } else if let Some(v) = token.strip_prefix('>') {
            bounds.lower = Some((Version::parse(v).ok()?, false));
        } else if let Some(v) = token.strip_prefix("<=") {
            bounds.upper = Some((Version::parse(v).ok()?, true));
        } else if let Some(v) = token.strip_prefix('<') {
            bounds.upper = Some((Version::parse(v).ok()?, false));
        } else {
            let v = Version::parse(token).ok()?;
            bounds.lower = Some((v.clone(), true));
            bounds.upper = Some((v, true));
        }
    }
    Some(bounds)
}

/// `^0.0.168` desugars to `>=0.0.168 <0.0.169-0`: only one release fits.
fn single_version(b: &Bounds) -> Option<&Version> {
    let (lo, true) = b.lower.as_ref()? else {
        return None;
    };
    match b.upper.as_ref()? {
        (hi, true) if hi == lo => Some(lo),
        (hi, false)
            if !lo.is_prerelease()
                && *hi == next_prerelease_floor(lo.major(), lo.minor(), lo.patch() + 1) =>
        {
            Some(lo)
        }
        _ => None,
    }
}

/// The `-0` floor npm puts on caret/tilde/x-range upper bounds so prereleases stay excluded.
fn next_prerelease_floor(major: u64, minor: u64, patch: u64) -> Version {
    Version::parse(format!("{major}.{minor}.{patch}-0"))
        .unwrap_or_else(|_| Version::from((major, minor, patch)))
}

fn describe_bounds(b: &Bounds) -> String {
    if let Some(v) = single_version(b) {
        return format!("only {v}");
    }
    let zero = Version::from((0, 0, 0));
    let (lo, lo_incl) = match &b.lower {
        Some((v, incl)) => (v.clone(), *incl),
        None => (zero.clone(), true),
    };
    match &b.upper {
        None if lo == zero && lo_incl => "any version".to_string(),
        None if lo_incl => format!("any version ≥ {lo}"),
        None => format!("any version > {lo}"),
        Some((hi, hi_incl)) => {
            if lo_incl && !*hi_incl {
                let (ma, mi) = (lo.major(), lo.minor());
                let floor_of = |v: &Version| {
                    v.patch() == 0
                        && v.minor() == 0
                        && !lo.is_prerelease()
                        && *v == next_prerelease_floor(v.major(), 0, 0)
                };
                // `<(M+1).0.0-0` from `^M.m.p` (M > 0), `M.x`, `~M`, or `^0` from zero.
                if floor_of(hi) && hi.major() == ma + 1 && (ma > 0 || (mi == 0 && lo.patch() == 0))
                {
                    return if mi == 0 && lo.patch() == 0 {
                        format!("any {ma}.x")
                    } else {
                        format!("any {ma}.x ≥ {lo}")
                    };
                }
                // `<M.(m+1).0-0` from `^0.m.p`, `~M.m.p`, `M.m.x`.
                if !lo.is_prerelease() && *hi == next_prerelease_floor(ma, mi + 1, 0) {
                    return if lo.patch() == 0 {
                        format!("any {ma}.{mi}.x")
                    } else {
                        format!("any {ma}.{mi}.x ≥ {lo}")
                    };
                }
            }
            let below = if *hi_incl { "≤" } else { "<" };
            match (&b.lower, lo_incl) {
                (None, _) => format!("any version {below} {hi}"),
                (Some(_), true) => format!("any version ≥ {lo} and {below} {hi}"),
                (Some(_), false) => format!("any version > {lo} and {below} {hi}"),
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn range(raw: &str) -> RangeInfo {
        match classify(raw).kind {
            SpecKind::Range(r) => r,
            other => panic!("{raw:?} classified as {other:?}"),
        }
    }

    #[test]
    fn exact_versions_are_pinned() {
        for raw in [
            "1.2.3",
            "=1.2.3",
            "v1.2.3",
            "0.0.168",
            "1.0.0-rc.1",
            "1.2.3+build.5",
            " 1.2.3 ",
        ] {
            let spec = classify(raw);
            assert!(
                matches!(spec.kind, SpecKind::Exact(_)),
                "{raw}: {:?}",
                spec.kind
            );
            assert!(spec.is_pinned(), "{raw}");
        }
        assert_eq!(classify("=1.2.3").describe(), "pins exactly 1.2.3");
    }

    #[test]
    fn local_specs_are_fine() {
        for raw in [
            "workspace:*",
            "workspace:^1.0.0",
            "file:../sdk",
            "link:../sdk",
            "../sdk",
            "./vendor/sdk.tgz",
        ] {
            let spec = classify(raw);
            assert!(matches!(spec.kind, SpecKind::Local { .. }), "{raw}");
            assert!(spec.is_pinned(), "{raw}");
        }
    }

    #[test]
    fn git_specs_need_a_full_commit() {
        let commit = "0123456789abcdef0123456789abcdef01234567";
        for raw in [
            format!("git+https://github.com/a5c-ai/babysitter.git#{commit}"),
            format!("github:a5c-ai/babysitter#{commit}"),
            format!("a5c-ai/babysitter#{commit}"),
            format!("git+ssh://git@github.com/a5c-ai/babysitter.git#{commit}"),
        ] {
            let spec = classify(&raw);
            assert_eq!(
                spec.kind,
                SpecKind::Git {
                    commit: Some(commit.to_string())
                },
                "{raw}"
            );
            assert!(spec.is_pinned());
        }
        for raw in [
            "git+https://github.com/a5c-ai/babysitter.git",
            "github:a5c-ai/babysitter#main",
            "a5c-ai/babysitter",
            "git+https://github.com/a5c-ai/babysitter.git#semver:^1.0.0",
            "a5c-ai/babysitter#0123456", // short hash
        ] {
            let spec = classify(raw);
            assert_eq!(spec.kind, SpecKind::Git { commit: None }, "{raw}");
            assert!(!spec.is_pinned());
        }
    }

    #[test]
    fn urls_tags_and_garbage() {
        assert_eq!(
            classify("https://example.com/sdk-1.0.0.tgz").kind,
            SpecKind::Url
        );
        assert_eq!(classify("latest").kind, SpecKind::Tag("latest".into()));
        assert_eq!(classify("next").kind, SpecKind::Tag("next".into()));
        assert_eq!(classify("not a spec!").kind, SpecKind::Invalid);
        assert!(!classify("latest").is_pinned());
    }

    #[test]
    fn caret_rules_follow_npm_for_zero_versions() {
        let r = range("^0.0.168");
        assert_eq!(r.admits, "only 0.0.168");
        assert!(r.single_version);
        assert_eq!(
            classify("^0.0.168").describe(),
            "admits only 0.0.168, though it reads as a range"
        );
        assert_eq!(range("^0.3.1").admits, "any 0.3.x ≥ 0.3.1");
        assert_eq!(range("^1.2.0").admits, "any 1.x ≥ 1.2.0");
        assert_eq!(range("^1.2.0").lower_bound, Version::parse("1.2.0").ok());
        assert!(!range("^0.3.1").single_version);
    }

    #[test]
    fn other_range_forms() {
        let cases = [
            ("~1.2.3", "any 1.2.x ≥ 1.2.3"),
            ("~0.0.168", "any 0.0.x ≥ 0.0.168"),
            ("1.x", "any 1.x"),
            ("1.2.x", "any 1.2.x"),
            ("^0", "any 0.x"),
            ("*", "any version"),
            ("x", "any version"),
            ("", "any version"),
            (">=1.2.3", "any version ≥ 1.2.3"),
            (">1.2.3", "any version > 1.2.3"),
            ("<2", "any version < 2.0.0"),
            (">=1.2.3 <2", "any version ≥ 1.2.3 and < 2.0.0"),
            ("1.2.3 - 2.3.4", "any version ≥ 1.2.3 and ≤ 2.3.4"),
            ("^1 || ^2", "any 1.x or any 2.x"),
            ("^1.2.3-beta.1", "any version ≥ 1.2.3-beta.1 and < 2.0.0-0"),
        ];
        for (raw, admits) in cases {
            assert_eq!(range(raw).admits, admits, "{raw}");
        }
    }

    #[test]
    fn lower_bounds() {
        let lb = |raw: &str| range(raw).lower_bound.map(|v| v.to_string());
        assert_eq!(lb("^0.0.168").as_deref(), Some("0.0.168"));
        assert_eq!(lb("~1.2.3").as_deref(), Some("1.2.3"));
        assert_eq!(lb("^2 || ^1.4"), Some("1.4.0".into()));
        assert_eq!(lb("1.2.3 - 2"), Some("1.2.3".into()));
        // No stated floor: nothing sensible to pin to without a lockfile.
        assert_eq!(lb("*"), None);
        assert_eq!(lb("<2"), None);
        assert_eq!(lb(">1.2.3"), None);
    }

    #[test]
    fn single_version_ranges_that_read_as_ranges() {
        assert!(range(">=1.0.0 <=1.0.0").single_version);
        assert!(range("0.0.168 - 0.0.168").single_version);
        assert!(range("1.2.3 || 1.2.3").single_version);
    }

    #[test]
    fn aliases_classify_the_inner_spec() {
        let spec = classify("npm:@a5c-ai/babysitter-sdk@^0.0.168");
        assert_eq!(spec.alias_of.as_deref(), Some("@a5c-ai/babysitter-sdk"));
        assert!(matches!(spec.kind, SpecKind::Range(_)));
        let pinned = classify("npm:@a5c-ai/babysitter-sdk@0.0.168");
        assert!(pinned.is_pinned());
    }
}
