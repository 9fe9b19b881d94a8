//! Turning a check task's result into a verdict and a set of finding
//! fingerprints that survive the churn between rounds (line numbers, paths,
//! identifiers, hashes), so "the same finding again" can be recognised.

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Pass,
    Fail,
    /// A check round whose result carries no verdict (e.g. a malformed result).
    Unknown,
}

/// Boolean verdict fields, in the order they are consulted.
const VERDICT_FIELDS: &[&str] = &[
    "passed",
    "approved",
    "allPassing",
    "allPassed",
    "passesQuality",
];
/// Arrays whose entries are findings.
const FINDING_FIELDS: &[&str] = &[
    "issues",
    "findings",
    "errors",
    "failures",
    "problems",
    "violations",
    "blockers",
];
/// String fields that carry a finding's text when it is an object.
const TEXT_FIELDS: &[&str] = &[
    "message",
    "description",
    "title",
    "summary",
    "text",
    "issue",
    "detail",
];

/// The verdict a check task reported, or `None` when the value does not look
/// like a check result. `status` counts only with unmistakable words: a fix
/// task reporting `status: "ok"` or `"done"` is not a check.
pub fn verdict(value: &Value) -> Option<Verdict> {
    for field in VERDICT_FIELDS {
        if let Some(b) = value.get(field).and_then(Value::as_bool) {
            return Some(if b { Verdict::Pass } else { Verdict::Fail });
        }
    }
    let status = value
        .get("status")
        .and_then(Value::as_str)?
        .to_ascii_lowercase();
    match status.as_str() {
        "pass" | "passed" | "passing" | "approved" | "green" => Some(Verdict::Pass),
        "fail" | "failed" | "failing" | "rejected" | "changes_requested" | "changes-requested"
        | "red" => Some(Verdict::Fail),
        _ => None,
    }
}

/// The raw finding texts of a result, from every finding array present.
pub fn findings(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for field in FINDING_FIELDS {
        let Some(items) = value.get(field).and_then(Value::as_array) else {
            continue;
        };
        for item in items {
            out.push(match item {
                Value::String(s) => s.clone(),
                Value::Object(o) => TEXT_FIELDS
                    .iter()
                    .find_map(|k| o.get(*k).and_then(Value::as_str))
                    .map(str::to_string)
                    .unwrap_or_else(|| item.to_string()),
                other => other.to_string(),
            });
        }
    }
    out
}

/// Normalises a finding into its fingerprint: case folded, quoted
/// identifiers → `<q>`, paths → `<path>`, hex → `<hex>`, numbers → `<n>`,
/// whitespace collapsed.
pub fn fingerprint(text: &str) -> String {
    let lowered = text.to_lowercase();
    let unquoted = mask_quoted(&lowered);
    let tokens: Vec<String> = unquoted.split_whitespace().map(mask_token).collect();
    let joined = mask_numbers(&tokens.join(" "));
    joined
        .trim_end_matches(['.', ':', ';', ','])
        .trim()
        .to_string()
}

