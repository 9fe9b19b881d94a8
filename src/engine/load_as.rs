//! How Node would load a process module, which decides what `parse-error`
//! holds against it: the file's extension, else the `"type"` of the nearest
//! package.json above it (Node's own lookup: the first one found, whatever
//! its other fields). In: a file's path. Out: its [`LoadAs`].

use std::path::Path;

use crate::js::syntax::oxc::LoadAs;

/// `.mjs` is a module and `.cjs` CommonJS whatever the package says; any
/// other name follows the package's `"type"`, and with none Node tries
/// CommonJS and falls back to a module on module syntax.
pub fn load_as(path: &Path) -> LoadAs {
    match path.extension().and_then(|e| e.to_str()) {
        Some("mjs") => return LoadAs::Module,
        Some("cjs") => return LoadAs::CommonJs,
        _ => {}
    }
    // A relative display path is looked up from the working directory, as
    // the engine reads it.
    let absolute;
    let path = if path.is_absolute() {
        path
    } else {
        match std::env::current_dir() {
            Ok(cwd) => {
                absolute = cwd.join(path);
                &absolute
            }
            Err(_) => path,
        }
    };
    for dir in path.ancestors().skip(1) {
        let manifest = dir.join("package.json");
        if !manifest.exists() {
            continue;
        }
        // Read as proclint reads any file it takes data from: a regular
        // file, bounded (a FIFO named package.json must not hang the run).
        // Node fails on a package.json that is not JSON; `parse-error`
        // reports that file itself, and this one is judged as untyped.
        let kind = crate::source::read_small_file(&manifest, 1 << 20)
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .and_then(|v| v.get("type")?.as_str().map(str::to_string));
        return match kind.as_deref() {
            Some("module") => LoadAs::Module,
            Some("commonjs") => LoadAs::CommonJs,
            _ => LoadAs::Either,
        };
    }
    LoadAs::Either
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_then_nearest_package_type() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.join("package.json"), r#"{"type":"module"}"#)
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.join("a/package.json"), r#"{"name":"a"}"#)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(load_as(&root.join("p.js")), LoadAs::Module);
        assert_eq!(load_as(&root.join("p.cjs")), LoadAs::CommonJs);
        // The nearest package.json decides, even without a "type".
        assert_eq!(load_as(&root.join("a/b/p.js")), LoadAs::Either);
        assert_eq!(load_as(&root.join("a/b/p.mjs")), LoadAs::Module);
        std::fs::write(root.join("a/package.json"), r#"{"type":"commonjs"}"#)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(load_as(&root.join("a/b/p.js")), LoadAs::CommonJs);
    }
}
