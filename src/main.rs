use clap::Parser;

// glibc malloc was ≈ 13% of a cold check (tree-sitter allocates a node per
// subtree, the model many small vectors); mimalloc's per-thread free lists
// suit rayon's one-file-per-task pattern.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // tree-sitter's C core calls malloc directly; route it to the same
    // allocator. Must run before any parser exists, while single-threaded.
    // SAFETY: the four functions are one allocator family (mimalloc), never
    // return null for non-zero sizes, align like malloc, and no tree-sitter
    // object exists yet.
    unsafe {
        tree_sitter::set_allocator(Some(tree_sitter::Allocator {
            malloc: libmimalloc_sys::mi_malloc,
            calloc: libmimalloc_sys::mi_calloc,
            realloc: libmimalloc_sys::mi_realloc,
            free: libmimalloc_sys::mi_free,
        }));
    }
    // SAFETY: `mi_collect` only returns free memory of mimalloc's heaps.
    proclint::engine::set_release_freed(|| unsafe { libmimalloc_sys::mi_collect(true) });
    // A panic inside a rule is caught and reported as an `internal-error`
    // diagnostic; keep the default hook's backtrace noise off the output.
    if std::env::var_os("PROCLINT_DEBUG_PANICS").is_none() {
        std::panic::set_hook(Box::new(|_| {}));
    }
    let cli = proclint::commands::cli::Cli::parse();
    std::process::exit(proclint::commands::run(cli));
}
