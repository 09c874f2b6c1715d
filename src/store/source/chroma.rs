//! A Chroma store read where it lives: `chroma:PATH[#collection]`, PATH the folder a
//! `chromadb.PersistentClient(path=…)` writes, or its `chroma.sqlite3`. Each embedding of a
//! collection is one record: its metadata keys are the record's keys, each value typed as
//! Chroma keeps it (text, integer, float, boolean, and from chromadb 1.3 a list of one of
//! those), with what Chroma keeps beside them under its own reserved prefix, which no
//! metadata key of its API carries: `chroma:collection`, `chroma:id` (the embedding's id) and
//! `chroma:document`. Without a collection named, every collection is read, in name order.
//!
//! Read as the SQLite source reads a file: read-only, in one read transaction (Chroma keeps
//! its file in rollback-journal mode: a chromadb writing meanwhile waits for the read to end).
//! Only the metadata segment's tables are read (`embeddings`, `embedding_metadata`,
//! `embedding_metadata_array`), never a vector: those live in the HNSW folder beside the file
//! and in Chroma's write-ahead log (`embeddings_queue`), of which only the sequence numbers
//! are looked at, so that a write logged and not yet applied to the records (a chromadb that
//! stopped mid-write) is reported rather than silently left out.

use super::database::{self, Lines, OpenSignal};
use super::sqlite::{columns, open_snapshot, sqlite_error, tables, text};
use super::{Opened, Select, Source};
use crate::error::{io_reason, Result, VercyError};
use crate::python::float_repr;
use crate::python::json::py_json_str;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The last migration of each of chromadb's schema folders that this reader knows: what
/// [`WRITTEN_BY`] writes. A store past any of them has a layout this reader has not seen, and
/// is refused rather than read wrong.
const KNOWN: [(&str, i64); 3] = [("embeddings_queue", 2), ("metadb", 6), ("sysdb", 10)];

/// The chromadb whose stores [`KNOWN`] describes (and the tests build).
const WRITTEN_BY: &str = "chromadb 1.5.9";

/// The file a Chroma folder keeps its collections in.
const FILE_NAME: &str = "chroma.sqlite3";

/// Chroma's reserved prefix: its API shows no metadata key that starts with it.
const RESERVED: &str = "chroma:";

/// The metadata key Chroma keeps an embedding's document under.
const DOCUMENT_KEY: &str = "chroma:document";

/// A Chroma store: its folder or file, and the collection named, if any.
#[derive(Debug)]
pub struct Chroma {
    path: PathBuf,
    collection: Option<String>,
}

/// `chroma:PATH` or `chroma:PATH#collection` names a Chroma store. A `#` followed by a `/` is
/// part of the path (a collection's name holds no `/`).
pub fn named(arg: &str) -> Option<Box<dyn Source>> {
    let (path, collection) = parts(arg)?;
    Some(Box::new(Chroma {
        path: PathBuf::from(path),
        collection: collection.map(str::to_string),
    }))
}

/// The path and the collection a `chroma:` argument names.
fn parts(arg: &str) -> Option<(&str, Option<&str>)> {
    let rest = arg.strip_prefix("chroma:")?;
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    Some(match rest.rsplit_once('#') {
        Some((path, name)) if !name.contains('/') => (path, Some(name).filter(|n| !n.is_empty())),
        _ => (rest, None),
    })
}

/// The tables every version of Chroma's SQLite file holds.
pub fn is_chroma(tables: &[String]) -> bool {
    [
        "collections",
        "segments",
        "embeddings",
        "embedding_metadata",
        "migrations",
    ]
    .iter()
    .all(|t| tables.iter().any(|have| have == t))
}

impl Source for Chroma {
    fn open(&self, name: &str, _select: &Select) -> Result<Opened> {
        let (name, path, wanted) = (name.to_string(), self.path.clone(), self.collection.clone());
        database::start(move |ready, lines| read(&name, &path, wanted.as_deref(), ready, lines))
    }

    fn is_database(&self) -> bool {
        true
    }
}

/// One collection to read: its id, its name, and its metadata segment (a collection made and
/// never written to may have none).
struct Collection {
    id: String,
    name: String,
    segment: Option<String>,
}

