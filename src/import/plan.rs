//! The per-line work of an import, done on the reader's decoding threads: each line of the
//! store and of the dump checked, its identity and its text as the store will hold it.

use super::identity::{fields_identity, record_identity};
use super::{parse, Loc, StoreKind, RECORDS, RELATIONS, VECTORS};
use crate::error::{Position, Result, VercyError};
use crate::mapping::FieldMap;
use crate::record::Record;
use crate::record::{has_own_line, into_line, whole_fields};
use crate::store::engrama::{self, LineKind, LineView};
use crate::store::{Entry, KeySelection, NonRecordLine, ViewPlan};
use hashbrown::DefaultHashBuilder;
use serde_json::{Map, Value};
use std::hash::BuildHasher;
use std::sync::OnceLock;

/// One line made ready for the merge on a decoding thread.
pub struct MergeLine {
    /// Empty for the envelope.
    pub(super) identity: String,
    /// A hash of `identity`: what the merge's index keeps.
    pub(super) key: u64,
    /// The line as the store holds it (empty when `stored` says where it already is).
    pub(super) text: String,
    /// A line of the store file that is kept as its own bytes: where they are.
    pub(super) stored: Option<Loc>,
    /// A dump line kept as its own bytes, read from a file: where they are in it (the merge
    /// has the kernel copy them, a run of lines at a time, rather than writing the text).
    pub(super) source: Option<u64>,
    /// Where the line starts in its file (for a progress bar).
    pub(super) offset: u64,
}

/// A line of the store or of a dump, ready for [`Store::load`](super::Store::load) or
/// [`Store::merge`](super::Store::merge).
pub enum MergeEntry {
    Envelope {
        line: MergeLine,
        fields: Map<String, Value>,
    },
    Line {
        table: usize,
        line: MergeLine,
        /// A flat record that goes into a graph store as a node line.
        as_node: bool,
    },
}

impl MergeEntry {
    /// Byte offset of the line in the file it was read from.
    pub fn offset(&self) -> u64 {
        match self {
            MergeEntry::Envelope { line, .. } | MergeEntry::Line { line, .. } => line.offset,
        }
    }
}

/// The per-line work of an import, shared by the decoding threads: the store's kind (from the
/// store's first entry, or the dump's when the store is new) and whether the dump is an
/// engrama dump (from its first entry) are settled by the first entry each file gives, which
/// the reader works on before any other.
pub struct Plan {
    pub(super) map: FieldMap,
    /// How a flat record's id is read when it becomes a node line (through `map`).
    ids: ViewPlan,
    dump: String,
    kind: OnceLock<StoreKind>,
    from_engrama: OnceLock<bool>,
    hasher: DefaultHashBuilder,
    /// Tests: every identity gets the same hash, so identities that share one are merged apart.
    #[cfg(test)]
    pub(super) one_hash: bool,
}

impl Plan {
    /// `dump` names the dump in messages.
    pub fn new(map: FieldMap, dump: &str) -> Plan {
        Plan {
            ids: ViewPlan::fields(&map),
            map,
            dump: dump.to_string(),
            kind: OnceLock::new(),
            from_engrama: OnceLock::new(),
            hasher: DefaultHashBuilder::default(),
            #[cfg(test)]
            one_hash: false,
        }
    }

    /// The store's kind, once the first entry has settled it.
    pub fn kind(&self) -> Option<StoreKind> {
        self.kind.get().copied()
    }

    pub(super) fn merge_line(&self, identity: String, text: String, offset: u64) -> MergeLine {
        #[cfg(test)]
        if self.one_hash {
            return MergeLine {
                identity,
                key: 0,
                text,
                stored: None,
                source: None,
                offset,
            };
        }
        MergeLine {
            key: self.hasher.hash_one(identity.as_str()),
            identity,
            text,
            stored: None,
            source: None,
            offset,
        }
    }

    /// A line of the store file as it is (read in file order).
    pub fn stored(&self, entry: Entry) -> MergeEntry {
        let kind = *self.kind.get_or_init(|| StoreKind::of_store(&entry));
        let (non_record, record) = match entry {
            Entry::NonRecord(non_record, record) => (Some(non_record), record),
            Entry::Record(record) => (None, record),
        };
        let identity = match non_record {
            Some(NonRecordLine::EngramaHeader) => String::new(),
            Some(NonRecordLine::Relation) => engrama::relation_identity(&LineView::of(&record)),
            Some(NonRecordLine::Vector) => engrama::vector_identity(&LineView::of(&record)),
            None => record_identity(kind, &self.map, &record),
        };
        // a line is at most 256 MiB (the reader's limit), so its length fits
        let stored = has_own_line(&record)
            .then(|| Loc::new(record.origin.offset, record.raw.len() as u32, true));
        let envelope = matches!(non_record, Some(NonRecordLine::EngramaHeader))
            .then(|| whole_fields(&record).into_owned());
        let offset = record.origin.offset;
        let text = if stored.is_some() {
            String::new()
        } else {
            into_line(record)
        };
        let mut line = self.merge_line(identity, text, offset);
        line.stored = stored;
        match non_record {
            Some(NonRecordLine::EngramaHeader) => MergeEntry::Envelope {
                line,
                fields: envelope.unwrap_or_default(),
            },
            Some(NonRecordLine::Relation) => MergeEntry::Line {
                table: RELATIONS,
                line,
                as_node: false,
            },
            Some(NonRecordLine::Vector) => MergeEntry::Line {
                table: VECTORS,
                line,
                as_node: false,
            },
            None => MergeEntry::Line {
                table: RECORDS,
                line,
                as_node: false,
            },
        }
    }

