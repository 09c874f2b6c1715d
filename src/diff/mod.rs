//! `diff`: two versions of one store compared, record by record, matched by record_id, for
//! the one change the profile says must never happen: history edited rather than added to.
//!
//! Each side is read once, through the record view every looking command reads
//! (`store::read_views`: any shape, any source, the map given or an engrama dump's own);
//! what each record contributes is made on the core that read it (`Entry`) and kept by the
//! partition of its id (a `spill::Column`), past a budget in a temporary file. Then each
//! partition of BASE is matched with the same partition of HEAD (`compare.rs`), on every
//! core, and each partition's findings are gathered as it is judged (`findings.rs`: sorted,
//! past their budget in the temporary file too) into the [`report::Report`] every format
//! prints ([`mod@format`]), reading them back merged in order.

mod compare;
mod findings;
pub mod format;
pub mod report;

use crate::error::{Result, VercyError};
use crate::mapping::{FieldMap, FieldPath};
use crate::spill::{self, part_of, Column, Writer};
use crate::store::{
    self, Input, RawOrValue, RecordView, Role, RoleReading, RoleSet, Shape, Sighting,
};
use report::{Code, Report, Side};
use std::sync::OnceLock;

/// What a diff was asked.
#[derive(Debug, Clone)]
pub struct Options {
    pub map: FieldMap,
    /// `--map` was given (else an engrama dump reads through its own map).
    pub map_given: bool,
    /// Codes accepted (`--allow`): reported, but not failing.
    pub allowed: Vec<Code>,
    /// The command's memory (`--memory`, bytes): a quarter of it keeps both sides' entries
    /// before they go to the temporary file, a quarter the findings, the rest is the reader's
    /// blocks and the partitions matched on every core.
    pub memory: usize,
}

/// What a command notes of HEAD as the diff reads it (an HTML page's sightings, `cmd/diff.rs`),
/// so it need not read HEAD again: each record that holds a concept, where it lies and its
/// concept's key, in store order; then how HEAD was read.
pub struct HeadNotes<'n> {
    /// A concept's key from its text, made on the core that read the record.
    pub key: fn(&str) -> u64,
    /// Each HEAD record with a concept, in store order.
    pub note: &'n mut (dyn FnMut(Sighting) + Send),
    /// How HEAD was read, once it is: its shape and the map its records read through.
    pub read_as: Option<(Shape, FieldMap)>,
}

/// What is kept of one side before it goes to the temporary file, of a command's `memory`:
/// the records take most of it, the pointers (a few per hundred records) the rest; at least a
/// few kilobytes each, so what goes to the file goes in runs of some size.
fn side_budget(memory: usize) -> (usize, usize) {
    let side = memory / 4 / 2;
    ((side * 7 / 8).max(4 << 10), (side / 8).max(1 << 10))
}

/// What is kept of the findings before they go to the temporary file, of a command's
/// `memory`: at least a few kilobytes, so they go in runs of some size.
fn findings_budget(memory: usize) -> usize {
    (memory / 4).max(4 << 10)
}

/// The roles a diff reads of every record.
const ROLES: [&str; 6] = [
    "record_id",
    "supersedes",
    "valid_from",
    "valid_to",
    "concept",
    "value",
];

/// The roles whose values are capture or activity times, which may move: a store's own
/// bookkeeping, not a statement. The map places them (`--map updated_at=modified`).
const MAY_MOVE: [&str; 2] = ["updated_at", "last_activity_at"];

fn roles() -> &'static RoleSet {
    static SET: OnceLock<RoleSet> = OnceLock::new();
    SET.get_or_init(|| RoleSet::new(ROLES))
}

/// The roles, numbered: `[record_id, supersedes, valid_from, valid_to, concept, value]`.
fn role(i: usize) -> Role {
    roles().role(ROLES[i])
}

/// BASE or HEAD.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Base,
    Head,
}

impl Which {
    pub fn name(self) -> &'static str {
        match self {
            Which::Base => "BASE",
            Which::Head => "HEAD",
        }
    }
}

/// One side as kept: its records and the pointers at them, by partition.
struct Kept {
    side: Side,
    /// The line of the first record without an id (0: none).
    first_without_id: u64,
    /// The store's file, which the texts of lines seen in place are read back from.
    file: Option<std::fs::File>,
    records: Column,
    pointers: Column,
    map: FieldMap,
}