fn read(
    name: &str,
    path: &Path,
    wanted: Option<&str>,
    ready: &mut OpenSignal,
    lines: &mut Lines,
) -> Result<()> {
    let (folder, file) = locate(name, path)?;
    let conn = open_snapshot(name, &file)?;
    let fail = |e| sqlite_error(name, e);
    let tables = tables(&conn).map_err(fail)?;
    if !is_chroma(&tables) {
        let found = match tables.is_empty() {
            true => "no tables".to_string(),
            false => format!("tables {}", tables.join(", ")),
        };
        return Err(database::error(
            name,
            format!("not a Chroma store: its SQLite file holds {found}"),
            "name the folder chromadb.PersistentClient(path=…) was given, or its chroma.sqlite3; \
             any other SQLite file is read as sqlite:PATH",
        ));
    }
    known_schema(name, &conn)?;
    let collections = collections(name, &conn, wanted)?;
    let has = |table: &str| tables.iter().any(|t| t == table);
    if has("embeddings_queue") && has("max_seq_id") {
        for collection in &collections {
            all_applied(name, &conn, collection, &folder)?;
        }
    }
    let names: Vec<&str> = collections.iter().map(|c| c.name.as_str()).collect();
    ready.ok(match names.as_slice() {
        [one] => format!("Chroma collection {one}"),
        [] => "Chroma store without collections".to_string(),
        many => format!("Chroma collections {}", many.join(", ")),
    });
    let bools = columns(&conn, "embedding_metadata")
        .map_err(fail)?
        .iter()
        .any(|c| c == "bool_value");
    let metadata = Table::read(name, &conn, "embedding_metadata", bools)?;
    let lists = match has("embedding_metadata_array") {
        true => Some(Table::read(name, &conn, "embedding_metadata_array", true)?),
        false => None,
    };
    for collection in &collections {
        embeddings(name, &conn, collection, &metadata, lists.as_ref(), lines)?;
    }
    Ok(())
}

/// The store's folder and its SQLite file, from the path given (either).
fn locate(name: &str, path: &Path) -> Result<(PathBuf, PathBuf)> {
    if path.as_os_str().is_empty() {
        return Err(database::error(
            name,
            "no folder named",
            "name the folder chromadb.PersistentClient(path=…) was given: chroma:PATH, or \
             chroma:PATH#COLLECTION for one collection",
        ));
    }
    let meta = std::fs::metadata(path).map_err(|e| VercyError::Read {
        path: name.to_string(),
        reason: io_reason(&e),
    })?;
    if !meta.is_dir() {
        let folder = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        return Ok((folder, path.to_path_buf()));
    }
    let file = path.join(FILE_NAME);
    if !file.is_file() {
        return Err(database::error(
            name,
            format!("not a Chroma folder: it holds no {FILE_NAME}"),
            "name the folder chromadb.PersistentClient(path=…) was given (the one holding \
             chroma.sqlite3), or the chroma.sqlite3 file itself",
        ));
    }
    Ok((path.to_path_buf(), file))
}

