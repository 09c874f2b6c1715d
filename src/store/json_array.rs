//! `--to json`: one JSON array, a record per line (its own bytes when it has them), so the
//! array reader gives every element back with its line.

use super::jsonl::record_text;
use super::writer::{Dropped, StoreWriter};
use super::Entry;
use crate::error::Result;
use crate::write::Sink;

#[derive(Default)]
pub struct JsonArrayWriter {
    started: bool,
    dropped: Dropped,
}

impl StoreWriter for JsonArrayWriter {
    fn entry(&mut self, entry: Entry, sink: &mut Sink) -> Result<bool> {
        let record = match entry {
            Entry::Record(r) => r,
            Entry::Aside(kind, _) => {
                self.dropped.count(kind);
                return Ok(true);
            }
        };
        let lead: &[u8] = if self.started { b",\n" } else { b"[\n" };
        self.started = true;
        Ok(sink.write(lead)? && sink.write(record_text(&record).as_bytes())?)
    }

    fn finish(&mut self, sink: &mut Sink) -> Result<bool> {
        sink.write(if self.started { b"\n]\n" } else { b"[]\n" })
    }

    fn dropped(&self) -> Dropped {
        self.dropped
    }
}
