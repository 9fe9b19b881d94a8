//! Subcommand handlers: configuration, running the engine, exit codes.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::commands::cli::{CheckArgs, Cli, Color, Command, RulesArgs, RulesFormat};
use crate::diagnostic::Severity;
use crate::engine::cache::Cache;
use crate::engine::fix;
use crate::engine::{self, Outcome, Stage};
use crate::project::config::{Config, RuleLevel};
use crate::report::{self, Format};
use crate::rules::{self, RuleSwitches};
use crate::source::output::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};

pub mod cli;
pub mod manual;
mod runs;

/// Runs a command and gives the exit code. The command line's entry point:
/// the process is expected to exit after it (a check's results are not
/// freed).
pub fn run(cli: Cli) -> i32 {
    match cli.command {
        Command::Check(args) => check(args),
        Command::Rules(args) => list_rules(&args),
        Command::Explain { rule } => explain(&rule),
        Command::Runs(args) => runs::run(&args),
        Command::Completions { shell } => crate::commands::manual::completions(shell),
        Command::Man => crate::commands::manual::man(),
        Command::Server => crate::server::run(),
        Command::Mcp => crate::mcp::run(),
    }
}

/// Loads the effective configuration of a run over `paths`: every file gets
/// the nearest `proclint.toml` at or above it (`--config`: that one file for
/// all), then the CLI's overrides apply to each. Every error of every
/// configuration file, and of the command line, is reported in one run.
pub fn load_config(args: &CheckArgs, paths: &[PathBuf]) -> Result<Config, i32> {
    let resolved = if args.no_config {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let first = paths.first().map_or_else(|| cwd.clone(), |p| cwd.join(p));
        // No configuration, but the project root still holds the cache.
        let root = first
            .ancestors()
            .find(|a| std::fs::symlink_metadata(a.join(".git")).is_ok())
            .map_or_else(
                || PathBuf::from("."),
                |r| crate::engine::settings::relative_to(&cwd, r),
            );
        let mut config = Config::default();
        config.root = root;
        Ok(config)
    } else {
        crate::engine::settings::resolve(paths, args.config.as_deref())
    };
    let mut failed = false;
    let mut config = match resolved {
        Ok(c) => c,
        Err(errors) => {
            // Every error at once: one edit fixes them all.
            for e in errors {
                report_config_error(e);
            }
            failed = true;
            Config::default()
        }
    };
    let mut unknown = failed;
    for id in args
        .select
        .iter()
        .chain(&args.extend_select)
        .chain(&args.ignore)
    {
        if rules::meta(id).is_none() && !rules::is_group(id) {
            let hint = crate::rules::closest_rule(id)
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            eprintln!(
                "error: unknown rule or category `{id}`{hint}; categories: correctness, \
                 suspicious, pedantic, run, all"
            );
            unknown = true;
        }
    }
    if unknown {
        return Err(EXIT_ERROR);
    }
    config.each_mut(|config| {
        if !args.select.is_empty() && !selects_only_suppression_notes(&args.select) {
            config.select = Some(args.select.clone());
        }
        config
            .extend_select
            .extend(args.extend_select.iter().cloned());
        config.scan_named_files = args.only_process_code;
        for name in &args.ignore {
            for r in rules::all() {
                let m = r.meta();
                let named = name == m.id;
                let grouped = name == "all" || rules::Category::parse(name) == Some(m.category);
                // A group never turns off proclint's own notes; naming one does.
                if named || (grouped && !m.builtin) {
                    config.set_level(m.id, RuleLevel::Off);
                }
            }
        }
    });
    Ok(config)
}

/// `--select unused-suppression` (with or without other notes of proclint's
/// own): a suppression is unused only if the rule it names runs and reports
/// nothing there, so the rules run as configured and only the selected
/// notes are reported (run alone they judged nothing and said every rule
/// was off).
fn selects_only_suppression_notes(select: &[String]) -> bool {
    select.iter().any(|s| s == "unused-suppression")
        && select
            .iter()
            .all(|s| rules::meta(s).is_some_and(|m| m.builtin))
}

