//! Which modules belong to which entry process, and what each group holds.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use crate::diagnostic::Diagnostic;
use crate::engine::discover::FileKind;
use crate::engine::Outcome;
use crate::project::facts::{Facts, SdkPin, TaskFact};
use crate::project::normalize;
use crate::rules::Sites as Kind;

/// An entry process with the modules it imports (transitively), or every
/// file when there is at most one entry.
#[derive(Debug, Clone)]
pub struct Group {
    pub entry: Option<usize>,
    pub title: String,
    /// Indices into `outcome.files`, sorted.
    pub files: Vec<usize>,
    pub enabled: BTreeSet<&'static str>,
    /// Modules imported by several entries, reported once here.
    pub shared: bool,
    /// In the shared group: the module the processes build on (the one
    /// that dispatches effects and is imported most, then the largest),
    /// the document's subject.
    pub flagship: Option<usize>,
}

pub fn build(outcome: &Outcome, enabled: &BTreeSet<&'static str>) -> Vec<Group> {
    let entries: Vec<usize> = outcome
        .files
        .iter()
        .enumerate()
        .filter(|(_, f)| matches!(&f.facts, Some(Facts::Process(p)) if p.entry))
        .map(|(i, _)| i)
        .collect();
    let title_of = |i: usize| match &outcome.files[i].facts {
        Some(Facts::Process(p)) => p
            .doc
            .as_ref()
            .and_then(|d| d.process.clone())
            .unwrap_or_else(|| outcome.files[i].display.to_string()),
        _ => outcome.files[i].display.to_string(),
    };
    // With `--run` the report is about the run's process: its entry and
    // what it imports (plus manifests and skills), not every process in the
    // tree.
    if let Some(a) = outcome.run.as_deref() {
        let entry = a.entry.as_ref().and_then(|name| {
            entries
                .iter()
                .copied()
                .find(|&i| outcome.files[i].display == *name)
        });
        if let (Some(e), Some(modules)) = (entry, &a.process_modules) {
            return vec![Group {
                entry: Some(e),
                title: title_of(e),
                files: (0..outcome.files.len())
                    .filter(|&i| {
                        outcome.files[i].kind != FileKind::Process
                            || modules.contains(&outcome.files[i].display)
                    })
                    .collect(),
                enabled: enabled.clone(),
                shared: false,
                flagship: None,
            }];
        }
    }
    if entries.len() <= 1 {
        return vec![Group {
            entry: entries.first().copied(),
            title: entries
                .first()
                .map(|e| title_of(*e))
                .unwrap_or_else(|| project_name(outcome)),
            files: (0..outcome.files.len()).collect(),
            enabled: enabled.clone(),
            shared: false,
            flagship: None,
        }];
    }
    let index: HashMap<String, usize> = outcome
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.display.to_string(), i))
        .collect();
    let mut groups = Vec::new();
    let mut assigned = BTreeSet::new();
    for &e in &entries {
        let mut seen = BTreeSet::from([e]);
        let mut queue = VecDeque::from([e]);
        while let Some(i) = queue.pop_front() {
            let Some(Facts::Process(p)) = &outcome.files[i].facts else {
                continue;
            };
            let dir = outcome.files[i]
                .display
                .rsplit_once('/')
                .map(|(d, _)| d.to_string())
                .unwrap_or_default();
            for source in &p.imports {
                if let Some(j) = resolve(&index, &dir, source) {
                    if seen.insert(j) {
                        queue.push_back(j);
                    }
                }
            }
        }
        assigned.extend(seen.iter().copied());
        groups.push(Group {
            entry: Some(e),
            title: title_of(e),
            files: seen.into_iter().collect(),
            enabled: enabled.clone(),
            shared: false,
            flagship: None,
        });
    }
    // A module two entries import would be reported (and its findings
    // counted) once per entry: it gets its own section instead, and each
    // entry's section keeps what differs.
    let mut users: BTreeMap<usize, usize> = BTreeMap::new();
    for g in &groups {
        for &f in &g.files {
            *users.entry(f).or_default() += 1;
        }
    }
    let shared: Vec<usize> = users
        .iter()
        .filter(|(f, n)| **n > 1 && !entries.contains(f))
        .map(|(f, _)| *f)
        .collect();
    if !shared.is_empty() {
        for g in &mut groups {
            g.files.retain(|f| !shared.contains(f));
        }
        // A module every process builds on is the repository's subject; in a
        // library of independent processes no module is.
        let everywhere: Vec<usize> = shared
            .iter()
            .copied()
            .filter(|f| users.get(f) == Some(&entries.len()))
            .collect();
        let flagship = flagship(outcome, &index, &everywhere);
        let title = match (flagship, shared.len()) {
            (Some(f), 1) => format!("{}, shared by several processes", outcome.files[f].display),
            (Some(f), 2) => format!(
                "{} and 1 other module shared by several processes",
                outcome.files[f].display
            ),
            (Some(f), n) => format!(
                "{} and the {} other modules shared by several processes",
                outcome.files[f].display,
                n - 1
            ),
            (None, _) => "Modules shared by several processes".into(),
        };
        groups.push(Group {
            entry: None,
            title,
            files: shared,
            enabled: enabled.clone(),
            shared: true,
            flagship,
        });
    }
    let rest: Vec<usize> = (0..outcome.files.len())
        .filter(|i| !assigned.contains(i))
        .collect();
    if !rest.is_empty() {
        groups.push(Group {
            entry: None,
            title: "Other files".into(),
            files: rest,
            enabled: enabled.clone(),
            shared: false,
            flagship: None,
        });
    }
    groups
}

