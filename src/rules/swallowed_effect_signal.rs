//! `swallowed-effect-signal`: a `catch` around an effect that does not
//! rethrow the SDK's "effect pending" signal.

use crate::js::syntax::tree::Node;

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::analysis::catch::{self, Verdict};
use crate::js::analysis::effects::{effect_of_call, Reach, Reached};
use crate::js::syntax::{span, unparen};
use crate::js::JsModel;
use crate::source::Span;

pub struct SwallowedEffectSignal;

static META: RuleMeta = RuleMeta {
    id: "swallowed-effect-signal",
    summary: "A catch around an effect does not rethrow the SDK's effect signal.",
    severity: Severity::Error,
    area: Area::RuntimeCorrectness,
    category: Category::Correctness,
    doc: include_str!("../../rules/swallowed-effect-signal.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

impl Rule for SwallowedEffectSignal {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::Invocations,
            praise: "No catch swallows the SDK's effect signal",
            sdk_hint: "The SDK signals an unresolved effect by throwing, so any catch-all in process code can swallow it. An SDK-exported `rethrowIfIntrinsic(e)` helper, or signalling that ordinary `catch` does not intercept, would remove the trap.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        // Cheap byte check: without a `catch` or a two-argument `.then`
        // there is no handler to judge, and most modules have neither.
        if !m.src().contains("catch") && !m.src().contains(".then(") {
            return;
        }
        let reach = Reach::new(m);
        for (try_stmt, clause) in catch::try_catches(m) {
            let Some(block) = try_stmt.field("body") else {
                continue;
            };
            let Some(reached) = reach.in_node(block) else {
                continue;
            };
            let Verdict::Swallows { partial } = catch::catch_clause(m, clause) else {
                continue;
            };
            let err = clause
                .field("parameter")
                .filter(|p| p.kind_str() == "identifier")
                .map(|p| m.text(p));
            let how = match (partial, err) {
                (true, _) => "rethrows the error only on some paths",
                (false, Some(_)) => "does not rethrow the error",
                (false, None) => "discards the error",
            };
            // A keyed call asks for the same effect on the next attempt.
            let keyed = m.calls[reached.effect]
                .args
                .get(2)
                .and_then(|o| m.object_of_expr(*o))
                .is_some_and(|o| {
                    crate::js::model::objects::property(m, o, "key").is_some()
                        || crate::js::model::objects::property(m, o, "stableKey").is_some()
                });
            let goes_round = !keyed && clause.field("body").is_some_and(|b| !leaves(b));
            let message = match retry_loop_of(m, try_stmt, clause).filter(|_| goes_round) {
                Some(header) => format!(
                    "this catch {how}, so it swallows {}",
                    describe_retried(m, &reached, &header)
                ),
                None => format!("this catch {how}, so it swallows {}", describe(m, &reached)),
            };
            let d = sink.diag(header(m, clause), message);
            let d = related(m, sink, d, &reached).with_help(help(err.unwrap_or("e")));
            sink.push(d);
        }
        // `.catch(handler)` on a promise that dispatches effects.
        for call in &m.calls {
            let callee = unparen(call.callee);
            if callee.kind_str() != "member_expression" {
                continue;
            }
            let (Some(object), Some(prop)) = (callee.field("object"), callee.field("property"))
            else {
                continue;
            };
            let handler = match (m.text(prop), call.args.as_slice()) {
                ("catch", [h, ..]) | ("then", [_, h, ..]) => *h,
                _ => continue,
            };
            // Unresolved handlers (imported, `console.error`) are not judged.
            let Some(f) = m.function_of_expr(handler) else {
                continue;
            };
            let Some(reached) = reach.in_node(object) else {
                continue;
            };
            let Verdict::Swallows { partial } = catch::handler_function(m, f, 0) else {
                continue;
            };
            let err = m.functions[f]
                .param_bindings
                .first()
                .copied()
                .flatten()
                .map(|b| m.scopes.get(b).name.as_str());
            let how = if partial {
                "rethrows the error only on some paths"
            } else {
                "resolves instead of rethrowing"
            };
            let message = format!(
                "this `.{}()` handler {how}, so it swallows {}",
                m.text(prop),
                describe(m, &reached)
            );
            let d = sink.diag(span(handler), message);
            let d = related(m, sink, d, &reached).with_help(help_callback(err.unwrap_or("e")));
            sink.push(d);
        }
    }
}

/// `catch (e)`: from the keyword to the body.
fn header(m: &JsModel, clause: Node) -> Span {
    let end = clause
        .field("body")
        .map_or(clause.end_byte(), |b| b.start_byte());
    let text = m.src().get(clause.start_byte()..end).unwrap_or("");
    Span::new(
        clause.start_byte(),
        clause.start_byte() + text.trim_end().len(),
    )
}

fn callee_text<'a>(m: &JsModel<'a>, call: usize) -> &'a str {
    m.text(m.calls[call].callee)
}

/// "the SDK's effect signal thrown by `ctx.task(…)` (reached
/// through `runReview`): …consequence".
fn describe(m: &JsModel, r: &Reached) -> String {
    let effect = effect_named(m, r);
    let halt = effect_of_call(m, r.effect).is_some_and(|e| e.method == "halt");
    if halt {
        format!("the SDK's halt signal thrown by {effect}: the run carries on after it was halted")
    } else {
        // sdk-facts §6: the effect is journaled before the signal is thrown, so a first
        // pass still waits; a swallowed EffectPendingError skips the stray-effect check.
        format!(
            "the SDK's effect signal thrown by {effect}: the catch branch runs on every first pass \
             of the effect, and while the effect is still pending on a later iteration the run can \
             complete with what the catch produced instead of waiting for the result"
        )
    }
}

