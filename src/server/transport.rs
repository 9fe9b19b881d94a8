//! The language server's stdio transport, in place of lsp-server's.
//!
//! lsp-server's reader trusts its input: it allocates the `Content-Length`
//! a client declares before reading a byte (10^11 aborts the process, 2^64
//! − 1 panics), reads a header line of any length, and ends the connection
//! at the first message that is not UTF-8 or not JSON it can read (a lone
//! surrogate escape). It also hands the loop one message at a time, so
//! the loop cannot see that more are queued and lints after each.
//!
//! This reader takes a header line of at most [`MAX_HEADER_LINE`] bytes and
//! at most [`MAX_HEADERS`] of them, a `Content-Length` of at most
//! [`MAX_MESSAGE`] (64 MiB), and grows its buffer with the bytes that
//! actually arrive; a frame it cannot read closes the connection (the
//! server exits 2, the reason on stderr). A body it cannot read as a
//! message is handed to the loop as an [`INVALID`] notification, which the
//! loop answers (an error reply when the request's id can be read, else a
//! log message), and the connection goes on. It reads ahead into an
//! unbounded queue, so the loop sees every message already sent.

use std::io::{BufRead, BufReader, Read, Write};
use std::thread::JoinHandle;

use lsp_server::{Connection, Message, Notification};
use serde_json::{json, Value};

use crate::server::jsonrpc::{self, Invalid, INVALID_REQUEST, MAX_MESSAGE};

/// The longest header line read, in bytes.
pub(super) const MAX_HEADER_LINE: usize = 4096;
/// The most header lines before a body.
pub(super) const MAX_HEADERS: usize = 64;

/// The notification a message the reader could not read becomes, with
/// its [`Invalid`] as params (`id`, `code`, `message`). A client never has
/// a reason to send it; if one does, it gets the error it describes.
pub(super) const INVALID: &str = "$/proclint/invalidMessage";

/// The reader and writer threads of a connection.
pub(super) struct Io {
    reader: JoinHandle<Result<(), String>>,
    writer: JoinHandle<std::io::Result<()>>,
}

/// A connection over stdin and stdout.
pub(super) fn stdio() -> Result<(Connection, Io), String> {
    spawn(std::io::stdin(), std::io::stdout())
}

/// A connection reading LSP frames from `input` and writing them to
/// `output`, each on its own thread.
pub(super) fn spawn(
    input: impl Read + Send + 'static,
    mut output: impl Write + Send + 'static,
) -> Result<(Connection, Io), String> {
    let (server, client) = Connection::memory();
    let Connection {
        sender: inbox,
        receiver: outbox,
    } = client;
    let reader = std::thread::Builder::new()
        .name("proclint-lsp-reader".into())
        .spawn(move || {
            let mut input = BufReader::new(input);
            loop {
                let body = match read_frame(&mut input) {
                    Ok(Some(body)) => body,
                    Ok(None) => return Ok(()),
                    Err(e) => {
                        // The loop logs it for the client; then the
                        // connection closes.
                        let invalid = Invalid {
                            id: Value::Null,
                            code: jsonrpc::PARSE_ERROR,
                            message: format!("closing the connection: {e}"),
                        };
                        let _ = inbox.send(as_notification(invalid));
                        return Err(e);
                    }
                };
                let message = decode(&body);
                let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                // The loop is gone: nothing left to read for.
                if inbox.send(message).is_err() || exit {
                    return Ok(());
                }
            }
        })
        .map_err(|e| e.to_string())?;
    let writer = std::thread::Builder::new()
        .name("proclint-lsp-writer".into())
        .spawn(move || {
            for message in outbox {
                message.write(&mut output)?;
            }
            Ok(())
        })
        .map_err(|e| e.to_string())?;
    Ok((server, Io { reader, writer }))
}