/// Of the modules every entry imports (directly or not), the one the
/// processes are built on: it dispatches effects itself (a helper of string builders is not a
/// process's subject), and is imported by the most modules, then the
/// largest.
fn flagship(
    outcome: &Outcome,
    index: &HashMap<String, usize>,
    candidates: &[usize],
) -> Option<usize> {
    let mut importers: BTreeMap<usize, usize> = BTreeMap::new();
    for f in &outcome.files {
        let Some(Facts::Process(p)) = &f.facts else {
            continue;
        };
        let dir = f
            .display
            .rsplit_once('/')
            .map(|(d, _)| d.to_string())
            .unwrap_or_default();
        let targets: BTreeSet<usize> = p
            .imports
            .iter()
            .filter_map(|s| resolve(index, &dir, s))
            .collect();
        for t in targets {
            *importers.entry(t).or_default() += 1;
        }
    }
    candidates
        .iter()
        .copied()
        .filter(|&i| {
            outcome.files[i].kind == FileKind::Process
                && matches!(&outcome.files[i].facts, Some(Facts::Process(p))
                    if !p.invocations.is_empty() || !p.breakpoints.is_empty())
        })
        .max_by_key(|&i| {
            (
                importers.get(&i).copied().unwrap_or(0),
                outcome.files[i].lines,
                std::cmp::Reverse(i),
            )
        })
}

/// Each group's findings, in the outcome's order, from one pass over them
/// (a scan of every finding per group was quadratic in the tree's size).
pub fn diagnostics_by_group<'a>(
    groups: &[Group],
    outcome: &'a Outcome,
) -> Vec<Vec<&'a Diagnostic>> {
    let mut of_path: HashMap<&str, Vec<usize>> = HashMap::new();
    for (gi, g) in groups.iter().enumerate() {
        for &i in &g.files {
            let of = of_path.entry(&outcome.files[i].display).or_default();
            // Two files shown under one path count once per group.
            if of.last() != Some(&gi) {
                of.push(gi);
            }
        }
    }
    let mut out = vec![Vec::new(); groups.len()];
    for d in &outcome.diagnostics {
        for &gi in of_path.get(&*d.location.path).into_iter().flatten() {
            out[gi].push(d);
        }
    }
    out
}

