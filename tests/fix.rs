//! `--fix` / `--fix --diff`: edits by span, formatting preserved,
//! idempotent, nothing written in diff mode.

mod common;

use common::*;

const TASKS: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\n\
export const reviewTask = defineTask('spec-review', (args) => ({\n\
\t\tkind: 'agent',   // tabs and a trailing comment stay as they are\n\
\t\ttitle: 'Review',\n\
}), {\n\
\tlabels: ['spec', 'review'],\n\
});\n";

const MANIFEST: &str = "{\n    \"name\": \"x\",\n    \"dependencies\": { \"@a5c-ai/babysitter-sdk\": \"^0.3.1\" }\n}\n";
const LOCK: &str = "{\n  \"name\": \"x\",\n  \"lockfileVersion\": 3,\n  \"packages\": {\n    \"\": { \"dependencies\": { \"@a5c-ai/babysitter-sdk\": \"^0.3.1\" } },\n    \"node_modules/@a5c-ai/babysitter-sdk\": { \"version\": \"0.3.4\" }\n  }\n}\n";

#[test]
fn diff_writes_nothing_and_fix_is_idempotent() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "tasks.js", TASKS);
    write(d, "package.json", MANIFEST);
    write(d, "package-lock.json", LOCK);

    let o = proclint_in(d, &["check", ".", "--fix", "--diff"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let diff = stdout(&o);
    assert!(
        diff.contains("+\t\tlabels: ['spec', 'review'],")
            && diff.contains("-\tlabels: ['spec', 'review'],"),
        "{diff}"
    );
    assert!(
        diff.contains("-    \"dependencies\": { \"@a5c-ai/babysitter-sdk\": \"^0.3.1\" }"),
        "{diff}"
    );
    assert!(
        diff.contains("+    \"dependencies\": { \"@a5c-ai/babysitter-sdk\": \"0.3.4\" }"),
        "{diff}"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("tasks.js")).unwrap_or_default(),
        TASKS
    );

    let o = proclint_in(d, &["check", ".", "--fix", "--format", "concise"]);
    assert!(
        stderr(&o).contains("fixed 2 findings in 2 files"),
        "{}",
        stderr(&o)
    );
    let tasks = std::fs::read_to_string(d.join("tasks.js")).unwrap_or_default();
    assert_eq!(
        tasks,
        TASKS
            .replace(
                "// tabs and a trailing comment stay as they are\n",
                "// tabs and a trailing comment stay as they are\n\t\tlabels: ['spec', 'review'],\n"
            )
            .replace("{\n\tlabels: ['spec', 'review'],\n});", "{\n});")
    );
    let manifest = std::fs::read_to_string(d.join("package.json")).unwrap_or_default();
    assert_eq!(manifest, MANIFEST.replace("^0.3.1", "0.3.4"));

    // A second run changes nothing.
    let o = proclint_in(d, &["check", ".", "--fix", "--diff"]);
    assert_eq!(code(&o), 0);
    assert_eq!(stdout(&o), "");
    let o = proclint_in(d, &["check", ".", "--fix"]);
    assert!(stderr(&o).contains("fixed 0 findings"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(d.join("tasks.js")).unwrap_or_default(),
        tasks
    );
}

#[test]
fn diff_requires_fix() {
    let o = proclint(&["check", "fixtures/realistic", "--diff"]);
    assert_eq!(code(&o), 2);
}
