//! The glue between the engine and the result cache ([`crate::engine::cache`]):
//! which files' per-file results may be cached and under what key, a hit
//! turned back into a file outcome (re-running the one skill rule that
//! looks at other files), a fresh outcome stored, and the key of the
//! cross-module pass. In: a candidate's bytes, outcomes. Out: keys, and
//! outcomes read back.

use std::path::Path;

use super::{FileOutcome, Stage, Summary};
use crate::diagnostic::Diagnostic;
use crate::engine::cache::{Cache, Cached, CachedRef, Key};
use crate::engine::discover::{Candidate, FileKind};
use crate::engine::file::lint_skill_where;
use crate::project::config::Config;
use crate::source::{self, SourceFile};

/// The one skill rule whose findings depend on other files (whether link
/// targets exist, their headings): a skill's cache entry leaves its
/// findings out, and they are recomputed on every hit.
pub(super) const SKILL_OUTSIDE_RULE: &str = "skill-broken-link";

/// Whether a skill's results may be cached: `skill-frontmatter` compares the
/// name with the folder, which for a path without a folder name (`SKILL.md`
/// in the working directory, `../SKILL.md`) is found by resolving the path
/// on disk.
fn skill_cacheable(display: &str) -> bool {
    Path::new(display)
        .parent()
        .and_then(Path::file_name)
        .is_some()
}

/// The cache and key a file's per-file results are read from and stored
/// under, if they may be cached: process modules and skills depend on
/// nothing but their own bytes and the config (see `cache.rs`), except for
/// the one skill rule that looks at other files, which is rerun.
pub(super) fn entry<'c>(
    cache: Option<&'c Cache>,
    c: &Candidate,
    stage: Stage,
    report: bool,
    key: &Path,
    bytes: &[u8],
) -> Option<(&'c Cache, Key)> {
    match (cache, c.kind, stage) {
        (Some(cache), FileKind::Process, Stage::Full) => {
            // `parse-error` judges the module as Node would load it, which
            // the nearest package.json's "type" decides.
            let load_as = super::load_as::load_as(Path::new(&*c.display)) as u8;
            Some((
                cache,
                cache.key_with(&c.display, key, report, &[load_as], bytes),
            ))
        }
        (Some(cache), FileKind::Skill, Stage::Full) if skill_cacheable(&c.display) => {
            Some((cache, cache.key(&c.display, key, report, bytes)))
        }
        _ => None,
    }
}

/// A cache hit as the file's outcome.
pub(super) fn outcome_of_hit(
    hit: Cached,
    c: &Candidate,
    config: &Config,
    report: bool,
    bytes: Vec<u8>,
    hash: u64,
    key: [u8; 32],
) -> FileOutcome {
    let mut diagnostics = hit.diagnostics;
    if c.kind == FileKind::Skill {
        let (text, _) = source::decode(bytes);
        let file = SourceFile::new(c.display.clone(), text);
        let mut links = lint_skill_where(&file, config, |id| id == SKILL_OUTSIDE_RULE);
        crate::engine::fingerprint::stamp(&file, &[], &mut links);
        // In the order a full run has them (the rule is the first
        // skill rule in the registry), although the output is sorted.
        links.append(&mut diagnostics);
        diagnostics = links;
        diagnostics.shrink_to_fit();
    }
    FileOutcome {
        lines: hit.lines,
        diagnostics,
        directives: hit.directives,
        summary: hit.summary.map(Summary::Stored),
        facts: hit.facts,
        hash: Some(hash),
        cache_key: Some(key),
        ..FileOutcome::empty(c, report)
    }
}

/// Stores a fresh outcome under `k` (and records the key in it), unless
/// the run hit a bug on the file: the next run retries.
pub(super) fn store(cache: &Cache, k: &Key, kind: FileKind, outcome: &mut FileOutcome) {
    if outcome
        .diagnostics
        .iter()
        .any(|d| d.rule == "internal-error")
    {
        return;
    }
    outcome.cache_key = Some(k.full());
    // A skill's entry leaves out what the rule that looks at other
    // files found: it is rerun on every hit.
    let own: Vec<Diagnostic>;
    let diagnostics = if kind == FileKind::Skill {
        own = outcome
            .diagnostics
            .iter()
            .filter(|d| d.rule != SKILL_OUTSIDE_RULE)
            .cloned()
            .collect();
        &own
    } else {
        &outcome.diagnostics
    };
    cache.put(
        k,
        &CachedRef {
            lines: outcome.lines,
            diagnostics,
            directives: &outcome.directives,
            summary: match &outcome.summary {
                Some(Summary::Built(s)) => Some(s),
                _ => None,
            },
            facts: outcome.facts.as_ref(),
            looked_up: &outcome.looked_up,
        },
    );
}

/// The key under which the cross-module pass over `files` (sorted) may be
/// cached: only when every module summary came from, or went into, the
/// result cache, so each is identified by its entry's key.
pub(super) fn project_key(cache: &Cache, files: &[FileOutcome]) -> Option<[u8; 32]> {
    let mut modules = Vec::new();
    for f in files.iter().filter(|f| f.summary.is_some()) {
        modules.push((&*f.display, f.cache_key.as_ref()?));
    }
    // Nothing linted, nothing to remember: the cache directory is made only
    // when a run has something to put in it.
    if modules.is_empty() {
        return None;
    }
    Some(cache.project_key(modules.into_iter()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules;

    /// The skill rule whose findings a skill's cache entry leaves out is a
    /// registered skill rule.
    #[test]
    fn the_skill_rule_rerun_on_hits_exists() {
        let found = rules::all()
            .iter()
            .any(|r| r.meta().id == SKILL_OUTSIDE_RULE);
        assert!(found, "{SKILL_OUTSIDE_RULE} is not a rule");
        assert!(skill_cacheable("s/SKILL.md"));
        assert!(!skill_cacheable("SKILL.md"));
        assert!(!skill_cacheable("../SKILL.md"));
    }
}