    /// A line of the dump: checked, its identity and its text as the store will hold it.
    pub fn incoming(&self, entry: Entry) -> Result<MergeEntry> {
        let from_engrama = *self
            .from_engrama
            .get_or_init(|| matches!(entry, Entry::NonRecord(NonRecordLine::EngramaHeader, _)));
        let kind = *self.kind.get_or_init(|| StoreKind::for_new_store(&entry));
        let dump = self.dump.as_str();
        match entry {
            Entry::NonRecord(NonRecordLine::EngramaHeader, header) => {
                let offset = header.origin.offset;
                let fields = whole_fields(&header).into_owned();
                Ok(MergeEntry::Envelope {
                    line: self.merge_line(String::new(), into_line(header), offset),
                    fields,
                })
            }
            Entry::NonRecord(non_record, line) => {
                if kind == StoreKind::Flat {
                    return Err(no_place(dump, &line, "relation and vector lines"));
                }
                let view = LineView::of(&line);
                if let Some(line_kind) = LineKind::of_non_record(non_record) {
                    engrama::check_line(line_kind, &view, dump, &line)?;
                }
                let (table, identity) = match non_record {
                    NonRecordLine::Relation => (RELATIONS, engrama::relation_identity(&view)),
                    _ => (VECTORS, engrama::vector_identity(&view)),
                };
                let (offset, source) = (line.origin.offset, source_of(&line));
                let mut line = self.merge_line(identity, into_line(line), offset);
                line.source = source;
                Ok(MergeEntry::Line {
                    table,
                    line,
                    as_node: false,
                })
            }
            Entry::Record(record) => {
                let offset = record.origin.offset;
                let mut source = None;
                let (text, identity, as_node) = match (kind, from_engrama) {
                    (StoreKind::Graph, true) => {
                        let view = LineView::of(&record);
                        engrama::check_line(LineKind::Node, &view, dump, &record)?;
                        let identity = engrama::node_identity(&view);
                        source = source_of(&record);
                        (into_line(record), identity, false)
                    }
                    (StoreKind::Graph, false) => {
                        // as `export --to engrama` makes it, under the default label
                        let mut record = record;
                        record.fields = whole_fields(&record).into_owned();
                        let text =
                            engrama::node_line(&record, engrama::DEFAULT_LABEL, &self.ids, dump)?;
                        let fields = parse(&text);
                        let identity = engrama::node_identity(&LineView::of_fields(&fields));
                        (text, identity, true)
                    }
                    (StoreKind::Flat, true) => match engrama::node_properties(&record) {
                        Some((text, fields)) => {
                            (text, fields_identity(kind, &self.map, &fields), false)
                        }
                        None => return Err(no_properties(dump, &record)),
                    },
                    (StoreKind::Flat, false) => {
                        let identity = record_identity(kind, &self.map, &record);
                        source = source_of(&record);
                        (into_line(record), identity, false)
                    }
                };
                let mut line = self.merge_line(identity, text, offset);
                line.source = source;
                Ok(MergeEntry::Line {
                    table: RECORDS,
                    line,
                    as_node,
                })
            }
        }
    }
}

/// How the import reads the store and the dump: each line's text kept and checked whole, only
/// the places of the keys engrama's checks and identities read noted; the rest is built (from
/// the text) only where it is needed: for flat records, and lines that meet one in the store.
pub fn keep() -> KeySelection {
    engrama::line_keep()
}

/// Where a line kept as its own bytes lies in the file it was read from: known for the lines
/// the reader took apart in its blocks (they carry spans), whose text is the line's bytes at
/// its offset (a `\r` before the line feed left out).
pub(super) fn source_of(record: &Record) -> Option<u64> {
    (record.spans.is_some() && has_own_line(record)).then_some(record.origin.offset)
}

/// Relation and vector lines have no place in a flat store; refusing keeps them from being lost.
pub(super) fn no_place(dump: &str, line: &Record, what: &str) -> VercyError {
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

pub(super) fn no_properties(dump: &str, node: &Record) -> VercyError {
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
