//! Merging what a dump holds into a JSONL store, the heart of `vercy import`.
//!
//! A store is one of two kinds, and keeps its kind:
//! - **flat**: one record per line; identity is the record_id through the field map (a record
//!   without one is identified by its whole content, so re-importing it changes nothing);
//! - **graph**: an engrama NDJSON dump kept as it is (envelope, node, relation, vector lines);
//!   identity is engrama's: label + key_value + org_id + user_id for nodes and vectors, both
//!   endpoints + type + owner for relations.
//!
//! A new store takes the kind of what is imported: an engrama dump becomes a graph store, line
//! for line, except a dump that vercy wrote from a flat store (its envelope says
//! `source_backend: "jsonl"`), whose node properties are flat records again, byte for byte.
//!
//! Flat records imported into a graph store become node lines, as `export --to engrama` makes
//! them, under the default label; relation and vector lines are refused by a flat store (it has
//! no place for them, and dropping them would lose data).
//!
//! A line already in the store takes the incoming fields (a node's properties are merged key by
//! key, as engrama merges them); when that changes nothing the line keeps its bytes, and when
//! the result is exactly the incoming line, the incoming bytes are kept. Timestamps are values
//! like any other: copied as they are, never parsed, never stamped. Relation lines never touch
//! a node (engrama 0.18.1's importer re-stamps last_activity_at on both ends of every edge; this
//! merge does not).
//!
//! Memory: the merge holds the store's lines (as text) and an index of their identities in
//! memory: it must know every identity already there. The dump streams through it; nothing is
//! written until the whole dump has been read and merged, so a bad line anywhere refuses the
//! import with the store untouched.

use super::engrama::{self, embedding_dimensions, is_flat_envelope, LineKind};
use super::jsonl::{is_json_line, python_text, same_fields};
use super::{Aside, Entry, Shape};
use crate::error::{Position, Result, VercyError};
use crate::mapping::FieldMap;
use crate::record::Record;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::io::{self, Write};

/// What kind of store the merge writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Flat,
    Graph,
}

impl Kind {
    /// The kind of an existing store, from its first entry (an engrama envelope or a record).
    pub fn of_store(first: &Entry) -> Kind {
        match first {
            Entry::Aside(Aside::EngramaHeader, _) => Kind::Graph,
            _ => Kind::Flat,
        }
    }

    /// Can import merge into a store of this shape? (JSON lines, an engrama dump, or nothing.)
    pub fn mergeable(shape: &Shape) -> bool {
        matches!(shape, Shape::Empty | Shape::JsonLines | Shape::Engrama)
    }

    /// The kind a new store takes from the first entry of the dump imported into it.
    pub fn for_new_store(first: &Entry) -> Kind {
        match first {
            Entry::Aside(Aside::EngramaHeader, h) if !is_flat_envelope(&h.fields) => Kind::Graph,
            _ => Kind::Flat,
        }
    }
}

/// What an import did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub added: u64,
    pub updated: u64,
    pub unchanged: u64,
    /// Relation lines in the dump, and how many of them were new to the store.
    pub relations: u64,
    pub relations_new: u64,
    pub vectors: u64,
    pub vectors_new: u64,
    /// Flat records that went into a graph store as node lines under the default label.
    pub as_nodes: u64,
}

enum Change {
    Added,
    Updated,
    Unchanged,
}

/// One incoming line: its exact text and its fields.
struct Line {
    text: String,
    fields: Map<String, Value>,
}

impl Line {
    fn of(record: Record) -> Line {
        let text = if is_json_line(&record.raw) {
            record.raw.into_string()
        } else {
            python_text(&record.fields)
        };
        Line {
            text,
            fields: record.fields,
        }
    }
}

/// Lines in store order (their text only: fields are parsed again from it on the rare
/// identity hit, which keeps a large store's footprint near its size on disk), with an index
/// from identity to the first line that has it.
#[derive(Default)]
struct Table {
    lines: Vec<String>,
    index: HashMap<String, usize>,
}