fn versions(list: &[(String, i64)]) -> String {
    list.iter()
        .map(|(dir, version)| format!("{dir} {version}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Refuse a schema past the one this reader knows (see [`KNOWN`]).
fn known_schema(name: &str, conn: &Connection) -> Result<()> {
    let fail = |e| sqlite_error(name, e);
    let mut stmt = conn
        .prepare("SELECT dir, max(version) FROM migrations GROUP BY dir ORDER BY dir")
        .map_err(fail)?;
    let seen = stmt
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(fail)?;
    let unknown = seen.iter().any(|(dir, version)| {
        KNOWN
            .iter()
            .find(|(known, _)| known == dir)
            .is_none_or(|(_, last)| version > last)
    });
    if unknown {
        let known: Vec<(String, i64)> = KNOWN.iter().map(|(d, v)| (d.to_string(), *v)).collect();
        return Err(database::error(
            name,
            format!(
                "a Chroma schema vercy does not know: migrations {}",
                versions(&seen)
            ),
            format!(
                "vercy reads Chroma's schema up to migrations {} (what {WRITTEN_BY} writes); \
                 read this store with a vercy that knows its schema, or write its records out \
                 with the chromadb that made it (collection.get())",
                versions(&known)
            ),
        ));
    }
    Ok(())
}

/// The collections to read, in name order: the one named, or all.
fn collections(name: &str, conn: &Connection, wanted: Option<&str>) -> Result<Vec<Collection>> {
    let fail = |e| sqlite_error(name, e);
    let mut stmt = conn
        .prepare(
            "SELECT c.id, c.name, (SELECT s.id FROM segments s \
             WHERE s.collection = c.id AND s.scope = 'METADATA' ORDER BY s.id LIMIT 1) \
             FROM collections c ORDER BY c.name, c.id",
        )
        .map_err(fail)?;
    let all = stmt
        .query_map([], |r| {
            Ok(Collection {
                id: r.get(0)?,
                name: r.get(1)?,
                segment: r.get(2)?,
            })
        })
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(fail)?;
    let Some(wanted) = wanted else {
        return Ok(all);
    };
    let listed: Vec<String> = all.iter().map(|c| c.name.clone()).collect();
    let chosen: Vec<Collection> = all.into_iter().filter(|c| c.name == wanted).collect();
    if chosen.is_empty() {
        let help = match listed.is_empty() {
            true => "this store holds no collection".to_string(),
            false => format!(
                "its collections: {} (name one after #, or none to read them all)",
                listed.join(", ")
            ),
        };
        return Err(database::error(
            name,
            format!("no collection `{wanted}` in this Chroma store"),
            help,
        ));
    }
    Ok(chosen)
}

/// Refuse a collection whose log holds writes its records do not show yet.
fn all_applied(
    name: &str,
    conn: &Connection,
    collection: &Collection,
    folder: &Path,
) -> Result<()> {
    let fail = |e| sqlite_error(name, e);
    let Some(segment) = &collection.segment else {
        return Ok(());
    };
    let applied = conn
        .query_row(
            "SELECT seq_id FROM max_seq_id WHERE segment_id = ?1",
            [segment],
            |r| {
                Ok(match r.get_ref(0)? {
                    ValueRef::Integer(n) => n,
                    // before chromadb's metadb migration 5: 8 bytes, big-endian
                    ValueRef::Blob(b) => b.try_into().map_or(0, i64::from_be_bytes),
                    _ => 0,
                })
            },
        )
        .optional()
        .map_err(fail)?
        .unwrap_or(0);
    let topic_end = format!("/{}", collection.id);
    // the log's sequence numbers are its rowids: only the entries past `applied` are visited
    let pending: i64 = conn
        .query_row(
            "SELECT count(*) FROM embeddings_queue \
             WHERE seq_id > ?1 AND substr(topic, -length(?2)) = ?2",
            rusqlite::params![applied, topic_end],
            |r| r.get(0),
        )
        .map_err(fail)?;
    if pending > 0 {
        return Err(database::error(
            name,
            format!(
                "{pending} write(s) to collection `{}` are in Chroma's log and not yet in its \
                 records (a chromadb stopped mid-write, or is writing now)",
                collection.name
            ),
            format!(
                "let chromadb apply its log: open the collection once with it \
                 (python -c 'import chromadb; chromadb.PersistentClient({:?}).get_collection({:?}).count()'), \
                 then read the store again",
                folder.display().to_string(),
                collection.name
            ),
        ));
    }
    Ok(())
}

/// One metadata value as JSON text, typed by the column Chroma put it in.
fn push_value(name: &str, row: &rusqlite::Row<'_>, first: usize, out: &mut String) -> Result<()> {
    let cell = |i: usize| row.get_ref(first + i).map_err(|e| sqlite_error(name, e));
    match cell(0)? {
        ValueRef::Text(t) => {
            py_json_str(text(name, t)?, out);
            return Ok(());
        }
        ValueRef::Null => {}
        other => return Err(not_chroma_value(name, other)),
    }
    match cell(1)? {
        ValueRef::Integer(n) => {
            let _ = write!(out, "{n}");
            return Ok(());
        }
        ValueRef::Null => {}
        other => return Err(not_chroma_value(name, other)),
    }
    match cell(2)? {
        ValueRef::Real(f) if f.is_finite() => {
            out.push_str(&float_repr(f));
            return Ok(());
        }
        ValueRef::Real(_) => {
            out.push_str("null");
            return Ok(());
        }
        ValueRef::Null => {}
        other => return Err(not_chroma_value(name, other)),
    }
    match cell(3)? {
        ValueRef::Integer(0) => out.push_str("false"),
        ValueRef::Integer(_) => out.push_str("true"),
        // no column holds a value: the key is there, its value none
        ValueRef::Null => out.push_str("null"),
        other => return Err(not_chroma_value(name, other)),
    }
    Ok(())
}

fn not_chroma_value(name: &str, found: ValueRef<'_>) -> VercyError {
    database::error(
        name,
        format!(
            "a metadata value of type {} where Chroma keeps text, integers, floats and booleans",
            found.data_type()
        ),
        "the store is damaged, or was not written by chromadb",
    )
}

/// How one of the metadata tables (`embedding_metadata`, `embedding_metadata_array`: a row a
/// key, or a list's element) is read: rows of one embedding after another, in the order of
/// the embeddings.
struct Table {
    sql: String,
}

impl Table {
    /// chromadb writes an embedding's rows together as it adds it, so the rows lie in that
    /// order and are read as they lie, in one pass over the table; an update (which adds the
    /// new keys after others) breaks it, and the rows are then read through the (id, key)
    /// index, one lookup a row. One pass over the ids, before reading, tells which (here
    /// rather than in SQL: a window function over them costs SQLite ten times as much).
    fn read(name: &str, conn: &Connection, table: &str, bools: bool) -> Result<Table> {
        let fail = |e| sqlite_error(name, e);
        let mut stmt = conn
            .prepare(&format!(
                "SELECT id FROM {table} NOT INDEXED ORDER BY rowid"
            ))
            .map_err(fail)?;
        let mut rows = stmt.query([]).map_err(fail)?;
        let mut last = i64::MIN;
        let mut in_order = true;
        while let Some(row) = rows.next().map_err(fail)? {
            let id: i64 = row.get(0).map_err(fail)?;
            if id < last {
                in_order = false;
                break;
            }
            last = id;
        }
        let order = if in_order { "rowid" } else { "id, key, rowid" };
        let bool_value = if bools { "bool_value" } else { "NULL" };
        Ok(Table {
            sql: format!(
                "SELECT id, key, string_value, int_value, float_value, {bool_value} \
                 FROM {table} ORDER BY {order}"
            ),
        })
    }
}

/// Every embedding of a collection, one line each, in the order they were added: the
/// embeddings and the rows of the metadata tables, each in embedding order, merged by
/// embedding (a row of another collection's embedding is passed over).
fn embeddings(
    name: &str,
    conn: &Connection,
    collection: &Collection,
    metadata: &Table,
    lists: Option<&Table>,
    lines: &mut Lines,
) -> Result<()> {
    let fail = |e| sqlite_error(name, e);
    let Some(segment) = &collection.segment else {
        return Ok(());
    };
    let mut id_stmt = conn
        .prepare(
            "SELECT id, embedding_id FROM embeddings NOT INDEXED WHERE segment_id = ?1 \
             ORDER BY id",
        )
        .map_err(fail)?;
    let mut ids = Embeddings {
        rows: id_stmt.query([segment]).map_err(fail)?,
        next: None,
    };
    ids.advance(name)?;
    let mut element_stmt = match lists {
        Some(table) => Some(conn.prepare(&table.sql).map_err(fail)?),
        None => None,
    };
    let mut elements = Elements {
        rows: match &mut element_stmt {
            Some(stmt) => Some(stmt.query([]).map_err(fail)?),
            None => None,
        },
        next: None,
    };
    elements.advance(name)?;
    let mut line = Line::new(&collection.name);
    // the embedding the line is open for
    let mut open: Option<i64> = None;
    let mut meta_stmt = conn.prepare(&metadata.sql).map_err(fail)?;
    let mut rows = meta_stmt.query([]).map_err(fail)?;
    while let Some(row) = rows.next().map_err(fail)? {
        let id: i64 = row.get(0).map_err(fail)?;
        if open != Some(id) {
            if open.take().is_some() {
                line.finish(lines)?;
            }
            // the embeddings before this row's hold no metadata
            while ids.next_id().is_some_and(|next| next < id) {
                ids.start(&mut line, &mut elements, name)?;
                line.finish(lines)?;
            }
            if ids.next_id() != Some(id) {
                continue; // another collection's
            }
            ids.start(&mut line, &mut elements, name)?;
            open = Some(id);
        }
        match row.get_ref(1).map_err(fail)? {
            ValueRef::Text(key) => line.field(name, key, row)?,
            other => return Err(not_chroma_value(name, other)),
        }
    }
    if open.is_some() {
        line.finish(lines)?;
    }
    while ids.next_id().is_some() {
        ids.start(&mut line, &mut elements, name)?;
        line.finish(lines)?;
    }
    Ok(())
}

/// A collection's embeddings in id order, the next one taken ahead: its id and embedding id.
struct Embeddings<'s> {
    rows: rusqlite::Rows<'s>,
    next: Option<(i64, String)>,
}

impl Embeddings<'_> {
    fn advance(&mut self, name: &str) -> Result<()> {
        let fail = |e| sqlite_error(name, e);
        self.next = match self.rows.next().map_err(fail)? {
            None => None,
            Some(row) => Some((
                row.get(0).map_err(fail)?,
                match row.get_ref(1).map_err(fail)? {
                    ValueRef::Text(t) => text(name, t)?.to_string(),
                    other => return Err(not_chroma_value(name, other)),
                },
            )),
        };
        Ok(())
    }

    fn next_id(&self) -> Option<i64> {
        self.next.as_ref().map(|(id, _)| *id)
    }

    /// Open `line` for the next embedding, with its list values.
    fn start(&mut self, line: &mut Line, elements: &mut Elements<'_>, name: &str) -> Result<()> {
        let (id, embedding_id) = self.next.take().expect("an embedding is next");
        line.start(&embedding_id);
        elements.feed(id, line, name)?;
        self.advance(name)
    }
}

/// The list values' elements (`embedding_metadata_array`, a row an element) in embedding
/// order, the next one taken ahead: its embedding, key and rendered value.
struct Elements<'s> {
    rows: Option<rusqlite::Rows<'s>>,
    next: Option<(i64, String, String)>,
}

