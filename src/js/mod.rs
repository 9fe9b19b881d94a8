//! JavaScript front end, in three layers: `syntax` (the parsers and the flat
//! tree every analysis reads: [`syntax::tree`]), `model` (scopes, calls,
//! loops, effects and task definitions: [`model::JsModel`]), and `analysis`
//! (the shared queries over the model rules ask), plus `summary`, the owned
//! per-module summary the cross-module pass reads.
//!
//! Everything rules need to know about a process module is computed here once
//! per file; rules query the model instead of walking syntax themselves.

pub mod analysis;
pub mod model;
pub mod summary;
pub mod syntax;

pub use model::{EffectKind, JsModel, ModelOptions};
