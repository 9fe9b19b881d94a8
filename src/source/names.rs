//! Near misses between names: the "did you mean" of every front end and
//! rule (a context method, a rule id, a declared field, a heading anchor,
//! a frontmatter key), and the words a name is made of.

/// Levenshtein distance over chars.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // No limit: every row is filled.
    distance_within(&a, &b, usize::MAX).unwrap_or(usize::MAX)
}

/// The Levenshtein distance over chars when it is at most `limit`, found
/// without filling the rows once every entry of one exceeds it.
pub fn distance_within(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        let mut row_min = cur[0];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
            row_min = row_min.min(cur[j + 1]);
        }
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[b.len()]).filter(|d| *d <= limit)
}

/// The candidate nearest to `name` ignoring case, when it is a plausible
/// typo of it: at most a third of `name`'s length away (one edit for the
/// shortest names, three for the longest). Ties go to the first in
/// `candidates`' order.
pub fn nearest<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = name.to_lowercase();
    let limit = (name.chars().count() / 3).clamp(1, 3);
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        let d = edit_distance(&lower, &c.to_lowercase());
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.filter(|(d, _)| *d <= limit).map(|(_, c)| c)
}

/// The lower-case words of a name or id: `logProgressTask`,
/// `log-progress` and `['bookkeeping']` all split into theirs (at
/// anything not alphanumeric and where a lower-case letter or digit meets
/// an upper-case one).
pub fn name_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for ch in name.chars() {
        if !ch.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if ch.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = ch.is_lowercase() || ch.is_ascii_digit();
        cur.extend(ch.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("täsk", "task"), 1);
        let c = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(distance_within(&c("kitten"), &c("sitting"), 3), Some(3));
        assert_eq!(distance_within(&c("kitten"), &c("sitting"), 2), None);
        assert_eq!(distance_within(&c("ab"), &c("abcd"), 1), None);
        assert_eq!(distance_within(&c("reslut"), &c("result"), 2), Some(2));
    }

    #[test]
    fn near_misses() {
        let known = ["description", "allowed-tools", "name"];
        assert_eq!(nearest("descripton", &known), Some("description"));
        assert_eq!(nearest("Allowed-Tools", &known), Some("allowed-tools"));
        assert_eq!(nearest("slug", &known), None);
        assert_eq!(nearest("id", &known), None);
    }
}