impl Elements<'_> {
    fn advance(&mut self, name: &str) -> Result<()> {
        let fail = |e| sqlite_error(name, e);
        self.next = None;
        let Some(rows) = &mut self.rows else {
            return Ok(());
        };
        let Some(row) = rows.next().map_err(fail)? else {
            return Ok(());
        };
        let key = match row.get_ref(1).map_err(fail)? {
            ValueRef::Text(t) => text(name, t)?.to_string(),
            other => return Err(not_chroma_value(name, other)),
        };
        let mut value = String::new();
        push_value(name, row, 2, &mut value)?;
        self.next = Some((row.get(0).map_err(fail)?, key, value));
        Ok(())
    }

    /// Give `line` the elements of embedding `id` (passing over those of embeddings before
    /// it: another collection's).
    fn feed(&mut self, id: i64, line: &mut Line, name: &str) -> Result<()> {
        while let Some((element_id, key, value)) = &self.next {
            if *element_id > id {
                break;
            }
            if *element_id == id {
                line.element(name, key, value)?;
            }
            self.advance(name)?;
        }
        Ok(())
    }
}

/// Metadata keys kept once each (the first this many met): a store whose every embedding has
/// keys of its own keeps the rest in each line's text, so memory stays bounded.
const KEYS_KEPT: usize = 1024;

