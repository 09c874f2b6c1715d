//! `--to engrama`: the engrama NDJSON dump's writer, and the maker of its lines.

use super::format::{write_line, EntryText, LineMaker, StoreWriter};
use super::Sink;
use crate::error::Result;
use crate::mapping::FieldMap;
use crate::record::into_line;
use crate::store::engrama::{exported_at_now, flat_envelope, node_line};
use crate::store::{Entry, NonRecordLine, ViewPlan};
use std::sync::OnceLock;

/// `--to engrama`, the per-record half: a dump's lines are written back as they are; the
/// records of a flat store become node lines under one label.
pub struct NodeLines {
    label: String,
    /// How a record's id is read (through the map given).
    plan: ViewPlan,
    store: String,
    /// The input is an engrama dump (its first entry, worked on before any other, says so).
    from_dump: OnceLock<bool>,
}

impl NodeLines {
    pub fn new(label: &str, map: FieldMap, store: &str) -> Self {
        NodeLines {
            label: label.to_string(),
            plan: ViewPlan::fields(&map),
            store: store.to_string(),
            from_dump: OnceLock::new(),
        }
    }
}

impl LineMaker for NodeLines {
    fn prepare(&self, entry: Entry) -> Result<EntryText> {
        let from_dump = *self
            .from_dump
            .get_or_init(|| matches!(entry, Entry::NonRecord(NonRecordLine::EngramaHeader, _)));
        Ok(match entry {
            Entry::NonRecord(NonRecordLine::EngramaHeader, header) => {
                EntryText::Header(into_line(header))
            }
            Entry::NonRecord(_, line) => EntryText::Line(into_line(line)),
            Entry::Record(node) if from_dump => EntryText::Line(into_line(node)),
            Entry::Record(record) => {
                EntryText::Node(node_line(&record, &self.label, &self.plan, &self.store)?)
            }
        })
    }
}

/// `--to engrama`, the writing half: a dump is written back line for line (envelope, nodes,
/// relations, vectors in the order read, which is engrama's); a flat store's node lines come
/// after an envelope stamped with the export time.
pub struct EngramaWriter {
    exported_at: String,
    header_written: bool,
}

impl Default for EngramaWriter {
    fn default() -> Self {
        EngramaWriter {
            exported_at: exported_at_now(),
            header_written: false,
        }
    }
}

impl EngramaWriter {
    fn envelope(&mut self, sink: &mut Sink) -> Result<bool> {
        if self.header_written {
            return Ok(true);
        }
        self.header_written = true;
        write_line(sink, &flat_envelope(&self.exported_at))
    }
}

impl StoreWriter for EngramaWriter {
    fn put(&mut self, piece: EntryText, sink: &mut Sink) -> Result<bool> {
        match piece {
            EntryText::Header(text) => {
                self.header_written = true;
                write_line(sink, &text)
            }
            EntryText::Line(text) => write_line(sink, &text),
            EntryText::Node(text) => Ok(self.envelope(sink)? && write_line(sink, &text)?),
            EntryText::Dropped(_) => Ok(true),
        }
    }

    fn finish(&mut self, sink: &mut Sink) -> Result<bool> {
        self.envelope(sink)
    }

    fn writes_lines(&self) -> bool {
        true
    }
}