impl Io {
    /// Waits for the writer to send what the loop left (it ends when the
    /// loop drops its connection), and for the reader when it is done
    /// (`reader_done`: the loop saw `exit` or the end of the input; else
    /// it may be blocked on a read that never ends). The reader's error
    /// is the first.
    pub(super) fn join(self, reader_done: bool) -> Result<(), String> {
        let read = if reader_done {
            self.reader
                .join()
                .unwrap_or_else(|p| Err(crate::engine::panic_message(&p)))
        } else {
            Ok(())
        };
        let written = self
            .writer
            .join()
            .unwrap_or_else(|p| Err(std::io::Error::other(crate::engine::panic_message(&p))))
            .map_err(|e| format!("writing to the client: {e}"));
        read.and(written)
    }
}

fn as_notification(invalid: Invalid) -> Message {
    Message::Notification(Notification::new(
        INVALID.into(),
        json!({ "id": invalid.id, "code": invalid.code, "message": invalid.message }),
    ))
}

/// A frame's body as a message; one it cannot read as the [`INVALID`]
/// notification describing why.
pub(super) fn decode(body: &[u8]) -> Message {
    let invalid = match jsonrpc::parse(body) {
        Ok(Value::Array(_)) => Invalid {
            id: Value::Null,
            code: INVALID_REQUEST,
            message: "a batch (JSON array): LSP sends one message per frame".into(),
        },
        Ok(value) if value.get("method").is_some_and(|m| !m.is_string()) => Invalid {
            id: jsonrpc::id_of(&value),
            code: INVALID_REQUEST,
            message: "not an LSP message: `method` is not a string".into(),
        },
        Ok(value) => {
            let id = jsonrpc::id_of(&value);
            match serde_json::from_value::<Message>(value) {
                Ok(message) => return message,
                Err(e) => Invalid {
                    id,
                    code: INVALID_REQUEST,
                    message: format!("not an LSP message: {e}"),
                },
            }
        }
        Err(invalid) => invalid,
    };
    as_notification(invalid)
}

/// Reads one frame: headers, an empty line, `Content-Length` bytes. `None`
/// at the end of the input before a frame; an error for a frame that
/// cannot be read (the connection cannot find the next one after it).
pub(super) fn read_frame(input: &mut impl BufRead) -> Result<Option<Vec<u8>>, String> {
    let mut length: Option<usize> = None;
    let mut headers = 0;
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = input
            .by_ref()
            .take(MAX_HEADER_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("reading a header: {e}"))?;
        if read == 0 {
            if headers == 0 {
                return Ok(None);
            }
            return Err("the input ended inside a header".into());
        }
        if line.last() != Some(&b'\n') {
            if line.len() > MAX_HEADER_LINE {
                return Err(format!("a header line over {MAX_HEADER_LINE} bytes"));
            }
            return Err("the input ended inside a header".into());
        }
        let text = std::str::from_utf8(&line)
            .map_err(|_| "a header that is not UTF-8".to_string())?
            .trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if headers == 0 {
                // A stray line break between frames.
                continue;
            }
            break;
        }
        headers += 1;
        if headers > MAX_HEADERS {
            return Err(format!("more than {MAX_HEADERS} header lines"));
        }
        let Some((name, value)) = text.split_once(':') else {
            return Err(format!("malformed header {text:?}"));
        };
        if name.trim().eq_ignore_ascii_case("Content-Length") {
            length = Some(content_length(value.trim())?);
        }
    }
    let Some(length) = length else {
        return Err("a frame without a Content-Length header".into());
    };
    // Grown with what arrives, not allocated from the header.
    let mut body = Vec::with_capacity(length.min(64 << 10));
    input
        .by_ref()
        .take(length as u64)
        .read_to_end(&mut body)
        .map_err(|e| format!("reading a message: {e}"))?;
    if body.len() < length {
        return Err(format!(
            "the input ended {} bytes into a {length}-byte message",
            body.len()
        ));
    }
    Ok(Some(body))
}