/// The findings `--select` asked for when [`selects_only_suppression_notes`]
/// ran the configured rules to judge suppressions; an internal error stays.
fn keep_selected_notes(args: &CheckArgs, outcome: &mut Outcome) {
    if selects_only_suppression_notes(&args.select) {
        outcome
            .diagnostics
            .retain(|d| d.rule == "internal-error" || args.select.iter().any(|s| s == d.rule));
    }
}

fn report_config_error(mut e: crate::project::config::ConfigError) {
    // The file may be a pull request's: its bytes reach the terminal only
    // with control characters replaced (same length, so spans still fit).
    e.text = crate::report::escape::source(&e.text).into_owned();
    e.message = crate::report::escape::line(&e.message).into_owned();
    if std::io::stderr().is_terminal() {
        eprintln!("{:?}", miette::Report::new(e));
    } else {
        eprintln!("error: {}", e.one_line());
    }
}

fn check(mut args: CheckArgs) -> i32 {
    // `--run` takes an optional value, so `check --run src/` would read
    // `src/` as the run: an existing path that is not a run directory is a
    // path to check, and `--run` picks the run as if given no value.
    if let Some(Some(value)) = &args.run {
        let p = Path::new(value);
        if p.exists() && !runs::is_run_dir(p) {
            args.paths.insert(0, p.to_path_buf());
            args.run = Some(None);
        }
    }
    // `check -` reads stdin, named by `--stdin-filename` (else `stdin.js` in
    // the working directory), as other linters do.
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        args.paths.retain(|p| p.as_os_str() != "-");
        if args.stdin_filename.is_none() {
            args.stdin_filename = Some(PathBuf::from("stdin.js"));
        }
    }
    let paths = if args.paths.is_empty() && args.stdin_filename.is_none() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    // Configurations are looked for from what is linted: the paths, else
    // the stdin buffer's name.
    let config_from: Vec<PathBuf> = if paths.is_empty() {
        args.stdin_filename.iter().cloned().collect()
    } else {
        paths.clone()
    };
    let mut config = match load_config(&args, &config_from) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // Each fix is re-linted beside the project's modules as they were.
    let fix = args.fix;
    config.each_mut(|c| c.keep_summaries = fix);
    if args.show_settings {
        let path = config_from
            .first()
            .cloned()
            .unwrap_or_else(|| PathBuf::from("."));
        return crate::source::output::print_stdout(&show_settings(&config, &path), EXIT_OK);
    }
    for p in &paths {
        if std::fs::symlink_metadata(p).is_err() {
            eprintln!("error: {}: no such file or directory", p.display());
            return EXIT_ERROR;
        }
    }
    let stdin = match &args.stdin_filename {
        Some(path) => {
            // Bytes, read as a file on disk is: invalid UTF-8 is a finding,
            // not an error, and reading stops past max-file-size (one byte
            // over says "too large").
            let mut bytes = Vec::new();
            let limit = config.max_file_size.saturating_add(1);
            if let Err(e) = std::io::Read::read_to_end(
                &mut std::io::Read::take(std::io::stdin(), limit),
                &mut bytes,
            ) {
                eprintln!("error: cannot read stdin: {e}");
                return EXIT_ERROR;
            }
            Some((path.clone(), bytes))
        }
        None => None,
    };
    if !args.quiet && args.run.is_none() {
        warn_if_only_run_rules(&config);
    }
    // Chosen before linting so a bad `--run` fails fast with exit 2; without
    // `--run` no journal is read and `check` stays static.
    let selected = match &args.run {
        Some(value) => {
            let selector = crate::engine::run_select::RunSelector::parse(value.as_deref());
            match crate::engine::run_select::select(&selector, &paths) {
                Ok(s) => Some(s),
                Err(message) => {
                    eprintln!("error: {message}");
                    return EXIT_ERROR;
                }
            }
        }
        None => None,
    };
    let stage = if args.parse_only {
        Stage::ParseOnly
    } else {
        Stage::Full
    };
    // The stdin buffer is not cached (it has no stable bytes on disk), but
    // the context modules loaded around it are.
    let cache = (!args.no_cache && stage == Stage::Full)
        .then(|| Cache::new(config.cache_dir(), &Cache::build_id(), &config));
    let lint_once = || {
        let recorded = selected.as_ref().map(|s| s.run.clone());
        engine::run_cached(
            &paths,
            stdin.clone(),
            &config,
            stage,
            recorded,
            cache.as_ref(),
        )
    };
    let mut outcome = lint_once();
    keep_selected_notes(&args, &mut outcome);
    if let Some(why) = cache.as_ref().and_then(Cache::refusal) {
        eprintln!("warning: running without the result cache: {why}");
    }
    // `--unsafe-fixes` / `--no-unsafe-fixes` (the last given wins), else
    // `unsafe-fixes` in proclint.toml.
    let unsafe_fixes = if args.unsafe_fixes {
        true
    } else if args.no_unsafe_fixes {
        false
    } else {
        config.unsafe_fixes
    };
    // Files whose fixes could not be planned because of a bug in proclint.
    let mut fix_failures: Vec<crate::diagnostic::Diagnostic> = Vec::new();
    // A file `--fix` could not write: the report is still written, and the
    // exit code is 2.
    let mut write_failed = false;
    if args.fix {
        if args.diff {
            let buffer = stdin.as_ref().map(|(_, bytes)| bytes.as_slice());
            let plan = fix::plan_with(&outcome, buffer, unsafe_fixes, &config);
            if crate::source::output::print_stdout(&fix::diff(&plan), EXIT_OK) != EXIT_OK {
                return EXIT_ERROR;
            }
            for d in &plan.failed {
                eprintln!("error: {}: {}", d.location.path, d.message);
            }
            if !plan.failed.is_empty() {
                return EXIT_ERROR;
            }
            report_unfixable(&plan, &mut Default::default());
            if !args.quiet {
                let (fixes, files) = (plan.applied(), plan.files.len());
                eprintln!(
                    "proclint: {fixes} {} available in {files} {} (nothing written)",
                    if fixes == 1 { "fix" } else { "fixes" },
                    if files == 1 { "file" } else { "files" },
                );
            }
            return if plan.files.is_empty() {
                EXIT_OK
            } else {
                EXIT_FINDINGS
            };
        }
        let (mut fixed, mut touched) = (0, std::collections::BTreeSet::new());
        // Files that could not be written are reported once and left alone
        // on later passes; the others are still fixed, and the exit code
        // says an error occurred.
        let mut unwritable = std::collections::BTreeSet::new();
        let mut said = std::collections::BTreeSet::new();
        // Fixes that overlapped are applied on the next pass.
        for _ in 0..4 {
            let mut plan = fix::plan_with(&outcome, None, unsafe_fixes, &config);
            plan.files.retain(|f| !unwritable.contains(&f.display));
            report_unfixable(&plan, &mut said);
            for d in &plan.failed {
                if !fix_failures.contains(d) {
                    fix_failures.push(d.clone());
                }
            }
            if plan.files.is_empty() {
                break;
            }
            for (file, e) in fix::write(&plan, replace_policy(&args)) {
                eprintln!("error: cannot write {file}: {e}");
                unwritable.insert(file);
            }
            plan.files.retain(|f| !unwritable.contains(&f.display));
            fixed += plan.applied();
            touched.extend(plan.files.iter().map(|f| f.display.clone()));
            outcome = lint_once();
            keep_selected_notes(&args, &mut outcome);
        }
        write_failed = !unwritable.is_empty();
        if !args.quiet {
            eprintln!(
                "proclint: fixed {fixed} findings in {} files; {} remain",
                touched.len(),
                outcome.diagnostics.len()
            );
        }
        if !fix_failures.is_empty() {
            outcome.diagnostics.append(&mut fix_failures);
            crate::diagnostic::sort(&mut outcome.diagnostics);
        }
    }
    if let (true, Some(cache)) = (args.cache_stats, &cache) {
        let s = cache.stats();
        eprintln!(
            "proclint cache: {} hits, {} misses, {} written; cross-module pass: {} hits, {} misses, {} written ({})",
            s.hits,
            s.misses,
            s.writes,
            s.project_hits,
            s.project_misses,
            s.project_writes,
            cache.dir().display()
        );
    }
    if stage == Stage::Full {
        let options = baseline_options(&args, &config);
        match crate::engine::baseline::run(&mut outcome, &config, &options) {
            Ok(Some(note)) if !args.quiet => eprintln!("{note}"),
            Ok(_) => {}
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_ERROR;
            }
        }
    }
    if let Some(min) = args.min_severity {
        // After the baseline, which records every finding whatever is shown.
        // An internal error is never hidden: it is why the exit code is 2.
        outcome
            .diagnostics
            .retain(|d| d.severity >= min || d.rule == "internal-error");
    }
    if !args.quiet && stage == Stage::Full && !outcome.files.iter().any(|f| f.report) {
        // "0 files" in a summary is easy to miss; an empty check is usually a
        // wrong path or a tree with no babysitter code.
        eprintln!(
            "warning: no process module, SKILL.md or package.json found under {}: nothing was checked",
            paths
                .iter()
                .map(|p| format!("`{}`", p.display()))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let stdout_tty = args.output.is_none() && std::io::stdout().is_terminal();
    let format = args.format.unwrap_or(if stdout_tty {
        Format::Pretty
    } else {
        Format::Concise
    });
    let color = match args.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => stdout_tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    let retro = (format == Format::Retrospective).then(|| report::retrospective::RetroInfo {
        date: args.date.clone().unwrap_or_else(today),
        commit: source_commit(paths.first().map(PathBuf::as_path)),
        command: command_line(),
        config: config.path.as_ref().map(|p| p.display().to_string()),
        enabled: rules::all()
            .iter()
            .map(|r| r.meta().id)
            .filter(|id| config.is_enabled(id))
            .collect(),
        run_selection: selected.as_ref().map(|s| s.how),
        long_gap_ms: args.long_gap,
    });
    let options = report::Options {
        color,
        quiet: args.quiet,
        retro,
        unsafe_fixes,
        stdin: stdin
            .as_ref()
            .map(|(_, bytes)| std::sync::Arc::from(bytes.as_slice())),
    };
    // `--statistics` alone prints only the counts; after a text report they
    // follow it; a JSON, SARIF or GitHub report must stay parseable, so
    // there they go to stderr.
    let where_stats = match (args.statistics, args.format) {
        (false, _) => Statistics::None,
        (true, None) => Statistics::Only,
        (true, Some(Format::Pretty | Format::Concise)) => Statistics::After,
        (true, Some(_)) => Statistics::Stderr,
    };
    let emit = |out: &mut dyn Write| -> std::io::Result<()> {
        if where_stats != Statistics::Only {
            report::write(format, &outcome, &options, out)?;
        }
        if matches!(where_stats, Statistics::Only | Statistics::After) {
            out.write_all(statistics(&outcome).as_bytes())?;
        }
        Ok(())
    };
    if let Some(input) = args
        .output
        .as_deref()
        .and_then(|o| names_an_input(o, &outcome))
    {
        eprintln!(
            "error: --output {} names an input file ({input}); refusing to overwrite it",
            args.output.as_deref().unwrap_or(Path::new("")).display()
        );
        return EXIT_ERROR;
    }
    let written = match &args.output {
        Some(path) => crate::source::output::write_file_with(path, replace_policy(&args), emit)
            .map_err(|e| (Some(path), e)),
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            emit(&mut out)
                .and_then(|()| out.flush())
                .map_err(|e| (None, e))
        }
    };
    match written {
        // The reader went away (`proclint check | head -1`): it has what it
        // wanted, so end quietly, as `grep` or `cat` would, with the status
        // the findings give.
        Err((_, e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err((path, e)) => {
            match path {
                Some(p) => eprintln!("error: cannot write the report to {}: {e}", p.display()),
                None => eprintln!("error: cannot write the report: {e}"),
            }
            return EXIT_ERROR;
        }
        Ok(()) => {}
    }
    if format == Format::Github {
        write_step_summary(&outcome);
    }
    if where_stats == Statistics::Stderr {
        eprint!("{}", statistics(&outcome));
    }
    let code = if write_failed {
        EXIT_ERROR
    } else {
        exit_code(&outcome, args.fail_on, args.exit_zero)
    };
    // `run` is the command line's entry point and the process exits right
    // after it: freeing tens of thousands of findings one by one would only
    // delay that (≈ 3% of a warm run, on the main thread).
    std::mem::forget(outcome);
    code
}

fn replace_policy(args: &CheckArgs) -> crate::source::output::Replace {
    if args.force_write {
        crate::source::output::Replace::Force
    } else {
        crate::source::output::Replace::Safe
    }
}

/// The linted file `output` is (the same file, by identity: through links
/// and `..`), if any: a report written there would destroy the source.
fn names_an_input(output: &Path, outcome: &engine::Outcome) -> Option<String> {
    let target = std::fs::metadata(output).ok()?;
    let real = std::fs::canonicalize(output).ok();
    outcome
        .files
        .iter()
        .find(|f| {
            std::fs::metadata(&f.path).is_ok_and(|m| same_file(&m, &target))
                || real.is_some() && std::fs::canonicalize(&f.path).ok() == real
        })
        .map(|f| f.display.to_string())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.is_file() && (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false // the canonical paths are compared instead
}

/// Warns about fixes not applied, each line once however many passes
/// `--fix` makes.
fn report_unfixable(plan: &fix::Plan, said: &mut std::collections::BTreeSet<String>) {
    let mut lines = Vec::new();
    for f in &plan.changed {
        lines.push(format!(
            "warning: {f} changed on disk while proclint ran; its fixes were not applied"
        ));
    }
    for (f, why) in &plan.skipped {
        lines.push(format!("warning: {f} {why}; its fixes were not applied"));
    }
    let dropped = plan
        .files
        .iter()
        .filter(|f| f.dropped > 0)
        .map(|f| (&f.display, f.dropped, &f.reasons))
        .chain(plan.unapplied.iter().map(|(f, why)| (f, why.len(), why)));
    for (file, n, reasons) in dropped {
        lines.push(format!(
            "warning: {file}: {n} {} skipped",
            if n == 1 { "fix" } else { "fixes" },
        ));
        for why in reasons {
            lines.push(format!("warning: {file}: fix skipped: {why}"));
        }
    }
    for line in lines {
        if said.insert(line.clone()) {
            eprintln!("{}", crate::source::printable(&line));
        }
    }
}

pub fn exit_code(outcome: &engine::Outcome, fail_on: Severity, exit_zero: bool) -> i32 {
    if outcome
        .diagnostics
        .iter()
        .any(|d| d.rule == "internal-error")
    {
        return EXIT_ERROR;
    }
    if !exit_zero && outcome.diagnostics.iter().any(|d| d.severity >= fail_on) {
        return EXIT_FINDINGS;
    }
    EXIT_OK
}

/// Appends every finding to the GitHub step summary (`$GITHUB_STEP_SUMMARY`,
/// a file the runner shows on the job's page): annotations stop at 10 per
/// level, the summary does not. Failing to write it is a warning, not a
/// failed check.
fn write_step_summary(outcome: &engine::Outcome) {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return;
    };
    let text = report::github::step_summary(outcome);
    let written = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&path)
        .and_then(|mut f| f.write_all(text.as_bytes()));
    if let Err(e) = written {
        eprintln!(
            "warning: cannot write the step summary to {}: {e}",
            Path::new(&path).display()
        );
    }
}

/// Where `--statistics` writes its table.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Statistics {
    None,
    Only,
    After,
    Stderr,
}

