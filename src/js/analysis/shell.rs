//! What a shell task's command can exit with. The SDK does not run shell
//! tasks (the orchestrating agent does, `prompts/templates/effects.md`),
//! but a failed one resolves `ctx.task` to `{ success: false, exitCode, … }`
//! (`runtime/intrinsics/taskHelpers.ts`): whether that can happen decides
//! whether the process must test the result.
//!
//! This is a reading of the command text, not a shell: anything it does not
//! know (a compound command, a function, an unknown program) may fail.

use crate::js::model::{objects, JsModel, TaskDef};
use crate::js::syntax::tree::Node;
use crate::js::syntax::{string_value, unparen};

/// How a command (or a part of one) can end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Always zero.
    Zero,
    /// Always non-zero (`false`, `exit 1`).
    NonZero,
    /// Either.
    May,
}

/// Programs that exit zero whatever they are given (as far as a process
/// cares): printing, the clock, sleeping, listing, and `cd` (into a folder
/// the process names: a test of `success` after `cd app && npm run build
/// | tail` would catch only a missing folder, never the build).
const NEVER_FAIL: &[&str] = &[
    "cd", "echo", "printf", "pwd", "date", "sleep", "true", ":", "whoami", "uname", "hostname",
    "env", "printenv", "ls",
];

/// Filters that exit zero reading a pipe: at the end of one, they hide the
/// status of the command before them.
const PIPE_SINKS: &[&str] = &[
    "head", "tail", "tee", "cat", "wc", "sort", "uniq", "cut", "tr", "less", "more",
];

/// Words that open or close a compound command: its status is not the
/// last simple command's, so the reading gives up.
const COMPOUND: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "{",
    "}", "function", "select",
];

/// Whether every command a task definition can run exits zero: then a
/// failure cannot happen and its result needs no test. `false` when the
/// command is unknown (built from arguments, a call, …).
pub fn task_never_fails(m: &JsModel, t: &TaskDef) -> bool {
    let commands: Vec<Node> = t
        .objects
        .iter()
        // The agent that runs the task reads the whole definition
        // (`task.json`): a top-level `command` is the command as well.
        .filter_map(|o| {
            objects::path(m, *o, &["shell", "command"])
                .or_else(|| objects::property(m, *o, "command"))
        })
        .collect();
    if commands.is_empty() || commands.len() != t.objects.len() {
        return false;
    }
    commands.into_iter().all(|c| {
        let texts = command_texts(m, c, 0);
        !texts.is_empty() && texts.iter().all(|s| command_exit(s) == Exit::Zero)
    })
}

/// The texts a command expression can be: literals, a template's text (its
/// substitutions stay as written, and read as words), both branches of a
/// ternary, a `const` bound to one of those. Empty when any part is unknown.
fn command_texts(m: &JsModel, node: Node, depth: usize) -> Vec<String> {
    let node = unparen(node);
    if depth > 4 {
        return Vec::new();
    }
    match node.kind_str() {
        "string" => string_value(node, m.src()).into_iter().collect(),
        "template_string" => vec![m.text(node).trim_matches('`').to_string()],
        "ternary_expression" => {
            let (Some(a), Some(b)) = (node.field("consequence"), node.field("alternative")) else {
                return Vec::new();
            };
            let (a, b) = (
                command_texts(m, a, depth + 1),
                command_texts(m, b, depth + 1),
            );
            if a.is_empty() || b.is_empty() {
                return Vec::new();
            }
            a.into_iter().chain(b).collect()
        }
        "identifier" => {
            let Some(b) = m.binding_of_expr(node) else {
                return Vec::new();
            };
            let binding = m.scopes.get(b);
            match (binding.init, binding.writes.len()) {
                (Some(init), 0) => command_texts(m, init, depth + 1),
                _ => Vec::new(),
            }
        }
        _ => Vec::new(),
    }
}

/// How a shell script can exit: with `set -e`, any command that may fail
/// may end it; without, its status is its last command's, unless an
/// earlier `exit` with a non-zero status can run.
pub fn command_exit(script: &str) -> Exit {
    exit_at(script, 0)
}

