//! The package.json front end: a span-preserving JSON reader, the SDK dependency entries,
//! npm spec classification, and the versions lockfiles resolved.

pub mod json;
pub mod lockfile;
pub mod package_json;
pub mod spec;