/// Findings per rule, most frequent first (ties by rule id), then the
/// total: `    3  unchecked-breakpoint  error`.
fn statistics(outcome: &engine::Outcome) -> String {
    // Per rule, its findings by severity (error first): a rule's level can
    // differ per finding (a severity set per path, or a rule that grades
    // its findings), and one word for all of them would misstate the rest.
    const ORDER: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];
    let mut counts: std::collections::BTreeMap<&str, [usize; 3]> = Default::default();
    for d in &outcome.diagnostics {
        let e = counts.entry(d.rule).or_default();
        if let Some(i) = ORDER.iter().position(|&s| s == d.severity) {
            e[i] += 1;
        }
    }
    let total = |c: &[usize; 3]| c.iter().sum::<usize>();
    let mut rows: Vec<_> = counts.into_iter().collect();
    rows.sort_by(|a, b| total(&b.1).cmp(&total(&a.1)).then(a.0.cmp(b.0)));
    let width = rows.iter().map(|(r, _)| r.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (rule, by) in &rows {
        let n = total(by);
        let present: Vec<(usize, Severity)> = ORDER
            .iter()
            .zip(by)
            .filter(|(_, &k)| k > 0)
            .map(|(&s, &k)| (k, s))
            .collect();
        let severity = match present.as_slice() {
            [(_, s)] => s.to_string(),
            _ => present
                .iter()
                .map(|(k, s)| format!("{k} {s}{}", if *k == 1 { "" } else { "s" }))
                .collect::<Vec<_>>()
                .join(", "),
        };
        out.push_str(&format!("{n:>5}  {rule:<width$}  {severity}\n"));
    }
    out.push_str(&format!(
        "{:>5}  total: {}\n",
        outcome.diagnostics.len(),
        report::summary_line(outcome)
    ));
    out
}