/// A `Content-Length` value: decimal digits, at most [`MAX_MESSAGE`].
fn content_length(value: &str) -> Result<usize, String> {
    let too_large =
        || format!("Content-Length {value} is over the limit of {MAX_MESSAGE} bytes (64 MiB)");
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("Content-Length {value:?} is not a number"));
    }
    let mut length: usize = 0;
    for digit in value.bytes() {
        length = length
            .checked_mul(10)
            .and_then(|l| l.checked_add(usize::from(digit - b'0')))
            .filter(|&l| l <= MAX_MESSAGE)
            .ok_or_else(too_large)?;
    }
    Ok(length)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Result<Vec<u8>, String>> {
        let mut input = input;
        let mut out = Vec::new();
        loop {
            match read_frame(&mut input) {
                Ok(Some(body)) => out.push(Ok(body)),
                Ok(None) => return out,
                Err(e) => {
                    out.push(Err(e));
                    return out;
                }
            }
        }
    }

    #[test]
    fn frames_and_their_limits() {
        // Headers in any case, other headers ignored, LF-only lines taken.
        let input = b"content-length: 2\r\nContent-Type: x\r\n\r\n{}Content-Length:3\n\n[1]";
        assert_eq!(frames(input), [Ok(b"{}".to_vec()), Ok(b"[1]".to_vec())],);
        for (input, error) in [
            (
                &b"Content-Length: 100000000000\r\n\r\n{}"[..],
                "over the limit",
            ),
            (
                b"Content-Length: 18446744073709551616\r\n\r\n",
                "over the limit",
            ),
            (b"Content-Length: 67108865\r\n\r\n", "over the limit"),
            (b"Content-Length: -1\r\n\r\n", "not a number"),
            (b"Content-Length: 0x10\r\n\r\n", "not a number"),
            (b"Content-Type: x\r\n\r\n{}", "without a Content-Length"),
            (
                b"Content-Length: 5\r\n\r\n{}",
                "ended 2 bytes into a 5-byte message",
            ),
            (b"Content-Length: 5\r\n", "ended inside a header"),
            (b"Content-Length 5\r\n\r\n", "malformed header"),
        ] {
            let got = frames(input);
            let Some(Err(e)) = got.last() else {
                panic!("{input:?}: {got:?}");
            };
            assert!(e.contains(error), "{input:?}: {e}");
        }
        let long = vec![b'x'; MAX_HEADER_LINE * 4];
        assert!(frames(&long)[0]
            .as_ref()
            .unwrap_err()
            .contains("header line over"));
        let many = b"X: y\r\n".repeat(MAX_HEADERS + 1);
        assert!(frames(&many)[0]
            .as_ref()
            .unwrap_err()
            .contains("header lines"));
        // 64 MiB is allowed (and not allocated before it arrives).
        assert_eq!(content_length("67108864"), Ok(MAX_MESSAGE));
    }

    #[test]
    fn bodies_that_are_not_messages() {
        let invalid = |m: Message| match m {
            Message::Notification(n) if n.method == INVALID => n.params,
            m => panic!("{m:?}"),
        };
        let p = invalid(decode(br#"{"id":4,"method":"x","params":{"s":"\ud800"}}"#));
        assert_eq!(
            (p["id"].clone(), p["code"].clone()),
            (json!(4), json!(-32700))
        );
        let p = invalid(decode(br#"[{"id":4,"method":"x"}]"#));
        assert_eq!(
            (p["id"].clone(), p["code"].clone()),
            (Value::Null, json!(-32600))
        );
        let p = invalid(decode(br#"{"id":4,"method":7}"#));
        assert_eq!(
            (p["id"].clone(), p["code"].clone()),
            (json!(4), json!(-32600))
        );
        assert!(matches!(
            decode(br#"{"jsonrpc":"2.0","id":4,"method":"x"}"#),
            Message::Request(_)
        ));
    }
}
