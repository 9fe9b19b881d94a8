//! JavaScript front end: tree-sitter parse → scopes → [`model::JsModel`].
//!
//! Everything rules need to know about a process module is computed here once
//! per file; rules query the model instead of walking syntax themselves.

pub mod catch;
pub mod context_api;
pub mod effects;
pub mod exports;
pub mod flow;
pub mod globals;
pub mod ids;
pub mod isolation;
pub mod loops;
pub mod model;
pub mod module_summary;
pub mod objects;
pub mod oxc;
pub mod parse;
pub mod repeat;
pub mod replay;
pub mod results;
pub mod scope;
pub mod strings;
pub mod summary;
pub mod syntax;
pub mod taint;
pub mod tasks;
#[cfg(test)]
pub mod testing;
pub mod tree;

pub use model::{EffectKind, JsModel, ModelOptions};
