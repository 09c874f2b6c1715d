//! One partition of BASE matched with the same partition of HEAD, by record_id, and judged:
//! a record the same on both sides but for the fields that may move is unchanged; one only in
//! HEAD is added; one only in BASE deleted; one in both and different is an edit, which this
//! names more exactly when it can (an end written by hand, supersedes rewired, an id reused).
//! Each supersession HEAD adds (a pointer BASE did not have) is checked against the record it
//! names: still in HEAD, and starting before the new one. The partitions are judged on every
//! core, one at a time per core: memory holds a partition of each side per core.

use super::findings::{Findings, Gather};
use super::report::{Change, Code, Finding, Other};
use super::{unreadable, Kept, Which};
use crate::error::Result;
use crate::spill::{Reader, PARTS};
use crate::store::record_object;
use hashbrown::{HashMap, HashSet};
use rayon::prelude::*;
use serde_json::{Map, Value};
use std::sync::Mutex;

/// How fields are judged, from the map the records read through.
pub struct Judging {
    /// Fields that may move (capture and activity times).
    pub may_move: Vec<String>,
    /// Where supersedes and valid_to lie, as field paths (`None`: not one plain field).
    pub supersedes: Option<String>,
    pub valid_to: Option<String>,
}

/// What the partitions counted, together.
#[derive(Default)]
pub struct Tally {
    pub unchanged: usize,
    pub times_moved: usize,
    pub added: usize,
    pub added_superseding: usize,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.unchanged += other.unchanged;
        self.times_moved += other.times_moved;
        self.added += other.added;
        self.added_superseding += other.added_superseding;
    }
}

/// What one partition found.
#[derive(Default)]
struct Judged {
    tally: Tally,
    findings: Vec<Finding>,
}

/// A record as its entry keeps it.
struct Rec<'a> {
    line: u64,
    id: &'a str,
    /// Where its text lies in the store's file (`len` 0: the text is kept in `text`).
    offset: u64,
    len: u64,
    hash: u64,
    text: &'a str,
    supersedes: Vec<&'a str>,
    valid_from: &'a str,
    valid_to: &'a str,
    concept: u64,
    value: u64,
}

impl Rec<'_> {
    /// The record's text: kept, or read back from the store's file (and found unchanged).
    fn text(&self, file: Option<&std::fs::File>) -> Result<std::borrow::Cow<'_, str>> {
        if self.len == 0 {
            return Ok(self.text.into());
        }
        let changed = || unreadable("the store changed while it was compared");
        let file = file.ok_or_else(changed)?;
        let mut buf = vec![0; usize::try_from(self.len).map_err(|_| changed())?];
        crate::file_at::read_at(file, self.offset, &mut buf).map_err(unreadable)?;
        let text = String::from_utf8(buf).map_err(|_| changed())?;
        match crate::spill::hash_of(&text) == self.hash {
            true => Ok(text.into()),
            false => Err(changed()),
        }
    }
}

/// A pointer at a record: the record that names it in its supersedes, and where.
struct Ptr<'a> {
    target: &'a str,
    from: &'a str,
    line: u64,
    valid_from: &'a str,
}

fn records(bytes: &[u8]) -> Option<Vec<Rec<'_>>> {
    let mut r = Reader::new(bytes);
    let mut out = Vec::new();
    while !r.is_empty() {
        let (line, id) = (r.num()?, r.text()?);
        let (offset, len, hash, text) = (r.num()?, r.num()?, r.num()?, r.text()?);
        let n = r.num()?;
        let supersedes = (0..n).map(|_| r.text()).collect::<Option<Vec<_>>>()?;
        out.push(Rec {
            line,
            id,
            offset,
            len,
            hash,
            text,
            supersedes,
            valid_from: r.text()?,
            valid_to: r.text()?,
            concept: r.num()?,
            value: r.num()?,
        });
    }
    Some(out)
}

