//! The record: one JSON object as the reader built it, plus where it came from.
//!
//! `fields` keeps key order and number text (serde_json with `preserve_order` and
//! `arbitrary_precision`); `raw` keeps the exact bytes read, so a writer that has no reason to
//! change a record writes those bytes back. A command that only looks at roles never handles
//! records: it reads each through the reader's view (`store/view.rs`).

use crate::python::json::python_text;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Where a record was read: 1-based line of its first character, byte offset of that character,
/// and its 0-based index among the store's records (the reference names unnamed records `#index`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Origin {
    pub line: u64,
    pub offset: u64,
    pub index: usize,
}

/// One record: the keys the reader was asked to build (every key, for a record read whole),
/// its text, where it was read, and where the values of the keys asked for by slot lie in
/// that text.
#[derive(Debug, Clone)]
pub struct Record {
    pub fields: Map<String, Value>,
    /// The record's text exactly as read (one JSONL line without its line ending, or one array
    /// element). Empty for records that were built rather than read.
    pub raw: Box<str>,
    pub origin: Origin,
    /// For records read with keys asked for by slot (`store::KeySelection::slots`): where
    /// each such key's value lies in `raw` (byte start and end), so it is read from the text
    /// without anything being built; the reader validated that text. `None` otherwise.
    pub spans: Option<Box<[Span]>>,
}

/// Where a value lies in a record's raw text: byte start and end; `(0, 0)` when the record
/// has no such key (no value ends at 0: a value comes after its key).
pub type Span = (u32, u32);

impl Record {
    pub fn new(fields: Map<String, Value>, raw: impl Into<Box<str>>, origin: Origin) -> Self {
        Record {
            fields,
            raw: raw.into(),
            origin,
            spans: None,
        }
    }

    /// The raw JSON text of the value in a slot (see `spans`).
    pub fn span_text(&self, slot: usize) -> Option<&str> {
        slot_text(&self.raw, self.spans.as_deref()?, slot)
    }
}

/// The text of the value in a slot of `text`, by the spans noted for it (`(0, 0)`: absent).
pub fn slot_text<'t>(text: &'t str, spans: &[Span], slot: usize) -> Option<&'t str> {
    let (start, end) = *spans.get(slot)?;
    if end == 0 {
        return None;
    }
    text.get(start as usize..end as usize)
}

/// "Present and not empty", the reference checker's rule: the value is not null, not a string
/// of whitespace only, not an empty list or object.
pub fn is_filled(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(s) => !is_blank(s),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        _ => true,
    }
}

/// Python's truthiness of a filled value (the reference uses `or` and `any()` in two places:
/// naming a record, and finding a conflict policy): `0`, `0.0` and `false` are falsy.
pub fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::Number(n) => {
            let t = n.to_string();
            t.parse::<f64>() != Ok(0.0)
        }
        other => is_filled(other),
    }
}

/// Whitespace as Python's `str.strip()` sees it: Unicode White_Space plus the four
/// information separators U+001C..U+001F.
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `s.strip()` as Python strips it ([`is_py_space`]).
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

pub fn is_blank(s: &str) -> bool {
    // most text starts with a printable ASCII character: not blank, without a look at the rest
    match s.as_bytes().first() {
        Some(b) if b.is_ascii_graphic() => false,
        _ => s.chars().all(is_py_space),
    }
}

/// A short name for a JSON value's kind, for messages.
pub fn kind_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The text of a value the way the reference checker names it (`str(value)` in Python):
/// strings as they are, integers as written, floats in Python's shortest form, `True`/`False`,
/// lists and objects as Python's repr.
pub fn py_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => py_repr(other),
    }
}

