//! Convergence of review/fix loops (issue 11, part 4).
//!
//! A fix-round counter cannot tell four independent failures fixed once each
//! from one failure thrashing. The trajectory of the check task's findings
//! can: each round's result becomes a verdict plus a set of fingerprints, and
//! the way those sets evolve classifies the loop.
//!
//! A loop is identified by its check task: a task id (plus its label with
//! numbers masked, so `review round 2` and `review round 3` are one loop but
//! `review auth` and `review billing` are two) whose results carry a verdict.
//! Every dispatch of it is a round; the effects dispatched between rounds are
//! the loop's fixes.

use std::collections::BTreeSet;

use serde_json::Value;

pub use crate::runs::fingerprint::Verdict;
use crate::runs::fingerprint::{findings, fingerprint, verdict};
use crate::runs::journal::{Effect, EffectStatus, Run};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoopClass {
    /// Passed first time, or every fingerprint cleared and none returned.
    Converged,
    /// A fixed → B appeared → B fixed: ordinary multi-step repair.
    Progressive,
    /// A fingerprint that cleared came back, or a passing check failed again.
    Oscillating,
    /// The same finding set persisted for N failing rounds.
    Stalled,
    /// Findings, or the files the fixes touch, grew round over round.
    Growing,
    /// The run moved on or ended while the last check still failed.
    EndedUnresolved,
    /// The last check failed but the run is still in this loop.
    InProgress,
}

