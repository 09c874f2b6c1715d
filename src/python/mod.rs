//! Python's readings of text that the reference checker (vercy 0.2.0, Python 3.11) relies on:
//! `json.dumps` ([`json`]), `repr()` of a string, as it prints an offender whose record_id is a list or an object
//! (`str(['\u3000'])` is `['\u3000']`), and `int()`, as it reads `--min-level` ([`int`]).
//!
//! Which characters `repr` escapes is Python's `str.isprintable()`, which follows the Unicode
//! categories of the Python that runs: `table` is generated from the reference's own
//! Python (3.11, Unicode 14.0) by `scripts/gen_python_tables.py`, so a code point assigned in
//! a later Unicode is escaped here as it is there.

mod int;
pub mod json;
mod table;

pub use int::{int, min_level};
pub use table::UNICODE_VERSION;

/// `str.isprintable()` of one character: false for the categories Cc, Cf, Cs, Co, Cn, Zl, Zp
/// and the Zs spaces other than U+0020, in Unicode [`UNICODE_VERSION`].
pub fn is_printable(c: char) -> bool {
    let c = c as u32;
    if (0x20..0x7f).contains(&c) {
        return true;
    }
    let ranges = &table::NOT_PRINTABLE;
    // the last range that starts at or before `c`
    let at = ranges.partition_point(|&(start, _)| start <= c);
    !(at > 0 && c <= ranges[at - 1].1)
}

/// Python's `repr(str)`: single quotes unless the text holds a single quote and no double
/// one; `\\`, the quote, `\t`, `\n`, `\r` escaped; every other character that is not
/// printable as `\xHH`, `\uHHHH` or `\UHHHHHHHH`.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c if (c as u32) <= 0xff => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) <= 0xffff => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push(quote);
    out
}

/// Python's `str()` of a number parsed by `json.loads`: an integer literal stays an exact
/// integer; anything with a fraction or exponent becomes a float printed by `repr`.
pub fn number_str(text: &str) -> String {
    // NaN, Infinity and -Infinity (Python's json reads them as floats) have no digit at all
    let is_int = !text.contains(['.', 'e', 'E']) && text.bytes().any(|b| b.is_ascii_digit());
    if is_int {
        let (neg, digits) = match text.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, text),
        };
        let trimmed = digits.trim_start_matches('0');
        let digits = if trimmed.is_empty() { "0" } else { trimmed };
        return if neg && digits != "0" {
            format!("-{digits}")
        } else {
            digits.to_string()
        };
    }
    let f: f64 = match text.parse() {
        Ok(f) => f,
        Err(_) => return text.to_string(),
    };
    float_repr(f)
}

/// Python's `repr(float)`: the shortest round-trip digits, in positional notation when the
/// decimal exponent is in [-4, 16), else scientific with at least two exponent digits.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // `{:e}` gives the shortest round-trip digits: "1.5e-5", "1e16", "-0e0".
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if neg { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let point = exp + 1; // position of the decimal point within `digits`
        let s = if point <= 0 {
            format!("0.{}{}", "0".repeat((-point) as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        format!("{sign}{s}")
    } else {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits.clone()
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{m}e{esign}{:02}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_python_does() {
        assert_eq!(str_repr("a'b"), "\"a'b\"");
        assert_eq!(str_repr("a'\"b"), "'a\\'\"b'");
        assert_eq!(
            str_repr("\u{3000}\u{a0}\u{7f}\u{ad}"),
            "'\\u3000\\xa0\\x7f\\xad'"
        );
        assert_eq!(
            str_repr("\u{61c}\u{180e}\u{202e}\u{2066}"),
            "'\\u061c\\u180e\\u202e\\u2066'"
        );
        assert_eq!(
            str_repr("\u{e0001}\u{f0000}\u{10ffff}"),
            "'\\U000e0001\\U000f0000\\U0010ffff'"
        );
        assert_eq!(str_repr("café 記録 Ω \u{1F600}"), "'café 記録 Ω \u{1F600}'");
        assert_eq!(str_repr("\u{0}\u{1f}"), "'\\x00\\x1f'");
    }

    /// The table is the running Python's `str.isprintable()` on every code point, when that
    /// A comparison that cannot run here: said on stderr, and a failure in CI, where the
    /// reference's Python is installed and a skip would hide a table gone wrong.
    #[allow(clippy::print_stderr)]
    fn skip(why: &str) {
        assert!(std::env::var_os("CI").is_none(), "cannot compare: {why}");
        eprintln!("skipped: {why}");
    }

    /// Python has the table's Unicode version (the reference's, 3.11); else it says so.
    #[test]
    fn the_table_is_pythons_isprintable() {
        let script = "import sys,unicodedata\nprint(unicodedata.unidata_version)\n\
            sys.stdout.write(''.join('1' if chr(c).isprintable() else '0' for c in range(0x110000)))";
        let python = std::env::var("VERCY_REFERENCE_BIN")
            .ok()
            .map(|b| std::path::PathBuf::from(b).with_file_name("python3"))
            .filter(|p| p.exists())
            .unwrap_or_else(|| "python3".into());
        let Ok(out) = std::process::Command::new(&python)
            .args(["-c", script])
            .output()
        else {
            return skip("no python3 to compare the table with");
        };
        let text = String::from_utf8_lossy(&out.stdout);
        let (version, bits) = text.split_once('\n').expect("two parts");
        if version != UNICODE_VERSION {
            return skip(&format!(
                "{python:?} has Unicode {version}, the table {UNICODE_VERSION}"
            ));
        }
        let mut wrong = Vec::new();
        for (cp, bit) in bits.bytes().enumerate() {
            if let Some(c) = char::from_u32(cp as u32) {
                if is_printable(c) != (bit == b'1') {
                    wrong.push(format!("U+{cp:04X}"));
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "differ from Python: {:?}",
            &wrong[..wrong.len().min(20)]
        );
    }
}