fn pointers(bytes: &[u8]) -> Option<Vec<Ptr<'_>>> {
    let mut r = Reader::new(bytes);
    let mut out = Vec::new();
    while !r.is_empty() {
        out.push(Ptr {
            target: r.text()?,
            from: r.text()?,
            line: r.num()?,
            valid_from: r.text()?,
        });
    }
    Some(out)
}

/// Records by id; an id twice on one side is bad input: matching by id needs one record an id.
fn by_id<'a>(recs: &'a [Rec<'a>], kept: &Kept, which: Which) -> Result<HashMap<&'a str, usize>> {
    let mut ids = HashMap::with_capacity(recs.len());
    for (i, rec) in recs.iter().enumerate() {
        if let Some(first) = ids.insert(rec.id, i) {
            return Err(super::input_error(
                which,
                &kept.side.store,
                format!(
                    "record_id {:?} is on line {} and again on line {}",
                    rec.id, recs[first].line, rec.line
                ),
                "a diff matches records by id, one record an id: run vercy check on this \
                 side (value.duplicate_id lists every repeat) and give each record its own id",
            ));
        }
    }
    Ok(ids)
}

/// Judge every partition, on every core, each one's findings gathered as it is judged, past
/// `limit` bytes of them in the temporary file. On bad input the error is the lowest
/// partition's, as every run of one diff finds the same.
pub fn judge(base: &Kept, head: &Kept, how: &Judging, limit: usize) -> Result<(Tally, Findings)> {
    let gather = Gather::new(limit);
    let tally = Mutex::new(Tally::default());
    let errors = Mutex::new(Vec::new());
    (0..PARTS)
        .into_par_iter()
        .for_each(|part| match judge_part(base, head, how, part) {
            Ok(judged) => {
                if let Ok(mut tally) = tally.lock() {
                    tally.add(&judged.tally);
                }
                gather.add(part, judged.findings);
            }
            Err(e) => errors
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((part, e)),
        });
    let errors = errors.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some((_, e)) = errors.into_iter().min_by_key(|(part, _)| *part) {
        return Err(e);
    }
    let tally = tally.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok((tally, gather.done()))
}

fn judge_part(base: &Kept, head: &Kept, how: &Judging, part: usize) -> Result<Judged> {
    let base_bytes = base.records.part(part).map_err(unreadable)?;
    let head_bytes = head.records.part(part).map_err(unreadable)?;
    let base_ptr_bytes = base.pointers.part(part).map_err(unreadable)?;
    let head_ptr_bytes = head.pointers.part(part).map_err(unreadable)?;
    let corrupt = || unreadable("an entry ends early");
    let base_recs = records(&base_bytes).ok_or_else(corrupt)?;
    let head_recs = records(&head_bytes).ok_or_else(corrupt)?;
    let base_ids = by_id(&base_recs, base, Which::Base)?;
    let head_ids = by_id(&head_recs, head, Which::Head)?;
    let base_ptrs: HashSet<(&str, &str)> = pointers(&base_ptr_bytes)
        .ok_or_else(corrupt)?
        .into_iter()
        .map(|p| (p.target, p.from))
        .collect();
    let mut head_ptrs: HashMap<&str, Vec<Ptr>> = HashMap::new();
    for p in pointers(&head_ptr_bytes).ok_or_else(corrupt)? {
        head_ptrs.entry(p.target).or_default().push(p);
    }

    let mut judged = Judged::default();
    for h in &head_recs {
        match base_ids.get(h.id) {
            None => {
                judged.tally.added += 1;
                judged.tally.added_superseding += usize::from(!h.supersedes.is_empty());
            }
            Some(&b) => {
                let superseded_by = head_ptrs.get(h.id).and_then(|ps| ps.first());
                let files = (base.file.as_ref(), head.file.as_ref());
                compare(&base_recs[b], h, files, superseded_by, how, &mut judged)?;
            }
        }
    }
    for b in base_recs.iter().filter(|b| !head_ids.contains_key(b.id)) {
        judged.findings.push(Finding {
            code: Code::Deleted,
            id: b.id.to_string(),
            base_line: b.line,
            head_line: 0,
            changes: Vec::new(),
            other: None,
        });
    }
    // each supersession HEAD adds, against the record it names
    let new_pointers = head_ptrs
        .values()
        .flatten()
        .filter(|p| !base_ptrs.contains(&(p.target, p.from)));
    for p in new_pointers {
        let in_head = head_ids.get(p.target).map(|&i| &head_recs[i]);
        let target = in_head.or_else(|| base_ids.get(p.target).map(|&i| &base_recs[i]));
        let finding = |code, line| Finding {
            code,
            id: p.from.to_string(),
            base_line: 0,
            head_line: p.line,
            changes: Vec::new(),
            other: Some(Other {
                id: p.target.to_string(),
                line,
            }),
        };
        match in_head {
            None => judged.findings.push(finding(Code::SupersededMissing, 0)),
            Some(t) if starts_before(p.valid_from, t.valid_from) => {
                judged.findings.push(finding(Code::StartsBefore, t.line))
            }
            Some(_) => {}
        }
        // a superseded record gone from HEAD is judged by the one BASE held
        if let Some(t) = target.filter(|_| in_head.is_none()) {
            if starts_before(p.valid_from, t.valid_from) {
                judged.findings.push(finding(Code::StartsBefore, 0));
            }
        }
    }
    Ok(judged)
}

/// The new record does not start after the one it supersedes (both dates readable).
fn starts_before(new: &str, old: &str) -> bool {
    match (crate::time::parse(new), crate::time::parse(old)) {
        (Ok(new), Ok(old)) => new.nanos <= old.nanos,
        _ => false,
    }
}

/// A value's JSON text: a date (not absent, not null).
fn is_date(json: &str) -> bool {
    !json.is_empty() && json != "null"
}

/// One record on both sides (`files`: each side's file, where its texts are read back from).
fn compare(
    b: &Rec,
    h: &Rec,
    files: (Option<&std::fs::File>, Option<&std::fs::File>),
    superseded_by: Option<&Ptr>,
    how: &Judging,
    judged: &mut Judged,
) -> Result<()> {
    if b.hash == h.hash {
        judged.tally.unchanged += 1;
        return Ok(());
    }
    let (old_text, new_text) = (b.text(files.0)?, h.text(files.1)?);
    let mut changes = Vec::new();
    match (record_object(&old_text), record_object(&new_text)) {
        (Some(old), Some(new)) => fields_changed("", &old, &new, how, &mut changes),
        // not objects after all (the reader took them): the record as one field
        _ => changes.push(Change {
            field: "(record)".to_string(),
            old: Some(Value::String(old_text.to_string())),
            new: Some(Value::String(new_text.to_string())),
        }),
    }
    if changes.is_empty() {
        judged.tally.unchanged += 1;
        judged.tally.times_moved += 1;
        return Ok(());
    }
    let finding = |code, changes| Finding {
        code,
        id: h.id.to_string(),
        base_line: b.line,
        head_line: h.line,
        changes,
        other: None,
    };
    if b.supersedes != h.supersedes {
        let mut taken = take(&mut changes, how.supersedes.as_deref());
        if taken.is_empty() {
            // a role computed from other keys: its values, as lists
            let list = |ids: &[&str]| Some(Value::from(ids.to_vec()));
            taken.push(Change {
                field: "supersedes".to_string(),
                old: list(&b.supersedes),
                new: list(&h.supersedes),
            });
        }
        judged
            .findings
            .push(finding(Code::SupersedesChanged, taken));
    }
    if let Some(by) = superseded_by.filter(|_| b.valid_to != h.valid_to && is_date(h.valid_to)) {
        let mut taken = take(&mut changes, how.valid_to.as_deref());
        if taken.is_empty() {
            taken.push(Change {
                field: "valid_to".to_string(),
                old: value_of(b.valid_to),
                new: value_of(h.valid_to),
            });
        }
        let mut ended = finding(Code::EndWritten, taken);
        ended.other = Some(Other {
            id: by.from.to_string(),
            line: by.line,
        });
        judged.findings.push(ended);
    }
    if changes.is_empty() {
        return Ok(());
    }
    let code = match b.concept != h.concept && b.value != h.value {
        true => Code::IdReused,
        false => Code::Edited,
    };
    judged.findings.push(finding(code, changes));
    Ok(())
}

/// A role's JSON text as a value (`None`: absent).
fn value_of(json: &str) -> Option<Value> {
    serde_json::from_str(json).ok()
}

/// Take out of `changes` those of the field at `path` (or inside it, or holding it).
fn take(changes: &mut Vec<Change>, path: Option<&str>) -> Vec<Change> {
    let Some(path) = path else {
        return Vec::new();
    };
    let inside =
        |a: &str, b: &str| a.len() > b.len() && a.starts_with(b) && a[b.len()..].starts_with('.');
    let (taken, kept) = std::mem::take(changes)
        .into_iter()
        .partition(|c| c.field == path || inside(&c.field, path) || inside(path, &c.field));
    *changes = kept;
    taken
}

/// The fields that differ between `old` and `new`, as paths under `prefix`: an object on
/// both sides is compared key by key (an engrama node's `properties`), anything else whole.
/// Fields that may move are left out.
fn fields_changed(
    prefix: &str,
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    how: &Judging,
    out: &mut Vec<Change>,
) {
    let keys = old
        .keys()
        .chain(new.keys().filter(|k| !old.contains_key(*k)));
    for key in keys {
        let path = format!("{prefix}{key}");
        if how.may_move.contains(&path) {
            continue;
        }
        match (old.get(key), new.get(key)) {
            (Some(Value::Object(a)), Some(Value::Object(b))) => {
                fields_changed(&format!("{path}."), a, b, how, out)
            }
            (a, b) if a != b => out.push(Change {
                field: path,
                old: a.cloned(),
                new: b.cloned(),
            }),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn judging() -> Judging {
        Judging {
            may_move: vec!["updated_at".into(), "properties.created_at".into()],
            supersedes: Some("supersedes".into()),
            valid_to: Some("valid_to".into()),
        }
    }

    fn changed(old: Value, new: Value) -> Vec<String> {
        let (Value::Object(old), Value::Object(new)) = (old, new) else {
            panic!("objects")
        };
        let mut out = Vec::new();
        fields_changed("", &old, &new, &judging(), &mut out);
        out.into_iter().map(|c| c.field).collect()
    }

    #[test]
    fn fields_are_compared_by_path_and_times_may_move() {
        assert_eq!(
            changed(
                json!({"a": 1, "updated_at": "x", "properties": {"created_at": 1, "v": 2}}),
                json!({"a": 1, "updated_at": "y", "properties": {"created_at": 2, "v": 3}, "n": 0})
            ),
            ["properties.v", "n"]
        );
        // a key gone is a change, its new value absent
        assert_eq!(changed(json!({"a": 1, "b": 2}), json!({"a": 1})), ["b"]);
        // numbers keep their text: 1.0 is not 1
        assert_eq!(changed(json!({"a": 1}), json!({"a": 1.0})), ["a"]);
    }

    #[test]
    fn a_change_is_taken_with_the_field_it_is_in() {
        let change = |field: &str| Change {
            field: field.into(),
            old: None,
            new: None,
        };
        let mut changes = vec![
            change("valid_to"),
            change("properties.valid_to"),
            change("v"),
        ];
        let taken = take(&mut changes, Some("properties.valid_to"));
        assert_eq!(taken, [change("properties.valid_to")]);
        assert_eq!(changes, [change("valid_to"), change("v")]);
        assert!(take(&mut changes, None).is_empty());
        assert!(starts_before("2025-01-01", "2025-01-01"));
        assert!(!starts_before("2025-01-02", "2025-01-01"));
        assert!(!starts_before("someday", "2025-01-01"));
    }
}