/// What one record contributes, made where it was read: its entry in its id's partition,
/// and an entry in each partition of a record it supersedes. `None`: it has no id.
struct Entry {
    part: usize,
    record: Vec<u8>,
    pointers: Vec<(usize, Vec<u8>)>,
}

/// A role's value as the entry compares it: its raw JSON text when the record is read from
/// its text, else its value written as JSON (`""` when absent).
fn role_text<'v>(view: &'v RecordView, role: Role) -> std::borrow::Cow<'v, str> {
    match view.raw_or_value(role) {
        Some(RawOrValue::Raw(raw)) => raw.into(),
        Some(RawOrValue::Value(v)) => v.json().to_string().into(),
        None => "".into(),
    }
}

/// The record's entry: line, id, where its text lies in the file and its hash (or, when it
/// cannot be read back from the file, the text itself, as JSON: a compact line's fields are
/// written as one), the ids it supersedes, its valid_from and valid_to, and hashes of its
/// concept and value. A line seen in place in a file is read back only if it changed: most
/// of a store never crosses the partitions' file.
fn entry(view: &RecordView, in_file: bool) -> Option<Entry> {
    let id = view.filled_str(role(0))?;
    let superseded = superseded(view);
    let valid_from = view.filled_str(role(2));
    let valid_from = valid_from.as_deref().unwrap_or("");
    let line = view.origin.line;
    // one allocation a record: the fixed fields, the id, a pointer or two
    let mut w = Writer(Vec::with_capacity(96 + 2 * id.len()));
    w.num(line).text(&id);
    match view.record() {
        // a line seen in place: its bytes are the file's at its offset
        None if in_file => {
            w.num(view.origin.offset)
                .num(view.text.len() as u64)
                .num(spill::hash_of(view.text))
                .text("");
        }
        record => {
            let text = view.text.trim();
            let json = match record {
                Some(record) if !text.starts_with('{') => std::borrow::Cow::Owned(
                    serde_json::to_string(&record.fields).unwrap_or_default(),
                ),
                _ => std::borrow::Cow::Borrowed(text),
            };
            w.num(0).num(0).num(spill::hash_of(&json)).text(&json);
        }
    }
    w.num(superseded.len() as u64);
    for s in &superseded {
        w.text(s);
    }
    w.text(valid_from)
        .text(&role_text(view, role(3)))
        .num(spill::hash_of(&role_text(view, role(4))))
        .num(spill::hash_of(&role_text(view, role(5))));
    let pointers = superseded
        .iter()
        .map(|target| {
            let mut p = Writer::default();
            p.text(target).text(&id).num(line).text(valid_from);
            (part_of(target), p.0)
        })
        .collect();
    Some(Entry {
        part: part_of(&id),
        record: w.0,
        pointers,
    })
}

/// Where a record lies and its concept's key, when it holds a concept.
fn noted(view: &RecordView, key: fn(&str) -> u64) -> Option<Sighting> {
    view.filled(role(4))
        .map(|concept| Sighting::of(view, key(&concept.text())))
}

/// The ids a record supersedes, sorted, each once: most name one, as a plain string.
fn superseded(view: &RecordView) -> Vec<String> {
    match view.get(role(1)) {
        None => Vec::new(),
        Some(store::RoleValue::Text(s)) if !crate::record::is_blank(&s) => vec![s.into_owned()],
        Some(store::RoleValue::Text(_)) => Vec::new(),
        Some(value) => {
            let mut ids = std::collections::HashSet::new();
            value.collect_ids(&mut ids);
            let mut ids: Vec<String> = ids.into_iter().collect();
            ids.sort_unstable();
            ids
        }
    }
}