impl LoopClass {
    pub fn as_str(self) -> &'static str {
        match self {
            LoopClass::Converged => "converged",
            LoopClass::Progressive => "progressive",
            LoopClass::Oscillating => "oscillating",
            LoopClass::Stalled => "stalled",
            LoopClass::Growing => "growing",
            LoopClass::EndedUnresolved => "ended-unresolved",
            LoopClass::InProgress => "in-progress",
        }
    }

    /// The classes that warrant a `non-convergent-loop` diagnostic.
    pub fn is_non_convergent(self) -> bool {
        matches!(
            self,
            LoopClass::Oscillating
                | LoopClass::Stalled
                | LoopClass::Growing
                | LoopClass::EndedUnresolved
        )
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Round {
    /// 1-based.
    pub round: usize,
    pub effect_id: String,
    pub seq: u64,
    pub verdict: Verdict,
    /// Findings as reported (before de-duplication by fingerprint).
    pub findings: usize,
    /// Sorted, de-duplicated.
    pub fingerprints: Vec<String>,
    /// Never seen in an earlier round.
    pub new: Vec<String>,
    /// In the previous round, gone in this one.
    pub cleared: Vec<String>,
    /// Absent from the previous round but seen before it: came back.
    pub recurring: Vec<String>,
    /// Files the fixes dispatched since the previous round reported touching
    /// (`filesModified` / `filesChanged`), when any reported it.
    pub files_touched: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LoopTrajectory {
    pub task_id: String,
    pub label: Option<String>,
    pub title: Option<String>,
    pub rounds: Vec<Round>,
    /// Task ids dispatched between rounds (the fixes), sorted.
    pub fix_task_ids: Vec<String>,
    pub class: LoopClass,
    /// One sentence on why the loop got its class.
    pub reason: String,
}

/// Trajectories of every check loop in the run, in order of first dispatch.
/// `stall_rounds` is how many identical failing rounds make a stall (issue
/// default 3; values below 2 are treated as 2).
pub fn convergence(run: &Run, stall_rounds: usize) -> Vec<LoopTrajectory> {
    let stall_rounds = stall_rounds.max(2);
    let check_tasks: BTreeSet<&str> = run
        .effects
        .iter()
        .filter(|e| !e.is_breakpoint())
        .filter(|e| e.value().and_then(verdict).is_some())
        .map(|e| e.task_id.as_str())
        .collect();

    // A loop ends when its check passes: a later dispatch of the same check
    // (the next phase's verify step, with a label that differs only in a
    // number) starts another loop, so six phases that each converged are
    // not one loop that "failed again after passing".
    let mut groups: Vec<((String, String), Vec<&Effect>, bool)> = Vec::new();
    for e in run
        .effects
        .iter()
        .filter(|e| check_tasks.contains(e.task_id.as_str()))
    {
        if e.resolution.is_none() {
            continue; // a check still running has no verdict yet
        }
        let key = (
            e.task_id.clone(),
            e.label.as_deref().map(fingerprint).unwrap_or_default(),
        );
        let passed = round_result(e).0 == Verdict::Pass;
        match groups
            .iter_mut()
            .find(|(k, _, closed)| *k == key && !*closed)
        {
            Some((_, members, closed)) => {
                members.push(e);
                *closed = passed;
            }
            None => groups.push((key, vec![e], passed)),
        }
    }

    let ended = run.terminal_event().is_some();
    groups
        .into_iter()
        .filter_map(|(_, members, _)| trajectory(run, &members, stall_rounds, ended))
        .collect()
}

fn trajectory(
    run: &Run,
    members: &[&Effect],
    stall_rounds: usize,
    ended: bool,
) -> Option<LoopTrajectory> {
    let first = *members.first()?;
    let task_id = first.task_id.as_str();
    let member_ids: BTreeSet<&str> = members.iter().map(|e| e.effect_id.as_str()).collect();
    let between = |lo: u64, hi: u64| {
        run.effects
            .iter()
            .filter(move |e| e.requested_seq > lo && e.requested_seq < hi)
            .filter(|e| !member_ids.contains(e.effect_id.as_str()))
    };

    let mut fix_task_ids = BTreeSet::new();
    let mut inputs = Vec::new();
    for (i, e) in members.iter().enumerate() {
        let (verdict, texts) = round_result(e);
        let files_touched = if i == 0 {
            None
        } else {
            let fixes: Vec<&Effect> =
                between(members[i - 1].requested_seq, e.requested_seq).collect();
            fix_task_ids.extend(fixes.iter().map(|f| f.task_id.clone()));
            fixes
                .iter()
                .filter_map(|f| f.value().and_then(files_count))
                .reduce(|a, b| a + b)
        };
        inputs.push(RoundInput {
            effect_id: e.effect_id.clone(),
            seq: e.requested_seq,
            verdict,
            findings: texts.len(),
            fingerprints: texts.iter().map(|t| fingerprint(t)).collect(),
            files_touched,
        });
    }

    let last_seq = members.last().map_or(0, |e| e.requested_seq);
    let moved_on_to = run
        .effects
        .iter()
        .filter(|e| e.requested_seq > last_seq)
        .find(|e| e.task_id != task_id && !fix_task_ids.contains(&e.task_id))
        .map(|e| e.title.clone().unwrap_or_else(|| e.task_id.clone()));

    let rounds = build_rounds(inputs);
    let (class, reason) = classify(&rounds, stall_rounds, moved_on_to.as_deref(), ended);
    Some(LoopTrajectory {
        task_id: task_id.to_string(),
        label: first.label.clone(),
        title: first.title.clone(),
        rounds,
        fix_task_ids: fix_task_ids.into_iter().collect(),
        class,
        reason,
    })
}

/// A check that resolved with an error is a failing round whose one finding
/// is the error itself.
fn round_result(e: &Effect) -> (Verdict, Vec<String>) {
    match (e.status(), e.value()) {
        (Some(EffectStatus::Ok), Some(v)) => (verdict(v).unwrap_or(Verdict::Unknown), findings(v)),
        (Some(EffectStatus::Ok), None) => (Verdict::Unknown, Vec::new()),
        _ => {
            let message = e
                .resolution
                .as_ref()
                .and_then(|r| r.error_message.clone())
                .unwrap_or_else(|| "check task failed".to_string());
            (Verdict::Fail, vec![message])
        }
    }
}

fn files_count(v: &Value) -> Option<u64> {
    ["filesModified", "filesChanged"]
        .iter()
        .find_map(|k| match v.get(*k)? {
            Value::Array(a) => u64::try_from(a.len()).ok(),
            Value::Number(n) => n.as_u64(),
            _ => None,
        })
}

/// One round before its comparison with the rounds around it.
#[derive(Debug, Clone)]
pub(crate) struct RoundInput {
    pub effect_id: String,
    pub seq: u64,
    pub verdict: Verdict,
    pub findings: usize,
    pub fingerprints: BTreeSet<String>,
    pub files_touched: Option<u64>,
}

fn build_rounds(inputs: Vec<RoundInput>) -> Vec<Round> {
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut prev: BTreeSet<String> = BTreeSet::new();
    let mut rounds = Vec::new();
    for (i, r) in inputs.into_iter().enumerate() {
        let new = r.fingerprints.difference(&seen).cloned().collect();
        let cleared = prev.difference(&r.fingerprints).cloned().collect();
        let recurring = r
            .fingerprints
            .iter()
            .filter(|f| !prev.contains(*f) && seen.contains(*f))
            .cloned()
            .collect();
        seen.extend(r.fingerprints.iter().cloned());
        rounds.push(Round {
            round: i + 1,
            effect_id: r.effect_id,
            seq: r.seq,
            verdict: r.verdict,
            findings: r.findings,
            fingerprints: r.fingerprints.iter().cloned().collect(),
            new,
            cleared,
            recurring,
            files_touched: r.files_touched,
        });
        prev = r.fingerprints;
    }
    rounds
}

/// The first matching rule wins, most specific first: a loop that oscillated
/// and then gave up is reported as oscillating, because that is the fix.
fn classify(
    rounds: &[Round],
    stall_rounds: usize,
    moved_on_to: Option<&str>,
    ended: bool,
) -> (LoopClass, String) {
    if let Some(r) = rounds.iter().find(|r| !r.recurring.is_empty()) {
        return (
            LoopClass::Oscillating,
            format!(
                "{} finding(s) cleared earlier came back in round {}: {}",
                r.recurring.len(),
                r.round,
                r.recurring.join("; ")
            ),
        );
    }
    if let Some(pass) = rounds.iter().find(|r| r.verdict == Verdict::Pass) {
        if let Some(fail) = rounds[pass.round..]
            .iter()
            .find(|r| r.verdict != Verdict::Pass)
        {
            return (
                LoopClass::Oscillating,
                format!(
                    "passed in round {} but failed again in round {}",
                    pass.round, fail.round
                ),
            );
        }
    }
    if let Some((start, len)) = longest_identical_failing_run(rounds) {
        if len >= stall_rounds {
            let what = match rounds[start].fingerprints.len() {
                0 => "no reported findings (verdict only)".to_string(),
                n => format!("the same {n} finding(s)"),
            };
            return (
                LoopClass::Stalled,
                format!(
                    "{what} for {len} failing rounds ({}-{})",
                    rounds[start].round,
                    rounds[start + len - 1].round
                ),
            );
        }
    }
    let failing: Vec<&Round> = rounds
        .iter()
        .filter(|r| r.verdict != Verdict::Pass)
        .collect();
    let counts: Vec<u64> = failing.iter().map(|r| r.findings as u64).collect();
    if let Some(w) = strictly_growing_run(&counts) {
        return (LoopClass::Growing, format!("findings grew {}", arrow(&w)));
    }
    let files: Vec<u64> = rounds.iter().filter_map(|r| r.files_touched).collect();
    if let Some(w) = strictly_growing_run(&files) {
        return (
            LoopClass::Growing,
            format!("fixes touched more and more files: {}", arrow(&w)),
        );
    }
    let Some(last) = rounds.last() else {
        return (LoopClass::Converged, "no rounds".to_string());
    };
    if last.verdict != Verdict::Pass {
        return match (moved_on_to, ended) {
            (Some(next), _) => (
                LoopClass::EndedUnresolved,
                format!(
                    "round {} still failing when the run moved on to {next}",
                    last.round
                ),
            ),
            (None, true) => (
                LoopClass::EndedUnresolved,
                format!("round {} still failing when the run ended", last.round),
            ),
            (None, false) => (
                LoopClass::InProgress,
                format!(
                    "round {} failing; the run is still in this loop",
                    last.round
                ),
            ),
        };
    }
    if rounds.len() == 1 {
        return (LoopClass::Converged, "passed first time".to_string());
    }
    if let Some(r) = rounds[1..].iter().find(|r| !r.new.is_empty()) {
        return (
            LoopClass::Progressive,
            format!(
                "new finding(s) appeared in round {} and were fixed; passed in round {}",
                r.round, last.round
            ),
        );
    }
    (
        LoopClass::Converged,
        format!(
            "every finding cleared without returning; passed in round {}",
            last.round
        ),
    )
}

/// (start index, length) of the longest run of consecutive non-passing rounds
/// with identical fingerprint sets.
fn longest_identical_failing_run(rounds: &[Round]) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    let mut start = 0;
    for i in 0..rounds.len() {
        let continues = i > start
            && rounds[i].verdict != Verdict::Pass
            && rounds[i].fingerprints == rounds[start].fingerprints;
        if !continues {
            start = i;
        }
        if rounds[start].verdict == Verdict::Pass {
            continue;
        }
        let len = i - start + 1;
        if best.is_none_or(|(_, l)| len > l) {
            best = Some((start, len));
        }
    }
    best
}

/// The first window of at least three strictly increasing values.
fn strictly_growing_run(values: &[u64]) -> Option<Vec<u64>> {
    let mut start = 0;
    for i in 1..=values.len() {
        let grows = i < values.len() && values[i] > values[i - 1];
        if !grows {
            if i - start >= 3 {
                return Some(values[start..i].to_vec());
            }
            start = i;
        }
    }
    None
}

fn arrow(values: &[u64]) -> String {
    values
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(" -> ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rounds(shape: &[(Verdict, &[&str])]) -> Vec<Round> {
        build_rounds(
            shape
                .iter()
                .enumerate()
                .map(|(i, (v, fs))| RoundInput {
                    effect_id: format!("e{i}"),
                    seq: i as u64,
                    verdict: *v,
                    findings: fs.len(),
                    fingerprints: fs.iter().map(|s| s.to_string()).collect(),
                    files_touched: None,
                })
                .collect(),
        )
    }

    use Verdict::{Fail as F, Pass as P};

    fn class(shape: &[(Verdict, &[&str])]) -> LoopClass {
        classify(&rounds(shape), 3, None, true).0
    }

    #[test]
    fn passes_first_time_is_converged() {
        assert_eq!(class(&[(P, &[])]), LoopClass::Converged);
    }

    #[test]
    fn independent_failures_fixed_once_each_are_converged_not_flagged() {
        let c = class(&[
            (F, &["a", "b", "c", "d"]),
            (F, &["b", "c", "d"]),
            (F, &["c", "d"]),
            (F, &["d"]),
            (P, &[]),
        ]);
        assert_eq!(c, LoopClass::Converged);
        assert!(!c.is_non_convergent());
        assert_eq!(
            class(&[(F, &["a", "b", "c", "d"]), (P, &[])]),
            LoopClass::Converged
        );
    }

    #[test]
    fn a_fixed_then_b_once_then_b_fixed_is_progressive_not_flagged() {
        let c = class(&[(F, &["a"]), (F, &["b"]), (P, &[])]);
        assert_eq!(c, LoopClass::Progressive);
        assert!(!c.is_non_convergent());
    }

    #[test]
    fn a_b_a_is_oscillating() {
        let r = rounds(&[(F, &["a"]), (F, &["b"]), (F, &["a"]), (P, &[])]);
        assert_eq!(r[2].recurring, vec!["a"]);
        assert_eq!(r[2].cleared, vec!["b"]);
        assert_eq!(classify(&r, 3, None, true).0, LoopClass::Oscillating);
    }

    #[test]
    fn pass_then_fail_is_oscillating() {
        assert_eq!(
            class(&[(P, &[]), (F, &["x"]), (P, &[])]),
            LoopClass::Oscillating
        );
    }

    #[test]
    fn same_findings_for_n_rounds_is_stalled() {
        assert_eq!(
            class(&[(F, &["a"]), (F, &["a"]), (F, &["a"])]),
            LoopClass::Stalled
        );
        assert_eq!(
            class(&[(F, &["a"]), (F, &["a"]), (P, &[])]),
            LoopClass::Converged
        );
        let r = rounds(&[(F, &["a"]), (F, &["a"]), (F, &["a"])]);
        assert_eq!(classify(&r, 4, None, true).0, LoopClass::EndedUnresolved);
        assert_eq!(classify(&r, 2, None, true).0, LoopClass::Stalled);
        // verdict-only checks: nothing visibly changes between failures
        assert_eq!(
            class(&[(F, &[]), (F, &[]), (F, &[]), (P, &[])]),
            LoopClass::Stalled
        );
    }

    #[test]
    fn growing_findings_or_files() {
        assert_eq!(
            class(&[
                (F, &["a"]),
                (F, &["a", "b"]),
                (F, &["a", "b", "c"]),
                (P, &[])
            ]),
            LoopClass::Growing
        );
        let mut r = rounds(&[(F, &["a"]), (F, &["b"]), (F, &["c"]), (F, &["d"]), (P, &[])]);
        for (round, files) in r.iter_mut().zip([None, Some(1), Some(3), Some(8), Some(9)]) {
            round.files_touched = files;
        }
        assert_eq!(classify(&r, 3, None, true).0, LoopClass::Growing);
    }

    #[test]
    fn last_check_failing_is_ended_unresolved_or_in_progress() {
        let r = rounds(&[(F, &["a"]), (F, &["b"])]);
        assert_eq!(
            classify(&r, 3, Some("deploy"), false).0,
            LoopClass::EndedUnresolved
        );
        assert_eq!(classify(&r, 3, None, true).0, LoopClass::EndedUnresolved);
        let (c, reason) = classify(&r, 3, None, false);
        assert_eq!(c, LoopClass::InProgress);
        assert!(!c.is_non_convergent(), "{reason}");
    }

    #[test]
    fn growing_window_needs_three_strictly_increasing_values() {
        assert_eq!(strictly_growing_run(&[1, 2]), None);
        assert_eq!(strictly_growing_run(&[1, 2, 2, 3]), None);
        assert_eq!(strictly_growing_run(&[5, 1, 2, 3, 1]), Some(vec![1, 2, 3]));
    }
}
