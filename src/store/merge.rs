//! Merging what a dump holds into a JSONL store, the heart of `vercy import`.
//!
//! A store is one of two kinds, and keeps its kind:
//! - **flat**: one record per line; identity is the record_id through the field map (a record
//!   without one — absent, null, blank, `[]`, `{}`: missing as `check` judges it — is
//!   identified by its whole content, so re-importing it changes nothing);
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
//! A line already in the store takes the incoming version ([`Rule`]): a flat record is
//! replaced whole; a node's properties are merged key by key, as engrama merges them, less the
//! disclosure grants the incoming node does not carry (an import never widens who may read a
//! record); when that changes nothing the line keeps its bytes, and when
//! the result is exactly the incoming line, the incoming bytes are kept. Timestamps are values
//! like any other: copied as they are, never parsed, never stamped. Relation lines never touch
//! a node (engrama 0.18.1's importer re-stamps last_activity_at on both ends of every edge; this
//! merge does not).
//!
//! Speed and memory: the per-line work (checking a line, its identity, its text as the store
//! will hold it) is done by [`Plan`] on the reader's decoding threads, on every core; the
//! merge itself ([`Store`]) runs in order on one thread and remembers only what it must: for
//! every line, where its text lies (in the store file as it was, or in a spool file beside
//! it), and for every identity a 64-bit hash of it. No line's text is held in memory: a line
//! is read back (one positioned read) only when an incoming line has its identity. Lines are
//! appended to the spool as they come; a line that replaces one already there is appended
//! too, and the line's place points at it. The spool is a temporary file in the store's
//! folder: when it already holds the whole new store in order (a new store from a dump
//! without repeats, the common case) it is renamed over the target as it is; otherwise the
//! store is written once more from the places, in order. Either way nothing replaces the
//! store before the whole dump has been read and merged, so a bad line anywhere refuses the
//! import with the store untouched (and the temporary files removed).

use super::engrama::{self, embedding_dimensions, is_flat_envelope, LineKind, LineView};
use super::jsonl::{
    has_own_line, identity_fields, into_line, python_text, same_fields, whole_fields,
};
use super::{Aside, Entry, Input, Shape};
use crate::error::{Position, Result, VercyError};
use crate::mapping::FieldMap;
use crate::record::{is_filled, Record};
use crate::store::Keep;
use crate::write::AtomicFile;
use hashbrown::DefaultHashBuilder;
use serde_json::{Map, Value};
use std::collections::hash_map::Entry as Slot;
use std::collections::HashMap;
use std::fs::File;
use std::hash::BuildHasher;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Added,
    Updated,
    Unchanged,
}

/// How an incoming line changes the line already there with its identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Flat records: the incoming version replaces the stored one whole (a field it does not
    /// carry is gone: a record re-imported without its release_to is released to nobody).
    Replace,
    /// engrama node lines: the top-level keys set over the stored ones, the properties key by
    /// key as engrama merges them, less the disclosure grants the incoming node does not carry
    /// (see [`overlay`]).
    Properties,
    /// Relation and vector lines: the incoming keys set over the stored ones.
    Overlay,
}

/// The store's tables, in the order a graph store writes them (after its envelope).
const RECORDS: usize = 0;
const RELATIONS: usize = 1;
const VECTORS: usize = 2;

/// Where one line's text lies: in the store file as it was, or in the spool; without its
/// line feed (which follows it in the spool, and in the store file unless the line ended
/// with `\r\n` or the file without a line feed).
#[derive(Debug, Clone, Copy)]
struct Loc {
    pos: u64,
    len: u32,
    in_store: bool,
}

/// One line made ready for the merge on a decoding thread.
pub struct Ready {
    /// Empty for the envelope.
    identity: String,
    /// A hash of `identity`: what the merge's index keeps.
    key: u64,
    /// The line as the store holds it (empty when `stored` says where it already is).
    text: String,
    /// A line of the store file that is kept as its own bytes: where they are.
    stored: Option<Loc>,
    /// A dump line kept as its own bytes, read from a file: where they are in it (the merge
    /// has the kernel copy them, a run of lines at a time, rather than writing the text).
    source: Option<u64>,
    /// Where the line starts in its file (for a progress bar).
    offset: u64,
}

/// A line of the store or of a dump, ready for [`Store::load`] or [`Store::merge`].
pub enum Prepared {
    Envelope {
        line: Ready,
        fields: Map<String, Value>,
    },
    Line {
        table: usize,
        line: Ready,
        /// A flat record that goes into a graph store as a node line.
        as_node: bool,
    },
}

impl Prepared {
    /// Byte offset of the line in the file it was read from.
    pub fn offset(&self) -> u64 {
        match self {
            Prepared::Envelope { line, .. } | Prepared::Line { line, .. } => line.offset,
        }
    }
}

/// The per-line work of an import, shared by the decoding threads: the store's kind (from the
/// store's first entry, or the dump's when the store is new) and whether the dump is an
/// engrama dump (from its first entry) are settled by the first entry each file gives, which
/// the reader works on before any other.
pub struct Plan {
    map: FieldMap,
    dump: String,
    kind: OnceLock<Kind>,
    from_engrama: OnceLock<bool>,
    hasher: DefaultHashBuilder,
    /// Tests: every identity gets the same hash, so identities that share one are merged apart.
    #[cfg(test)]
    one_hash: bool,
}

