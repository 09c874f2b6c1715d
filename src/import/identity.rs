//! Which line an incoming line meets: the identity of a line, and the index from identity to
//! the first line that has it.

use super::{parse, Loc, Store, StoreKind, RECORDS, RELATIONS};
use crate::error::Result;
use crate::mapping::FieldMap;
use crate::python::json::python_text;
use crate::record::{is_filled, whole_fields, Record};
use crate::store::engrama::{self, LineView};
use crate::store::KeySelection;
use std::borrow::Cow;

use hashbrown::HashTable;
use serde_json::{Map, Value};
use std::collections::HashMap;

pub(super) fn record_identity(kind: StoreKind, map: &FieldMap, record: &Record) -> String {
    match kind {
        StoreKind::Graph => engrama::node_identity(&LineView::of(record)),
        StoreKind::Flat => fields_identity(kind, map, &identity_fields(map, record)),
    }
}

pub(super) fn fields_identity(
    kind: StoreKind,
    map: &FieldMap,
    fields: &Map<String, Value>,
) -> String {
    match kind {
        StoreKind::Graph => engrama::node_identity(&LineView::of_fields(fields)),
        // a record_id that `check` judges missing (absent, null, blank, `[]`, `{}`) is no
        // identity: such records are told apart by their whole content, as the profile's
        // present-and-not-empty rule reads them, rather than merged into one by that value
        StoreKind::Flat => match map.get("record_id", fields) {
            Some(id) if is_filled(&id) => format!("id:{}", python_text(&*id)),
            _ => format!("text:{}", python_text(fields)),
        },
    }
}

/// The lines of one part of the store, in order, by place; and the index from identity to the
/// first line that has it.
///
/// Memory: the index keeps a 64-bit hash per identity (not the identity: a store's identities
/// would take about as much memory as its text), 24 bytes a line with its place, and the table
/// from a hash to the first line holding it 4 bytes a slot (the line's number: the hash it is
/// placed by is the line's own, in `keys`). A hash is only a hint: an identity is compared in
/// full when its hash is found (from the line's text, read back), and the rare identity whose
/// hash another one holds is indexed by its full text in `shared`.
#[derive(Default)]
pub(super) struct Table {
    pub(super) places: Vec<Loc>,
    /// The identity hash of each line, by its number in `places`.
    keys: Vec<u64>,
    /// The first line of each hash, placed by the hash (already one: hashed no further).
    index: HashTable<u32>,
    pub(super) shared: HashMap<String, usize>,
}

impl Table {
    /// A new line at `at`, of identity hash `key`: its number. Past 2^32 lines of one part
    /// of a store, `None`.
    pub(super) fn push(&mut self, at: Loc, key: u64) -> Option<usize> {
        let i = self.places.len();
        u32::try_from(i).ok()?;
        self.places.push(at);
        self.keys.push(key);
        Some(i)
    }

    /// The first line of identity hash `key`.
    pub(super) fn first(&self, key: u64) -> Option<usize> {
        let keys = &self.keys;
        self.index
            .find(key, |&i| keys[i as usize] == key)
            .map(|&i| i as usize)
    }

    /// Index line `i` (from [`Table::push`]) under its hash, unless a line holds it already:
    /// whether it did.
    pub(super) fn index(&mut self, i: usize) -> bool {
        let keys = &self.keys;
        let key = keys[i];
        match self
            .index
            .entry(key, |&j| keys[j as usize] == key, |&j| keys[j as usize])
        {
            hashbrown::hash_table::Entry::Occupied(_) => false,
            hashbrown::hash_table::Entry::Vacant(slot) => {
                // `push` numbered it below 2^32
                slot.insert(i as u32);
                true
            }
        }
    }
}

impl Store {
    pub(super) fn identity_of(&self, table: usize, fields: &Map<String, Value>) -> String {
        match table {
            RECORDS => fields_identity(self.kind, &self.map, fields),
            RELATIONS => engrama::relation_identity(&LineView::of_fields(fields)),
            _ => engrama::vector_identity(&LineView::of_fields(fields)),
        }
    }

    pub(super) fn identity_at(&mut self, table: usize, i: usize) -> Result<String> {
        let text = self.text_at(table, i)?;
        Ok(self.identity_of(table, &parse(&text)))
    }
}
/// The fields a flat record's identity reads: only the keys its `record_id` role reads when
/// they hold a filled id, else all of them (a record without an id is identified by its whole
/// content). Building every key of a line of millions of keys only to read its id took many
/// times the line's bytes (bench/NOTES.md).
fn identity_fields<'r>(map: &FieldMap, record: &'r Record) -> Cow<'r, Map<String, Value>> {
    let keys = KeySelection::keys(map.path("record_id").top_keys());
    if let Some(decoded) = keys.decode_object(&record.raw) {
        let id = map.get("record_id", &decoded.fields);
        if id.is_some_and(|v| is_filled(&v)) {
            return Cow::Owned(decoded.fields);
        }
    }
    whole_fields(record)
}