/// How deep groups, subshells, `bash -c` scripts and `!`s are followed:
/// beyond, a command may fail (hostile input nests them without end).
const MAX_NESTING: usize = 16;

fn exit_at(script: &str, depth: usize) -> Exit {
    if depth > MAX_NESTING {
        return Exit::May;
    }
    let statements = statements(script);
    if statements.is_empty() {
        return Exit::Zero;
    }
    // A group or subshell left open is a syntax error: `sh` runs nothing
    // and fails.
    let unclosed = |w: &String| w == "{" || (w.starts_with('(') && !w.ends_with(')'));
    if statements.iter().any(|s| s.first().is_some_and(unclosed)) {
        return Exit::May;
    }
    let pipefail = script.contains("pipefail");
    let errexit = statements.iter().any(|s| sets_errexit(s));
    let mut last = Exit::Zero;
    for (i, s) in statements.iter().enumerate() {
        let words: Vec<&str> = s.iter().map(String::as_str).collect();
        // A compound command's status is not its last simple command's;
        // piped into a filter (`done | wc -l`), it is the filter's.
        let compound = words.iter().enumerate().any(|(i, w)| {
            COMPOUND.contains(w) && (i == 0 || matches!(words[i - 1], "|" | "&&" | "||"))
        });
        let exit = if compound {
            match words.split(|w| *w == "|").next_back() {
                Some(last) if !pipefail && words.contains(&"|") && is_sink(last) => Exit::Zero,
                _ => Exit::May,
            }
        } else {
            list_exit(&words, pipefail, depth)
        };
        let is_last = i + 1 == statements.len();
        if errexit && exit != Exit::Zero {
            return Exit::May;
        }
        // An earlier `… || exit 1` can end the script with its status.
        if !is_last && exits_nonzero(&words) {
            return Exit::May;
        }
        // `exit 0` ends the script there.
        if words == ["exit", "0"] {
            return Exit::Zero;
        }
        last = exit;
    }
    last
}

fn sets_errexit(words: &[String]) -> bool {
    match words {
        [set, rest @ ..] if set == "set" => rest.iter().any(|w| {
            (w.starts_with('-') && !w.starts_with("--") && w.contains('e')) || w == "errexit"
        }),
        _ => false,
    }
}

/// Whether a statement holds an `exit` with a status that may be non-zero.
fn exits_nonzero(words: &[&str]) -> bool {
    words
        .iter()
        .enumerate()
        .any(|(i, w)| *w == "exit" && words.get(i + 1).is_none_or(|code| *code != "0"))
}

/// The status of an and-or list: `a && b || c` is `(a && b) || c`.
fn list_exit(words: &[&str], pipefail: bool, depth: usize) -> Exit {
    let mut acc: Option<Exit> = None;
    let mut op: Option<&str> = None;
    let mut start = 0;
    let mut i = 0;
    while i <= words.len() {
        let at_end = i == words.len();
        if at_end || matches!(words[i], "&&" | "||") {
            let exit = pipeline_exit(&words[start..i], pipefail, depth);
            acc = Some(match (acc, op) {
                (None, _) => exit,
                (Some(a), Some("&&")) => and(a, exit),
                (Some(a), _) => or(a, exit),
            });
            if !at_end {
                op = Some(words[i]);
            }
            start = i + 1;
        }
        i += 1;
    }
    acc.unwrap_or(Exit::Zero)
}

fn and(a: Exit, b: Exit) -> Exit {
    match (a, b) {
        (Exit::Zero, b) => b,
        (Exit::NonZero, _) => Exit::NonZero,
        (Exit::May, Exit::NonZero) => Exit::NonZero,
        (Exit::May, _) => Exit::May,
    }
}

fn or(a: Exit, b: Exit) -> Exit {
    match (a, b) {
        (Exit::Zero, _) => Exit::Zero,
        (Exit::NonZero, b) => b,
        (Exit::May, Exit::Zero) => Exit::Zero,
        (Exit::May, _) => Exit::May,
    }
}

