//! The layer order of docs/development.md ("Architecture"), enforced: every
//! `crate::` path in `src/` (in `use` trees, in code, in `#[serde(with =
//! "crate::…")]` strings; `super::` and `self::` resolved from the file's
//! module) may name only its own layer or a lower one, and the front ends
//! do not import each other. Test code (`#[cfg(test)]` items) is exempt: a
//! rule's tests may drive the whole engine without the rule depending on it.

use std::path::{Path, PathBuf};

/// Lowest first. A module may import its own layer and the layers before
/// it. Every top-level module of `src/` must be listed; `server` (the
/// language server) and `mcp` (the MCP server) share a layer, and `mcp`
/// uses `server::lint`.
const LAYERS: &[(&str, &[&str])] = &[
    ("source", &["source"]),
    ("diagnostic", &["diagnostic"]),
    ("front ends", &["js", "markdown", "manifest", "runs"]),
    ("project", &["project"]),
    ("rules", &["rules"]),
    ("engine", &["engine"]),
    ("report", &["report"]),
    ("server", &["server", "mcp"]),
    ("commands", &["commands"]),
    // The crate roots: `lib.rs` (module declarations) and `main.rs`.
    ("main", &[ROOT]),
];

/// The layers inside the JavaScript front end, lowest first: the parsers
/// and the flat tree, the model built from it, the analyses over the
/// model, and the owned summary built from the analyses. `js/mod.rs`
/// re-exports and is in none.
const JS_LAYERS: &[&str] = &["syntax", "model", "analysis", "summary"];

/// The layer whose modules must not import each other.
const FRONT_ENDS: &str = "front ends";

/// Stands for the crate root (`lib.rs`, `main.rs`) in [`LAYERS`].
const ROOT: &str = "<crate root>";

/// (index, name) of the layer a module path's top-level module is in.
fn layer_of(module: &[String]) -> Option<(usize, &'static str)> {
    let top = module.first().map_or(ROOT, String::as_str);
    LAYERS
        .iter()
        .enumerate()
        .find(|(_, (_, mods))| mods.contains(&top))
        .map(|(i, (name, _))| (i, *name))
}

/// Index in [`JS_LAYERS`] of a module path under `js`.
fn js_layer_of(module: &[String]) -> Option<usize> {
    match module {
        [js, sub, ..] if js == "js" => JS_LAYERS.iter().position(|l| l == sub),
        _ => None,
    }
}

/// Why a file is not in its layer's folder, if it is not: only `lib.rs` and
/// `main.rs` sit at the root of `src/`, and only `js/mod.rs` at the root of
/// `js/`.
fn misplaced(rel: &Path, module: &[String]) -> Option<String> {
    let depth = rel.components().count();
    if depth == 1 && !module.is_empty() {
        return Some(
            "is outside its layer's folder: only lib.rs and main.rs sit at the root of src/; move \
             it into the folder of its layer (src/<module>/, see LAYERS)"
                .to_string(),
        );
    }
    if module.first().is_some_and(|m| m == "js")
        && module.len() >= 2
        && js_layer_of(module).is_none()
    {
        return Some(format!(
            "is in none of js's layer folders ({}): move it into the one it belongs to",
            JS_LAYERS.join(", ")
        ));
    }
    None
}

/// The module a file under `src/` defines: `src/js/model.rs` → `js::model`,
/// `src/js/mod.rs` → `js`, `src/lib.rs` and `src/main.rs` → the root.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        let root_file = parts.is_empty() && (stem == "lib" || stem == "main");
        if stem != "mod" && !root_file {
            parts.push(stem.to_string());
        }
    }
    parts
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

