//! What the SDK's process context and its errors look like: the one place
//! that lists the context's methods and properties, the effect methods, and
//! the intrinsic error names. SDK forks extend the method list through the
//! `unknown-context-method` rule's `extra-methods` option.

/// Methods of the process context (`ctx.<method>(…)`); nested helpers are
/// spelled with a dot.
pub const CONTEXT_METHODS: &[&str] = &[
    "task",
    "breakpoint",
    "parallel.all",
    "parallel.map",
    "sleepUntil",
    "orchestratorTask",
    "subprocess",
    "hook",
    "log",
    "now",
    "halt",
    "onCleanup",
];

/// Plain (non-callable) properties of the process context.
pub const CONTEXT_PROPERTIES: &[&str] = &["runId", "runDir", "artifactsDir"];

/// What a member of the process context holds, as the SDK's
/// `createProcessContext` (`runtime/processContext.ts`) builds it: the
/// methods are arrow functions, `parallel` is a plain object of `all` and
/// `map`, and the properties are strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberShape {
    /// A function (`ctx.log`, `ctx.task`, `ctx.now`, …): only what every
    /// function has (`call`, `apply`, `bind`, …).
    Function,
    /// A plain object whose own members are the dotted entries of the
    /// method list (`parallel.all`, `parallel.map`), plus what every
    /// object has.
    Namespace,
    /// A string (`ctx.runId`, `ctx.runDir`, `ctx.artifactsDir`).
    String,
}

/// The shape of the process context's member `name`, if the SDK defines it.
pub fn member_shape(name: &str) -> Option<MemberShape> {
    if CONTEXT_PROPERTIES.contains(&name) {
        return Some(MemberShape::String);
    }
    let prefix = |m: &&str| m.strip_prefix(name).is_some_and(|r| r.starts_with('.'));
    if CONTEXT_METHODS.iter().any(prefix) {
        return Some(MemberShape::Namespace);
    }
    CONTEXT_METHODS
        .contains(&name)
        .then_some(MemberShape::Function)
}

/// `Object.prototype`'s members: every context value has them.
pub const OBJECT_MEMBERS: &[&str] = &[
    "constructor",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "toString",
    "valueOf",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
    "__proto__",
];

/// `Function.prototype`'s members and an arrow function's own (`length`,
/// `name`), besides [`OBJECT_MEMBERS`].
pub const FUNCTION_MEMBERS: &[&str] = &["apply", "bind", "call", "length", "name"];

/// `String.prototype`'s members (ECMAScript 2024, Annex B included),
/// besides [`OBJECT_MEMBERS`].
pub const STRING_MEMBERS: &[&str] = &[
    "length",
    "at",
    "charAt",
    "charCodeAt",
    "codePointAt",
    "concat",
    "endsWith",
    "includes",
    "indexOf",
    "isWellFormed",
    "lastIndexOf",
    "localeCompare",
    "match",
    "matchAll",
    "normalize",
    "padEnd",
    "padStart",
    "repeat",
    "replace",
    "replaceAll",
    "search",
    "slice",
    "split",
    "startsWith",
    "substr",
    "substring",
    "toLocaleLowerCase",
    "toLocaleUpperCase",
    "toLowerCase",
    "toUpperCase",
    "toWellFormed",
    "trim",
    "trimEnd",
    "trimLeft",
    "trimRight",
    "trimStart",
    "anchor",
    "big",
    "blink",
    "bold",
    "fixed",
    "fontcolor",
    "fontsize",
    "italics",
    "link",
    "small",
    "strike",
    "sub",
    "sup",
];

/// Whether a value of `shape` has `member` by nature (what its prototype
/// gives it). A namespace's own members are the method list's dotted
/// entries, which the caller checks with the configured extras.
pub fn shape_has(shape: MemberShape, member: &str) -> bool {
    OBJECT_MEMBERS.contains(&member)
        || match shape {
            MemberShape::Function => FUNCTION_MEMBERS.contains(&member),
            MemberShape::Namespace => false,
            MemberShape::String => STRING_MEMBERS.contains(&member),
        }
}

