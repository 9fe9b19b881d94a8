//! Small per-file facts the retrospective reports on: what a module
//! contains (tasks, invocation sites, breakpoints, loops, batches), its
//! process header, and the SDK pins of a manifest. Built in the per-file
//! pass, kept after the tree is dropped.

use serde::{Deserialize, Serialize};
use std::path::Path;

use crate::js::analysis::repeat::repetition;
use crate::js::model::objects;
use crate::js::model::{EffectKind, JsModel, LoopKind};

/// The JSDoc header of a process module.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessDoc {
    pub process: Option<String>,
    pub description: Option<String>,
    pub inputs: Option<String>,
    pub outputs: Option<String>,
    pub skills: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TaskFact {
    pub id: String,
    pub kind: Option<String>,
    pub line: u32,
    pub has_labels: bool,
    pub has_schema: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ProcessFacts {
    pub doc: Option<ProcessDoc>,
    /// Exports a `process` (or default) function.
    pub entry: bool,
    /// Relative import specifiers, for grouping modules under entries.
    pub imports: Vec<String>,
    pub tasks: Vec<TaskFact>,
    /// Lines of `ctx.task` calls.
    pub invocations: Vec<u32>,
    /// Lines of `ctx.task` calls that run more than once per iteration.
    pub repeated: Vec<u32>,
    pub breakpoints: Vec<u32>,
    /// Lines of loops whose body dispatches effects.
    pub effect_loops: Vec<u32>,
    /// Lines of `while`/`do…while`/`for(;;)` loops that dispatch effects
    /// (the ones a bound matters for).
    pub retry_loops: Vec<u32>,
    pub parallel: Vec<u32>,
    pub functions: usize,
    /// Good practices present, with their lines.
    #[serde(default)]
    pub practices: crate::js::analysis::practices::Practices,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SdkPin {
    pub package: String,
    pub spec: String,
    pub pinned: bool,
    pub line: u32,
    /// (version, lockfile name) when a lockfile resolves it.
    pub resolved: Option<(String, String)>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ManifestFacts {
    pub name: Option<String>,
    pub sdk: Vec<SdkPin>,
    pub lockfiles: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Facts {
    Process(Box<ProcessFacts>),
    Skill,
    Manifest(ManifestFacts),
}

pub fn process_facts(m: &JsModel) -> ProcessFacts {
    let line = |n: crate::js::syntax::tree::Node| m.file.pos(n.start_byte()).line;
    let tasks = m
        .task_defs
        .iter()
        .map(|t| {
            let prop = |name: &str| {
                t.objects
                    .iter()
                    .find_map(|o| objects::property(m, *o, name))
            };
            TaskFact {
                id: t.id.clone().unwrap_or_default(),
                kind: t.declared_kind().map(str::to_owned),
                line: line(t.id_node),
                has_labels: prop("labels").is_some()
                    || t.objects.iter().any(|o| objects::has_opaque_spread(m, *o)),
                has_schema: t
                    .objects
                    .iter()
                    .any(|o| objects::path(m, *o, &["agent", "outputSchema"]).is_some()),
            }
        })
        .collect();
    let mut facts = ProcessFacts {
        doc: process_doc(&m.file.text),
        entry: m.exports.iter().any(|e| {
            m.is_process_export(&e.name) && e.value.and_then(|v| m.function_of_expr(v)).is_some()
        }),
        imports: m
            .imports
            .iter()
            .filter(|i| i.source.starts_with('.'))
            .map(|i| i.source.clone())
            .collect(),
        tasks,
        functions: m.functions.len(),
        practices: crate::js::analysis::practices::practices(m),
        ..ProcessFacts::default()
    };
    facts.imports.sort();
    facts.imports.dedup();
    for e in &m.effects {
        let call = &m.calls[e.call];
        let l = line(call.node);
        match e.kind {
            EffectKind::Task => {
                facts.invocations.push(l);
                if repetition(m, e.call).is_some() {
                    facts.repeated.push(l);
                }
            }
            EffectKind::Breakpoint => facts.breakpoints.push(l),
            EffectKind::ParallelAll | EffectKind::ParallelMap => facts.parallel.push(l),
            _ => {}
        }
    }
    // Mark each loop that holds a dispatching effect (one pass over effects,
    // not one per loop).
    let mut dispatching = vec![false; m.loops.len()];
    for e in m.effects.iter().filter(|e| e.kind.dispatches()) {
        for &l in &m.calls[e.call].loops {
            if let Some(slot) = dispatching.get_mut(l) {
                *slot = true;
            }
        }
    }
    for (li, lp) in m.loops.iter().enumerate() {
        if !dispatching[li] {
            continue;
        }
        let l = line(lp.node);
        facts.effect_loops.push(l);
        let open_ended = match lp.kind {
            LoopKind::While | LoopKind::DoWhile => true,
            LoopKind::For => lp.condition.is_none(),
            LoopKind::ForIn | LoopKind::ForOf => false,
        };
        if open_ended {
            facts.retry_loops.push(l);
        }
    }
    facts
}

/// Parses the first `/** … */` block that carries `@process`.
pub fn process_doc(text: &str) -> Option<ProcessDoc> {
    let mut rest = text;
    while let Some(start) = rest.find("/**") {
        let after = &rest[start + 3..];
        let end = after.find("*/")?;
        let block = &after[..end];
        rest = &after[end + 2..];
        if !block.contains("@process") {
            continue;
        }
        let mut doc = ProcessDoc::default();
        for raw in block.lines() {
            let line = raw.trim().trim_start_matches('*').trim();
            let Some(tagged) = line.strip_prefix('@') else {
                continue;
            };
            let (tag, value) = tagged
                .split_once(char::is_whitespace)
                .unwrap_or((tagged, ""));
            let value = value.trim().to_string();
            match tag {
                "process" => doc.process = Some(value),
                "description" => doc.description = Some(value),
                "inputs" => doc.inputs = Some(value),
                "outputs" => doc.outputs = Some(value),
                "skill" => doc.skills.push(value),
                _ => {}
            }
        }
        return Some(doc);
    }
    None
}

/// SDK pins of a manifest, with lockfile resolutions.
pub fn manifest_facts(
    manifest: &crate::manifest::package_json::PackageJson,
    file: &crate::source::SourceFile,
    path: &Path,
    packages: &[String],
) -> ManifestFacts {
    use crate::manifest::{lockfile, spec};
    let lockfiles = lockfile::find_lockfiles(path);
    let sdk = manifest
        .dependencies_on(packages)
        .into_iter()
        .map(|d| {
            let classified = spec::classify(&d.spec);
            let resolved = lockfile::resolve(&lockfiles, &d.package, &d.spec)
                .ok()
                .flatten()
                .map(|r| {
                    let name = r
                        .lockfile
                        .path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    (r.version.to_string(), name)
                });
            SdkPin {
                package: d.package.clone(),
                spec: d.spec.clone(),
                pinned: classified.is_pinned(),
                line: file.pos(d.spec_span.start).line,
                resolved,
            }
        })
        .collect();
    ManifestFacts {
        name: manifest.name().map(str::to_string),
        sdk,
        lockfiles: lockfiles
            .iter()
            .filter_map(|l| l.path.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_process_header() {
        let doc = process_doc(
            "/** plain */\n/**\n * @process acme/x\n * @description Plan and ship.\n * @inputs { a: string }\n * @skill s skills/s/SKILL.md\n */\n",
        );
        assert_eq!(
            doc,
            Some(ProcessDoc {
                process: Some("acme/x".into()),
                description: Some("Plan and ship.".into()),
                inputs: Some("{ a: string }".into()),
                outputs: None,
                skills: vec!["s skills/s/SKILL.md".into()],
            })
        );
    }
}
