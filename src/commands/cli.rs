//! Command-line definitions (clap derive). No logic here.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::diagnostic::Severity;
use crate::report::Format;

#[derive(Debug, Parser)]
#[command(
    name = "proclint",
    version = version_line(),
    about = "A fast, precise linter for babysitter agent processes, SKILL.md files and SDK pins",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once per process and moved straight into its handler: the size of
// the `check` variant costs nothing, and boxing it would obscure the derive.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint process modules, SKILL.md files and package.json manifests.
    Check(CheckArgs),
    /// List every rule with its area and default severity.
    Rules(RulesArgs),
    /// Print a rule's documentation.
    Explain {
        /// Rule id, e.g. `unchecked-breakpoint`.
        rule: String,
    },
    /// List recorded runs (`.a5c/runs/*`): status, effects, breakpoints, journal integrity.
    Runs(RunsArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to stdout.
    Man,
    /// Run the language server (LSP over stdio) for editors.
    Server,
    /// Run the Model Context Protocol server (over stdio) for coding agents.
    Mcp,
}

#[derive(Debug, Args)]
pub struct RunsArgs {
    /// Directory to search at any depth, or a run directory (default: the current directory).
    pub path: Option<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = RunsFormat::Table)]
    pub format: RunsFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RunsFormat {
    Table,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files or directories to lint (default: the current directory); `-`
    /// reads stdin (named by `--stdin-filename`, else `stdin.js`).
    pub paths: Vec<PathBuf>,

    /// Output format (default: pretty on a terminal, concise otherwise).
    #[arg(long, value_enum)]
    pub format: Option<Format>,

    /// Write the report to FILE instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Colour in pretty output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,

    /// Lowest severity that makes the exit code 1.
    #[arg(long, value_enum, default_value_t = Severity::Warning)]
    pub fail_on: Severity,

    /// Exit 0 even when there are findings (errors in proclint still exit 2).
    #[arg(long)]
    pub exit_zero: bool,

    /// Use this config file instead of searching for proclint.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,

    /// Ignore every proclint.toml.
    #[arg(long)]
    pub no_config: bool,

    /// Print the configuration the (first) given file gets, and the files
    /// it came from, instead of linting.
    #[arg(long)]
    pub show_settings: bool,

    /// Run only these rules: ids, categories (correctness, suspicious, pedantic, run) or `all` (comma-separated; overrides config)
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub select: Vec<String>,

    /// Also run these rules or categories besides the default set, with their notes (e.g. `pedantic`)
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub extend_select: Vec<String>,

    /// Turn these rules or categories off (comma-separated; overrides config)
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub ignore: Vec<String>,

    /// Print only the findings: no summary line and no notes on stderr
    /// (errors are still printed).
    #[arg(long, short = 'q')]
    pub quiet: bool,

    /// Print the number of findings per rule, most frequent first, with the
    /// total. Alone it prints only the counts; with `--format pretty` or
    /// `concise` they follow the report; with any other format they go to
    /// stderr, so a JSON, SARIF or GitHub report stays well-formed.
    #[arg(long)]
    pub statistics: bool,

    /// Report only findings of this severity or higher (info, warning,
    /// error), in every format; `--fail-on` then applies to what is reported.
    #[arg(long, value_enum, value_name = "SEVERITY")]
    pub min_severity: Option<Severity>,

    /// Hide the findings recorded in this baseline file (overrides `baseline` in proclint.toml).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Record every current finding in FILE (a baseline), then report as if it were applied.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,

    /// Ignore the `baseline` set in proclint.toml: report every finding.
    #[arg(long, conflicts_with = "baseline")]
    pub no_baseline: bool,

    /// Apply the safe fixes rules offer, editing files in place.
    #[arg(long)]
    pub fix: bool,

    /// With --fix: print a unified diff of the fixes and write nothing.
    #[arg(long, requires = "fix")]
    pub diff: bool,

    /// Let --fix (and --diff) apply unsafe fixes too: fixes that change what
    /// the process does at run time, to review before committing
    /// (overrides `unsafe-fixes` in proclint.toml).
    #[arg(long, overrides_with = "no_unsafe_fixes")]
    pub unsafe_fixes: bool,

    /// Apply only safe fixes, whatever proclint.toml's `unsafe-fixes` says.
    #[arg(long, overrides_with = "unsafe_fixes")]
    pub no_unsafe_fixes: bool,

    /// Let --fix and --output rewrite a read-only file (its mode is kept) or
    /// one with other hard links (written in place, so every link sees it);
    /// without it such files are refused and left unchanged.
    #[arg(long)]
    pub force_write: bool,

    /// Lint stdin as if it were the file at PATH (editor integration); the
    /// rest of PATH's project is loaded as context.
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<PathBuf>,

    /// Date printed in `--format retrospective` (YYYY-MM-DD; default:
    /// SOURCE_DATE_EPOCH, else today).
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_date)]
    pub date: Option<String>,

    /// Also read a recorded run (`.a5c/runs/<id>` under the checked paths or
    /// their project): a run id or directory, `latest`, or `latest-failed`;
    /// without a value the most recent failed run, else the most recent
    /// completed one. Adds the `journal-integrity` and `non-convergent-loop`
    /// findings and, with `--format retrospective`, the run sections. An
    /// existing path that is not a run directory is taken as a path to
    /// check, so `--run src/` checks `src/` with the default run.
    #[arg(long, value_name = "RUN", num_args = 0..=1)]
    pub run: Option<Option<String>>,

    /// With --run and --format retrospective: gaps between journal events
    /// longer than this are called out besides the slowest 10% (e.g. `90s`,
    /// `5m`, `2h`; default 5m).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_ms)]
    pub long_gap: Option<i64>,

    /// Skip named JavaScript files that are not process code (no SDK import,
    /// `defineTask` or context calls), as when walking a directory. For
    /// hooks that pass every staged `.js` file.
    #[arg(long)]
    pub only_process_code: bool,

    /// Do not read or write the result cache (`.proclint_cache/`, or
    /// `cache-dir` in proclint.toml).
    #[arg(long)]
    pub no_cache: bool,

    /// Print cache hits, misses and writes to stderr (tests, tuning).
    #[arg(long, hide = true)]
    pub cache_stats: bool,

    /// Stop after parsing (for benchmarking the parser floor).
    #[arg(long, hide = true)]
    pub parse_only: bool,
}

