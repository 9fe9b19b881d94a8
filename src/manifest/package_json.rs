//! package.json: the SDK dependency entries and workspace globs, with byte spans.

use std::ops::Range;

use crate::manifest::json::{self, Json, JsonError};

/// The packages whose version pin matters to process code, unless configured otherwise.
pub const DEFAULT_SDK_PACKAGES: &[&str] = &["@a5c-ai/babysitter-sdk", "@a5c-ai/babysitter"];

/// The dependency tables npm installs from, in the order they are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DependencyField {
    Dependencies,
    DevDependencies,
    PeerDependencies,
    OptionalDependencies,
}

impl DependencyField {
    pub const ALL: [DependencyField; 4] = [
        DependencyField::Dependencies,
        DependencyField::DevDependencies,
        DependencyField::PeerDependencies,
        DependencyField::OptionalDependencies,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DependencyField::Dependencies => "dependencies",
            DependencyField::DevDependencies => "devDependencies",
            DependencyField::PeerDependencies => "peerDependencies",
            DependencyField::OptionalDependencies => "optionalDependencies",
        }
    }
}

/// One `"package": "spec"` entry of a dependency table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DependencyEntry {
    pub package: String,
    pub field: DependencyField,
    /// The spec as npm reads it (escapes decoded).
    pub spec: String,
    /// Bytes of the spec inside its quotes: the span to report and the text a fix replaces.
    pub spec_span: Range<usize>,
    /// Bytes of the package name inside its quotes.
    pub key_span: Range<usize>,
}

/// A dependency entry whose value is not a string (npm refuses to install it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedEntry {
    pub package: String,
    pub field: DependencyField,
    /// Bytes of the whole value.
    pub value_span: Range<usize>,
}

/// One workspace glob from `workspaces` (array form, or yarn's `{ "packages": [...] }`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspacePattern {
    pub pattern: String,
    pub span: Range<usize>,
}

/// A parsed package.json.
#[derive(Debug, Clone)]
pub struct PackageJson {
    root: Json,
}

impl PackageJson {
    /// Parses the text. A file that is not JSON, or whose top level is not an object, is an
    /// error carrying the byte offset to point at.
    pub fn parse(text: &str) -> Result<Self, JsonError> {
        let root = json::parse(text)?;
        if root.members().is_none() {
            return Err(JsonError {
                offset: root.span.start,
                message: "package.json must contain a JSON object".to_string(),
            });
        }
        Ok(PackageJson { root })
    }

    pub fn root(&self) -> &Json {
        &self.root
    }

    pub fn name(&self) -> Option<&str> {
        self.root.get("name").and_then(Json::as_str)
    }

    /// Entries for any of `packages` in the four dependency tables, in table then file order.
    pub fn dependencies_on<S: AsRef<str>>(&self, packages: &[S]) -> Vec<DependencyEntry> {
        self.scan(packages).0
    }

    /// Entries for `packages` whose value is not a string.
    pub fn malformed_dependencies_on<S: AsRef<str>>(&self, packages: &[S]) -> Vec<MalformedEntry> {
        self.scan(packages).1
    }

    fn scan<S: AsRef<str>>(&self, packages: &[S]) -> (Vec<DependencyEntry>, Vec<MalformedEntry>) {
        let mut found = Vec::new();
        let mut malformed = Vec::new();
        for field in DependencyField::ALL {
            let Some(members) = self.root.get(field.as_str()).and_then(Json::members) else {
                continue;
            };
            for member in members {
                if !packages.iter().any(|p| p.as_ref() == member.key.value) {
                    continue;
                }
                match member.value.as_string() {
                    Some(spec) => found.push(DependencyEntry {
                        package: member.key.value.clone(),
                        field,
                        spec: spec.value.clone(),
                        spec_span: spec.inner_span.clone(),
                        key_span: member.key.inner_span.clone(),
                    }),
                    None => malformed.push(MalformedEntry {
                        package: member.key.value.clone(),
                        field,
                        value_span: member.value.span.clone(),
                    }),
                }
            }
        }
        (found, malformed)
    }

    /// Workspace globs, from `"workspaces": [...]` or `"workspaces": { "packages": [...] }`.
    pub fn workspaces(&self) -> Vec<WorkspacePattern> {
        let Some(ws) = self.root.get("workspaces") else {
            return Vec::new();
        };
        let list = ws
            .elements()
            .or_else(|| ws.get("packages").and_then(Json::elements));
        list.unwrap_or_default()
            .iter()
            .filter_map(|item| {
                item.as_string().map(|s| WorkspacePattern {
                    pattern: s.value.clone(),
                    span: s.inner_span.clone(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const TEXT: &str = r#"{
  "name": "acme-processes",
  "workspaces": ["packages/*", "tools/cli"],
  "dependencies": {
    "left-pad": "^1.0.0",
    "@a5c-ai/babysitter-sdk": "^0.0.168"
  },
  "devDependencies": { "@a5c-ai/babysitter": "latest" },
  "peerDependencies": { "@a5c-ai/babysitter-sdk": ">=0.0.100" },
  "optionalDependencies": { "@a5c-ai/babysitter-sdk": 5 }
}
"#;

    #[test]
    fn finds_sdk_entries_in_every_table_with_spans() {
        let pkg = PackageJson::parse(TEXT).unwrap();
        let deps = pkg.dependencies_on(DEFAULT_SDK_PACKAGES);
        let got: Vec<_> = deps
            .iter()
            .map(|d| {
                (
                    d.field.as_str(),
                    d.package.as_str(),
                    &TEXT[d.spec_span.clone()],
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("dependencies", "@a5c-ai/babysitter-sdk", "^0.0.168"),
                ("devDependencies", "@a5c-ai/babysitter", "latest"),
                ("peerDependencies", "@a5c-ai/babysitter-sdk", ">=0.0.100"),
            ]
        );
        assert_eq!(&TEXT[deps[0].key_span.clone()], "@a5c-ai/babysitter-sdk");
        let bad = pkg.malformed_dependencies_on(DEFAULT_SDK_PACKAGES);
        assert_eq!(bad.len(), 1);
        assert_eq!(&TEXT[bad[0].value_span.clone()], "5");
        assert_eq!(pkg.name(), Some("acme-processes"));
    }

    #[test]
    fn package_list_is_configurable() {
        let pkg = PackageJson::parse(TEXT).unwrap();
        let deps = pkg.dependencies_on(&["left-pad".to_string()]);
        assert_eq!(deps.len(), 1);
        assert_eq!(deps[0].spec, "^1.0.0");
    }

    #[test]
    fn reads_both_workspace_shapes() {
        let pkg = PackageJson::parse(TEXT).unwrap();
        let ws: Vec<_> = pkg.workspaces().into_iter().map(|w| w.pattern).collect();
        assert_eq!(ws, vec!["packages/*", "tools/cli"]);
        let yarn =
            PackageJson::parse(r#"{"workspaces": {"packages": ["apps/*"], "nohoist": ["x"]}}"#)
                .unwrap();
        assert_eq!(yarn.workspaces()[0].pattern, "apps/*");
    }

    #[test]
    fn non_object_top_level_is_an_error() {
        let err = PackageJson::parse("  [1, 2]").unwrap_err();
        assert_eq!(err.offset, 2);
        let err = PackageJson::parse("{\"dependencies\": {\"a\": \"1\",}}").unwrap_err();
        assert_eq!(err.offset, 27);
    }
}