/// `'x'`, `"x"` and `` `x` `` → `<q>`. An opening quote must not follow a
/// letter or digit, so apostrophes in words ("doesn't") are left alone.
fn mask_quoted(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let opens = matches!(c, '\'' | '"' | '`') && (i == 0 || !chars[i - 1].is_alphanumeric());
        if opens {
            let close = chars[i + 1..]
                .iter()
                .position(|&d| d == c || d == '\n')
                .map(|p| p + i + 1)
                .filter(|&j| j > i + 1 && chars[j] == c)
                .filter(|&j| chars.get(j + 1).is_none_or(|n| !n.is_alphanumeric()));
            if let Some(j) = close {
                out.push_str("<q>");
                i = j + 1;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

fn mask_token(token: &str) -> String {
    let is_edge = |c: char| matches!(c, '(' | ')' | '[' | ']' | ',' | ';' | '.' | ':' | '!' | '?');
    let core = token.trim_matches(is_edge);
    if core.is_empty() || core.contains('<') {
        return token.to_string();
    }
    let start = token.find(core).unwrap_or(0);
    let (lead, trail) = (&token[..start], &token[start + core.len()..]);
    let masked = if looks_like_path(core) {
        "<path>"
    } else if looks_like_hex(core) {
        "<hex>"
    } else {
        return token.to_string();
    };
    format!("{lead}{masked}{trail}")
}

fn looks_like_path(t: &str) -> bool {
    if t.contains('/') || t.contains('\\') {
        return true;
    }
    // `name.ext` with an optional `:line[:col]`, e.g. `phases.js:12`.
    let base = t.split(':').next().unwrap_or(t);
    let Some((name, ext)) = base.rsplit_once('.') else {
        return false;
    };
    let ext_ok = (1..=5).contains(&ext.len()) && ext.chars().all(|c| c.is_ascii_alphabetic());
    let name_ok = name.chars().count() >= 2
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
    ext_ok && name_ok && (ext.len() >= 2 || name.contains(['_', '-']))
}

fn looks_like_hex(t: &str) -> bool {
    if let Some(rest) = t.strip_prefix("0x") {
        return !rest.is_empty() && rest.chars().all(|c| c.is_ascii_hexdigit());
    }
    t.len() >= 7
        && t.chars().all(|c| c.is_ascii_hexdigit())
        && t.chars().any(|c| c.is_ascii_digit())
        && t.chars().any(|c| c.is_ascii_alphabetic())
}

/// Digit runs (with an optional decimal part) → `<n>`.
fn mask_numbers(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() {
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || (chars[i] == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            out.push_str("<n>");
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn masks_the_churn_between_rounds() {
        let a = fingerprint("Missing test for 'parseConfig' in src/config.js:12");
        let b = fingerprint("missing test for \"loadUser\" in src/users/load.ts:88.");
        assert_eq!(a, "missing test for <q> in <path>");
        assert_eq!(a, b);
        assert_eq!(
            fingerprint("Commit 3f2a9c1d broke 0xDEADBEEF after 2.5 seconds (phases.js:40)"),
            "commit <hex> broke <hex> after <n> seconds (<path>)"
        );
        assert_eq!(
            fingerprint("  Type   error\tin  `foo`  "),
            "type error in <q>"
        );
        assert_eq!(
            fingerprint("doesn't handle e.g. empty input"),
            "doesn't handle e.g. empty input"
        );
        assert_eq!(fingerprint("Line 42 too long"), "line <n> too long");
        assert_ne!(fingerprint("Missing test"), fingerprint("Missing docs"));
    }

    #[test]
    fn verdicts_from_known_fields_only() {
        assert_eq!(verdict(&json!({"passed": false})), Some(Verdict::Fail));
        assert_eq!(
            verdict(&json!({"approved": true, "status": "failed"})),
            Some(Verdict::Pass)
        );
        assert_eq!(verdict(&json!({"allPassing": true})), Some(Verdict::Pass));
        assert_eq!(
            verdict(&json!({"passesQuality": false})),
            Some(Verdict::Fail)
        );
        assert_eq!(
            verdict(&json!({"status": "Changes_Requested"})),
            Some(Verdict::Fail)
        );
        assert_eq!(verdict(&json!({"status": "ok"})), None);
        assert_eq!(verdict(&json!({"success": true})), None);
        assert_eq!(verdict(&json!("passed")), None);
    }

    #[test]
    fn findings_from_strings_and_objects() {
        let v = json!({
            "issues": ["a", {"message": "b", "file": "x.js"}, {"code": 7}, 3],
            "errors": ["c"],
            "notes": ["ignored"],
        });
        assert_eq!(findings(&v), vec!["a", "b", "{\"code\":7}", "3", "c"]);
    }
}
