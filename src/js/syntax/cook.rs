//! Cooked values: what a string literal, a template literal or a name
//! written with escapes means, as JavaScript reads it (`'l\u0061bels'` and
//! `l\u0061bels` are `labels`, `'\x61'` is `a`). Names and keys compare by
//! these, never by their text.

/// The value of a string literal's or a template literal's text (between
/// the quotes), or `None` where an escape is not valid JavaScript.
/// `template`: a template's text, where a line break is always `\n`
/// (`\r\n` and a lone `\r` too) and an octal escape other than `\0` is an
/// error; in a string (sloppy mode) `\1`–`\377` are octal escapes.
pub fn string(raw: &str, template: bool) -> Option<String> {
    if !raw.contains(['\\', '\r']) {
        return Some(raw.to_string());
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            // Only a template's text can hold a line break.
            chars.next_if_eq(&'\n');
            out.push('\n');
            continue;
        }
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next()?;
        match e {
            // A line continuation: nothing.
            '\n' | '\u{2028}' | '\u{2029}' => {}
            '\r' => {
                chars.next_if_eq(&'\n');
            }
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            'x' => {
                let hi = chars.next()?.to_digit(16)?;
                let lo = chars.next()?.to_digit(16)?;
                out.push(char::from_u32(hi * 16 + lo)?);
            }
            'u' => unicode(&mut chars, &mut out)?,
            '0' if !chars.peek().is_some_and(char::is_ascii_digit) => out.push('\0'),
            '0'..='7' if !template => {
                // Legacy octal: up to three digits, at most `\377`.
                let mut value = e.to_digit(8)?;
                let max = if value <= 3 { 2 } else { 1 };
                for _ in 0..max {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value)?);
            }
            '0'..='9' if template => return None,
            other => out.push(other),
        }
    }
    Some(out)
}

/// The name an identifier written with `\u` escapes stands for
/// (`c\u0074x` is `ctx`), or `None` if an escape is malformed.
pub fn name(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        if chars.next()? != 'u' {
            return None;
        }
        unicode(&mut chars, &mut out)?;
    }
    Some(out)
}

/// After `\u`: `XXXX` (a surrogate pair as two escapes) or `{X…}`.
fn unicode(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, out: &mut String) -> Option<()> {
    if chars.next_if_eq(&'{').is_some() {
        let mut value: u32 = 0;
        let mut digits = 0;
        loop {
            let c = chars.next()?;
            if c == '}' {
                break;
            }
            value = value.checked_mul(16)?.checked_add(c.to_digit(16)?)?;
            digits += 1;
        }
        if digits == 0 {
            return None;
        }
        out.push(char::from_u32(value)?);
        return Some(());
    }
    let unit = hex4(chars)?;
    if (0xd800..0xdc00).contains(&unit) {
        // A high surrogate: with the low one that follows, one character.
        let mut ahead = chars.clone();
        if ahead.next() == Some('\\') && ahead.next() == Some('u') {
            if let Some(low @ 0xdc00..=0xdfff) = hex4(&mut ahead) {
                *chars = ahead;
                let c = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
                out.push(char::from_u32(c)?);
                return Some(());
            }
        }
    }
    // A lone surrogate has no `char`: the replacement character.
    out.push(char::from_u32(unit).unwrap_or('\u{fffd}'));
    Some(())
}

fn hex4(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<u32> {
    let mut value = 0;
    for _ in 0..4 {
        value = value * 16 + chars.next()?.to_digit(16)?;
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::{name, string};

    /// Each expected value is what Node 20 prints for the literal.
    #[test]
    fn strings_and_templates_as_javascript_reads_them() {
        for (raw, template, value) in [
            (r"\x61pproved", false, Some("approved")),
            (r"l\u0061bels", false, Some("labels")),
            (r"\u{1F600}!", false, Some("😀!")),
            (r"\uD83D\uDE00", false, Some("😀")),
            (r"\uD83D", false, Some("\u{fffd}")),
            (
                r"a\b\f\n\r\t\v\0z",
                false,
                Some("a\u{8}\u{c}\n\r\t\u{b}\0z"),
            ),
            ("a\\\nb\\\r\nc\\\u{2028}d", false, Some("abcd")),
            (
                r"\101\60\08\7\377\400",
                false,
                Some("A0\u{0}8\u{7}\u{ff} 0"),
            ),
            (r"\'\q\\", false, Some("'q\\")),
            ("a\r\nb\rc", true, Some("a\nb\nc")),
            (r"\0", true, Some("\0")),
            (r"\1", true, None),
            (r"\x4", false, None),
            (r"\u{}", false, None),
            (r"\u{110000}", false, None),
        ] {
            assert_eq!(string(raw, template).as_deref(), value, "{raw:?}");
        }
    }

    #[test]
    fn names_with_escapes() {
        assert_eq!(name(r"c\u0074x").as_deref(), Some("ctx"));
        assert_eq!(name(r"\u{63}tx").as_deref(), Some("ctx"));
        assert_eq!(name(r"a\x61"), None);
    }
}
