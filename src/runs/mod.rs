//! Run-journal front end: reads what a babysitter run left under
//! `.a5c/runs/<runId>/`, verifies the journal, and derives the summary,
//! timeline and convergence data that `proclint runs` and run-aware
//! retrospectives report. Everything here is pure data; nothing panics on
//! malformed input — problems surface as [`IntegrityIssue`] values.

pub mod convergence;
pub mod event;
pub mod fingerprint;
pub mod integrity;
pub mod journal;
pub mod jsjson;
pub mod summary;
pub mod time;
pub mod timeline;

pub use convergence::{convergence, LoopClass, LoopTrajectory, Round, Verdict};
pub use integrity::{IntegrityIssue, IntegrityReport};
pub use journal::{
    discover_runs, load_run, Decision, Effect, EffectStatus, Event, Resolution, Run, RunDir,
    RunMeta,
};
pub use summary::{render_json, render_table, summarize, RunStatus, RunSummary};
pub use timeline::{timeline, Timeline, TimelineOptions};