/// Tokens with their 1-based lines: comments, literals and lifetimes are
/// dropped, except that a string literal holding a `crate::` path (serde's
/// `with = "crate::…"`) is read as that path.
fn lex(text: &str) -> Vec<(usize, Tok)> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let ident_start = |ch: char| ch.is_alphabetic() || ch == '_';
    let ident_char = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if c[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if ch == '"' {
            let start_line = line;
            let mut s = String::new();
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    i += 1;
                }
                if c.get(i) == Some(&'\n') {
                    line += 1;
                }
                if let Some(&x) = c.get(i) {
                    s.push(x);
                }
                i += 1;
            }
            i += 1;
            let is_path = s.starts_with("crate::") && s.chars().all(|x| ident_char(x) || x == ':');
            if is_path {
                out.extend(lex(&s).into_iter().map(|(_, t)| (start_line, t)));
            }
        } else if ch == '\'' {
            if next == Some('\\') {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                // A lifetime or label.
                i += 1;
                while i < c.len() && ident_char(c[i]) {
                    i += 1;
                }
            }
        } else if ch.is_ascii_digit() {
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
        } else if ident_start(ch) {
            let start = i;
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let quote = c.get(i).copied();
            if (word == "r" || word == "br") && matches!(quote, Some('"') | Some('#')) {
                let mut hashes = 0;
                while c.get(i + hashes) == Some(&'#') {
                    hashes += 1;
                }
                if c.get(i + hashes) == Some(&'"') {
                    // A raw string: up to `"` and as many `#`.
                    i += hashes + 1;
                    while i < c.len() {
                        if c[i] == '"' && (1..=hashes).all(|k| c.get(i + k) == Some(&'#')) {
                            i += hashes + 1;
                            break;
                        }
                        if c[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                    continue;
                }
                if word == "r" && hashes == 1 {
                    // A raw identifier (`r#type`).
                    i += 1;
                    continue;
                }
            }
            if word == "b" && matches!(quote, Some('"') | Some('\'')) {
                // A byte string or byte: lexed as the literal it prefixes.
                continue;
            }
            out.push((line, Tok::Ident(word)));
        } else if ch == ':' && next == Some(':') {
            out.push((line, Tok::Sep));
            i += 2;
        } else {
            out.push((line, Tok::Punct(ch)));
            i += 1;
        }
    }
    out
}

fn is_ident(t: Option<&(usize, Tok)>, word: &str) -> bool {
    matches!(t, Some((_, Tok::Ident(w))) if w == word)
}

fn is_punct(t: Option<&(usize, Tok)>, ch: char) -> bool {
    matches!(t, Some((_, Tok::Punct(p))) if *p == ch)
}