/// What a group's grades read: its own findings, and those of the
/// manifest that governs it when it holds none ([`Group::governing_manifest`]),
/// so a `Dependencies` grade sees the SDK's findings without its "went
/// poorly" list repeating them in every section.
pub fn graded<'a>(g: &Group, own: &[&'a Diagnostic], outcome: &'a Outcome) -> Vec<&'a Diagnostic> {
    let mut out = own.to_vec();
    if let Some(m) = g.governing_manifest(outcome) {
        let path = &*outcome.files[m].display;
        out.extend(
            outcome
                .diagnostics
                .iter()
                .filter(|d| &*d.location.path == path),
        );
    }
    out
}

fn resolve(index: &HashMap<String, usize>, dir: &str, source: &str) -> Option<usize> {
    let joined = normalize(&std::path::Path::new(dir).join(source));
    let base = joined.to_string_lossy().replace('\\', "/");
    let candidates = [
        base.clone(),
        format!("{base}.js"),
        format!("{base}.mjs"),
        format!("{base}.cjs"),
        format!("{base}/index.js"),
    ];
    candidates.iter().find_map(|c| index.get(c).copied())
}

/// The project's name: the `name` of the project root's `package.json` (the
/// root is the deepest directory all checked files share), else that
/// directory's name. A manifest deeper down (an example's, a nested
/// package's) names that package, not the project.
pub fn project_name(outcome: &Outcome) -> String {
    let dirs: Vec<Vec<&str>> = outcome
        .files
        .iter()
        .map(|f| {
            let mut parts: Vec<&str> = f.display.split('/').collect();
            parts.pop();
            parts
        })
        .collect();
    let mut common: Vec<&str> = dirs.first().cloned().unwrap_or_default();
    for d in &dirs {
        let n = common.iter().zip(d).take_while(|(a, b)| a == b).count();
        common.truncate(n);
    }
    let root = common.join("/");
    let root_manifest = if root.is_empty() {
        "package.json".to_string()
    } else {
        format!("{root}/package.json")
    };
    for f in &outcome.files {
        if let Some(Facts::Manifest(m)) = &f.facts {
            if f.display.trim_start_matches("./") == root_manifest.trim_start_matches("./") {
                if let Some(n) = &m.name {
                    return n.clone();
                }
            }
        }
    }
    // The root's manifest is not always a checked file (no SDK dependency).
    let on_disk = std::fs::read_to_string(&root_manifest)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v.get("name").and_then(|n| n.as_str()).map(str::to_string))
        .filter(|n| !n.is_empty());
    if let Some(name) = on_disk {
        return name;
    }
    let folder = common
        .iter()
        .rev()
        .find(|p| !p.is_empty() && **p != "." && **p != "..")
        .map(|s| s.to_string());
    folder
        .or_else(|| {
            // Files at the working directory (or above it): its name.
            std::fs::canonicalize(if root.is_empty() { "." } else { &root })
                .ok()
                .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        })
        .unwrap_or_else(|| "project".into())
}

/// Sites per kind, with their locations.
#[derive(Debug, Default)]
pub struct Sites {
    map: BTreeMap<Kind, Vec<(String, u32)>>,
}

impl Sites {
    pub fn count(&self, kind: Kind) -> usize {
        self.map.get(&kind).map_or(0, Vec::len)
    }

    fn shown(&self, kind: Kind) -> Option<String> {
        let v = self.map.get(&kind)?;
        if v.is_empty() {
            return None;
        }
        let mut parts: Vec<String> = v
            .iter()
            .take(5)
            .map(|(p, l)| crate::report::escape::markdown::code(&format!("{p}:{l}")))
            .collect();
        if v.len() > 5 {
            parts.push(format!("{} more", v.len() - 5));
        }
        Some(parts.join(", "))
    }

    /// " (`a.js:3`, `b.js:9`)".
    pub fn lines_suffix(&self, kind: Kind) -> String {
        self.shown(kind)
            .map(|s| format!(" ({s})"))
            .unwrap_or_default()
    }
}

impl Group {
    pub fn rule_enabled(&self, id: &str) -> bool {
        self.enabled.contains(id)
    }

