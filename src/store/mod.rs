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

pub mod batch;
mod decode;
mod maps;
mod shape;
mod source;
pub mod view;

pub use decode::keep::{Decoded, KeySelection, KeySlots, RawFields};
pub use decode::locate::{json_error, not_object};
pub use decode::pyjson::object as record_object;
pub use maps::{engrama_map, read_mapped, read_views, Maps, RoleReading};
pub use shape::engrama::NonRecordLine;
pub use shape::{compact, engrama, Entry, Shape};
pub use source::{Input, Select};
pub use view::{
    Presence, PresenceBits, RawOrValue, RecordView, Role, RoleSet, RoleValue, Sighting, ViewPlan,
};

use crate::error::Result;
use crate::record::Record;

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
    shape::read(input, keep, None, work, visit)
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