/// A pipeline's status is its last command's (every command's with
/// `pipefail`).
fn pipeline_exit(words: &[&str], pipefail: bool, depth: usize) -> Exit {
    let parts: Vec<&[&str]> = words.split(|w| *w == "|").collect();
    if pipefail {
        return parts
            .iter()
            .map(|p| simple_exit(p, depth))
            .fold(Exit::Zero, and);
    }
    match parts.as_slice() {
        [.., last] if parts.len() > 1 && is_sink(last) => Exit::Zero,
        [.., last] => simple_exit(last, depth),
        [] => Exit::Zero,
    }
}

fn is_sink(words: &[&str]) -> bool {
    words
        .iter()
        .find(|w| !is_assignment(w))
        .is_some_and(|p| PIPE_SINKS.contains(p))
}

/// Whether `words` are redirections alone (`> out.log 2>&1`).
fn only_redirections(words: &[&str]) -> bool {
    let mut target = false;
    words.iter().all(|w| {
        let redirect = w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
        let op = redirect.starts_with(['>', '<']);
        let ok = target || op;
        // `>` alone takes the next word as its file; `>out.log`, `2>&1` not.
        target = op && redirect.trim_end_matches(['>', '<', '|']).is_empty();
        ok
    })
}

/// Where each group (`{ …; }`) and subshell (`( … )`) opened at an index
/// closes, outside quotes and comments, found in one pass. A `}` closes a
/// group only after `;`, `&` or a newline, as in `sh`; `{` opens one only
/// at a word's start and before a blank (`${var}` is no group).
fn group_ends(chars: &[char]) -> Vec<Option<usize>> {
    let mut ends = vec![None; chars.len()];
    let (mut braces, mut parens): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            if c == '\\' && q == '"' {
                i += 1;
            } else if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        let word_start =
            i == 0 || chars[i - 1].is_whitespace() || matches!(chars[i - 1], ';' | '&' | '|' | '(');
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '\\' => i += 1,
            '#' if word_start => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '(' => parens.push(i),
            ')' => {
                if let Some(open) = parens.pop() {
                    ends[open] = Some(i);
                }
            }
            '{' if word_start && chars.get(i + 1).is_some_and(|n| n.is_whitespace()) => {
                braces.push(i)
            }
            '}' if word_start => {
                let before = chars[..i].iter().rev().find(|c| !matches!(c, ' ' | '\t'));
                if matches!(before, Some(';' | '&' | '\n')) {
                    if let Some(open) = braces.pop() {
                        ends[open] = Some(i);
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    ends
}

fn simple_exit(words: &[&str], depth: usize) -> Exit {
    if depth > MAX_NESTING {
        return Exit::May;
    }
    // Leading assignments (`CI=1 npm test`) and negation.
    let mut rest = words.iter().skip_while(|w| is_assignment(w));
    let Some(&program) = rest.next() else {
        return Exit::Zero;
    };
    let args: Vec<&str> = rest.copied().collect();
    let flags = |c: char| {
        args.iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(c))
    };
    // A group's or a subshell's status is its script's last command's.
    let group = program
        .strip_prefix('{')
        .and_then(|g| g.strip_suffix('}'))
        .or_else(|| program.strip_prefix('(').and_then(|g| g.strip_suffix(')')));
    if let Some(script) = group.filter(|_| only_redirections(&args)) {
        return exit_at(script, depth + 1);
    }
    match program {
        "!" => match simple_exit(&args, depth + 1) {
            Exit::Zero => Exit::NonZero,
            Exit::NonZero => Exit::Zero,
            Exit::May => Exit::May,
        },
        "false" => Exit::NonZero,
        "exit" => match args.first() {
            Some(&"0") => Exit::Zero,
            _ => Exit::NonZero,
        },
        // `bash -lc "npm run build | tail"`: the status is the script's.
        "bash" | "sh" | "zsh" | "dash" if inline_script(&args).is_some() => {
            inline_script(&args).map_or(Exit::May, |script| exit_at(&script, depth + 1))
        }
        "mkdir" if flags('p') || args.contains(&"--parents") => Exit::Zero,
        "rm" if flags('f') || args.contains(&"--force") => Exit::Zero,
        p if NEVER_FAIL.contains(&p) => Exit::Zero,
        _ => Exit::May,
    }
}

/// The script of `-c SCRIPT` (also in a flag group such as `-lc`),
/// unquoted, with the shell's own `-e` and `-o errexit`/`-o pipefail`
/// written into it as `set` lines: they hold for the script.
fn inline_script(args: &[&str]) -> Option<String> {
    let at = args
        .iter()
        .position(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'))?;
    let mut prelude = String::new();
    let mut i = 0;
    while i <= at {
        let a = args[i];
        if a.starts_with('-') && !a.starts_with("--") {
            if a.contains('e') {
                prelude.push_str("set -e\n");
            }
            // `-o NAME` (also inside a group: `-euo pipefail`).
            if a.contains('o') {
                match args.get(i + 1) {
                    Some(&"pipefail") => prelude.push_str("set -o pipefail\n"),
                    Some(&"errexit") => prelude.push_str("set -e\n"),
                    _ => {}
                }
                i += 1;
            }
        }
        i += 1;
    }
    let word = args.get(at + 1)?;
    let unquoted = if let Some(inner) = word.strip_prefix('\'').and_then(|w| w.strip_suffix('\'')) {
        inner.to_string()
    } else if let Some(inner) = word.strip_prefix('"').and_then(|w| w.strip_suffix('"')) {
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match (c, chars.clone().next()) {
                ('\\', Some(n @ ('"' | '\\' | '$' | '`'))) => {
                    out.push(n);
                    chars.next();
                }
                _ => out.push(c),
            }
        }
        out
    } else {
        (*word).to_string()
    };
    Some(prelude + &unquoted)
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// The script's statements (split at newlines and `;`), each as words and
/// the operators `&&`, `||`, `|`. Quotes, `$(…)` and backquotes keep what
/// they hold in one word; comments and line continuations are dropped.
fn statements(script: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut subst = 0usize;
    let chars: Vec<char> = script.chars().collect();
    let ends = group_ends(&chars);
    let mut i = 0;
    let end_word = |word: &mut String, words: &mut Vec<String>| {
        if !word.is_empty() {
            words.push(std::mem::take(word));
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if let Some(q) = quote {
            word.push(c);
            if c == '\\' && q == '"' {
                if let Some(n) = next {
                    word.push(n);
                    i += 1;
                }
            } else if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        if subst > 0 {
            word.push(c);
            match c {
                '(' => subst += 1,
                ')' => subst -= 1,
                _ => {}
            }
            i += 1;
            continue;
        }
        match c {
            '\\' if next == Some('\n') => i += 1,
            '\\' => {
                word.push(c);
                if let Some(n) = next {
                    word.push(n);
                    i += 1;
                }
            }
            '\'' | '"' | '`' => {
                quote = Some(c);
                word.push(c);
            }
            '$' if next == Some('(') => {
                word.push_str("$(");
                subst = 1;
                i += 1;
            }
            // A group (`{ a; b; }`) or a subshell (`( a; b )`): one word
            // here, its status its script's (see `simple_exit`).
            '{' | '(' if word.is_empty() && (c == '(' || next.is_some_and(char::is_whitespace)) => {
                match ends[i] {
                    Some(end) => {
                        words.push(chars[i..=end].iter().collect());
                        i = end + 1;
                        continue;
                    }
                    None => word.push(c),
                }
            }
            '#' if word.is_empty() => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            ' ' | '\t' | '\r' => end_word(&mut word, &mut words),
            '\n' | ';' => {
                end_word(&mut word, &mut words);
                if !words.is_empty() {
                    out.push(std::mem::take(&mut words));
                }
            }
            '&' | '|' if next == Some(c) => {
                end_word(&mut word, &mut words);
                words.push(format!("{c}{c}"));
                i += 1;
            }
            '|' => {
                end_word(&mut word, &mut words);
                words.push("|".into());
            }
            // `2>&1`, `&>`: part of a redirection, not a background job.
            '&' if word.ends_with('>') || next == Some('>') => word.push(c),
            '&' => {
                // A background job: its status is not the script's.
                end_word(&mut word, &mut words);
                if !words.is_empty() {
                    out.push(std::mem::take(&mut words));
                }
            }
            _ => word.push(c),
        }
        i += 1;
    }
    end_word(&mut word, &mut words);
    if !words.is_empty() {
        out.push(words);
    }
    // A line ending in `&&`, `||` or `|` continues on the next.
    let mut joined: Vec<Vec<String>> = Vec::new();
    for s in out {
        match joined.last_mut() {
            Some(prev)
                if prev
                    .last()
                    .is_some_and(|w| matches!(w.as_str(), "&&" | "||" | "|")) =>
            {
                prev.extend(s)
            }
            _ => joined.push(s),
        }
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_that_cannot_fail() {
        for s in [
            "npm test || true",
            "npm test || :",
            "echo done",
            "mkdir -p out && ls out",
            "npx playwright test || echo \"tests done with $?\"",
            "npm run lint; exit 0",
            "rm -rf dist; mkdir -p dist",
            "# only a comment\necho hi",
            "npx tsc --noEmit 2>&1 | head -50",
            "npm test\necho 'finished'",
            "CI=1 npm test || true",
            "for f in ${args.dir}/*.md; do echo ${f}; done | wc -l",
            "if [ -f x ]; then npm test; fi\necho done",
            // The status of `bash -c SCRIPT` is the script's.
            "bash -lc \"cd app && npm run build 2>&1 | tail -120\"",
            "sh -c 'npm test || true'",
            // A group's status is its last command's.
            "cd \"$dir\" && mkdir -p docs && { npm test; echo done; }",
            "(npm test; echo ok) > out.log 2>&1",
            // A quote in a comment inside a group is no quote.
            "{ npm test # don't stop\n echo done; }",
        ] {
            assert_eq!(command_exit(s), Exit::Zero, "{s}");
        }
    }

    /// Groups nested past `MAX_NESTING` are not followed (hostile input
    /// nests them without end; each level re-reads its script): even
    /// `true` inside them may fail, as far as proclint knows.
    #[test]
    fn nesting_is_capped() {
        let deep = |n: usize| format!("{}true{}", "( ".repeat(n), " )".repeat(n));
        assert_eq!(command_exit(&deep(MAX_NESTING)), Exit::Zero);
        assert_eq!(command_exit(&deep(MAX_NESTING + 2)), Exit::May);
        // Unbalanced, and far deeper: one pass, no group.
        assert_eq!(command_exit(&"( ".repeat(20_000)), Exit::May);
    }

    #[test]
    fn commands_that_may_fail() {
        for s in [
            "npm test",
            "npm run build && echo ok",
            "cd app && npm test",
            "set -e\nnpm test\necho done",
            "npx tsc --noEmit || exit 1\necho 'passed'",
            "set -o pipefail; npm test | tee out.txt",
            "if [ -f x ]; then echo; fi",
            "if [ -f x ]; then exit 1; fi\necho done",
            "echo start\nnpm test",
            "echo 'a; b' && make",
            "test -f \"$(pwd)/x\"",
            "mkdir out",
            "npm test \\\n  --ci",
            "bash -lc \"cd app && npm run build\"",
            "bash -c 'set -o pipefail; npm test | tail'",
            "bash scripts/build.sh",
            // The shell's own options hold for the script.
            "bash -o pipefail -c \"npm test | tail -5\"",
            "bash -euo pipefail -c \"npm test | tail\"",
            "bash -ec \"npm test; echo done\"",
            "{ echo start; npm test; }",
            "(cd app && npm test)",
            "{ npm test",
            // Not a group: `}` after a word is an argument.
            "{ npm test; echo done }",
        ] {
            assert_ne!(command_exit(s), Exit::Zero, "{s}");
        }
    }
}
