//! proclint: a static linter for babysitter agent processes.
//!
//! Pipeline: [`engine::discover`] → per file in parallel ([`engine`]): parse
//! ([`js::syntax`]), build the process model ([`js::model`]), run every rule
//! ([`rules`]), apply suppressions ([`engine::suppress`]) → sort → [`report`].
//!
//! Each module below is a folder and a layer, lowest first: a module imports
//! only from its own layer and the ones above it in this list (see
//! docs/development.md, "Architecture"; `tests/architecture.rs` enforces it).

// Text, positions, what leaves the process.
pub mod source;

// The one finding type.
pub mod diagnostic;

// The front ends, one per input; they do not import each other.
pub mod js;
pub mod manifest;
pub mod markdown;
pub mod runs;

// What spans files: the cross-module index, run analysis, configuration.
pub mod project;

// One rule per file, and the registry.
pub mod rules;

// Paths in, sorted findings out: discovery, cache, suppressions, fixes.
pub mod engine;

// Renderers.
pub mod report;

// The language server and the MCP server.
pub mod mcp;
pub mod server;

// The CLI.
pub mod commands;