#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = RulesFormat::Table)]
    pub format: RulesFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    Table,
    Json,
}

fn parse_date(s: &str) -> Result<String, String> {
    let parts: Vec<&str> = s.split('-').collect();
    let ok = parts.len() == 3
        && parts[0].len() == 4
        && parts[1].len() == 2
        && parts[2].len() == 2
        && parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit()))
        && matches!(parts[1].parse::<u32>(), Ok(1..=12))
        && matches!(parts[2].parse::<u32>(), Ok(1..=31));
    if ok {
        Ok(s.to_string())
    } else {
        Err("expected a date as YYYY-MM-DD".into())
    }
}

/// `90s`, `5m`, `2h`, `1500ms`, or plain seconds, to milliseconds.
pub fn parse_duration_ms(s: &str) -> Result<i64, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    let n: i64 = digits
        .parse()
        .map_err(|_| "expected a duration such as 90s, 5m or 2h".to_string())?;
    let scale = match unit {
        "ms" => 1,
        "" | "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return Err("expected a duration such as 90s, 5m or 2h".into()),
    };
    n.checked_mul(scale)
        .ok_or_else(|| "duration too large".to_string())
}

/// `proclint 0.1.0 (7 rules)`.
pub fn version_line() -> &'static str {
    static LINE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LINE.get_or_init(|| {
        format!(
            "{} ({} rules)",
            env!("CARGO_PKG_VERSION"),
            crate::rules::all().len()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::parse_duration_ms;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ms("90s"), Ok(90_000));
        assert_eq!(parse_duration_ms("5m"), Ok(300_000));
        assert_eq!(parse_duration_ms("2h"), Ok(7_200_000));
        assert_eq!(parse_duration_ms("1500ms"), Ok(1_500));
        assert_eq!(parse_duration_ms("30"), Ok(30_000));
        assert!(parse_duration_ms("5 minutes").is_err());
        assert!(parse_duration_ms("m").is_err());
    }
}
