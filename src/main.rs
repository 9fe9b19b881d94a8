use clap::Parser;

fn main() {
    // A panic inside a rule is caught and reported as an `internal-error`
    // diagnostic; keep the default hook's backtrace noise off the output.
    if std::env::var_os("PROCLINT_DEBUG_PANICS").is_none() {
        std::panic::set_hook(Box::new(|_| {}));
    }
    let cli = proclint::cli::Cli::parse();
    std::process::exit(proclint::commands::run(cli));
}
