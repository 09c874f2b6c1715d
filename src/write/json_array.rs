//! `--to json`: one JSON array, a record per line (its own bytes when it has them), so the
//! array reader gives every element back with its line.

use super::format::{Dropped, EntryText, StoreWriter};
use super::Sink;
use crate::error::Result;

#[derive(Default)]
pub struct JsonArrayWriter {
    started: bool,
    dropped: Dropped,
}

impl StoreWriter for JsonArrayWriter {
    fn put(&mut self, piece: EntryText, sink: &mut Sink) -> Result<bool> {
        let text = match piece {
            EntryText::Line(text) | EntryText::Header(text) | EntryText::Node(text) => text,
            EntryText::Dropped(kind) => {
                self.dropped.count(kind);
                return Ok(true);
            }
        };
        let lead: &[u8] = if self.started { b",\n" } else { b"[\n" };
        self.started = true;
        Ok(sink.write(lead)? && sink.write(text.as_bytes())?)
    }

    fn finish(&mut self, sink: &mut Sink) -> Result<bool> {
        sink.write(if self.started { b"\n]\n" } else { b"[]\n" })
    }

    fn dropped(&self) -> Dropped {
        self.dropped
    }
}
