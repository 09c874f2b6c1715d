//! Reading a store: one reader for every command, whatever the shape.
//!
//! [`read`] detects the shape from the first bytes and streams records to a visitor, so a
//! store of millions of records is never held in memory. Shapes: JSON lines, a JSON array, an
//! envelope object (`{"results": […]}` and friends), an engrama NDJSON dump, a compact file.
//!
//! Speed lives here, not in the commands: the line shapes are read in large blocks, split with
//! memchr and decoded in parallel while the visitor works on the block before (`batch`);
//! commands that only look at a few keys say which ([`read_with`], [`KeySelection`]) and the other
//! keys are stepped over without being built.

mod array;
pub mod batch;
pub mod compact;
pub mod engrama;
mod input;
mod keep;
mod layout;
mod lines;
pub mod live;
mod locate;
mod maps;
mod postgres;
pub mod pyjson;
mod pyline;
mod scan;
mod sqlite;

pub use input::{io_reason as input_reason, Input};
pub use keep::{Decoded, KeySelection, KeySlots, RawFields};
pub use locate::{json_error, not_object};
pub use maps::{engrama_map, read_mapped, Maps};

use crate::error::Result;
use crate::record::{Record, Span};

/// The shape a store was found in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// No records at all (an empty file, or only blank lines).
    Empty,
    JsonLines,
    JsonArray,
    /// A single object holding the records under this key.
    Envelope(String),
    /// An engrama NDJSON export (first line `{"engrama_export": 1, …}`).
    Engrama,
    /// The compact pipe line form (first line `# record_id|…`).
    Compact,
    /// A database read in place (`live`): how its rows were read.
    Database(String),
}

impl Shape {
    pub fn name(&self) -> String {
        match self {
            Shape::Empty => "empty".into(),
            Shape::JsonLines => "JSON lines".into(),
            Shape::JsonArray => "JSON array".into(),
            Shape::Envelope(key) => format!("envelope object (records under `{key}`)"),
            Shape::Engrama => "engrama NDJSON dump".into(),
            Shape::Compact => "compact line form".into(),
            Shape::Database(described) => described.clone(),
        }
    }
}

/// Lines of an engrama dump that are not records but travel with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonRecordLine {
    /// The first line: `{"engrama_export": 1, "version": …}`.
    EngramaHeader,
    Relation,
    Vector,
}

/// What the reader hands to its visitor, in file order.
#[derive(Debug, Clone)]
pub enum Entry {
    Record(Record),
    NonRecord(NonRecordLine, Record),
}

/// Keys under which memory systems wrap their records in one object.
pub const ENVELOPE_KEYS: [&str; 6] = ["results", "facts", "edges", "memories", "items", "data"];

/// Read a store, calling `visit` for every entry in order. Returns the shape found.
pub fn read(input: &Input, visit: &mut (dyn FnMut(Entry) -> Result<()> + Send)) -> Result<Shape> {
    read_with(input, &KeySelection::all(), visit)
}

/// [`read`], building only the keys `keep` names in each record (JSON lines and engrama node
/// lines; the other shapes are small or built whole, and hand over every key). Records read
/// with [`KeySelection::keys`] carry no raw text: they are for looking at, not for writing back.
pub fn read_with(
    input: &Input,
    keep: &KeySelection,
    visit: &mut (dyn FnMut(Entry) -> Result<()> + Send),
) -> Result<Shape> {
    read_parallel(input, keep, &Ok, visit)
}

/// [`read_with`], running `work` on every entry (records and non-record lines) on the decoding
/// threads, several at once, and visiting what it returns in store order (on one of those threads
/// at a time, the calling thread among them: hence `Send`, and no locking needed): the
/// place for a command's per-record work (encoding a line, reading a record's facts), so it
/// runs on every core. Entries carry their final `origin` (index included).
///
/// The first entries of a file (an engrama dump's header line, the first two JSON lines) are
/// worked on and visited before anything else is read, so what `work` learns from a header
/// (through a `OnceLock`, say) holds for every record after it. The array, envelope and
/// compact shapes are read on the calling thread, `work` included.
pub fn read_parallel<T: Send>(
    input: &Input,
    keep: &KeySelection,
    work: &batch::Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<Shape> {
    read_shape(input, keep, None, work, visit)
}

/// A record as it lies in a JSON line, for commands that only look ([`read_looking`]): its
/// text (validated), where each slotted key's value lies in it (`(0, 0)`: absent), and where
/// the line starts. Its index among the records is not known yet where views are read: count
/// the records as they are visited.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    pub text: &'a str,
    pub spans: &'a [Span],
    /// Slots known to hold a plain string, one without escapes (a bit per slot, the first 64;
    /// a clear bit tells nothing).
    pub plain: u64,
    pub line: u64,
    pub offset: u64,
}

impl<'a> View<'a> {
    /// The raw JSON text of the value in a slot.
    pub fn slot_text(&self, slot: usize) -> Option<&'a str> {
        crate::record::slot_text(self.text, self.spans, slot)
    }

    /// The slot is known to hold a plain string: its value is the text between the quotes.
    pub fn is_plain(&self, slot: usize) -> bool {
        slot < 64 && self.plain & (1 << slot) != 0
    }
}

/// What a command that only looks does with a record seen as a [`View`].
pub type Look<'a, T> = dyn Fn(View<'_>) -> Result<T> + Sync + 'a;

/// [`read_parallel`] for a command that only looks, reading with [`KeySelection::slots`]: the lines
/// of a JSON-lines store that the reader's scanner takes are handed to `look` as views of the
/// line, borrowed (no record built, nothing copied); every other entry — the first lines, the
/// other shapes, a line left to serde_json — goes to `work` as usual. Both run on the decoding
/// threads; `visit` gets what they return, in store order.
pub fn read_looking<T: Send>(
    input: &Input,
    keep: &KeySelection,
    look: &Look<'_, T>,
    work: &batch::Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<Shape> {
    read_shape(input, keep, Some(look), work, visit)
}

/// The shape from the first byte, then its reader (only JSON lines give views).
fn read_shape<T: Send>(
    input: &Input,
    keep: &KeySelection,
    look: Option<&Look<'_, T>>,
    work: &batch::Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<Shape> {
    let mut source = input.open()?;
    if let Some(live) = &input.live {
        // a database's rows come as JSON lines (an engrama graph as its dump's lines)
        lines::read(&mut source, keep, look, work, visit)?;
        return Ok(Shape::Database(live.described()));
    }
    let first = source.skip_leading_space()?;
    match first {
        None => Ok(Shape::Empty),
        Some(b'[') => array::read(&mut source, &mut |entry| visit(work(entry)?)),
        Some(b'#') => compact::read(&mut source, &mut |entry| visit(work(entry)?)),
        Some(_) => lines::read(&mut source, keep, look, work, visit),
    }
}

/// Read only the records of a store (non-record lines dropped), for commands that need nothing
/// else.
pub fn read_records(
    input: &Input,
    visit: &mut (dyn FnMut(Record) -> Result<()> + Send),
) -> Result<Shape> {
    read(input, &mut |entry| match entry {
        Entry::Record(r) => visit(r),
        Entry::NonRecord(..) => Ok(()),
    })
}
