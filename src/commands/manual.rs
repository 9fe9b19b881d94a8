//! `proclint completions <shell>` and `proclint man`: generated from the clap
//! definitions in [`crate::commands::cli`], so they never drift from the real options.

use std::io::Write;

use clap::CommandFactory;

use crate::commands::cli::Cli;
use crate::source::output::{EXIT_ERROR, EXIT_OK};

/// Prints a completion script for `shell` to stdout.
pub fn completions(shell: clap_complete::Shell) -> i32 {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "proclint", &mut out);
    emit(&out)
}

/// Prints the man page, `proclint(1)`, with every subcommand's options in
/// one page (the way `man proclint` readers expect to search it).
pub fn man() -> i32 {
    let cmd = Cli::command();
    let mut out = Vec::new();
    let rendered = render_man(&cmd, &mut out);
    match rendered {
        Ok(()) => emit(&out),
        Err(e) => {
            eprintln!("error: cannot render the man page: {e}");
            EXIT_ERROR
        }
    }
}

fn render_man(cmd: &clap::Command, out: &mut Vec<u8>) -> std::io::Result<()> {
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    // One page for everything: clap_mangen's subcommand list points at
    // separate `proclint-check(1)` pages, which a single `proclint man`
    // cannot install. Each command gets a subsection with its synopsis
    // and options instead (its section headings become paragraph breaks,
    // since roff sections cannot nest).
    writeln!(out, ".SH COMMANDS")?;
    for sub in cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        let name = sub.get_name();
        writeln!(out, ".SS \"proclint {name}\"")?;
        if let Some(about) = sub.get_about() {
            writeln!(out, "{}", escape(&about.to_string()))?;
        }
        let page = clap_mangen::Man::new(sub.clone().bin_name(format!("proclint {name}")));
        let mut body = Vec::new();
        page.render_synopsis_section(&mut body)?;
        page.render_options_section(&mut body)?;
        for line in String::from_utf8_lossy(&body).lines() {
            if line.starts_with(".SH ") {
                writeln!(out, ".PP")?;
            } else {
                writeln!(out, "{line}")?;
            }
        }
    }
    writeln!(out, ".SH \"EXIT STATUS\"")?;
    writeln!(
        out,
        "0: no findings at or above \\fB\\-\\-fail\\-on\\fR (or \\fB\\-\\-exit\\-zero\\fR).\n.br\n\
         1: findings at or above \\fB\\-\\-fail\\-on\\fR.\n.br\n\
         2: usage or configuration error, a missing path, or an internal error."
    )?;
    man.render_version_section(&mut *out)?;
    Ok(())
}

/// Escapes text for a roff line: backslashes, and a leading `.` or `'`
/// that roff would read as a request.
fn escape(text: &str) -> String {
    let text = text.replace('\\', "\\e").replace('-', "\\-");
    if text.starts_with('.') || text.starts_with('\'') {
        format!("\\&{text}")
    } else {
        text
    }
}

fn emit(bytes: &[u8]) -> i32 {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => EXIT_OK,
        // A closed pipe (`proclint man | head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            eprintln!("error: cannot write: {e}");
            EXIT_ERROR
        }
    }
}