/// Methods that request an effect from the orchestrator. Until the effect is
/// resolved the SDK signals "pending" by throwing from these calls; `halt`
/// throws its own halted signal.
pub const SIGNALLING_METHODS: &[&str] = &[
    "task",
    "breakpoint",
    "parallel.all",
    "parallel.map",
    "sleepUntil",
    "orchestratorTask",
    "subprocess",
    "hook",
    "halt",
];

/// Effect methods that make no sense on the task-build context (the second
/// parameter of a `defineTask` factory), which only describes the task.
pub const EFFECT_METHODS_NOT_ON_TASK_CONTEXT: &[&str] = &[
    "task",
    "breakpoint",
    "agent",
    "parallel.all",
    "parallel.map",
    "sleepUntil",
    "orchestratorTask",
    "subprocess",
];

/// Names (`err.name`) and classes (`instanceof`) of the errors the SDK throws
/// to signal an unresolved effect or a halted run.
pub const INTRINSIC_ERROR_NAMES: &[&str] = &[
    "BabysitterIntrinsicError",
    "EffectRequestedError",
    "EffectPendingError",
    "EffectCancelledError",
    "ParallelPendingError",
    "RunHaltedError",
    "ProcessHaltedError",
];

/// SDK exports that test whether an error is one of the intrinsic signals.
pub const INTRINSIC_GUARDS: &[&str] = &["isIntrinsicError"];

/// Methods people reach for that the context spells differently.
const ALIASES: &[(&str, &str)] = &[
    ("agent", "task"),
    ("skill", "task"),
    ("shell", "task"),
    ("exec", "task"),
    ("run", "task"),
    ("runTask", "task"),
    ("checkpoint", "breakpoint"),
    ("approve", "breakpoint"),
    ("approval", "breakpoint"),
    ("ask", "breakpoint"),
    ("confirm", "breakpoint"),
    ("prompt", "breakpoint"),
    ("sleep", "sleepUntil"),
    ("wait", "sleepUntil"),
    ("waitUntil", "sleepUntil"),
    ("delay", "sleepUntil"),
    ("parallel", "parallel.all"),
    ("all", "parallel.all"),
    ("map", "parallel.map"),
    ("stop", "halt"),
    ("abort", "halt"),
    ("exit", "halt"),
    ("fail", "halt"),
    ("info", "log"),
    ("debug", "log"),
    ("warn", "log"),
];

/// The known method closest to `name`: a known alias, else the nearest by
/// edit distance when it is close enough to be a plausible typo.
pub fn closest_method<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    if let Some((_, target)) = ALIASES.iter().find(|(a, _)| *a == name) {
        if let Some(k) = known.iter().find(|k| *k == target) {
            return Some(k);
        }
    }
    crate::source::names::nearest(name, known)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(
            closest_method("checkpoint", CONTEXT_METHODS),
            Some("breakpoint")
        );
        assert_eq!(closest_method("agent", CONTEXT_METHODS), Some("task"));
        assert_eq!(
            closest_method("breakpont", CONTEXT_METHODS),
            Some("breakpoint")
        );
        assert_eq!(
            closest_method("sleepUtil", CONTEXT_METHODS),
            Some("sleepUntil")
        );
        assert_eq!(
            closest_method("parallel.mapp", CONTEXT_METHODS),
            Some("parallel.map")
        );
        assert_eq!(closest_method("frobnicate", CONTEXT_METHODS), None);
        // An alias whose target a fork removed falls back to distance.
        assert_eq!(closest_method("agent", &["agents"]), Some("agents"));
    }

    #[test]
    fn shapes() {
        assert_eq!(member_shape("log"), Some(MemberShape::Function));
        assert_eq!(member_shape("now"), Some(MemberShape::Function));
        assert_eq!(member_shape("parallel"), Some(MemberShape::Namespace));
        assert_eq!(member_shape("runDir"), Some(MemberShape::String));
        assert_eq!(member_shape("par"), None);
        assert_eq!(member_shape("logger"), None);
        assert!(shape_has(MemberShape::Function, "bind"));
        assert!(!shape_has(MemberShape::Function, "info"));
        assert!(shape_has(MemberShape::Namespace, "hasOwnProperty"));
        assert!(!shape_has(MemberShape::Namespace, "race"));
        assert!(shape_has(MemberShape::String, "slice"));
        assert!(!shape_has(MemberShape::String, "join"));
    }

    #[test]
    fn distance() {}
}