/// Read one side: every record's entry kept by partition, each record with a concept given to
/// `notes` as it is.
fn read_side(
    input: &Input,
    store: &str,
    which: Which,
    reading: &RoleReading,
    memory: usize,
    mut notes: Option<&mut HeadNotes>,
) -> Result<Kept> {
    let (records, pointers) = side_budget(memory);
    let mut records = Column::new(records);
    let mut pointers = Column::new(pointers);
    let (mut count, mut without_id, mut first_without_id) = (0, 0, 0);
    // a file's lines are read back from it when they changed; a pipe, stdin or a database's
    // rendered rows can be read only once, so their records' texts are kept
    let file = match (input.path(), input.is_database() || input.is_pipe()) {
        (Some(path), false) => std::fs::File::open(path).ok(),
        _ => None,
    };
    let in_file = file.is_some();
    let key = notes.as_ref().map(|n| n.key);
    let work = |view: &RecordView| -> Result<(u64, Option<Entry>, Option<Sighting>)> {
        let noted = key.and_then(|key| noted(view, key));
        Ok((view.origin.line, entry(view, in_file), noted))
    };
    let read = store::read_views(input, reading, &work, &mut |(line, entry, noted)| {
        count += 1;
        if let (Some(notes), Some(noted)) = (notes.as_mut(), noted) {
            (notes.note)(noted);
        }
        match entry {
            Some(entry) => {
                records.push(entry.part, &entry.record);
                for (part, pointer) in &entry.pointers {
                    pointers.push(*part, pointer);
                }
            }
            None => {
                without_id += 1;
                if first_without_id == 0 {
                    first_without_id = line;
                }
            }
        }
        Ok(())
    });
    records.settle();
    pointers.settle();
    let (shape, plan) = read.map_err(|e| match e {
        VercyError::Interrupted => e,
        e => {
            use miette::Diagnostic;
            let help = e.help().map_or_else(
                || "check that the store is there and reads with vercy check".to_string(),
                |h| h.to_string(),
            );
            VercyError::DiffSide {
                side: which.name().to_string(),
                store: store.to_string(),
                error: Box::new(e),
                help,
            }
        }
    })?;
    if let Some(notes) = notes {
        notes.read_as = Some((shape.clone(), plan.map().clone()));
    }
    Ok(Kept {
        side: Side {
            store: store.to_string(),
            shape: shape.name().to_string(),
            records: count,
            without_id,
        },
        first_without_id,
        file,
        records,
        pointers,
        map: plan.map().clone(),
    })
}

/// The temporary file could not be read back (or held what was not written).
fn unreadable(e: impl std::fmt::Display) -> VercyError {
    VercyError::Read {
        path: "the diff's temporary file".to_string(),
        reason: e.to_string(),
    }
}

/// A diagnostic about one side.
fn input_error(which: Which, store: &str, message: String, help: &str) -> VercyError {
    VercyError::DiffInput {
        side: which.name().to_string(),
        store: store.to_string(),
        message,
        help: help.to_string(),
    }
}

/// The two arguments name one store: the same text, or the same file.
fn same_store(base: &str, head: &str) -> bool {
    if base == head {
        return true;
    }
    let file = |s: &str| std::fs::canonicalize(s).ok().filter(|p| p.is_file());
    matches!((file(base), file(head)), (Some(a), Some(b)) if a == b)
}

/// A role's path as a dotted field path (`valid_to`, `properties.valid_to`), when it is one
/// key or one key inside one object.
fn dotted(path: &FieldPath) -> Option<String> {
    path.single_key()
        .map(str::to_string)
        .or_else(|| path.nested_keys().map(|(a, b)| format!("{a}.{b}")))
}

/// The fields that may move without being an edit: each of [`MAY_MOVE`] where the map puts
/// it, beside the record_id when that is inside an object (an engrama node's `properties`),
/// and an engrama node's `created_at`, which engrama sets when it stores the node.
fn may_move(map: &FieldMap) -> Vec<String> {
    let prefix = map
        .path("record_id")
        .nested_keys()
        .map(|(object, _)| format!("{object}."));
    let mut paths: Vec<String> = MAY_MOVE
        .iter()
        .filter_map(|role| dotted(&map.path(role)))
        .collect();
    if let Some(prefix) = &prefix {
        paths.extend(MAY_MOVE.iter().map(|role| format!("{prefix}{role}")));
    }
    let engrama = store::engrama_map().ok();
    if engrama.is_some_and(|e| e.to_json() == map.to_json()) {
        paths.push(format!("{}created_at", prefix.as_deref().unwrap_or("")));
    }
    paths
}

/// Compare BASE with HEAD.
pub fn diff_stores(base: (&Input, &str), head: (&Input, &str), opts: &Options) -> Result<Report> {
    diff_stores_noting(base, head, opts, None)
}

