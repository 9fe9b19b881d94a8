//! Compares the oxc front end's tree with tree-sitter's, file by file:
//! `cargo run --release --example front_diff -- DIR_OR_FILE...` prints, per
//! file that differs, the first difference; `--dump FILE` prints both trees.
use std::path::Path;

use proclint::js::syntax::{oxc, parse, tree::Tree};

fn dump(t: &Tree, text: &str) {
    let mut depth = Vec::new();
    for n in t.nodes() {
        while let Some(&last) = depth.last() {
            if Some(last) == n.parent().map(|p| p.id()) {
                break;
            }
            depth.pop();
        }
        let snippet: String = text[n.start_byte()..n.end_byte()]
            .chars()
            .take(30)
            .collect();
        println!(
            "{}{} {}..{} {}{:?}",
            "  ".repeat(depth.len()),
            n.kind(),
            n.start_byte(),
            n.end_byte(),
            if n.is_named() { "" } else { "(anon) " },
            snippet
        );
        depth.push(n.id());
    }
}

fn walk(p: &Path, out: &mut Vec<std::path::PathBuf>) {
    if p.is_dir() {
        let Ok(dir) = std::fs::read_dir(p) else {
            return;
        };
        let mut es: Vec<_> = dir.flatten().map(|e| e.path()).collect();
        es.sort();
        for e in es {
            walk(&e, out);
        }
    } else if p
        .extension()
        .is_some_and(|e| e == "js" || e == "mjs" || e == "cjs")
    {
        out.push(p.to_path_buf());
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--count") {
        let text = std::fs::read_to_string(args.get(1).ok_or("--count FILE")?)?;
        let t = oxc::parse(&text).ok_or("fell back")?;
        println!(
            "{} bytes, {} nodes, {:.2} nodes/byte",
            text.len(),
            t.len(),
            t.len() as f64 / text.len() as f64
        );
        return Ok(());
    }
    if args.first().map(String::as_str) == Some("--dump") {
        let text = std::fs::read_to_string(args.get(1).ok_or("--dump FILE")?)?;
        let ts = parse::parse_tree(&text).ok_or("tree-sitter gave no tree")?;
        println!("== tree-sitter");
        dump(&ts, &text);
        println!("== oxc");
        match oxc::parse_or_why(&text) {
            Ok(t) => {
                dump(&t, &text);
                println!("== first difference: {:?}", ts.first_difference(&t));
            }
            Err(why) => println!("(fell back: {why:?})"),
        }
        return Ok(());
    }
    let mut files = Vec::new();
    for a in &args {
        walk(Path::new(a), &mut files);
    }
    let (mut same, mut differ, mut fell, mut ts_err) = (0, 0, 0, 0);
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let Some(ts) = parse::parse_tree(&text) else {
            continue;
        };
        match oxc::parse_or_why(&text) {
            Err(why) => {
                fell += 1;
                println!(
                    "FELLBACK {} {why:?} ts_error={}",
                    f.display(),
                    ts.root_node().has_error()
                );
            }
            Ok(t) => {
                if ts.root_node().has_error() {
                    ts_err += 1;
                }
                match ts.first_difference(&t) {
                    None => same += 1,
                    Some(d) => {
                        differ += 1;
                        println!("DIFF {}: {}", f.display(), d);
                    }
                }
            }
        }
    }
    println!("files {} same {same} differ {differ} fell back {fell} (ts error among oxc-accepted: {ts_err})", files.len());
    Ok(())
}