impl Plan {
    /// `dump` names the dump in messages.
    pub fn new(map: FieldMap, dump: &str) -> Plan {
        Plan {
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
    pub fn kind(&self) -> Option<Kind> {
        self.kind.get().copied()
    }

    fn ready(&self, identity: String, text: String, offset: u64) -> Ready {
        #[cfg(test)]
        if self.one_hash {
            return Ready {
                identity,
                key: 0,
                text,
                stored: None,
                source: None,
                offset,
            };
        }
        Ready {
            key: self.hasher.hash_one(identity.as_str()),
            identity,
            text,
            stored: None,
            source: None,
            offset,
        }
    }

    /// A line of the store file as it is (read in file order).
    pub fn stored(&self, entry: Entry) -> Prepared {
        let kind = *self.kind.get_or_init(|| Kind::of_store(&entry));
        let (aside, record) = match entry {
            Entry::Aside(aside, record) => (Some(aside), record),
            Entry::Record(record) => (None, record),
        };
        let identity = match aside {
            Some(Aside::EngramaHeader) => String::new(),
            Some(Aside::Relation) => engrama::relation_identity(&LineView::of(&record)),
            Some(Aside::Vector) => engrama::vector_identity(&LineView::of(&record)),
            None => record_identity(kind, &self.map, &record),
        };
        // a line is at most 256 MiB (the reader's limit), so its length fits
        let stored = has_own_line(&record).then_some(Loc {
            pos: record.origin.offset,
            len: record.raw.len() as u32,
            in_store: true,
        });
        let envelope =
            matches!(aside, Some(Aside::EngramaHeader)).then(|| whole_fields(&record).into_owned());
        let offset = record.origin.offset;
        let text = if stored.is_some() {
            String::new()
        } else {
            into_line(record)
        };
        let mut line = self.ready(identity, text, offset);
        line.stored = stored;
        match aside {
            Some(Aside::EngramaHeader) => Prepared::Envelope {
                line,
                fields: envelope.unwrap_or_default(),
            },
            Some(Aside::Relation) => Prepared::Line {
                table: RELATIONS,
                line,
                as_node: false,
            },
            Some(Aside::Vector) => Prepared::Line {
                table: VECTORS,
                line,
                as_node: false,
            },
            None => Prepared::Line {
                table: RECORDS,
                line,
                as_node: false,
            },
        }
    }

    /// A line of the dump: checked, its identity and its text as the store will hold it.
    pub fn incoming(&self, entry: Entry) -> Result<Prepared> {
        let from_engrama = *self
            .from_engrama
            .get_or_init(|| matches!(entry, Entry::Aside(Aside::EngramaHeader, _)));
        let kind = *self.kind.get_or_init(|| Kind::for_new_store(&entry));
        let dump = self.dump.as_str();
        match entry {
            Entry::Aside(Aside::EngramaHeader, header) => {
                let offset = header.origin.offset;
                let fields = whole_fields(&header).into_owned();
                Ok(Prepared::Envelope {
                    line: self.ready(String::new(), into_line(header), offset),
                    fields,
                })
            }
            Entry::Aside(aside, line) => {
                if kind == Kind::Flat {
                    return Err(no_place(dump, &line, "relation and vector lines"));
                }
                let view = LineView::of(&line);
                if let Some(line_kind) = LineKind::of_aside(aside) {
                    engrama::check_line(line_kind, &view, dump, &line)?;
                }
                let (table, identity) = match aside {
                    Aside::Relation => (RELATIONS, engrama::relation_identity(&view)),
                    _ => (VECTORS, engrama::vector_identity(&view)),
                };
                let (offset, source) = (line.origin.offset, source_of(&line));
                let mut line = self.ready(identity, into_line(line), offset);
                line.source = source;
                Ok(Prepared::Line {
                    table,
                    line,
                    as_node: false,
                })
            }
            Entry::Record(record) => {
                let offset = record.origin.offset;
                let mut source = None;
                let (text, identity, as_node) = match (kind, from_engrama) {
                    (Kind::Graph, true) => {
                        let view = LineView::of(&record);
                        engrama::check_line(LineKind::Node, &view, dump, &record)?;
                        let identity = engrama::node_identity(&view);
                        source = source_of(&record);
                        (into_line(record), identity, false)
                    }
                    (Kind::Graph, false) => {
                        // as `export --to engrama` makes it, under the default label
                        let mut record = record;
                        record.fields = whole_fields(&record).into_owned();
                        let text =
                            engrama::node_line(&record, engrama::DEFAULT_LABEL, &self.map, dump)?;
                        let fields = parse(&text);
                        let identity = engrama::node_identity(&LineView::of_fields(&fields));
                        (text, identity, true)
                    }
                    (Kind::Flat, true) => match engrama::node_properties(&record) {
                        Some((text, fields)) => {
                            (text, fields_identity(kind, &self.map, &fields), false)
                        }
                        None => return Err(no_properties(dump, &record)),
                    },
                    (Kind::Flat, false) => {
                        let identity = record_identity(kind, &self.map, &record);
                        source = source_of(&record);
                        (into_line(record), identity, false)
                    }
                };
                let mut line = self.ready(identity, text, offset);
                line.source = source;
                Ok(Prepared::Line {
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
pub fn keep() -> Keep {
    engrama::line_keep()
}

/// Where a line kept as its own bytes lies in the file it was read from: known for the lines
/// the reader took apart in its blocks (they carry spans), whose text is the line's bytes at
/// its offset (a `\r` before the line feed left out).
fn source_of(record: &Record) -> Option<u64> {
    (record.spans.is_some() && has_own_line(record)).then_some(record.origin.offset)
}

fn record_identity(kind: Kind, map: &FieldMap, record: &Record) -> String {
    match kind {
        Kind::Graph => engrama::node_identity(&LineView::of(record)),
        Kind::Flat => fields_identity(kind, map, &identity_fields(map, record)),
    }
}

fn fields_identity(kind: Kind, map: &FieldMap, fields: &Map<String, Value>) -> String {
    match kind {
        Kind::Graph => engrama::node_identity(&LineView::of_fields(fields)),
        // a record_id that `check` judges missing (absent, null, blank, `[]`, `{}`) is no
        // identity: such records are told apart by their whole content, as the profile's
        // present-and-not-empty rule reads them, rather than merged into one by that value
        Kind::Flat => match map.get("record_id", fields) {
            Some(id) if is_filled(&id) => format!("id:{}", python_text(&*id)),
            _ => format!("text:{}", python_text(fields)),
        },
    }
}

/// The keys of an engrama node's properties (or of its line) that name who may read it:
/// `release_to` and, when the map reads release_to elsewhere in the properties, that key. The restriction
/// markers (classification, confidential, restricted) are not among them: they only ever
/// narrow who may read a record (under the contract's `unrestricted: public` reading, a marker
/// is what withholds a record without release_to), so one that the incoming node does not
/// carry is kept, and only an incoming value (null, say) lifts it.
fn grant_keys(map: &FieldMap) -> Vec<String> {
    let mut keys = vec!["release_to".to_string()];
    let mapped = map.path("release_to");
    if let Some(key) = mapped.text.strip_prefix("properties.") {
        if !key.contains(['.', '[', '~']) && !keys.iter().any(|k| k == key) {
            keys.push(key.to_string());
        }
    }
    keys
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
struct Table {
    places: Vec<Loc>,
    index: HashMap<u64, usize, DefaultHashBuilder>,
    shared: HashMap<String, usize>,
}

/// The spool: lines appended as they come, in a temporary file in the store's folder.
struct Spool {
    file: AtomicFile,
    len: u64,
}

impl Spool {
    /// The place of the next line of `len` bytes (and its `\n`), counted as written.
    fn place(&mut self, len: u32) -> Loc {
        let at = Loc {
            pos: self.len,
            len,
            in_store: false,
        };
        self.len += u64::from(len) + 1;
        at
    }
}

/// A JSONL store being merged into.
pub struct Store {
    kind: Kind,
    map: FieldMap,
    /// The keys of a node's properties that grant disclosure ([`grant_keys`]).
    grants: Vec<String>,
    target: PathBuf,
    /// The store file as it was: where the lines kept as they are get read back from.
    file: Option<File>,
    /// The part of the store file read last: a dump that repeats the store's lines meets
    /// them in about the store's order, so one read serves the lines that follow.
    window: Window,
    spool: Option<Spool>,
    /// The dump file, when the dump is one: lines kept as their own bytes are copied from it.
    dump: Option<File>,
    /// Dump lines counted into the spool but not copied yet: a run of the dump file.
    run: Option<(u64, u64)>,
    /// Graph stores: the envelope line (first line) and its fields.
    envelope: Option<(Loc, Map<String, Value>)>,
    tables: [Table; 3],
    /// Store lines whose identity's hash an earlier line holds: sorted out by [`Store::settle`]
    /// once the store is known to be one that import merges into.
    pending: Vec<(usize, u64, usize, String)>,
    changed: bool,
}

impl Store {
    /// An empty store of `kind` to be written to `target`; `file` is the store file as it is,
    /// when its lines are loaded.
    pub fn new(kind: Kind, map: FieldMap, target: &Path, file: Option<File>) -> Store {
        Store {
            kind,
            grants: grant_keys(&map),
            map,
            target: target.to_path_buf(),
            file,
            spool: None,
            dump: None,
            run: None,
            window: Window::default(),
            envelope: None,
            tables: Default::default(),
            pending: Vec::new(),
            changed: false,
        }
    }

    /// Read the store file `input` (which `path` names) into a store. `None` when it holds no
    /// entries. The shape is returned for the caller to refuse the ones import cannot merge
    /// into; then [`Store::settle`].
    pub fn load_file(input: &Input, path: &Path, plan: &Plan) -> Result<(Option<Store>, Shape)> {
        let file = File::open(path).map_err(|e| input.read_error(&e))?;
        let mut file = Some(file);
        let mut store: Option<Store> = None;
        let shape = super::read_parallel(input, &keep(), &|e| Ok(plan.stored(e)), &mut |p| {
            store
                .get_or_insert_with(|| {
                    let kind = plan.kind().unwrap_or(Kind::Flat);
                    Store::new(kind, plan.map.clone(), path, file.take())
                })
                .load(p)
        })?;
        Ok((store, shape))
    }

    /// Merge the dump `input` into `store` (a new store when `None`, taking its kind from the
    /// dump). `progress` gets the byte offset of each line merged.
    pub fn merge_file(
        store: &mut Option<Store>,
        input: &Input,
        target: &Path,
        plan: &Plan,
        counts: &mut Counts,
        progress: &mut (dyn FnMut(u64) + Send),
    ) -> Result<Shape> {
        // a dump that is a file: its lines are copied from it (a pipe is read once, by the reader)
        let mut dump = input
            .path
            .as_deref()
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()))
            .and_then(|p| File::open(p).ok());
        super::read_parallel(input, &keep(), &|e| plan.incoming(e), &mut |p| {
            progress(p.offset());
            let store = store.get_or_insert_with(|| {
                let kind = plan.kind().unwrap_or(Kind::Flat);
                Store::new(kind, plan.map.clone(), target, None)
            });
            if store.dump.is_none() {
                store.dump = dump.take();
            }
            store.merge(p, counts)
        })
    }

    /// Take in one line of the store file as it is (in file order).
    pub fn load(&mut self, p: Prepared) -> Result<()> {
        match p {
            Prepared::Envelope { line, fields } => {
                let at = self.place(&line)?;
                self.envelope = Some((at, fields));
            }
            Prepared::Line { table, line, .. } => {
                let at = self.place(&line)?;
                let t = &mut self.tables[table];
                let i = t.places.len();
                t.places.push(at);
                match t.index.entry(line.key) {
                    Slot::Vacant(slot) => {
                        slot.insert(i);
                    }
                    // the same identity again (the first line keeps it), or another one
                    Slot::Occupied(_) => self.pending.push((table, line.key, i, line.identity)),
                }
            }
        }
        Ok(())
    }

    /// After the store file is loaded: index by their full identity the lines whose hash
    /// belongs to another identity.
    pub fn settle(&mut self) -> Result<()> {
        for (table, key, i, identity) in std::mem::take(&mut self.pending) {
            let first = self.tables[table].index[&key];
            if self.identity_at(table, first)? != identity {
                self.tables[table].shared.entry(identity).or_insert(i);
            }
        }
        Ok(())
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// True when the merge changed anything (otherwise the store file need not be rewritten).
    pub fn changed(&self) -> bool {
        self.changed
    }

    /// Merge one line of a dump. Nothing replaces the store file until [`Store::write`], so
    /// an error here leaves it as it was.
    pub fn merge(&mut self, p: Prepared, counts: &mut Counts) -> Result<()> {
        let (table, line, as_node) = match p {
            Prepared::Envelope { line, fields } => return self.merge_envelope(line, fields),
            Prepared::Line {
                table,
                line,
                as_node,
            } => (table, line, as_node),
        };
        if as_node {
            counts.as_nodes += 1;
        }
        let rule = match (self.kind, table) {
            (Kind::Flat, _) => Rule::Replace,
            (Kind::Graph, RECORDS) => Rule::Properties,
            (Kind::Graph, _) => Rule::Overlay,
        };
        let change = self.upsert(table, line, rule)?;
        if change != Change::Unchanged {
            self.changed = true;
        }
        let (total, new) = match table {
            RECORDS => {
                match change {
                    Change::Added => counts.added += 1,
                    Change::Updated => counts.updated += 1,
                    Change::Unchanged => counts.unchanged += 1,
                }
                return Ok(());
            }
            RELATIONS => (&mut counts.relations, &mut counts.relations_new),
            _ => (&mut counts.vectors, &mut counts.vectors_new),
        };
        *total += 1;
        if change == Change::Added {
            *new += 1;
        }
        Ok(())
    }

    /// Put `incoming` in: new identity → appended; known → the existing line takes the
    /// incoming version as `rule` says.
    fn upsert(&mut self, table: usize, incoming: Ready, rule: Rule) -> Result<Change> {
        let mut shared = false;
        if let Some(&first) = self.tables[table].index.get(&incoming.key) {
            let mut at = Some(first);
            let mut text = self.text_at(table, first)?;
            if text == incoming.text {
                return Ok(Change::Unchanged);
            }
            let mut existing: Map<String, Value> = parse(&text);
            if self.identity_of(table, &existing) != incoming.identity {
                // another identity has this hash: this one is indexed by its full text
                shared = true;
                at = self.tables[table].shared.get(&incoming.identity).copied();
                if let Some(i) = at {
                    text = self.text_at(table, i)?;
                    if text == incoming.text {
                        return Ok(Change::Unchanged);
                    }
                    existing = parse(&text);
                }
            }
            if let Some(i) = at {
                return self.update(table, i, &existing, incoming, rule);
            }
        }
        let at = match (incoming.source, self.dump.is_some()) {
            (Some(from), true) => self.append_copy(from, &incoming.text)?,
            _ => self.append(&incoming.text)?,
        };
        let t = &mut self.tables[table];
        let i = t.places.len();
        t.places.push(at);
        if shared {
            t.shared.insert(incoming.identity, i);
        } else {
            t.index.insert(incoming.key, i);
        }
        Ok(Change::Added)
    }

    /// Line `i` takes the incoming version, as `rule` says.
    fn update(
        &mut self,
        table: usize,
        i: usize,
        existing: &Map<String, Value>,
        incoming: Ready,
        rule: Rule,
    ) -> Result<Change> {
        let fields = parse(&incoming.text);
        let merged = match rule {
            Rule::Replace => fields.clone(),
            Rule::Overlay => overlay(existing, &fields, None),
            Rule::Properties => overlay(existing, &fields, Some(&self.grants)),
        };
        if same_fields(&merged, existing) {
            return Ok(Change::Unchanged);
        }
        let at = if same_fields(&merged, &fields) {
            self.append(&incoming.text)?
        } else {
            self.append(&python_text(&merged))?
        };
        self.tables[table].places[i] = at;
        Ok(Change::Updated)
    }

    fn identity_of(&self, table: usize, fields: &Map<String, Value>) -> String {
        match table {
            RECORDS => fields_identity(self.kind, &self.map, fields),
            RELATIONS => engrama::relation_identity(&LineView::of_fields(fields)),
            _ => engrama::vector_identity(&LineView::of_fields(fields)),
        }
    }

    fn identity_at(&mut self, table: usize, i: usize) -> Result<String> {
        let text = self.text_at(table, i)?;
        Ok(self.identity_of(table, &parse(&text)))
    }

    /// The store's envelope follows the newest dump, except that a dump without embeddings
    /// does not take away the dimensions of vectors the store keeps.
    fn merge_envelope(&mut self, line: Ready, fields: Map<String, Value>) -> Result<()> {
        if self.kind != Kind::Graph {
            return Ok(());
        }
        match &self.envelope {
            Some((_, old)) if same_fields(old, &fields) => {}
            Some((_, old))
                if embedding_dimensions(&fields) == 0
                    && embedding_dimensions(old) != 0
                    && !self.tables[VECTORS].places.is_empty() => {}
            _ => {
                let at = self.place(&line)?;
                self.envelope = Some((at, fields));
                self.changed = true;
            }
        }
        Ok(())
    }

    /// Where a line is: its own bytes in the store file, or appended to the spool.
    fn place(&mut self, line: &Ready) -> Result<Loc> {
        match line.stored {
            Some(at) => Ok(at),
            None => self.append(&line.text),
        }
    }

    /// Append a line of the dump to the spool by where it lies in the dump file: lines that
    /// follow one another there are copied together, by the kernel, when the run ends.
    fn append_copy(&mut self, from: u64, text: &str) -> Result<Loc> {
        let len = u32::try_from(text.len()).map_err(|_| too_long(&self.target))?;
        let end = from + u64::from(len);
        match &mut self.run {
            // the one byte between two lines of the dump is the first one's line feed
            Some((_, run_end)) if *run_end + 1 == from => *run_end = end,
            _ => {
                self.flush_run()?;
                self.run = Some((from, end));
            }
        }
        let spool = self.spool_or_new()?;
        Ok(spool.place(len))
    }

    /// Copy the pending run of dump lines to the spool (its place there was counted already).
    fn flush_run(&mut self) -> Result<()> {
        let Some((start, end)) = self.run.take() else {
            return Ok(());
        };
        let target = self.target.clone();
        let failed = |e: io::Error| write_error(&target, &e);
        let (Some(mut dump), Some(spool)) = (self.dump.as_ref(), self.spool.as_mut()) else {
            return Err(failed(io::ErrorKind::NotFound.into()));
        };
        let w = spool.file.writer();
        dump.seek(SeekFrom::Start(start)).map_err(failed)?;
        let copied = io::copy(&mut dump.take(end - start), w).map_err(failed)?;
        if copied != end - start {
            // the dump changed under the import
            return Err(failed(io::ErrorKind::UnexpectedEof.into()));
        }
        w.write_all(b"\n").map_err(failed)
    }

    fn spool_or_new(&mut self) -> Result<&mut Spool> {
        let spool = match self.spool.take() {
            Some(spool) => spool,
            None => Spool {
                file: AtomicFile::create(&self.target)?,
                len: 0,
            },
        };
        Ok(self.spool.insert(spool))
    }

    /// Append a line to the spool (made on the first line).
    fn append(&mut self, text: &str) -> Result<Loc> {
        self.flush_run()?;
        let spool = match &mut self.spool {
            Some(spool) => spool,
            None => self.spool.insert(Spool {
                file: AtomicFile::create(&self.target)?,
                len: 0,
            }),
        };
        let len = u32::try_from(text.len()).map_err(|_| too_long(&self.target))?;
        let w = spool.file.writer();
        w.write_all(text.as_bytes())
            .and_then(|()| w.write_all(b"\n"))
            .map_err(|e| write_error(&self.target, &e))?;
        Ok(spool.place(len))
    }

    /// The text of line `i` of a table.
    fn text_at(&mut self, table: usize, i: usize) -> Result<String> {
        let at = self.tables[table].places[i];
        self.read(at)
    }

    fn read(&mut self, at: Loc) -> Result<String> {
        if !at.in_store {
            self.flush_run()?;
        }
        self.read_flushed(at)
            .map_err(|e| write_error(&self.target, &e))
    }

    fn read_flushed(&mut self, at: Loc) -> io::Result<String> {
        let mut buf = vec![0u8; at.len as usize];
        if at.in_store {
            let file = self.file.as_ref().ok_or(io::ErrorKind::NotFound)?;
            self.window.read(file, at.pos, &mut buf)?;
        } else {
            let spool = self.spool.as_mut().ok_or(io::ErrorKind::NotFound)?;
            let w = spool.file.writer();
            // the spool's last lines may still be in its buffer
            let flushed = spool.len - w.buffer().len() as u64;
            if at.pos >= flushed {
                let from = (at.pos - flushed) as usize;
                let len = buf.len();
                buf.copy_from_slice(&w.buffer()[from..from + len]);
            } else {
                if at.pos + u64::from(at.len) > flushed {
                    w.flush()?;
                }
                read_at(w.get_ref(), at.pos, &mut buf)?;
            }
        }
        String::from_utf8(buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }

    /// Write the store over its file, atomically: graph stores as engrama orders a dump
    /// (envelope, nodes, relations, vectors), flat stores one record per line.
    pub fn write(mut self) -> Result<()> {
        self.flush_run()?;
        let envelope = match (self.kind, &self.envelope) {
            (Kind::Graph, Some((at, _))) => Some(*at),
            _ => None,
        };
        let places = || {
            envelope
                .into_iter()
                .chain(self.tables.iter().flat_map(|t| t.places.iter().copied()))
        };
        // The spool is the new store when it holds every line once, in order, and nothing else
        let mut next = 0;
        let in_order = places().all(|at| {
            let ok = !at.in_store && at.pos == next;
            next = at.pos + u64::from(at.len) + 1;
            ok
        });
        if in_order && next == self.spool.as_ref().map_or(0, |s| s.len) {
            return match self.spool.take() {
                Some(spool) => spool.file.commit(),
                None => AtomicFile::create(&self.target)?.commit(),
            };
        }
        let mut out = AtomicFile::create(&self.target)?;
        let target = self.target.clone();
        let failed = |e: io::Error| write_error(&target, &e);
        let spool = match &mut self.spool {
            Some(spool) => {
                let w = spool.file.writer();
                w.flush().map_err(failed)?;
                Some(Reader::new(w.get_ref()).map_err(failed)?)
            }
            None => None,
        };
        let store = match &self.file {
            Some(file) => Some(Reader::new(file).map_err(failed)?),
            None => None,
        };
        let mut sources = [spool, store];
        let w = out.writer();
        // consecutive lines of one file go in one copy
        let mut run: Option<(bool, u64, u64)> = None;
        let mut copy = |run: (bool, u64, u64)| -> io::Result<()> {
            let (in_store, start, end) = run;
            let source = sources[usize::from(in_store)]
                .as_mut()
                .ok_or(io::ErrorKind::NotFound)?;
            source.copy(start, end, w)?;
            w.write_all(b"\n")
        };
        for at in places() {
            let end = at.pos + u64::from(at.len);
            match &mut run {
                Some((in_store, _, run_end))
                    if *in_store == at.in_store && *run_end + 1 == at.pos =>
                {
                    *run_end = end;
                }
                _ => {
                    if let Some(done) = run.replace((at.in_store, at.pos, end)) {
                        copy(done).map_err(failed)?;
                    }
                }
            }
        }
        if let Some(done) = run {
            copy(done).map_err(failed)?;
        }
        out.commit()
    }
}

/// Runs of at least this many bytes are copied by the kernel.
const KERNEL_COPY: u64 = 4 << 20;

/// A file read in order, with the odd step back (a line replaced later in the spool).
struct Reader<'a> {
    inner: BufReader<&'a File>,
    pos: u64,
}

impl<'a> Reader<'a> {
    fn new(file: &'a File) -> io::Result<Reader<'a>> {
        let mut inner = BufReader::with_capacity(1 << 20, file);
        inner.seek(SeekFrom::Start(0))?;
        Ok(Reader { inner, pos: 0 })
    }

    /// Copy bytes `start..end` to `out`.
    fn copy(&mut self, start: u64, end: u64, out: &mut BufWriter<File>) -> io::Result<()> {
        if end - start >= KERNEL_COPY {
            // a long run of lines goes from file to file in the kernel (copy_file_range where
            // there is one), without passing through this process
            let mut file = *self.inner.get_ref();
            file.seek(SeekFrom::Start(start))?;
            let copied = io::copy(&mut file.take(end - start), out)?;
            if copied != end - start {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            self.inner.seek(SeekFrom::Start(end))?;
            self.pos = end;
            return Ok(());
        }
        if start != self.pos {
            self.inner.seek_relative(start as i64 - self.pos as i64)?;
            self.pos = start;
        }
        while self.pos < end {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let n = buf.len().min((end - self.pos) as usize);
            out.write_all(&buf[..n])?;
            self.inner.consume(n);
            self.pos += n as u64;
        }
        Ok(())
    }
}

/// Bytes of a file around the last place read.
#[derive(Default)]
struct Window {
    pos: u64,
    bytes: Vec<u8>,
}

/// Bytes a window holds: a few dozen lines, so that reading it costs little more than
/// reading one line when the next line wanted is elsewhere.
const WINDOW: usize = 32 << 10;

impl Window {
    /// Fill `buf` from `pos`: from the window when it holds those bytes, else from the file
    /// (a window from `pos` on, when `buf` fits in one).
    fn read(&mut self, file: &File, pos: u64, buf: &mut [u8]) -> io::Result<()> {
        let held = pos
            .checked_sub(self.pos)
            .and_then(|from| usize::try_from(from).ok())
            .and_then(|from| self.bytes.get(from..from.checked_add(buf.len())?));
        if let Some(held) = held {
            buf.copy_from_slice(held);
            return Ok(());
        }
        if buf.len() > WINDOW {
            return read_at(file, pos, buf);
        }
        self.bytes.resize(WINDOW, 0);
        let mut filled = 0;
        while filled < buf.len() {
            match read_some_at(file, pos + filled as u64, &mut self.bytes[filled..]) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.bytes.clear();
                    return Err(e);
                }
            }
        }
        self.bytes.truncate(filled);
        self.pos = pos;
        buf.copy_from_slice(&self.bytes[..buf.len()]);
        Ok(())
    }
}

#[cfg(unix)]
fn read_some_at(file: &File, pos: u64, buf: &mut [u8]) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, pos)
}

#[cfg(windows)]
fn read_some_at(file: &File, pos: u64, buf: &mut [u8]) -> io::Result<usize> {
    let mut f = file;
    let back = f.stream_position()?;
    let n = std::os::windows::fs::FileExt::seek_read(file, buf, pos)?;
    f.seek(SeekFrom::Start(back))?;
    Ok(n)
}

#[cfg(unix)]
fn read_at(file: &File, pos: u64, buf: &mut [u8]) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, pos)
}

#[cfg(windows)]
fn read_at(file: &File, pos: u64, buf: &mut [u8]) -> io::Result<()> {
    // seek_read moves the file's cursor: put it back for the writer that shares it
    let mut f = file;
    let back = f.stream_position()?;
    let mut done = 0;
    while done < buf.len() {
        match std::os::windows::fs::FileExt::seek_read(file, &mut buf[done..], pos + done as u64)? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => done += n,
        }
    }
    f.seek(SeekFrom::Start(back))?;
    Ok(())
}

/// The store's lines are JSON objects (they were read as such, or written by us).
fn parse(text: &str) -> Map<String, Value> {
    serde_json::from_str(text).unwrap_or_default()
}

fn write_error(target: &Path, e: &io::Error) -> VercyError {
    VercyError::Write {
        path: target.display().to_string(),
        reason: super::input_reason(e),
    }
}

fn too_long(target: &Path) -> VercyError {
    write_error(
        target,
        &io::Error::new(
            io::ErrorKind::InvalidData,
            "a merged line longer than 4 GiB",
        ),
    )
}

/// `existing` with every incoming field set over it (keys keep their place; new keys go last).
/// With `grants` (engrama nodes), `properties` is merged key by key, as engrama merges a
/// node's properties, except the keys that grant disclosure (`grants`): one the incoming
/// properties do not carry is removed, not kept, so the incoming version's value is never
/// released to the parties an older version named.
fn overlay(
    existing: &Map<String, Value>,
    incoming: &Map<String, Value>,
    grants: Option<&[String]>,
) -> Map<String, Value> {
    let mut out = existing.clone();
    if let Some(grants) = grants {
        // a grant beside the properties (read there with --map release_to=release_to) too
        out.retain(|k, _| incoming.contains_key(k) || !grants.contains(k));
    }
    for (k, v) in incoming {
        if let (Some(grants), "properties") = (grants, k.as_str()) {
            if let (Some(Value::Object(old)), Value::Object(new)) = (out.get_mut(k), v) {
                old.retain(|pk, _| new.contains_key(pk) || !grants.contains(pk));
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

    /// Import `dump` into a store holding `store` (a new one when `None`): the store's text
    /// afterwards, the counts, and whether anything changed.
    fn import_with(plan: Plan, store: Option<&str>, dump: &str) -> (String, Counts, bool) {
        let mut plan_again = Plan::new(plan.map.clone(), "d");
        plan_again.one_hash = plan.one_hash;
        let from_file = import_from(plan, store, dump, false);
        let from_memory = import_from(plan_again, store, dump, true);
        assert_eq!(from_file, from_memory);
        from_file
    }

    fn import_from(
        plan: Plan,
        store: Option<&str>,
        dump: &str,
        in_memory: bool,
    ) -> (String, Counts, bool) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.jsonl");
        let mut merged = None;
        if let Some(text) = store {
            std::fs::write(&path, text).unwrap();
            let input = Input::new(path.to_str().unwrap());
            merged = Store::load_file(&input, &path, &plan).unwrap().0;
            merged.as_mut().unwrap().settle().unwrap();
        }
        let mut counts = Counts::default();
        // from a file (its lines are copied from it) and from memory (they are written)
        let from = tempfile::tempdir().unwrap();
        let dump_path = from.path().join("dump");
        std::fs::write(&dump_path, dump).unwrap();
        let input = match in_memory {
            true => Input::from_bytes("d", dump.as_bytes().to_vec()),
            false => Input::new(dump_path.to_str().unwrap()),
        };
        Store::merge_file(&mut merged, &input, &path, &plan, &mut counts, &mut |_| {}).unwrap();
        let merged = merged.unwrap();
        let changed = merged.changed();
        merged.write().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        // nothing is left beside the store
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        (text, counts, changed)
    }

    fn import(store: Option<&str>, dump: &str) -> (String, Counts, bool) {
        import_with(Plan::new(FieldMap::identity(), "d"), store, dump)
    }

    const ENV4: &str = r#"{"engrama_export": 1, "exported_at": "a", "embedding_dimensions": 4}"#;
    const ENV0: &str = r#"{"engrama_export": 1, "exported_at": "b", "embedding_dimensions": 0}"#;
    const VEC: &str =
        r#"{"type": "vector", "label": "C", "key_field": "name", "key_value": "x", "vector": [1]}"#;

    #[test]
    fn a_dump_without_embeddings_keeps_the_dimensions_of_kept_vectors() {
        let store = format!("{ENV4}\n{VEC}\n");
        let (text, _, changed) = import(Some(&store), &format!("{ENV0}\n"));
        assert!(!changed);
        assert_eq!(text, store);
        // without vectors to keep, the envelope follows the newer dump
        let (text, _, changed) = import(Some(&format!("{ENV4}\n")), &format!("{ENV0}\n"));
        assert!(changed);
        assert_eq!(text, format!("{ENV0}\n"));
    }

    #[test]
    fn records_without_an_id_are_the_same_record_when_their_content_is() {
        let (text, counts, _) = import(
            Some("{\"note\":\"a\",\"valid_from\":\"2025-01-01\"}\n"),
            "{\"note\": \"a\", \"valid_from\": \"2025-01-01\"}\n{\"note\": \"b\"}\n{\"note\": \"b\"}\n",
        );
        assert_eq!((counts.added, counts.updated, counts.unchanged), (1, 0, 2));
        assert_eq!(
            text,
            "{\"note\":\"a\",\"valid_from\":\"2025-01-01\"}\n{\"note\": \"b\"}\n"
        );
    }

    #[test]
    fn an_incoming_flat_record_replaces_the_stored_one_whole() {
        let (text, counts, _) = import(
            Some("{\"record_id\":\"a\",\"x\":1,\"valid_to\":null,\"release_to\":[\"hr\"]}\n"),
            "{\"valid_to\": \"2026-03-31T00:00:00.000000001-08:00\", \"record_id\": \"a\", \"y\": 2}\n",
        );
        assert_eq!(counts.updated, 1);
        assert_eq!(
            text,
            "{\"valid_to\": \"2026-03-31T00:00:00.000000001-08:00\", \"record_id\": \"a\", \"y\": 2}\n"
        );
    }

    #[test]
    fn records_whose_id_check_judges_missing_are_told_apart_by_content() {
        let dump = [
            r#"{"record_id": "", "n": 1}"#,
            r#"{"record_id": "", "n": 2}"#,
            r#"{"record_id": " \u3000", "n": 3}"#,
            r#"{"record_id": " \u3000", "n": 4}"#,
            r#"{"record_id": [], "n": 5}"#,
            r#"{"record_id": {}, "n": 6}"#,
            r#"{"record_id": {}, "n": 6}"#,
            r#"{"record_id": "x", "n": 7}"#,
            r#"{"record_id": "x", "n": 8}"#,
        ]
        .join("\n");
        let (text, counts, _) = import(None, &dump);
        assert_eq!((counts.added, counts.updated, counts.unchanged), (7, 1, 1));
        assert_eq!(text.lines().count(), 7, "{text}");
        assert!(text.contains(r#""n": 8"#) && !text.contains(r#""n": 7"#));
    }

    #[test]
    fn a_node_loses_the_release_to_its_incoming_version_does_not_carry() {
        let node = |props: &str| {
            format!(
                r#"{{"type": "node", "label": "C", "key_field": "name", "key_value": "a", "properties": {props}}}"#
            )
        };
        let store = format!(
            "{ENV4}\n{}\n",
            node(
                r#"{"name": "a", "v": 1, "release_to": ["finance"], "classification": "secret", "seen": 1}"#
            )
        );
        let (text, counts, _) = import(
            Some(&store),
            &format!("{ENV4}\n{}\n", node(r#"{"name": "a", "v": 2}"#)),
        );
        assert_eq!(counts.updated, 1);
        // the grant is gone, the restriction marker and the other properties stay
        assert!(
            text.contains(
                r#""properties": {"name": "a", "v": 2, "classification": "secret", "seen": 1}"#
            ),
            "{text}"
        );
        // a grant the incoming node carries is taken; a marker it sets to null is lifted
        let (text, _, _) = import(
            Some(&store),
            &format!(
                "{ENV4}\n{}\n",
                node(r#"{"name": "a", "release_to": ["hr"], "classification": null}"#)
            ),
        );
        assert!(
            text.contains(r#""properties": {"name": "a", "v": 1, "release_to": ["hr"], "classification": null, "seen": 1}"#),
            "{text}"
        );
        // a map that reads release_to from another property withdraws that one too
        let plan = Plan::new(
            FieldMap::parse(&["release_to=properties.readers".to_string()]).unwrap(),
            "d",
        );
        let store = format!(
            "{ENV4}\n{}\n",
            node(r#"{"name": "a", "readers": ["hr"]}"#)
                .replace("}}", r#"}, "release_to": ["hr"]}"#)
        );
        let (text, _, _) = import_with(
            plan,
            Some(&store),
            &format!("{ENV4}\n{}\n", node(r#"{"name": "a", "v": 3}"#)),
        );
        assert!(
            text.contains(r#""properties": {"name": "a", "v": 3}}"#),
            "{text}"
        );
        assert!(!text.contains("release_to"), "{text}");
    }

    /// A store with a byte-order mark, CRLF line ends, blank lines, no final line feed, and
    /// lines that are not kept as their own bytes, merged with updates, repeats and new lines.
    const STORE: &str = "\u{feff}{\"record_id\":\"a\",\"v\":1}\r\n\n{\"record_id\":\"b\",\"v\":2}\n  {\"record_id\":\"c\",\r\"v\":3}\n{\"record_id\":\"a\",\"v\":9}\n{\"record_id\":\"d\",\"v\":4}";
    const DUMP: &str = "{\"record_id\":\"e\",\"v\":5}\n{\"record_id\":\"b\",\"v\":2}\n{\"record_id\":\"d\",\"w\":0}\n{\"record_id\":\"e\",\"v\":6}\n{\"record_id\":\"a\",\"v\":1}\n{\"record_id\":\"c\",\"v\":7}\n{\"record_id\":\"f\"}\n";
    const MERGED: &str = "{\"record_id\":\"a\",\"v\":1}\n{\"record_id\":\"b\",\"v\":2}\n{\"record_id\":\"c\",\"v\":7}\n{\"record_id\":\"a\",\"v\":9}\n{\"record_id\":\"d\",\"w\":0}\n{\"record_id\":\"e\",\"v\":6}\n{\"record_id\":\"f\"}\n";

    #[test]
    fn lines_are_read_back_from_where_they_are() {
        let (text, counts, changed) = import(Some(STORE), DUMP);
        assert!(changed);
        assert_eq!(text, MERGED);
        assert_eq!((counts.added, counts.updated, counts.unchanged), (2, 3, 2));
    }

    #[test]
    fn identities_that_share_a_hash_stay_apart() {
        let mut plan = Plan::new(FieldMap::identity(), "d");
        plan.one_hash = true;
        let (text, counts, _) = import_with(plan, Some(STORE), DUMP);
        assert_eq!(text, MERGED);
        assert_eq!((counts.added, counts.updated, counts.unchanged), (2, 3, 2));
    }

    #[test]
    fn graph_lines_that_share_a_hash_merge_as_when_they_do_not() {
        let node = |key: &str, props: &str| {
            format!(
                r#"{{"type": "node", "label": "C", "key_field": "name", "key_value": "{key}", "properties": {props}}}"#
            )
        };
        let rel = |to: &str| {
            format!(
                r#"{{"type": "relation", "from_label": "C", "from_key": "name", "from_value": "a", "rel_type": "R", "to_label": "C", "to_key": "name", "to_value": "{to}"}}"#
            )
        };
        let store = [
            ENV4.to_string(),
            node("a", r#"{"org_id": "o", "v": 1}"#),
            node("a", r#"{"org_id": "p", "v": 1}"#),
            node("b", r#"{"v": 1}"#),
            rel("b"),
            VEC.to_string(),
        ]
        .join("\n")
            + "\n";
        let dump = [
            ENV0.to_string(),
            node("b", r#"{"w": 2}"#),
            node("a", r#"{"org\u005fid": "p", "v": 2}"#),
            node("c", r#"{"v": 3}"#),
            node("a", r#"{"org_id": "o", "v": 1}"#),
            node("c", r#"{"v": 4}"#),
            rel("c"),
            rel("b"),
        ]
        .join("\n")
            + "\n";
        let apart = import(Some(&store), &dump);
        let mut plan = Plan::new(FieldMap::identity(), "d");
        plan.one_hash = true;
        let shared = import_with(plan, Some(&store), &dump);
        assert_eq!(shared.0, apart.0);
        assert_eq!(shared.1, apart.1);
        let c = apart.1;
        assert_eq!((c.added, c.updated, c.unchanged), (1, 3, 1));
        assert_eq!((c.relations, c.relations_new), (2, 1));
        assert!(
            apart.0.contains(r#""properties": {"v": 1, "w": 2}"#),
            "{}",
            apart.0
        );
    }

    #[test]
    fn a_new_store_from_a_dump_in_order_is_the_dump() {
        let dump = format!(
            "{ENV4}\n{}\n{}\n{VEC}\n",
            r#"{"type": "node", "label": "C", "key_field": "name", "key_value": "x", "properties": {"name": "x"}}"#,
            r#"{"type": "relation", "from_label": "C", "from_key": "name", "from_value": "x", "rel_type": "R", "to_label": "C", "to_key": "name", "to_value": "x"}"#,
        );
        let (text, counts, _) = import(None, &dump);
        assert_eq!(text, dump);
        assert_eq!(
            (counts.added, counts.relations_new, counts.vectors_new),
            (1, 1, 1)
        );
        // the same lines out of engrama's order are put in it
        let lines: Vec<&str> = dump.lines().collect();
        let shuffled = format!("{}\n{}\n{}\n{}\n", lines[0], lines[3], lines[2], lines[1]);
        assert_eq!(import(None, &shuffled).0, dump);
    }
}
