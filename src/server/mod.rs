//! `proclint server`, the language server, and what it shares with
//! `proclint mcp` (`lint`).

pub mod lint;

/// Serves LSP on stdin/stdout until the client exits.
pub fn run() -> i32 {
    eprintln!("error: proclint server is not implemented yet");
    crate::output::EXIT_ERROR
}
