//! Writing a store in a chosen format: one [`StoreWriter`] per format, fed the reader's entries
//! in order, so an export streams (a store of millions of records is never held in memory).

use super::Entry;
use crate::error::Result;
use crate::write::Sink;

/// A format's writer. `entry` returns `Ok(false)` when the output was closed by its reader
/// (`| head`): the caller stops feeding it and ends with success.
pub trait StoreWriter {
    fn entry(&mut self, entry: Entry, sink: &mut Sink) -> Result<bool>;
    /// Write whatever closes the output (the envelope of an empty dump, a closing `]`).
    fn finish(&mut self, sink: &mut Sink) -> Result<bool>;
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
    pub fn count(&mut self, aside: super::Aside) {
        match aside {
            super::Aside::Relation => self.relations += 1,
            super::Aside::Vector => self.vectors += 1,
            super::Aside::EngramaHeader => {}
        }
    }
}

/// Write `text` and a line feed.
pub fn write_line(sink: &mut Sink, text: &str) -> Result<bool> {
    Ok(sink.write(text.as_bytes())? && sink.write(b"\n")?)
}