/// Index just past the bracket group opening at `i` (`(`, `[` or `{`).
fn skip_group(toks: &[(usize, Tok)], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < toks.len() {
        match &toks[i].1 {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// Index just past the item starting at `i` (after its attributes): its
/// `;`, or its first brace group.
fn skip_item(toks: &[(usize, Tok)], mut i: usize) -> usize {
    while is_punct(toks.get(i), '#') && is_punct(toks.get(i + 1), '[') {
        i = skip_group(toks, i + 1);
    }
    while i < toks.len() {
        match &toks[i].1 {
            Tok::Punct(';') => return i + 1,
            Tok::Punct('{') => return skip_group(toks, i),
            Tok::Punct('(' | '[') => i = skip_group(toks, i),
            _ => i += 1,
        }
    }
    i
}

/// Parses the path or use tree after `prefix::` at `i`, pushing every path
/// it names onto `out`. Returns the index after it.
fn use_tree(
    toks: &[(usize, Tok)],
    mut i: usize,
    mut prefix: Vec<String>,
    line: usize,
    out: &mut Vec<(usize, Vec<String>)>,
) -> usize {
    loop {
        match toks.get(i).map(|t| &t.1) {
            Some(Tok::Ident(w)) if w == "self" => {
                out.push((line, prefix));
                return i + 1;
            }
            Some(Tok::Ident(w)) => {
                prefix.push(w.clone());
                i += 1;
                if matches!(toks.get(i), Some((_, Tok::Sep))) {
                    i += 1;
                    continue;
                }
                out.push((line, prefix));
                return i;
            }
            Some(Tok::Punct('{')) => {
                i += 1;
                loop {
                    match toks.get(i).map(|t| &t.1) {
                        None => return i,
                        Some(Tok::Punct('}')) => return i + 1,
                        Some(Tok::Punct(',')) => i += 1,
                        _ => {
                            i = use_tree(toks, i, prefix.clone(), line, out);
                            // `as name`, up to the next item of the group.
                            while i < toks.len()
                                && !is_punct(toks.get(i), ',')
                                && !is_punct(toks.get(i), '}')
                            {
                                i += 1;
                            }
                        }
                    }
                }
            }
            _ => {
                // `*`, or generics after `::`: the path so far.
                out.push((line, prefix));
                return i;
            }
        }
    }
}

/// Every `crate::` path a file names outside test code, made absolute
/// (`super::` and `self::` resolved from `module`, and from inline modules
/// inside the file), with its line.
fn imports(module: &[String], text: &str) -> Vec<(usize, Vec<String>)> {
    let toks = lex(text);
    let mut out = Vec::new();
    // Inline modules open at a brace depth: (name, depth).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut pending_mod: Option<String> = None;
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let cfg_test = is_punct(toks.get(i), '#')
            && is_punct(toks.get(i + 1), '[')
            && is_ident(toks.get(i + 2), "cfg")
            && is_punct(toks.get(i + 3), '(')
            && is_ident(toks.get(i + 4), "test")
            && is_punct(toks.get(i + 5), ')')
            && is_punct(toks.get(i + 6), ']');
        if cfg_test {
            i = skip_item(&toks, i + 7);
            continue;
        }
        let (line, tok) = &toks[i];
        match tok {
            Tok::Ident(w) if w == "mod" => {
                if let (Some((_, Tok::Ident(name))), true) =
                    (toks.get(i + 1), is_punct(toks.get(i + 2), '{'))
                {
                    pending_mod = Some(name.clone());
                }
                i += 1;
            }
            Tok::Punct('{') => {
                depth += 1;
                if let Some(name) = pending_mod.take() {
                    inline.push((name, depth));
                }
                i += 1;
            }
            Tok::Punct('}') => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            Tok::Ident(w)
                if matches!(w.as_str(), "crate" | "super" | "self")
                    && matches!(toks.get(i + 1), Some((_, Tok::Sep)))
                    && !is_punct(i.checked_sub(1).and_then(|p| toks.get(p)), '$') =>
            {
                let mut base: Vec<String> = match w.as_str() {
                    "crate" => Vec::new(),
                    _ => module
                        .iter()
                        .cloned()
                        .chain(inline.iter().map(|(n, _)| n.clone()))
                        .collect(),
                };
                let mut j = i + 2;
                if w == "super" {
                    base.pop();
                    while is_ident(toks.get(j), "super")
                        && matches!(toks.get(j + 1), Some((_, Tok::Sep)))
                    {
                        base.pop();
                        j += 2;
                    }
                }
                i = use_tree(&toks, j, base, *line, &mut out);
            }
            _ => i += 1,
        }
    }
    out
}

/// What is wrong with the imports of the files `(path under src/, text)`.
fn violations(files: &[(PathBuf, String)]) -> Vec<String> {
    let mut errors = Vec::new();
    let allowed = |layer: usize| {
        LAYERS[..=layer]
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (rel, text) in files {
        let shown = Path::new("src").join(rel).display().to_string();
        let module = module_of(rel);
        if let Some(misplaced) = misplaced(rel, &module) {
            errors.push(format!("{shown} {misplaced}"));
            continue;
        }
        let Some((own, own_name)) = layer_of(&module) else {
            errors.push(format!(
                "{shown} (module `{}`) is in no layer: add its top-level module to LAYERS in \
                 tests/architecture.rs and to the layer list in docs/development.md",
                module.join("::")
            ));
            continue;
        };
        for (line, path) in imports(&module, text) {
            let named = format!("crate::{}", path.join("::"));
            let Some((theirs, their_name)) = layer_of(&path) else {
                errors.push(format!(
                    "{shown}:{line} imports {named}, which is in no layer"
                ));
                continue;
            };
            if theirs > own {
                errors.push(format!(
                    "{shown}:{line} imports {named} (layer {their_name}) but {own_name} may only \
                     import {}",
                    allowed(own)
                ));
            } else if theirs == own && own_name == FRONT_ENDS && path.first() != module.first() {
                errors.push(format!(
                    "{shown}:{line} imports {named}: the front ends ({}) do not import each other",
                    LAYERS[own].1.join(", ")
                ));
            } else if let (Some(mine), Some(their)) = (js_layer_of(&module), js_layer_of(&path)) {
                if their > mine {
                    errors.push(format!(
                        "{shown}:{line} imports {named} (js::{}) but js::{} may only import {}",
                        JS_LAYERS[their],
                        JS_LAYERS[mine],
                        JS_LAYERS[..=mine].join(", ")
                    ));
                }
            }
        }
    }
    errors
}

/// Import circles between files: groups of files each reachable from the
/// others through `crate::`/`super::`/`self::` paths (test code excepted),
/// each path resolved to the file of the longest module it names. A
/// module's use of its own submodules is not counted: a `mod.rs` is the
/// root its children hang from (it declares and re-exports them), as the
/// crate root is for every module. Every other edge is: a child's use of
/// its parent, siblings, cousins.
fn circles(files: &[(PathBuf, String)]) -> Vec<String> {
    let modules: Vec<Vec<String>> = files.iter().map(|(rel, _)| module_of(rel)).collect();
    let index: std::collections::HashMap<&[String], usize> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_slice(), i))
        .collect();
    // edges[i]: (target file, line, path) for every import of file i.
    let mut edges: Vec<Vec<(usize, usize, String)>> = vec![Vec::new(); files.len()];
    for (i, (_, text)) in files.iter().enumerate() {
        let own = &modules[i];
        for (line, path) in imports(own, text) {
            let Some(target) = (0..=path.len())
                .rev()
                .find_map(|k| index.get(&path[..k]).copied())
            else {
                continue;
            };
            let descendant = modules[target].starts_with(own);
            if target != i && !descendant {
                edges[i].push((target, line, format!("crate::{}", path.join("::"))));
            }
        }
    }
    // Tarjan's strongly connected components, iteratively.
    let n = files.len();
    let (mut order, mut low) = (vec![usize::MAX; n], vec![0; n]);
    let (mut on_stack, mut stack, mut groups) = (vec![false; n], Vec::new(), Vec::new());
    let mut next = 0;
    for root in 0..n {
        if order[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut k)) = work.last_mut() {
            if *k == 0 {
                order[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&(w, _, _)) = edges[v].get(*k) {
                *k += 1;
                if order[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == order[v] {
                let mut group = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    group.push(w);
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    groups.push(group);
                }
            }
        }
    }
    let shown = |i: usize| Path::new("src").join(&files[i].0).display().to_string();
    let mut out = Vec::new();
    for mut group in groups {
        group.sort_by_key(|&i| shown(i));
        let mut lines = vec![format!(
            "import circle between {}:",
            group
                .iter()
                .map(|&i| shown(i))
                .collect::<Vec<_>>()
                .join(", ")
        )];
        for &i in &group {
            for (w, line, path) in &edges[i] {
                if group.contains(w) {
                    lines.push(format!(
                        "  {}:{line} imports {path} ({})",
                        shown(i),
                        shown(*w)
                    ));
                }
            }
        }
        out.push(lines.join("\n"));
    }
    out.sort();
    out
}

fn src_files() -> Vec<(PathBuf, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths.sort();
    assert!(
        paths.len() > 50,
        "found only {} files under src/",
        paths.len()
    );
    paths
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(&src).unwrap_or(p).to_path_buf();
            let text =
                std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (rel, text)
        })
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn imports_follow_the_layer_order() {
    let errors = violations(&src_files());
    assert!(
        errors.is_empty(),
        "imports against the layer order (docs/development.md, \"Architecture\"):\n{}",
        errors.join("\n")
    );
}

#[test]
fn no_import_circle_between_files() {
    let found = circles(&src_files());
    assert!(
        found.is_empty(),
        "files that import each other (move what they share into the lower one, or make \
         them one module):\n{}",
        found.join("\n")
    );
}

fn file(path: &str, text: &str) -> (PathBuf, String) {
    (PathBuf::from(path), text.to_string())
}

#[test]
fn a_back_edge_fails_with_file_import_and_rule() {
    let errors = violations(&[file(
        "diagnostic/mod.rs",
        "use crate::source::Span;\n\nfn f() { crate::rules::meta(\"x\"); }\n",
    )]);
    assert_eq!(
        errors,
        [
            "src/diagnostic/mod.rs:3 imports crate::rules::meta (layer rules) but diagnostic may only \
          import source, diagnostic"
        ]
    );
}

#[test]
fn a_file_outside_its_layer_folder_fails() {
    let errors = violations(&[file("cache.rs", "use crate::source::Span;\n")]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("src/cache.rs is outside its layer's folder"),
        "{errors:?}"
    );
    let errors = violations(&[file("js/flow.rs", "")]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("none of js's layer folders"),
        "{errors:?}"
    );
    assert_eq!(
        violations(&[file("lib.rs", "pub mod source;\n")]),
        Vec::<String>::new()
    );
}

#[test]
fn the_js_layers_are_ordered() {
    let errors = violations(&[
        file("js/model/walk.rs", "use crate::js::analysis::flow::uses;\n"),
        file("js/analysis/flow.rs", "use crate::js::model::JsModel;\n"),
    ]);
    assert_eq!(
        errors,
        [
            "src/js/model/walk.rs:1 imports crate::js::analysis::flow::uses (js::analysis) but \
          js::model may only import syntax, model"
        ]
    );
}

#[test]
fn a_circle_between_siblings_is_found_and_a_parent_using_its_child_is_not() {
    let found = circles(&[
        file(
            "engine/mod.rs",
            "use crate::engine::read::lint;\npub struct Outcome;\n",
        ),
        file(
            "engine/read.rs",
            "use super::Outcome;\nuse super::cached::entry;\n",
        ),
        file(
            "engine/cached.rs",
            "fn f() { crate::engine::read::empty(); }\n",
        ),
    ]);
    assert_eq!(
        found,
        [
            "import circle between src/engine/cached.rs, src/engine/read.rs:\n  \
          src/engine/cached.rs:1 imports crate::engine::read::empty (src/engine/read.rs)\n  \
          src/engine/read.rs:2 imports crate::engine::cached::entry (src/engine/cached.rs)"
        ]
    );
    let tree = [
        file(
            "project/mod.rs",
            "use crate::project::uses::compute;\npub struct P;\n",
        ),
        file("project/uses.rs", "use super::P;\n"),
    ];
    assert_eq!(circles(&tree), Vec::<String>::new());
}

#[test]
fn front_ends_do_not_import_each_other() {
    let errors = violations(&[file("runs/journal.rs", "use crate::js::JsModel;\n")]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("do not import each other"), "{errors:?}");
}

#[test]
fn a_file_in_no_layer_fails() {
    let errors = violations(&[file("widgets/mod.rs", "")]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].starts_with("src/widgets/mod.rs (module `widgets`) is in no layer"));
}

