//! `proclint completions <shell>` and `proclint man`.

mod common;

use std::process::Command;

use common::*;

const SUBCOMMANDS: &[&str] = &["check", "rules", "explain", "runs", "completions", "man"];

#[test]
fn completions_name_every_subcommand_in_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = proclint(&["completions", shell]);
        assert_eq!(code(&out), 0, "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        assert!(!script.trim().is_empty(), "{shell}: empty script");
        for sub in SUBCOMMANDS {
            assert!(script.contains(sub), "{shell}: no `{sub}`");
        }
        // fish spells long options `-l write-baseline`.
        for flag in ["format", "baseline", "write-baseline", "fail-on"] {
            assert!(script.contains(flag), "{shell}: no `{flag}`");
        }
    }
    let out = proclint(&["completions", "tcsh"]);
    assert_eq!(code(&out), 2, "an unknown shell is a usage error");
}

/// The bash script registers a completion that bash itself can run.
#[test]
fn bash_completion_completes() {
    let out = proclint(&["completions", "bash"]);
    let dir = tempdir();
    let script = write(dir.path(), "proclint.bash", &stdout(&out));
    let probe = format!(
        "source '{}' && complete -p proclint && \
         COMP_WORDS=(proclint ch) COMP_CWORD=1 COMP_LINE='proclint ch' COMP_POINT=11 && \
         _proclint proclint ch proclint && echo \"${{COMPREPLY[@]}}\" && \
         COMP_WORDS=(proclint check --write-b) COMP_CWORD=2 && \
         _proclint proclint --write-b check && echo \"${{COMPREPLY[@]}}\"",
        script.display()
    );
    let Ok(run) = Command::new("bash").args(["--norc", "-c", &probe]).output() else {
        eprintln!("bash is not installed; skipping");
        return;
    };
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains("-F _proclint proclint"), "{text}");
    assert_eq!(lines[1], "check");
    assert_eq!(lines[2], "--write-baseline");
}

#[test]
fn man_page_documents_every_command() {
    let out = proclint(&["man"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let page = stdout(&out);
    assert!(
        page.starts_with(".ie") || page.starts_with(".TH"),
        "not roff"
    );
    assert!(page.contains(".TH proclint 1"));
    assert!(page.contains(".SH NAME"));
    assert!(page.contains(".SH \"EXIT STATUS\""));
    for sub in SUBCOMMANDS {
        assert!(
            page.contains(&format!(".SS \"proclint {sub}\"")),
            "no section for `{sub}`"
        );
    }
    assert!(
        !page.contains("proclint\\-check(1)"),
        "no dangling page refs"
    );
    assert!(page.contains("write\\-baseline"));
    // The version line carries the rule count, like --version.
    let version = stdout(&proclint(&["--version"]));
    let version = version.trim().trim_start_matches("proclint ");
    assert!(page.contains(version), "{version}");

    // groff, when installed, renders it without warnings.
    let dir = tempdir();
    let file = write(dir.path(), "proclint.1", &page);
    if let Ok(run) = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .arg(&file)
        .output()
    {
        assert!(run.status.success());
        assert_eq!(String::from_utf8_lossy(&run.stderr), "", "groff warnings");
    }
}
