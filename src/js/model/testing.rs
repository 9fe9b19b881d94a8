//! Test helper: build the model of a snippet.

use crate::js::model::{JsModel, ModelOptions};
use crate::source::SourceFile;

/// Parses `src` and hands its model to `f`.
pub fn with_model<R>(src: &str, f: impl FnOnce(&JsModel) -> R) -> R {
    let file = SourceFile::new("test.js", src.to_string());
    let tree =
        crate::js::syntax::parse::parse_tree(&file.text).unwrap_or_else(|| panic!("parse failed"));
    let model = JsModel::build(&file, &tree, &ModelOptions::default());
    f(&model)
}