/// `--show-settings`: the configuration `path` gets — the files it came
/// from (nearest first, then what each extends) and every setting, rules
/// by category, as TOML a user could paste.
fn show_settings(config: &Config, path: &Path) -> String {
    use std::fmt::Write as _;
    let own = config.for_path(path);
    let quote = |s: &str| toml::Value::String(s.to_string()).to_string();
    let list = |items: &[String]| {
        let quoted: Vec<String> = items.iter().map(|s| quote(s)).collect();
        format!("[{}]", quoted.join(", "))
    };
    let shown = |p: &Path| crate::source::printable(&p.display().to_string()).into_owned();
    let mut out = String::new();
    let _ = writeln!(out, "# Settings for {}", shown(path));
    if own.sources.is_empty() {
        let _ = writeln!(out, "# from: no proclint.toml (the defaults)");
    } else {
        for (i, source) in own.sources.iter().enumerate() {
            let how = if i == 0 { "from" } else { "extends" };
            let _ = writeln!(out, "# {how}: {}", shown(source));
        }
    }
    let _ = writeln!(out, "# project root: {}", shown(&config.root));
    let _ = writeln!(out, "# cache: {}", shown(&config.cache_dir()));
    let _ = writeln!(out);
    let _ = writeln!(out, "context-names = {}", list(&own.context_names));
    let _ = writeln!(out, "max-file-size = {}", own.max_file_size);
    if let Some(select) = &own.select {
        let _ = writeln!(out, "select = {}", list(select));
    }
    let _ = writeln!(out, "extend-select = {}", list(&own.extend_select));
    let _ = writeln!(out, "exclude = {}", list(&own.exclude.patterns));
    if let Some(include) = &own.include {
        let _ = writeln!(out, "include = {}", list(&include.patterns));
    }
    if let Some(b) = &config.baseline {
        let _ = writeln!(out, "baseline = {}", quote(&b.display().to_string()));
    }
    let _ = writeln!(out, "unsafe-fixes = {}", config.unsafe_fixes);
    let _ = writeln!(out, "extend-safe-fixes = {}", list(&own.extend_safe_fixes));
    let _ = writeln!(
        out,
        "extend-unsafe-fixes = {}",
        list(&own.extend_unsafe_fixes)
    );
    let ignored: Vec<String> = own
        .ignored_for(path)
        .iter()
        .map(|s| s.to_string())
        .collect();
    let _ = writeln!(
        out,
        "# [per-file-ignores] matching this file: {}",
        list(&ignored)
    );
    for p in &own.per_file_ignores {
        let _ = writeln!(
            out,
            "# per-file-ignores {} = {}",
            quote(&p.pattern),
            list(&p.rules)
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "[rules]  # every rule: its state for this file");
    for r in rules::all() {
        let m = r.meta();
        let state = if !config.is_enabled_for(path, m.id) {
            "off".to_string()
        } else {
            own.severity_of(m.id).map_or_else(
                || m.severity.as_str().to_string(),
                |s| s.as_str().to_string(),
            )
        };
        let options = own
            .rule_options
            .get(m.id)
            .filter(|t| !t.is_empty())
            .map(|t| {
                let inline: Vec<String> = t.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                format!(", {}", inline.join(", "))
            })
            .unwrap_or_default();
        if options.is_empty() {
            let _ = writeln!(out, "{} = {}", m.id, quote(&state));
        } else {
            let _ = writeln!(
                out,
                "{} = {{ severity = {}{options} }}",
                m.id,
                quote(&state)
            );
        }
    }
    out
}

/// Warns when nothing but run rules is on and no run was given: they would
/// run nothing, and exit 0 would read as "checked and clean".
fn warn_if_only_run_rules(config: &Config) {
    let enabled: Vec<_> = rules::all()
        .iter()
        .filter(|r| !r.meta().builtin && config.is_enabled(r.meta().id))
        .collect();
    if enabled.is_empty() {
        eprintln!("warning: every rule is turned off: only parse errors are reported");
    } else if enabled.iter().all(|r| r.needs_run()) {
        let ids: Vec<_> = enabled
            .iter()
            .map(|r| format!("`{}`", r.meta().id))
            .collect();
        let (verb, report) = if ids.len() == 1 {
            ("checks", "reports")
        } else {
            ("check", "report")
        };
        eprintln!(
            "warning: {} only {verb} a recorded run and {report} nothing without `--run`: \
             no rule was run on the code",
            ids.join(", ")
        );
    }
}

fn list_rules(args: &RulesArgs) -> i32 {
    use std::fmt::Write as _;
    let all = rules::all();
    // Built whole, then printed once: see `print_stdout`.
    let mut text = String::new();
    match args.format {
        RulesFormat::Json => {
            let list: Vec<_> = all
                .iter()
                .map(|r| {
                    let m = r.meta();
                    serde_json::json!({
                        "id": m.id,
                        "area": m.area.name(),
                        "category": m.category.name(),
                        "default": m.builtin || m.category.on_by_default(),
                        "severity": m.severity.as_str(),
                        "summary": m.summary,
                        "builtin": m.builtin,
                        "fix": m.fix.name(),
                    })
                })
                .collect();
            text = serde_json::to_string_pretty(&list).unwrap_or_default() + "\n";
        }
        RulesFormat::Table => {
            let w_id = all.iter().map(|r| r.meta().id.len()).max().unwrap_or(4);
            let w_area = all
                .iter()
                .map(|r| r.meta().area.name().len())
                .max()
                .unwrap_or(4);
            let _ = writeln!(
                text,
                "{:<w_id$}  {:<14}  {:<w_area$}  {:<8}  {:<9}  SUMMARY",
                "RULE", "CATEGORY", "AREA", "SEVERITY", "FIX"
            );
            for r in all {
                let m = r.meta();
                // Off-by-default rules are marked, so the default set reads
                // off the table.
                let category = if m.builtin || m.category.on_by_default() {
                    m.category.name().to_string()
                } else {
                    format!("{} (off)", m.category.name())
                };
                let _ = writeln!(
                    text,
                    "{:<w_id$}  {:<14}  {:<w_area$}  {:<8}  {:<9}  {}",
                    m.id,
                    category,
                    m.area.name(),
                    m.severity.as_str(),
                    m.fix.name(),
                    m.summary
                );
            }
        }
    }
    crate::source::output::print_stdout(&text, EXIT_OK)
}

fn explain(id: &str) -> i32 {
    match rules::meta(id) {
        Some(m) => crate::source::output::print_stdout(m.doc, EXIT_OK),
        None => {
            let hint = crate::rules::closest_rule(id)
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            eprintln!("error: unknown rule `{id}`{hint}; `proclint rules` lists them");
            EXIT_ERROR
        }
    }
}

/// `SOURCE_DATE_EPOCH` (reproducible builds convention), else now, as a
/// UTC calendar date.
fn today() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0)
        });
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 to (year, month, day) — Howard Hinnant's
/// algorithm.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// HEAD of the git checkout holding the checked tree, if any.
fn source_commit(path: Option<&Path>) -> Option<String> {
    let path = path.unwrap_or(Path::new("."));
    let dir = if path.is_dir() {
        path
    } else {
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
    };
    let out = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(dir)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let sha = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (!sha.is_empty()).then_some(sha)
}

/// The command as typed, with the program name normalised.
fn command_line() -> String {
    let mut parts = vec!["proclint".to_string()];
    parts.extend(std::env::args().skip(1));
    parts.join(" ")
}

/// What `check` was asked to do with baselines: `--write-baseline`, and
/// `--baseline`, else `baseline` in proclint.toml unless `--no-baseline`.
fn baseline_options(args: &CheckArgs, config: &Config) -> crate::engine::baseline::Options {
    let from_config = || {
        config
            .baseline
            .as_ref()
            .filter(|_| !args.no_baseline)
            .cloned()
    };
    crate::engine::baseline::Options {
        write: args.write_baseline.clone(),
        read: args.baseline.clone().or_else(from_config),
    }
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_422), (2025, 11, 30));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }
}
