//! The records a page draws, read back: at their byte offsets, for a file whose records are
//! JSON texts at the places the store's own pass saw them (JSON lines, an engrama dump, a JSON
//! array, an envelope's list); else in one more pass over the store that keeps the records of
//! the concepts asked for (a database, a git revision, a store whose reading kept no record
//! text, a one-line envelope whose records share its line's place). Either way each record is
//! read through the map its pass read it through.

use super::sightings::Sightings;
use crate::error::Result;
use crate::file_at::read_at;
use crate::record::{Origin, Record};
use crate::store::{self, Input, RecordView, Role, RoleReading, RoleSet, Shape, Sighting};
use std::io;

/// A record to read back, and which of the caller's things it is for.
#[derive(Debug, Clone, Copy)]
pub(super) struct Place {
    pub seen: Sighting,
    pub of: u32,
}

/// What reading a store back needs: where its records were seen, the roles to read, and the
/// concept among them.
pub(super) type Reading<'a> = (&'a Sightings, &'a RoleSet, Role);

/// The file of the store `input` as `seen` saw it, when the records at `places` can be read
/// back from it at their offsets: their texts were the file's own, each at a place of its own.
pub(super) fn file_at_offsets(
    input: &Input,
    seen: &Sightings,
    places: &[Place],
) -> Result<Option<std::fs::File>> {
    let json_texts = matches!(
        seen.shape,
        Shape::JsonLines | Shape::Engrama | Shape::JsonArray | Shape::Envelope(_)
    );
    let texts = seen.placed && places.iter().all(|p| p.seen.len > 0);
    Ok(match input.path() {
        Some(path) if json_texts && texts => {
            Some(std::fs::File::open(path).map_err(|e| input.read_error(&e))?)
        }
        _ => None,
    })
}

/// Read back the records at `places` (sorted by offset) of `file`, the store `input`, read as
/// `reading` says: `work` runs on each record's view (the line it carries is its place's),
/// and `visit` gets what it returns, in store order. `false` as soon as a place no longer
/// holds the record seen there (the concept it held): the store changed since, and is to be
/// read whole.
pub(super) fn at_offsets<T>(
    input: &Input,
    file: &std::fs::File,
    (seen, roles, concept): Reading,
    places: &[Place],
    work: &dyn Fn(&Place, &RecordView) -> T,
    visit: &mut dyn FnMut(T),
) -> Result<bool> {
    let reading = reading_of(seen, roles)?;
    let mut bytes = Vec::new();
    for place in places {
        let Some(record) = record_at(input, file, place.seen, &mut bytes)? else {
            return Ok(false);
        };
        let view = reading.given().view(&record, false);
        if view.filled(concept).map(|v| (seen.key)(&v.text())) != Some(place.seen.key) {
            return Ok(false);
        }
        visit(work(place, &view));
    }
    Ok(true)
}

/// Read the whole store `input` as `reading` says: `work` runs on the view of each record
/// whose concept's key `wanted` knows (with what `wanted` gives), several at once, and
/// `visit` gets what it returns, in store order.
pub(super) fn whole<T: Send>(
    input: &Input,
    (seen, roles, concept): Reading,
    wanted: &(dyn Fn(u64) -> Option<u32> + Sync),
    work: &(dyn Fn(u32, &RecordView) -> T + Sync),
    visit: &mut (dyn FnMut(T) + Send),
) -> Result<()> {
    let reading = reading_of(seen, roles)?;
    let pick = |view: &RecordView| -> Result<Option<T>> {
        let of = view
            .filled(concept)
            .and_then(|v| wanted((seen.key)(&v.text())));
        Ok(of.map(|of| work(of, view)))
    };
    store::read_views(input, &reading, &pick, &mut |picked| {
        picked.into_iter().for_each(&mut *visit);
        Ok(())
    })?;
    Ok(())
}

/// The roles of `roles` through the map the pass settled on, given: a dump's header needs no
/// reading again.
fn reading_of(seen: &Sightings, roles: &RoleSet) -> Result<RoleReading> {
    let maps = store::Maps::new(seen.map.clone(), true)?;
    Ok(RoleReading::new(maps, roles, &[], false))
}

/// The record whose text lies where `seen` says in `file`, built from nothing but that text;
/// `None` when no text of that length is there.
fn record_at(
    input: &Input,
    file: &std::fs::File,
    seen: Sighting,
    bytes: &mut Vec<u8>,
) -> Result<Option<Record>> {
    bytes.resize(seen.len as usize, 0);
    match read_at(file, seen.offset, bytes) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(input.read_error(&e)),
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Ok(None);
    };
    Ok(Some(Record {
        fields: serde_json::Map::new(),
        raw: text.into(),
        origin: Origin {
            line: seen.line,
            offset: seen.offset,
            index: 0,
        },
        spans: None,
    }))
}