#[test]
fn every_form_of_path_is_found() {
    let text = r##"
//! Mentions crate::engine in a doc comment, which is not an import.
use crate::{diagnostic::{self, Diagnostic}, source::{Span, Pos as P}};
use super::sibling::Thing;
use self::inner_child::X;

#[derive(Serialize)]
struct S {
    #[serde(with = "crate::source::interned_path")]
    path: String,
}

fn f<'a>(x: &'a str) -> char {
    let _ = "crate::report is only text";
    let _ = r#"crate::commands::cli"#;
    let _ = crate::engine::on_pool(|| 1);
    let _ = crate::diagnostic::Location { path: x.into() };
    '{'
}

mod inline {
    use super::here::Y;
}

#[cfg(test)]
mod tests {
    use crate::commands::run;
}

#[cfg(test)]
fn helper() { crate::commands::run(); }
"##;
    let module = vec!["js".to_string(), "model".to_string()];
    let found: Vec<String> = imports(&module, text)
        .into_iter()
        .map(|(_, p)| p.join("::"))
        .collect();
    assert_eq!(
        found,
        [
            "diagnostic",
            "diagnostic::Diagnostic",
            "source::Span",
            "source::Pos",
            "js::sibling::Thing",
            "js::model::inner_child::X",
            "source::interned_path",
            "engine::on_pool",
            "diagnostic::Location",
            "js::model::here::Y",
        ]
    );
}

