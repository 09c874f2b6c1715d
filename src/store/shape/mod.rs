//! How a source's bytes become entries: the shape found from the first byte, then its
//! reader. JSON lines and what starts like them, an engrama dump and a one-line envelope
//! (`lines.rs`); a JSON array (`array.rs`, its elements cut out by `elements.rs` and
//! `nested.rs`); an envelope spread over lines or too long for one (`envelope.rs`); the compact
//! line form (`compact.rs`, its codec too). `engrama.rs` is engrama's NDJSON v1 itself: the
//! keys and identities that the reader, the writers, import and the SQLite source share.

pub mod array;
pub mod compact;
pub mod elements;
pub mod engrama;
pub mod envelope;
pub mod lines;
pub mod nested;

use super::batch::Work;
use super::decode::keep::KeySelection;
use super::source::Input;
use crate::error::Result;
use crate::record::{Origin, Record, Span};
use engrama::NonRecordLine;

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

/// What the reader hands to its visitor, in file order.
#[derive(Debug, Clone)]
pub enum Entry {
    Record(Record),
    NonRecord(NonRecordLine, Record),
}

/// A JSON line as the reader's scanner left it, for the looking commands (`maps.rs`'s
/// `read_views`): its text (validated), where each slotted key's value lies in it (`(0, 0)`:
/// absent), and where the line starts (its index among the records is not known yet). The
/// reader makes it a `RecordView`.
#[derive(Debug, Clone, Copy)]
pub struct ScannedLine<'a> {
    pub text: &'a str,
    pub spans: &'a [Span],
    /// Slots known to hold a plain string, one without escapes (a bit per slot, the first 64;
    /// a clear bit tells nothing).
    pub plain: u64,
    pub origin: Origin,
}

/// What the reader does with a line its scanner took.
pub type OnScanned<'a, T> = dyn Fn(ScannedLine<'_>) -> Result<T> + Sync + 'a;

/// Read `input`: the shape from the first byte, then its reader (only JSON lines give views
/// through `look`). A database's rows are JSON lines.
pub fn read<T: Send>(
    input: &Input,
    keep: &KeySelection,
    look: Option<&OnScanned<'_, T>>,
    work: &Work<'_, Entry, T>,
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
            let at = Origin {
                line: source.line,
                offset: source.offset,
                index: 0,
            };
            envelope::read_long_line(input, &mut source, at, keep, look, work, visit)
        }
        Some(_) => lines::read(input, &mut source, keep, look, work, visit),
    }
}
