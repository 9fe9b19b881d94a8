//! Whether a module's export list is complete as the model records it.

use crate::js::model::JsModel;

/// True when the module may export names the model cannot list:
/// `export * from …`, `module.exports = someObject` (not a literal),
/// computed CommonJS exports (`exports[name] = …`,
/// `Object.assign(module.exports, …)`).
pub fn opaque_exports(m: &JsModel) -> bool {
    let src = m.src();
    let root = m.tree.root_node();
    let star = root.named().any(|stmt| {
        stmt.kind_str() == "export_statement"
            && stmt
                .all_children()
                .any(|ch| ch.kind_str() == "*" || ch.kind_str() == "namespace_export")
    });
    if star {
        return true;
    }
    if src.contains("exports[")
        || src.contains("Object.assign(module.exports")
        || src.contains("Object.assign(exports")
    {
        return true;
    }
    src.contains("module.exports") && m.exports.iter().any(|e| e.name == "default")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::model::testing::with_model;

    #[test]
    fn cases() {
        let cases = [
            ("export const a = 1;\nexport { b } from './b.js';\n", false),
            ("export * from './b.js';\n", true),
            ("export * as ns from './b.js';\n", true),
            ("module.exports = { a, b };\n", false),
            ("module.exports = tasks;\n", true),
            ("for (const k of ks) exports[k] = 1;\n", true),
            (
                "export default async function process() {}\nexport const t = 1;\n",
                false,
            ),
        ];
        for (src, want) in cases {
            assert_eq!(with_model(src, opaque_exports), want, "{src}");
        }
    }
}
