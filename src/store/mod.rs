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
mod elements;
pub mod engrama;
mod envelope;
mod keep;
mod layout;
mod lines;
mod locate;
mod maps;
mod nested;
pub mod pyjson;
mod pyline;
mod scan;
mod source;
pub mod view;

pub use keep::{Decoded, KeySelection, KeySlots, RawFields};
pub use locate::{json_error, not_object};
pub use maps::{engrama_map, read_mapped, read_views, Maps, RoleReading};
pub use source::{Input, Select};
pub use view::{Presence, PresenceBits, RecordView, Role, RoleSet, RoleValue, ViewPlan};

use crate::error::Result;
use crate::record::{self, Record, Span};

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
    /// A database read in place (`source/database.rs`): how its rows were read.
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
/// (through a `OnceLock`, say) holds for every record after it. Only a one-line envelope
/// short enough to be read as a line is read on the calling thread, `work` included.
pub fn read_parallel<T: Send>(
    input: &Input,
    keep: &KeySelection,
    work: &batch::Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<Shape> {
    read_shape(input, keep, None, work, visit)
}

/// A JSON line as the reader's scanner left it, for the looking commands ([`read_views`]): its
/// text (validated), where each slotted key's value lies in it (`(0, 0)`: absent), and where
/// the line starts (its index among the records is not known yet). The reader makes it a
/// [`RecordView`].
#[derive(Debug, Clone, Copy)]
struct ScannedLine<'a> {
    text: &'a str,
    spans: &'a [Span],
    /// Slots known to hold a plain string, one without escapes (a bit per slot, the first 64;
    /// a clear bit tells nothing).
    plain: u64,
    origin: crate::record::Origin,
}

/// What the reader does with a line its scanner took (see [`read_views`]).
type OnScanned<'a, T> = dyn Fn(ScannedLine<'_>) -> Result<T> + Sync + 'a;

/// The shape from the first byte, then its reader (only JSON lines give views).
fn read_shape<T: Send>(
    input: &Input,
    keep: &KeySelection,
    look: Option<&OnScanned<'_, T>>,
    work: &batch::Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<Shape> {
    let (mut source, rows) = input.open_source()?;
    if let Some(described) = rows {
        // a database's rows come as JSON lines (an engrama graph as its dump's lines)
        lines::read(input, &mut source, keep, look, work, visit)?;
        return Ok(Shape::Database(described));
    }
    let first = source.skip_leading_space()?;
    match first {
        None => Ok(Shape::Empty),
        Some(b'[') => array::read(&mut source, keep, look, work, visit),
        Some(b'#') => compact::read(&mut source, work, visit),
        Some(b'{') if envelope::opens_long_line(source.reader.buffer(), input.is_pipe()) => {
            let at = record::Origin {
                line: source.line,
                offset: source.offset,
                index: 0,
            };
            envelope::read_long_line(input, &mut source, at, keep, look, work, visit)
        }
        Some(_) => lines::read(input, &mut source, keep, look, work, visit),
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