/// The parsers stay behind one seam: analyses read `js::tree`, never a
/// tree-sitter node or an oxc AST, so a front end only has to produce that
/// tree.
#[test]
fn only_the_parser_seam_names_tree_sitter() {
    const SEAM: &[&str] = &[
        "js/syntax/parse.rs",
        "js/syntax/tree.rs",
        "engine/file.rs",
        "engine/open.rs",
        "server/document.rs",
        "main.rs",
    ];
    assert_eq!(files_naming("tree_sitter", SEAM), Vec::<String>::new());
}

#[test]
fn only_the_fast_front_end_names_oxc() {
    assert_eq!(
        files_naming("oxc_", &["js/syntax/oxc/"]),
        Vec::<String>::new()
    );
}

/// Files under src/ outside `allowed` (paths, or folders ending in `/`)
/// whose code (not comments) names `needle`.
fn files_naming(needle: &str, allowed: &[&str]) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths.sort();
    let mut outside = Vec::new();
    for p in &paths {
        let rel = p.strip_prefix(&src).unwrap_or(p);
        let rel = rel.to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        // Comments may name it; code may not.
        let named = text.lines().any(|l| {
            let code = l.split("//").next().unwrap_or("");
            code.contains(needle)
        });
        let inside = allowed
            .iter()
            .any(|a| rel == *a || (a.ends_with('/') && rel.starts_with(a)));
        if named && !inside {
            outside.push(rel);
        }
    }
    assert!(paths.len() > 50, "found only {} files", paths.len());
    outside
}
