//! JSON lines out: one record per line, its own bytes whenever it has them.
//!
//! A record read from a JSON line (or a one-line array element, or an engrama node line) is
//! written back as the exact text it was read from. A record that has no JSON text of its own
//! (a compact line, a pretty-printed array element, a merged record) is serialised the way
//! Python's `json.dumps` does by default, which is how engrama and most memory stores write:
//! `", "` between items, `": "` after keys, non-ASCII kept as is, numbers as written.

use super::format::{write_line, Dropped, EntryText, StoreWriter};
use super::Sink;
use crate::error::Result;
use crate::mapping::FieldMap;
use crate::python::json::python_text;
use crate::record::{is_filled, Record};
use crate::store::KeySelection;
use serde_json::{Map, Value};
use std::borrow::Cow;

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

/// The fields a flat record's identity reads: only the keys its `record_id` role reads when
/// they hold a filled id, else all of them (a record without an id is identified by its whole
/// content). Building every key of a line of millions of keys only to read its id took many
/// times the line's bytes (bench/NOTES.md).
pub fn identity_fields<'r>(map: &FieldMap, record: &'r Record) -> Cow<'r, Map<String, Value>> {
    let keys = KeySelection::keys(map.path("record_id").top_keys());
    if let Some(decoded) = keys.decode_object(&record.raw) {
        let id = map.get("record_id", &decoded.fields);
        if id.is_some_and(|v| is_filled(&v)) {
            return Cow::Owned(decoded.fields);
        }
    }
    whole_fields(record)
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

/// `--to jsonl`: every record on its own line; relation and vector lines have no place here.
#[derive(Default)]
pub struct JsonlWriter {
    dropped: Dropped,
}

impl StoreWriter for JsonlWriter {
    fn put(&mut self, piece: EntryText, sink: &mut Sink) -> Result<bool> {
        match piece {
            EntryText::Line(text) | EntryText::Header(text) | EntryText::Node(text) => {
                write_line(sink, &text)
            }
            EntryText::Dropped(kind) => {
                self.dropped.count(kind);
                Ok(true)
            }
        }
    }

    fn finish(&mut self, _sink: &mut Sink) -> Result<bool> {
        Ok(true)
    }

    fn writes_lines(&self) -> bool {
        true
    }

    fn dropped(&self) -> Dropped {
        self.dropped
    }
}

/// Two objects with the same keys in the same order and equal values.
pub fn same_fields(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((ka, va), (kb, vb))| ka == kb && va == vb)
}

#[cfg(test)]
mod tests {
    use super::*;

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