impl Table {
    fn load(&mut self, key: String, text: String) {
        self.index.entry(key).or_insert(self.lines.len());
        self.lines.push(text);
    }

    /// Put `incoming` in: new identity → appended; known → the existing line takes the
    /// incoming fields (`nested` names an object merged key by key rather than replaced).
    fn upsert(&mut self, key: String, incoming: Line, nested: Option<&str>) -> Change {
        let Some(&i) = self.index.get(&key) else {
            self.index.insert(key, self.lines.len());
            self.lines.push(incoming.text);
            return Change::Added;
        };
        if self.lines[i] == incoming.text {
            return Change::Unchanged;
        }
        // The store's lines are JSON objects (they were read as such, or written by us).
        let existing: Map<String, Value> = serde_json::from_str(&self.lines[i]).unwrap_or_default();
        let merged = overlay(&existing, &incoming.fields, nested);
        if same_fields(&merged, &existing) {
            Change::Unchanged
        } else if same_fields(&merged, &incoming.fields) {
            self.lines[i] = incoming.text;
            Change::Updated
        } else {
            self.lines[i] = python_text(&merged);
            Change::Updated
        }
    }
}

/// `existing` with every incoming field set over it (keys keep their place; new keys go last).
fn overlay(
    existing: &Map<String, Value>,
    incoming: &Map<String, Value>,
    nested: Option<&str>,
) -> Map<String, Value> {
    let mut out = existing.clone();
    for (k, v) in incoming {
        if nested == Some(k.as_str()) {
            if let (Some(Value::Object(old)), Value::Object(new)) = (out.get_mut(k), v) {
                for (pk, pv) in new {
                    old.insert(pk.clone(), pv.clone());
                }
                continue;
            }
        }
        out.insert(k.clone(), v.clone());
    }
    out
}

/// A JSONL store being merged into.
pub struct Store {
    kind: Kind,
    map: FieldMap,
    /// Graph stores: the envelope line (first line).
    envelope: Option<Line>,
    records: Table,
    relations: Table,
    vectors: Table,
    changed: bool,
}

impl Store {
    /// An empty store of `kind`.
    pub fn new(kind: Kind, map: FieldMap) -> Store {
        Store {
            kind,
            map,
            envelope: None,
            records: Table::default(),
            relations: Table::default(),
            vectors: Table::default(),
            changed: false,
        }
    }

