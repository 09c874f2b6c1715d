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

use hashbrown::DefaultHashBuilder;
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
/// would take about as much memory as its text), 16 bytes a line with its place. A hash is
/// only a hint: an identity is compared in full when its hash is found (from the line's text,
/// read back), and the rare identity whose hash another one holds is indexed by its full text
/// in `shared`.
#[derive(Default)]
pub(super) struct Table {
    pub(super) places: Vec<Loc>,
    pub(super) index: HashMap<u64, usize, DefaultHashBuilder>,
    pub(super) shared: HashMap<String, usize>,
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
