//! ISO-8601 timestamps as the SDK writes them (`Date.prototype.toISOString`,
//! e.g. `2026-01-25T10:00:00.000Z`), plus the offset forms people write by hand.
//!
//! Hand-written on purpose: only "parse to a millisecond instant" is needed, and
//! a date/time crate would be the largest dependency of the runs module.

/// Milliseconds since the Unix epoch, or `None` when `s` is not a full
/// `YYYY-MM-DDTHH:MM[:SS[.fff…]](Z|±HH:MM|±HHMM)` timestamp. A missing zone is
/// read as UTC so hand-made fixtures still order sensibly.
pub fn parse_iso8601_ms(s: &str) -> Option<i64> {
    let b = s.trim().as_bytes();
    let year = digits(b, 0, 4)?;
    byte_is(b, 4, b'-')?;
    let month = digits(b, 5, 2)?;
    byte_is(b, 7, b'-')?;
    let day = digits(b, 8, 2)?;
    if !matches!(b.get(10), Some(b'T') | Some(b't') | Some(b' ')) {
        return None;
    }
    let hour = digits(b, 11, 2)?;
    byte_is(b, 13, b':')?;
    let minute = digits(b, 14, 2)?;
    let mut i = 16;
    let mut second = 0;
    let mut millis = 0;
    if b.get(i) == Some(&b':') {
        second = digits(b, i + 1, 2)?;
        i += 3;
        if matches!(b.get(i), Some(b'.') | Some(b',')) {
            i += 1;
            let start = i;
            let mut scale = 100;
            while let Some(d) = b.get(i).filter(|d| d.is_ascii_digit()) {
                millis += i64::from(d - b'0') * scale;
                scale /= 10;
                i += 1;
            }
            if i == start {
                return None;
            }
        }
    }
    let offset_minutes = match b.get(i) {
        None => 0,
        Some(b'Z') | Some(b'z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) => {
            let oh = digits(b, i + 1, 2)?;
            let rest = &b[i + 3..];
            let om = match rest {
                [] => 0,
                [b':', _, _] => digits(b, i + 4, 2)?,
                [_, _] => digits(b, i + 3, 2)?,
                _ => return None,
            };
            let total = oh * 60 + om;
            if sign == b'-' {
                -total
            } else {
                total
            }
        }
        _ => return None,
    };
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3_600 + minute * 60 + second - offset_minutes * 60;
    Some(secs * 1_000 + millis)
}

fn digits(b: &[u8], at: usize, len: usize) -> Option<i64> {
    let slice = b.get(at..at + len)?;
    slice.iter().try_fold(0i64, |acc, d| {
        d.is_ascii_digit().then(|| acc * 10 + i64::from(d - b'0'))
    })
}

fn byte_is(b: &[u8], at: usize, want: u8) -> Option<()> {
    (b.get(at) == Some(&want)).then_some(())
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's days_from_civil: proleptic Gregorian date to days since 1970-01-01.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A duration for people: `850ms`, `42s`, `3m 05s`, `2h 07m`, `3d 4h`.
pub fn human_duration(ms: i64) -> String {
    if ms < 0 {
        return format!("-{}", human_duration(-ms));
    }
    if ms < 1_000 {
        return format!("{ms}ms");
    }
    let s = ms / 1_000;
    match s {
        0..=59 => format!("{s}s"),
        60..=3_599 => format!("{}m {:02}s", s / 60, s % 60),
        3_600..=86_399 => format!("{}h {:02}m", s / 3_600, (s % 3_600) / 60),
        _ => format!("{}d {}h", s / 86_400, (s % 86_400) / 3_600),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sdk_timestamps() {
        assert_eq!(parse_iso8601_ms("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(
            parse_iso8601_ms("2026-01-25T10:00:00.250Z"),
            Some(1_769_335_200_250)
        );
        assert_eq!(
            parse_iso8601_ms("2000-02-29T23:59:59Z"),
            Some(951_868_799_000)
        );
        assert_eq!(parse_iso8601_ms("1969-12-31T23:59:59.999Z"), Some(-1));
    }

    #[test]
    fn applies_offsets_and_fraction_precision() {
        let utc = parse_iso8601_ms("2026-03-01T12:00:00Z");
        assert_eq!(parse_iso8601_ms("2026-03-01T14:00:00+02:00"), utc);
        assert_eq!(parse_iso8601_ms("2026-03-01T07:30:00-0430"), utc);
        assert_eq!(parse_iso8601_ms("2026-03-01T12:00Z"), utc);
        assert_eq!(
            parse_iso8601_ms("2026-03-01T12:00:00.123456Z")
                .zip(utc)
                .map(|(a, b)| a - b),
            Some(123)
        );
    }

    #[test]
    fn rejects_garbage_without_panicking() {
        for bad in [
            "",
            "2026",
            "2026-13-01T00:00:00Z",
            "2026-02-30T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T00:00:00Zjunk",
            "2026-01-01T00:00:00+1",
            "２０２６-01-01T00:00:00Z",
            "not a date at all",
        ] {
            assert_eq!(parse_iso8601_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn formats_human_durations() {
        assert_eq!(human_duration(850), "850ms");
        assert_eq!(human_duration(42_000), "42s");
        assert_eq!(human_duration(185_000), "3m 05s");
        assert_eq!(human_duration(7_620_000), "2h 07m");
        assert_eq!(human_duration(273_600_000), "3d 4h");
    }
}