    /// Take in one entry of the store file as it is (in file order).
    pub fn load(&mut self, entry: Entry) {
        match entry {
            Entry::Aside(Aside::EngramaHeader, h) => self.envelope = Some(Line::of(h)),
            Entry::Aside(Aside::Relation, r) => {
                let key = engrama::relation_identity(&r.fields);
                self.relations.load(key, Line::of(r).text);
            }
            Entry::Aside(Aside::Vector, v) => {
                let key = engrama::vector_identity(&v.fields);
                self.vectors.load(key, Line::of(v).text);
            }
            Entry::Record(r) => {
                let line = Line::of(r);
                let key = self.record_identity(&line);
                self.records.load(key, line.text);
            }
        }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// True when the merge changed anything (otherwise the store file need not be rewritten).
    pub fn changed(&self) -> bool {
        self.changed
    }

    fn record_identity(&self, line: &Line) -> String {
        match self.kind {
            Kind::Graph => engrama::node_identity(&line.fields),
            Kind::Flat => match self.map.get("record_id", &line.fields).as_deref() {
                Some(Value::Null) | None => format!("text:{}", python_text(&line.fields)),
                Some(id) => format!("id:{}", python_text(id)),
            },
        }
    }

    /// Merge one entry of a dump (`from_engrama`: the dump is an engrama dump). Nothing is
    /// written until the whole dump has been merged, so an error here leaves the store file
    /// as it was.
    pub fn merge(
        &mut self,
        entry: Entry,
        from_engrama: bool,
        dump_name: &str,
        counts: &mut Counts,
    ) -> Result<()> {
        {
            match entry {
                Entry::Aside(Aside::EngramaHeader, header) => self.merge_envelope(header),
                Entry::Aside(kind, line) => {
                    if self.kind == Kind::Flat {
                        return Err(no_place(dump_name, &line, "relation and vector lines"));
                    }
                    if let Some(line_kind) = LineKind::of_aside(kind) {
                        engrama::check_line(line_kind, &line, dump_name)?;
                    }
                    let (table, key, total, new) = match kind {
                        Aside::Relation => (
                            &mut self.relations,
                            engrama::relation_identity(&line.fields),
                            &mut counts.relations,
                            &mut counts.relations_new,
                        ),
                        _ => (
                            &mut self.vectors,
                            engrama::vector_identity(&line.fields),
                            &mut counts.vectors,
                            &mut counts.vectors_new,
                        ),
                    };
                    *total += 1;
                    match table.upsert(key, Line::of(line), None) {
                        Change::Added => {
                            *new += 1;
                            self.changed = true;
                        }
                        Change::Updated => self.changed = true,
                        Change::Unchanged => {}
                    }
                }
                Entry::Record(record) => {
                    let line = match (self.kind, from_engrama) {
                        (Kind::Graph, true) => {
                            engrama::check_line(LineKind::Node, &record, dump_name)?;
                            Line::of(record)
                        }
                        (Kind::Graph, false) => {
                            // as `export --to engrama` makes it, under the default label
                            let text = engrama::node_line(
                                &record,
                                engrama::DEFAULT_LABEL,
                                &self.map,
                                dump_name,
                            )?;
                            counts.as_nodes += 1;
                            Line {
                                fields: serde_json::from_str(&text).unwrap_or_default(),
                                text,
                            }
                        }
                        (Kind::Flat, true) => match engrama::node_properties(&record) {
                            Some((text, fields)) => Line { text, fields },
                            None => return Err(no_properties(dump_name, &record)),
                        },
                        (Kind::Flat, false) => Line::of(record),
                    };
                    let key = self.record_identity(&line);
                    let nested = (self.kind == Kind::Graph).then_some("properties");
                    match self.records.upsert(key, line, nested) {
                        Change::Added => {
                            counts.added += 1;
                            self.changed = true;
                        }
                        Change::Updated => {
                            counts.updated += 1;
                            self.changed = true;
                        }
                        Change::Unchanged => counts.unchanged += 1,
                    }
                }
            }
        }
        Ok(())
    }

    /// The store's envelope follows the newest dump, except that a dump without embeddings
    /// does not take away the dimensions of vectors the store keeps.
    fn merge_envelope(&mut self, header: Record) {
        if self.kind != Kind::Graph {
            return;
        }
        let incoming = Line::of(header);
        match &self.envelope {
            Some(old) if same_fields(&old.fields, &incoming.fields) => {}
            Some(old)
                if embedding_dimensions(&incoming.fields) == 0
                    && embedding_dimensions(&old.fields) != 0
                    && !self.vectors.lines.is_empty() => {}
            _ => {
                self.envelope = Some(incoming);
                self.changed = true;
            }
        }
    }

    /// Write the store: graph stores as engrama orders a dump (envelope, nodes, relations,
    /// vectors), flat stores one record per line.
    pub fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        let mut put = |text: &str| -> io::Result<()> {
            out.write_all(text.as_bytes())?;
            out.write_all(b"\n")
        };
        if self.kind == Kind::Graph {
            if let Some(envelope) = &self.envelope {
                put(&envelope.text)?;
            }
        }
        for table in [&self.records, &self.relations, &self.vectors] {
            for line in &table.lines {
                put(line)?;
            }
        }
        Ok(())
    }
}

/// Relation and vector lines have no place in a flat store; refusing keeps them from being lost.
fn no_place(dump: &str, line: &Record, what: &str) -> VercyError {
    let message = format!("{what} cannot go into a flat JSONL store");
    let help = "import the dump into a new store (or with --purge): it is kept as an engrama dump, relations and vectors included".to_string();
    VercyError::Shape {
        path: dump.to_string(),
        pos: Position {
            line: line.origin.line,
            column: 1,
        },
        message,
        help,
    }
}

