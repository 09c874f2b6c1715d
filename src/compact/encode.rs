//! A record into its compact line: judged by the selection, then written, on the decoding
//! threads, from the reader's view of it. A JSON line seen in place is written from the texts
//! of its values where they lie (a string without escapes, nearly every value, copied as it
//! stands), building nothing; a record built as fields, from its values.

use crate::python::json::py_json;
use crate::record::{py_str, Record};
use crate::select::{self, Criteria, SelectRoles, Supersession, Verdict};
use crate::store::compact::{self, Cell, CellKind, LineWriter};
use crate::store::{RawOrValue, RecordView, Role, RoleSet, RoleValue};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashSet;

/// One record, encoded: what selection said, its line when kept, and its sizes when the
/// caller counts them.
pub(super) struct Encoded {
    pub(super) verdict: Verdict,
    pub(super) line: Option<String>,
    pub(super) size: Option<RecordSize>,
    /// Where the record starts in the input (for the progress bar).
    pub(super) offset: u64,
}

/// A record's characters in JSON lines: its own line as read, and as Python's `json.dumps`
/// writes it (each with its `\n`), for `--stats`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RecordSize {
    pub raw_chars: usize,
    pub dumped_chars: usize,
}

impl RecordSize {
    fn of(record: &Record) -> RecordSize {
        let mut text = String::new();
        py_json(&Value::Object(record.fields.clone()), &mut text);
        RecordSize {
            raw_chars: record.raw.chars().count() + 1,
            dumped_chars: text.chars().count() + 1,
        }
    }
}

/// Turns records into lines, on any thread.
pub(super) struct Encoder<'a> {
    pub(super) criteria: &'a Criteria,
    pub(super) roles: SelectRoles,
    /// Ids of records withheld from the reader that a record kept may name: taken out of the
    /// supersedes written.
    pub(super) hidden: &'a HashSet<String>,
    pub(super) supersession: &'a Supersession,
    pub(super) inverse_supersedes: bool,
    /// The form's fields in order, each as the role it reads and how its cell is written.
    pub(super) cells: Vec<(Role, CellKind)>,
    /// Count each record's sizes (`--stats`: the records are read whole).
    pub(super) sizes: bool,
}

impl<'a> Encoder<'a> {
    /// The cells of the form's fields (`order`), numbered in `set`.
    pub(super) fn cells(set: &RoleSet, order: &'static [String]) -> Vec<(Role, CellKind)> {
        order
            .iter()
            .map(|field| (set.role(field.as_str()), compact::cell_kind(field)))
            .collect()
    }

    /// Judge a record and write its line when kept: but for supersession, which the caller
    /// settles in store order ([`Verdict::unless_ended`]).
    pub(super) fn encode(&self, view: &RecordView) -> Encoded {
        let verdict = match self.criteria.is_empty() {
            true => Verdict::Keep,
            false => select::judge(self.criteria, &self.roles, view),
        };
        let line = match verdict {
            Verdict::Keep => Some(self.line(view)),
            _ => None,
        };
        let size = match self.sizes && line.is_some() {
            true => view.record().map(RecordSize::of),
            false => None,
        };
        Encoded {
            verdict,
            line,
            size,
            offset: view.origin.offset,
        }
    }

    /// The record's line: each field of the order from its value's text where the view has
    /// it, else from its value; supersedes from the whole store's pointers when the map has
    /// it inverse, and without the ids withheld from the reader.
    fn line(&self, view: &RecordView) -> String {
        let mut line = String::with_capacity(view.text.len());
        let mut writer = LineWriter::new(&mut line);
        let derived = self.inverse_supersedes || !self.hidden.is_empty();
        for &(role, kind) in &self.cells {
            if derived && role == self.roles.supersedes() {
                let value = self.supersedes(view, role);
                writer.cell(value.as_deref().map_or(Cell::Absent, Cell::Value), kind);
            } else {
                match view.raw_or_value(role) {
                    None => writer.cell(Cell::Absent, kind),
                    Some(RawOrValue::Raw(text)) => Self::raw_cell(&mut writer, text, kind),
                    Some(RawOrValue::Value(value)) => writer.cell(Cell::Value(&value.json()), kind),
                }
            }
        }
        writer.finish();
        line
    }

    /// The supersedes written: with an inverse map, derived from the old records' pointers (the
    /// line form has no inverse, so it still says who supersedes whom); the ids of records
    /// withheld from the reader left out.
    fn supersedes(&self, view: &RecordView, role: Role) -> Option<Cow<'static, Value>> {
        if self.inverse_supersedes {
            let ids: Vec<String> = select::record_id(&self.roles, view)
                .map(|id| self.supersession.superseded_by_record(&id).to_vec())
                .unwrap_or_default()
                .into_iter()
                .filter(|id| !self.hidden.contains(id))
                .collect();
            return match ids.len() {
                0 => None,
                1 => Some(Cow::Owned(Value::String(ids[0].clone()))),
                _ => Some(Cow::Owned(Value::Array(
                    ids.into_iter().map(Value::String).collect(),
                ))),
            };
        }
        let value = view.get(role)?.into_json();
        without_hidden(Cow::Owned(value), self.hidden)
    }

    /// Write one field from its JSON text: a string without escapes is taken
    /// as it stands (nearly every value), null is null, anything else is read as the reader
    /// read it (serde_json, else Python's reading: a line only Python takes is written too).
    ///
    /// The first two are [`RoleValue::of_raw`]'s own tests, written again here so that they
    /// stay in this loop over every cell: through `of_raw`, which the compiler keeps out of
    /// line, and a `RoleValue` a cell, compact cost more (bench/NOTES.md).
    fn raw_cell(writer: &mut LineWriter, text: &str, kind: CellKind) {
        match text {
            "null" => writer.cell(Cell::Value(&Value::Null), kind),
            t if t.len() >= 2
                && t.starts_with('"')
                && memchr::memchr(b'\\', t.as_bytes()).is_none() =>
            {
                writer.cell(Cell::Text(&t[1..t.len() - 1]), kind)
            }
            t => writer.cell(Cell::Value(&RoleValue::of_raw(t).into_json()), kind),
        }
    }
}

/// The ids a supersedes value names, as [`without_hidden`] compares them with the ids withheld
/// from the reader.
pub(super) fn named_ids(value: &Value) -> Vec<String> {
    match value {
        Value::Array(items) => items.iter().map(py_str).collect(),
        v => vec![py_str(v)],
    }
}

/// A supersedes value without the ids of records withheld from the reader (a visible
/// record's pointer must not name what the reader may not see); `None` when nothing is left.
fn without_hidden<'v>(value: Cow<'v, Value>, hidden: &HashSet<String>) -> Option<Cow<'v, Value>> {
    match value.as_ref() {
        Value::Array(items) => {
            let kept: Vec<Value> = items
                .iter()
                .filter(|i| !hidden.contains(&py_str(i)))
                .cloned()
                .collect();
            match (kept.len(), items.len()) {
                (0, _) => None,
                (k, n) if k == n => Some(value),
                _ => Some(Cow::Owned(Value::Array(kept))),
            }
        }
        v if hidden.contains(&py_str(v)) => None,
        _ => Some(value),
    }
}
