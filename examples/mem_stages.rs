//! Bytes allocated by each stage of one module's analysis (the tree, the
//! model, the summary, the facts), counted by a wrapping allocator:
//! `cargo run --release --example mem_stages -- FILE.js`. Reserved but
//! untouched capacity counts here though it is not resident.
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
struct Count;
static CUR: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
unsafe impl GlobalAlloc for Count {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let c = CUR.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(c, Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        CUR.fetch_sub(l.size(), Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if n > l.size() {
            let c = CUR.fetch_add(n - l.size(), Relaxed) + n - l.size();
            PEAK.fetch_max(c, Relaxed);
        } else {
            CUR.fetch_sub(l.size() - n, Relaxed);
        }
        unsafe { System.realloc(p, l, n) }
    }
}
#[global_allocator]
static A: Count = Count;
fn mb(x: usize) -> f64 {
    x as f64 / 1e6
}
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: mem_stages FILE.js")?;
    let text = std::fs::read_to_string(&path)?;
    let n = text.len();
    let file = proclint::source::SourceFile::new("x.js", text);
    let r = |s: &str| {
        println!(
            "{s:>10}: current {:8.1} MB ({:5.1} B/byte) peak {:8.1} MB ({:5.1} B/byte)",
            mb(CUR.load(Relaxed)),
            CUR.load(Relaxed) as f64 / n as f64,
            mb(PEAK.load(Relaxed)),
            PEAK.load(Relaxed) as f64 / n as f64
        );
    };
    r("read");
    let tree = proclint::js::syntax::oxc::parse(&file.text)
        .or_else(|| proclint::js::syntax::parse::parse_tree(&file.text))
        .ok_or("no tree")?;
    r("tree");
    let model = proclint::js::model::JsModel::build(&file, &tree, &Default::default());
    r("model");
    let s = proclint::js::summary::build::summarize(&model, "x.js".into(), true);
    r("summary");
    let f = proclint::project::facts::process_facts(&model);
    r("facts");
    drop((s, f));
    println!(
        "calls {} effects {} bindings {} scopes {} resolved {} functions {} nodes {}",
        model.calls.len(),
        model.effects.len(),
        model.scopes.bindings.len(),
        model.scopes.scopes.len(),
        model.scopes.resolved.len(),
        model.functions.len(),
        tree.len()
    );
    println!(
        "size_of Call {} Binding {} Effect {}",
        std::mem::size_of::<proclint::js::model::Call>(),
        std::mem::size_of::<proclint::js::model::scope::Binding>(),
        std::mem::size_of::<proclint::js::model::Effect>()
    );
    {
        use proclint::js::summary as m;
        println!(
            "size_of InvocationSummary {} ReadSet {} StringSet {} TaskRef {} Location {}",
            std::mem::size_of::<m::InvocationSummary>(),
            std::mem::size_of::<m::ReadSet>(),
            std::mem::size_of::<m::StringSet>(),
            std::mem::size_of::<m::TaskRef>(),
            std::mem::size_of::<proclint::source::Location>()
        );
    }
    Ok(())
}
