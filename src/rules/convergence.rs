//! Presentation helpers shared by the convergence rules (`unbounded-loop`,
//! `exhausted-retry-unhandled`, `retry-without-history`): how a loop or a
//! call is named in a message.

use tree_sitter::Node;

use crate::js::model::{Call, Loop, LoopKind};
use crate::js::syntax::{text, unparen, NodeExt};
use crate::js::JsModel;

/// Longest code excerpt quoted in a message.
const MAX_EXCERPT: usize = 60;

/// A code excerpt on one line, shortened to [`MAX_EXCERPT`] characters.
pub fn excerpt(m: &JsModel, node: Node) -> String {
    shorten(text(node, m.src()))
}

fn shorten(s: &str) -> String {
    let one_line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MAX_EXCERPT {
        return one_line;
    }
    let cut: String = one_line.chars().take(MAX_EXCERPT - 1).collect();
    format!("{}…", cut.trim_end())
}

/// The loop's header as written: `while (!passed)`, `for (;;)`,
/// `do { … } while (attempt < max)`.
pub fn loop_header(m: &JsModel, lp: &Loop) -> String {
    let src = m.src();
    match lp.kind {
        LoopKind::DoWhile => {
            let cond = lp.condition.map(|c| text(c, src)).unwrap_or("(…)");
            shorten(&format!("do {{ … }} while {cond}"))
        }
        _ => {
            let h = lp.header();
            shorten(src.get(h.start..h.end).unwrap_or("loop"))
        }
    }
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
