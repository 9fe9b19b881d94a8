//! `proclint server`, the language server (`lsp`), and what it shares
//! with `proclint mcp` (`lint`, `jsonrpc`).

mod document;
pub mod jsonrpc;
pub mod lint;
mod lsp;

/// Serves LSP on stdin/stdout until the client exits: 0 after a clean
/// `shutdown`/`exit`, 2 if the connection failed.
pub fn run() -> i32 {
    let (connection, io_threads) = lsp_server::Connection::stdio();
    let served = lsp::serve(connection);
    let joined = io_threads.join();
    match (served, joined) {
        (Ok(()), Ok(())) => crate::source::output::EXIT_OK,
        (Err(e), _) => {
            eprintln!("error: proclint server: {e}");
            crate::source::output::EXIT_ERROR
        }
        (_, Err(e)) => {
            eprintln!("error: proclint server: {e}");
            crate::source::output::EXIT_ERROR
        }
    }
}
