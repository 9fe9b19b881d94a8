//! proclint: a static linter for babysitter agent processes.
//!
//! Pipeline: [`discover`] → per file in parallel ([`engine`]): parse
//! ([`js::parse`]), build the process model ([`js::model`]), run every rule
//! ([`rules`]), apply suppressions ([`suppress`]) → sort → [`report`].
//!
//! The modules form layers, each importing only from itself and below (see
//! docs/development.md, "Architecture"; `tests/architecture.rs` enforces it).

pub mod baseline;
pub mod cache;
pub mod cli;
pub mod commands;
pub mod config;
pub mod diagnostic;
pub mod discover;
pub mod engine;
pub mod facts;
pub mod fingerprint;
pub mod fix;
pub mod inject;
pub mod js;
pub mod manifest;
pub mod manual;
pub mod markdown;
pub mod mcp;
pub mod output;
pub mod project;
pub mod report;
pub mod result_uses;
pub mod rules;
pub mod run_analysis;
pub mod runs;
pub mod server;
pub mod source;
pub mod suppress;
