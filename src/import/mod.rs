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
//! A line already in the store takes the incoming version (`MergeRule`): a flat record is
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
//!
//! One job a file: `plan` makes each line ready on the decoding threads; `rules` says how
//! an incoming line changes the one already there; `identity` is the index from identity to
//! line; `spool` appends lines beside the store; `positioned` reads a line back from where
//! it lies; `rewrite` writes the merged store over its file.

mod identity;
mod plan;
mod positioned;
mod rewrite;
mod rules;
mod spool;

pub use plan::{keep, MergeEntry, MergeLine, Plan};

use crate::error::{Result, VercyError};
use crate::mapping::FieldMap;
use crate::store::engrama::is_flat_envelope;
use crate::store::{read_parallel, Entry, Input, NonRecordLine, Shape};
use identity::Table;
use positioned::Window;
use rules::{grant_keys, Change, MergeRule};
use serde_json::{Map, Value};
use spool::Spool;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// What kind of store the merge writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    Flat,
    Graph,
}

impl StoreKind {
    /// The kind of an existing store, from its first entry (an engrama envelope or a record).
    pub fn of_store(first: &Entry) -> StoreKind {
        match first {
            Entry::NonRecord(NonRecordLine::EngramaHeader, _) => StoreKind::Graph,
            _ => StoreKind::Flat,
        }
    }

    /// Can import merge into a store of this shape? (JSON lines, an engrama dump, or nothing.)
    pub fn mergeable(shape: &Shape) -> bool {
        matches!(shape, Shape::Empty | Shape::JsonLines | Shape::Engrama)
    }

    /// The kind a new store takes from the first entry of the dump imported into it.
    pub fn for_new_store(first: &Entry) -> StoreKind {
        match first {
            Entry::NonRecord(NonRecordLine::EngramaHeader, h) if !is_flat_envelope(&h.fields) => {
                StoreKind::Graph
            }
            _ => StoreKind::Flat,
        }
    }
}

/// What an import did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ImportCounts {
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

/// The store's tables, in the order a graph store writes them (after its envelope).
const RECORDS: usize = 0;
const RELATIONS: usize = 1;
const VECTORS: usize = 2;

/// Where one line's text lies: in the store file as it was, or in the spool; without its
/// line feed (which follows it in the spool, and in the store file unless the line ended
/// with `\r\n` or the file without a line feed).
///
/// 12 bytes, one a line of the store: where it lies, with the file it lies in as the top bit
/// (no file vercy writes or reads reaches 2^63 bytes), and its length.
#[derive(Debug, Clone, Copy)]
#[repr(C, packed(4))]
struct Loc {
    at: u64,
    len: u32,
}

const _: () = assert!(std::mem::size_of::<Loc>() == 12);

/// The top bit of [`Loc::at`]: the line lies in the store file as it was.
const IN_STORE: u64 = 1 << 63;

impl Loc {
    fn new(pos: u64, len: u32, in_store: bool) -> Loc {
        let file = if in_store { IN_STORE } else { 0 };
        Loc {
            at: pos & !IN_STORE | file,
            len,
        }
    }

    /// Where the line starts in its file.
    fn pos(self) -> u64 {
        self.at & !IN_STORE
    }

    /// The line lies in the store file as it was (else in the spool).
    fn in_store(self) -> bool {
        self.at & IN_STORE != 0
    }

    /// The line's length in bytes, without its line feed.
    fn len(self) -> u32 {
        self.len
    }
}

