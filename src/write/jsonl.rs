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
use serde_json::{Map, Value};

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
    fn same_fields_compares_keys_in_order() {
        let a: Map<String, Value> = serde_json::from_str(r#"{"a": 1, "b": 2}"#).unwrap();
        let b: Map<String, Value> = serde_json::from_str(r#"{"b": 2, "a": 1}"#).unwrap();
        assert!(same_fields(&a, &a.clone()));
        assert!(!same_fields(&a, &b));
    }
}