/// What a metadata key is to a line: a field, the document, or Chroma's own (left out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyKind {
    Field,
    Document,
    Reserved,
}

impl KeyKind {
    fn of(key: &str) -> KeyKind {
        match key {
            DOCUMENT_KEY => KeyKind::Document,
            _ if key.starts_with(RESERVED) => KeyKind::Reserved,
            _ => KeyKind::Field,
        }
    }
}

/// One kept key: its bytes as stored, its JSON text, its rank among the kept keys in byte
/// order, and what it is.
struct Key {
    bytes: Box<[u8]>,
    json: String,
    rank: u32,
    kind: KeyKind,
}

/// The metadata keys of a store, kept once each: a collection has a few keys, each on most
/// of its embeddings, so each is read as UTF-8, written as JSON and placed in byte order once,
/// not on each of its rows.
#[derive(Default)]
struct Keys {
    kept: Vec<Key>,
    index: hashbrown::HashMap<Box<[u8]>, u32>,
}

impl Keys {
    /// The kept key of a row's `key`; `None` when it is not kept (past [`KEYS_KEPT`]).
    fn find(&mut self, name: &str, key: &[u8]) -> Result<Option<u32>> {
        match self.index.get(key) {
            Some(&k) => Ok(Some(k)),
            None if self.kept.len() < KEYS_KEPT => Ok(Some(self.keep(text(name, key)?))),
            None => Ok(None),
        }
    }