/// The header of the innermost loop around `try_stmt` in its own function,
/// when it is a counted `for` loop (`for (let attempt = 1; attempt <=
/// retries; attempt++)`) whose condition `clause` assigns nothing of: a
/// catch that lets it go round retries the effect. A `for…of`/`for…in`
/// loop goes on to the next item instead, and a `while` loop's condition
/// may be what the catch changes (a state set to failed).
fn retry_loop_of(m: &JsModel, try_stmt: Node, clause: Node) -> Option<String> {
    use crate::js::model::LoopKind;
    let func = crate::js::analysis::results::enclosing_function(m, try_stmt);
    let l = m
        .loops
        .iter()
        .filter(|l| {
            l.func == func
                && l.body
                    .is_some_and(|b| crate::js::syntax::contains(b, try_stmt))
        })
        .max_by_key(|l| l.node.start_byte())
        .filter(|l| l.kind == LoopKind::For)?;
    let condition = l.condition?;
    let body = l.body?;
    let mut names = Vec::new();
    let mut stack = vec![condition];
    while let Some(n) = stack.pop() {
        if n.kind_str() == "identifier" {
            names.push(m.text(n));
        }
        stack.extend(n.named());
    }
    // The root variable of an assigned target (`state` of `state.done`).
    let mut stack = vec![clause];
    while let Some(n) = stack.pop() {
        let target = match n.kind_str() {
            "assignment_expression" | "augmented_assignment_expression" => n.field("left"),
            "update_expression" => n.field("argument"),
            _ => None,
        };
        // `state.done = true` assigns what `!state.done` reads.
        if target
            .and_then(crate::js::analysis::loops::member_root)
            .is_some_and(|t| names.contains(&m.text(t)))
        {
            return None;
        }
        // A function of the module may change what the condition reads.
        if n.kind_str() == "call_expression"
            && n.field("function")
                .is_some_and(|f| m.function_of_expr(f).is_some())
        {
            return None;
        }
        stack.extend(n.named());
    }
    // Each pass retries the same work: the tried block reads nothing the
    // loop's condition counts with (`items[i]` is another item's work).
    let tried = try_stmt.field("body")?;
    let mut stack = vec![tried];
    while let Some(n) = stack.pop() {
        if n.kind_str() == "identifier" && names.contains(&m.text(n)) {
            return None;
        }
        stack.extend(n.named());
    }
    // Nothing else in the loop's body leaves it (`if (failed) break;`).
    if body.named().any(|st| {
        st.id() != try_stmt.id() && !crate::js::syntax::contains(st, try_stmt) && leaves(st)
    }) {
        return None;
    }
    Some(l.display(m.src(), 60))
}

/// Whether a `return`, `break` or `continue` with a label sits in `body`
/// outside nested functions: the catch may then leave the loop rather than
/// let it go round.
fn leaves(body: Node) -> bool {
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        match n.kind_str() {
            "return_statement" | "break_statement" => return true,
            "continue_statement" if n.named_child(0).is_some() => return true,
            "function_declaration"
            | "function_expression"
            | "arrow_function"
            | "method_definition" => continue,
            _ => stack.extend(n.named()),
        }
    }
    false
}

/// As [`describe`], for a catch inside a loop that goes round after it:
/// the effect's first pass lands in the catch, and the next pass calls
/// again, which the SDK counts as another call.
fn describe_retried(m: &JsModel, r: &Reached, header: &str) -> String {
    let effect = effect_named(m, r);
    format!(
        "the SDK's effect signal thrown by {effect}: the catch branch runs on every first pass \
         of the effect, and when `{header}` then goes round, the call is made again with the \
         next occurrence count, which requests a second effect for the same work before the \
         first has a result"
    )
}

/// "`ctx.task(…)` (reached through `runReview`)": the effect a finding is
/// about, as its messages name it.
fn effect_named(m: &JsModel, r: &Reached) -> String {
    let effect = format!("`{}(…)`", callee_text(m, r.effect));
    match r.via.first() {
        Some(&first) => format!("{effect} (reached through `{}`)", callee_text(m, first)),
        None => effect,
    }
}

fn related(
    m: &JsModel,
    sink: &Sink,
    mut d: crate::diagnostic::Diagnostic,
    r: &Reached,
) -> crate::diagnostic::Diagnostic {
    if let Some(&first) = r.via.first() {
        d = d.with_related(
            sink.location(span(m.calls[first].node)),
            format!(
                "calls `{}`, which dispatches effects",
                callee_text(m, first)
            ),
        );
    }
    d.with_related(
        sink.location(span(m.calls[r.effect].node)),
        "throws the SDK's signal until its effect is resolved",
    )
}

fn help(err: &str) -> String {
    format!(
        "rethrow the SDK's signals first: `catch ({err}) {{ if (isIntrinsicError({err})) throw {err}; … }}` \
         with `import {{ isIntrinsicError }} from '@a5c-ai/babysitter-sdk'`"
    )
}

fn help_callback(err: &str) -> String {
    format!(
        "rethrow the SDK's signals first: `.catch(({err}) => {{ if (isIntrinsicError({err})) throw {err}; … }})` \
         with `import {{ isIntrinsicError }} from '@a5c-ai/babysitter-sdk'`, or use try/catch"
    )
}
