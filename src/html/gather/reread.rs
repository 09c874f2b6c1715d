//! The records a page draws, read back from where the store's own pass saw them: at their
//! byte offsets, for a file whose records are JSON texts (JSON lines, an engrama dump, a JSON
//! array, an envelope's list); else in one more pass over the store that keeps only the
//! records asked for (a database, a git revision, a compact file, a store whose reading kept
//! no record text). Either way each record is read through the map its pass read it through,
//! and must still hold the concept it held then.

use super::sightings::{Sighting, Sightings};
use crate::error::{Result, VercyError};
use crate::file_at::read_at;
use crate::record::{Origin, Record};
use crate::store::{self, Input, RecordView, Role, RoleReading, RoleSet, Shape};

/// A record to read back, and which of the caller's things it is for.
#[derive(Debug, Clone, Copy)]
pub(super) struct Place {
    pub seen: Sighting,
    pub of: u32,
}

/// How a store's records are read back.
pub(super) enum Reread {
    /// From the file, at each record's offset.
    At(std::fs::File),
    /// In one pass over the whole store.
    Whole,
}

impl Reread {
    /// How the records at `places` of the store `input`, read as `seen` says, are read back.
    pub(super) fn of(input: &Input, seen: &Sightings, places: &[Place]) -> Result<Reread> {
        let json_texts = matches!(
            seen.shape,
            Shape::JsonLines | Shape::Engrama | Shape::JsonArray | Shape::Envelope(_)
        );
        Ok(match input.path() {
            Some(path) if json_texts && places.iter().all(|p| p.seen.len > 0) => {
                Reread::At(std::fs::File::open(path).map_err(|e| input.read_error(&e))?)
            }
            _ => Reread::Whole,
        })
    }

    /// The records are read at their offsets (a few cost a few reads, not a pass).
    pub(super) fn at_offsets(&self) -> bool {
        matches!(self, Reread::At(_))
    }

    /// Read back the records at `places` (sorted by offset) of the store `input`, read as
    /// `seen` says, with the roles of `roles` (`concept` among them): `work` runs on each
    /// record's view (the line it carries is its place's), several at once when the whole
    /// store is read, and `visit` gets what it returns, in store order.
    pub(super) fn read<T: Send>(
        &self,
        input: &Input,
        (seen, roles, concept): (&Sightings, &RoleSet, Role),
        places: &[Place],
        work: &(dyn Fn(&Place, &RecordView) -> Result<T> + Sync),
        visit: &mut (dyn FnMut(T) -> Result<()> + Send),
    ) -> Result<()> {
        // the map the pass settled on, given: a dump's header needs no reading again
        let maps = store::Maps::new(seen.map.clone(), true)?;
        let reading = RoleReading::new(maps, roles, &[], false);
        // the record must hold the concept it held when its place was noted
        let same = |place: &Place, view: &RecordView| -> Result<T> {
            let key = view.filled(concept).map(|v| (seen.key)(&v.text()));
            match key == Some(place.seen.key) {
                true => work(place, view),
                false => Err(changed(input, place.seen.line)),
            }
        };
        match self {
            Reread::At(file) => {
                let mut bytes = Vec::new();
                for place in places {
                    let record = record_at(input, file, place.seen, &mut bytes)?;
                    visit(same(place, &reading.given().view(&record, false))?)?;
                }
                Ok(())
            }
            Reread::Whole => {
                let mut left = places.len();
                let pick = |view: &RecordView| -> Result<Option<T>> {
                    match places.binary_search_by_key(&view.origin.offset, |p| p.seen.offset) {
                        Ok(i) => same(&places[i], view).map(Some),
                        Err(_) => Ok(None),
                    }
                };
                store::read_views(input, &reading, &pick, &mut |picked| match picked {
                    Some(done) => {
                        left -= 1;
                        visit(done)
                    }
                    None => Ok(()),
                })?;
                match left {
                    0 => Ok(()),
                    _ => Err(changed(input, 0)),
                }
            }
        }
    }
}

/// The record whose text lies where `seen` says in `file`, built from nothing but that text.
fn record_at(
    input: &Input,
    file: &std::fs::File,
    seen: Sighting,
    bytes: &mut Vec<u8>,
) -> Result<Record> {
    bytes.resize(seen.len as usize, 0);
    read_at(file, seen.offset, bytes).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => changed(input, seen.line),
        _ => input.read_error(&e),
    })?;
    let text = std::str::from_utf8(bytes).map_err(|_| changed(input, seen.line))?;
    Ok(Record {
        fields: serde_json::Map::new(),
        raw: text.into(),
        origin: Origin {
            line: seen.line,
            offset: seen.offset,
            index: 0,
        },
        spans: None,
    })
}

/// The store no longer holds the record its pass read on `line` (0: somewhere).
fn changed(input: &Input, line: u64) -> VercyError {
    let at = match line {
        0 => "a record the check read is no longer there".to_string(),
        l => format!("line {l} no longer holds the record the check read there"),
    };
    VercyError::Read {
        path: input.display.clone(),
        reason: format!("the store changed while it was read ({at}): check it again"),
    }
}