    pub fn tasks<'a>(&self, outcome: &'a Outcome) -> Vec<&'a TaskFact> {
        self.files
            .iter()
            .filter_map(|i| match &outcome.files[*i].facts {
                Some(Facts::Process(p)) => Some(p.tasks.iter()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// The SDK dependency the group's processes run on: the group's own
    /// package.json files when it has some, else the governing one
    /// ([`Group::governing_manifest`]).
    pub fn sdk_pins<'a>(&self, outcome: &'a Outcome) -> Vec<(String, &'a SdkPin)> {
        let pins_of = |i: usize| match &outcome.files[i].facts {
            Some(Facts::Manifest(m)) => m
                .sdk
                .iter()
                .map(|p| (outcome.files[i].display.to_string(), p))
                .collect(),
            _ => Vec::new(),
        };
        let own: Vec<_> = self.files.iter().flat_map(|&i| pins_of(i)).collect();
        if !own.is_empty() {
            return own;
        }
        self.governing_manifest(outcome)
            .map(pins_of)
            .unwrap_or_default()
    }

    /// For a group with process modules and no package.json of its own
    /// declaring the SDK: the nearest one that does at or above its modules.
    /// Node resolves `@a5c-ai/babysitter-sdk` from the folders above a
    /// module, so a repository's root manifest governs its `process/` folder
    /// even when the retrospective puts the manifest under "Other files".
    pub fn governing_manifest(&self, outcome: &Outcome) -> Option<usize> {
        let declares = |i: usize| matches!(&outcome.files[i].facts, Some(Facts::Manifest(m)) if !m.sdk.is_empty());
        if self.files.iter().any(|&i| declares(i)) {
            return None;
        }
        let dirs: Vec<&str> = self
            .files
            .iter()
            .filter(|&&i| outcome.files[i].kind == FileKind::Process)
            .map(|&i| parent(&outcome.files[i].display))
            .collect();
        (0..outcome.files.len())
            .filter(|&i| declares(i))
            .filter(|&i| {
                let at = parent(&outcome.files[i].display);
                dirs.iter().any(|d| within(d, at))
            })
            .max_by_key(|&i| {
                (
                    parent(&outcome.files[i].display).len(),
                    std::cmp::Reverse(i),
                )
            })
    }

    pub fn sites(&self, outcome: &Outcome) -> Sites {
        let mut s = Sites::default();
        let mut add = |k: Kind, path: &str, line: u32| {
            s.map.entry(k).or_default().push((path.to_string(), line));
        };
        for &i in &self.files {
            let f = &outcome.files[i];
            let path = &*f.display;
            match &f.facts {
                Some(Facts::Process(p)) => {
                    add(Kind::ProcessModules, path, 1);
                    for l in &p.invocations {
                        add(Kind::Invocations, path, *l);
                    }
                    for l in &p.repeated {
                        add(Kind::RepeatedInvocations, path, *l);
                    }
                    for l in &p.breakpoints {
                        add(Kind::Breakpoints, path, *l);
                    }
                    for l in &p.effect_loops {
                        add(Kind::EffectLoops, path, *l);
                    }
                    for l in &p.retry_loops {
                        add(Kind::RetryLoops, path, *l);
                    }
                    for l in &p.parallel {
                        add(Kind::ParallelSites, path, *l);
                    }
                    for t in &p.tasks {
                        add(Kind::TaskDefinitions, path, t.line);
                        match t.kind.as_deref() {
                            Some("agent") => add(Kind::AgentTasks, path, t.line),
                            Some("shell") => add(Kind::ShellTasks, path, t.line),
                            _ => {}
                        }
                        if t.has_schema {
                            add(Kind::SchemaTasks, path, t.line);
                        }
                    }
                }
                Some(Facts::Skill) => add(Kind::SkillFiles, path, 1),
                Some(Facts::Manifest(_)) => {}
                None => {}
            }
        }
        for (path, pin) in self.sdk_pins(outcome) {
            add(Kind::SdkDependencies, &path, pin.line);
        }
        s
    }
}

/// The folder of a display path (`""` at the top).
fn parent(display: &str) -> &str {
    display.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Whether folder `dir` is `at` or below it.
fn within(dir: &str, at: &str) -> bool {
    at.is_empty()
        || dir == at
        || dir
            .strip_prefix(at)
            .is_some_and(|rest| rest.starts_with('/'))
}