fn no_properties(dump: &str, node: &Record) -> VercyError {
    VercyError::Shape {
        path: dump.to_string(),
        pos: Position {
            line: node.origin.line,
            column: 1,
        },
        message: "a node line without a `properties` object".into(),
        help: "engrama node lines carry the node's fields under \"properties\"".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Origin;

    fn entry(line: &str, aside: Option<Aside>) -> Entry {
        let fields: Map<String, Value> = serde_json::from_str(line).unwrap();
        let record = Record::new(fields, line, Origin::default());
        match aside {
            Some(kind) => Entry::Aside(kind, record),
            None => Entry::Record(record),
        }
    }

    fn text(store: &Store) -> String {
        let mut out = Vec::new();
        store.write(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    const ENV4: &str = r#"{"engrama_export": 1, "exported_at": "a", "embedding_dimensions": 4}"#;
    const ENV0: &str = r#"{"engrama_export": 1, "exported_at": "b", "embedding_dimensions": 0}"#;
    const VEC: &str =
        r#"{"type": "vector", "label": "C", "key_field": "name", "key_value": "x", "vector": [1]}"#;

    #[test]
    fn a_dump_without_embeddings_keeps_the_dimensions_of_kept_vectors() {
        let mut store = Store::new(Kind::Graph, FieldMap::identity());
        store.load(entry(ENV4, Some(Aside::EngramaHeader)));
        store.load(entry(VEC, Some(Aside::Vector)));
        let mut counts = Counts::default();
        store
            .merge(
                entry(ENV0, Some(Aside::EngramaHeader)),
                true,
                "d",
                &mut counts,
            )
            .unwrap();
        assert!(!store.changed());
        assert!(text(&store).starts_with(ENV4));
        // without vectors to keep, the envelope follows the newer dump
        let mut bare = Store::new(Kind::Graph, FieldMap::identity());
        bare.load(entry(ENV4, Some(Aside::EngramaHeader)));
        bare.merge(
            entry(ENV0, Some(Aside::EngramaHeader)),
            true,
            "d",
            &mut counts,
        )
        .unwrap();
        assert!(bare.changed());
        assert_eq!(text(&bare), format!("{ENV0}\n"));
    }

    #[test]
    fn records_without_an_id_are_the_same_record_when_their_content_is() {
        let mut store = Store::new(Kind::Flat, FieldMap::identity());
        store.load(entry(r#"{"note":"a","valid_from":"2025-01-01"}"#, None));
        let mut counts = Counts::default();
        for line in [
            r#"{"note": "a", "valid_from": "2025-01-01"}"#,
            r#"{"note": "b"}"#,
            r#"{"note": "b"}"#,
        ] {
            store
                .merge(entry(line, None), false, "d", &mut counts)
                .unwrap();
        }
        assert_eq!((counts.added, counts.updated, counts.unchanged), (1, 0, 2));
        assert_eq!(
            text(&store),
            "{\"note\":\"a\",\"valid_from\":\"2025-01-01\"}\n{\"note\": \"b\"}\n"
        );
    }

    #[test]
    fn incoming_fields_go_over_the_existing_ones_in_place() {
        let mut store = Store::new(Kind::Flat, FieldMap::identity());
        store.load(entry(
            r#"{"record_id":"a","x":1,"valid_to":null,"keep":true}"#,
            None,
        ));
        let mut counts = Counts::default();
        store
            .merge(
                entry(r#"{"valid_to": "2026-03-31T00:00:00.000000001-08:00", "record_id": "a", "y": 2}"#, None),
                false,
                "d",
                &mut counts,
            )
            .unwrap();
        assert_eq!(counts.updated, 1);
        assert_eq!(
            text(&store),
            "{\"record_id\": \"a\", \"x\": 1, \"valid_to\": \"2026-03-31T00:00:00.000000001-08:00\", \"keep\": true, \"y\": 2}\n"
        );
    }
}
