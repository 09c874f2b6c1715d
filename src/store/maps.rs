//! The map a store's records read through: the one given (`--map`), or, when none was given,
//! the store's own. An engrama dump, known by its header (always its first entry), reads
//! through the engrama map; every other store through the map given (the identity when none).
//! The one place this rule is written: `check`, `compact` and `resolve` read through it.

use super::{read_with, Entry, KeySelection, NonRecordLine, Shape};
use crate::error::Result;
use crate::mapping::FieldMap;
use crate::record::Record;

/// The maps one read may go through, before its first entry says which.
#[derive(Debug, Clone)]
pub struct Maps {
    given: FieldMap,
    /// The engrama map, when no map was given.
    engrama: Option<FieldMap>,
}

impl Maps {
    /// `map_given`: the map came from the user (else an engrama dump reads through its own).
    pub fn new(given: FieldMap, map_given: bool) -> Result<Maps> {
        let engrama = match map_given {
            true => None,
            false => Some(engrama_map()?),
        };
        Ok(Maps { given, engrama })
    }

    /// The map given (the identity when none was).
    pub fn given(&self) -> &FieldMap {
        &self.given
    }

    /// Every map the records may read through, the given one first: the keys a reader keeps
    /// must serve each.
    pub fn each(&self) -> impl Iterator<Item = &FieldMap> {
        std::iter::once(&self.given).chain(&self.engrama)
    }

    /// The store's own map, when this entry (a store's first) names one: an engrama dump's
    /// header does, when no map was given. `None`: the records read through the given map.
    pub fn own(&self, entry: &Entry) -> Option<&FieldMap> {
        match entry {
            Entry::NonRecord(NonRecordLine::EngramaHeader, _) => self.engrama.as_ref(),
            _ => None,
        }
    }
}

/// The engrama map: the one an engrama dump reads through unless a map was given.
pub fn engrama_map() -> Result<FieldMap> {
    FieldMap::parse(&["engrama".to_string()])
}

/// [`read_with`], each record handed on with the map it reads through (see [`Maps`]);
/// returns the shape and the map the store read through.
pub fn read_mapped<'m>(
    input: &super::Input,
    keep: &KeySelection,
    maps: &'m Maps,
    visit: &mut (dyn FnMut(&FieldMap, Record) -> Result<()> + Send),
) -> Result<(Shape, &'m FieldMap)> {
    let mut map = maps.given();
    let shape = read_with(input, keep, &mut |entry| match entry {
        Entry::Record(record) => visit(map, record),
        non_record => {
            if let Some(own) = maps.own(&non_record) {
                map = own;
            }
            Ok(())
        }
    })?;
    Ok((shape, map))
}