    /// Keep a key met for the first time, and rank the kept keys again.
    fn keep(&mut self, key: &str) -> u32 {
        let k = self.kept.len() as u32;
        let mut json = String::new();
        py_json_str(key, &mut json);
        self.kept.push(Key {
            bytes: key.as_bytes().into(),
            json,
            rank: 0,
            kind: KeyKind::of(key),
        });
        self.index.insert(key.as_bytes().into(), k);
        let mut order: Vec<usize> = (0..self.kept.len()).collect();
        order.sort_by(|&a, &b| self.kept[a].bytes.cmp(&self.kept[b].bytes));
        for (rank, at) in order.into_iter().enumerate() {
            self.kept[at].rank = rank as u32;
        }
        k
    }
}

/// Where a field's key is: kept ([`Keys`]), or in [`Line::text`].
#[derive(Debug, Clone)]
enum KeyAt {
    Kept(u32),
    Text(std::ops::Range<usize>),
}

/// A metadata value of the line: its key (and, as the line is finished, the key's rank when
/// it is kept, else `u32::MAX`), where its value (rendered) lies in [`Line::text`], and
/// whether it is an element of a list.
struct Field {
    key: KeyAt,
    rank: u32,
    value: std::ops::Range<usize>,
    element: bool,
}

/// One embedding's line, put together as its rows come: what Chroma keeps of it (collection,
/// id, document) first, then its metadata by key (bytes compared), a list's elements in
/// their order.
struct Line {
    /// The collection, then the embedding's id from `head_len` on.
    head: String,
    head_len: usize,
    document: String,
    keys: Keys,
    /// The metadata's rendered values (and keys not kept), one after the other.
    text: String,
    fields: Vec<Field>,
    out: String,
}

impl Line {
    fn new(collection: &str) -> Line {
        let mut head = String::from("{\"chroma:collection\": ");
        py_json_str(collection, &mut head);
        Line {
            head_len: head.len(),
            head,
            document: String::new(),
            keys: Keys::default(),
            text: String::new(),
            fields: Vec::new(),
            out: String::new(),
        }
    }

    fn start(&mut self, embedding_id: &str) {
        self.head.push_str(", \"chroma:id\": ");
        py_json_str(embedding_id, &mut self.head);
    }

    /// A key of the line, its rank, and what it is.
    fn key(&mut self, name: &str, key: &[u8]) -> Result<(KeyAt, u32, KeyKind)> {
        if let Some(k) = self.keys.find(name, key)? {
            let kept = &self.keys.kept[k as usize];
            return Ok((KeyAt::Kept(k), kept.rank, kept.kind));
        }
        let key = text(name, key)?;
        let start = self.text.len();
        self.text.push_str(key);
        Ok((
            KeyAt::Text(start..self.text.len()),
            u32::MAX,
            KeyKind::of(key),
        ))
    }

    /// One metadata row: its key, and its value in the row's columns from the third on.
    fn field(&mut self, name: &str, key: &[u8], row: &rusqlite::Row<'_>) -> Result<()> {
        let (key, rank, kind) = self.key(name, key)?;
        match kind {
            KeyKind::Document => {
                self.document.push_str(", \"chroma:document\": ");
                push_value(name, row, 2, &mut self.document)
            }
            KeyKind::Reserved => Ok(()), // Chroma's own, which its API shows no one
            KeyKind::Field => {
                let start = self.text.len();
                push_value(name, row, 2, &mut self.text)?;
                self.fields.push(Field {
                    key,
                    rank,
                    value: start..self.text.len(),
                    element: false,
                });
                Ok(())
            }
        }
    }

    fn element(&mut self, name: &str, key: &str, value: &str) -> Result<()> {
        let (key, rank, _) = self.key(name, key.as_bytes())?;
        let start = self.text.len();
        self.text.push_str(value);
        self.fields.push(Field {
            key,
            rank,
            value: start..self.text.len(),
            element: true,
        });
        Ok(())
    }

    fn finish(&mut self, lines: &mut Lines) -> Result<()> {
        self.render();
        lines.line(self.out.as_bytes())
    }

