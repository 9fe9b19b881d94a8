//! `proclint server`, the language server (`lsp`, over its own stdio
//! `transport`), and what it shares with `proclint mcp` (`lint`, `jsonrpc`).

mod document;
pub mod jsonrpc;
pub mod lint;
mod lsp;
mod transport;

/// The exit code after an `exit` that no `shutdown` preceded, or an input
/// that ended without either (the LSP spec asks for 1).
pub const EXIT_WITHOUT_SHUTDOWN: i32 = 1;

/// Serves LSP on stdin/stdout until the client exits: 0 after a clean
/// `shutdown`/`exit`, [`EXIT_WITHOUT_SHUTDOWN`] (1) after an `exit` without
/// `shutdown` or the end of the input, 2 if the connection failed (a frame
/// it cannot read, such as a `Content-Length` over 64 MiB; output that
/// cannot be written).
pub fn run() -> i32 {
    match transport::stdio() {
        Ok((connection, io)) => serve(connection, io),
        Err(e) => {
            eprintln!("error: proclint server: {e}");
            crate::source::output::EXIT_ERROR
        }
    }
}

/// Serves a connection until it ends; its exit code.
fn serve(connection: lsp_server::Connection, io: transport::Io) -> i32 {
    let served = lsp::serve(connection);
    let transport = io.join(served.is_ok());
    match (served, transport) {
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: proclint server: {e}");
            crate::source::output::EXIT_ERROR
        }
        (Ok(lsp::Ended::AfterShutdown), Ok(())) => crate::source::output::EXIT_OK,
        (Ok(lsp::Ended::WithoutShutdown), Ok(())) => EXIT_WITHOUT_SHUTDOWN,
    }
}