/// [`diff_stores`], giving `notes` each HEAD record with a concept as HEAD is read.
pub fn diff_stores_noting(
    base: (&Input, &str),
    head: (&Input, &str),
    opts: &Options,
    notes: Option<&mut HeadNotes>,
) -> Result<Report> {
    if same_store(base.1, head.1) {
        return Err(input_error(
            Which::Head,
            head.1,
            "is the same store as BASE".to_string(),
            "name two versions of one store: BASE the one before the change (a file, or \
             git:origin/main:PATH), HEAD the one after",
        ));
    }
    let reading = RoleReading::new(
        store::Maps::new(opts.map.clone(), opts.map_given)?,
        roles(),
        &[],
        false,
    );
    let base_kept = read_side(base.0, base.1, Which::Base, &reading, opts.memory, None)?;
    let head_kept = read_side(head.0, head.1, Which::Head, &reading, opts.memory, notes)?;
    for kept in [&base_kept, &head_kept] {
        let s = &kept.side;
        if s.records > 0 && s.without_id == s.records {
            let which = if std::ptr::eq(kept, &base_kept) {
                Which::Base
            } else {
                Which::Head
            };
            return Err(input_error(
                which,
                &s.store,
                format!(
                    "none of its {} records has a record_id, the first on line {} ({} reads it \
                     from {:?})",
                    s.records,
                    kept.first_without_id,
                    if opts.map_given { "--map" } else { "the map" },
                    kept.map.path("record_id").text
                ),
                "records are matched by id: name the field that holds it with --map \
                 record_id=FIELD (or a named map, e.g. --map mem0)",
            ));
        }
    }
    if base_kept.map.to_json() != head_kept.map.to_json() {
        return Err(input_error(
            Which::Head,
            head.1,
            format!(
                "reads as {}, BASE as {}: their records read through different maps",
                head_kept.side.shape, base_kept.side.shape
            ),
            "compare two versions of one store; write one in the other's form first \
             (vercy export STORE --to engrama, or --to jsonl)",
        ));
    }
    let judging = compare::Judging {
        may_move: may_move(&base_kept.map),
        supersedes: dotted(&base_kept.map.path("supersedes")),
        valid_to: dotted(&base_kept.map.path("valid_to")),
    };
    let limit = findings_budget(opts.memory);
    let (tally, findings) = compare::judge(&base_kept, &head_kept, &judging, limit)?;
    Ok(Report {
        base: base_kept.side,
        head: head_kept.side,
        unchanged: tally.unchanged,
        times_moved: tally.times_moved,
        added: tally.added,
        added_superseding: tally.added_superseding,
        findings,
        allowed: opts.allowed.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A concept's key for the tests: its length and first byte.
    fn key(text: &str) -> u64 {
        (text.len() as u64) << 8 | u64::from(text.as_bytes()[0])
    }

    #[test]
    fn heads_notes_say_where_each_record_with_a_concept_lies_in_store_order() {
        let dir = tempfile::tempdir().unwrap();
        let record = |id: &str, concept: &str| {
            format!("{{\"record_id\": \"{id}\", \"concept\": {concept}, \"valid_from\": \"2025-01-01\"}}")
        };
        let base = dir.path().join("base.jsonl");
        std::fs::write(&base, record("A", "\"alpha\"") + "\n").unwrap();
        let head = dir.path().join("head.jsonl");
        let text = [
            record("A", "\"alpha\""),
            record("B", "null"),
            String::new(),
            record("C", "\"beta\""),
        ]
        .join("\r\n")
            + "\r\n";
        std::fs::write(&head, &text).unwrap();
        let opts = Options {
            map: FieldMap::identity(),
            map_given: false,
            allowed: Vec::new(),
            memory: 64 << 20,
        };
        let mut noted = Vec::new();
        let mut note = |n: Sighting| noted.push(n);
        let mut notes = HeadNotes {
            key,
            note: &mut note,
            read_as: None,
        };
        let (b, h) = (base.to_str().unwrap(), head.to_str().unwrap());
        let report = diff_stores_noting(
            (&Input::new(b), b),
            (&Input::new(h), h),
            &opts,
            Some(&mut notes),
        )
        .unwrap();
        assert_eq!(report.head.records, 3);
        let (shape, map) = notes.read_as.take().expect("how HEAD was read");
        assert_eq!(shape.name(), report.head.shape);
        assert_eq!(map.to_json(), FieldMap::identity().to_json());
        // B's concept is null: not noted
        assert_eq!(noted.iter().map(|n| n.line).collect::<Vec<_>>(), [1, 4]);
        for (n, (id, concept)) in noted.iter().zip([("A", "alpha"), ("C", "beta")]) {
            let at = n.offset as usize;
            assert_eq!(
                &text[at..at + n.len as usize],
                record(id, &format!("\"{concept}\""))
            );
            assert_eq!(n.key, key(concept));
        }
    }
}