fn py_repr(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => crate::python::number_str(&n.to_string()),
        Value::String(s) => py_str_repr(s),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(py_repr).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", py_str_repr(k), py_repr(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// Python's `repr(str)` ([`crate::python`]).
fn py_str_repr(s: &str) -> String {
    crate::python::str_repr(s)
}

/// Record ids named by a value: a string, a number, or a list of them.
pub fn collect_ids(value: &Value, out: &mut std::collections::HashSet<String>) {
    match value {
        Value::Array(items) => items.iter().for_each(|v| collect_ids(v, out)),
        v if is_filled(v) => {
            out.insert(py_str(v));
        }
        _ => {}
    }
}

// A record as one JSON line: what the writers and the engrama node lines write.

/// The fields of a record as one Python-style line.
pub fn fields_text(fields: &Map<String, Value>) -> String {
    python_text(fields)
}

/// True when `text` is one line of JSON object text (what the reader kept as a record's raw
/// bytes for JSON lines, one-line array elements and engrama node lines; a compact line or a
/// multi-line element is not).
pub fn is_json_line(text: &str) -> bool {
    let body = text.trim();
    if !(body.starts_with('{') && body.ends_with('}')) || has_line_break(text) {
        return false;
    }
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// True when a record's raw text is one JSON line, to be written as it is. The reader
/// validated the text of a record that carries spans (read with `KeySelection::slots`): only its
/// shape is looked at, rather than parsing it once more.
pub fn has_own_line(record: &Record) -> bool {
    if record.spans.is_some() {
        let body = record.raw.trim_matches(is_json_space);
        body.starts_with('{') && body.ends_with('}') && !has_line_break(&record.raw)
    } else {
        is_json_line(&record.raw)
    }
}

/// All of a record's fields: read from its text when that is a JSON object (a record read
/// with `KeySelection::slots` carries only some of its keys, or none), else the fields it carries
/// (a compact line's, say, which are whole).
pub fn whole_fields(record: &Record) -> Cow<'_, Map<String, Value>> {
    match serde_json::from_str::<Map<String, Value>>(&record.raw) {
        Ok(fields) => Cow::Owned(fields),
        Err(_) => Cow::Borrowed(&record.fields),
    }
}

/// A record's fields serialised (see [`whole_fields`]).
fn serialised(record: &Record) -> String {
    fields_text(&whole_fields(record))
}

fn has_line_break(text: &str) -> bool {
    memchr::memchr2(b'\n', b'\r', text.as_bytes()).is_some()
}

/// Whitespace between JSON tokens (all a validated text can have around its object).
fn is_json_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// A record as one JSON line: its own bytes when it has them, else its fields serialised.
pub fn record_text(record: &Record) -> Cow<'_, str> {
    if has_own_line(record) {
        Cow::Borrowed(&record.raw)
    } else {
        Cow::Owned(serialised(record))
    }
}

/// [`record_text`], taking the record (its own bytes are moved, not copied).
pub fn into_line(record: Record) -> String {
    if has_own_line(&record) {
        record.raw.into_string()
    } else {
        serialised(&record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn filled_follows_the_reference() {
        assert!(!is_filled(&json!(null)));
        assert!(!is_filled(&json!(" \t\u{a0}\u{1f}")));
        assert!(!is_filled(&json!([])));
        assert!(!is_filled(&json!({})));
        assert!(is_filled(&json!(0)));
        assert!(is_filled(&json!(false)));
        assert!(is_filled(&json!([null])));
        assert!(!is_truthy(&json!(0)));
        assert!(!is_truthy(&json!(0.0)));
        assert!(!is_truthy(&json!(false)));
        assert!(is_truthy(&json!("0")));
    }

    #[test]
    fn names_read_as_python_prints_them() {
        let n = |t: &str| py_str(&serde_json::from_str::<Value>(t).unwrap());
        assert_eq!(n("17"), "17");
        assert_eq!(n("-0"), "0");
        assert_eq!(n("1.50"), "1.5");
        assert_eq!(n("1e20"), "1e+20");
        assert_eq!(n("1E2"), "100.0");
        assert_eq!(n("0.0001"), "0.0001");
        assert_eq!(n("0.00001"), "1e-05");
        assert_eq!(n("1e16"), "1e+16");
        assert_eq!(
            n("123456789012345678901234567890"),
            "123456789012345678901234567890"
        );
        assert_eq!(n("true"), "True");
        assert_eq!(n(r#"["a", 1, null]"#), "['a', 1, None]");
        assert_eq!(n(r#"{"k": "it's"}"#), r#"{'k': "it's"}"#);
        assert_eq!(n(r#""D-101""#), "D-101");
    }

    #[test]
    fn python_separators_and_kept_text() {
        let line = r#"{"a": 1.50, "b": ["x", "é", null], "c": {"d": "\u0001\n\"", "e": 1e-05}}"#;
        let v: Map<String, Value> = serde_json::from_str(line).unwrap();
        assert_eq!(fields_text(&v), line);
    }

    #[test]
    fn raw_only_when_it_is_json() {
        let rec = |raw: &str| {
            Record::new(
                serde_json::from_str(r#"{"record_id": "x"}"#).unwrap(),
                raw,
                Default::default(),
            )
        };
        assert_eq!(
            record_text(&rec(r#"{"record_id":"x"}"#)),
            r#"{"record_id":"x"}"#
        );
        assert_eq!(record_text(&rec("x|2025-01-01")), r#"{"record_id": "x"}"#);
        assert_eq!(record_text(&rec("{x|y}")), r#"{"record_id": "x"}"#);
        assert_eq!(
            record_text(&rec("{\n\"record_id\": \"x\"}")),
            r#"{"record_id": "x"}"#
        );
    }
}
