//! Presentation helpers shared by the convergence rules (`unbounded-loop`,
//! `exhausted-retry-unhandled`, `retry-without-history`): how a loop or a
//! call is named in a message.

use crate::js::syntax::tree::Node;

use crate::js::model::{Call, Loop};
use crate::js::syntax::{text, unparen};
use crate::js::JsModel;

/// Longest code excerpt quoted in a message.
const MAX_EXCERPT: usize = 60;

/// A code excerpt on one line, shortened to [`MAX_EXCERPT`] characters.
pub fn excerpt(m: &JsModel, node: Node) -> String {
    shorten(text(node, m.src()))
}

fn shorten(s: &str) -> String {
    crate::js::syntax::shorten_code(s, MAX_EXCERPT)
}

/// The loop as a reader names it: `while (!passed)`, `for (;;)`,
/// `do … while (attempt < max)`.
pub fn loop_header(m: &JsModel, lp: &Loop) -> String {
    lp.display(m.src(), MAX_EXCERPT)
}

/// `ctx.task(reviewTask, …)`, `reviewPhase(…)`.
pub fn call_name(m: &JsModel, call: &Call) -> String {
    let callee = excerpt(m, call.callee);
    match call.args.first() {
        Some(first) => {
            let first = unparen(*first);
            let named = matches!(first.kind_str(), "identifier" | "member_expression")
                && text(first, m.src()).len() <= 40;
            match (named, call.args.len()) {
                (true, 1) => format!("{callee}({})", text(first, m.src())),
                (true, _) => format!("{callee}({}, …)", text(first, m.src())),
                (false, _) => format!("{callee}(…)"),
            }
        }
        None => format!("{callee}()"),
    }
}