/// A JSONL store being merged into.
pub struct Store {
    kind: StoreKind,
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
    pub fn new(kind: StoreKind, map: FieldMap, target: &Path, file: Option<File>) -> Store {
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
        let shape = read_parallel(input, &keep(), &|e| Ok(plan.stored(e)), &mut |p| {
            store
                .get_or_insert_with(|| {
                    let kind = plan.kind().unwrap_or(StoreKind::Flat);
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
        counts: &mut ImportCounts,
        progress: &mut (dyn FnMut(u64) + Send),
    ) -> Result<Shape> {
        // a dump that is a file: its lines are copied from it (a pipe is read once, by the reader)
        let mut dump = input
            .path()
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()))
            .and_then(|p| File::open(p).ok());
        read_parallel(input, &keep(), &|e| plan.incoming(e), &mut |p| {
            progress(p.offset());
            let store = store.get_or_insert_with(|| {
                let kind = plan.kind().unwrap_or(StoreKind::Flat);
                Store::new(kind, plan.map.clone(), target, None)
            });
            if store.dump.is_none() {
                store.dump = dump.take();
            }
            store.merge(p, counts)
        })
    }

    /// Take in one line of the store file as it is (in file order).
    pub fn load(&mut self, p: MergeEntry) -> Result<()> {
        match p {
            MergeEntry::Envelope { line, fields } => {
                let at = self.place(&line)?;
                self.envelope = Some((at, fields));
            }
            MergeEntry::Line { table, line, .. } => {
                let at = self.place(&line)?;
                let t = &mut self.tables[table];
                let i = t.push(at, line.key).ok_or_else(|| too_many(&self.target))?;
                // the same identity again (the first line keeps it), or another one
                if !t.index(i) {
                    self.pending.push((table, line.key, i, line.identity));
                }
            }
        }
        Ok(())
    }

    /// After the store file is loaded: index by their full identity the lines whose hash
    /// belongs to another identity.
    pub fn settle(&mut self) -> Result<()> {
        for (table, key, i, identity) in std::mem::take(&mut self.pending) {
            let Some(first) = self.tables[table].first(key) else {
                continue;
            };
            if self.identity_at(table, first)? != identity {
                self.tables[table].shared.entry(identity).or_insert(i);
            }
        }
        Ok(())
    }

    pub fn kind(&self) -> StoreKind {
        self.kind
    }

    /// True when the merge changed anything (otherwise the store file need not be rewritten).
    pub fn changed(&self) -> bool {
        self.changed
    }

    /// Merge one line of a dump. Nothing replaces the store file until [`Store::write`], so
    /// an error here leaves it as it was.
    pub fn merge(&mut self, p: MergeEntry, counts: &mut ImportCounts) -> Result<()> {
        let (table, line, as_node) = match p {
            MergeEntry::Envelope { line, fields } => return self.merge_envelope(line, fields),
            MergeEntry::Line {
                table,
                line,
                as_node,
            } => (table, line, as_node),
        };
        if as_node {
            counts.as_nodes += 1;
        }
        let rule = match (self.kind, table) {
            (StoreKind::Flat, _) => MergeRule::Replace,
            (StoreKind::Graph, RECORDS) => MergeRule::Properties,
            (StoreKind::Graph, _) => MergeRule::Overlay,
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
}
/// The store's lines are JSON objects (they were read as such, or written by us).
fn parse(text: &str) -> Map<String, Value> {
    serde_json::from_str(text).unwrap_or_default()
}

fn write_error(target: &Path, e: &io::Error) -> VercyError {
    VercyError::Write {
        path: target.display().to_string(),
        reason: crate::error::io_reason(e),
    }
}

/// A store past what a place counts: `what` says which limit.
fn past_limit(target: &Path, what: &str) -> VercyError {
    write_error(target, &io::Error::new(io::ErrorKind::InvalidData, what))
}

fn too_many(target: &Path) -> VercyError {
    past_limit(target, "more than 2^32 lines of one kind in a store")
}

fn too_long(target: &Path) -> VercyError {
    past_limit(target, "a merged line longer than 4 GiB")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Import `dump` into a store holding `store` (a new one when `None`): the store's text
    /// afterwards, the counts, and whether anything changed.
    fn import_with(plan: Plan, store: Option<&str>, dump: &str) -> (String, ImportCounts, bool) {
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
    ) -> (String, ImportCounts, bool) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.jsonl");
        let mut merged = None;
        if let Some(text) = store {
            std::fs::write(&path, text).unwrap();
            let input = Input::new(path.to_str().unwrap());
            merged = Store::load_file(&input, &path, &plan).unwrap().0;
            merged.as_mut().unwrap().settle().unwrap();
        }
        let mut counts = ImportCounts::default();
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

    fn import(store: Option<&str>, dump: &str) -> (String, ImportCounts, bool) {
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
