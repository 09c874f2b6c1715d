//! Python's `int(text)`, as the reference's argparse reads `--min-level` (`type=int`).

use super::table::DECIMAL_ZEROS;

/// `int(text)` in base 10: White_Space around it (`" 1"`, `"\t2"`, U+3000; not the
/// information separators U+001C–U+001F, which `int` refuses though `str.strip` drops them),
/// an optional sign, and digits of any script (`"１"`, `"١"`) with single underscores between
/// them (`"1_0"`). `None` when Python raises ValueError; a value too large for an i64 is
/// `i64::MAX` or `i64::MIN` (no choice of a level is that large).
pub fn int(text: &str) -> Option<i64> {
    let body = text.trim_matches(char::is_whitespace);
    let (negative, digits) = match body.as_bytes().first() {
        Some(b'-') => (true, &body[1..]),
        Some(b'+') => (false, &body[1..]),
        _ => (false, body),
    };
    let mut value: i64 = 0;
    let mut seen = false;
    let mut after_underscore = false;
    for c in digits.chars() {
        if c == '_' {
            if !seen || after_underscore {
                return None;
            }
            after_underscore = true;
            continue;
        }
        let digit = decimal(c)?;
        value = value.saturating_mul(10).saturating_add(i64::from(digit));
        seen = true;
        after_underscore = false;
    }
    if !seen || after_underscore {
        return None;
    }
    Some(if negative { -value } else { value })
}

/// The decimal value of a digit of any script (`unicodedata.decimal`).
fn decimal(c: char) -> Option<u32> {
    let c = c as u32;
    let at = DECIMAL_ZEROS.partition_point(|&zero| zero <= c);
    let zero = *DECIMAL_ZEROS.get(at.checked_sub(1)?)?;
    (c - zero < 10).then_some(c - zero)
}

/// `--min-level`: `int(text)` among the choices 1, 2, 3, as argparse checks it.
pub fn min_level(text: &str) -> Result<u8, String> {
    match int(text) {
        Some(n @ 1..=3) => Ok(n as u8),
        Some(_) => Err(format!("invalid choice: {text:?} (choose from 1, 2, 3)")),
        None => Err(format!("invalid int value: {text:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_as_python_int_does() {
        for (text, want) in [
            ("1", Some(1)),
            (" 1", Some(1)),
            ("\t2\n", Some(2)),
            ("\u{a0}2\u{3000}", Some(2)),
            ("\u{85}3\u{2028}", Some(3)),
            ("１", Some(1)),
            ("١", Some(1)),
            ("٣", Some(3)),
            ("१२", Some(12)),
            ("１_２", Some(12)),
            ("1_0", Some(10)),
            ("+2", Some(2)),
            ("-1", Some(-1)),
            ("01", Some(1)),
            ("99999999999999999999999", Some(i64::MAX)),
            ("1__0", None),
            ("_1", None),
            ("1_", None),
            ("2\u{1f}", None),
            ("\u{1c}2", None),
            ("0x1", None),
            ("1.0", None),
            ("", None),
            ("+", None),
            ("1 2", None),
            ("²", None),
        ] {
            assert_eq!(int(text), want, "{text:?}");
        }
        assert_eq!(min_level(" 2"), Ok(2));
        assert!(min_level("4").is_err());
        assert!(min_level("0").is_err());
    }
}
