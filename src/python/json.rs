//! JSON as Python's `json.dumps(value, ensure_ascii=False)` writes it, in one place: default
//! separators (`", "` between items, `": "` after keys), non-ASCII kept as it is, the escapes
//! Python writes; on one line, or indented as `indent=1` indents.
//!
//! Numbers are the one thing the callers want differently, so they say which ([`Numbers`]):
//! a record's own text is written back with its numbers as written, so that a store re-written
//! by vercy keeps `1.50` and `1e999` as they were; compact's and the SQLite reader's lines are
//! the reference's, which has Python read each number and print it again (`1.5`, `Infinity`).

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};
use serde_json::Value;
use std::io;

/// How numbers are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numbers {
    /// Each number's text as it was read (serde_json keeps it: `arbitrary_precision`).
    AsWritten,
    /// As Python's `json.loads` reads it and `json.dumps` prints it: an integer exactly, any
    /// other number as a float's `repr`, and the floats JSON has no literal for as Python's
    /// own (`Infinity`, `-Infinity`, `NaN`), which is how a number too large for a float
    /// (`1e999`) comes out.
    AsPython,
}

/// A value on one line, numbers as written.
pub fn python_text<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::with_capacity(128);
    let mut ser =
        serde_json::Serializer::with_formatter(&mut out, Python::one_line(Numbers::AsWritten));
    // Serialising a serde_json value into memory cannot fail (no I/O, string keys only).
    if value.serialize(&mut ser).is_err() {
        return String::new();
    }
    String::from_utf8(out).unwrap_or_default()
}

/// A value on one line, numbers as Python prints them, appended to `out`.
pub fn py_json(value: &Value, out: &mut String) {
    append(value, Numbers::AsPython, out);
}

/// A string as `json.dumps(s, ensure_ascii=False)` writes it, appended to `out`.
pub fn py_json_str(s: &str, out: &mut String) {
    // most strings need no escape: quoted as they are, without the serializer's round trip
    if needs_no_escape(s.as_bytes()) {
        out.reserve(s.len() + 2);
        out.push('"');
        out.push_str(s);
        out.push('"');
        return;
    }
    append(s, Numbers::AsPython, out);
}

/// Whether no byte of `bytes` is escaped in a JSON string (a control character, `"`, `\`),
/// tested eight bytes at a time: most strings have none, and are then copied whole.
#[inline]
pub fn needs_no_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    /// The high bit of some byte is set when some byte of `w` is zero (exact for "some").
    #[inline(always)]
    fn zero_byte(w: u64) -> u64 {
        w.wrapping_sub(ONES) & !w
    }
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let Ok(word) = <[u8; 8]>::try_from(word) else {
            return false;
        };
        let w = u64::from_le_bytes(word);
        // some byte below 0x20, some `"`, some `\`
        let control = w.wrapping_sub(ONES * 0x20) & !w;
        let quote = zero_byte(w ^ (ONES * u64::from(b'"')));
        let backslash = zero_byte(w ^ (ONES * u64::from(b'\\')));
        if (control | quote | backslash) & HIGH != 0 {
            return false;
        }
    }
    words
        .remainder()
        .iter()
        .all(|&b| b >= 0x20 && b != b'"' && b != b'\\')
}

/// A value indented as `json.dumps(value, ensure_ascii=False, indent=1)` writes it (how the
/// reference prints JSON documents), numbers as written.
pub fn to_python_json(value: &Value) -> String {
    let mut out = Vec::new();
    let formatter = Python {
        layout: PrettyFormatter::with_indent(b" "),
        numbers: Numbers::AsWritten,
    };
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    value
        .serialize(&mut ser)
        .expect("a Value always serializes");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

fn append<T: Serialize + ?Sized>(value: &T, numbers: Numbers, out: &mut String) {
    let mut ser = serde_json::Serializer::with_formatter(Append(out), Python::one_line(numbers));
    // Serialising a serde_json value into a string cannot fail (no I/O, string keys only).
    let _ = value.serialize(&mut ser);
}

/// serde_json's writer for a `String`: every piece it writes is whole UTF-8 (a run of a string
/// between two escapes, an escape, a number's text), so each is checked on its own.
struct Append<'a>(&'a mut String);

impl io::Write for Append<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text =
            std::str::from_utf8(buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        self.0.push_str(text);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The one formatter: a layout (one line, or indented) and the way numbers are written.
struct Python<L> {
    layout: L,
    numbers: Numbers,
}

impl Python<OneLine> {
    fn one_line(numbers: Numbers) -> Self {
        Python {
            layout: OneLine,
            numbers,
        }
    }
}

/// serde_json's compact layout with Python's default separators.
struct OneLine;

impl Formatter for OneLine {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}

impl<L: Formatter> Formatter for Python<L> {
    fn write_number_str<W: ?Sized + io::Write>(&mut self, w: &mut W, text: &str) -> io::Result<()> {
        match self.numbers {
            Numbers::AsWritten => w.write_all(text.as_bytes()),
            Numbers::AsPython => match super::number_str(text).as_str() {
                "inf" => w.write_all(b"Infinity"),
                "-inf" => w.write_all(b"-Infinity"),
                "nan" => w.write_all(b"NaN"),
                printed => w.write_all(printed.as_bytes()),
            },
        }
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.layout.begin_array(w)
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.layout.end_array(w)
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.layout.begin_array_value(w, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.layout.end_array_value(w)
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.layout.begin_object(w)
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.layout.end_object(w)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.layout.begin_object_key(w, first)
    }

    fn end_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.layout.end_object_key(w)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.layout.begin_object_value(w)
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.layout.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_without_escapes_is_quoted_as_the_serializer_quotes_it() {
        for s in [
            "",
            "plain",
            "Ünïcode — ✓ 休暇",
            "del\u{7f}",
            "sep\u{2028}",
            "q\"",
            "b\\",
            "nl\n",
            "\u{1}",
        ] {
            let mut fast = String::from("x");
            py_json_str(s, &mut fast);
            let mut slow = String::from("x");
            append(s, Numbers::AsPython, &mut slow);
            assert_eq!(fast, slow, "{s:?}");
        }
    }

    #[test]
    fn numbers_as_written_or_as_python_prints_them() {
        let v: Value =
            serde_json::from_str(r#"{"a": [1.50, 1E2, -0, 1e999], "b": "\u0001"}"#).unwrap();
        // (serde_json holds an exponent as `e+2`: that is the text "as written")
        assert_eq!(
            python_text(&v),
            r#"{"a": [1.50, 1e+2, -0, 1e+999], "b": "\u0001"}"#
        );
        let mut s = String::new();
        py_json(&v, &mut s);
        assert_eq!(s, r#"{"a": [1.5, 100.0, 0, Infinity], "b": "\u0001"}"#);
        assert_eq!(
            to_python_json(&v),
            "{\n \"a\": [\n  1.50,\n  1e+2,\n  -0,\n  1e+999\n ],\n \"b\": \"\\u0001\"\n}"
        );
    }
}
