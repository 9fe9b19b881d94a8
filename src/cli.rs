//! Command-line definitions (clap derive). No logic here.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::diagnostic::Severity;
use crate::report::Format;

#[derive(Debug, Parser)]
#[command(
    name = "proclint",
    version = crate::version_line(),
    about = "A fast, precise linter for babysitter agent processes, SKILL.md files and SDK pins",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

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
    /// Files or directories to lint (default: the current directory).
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

    /// Run only these rules (comma-separated; overrides config).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub select: Vec<String>,

    /// Turn these rules off (comma-separated; overrides config).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    pub ignore: Vec<String>,

    /// Print only the findings, no summary line.
    #[arg(long, short = 'q')]
    pub quiet: bool,

    /// Print the number of findings per rule after the report.
    #[arg(long)]
    pub statistics: bool,

    /// Apply the safe fixes rules offer, editing files in place.
    #[arg(long)]
    pub fix: bool,

    /// With --fix: print a unified diff of the fixes and write nothing.
    #[arg(long, requires = "fix")]
    pub diff: bool,

    /// Lint stdin as if it were the file at PATH (editor integration); the
    /// rest of PATH's project is loaded as context.
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<PathBuf>,

    /// Date printed in `--format retrospective` (YYYY-MM-DD; default:
    /// SOURCE_DATE_EPOCH, else today).
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_date)]
    pub date: Option<String>,

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