    /// Put the line together in [`Self::out`], and make ready for the next.
    fn render(&mut self) {
        let (text, kept) = (&self.text, &self.keys.kept);
        let bytes = |key: &KeyAt| match key {
            KeyAt::Kept(k) => &kept[*k as usize].bytes[..],
            KeyAt::Text(at) => text[at.clone()].as_bytes(),
        };
        let same = |a: &KeyAt, b: &KeyAt| match (a, b) {
            (KeyAt::Kept(a), KeyAt::Kept(b)) => a == b,
            _ => bytes(a) == bytes(b),
        };
        // kept keys by their rank, which is their bytes' order (ranked now: a key kept for
        // the first time in this line ranks the others again); a stable sort, so a list's
        // elements stay in their order
        for field in &mut self.fields {
            if let KeyAt::Kept(k) = field.key {
                field.rank = kept[k as usize].rank;
            }
        }
        self.fields.sort_by(|a, b| match a.rank.max(b.rank) {
            u32::MAX => bytes(&a.key).cmp(bytes(&b.key)),
            _ => a.rank.cmp(&b.rank),
        });
        let out = &mut self.out;
        out.clear();
        out.push_str(&self.head);
        out.push_str(&self.document);
        let mut at = 0;
        while at < self.fields.len() {
            let key = &self.fields[at].key;
            let end = at
                + self.fields[at..]
                    .iter()
                    .take_while(|f| same(&f.key, key))
                    .count();
            let fields = &self.fields[at..end];
            out.push_str(", ");
            match key {
                KeyAt::Kept(k) => out.push_str(&kept[*k as usize].json),
                KeyAt::Text(at) => py_json_str(&text[at.clone()], out),
            }
            out.push_str(": ");
            match fields.iter().any(|f| f.element) {
                // a key both a value and a list: the list, as Chroma's API gives it
                true => {
                    out.push('[');
                    for (i, f) in fields.iter().filter(|f| f.element).enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        out.push_str(&text[f.value.clone()]);
                    }
                    out.push(']');
                }
                false => out.push_str(&text[fields[0].value.clone()]),
            }
            at = end;
        }
        out.push('}');
        self.head.truncate(self.head_len);
        self.document.clear();
        self.text.clear();
        self.fields.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line of `elements` (key, rendered value), as [`Line`] puts it together.
    fn line_of(line: &mut Line, elements: &[(&str, &str)]) -> String {
        line.start("e");
        for (key, value) in elements {
            line.element("store", key, value).unwrap();
        }
        line.render();
        line.out.clone()
    }

    #[test]
    fn a_lines_keys_are_in_byte_order_kept_or_not() {
        let mut line = Line::new("c");
        let head = r#"{"chroma:collection": "c", "chroma:id": "e""#;
        // a key kept for the first time mid-line ranks those before it again
        let got = line_of(&mut line, &[("m", "1"), ("c", "2"), ("m", "3"), ("é", "4")]);
        assert_eq!(got, format!(r#"{head}, "c": [2], "m": [1, 3], "é": [4]}}"#));
        let got = line_of(&mut line, &[("b", "5"), ("m", "6"), ("a", "7")]);
        assert_eq!(got, format!(r#"{head}, "a": [7], "b": [5], "m": [6]}}"#));
        // past the keys kept, the others are kept in the line's text, and sort among them
        for n in line.keys.kept.len()..KEYS_KEPT {
            line.keys
                .find("store", format!("k{n:04}").as_bytes())
                .unwrap();
        }
        let got = line_of(
            &mut line,
            &[
                ("zz", "1"),
                ("b", "2"),
                ("k0100", "3"),
                ("a\"", "4"),
                ("zz", "5"),
            ],
        );
        assert_eq!(line.keys.kept.len(), KEYS_KEPT);
        assert_eq!(
            got,
            format!(r#"{head}, "a\"": [4], "b": [2], "k0100": [3], "zz": [1, 5]}}"#)
        );
    }

    #[test]
    fn names_a_store_and_maybe_a_collection() {
        assert_eq!(parts("sqlite:x"), None);
        assert_eq!(parts("chroma:/data/db"), Some(("/data/db", None)));
        assert_eq!(
            parts("chroma:/data/db#facts"),
            Some(("/data/db", Some("facts")))
        );
        assert_eq!(parts("chroma:///data/db#m"), Some(("/data/db", Some("m"))));
        assert_eq!(parts("chroma:./a#b/db"), Some(("./a#b/db", None)));
        assert_eq!(parts("chroma:./a#b/db#m"), Some(("./a#b/db", Some("m"))));
        assert_eq!(parts("chroma:db#"), Some(("db", None)));
    }
}
