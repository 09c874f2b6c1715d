//! Writing a store in a chosen format, in two steps so that the work per record runs on
//! every core: a [`LineMaker`] turns each entry into its text on the reader's decoding threads
//! (several at once), and the format's [`StoreWriter`] writes those texts in store order. A
//! store of millions of records is streamed, never held in memory.

use super::Sink;
use crate::error::Result;
use crate::record::into_line;
use crate::store::{Entry, NonRecordLine};

/// One entry made ready to write.
#[derive(Debug)]
pub enum EntryText {
    /// A line, written as it is.
    Line(String),
    /// The input's own engrama envelope line.
    Header(String),
    /// A flat record as an engrama node line (a dump of a flat store starts with an envelope).
    Node(String),
    /// A line the format has no place for (relation and vector lines outside engrama).
    Dropped(NonRecordLine),
}

/// Turns entries into [`EntryText`]s; shared by the decoding threads.
pub trait LineMaker: Sync {
    fn prepare(&self, entry: Entry) -> Result<EntryText>;
}

/// Records as their own lines; relation and vector lines dropped (JSON lines, JSON array).
pub struct RecordLines;

impl LineMaker for RecordLines {
    fn prepare(&self, entry: Entry) -> Result<EntryText> {
        Ok(match entry {
            Entry::Record(r) => EntryText::Line(into_line(r)),
            Entry::NonRecord(kind, _) => EntryText::Dropped(kind),
        })
    }
}

/// A format's writer. `put` returns `Ok(false)` when the output was closed by its reader
/// (`| head`): the caller stops feeding it and ends with success.
pub trait StoreWriter: Send {
    fn put(&mut self, piece: EntryText, sink: &mut Sink) -> Result<bool>;
    /// Write whatever closes the output (the envelope of an empty dump, a closing `]`).
    fn finish(&mut self, sink: &mut Sink) -> Result<bool>;
    /// True when a [`EntryText::Line`] is written as its text and a line feed, and nothing else
    /// (so that lines that follow one another in the input may be copied together).
    fn writes_lines(&self) -> bool {
        false
    }
    /// Lines of the input that this format has no place for (relation and vector lines
    /// outside engrama), counted for a notice.
    fn dropped(&self) -> Dropped {
        Dropped::default()
    }
}

/// What a writer left out, by kind.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Dropped {
    pub relations: u64,
    pub vectors: u64,
}

impl Dropped {
    pub fn count(&mut self, non_record: NonRecordLine) {
        match non_record {
            NonRecordLine::Relation => self.relations += 1,
            NonRecordLine::Vector => self.vectors += 1,
            NonRecordLine::EngramaHeader => {}
        }
    }
}

/// Write `text` and a line feed.
pub fn write_line(sink: &mut Sink, text: &str) -> Result<bool> {
    Ok(sink.write(text.as_bytes())? && sink.write(b"\n")?)
}
