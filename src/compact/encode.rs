//! A record into its compact line: judged by the selection, then written, on the decoding
//! threads. The fast path ([`SpanPlan`]) writes a JSON line's line from the texts of its values
//! where they lie, building nothing.

use crate::error::Result;
use crate::mapping::FieldMap;
use crate::record::{py_str, Record};
use crate::select::{self, Criteria, Supersession, Verdict};
use crate::store::compact::{self, Cell, CellKind, LineWriter};
use crate::store::{self, KeySelection, KeySlots};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashSet;

/// One record, encoded: what selection said, its line when kept, and the record itself when
/// the caller asked for records.
pub(super) struct Encoded {
    pub(super) verdict: Verdict,
    pub(super) line: Option<String>,
    pub(super) record: Option<Box<Record>>,
}

/// Turns records into lines, on any thread.
pub(super) struct Encoder<'a> {
    pub(super) criteria: &'a Criteria,
    /// Ids of records withheld from the reader: taken out of the supersedes written.
    pub(super) hidden: &'a HashSet<String>,
    pub(super) supersession: &'a Supersession,
    pub(super) inverse_supersedes: bool,
    pub(super) order: &'a [String],
    /// Set when the line can be written straight from the record's text (see [`SpanPlan`]).
    pub(super) plain: Option<SpanPlan>,
    pub(super) input_name: &'a str,
    /// The keys the engrama map reads.
    pub(super) engrama_keep: KeySelection,
}

/// The fast path: no inverse map, no records handed on, and a map that reads every field of
/// the order, and every role the selection asked for reads, from one plain top-level key. The
/// reader then builds nothing: it notes where each key's value lies in the line, the line is
/// written from those texts (a string without escapes, nearly every value, is copied as it
/// stands), and only the few values selection reads are decoded.
pub(super) struct SpanPlan {
    map: FieldMap,
    /// Every key read, each in its slot.
    keys: Vec<String>,
    slots: KeySlots,
    /// The slot of each field of the order.
    slot_of: Vec<usize>,
    /// How each field of the order is written.
    kinds: Vec<CellKind>,
    /// The keys (and slots) of the roles selection reads; empty without a selection.
    select: Vec<(String, usize)>,
}

impl SpanPlan {
    pub(super) fn new(
        map: &FieldMap,
        order: &[String],
        criteria: &Criteria,
        inverse_supersedes: bool,
        with_records: bool,
    ) -> Option<SpanPlan> {
        if inverse_supersedes || with_records {
            return None;
        }
        let key_of = |role: &str| map.path(role).single_key().map(str::to_string);
        let order_keys = order
            .iter()
            .map(|role| key_of(role))
            .collect::<Option<Vec<String>>>()?;
        let mut select_roles = Vec::new();
        if criteria.concept.is_some() {
            select_roles.push("concept");
        }
        if criteria.as_of.is_some() {
            select_roles.extend(["valid_from", "valid_to", "record_id"]);
        }
        if criteria.reader.is_some() {
            select_roles.push("release_to");
        }
        if criteria.known_at.is_some() {
            select_roles.extend(["recorded_at", "expired_at"]);
        }
        let mut select_keys = Vec::new();
        for role in select_roles {
            let key = key_of(role)?;
            if !select_keys.contains(&key) {
                select_keys.push(key);
            }
        }
        let mut keys = order_keys.clone();
        keys.extend(
            select_keys
                .iter()
                .filter(|k| !order_keys.contains(k))
                .cloned(),
        );
        let slots = KeySlots::new(keys.iter().map(String::as_str));
        let slot_of = order_keys
            .iter()
            .map(|k| slots.slot(k))
            .collect::<Option<Vec<usize>>>()?;
        let select = select_keys
            .into_iter()
            .map(|k| slots.slot(&k).map(|slot| (k, slot)))
            .collect::<Option<Vec<_>>>()?;
        Some(SpanPlan {
            map: map.clone(),
            keys,
            slots,
            slot_of,
            kinds: order.iter().map(|f| compact::cell_kind(f)).collect(),
            select,
        })
    }
}

impl Encoder<'_> {
    /// What the reader builds of each record: on the fast path nothing (the values' places
    /// in the line are noted instead), else `role_keep`: the keys the roles read.
    pub(super) fn keep(&self, role_keep: &KeySelection) -> KeySelection {
        match &self.plain {
            // an engrama dump's node lines are decoded again from their text (`rebuild`)
            Some(plain) => KeySelection::slots(plain.slots.clone()),
            None => role_keep.clone(),
        }
    }

    /// A record the fast path's reader built nothing of, when the store turns out to be an
    /// engrama dump: the keys the engrama map reads, from the line's text (validated already).
    pub(super) fn rebuild(&self, mut record: Record) -> Result<Record> {
        let keep = &self.engrama_keep;
        record.fields = match keep.decode_object(&record.raw) {
            Some(decoded) => decoded.fields,
            None => {
                let value: Value = serde_json::from_str(&record.raw).map_err(|e| {
                    store::json_error(self.input_name, &record.raw, record.origin.line, &e)
                })?;
                match value {
                    Value::Object(fields) => keep.trimmed(fields).fields,
                    _ => Map::new(),
                }
            }
        };
        record.spans = None;
        Ok(record)
    }

    /// Judge a record read through `map` and write its line when kept.
    pub(super) fn encode(
        &self,
        map: &FieldMap,
        record: Record,
        with_record: bool,
    ) -> Result<Encoded> {
        let verdict = select::judge(self.criteria, map, self.supersession, &record);
        let line = (verdict == Verdict::Keep).then(|| {
            record_line(
                &record,
                map,
                self.supersession,
                self.inverse_supersedes,
                self.order,
                self.hidden,
            )
        });
        Ok(Encoded {
            verdict,
            line,
            record: with_record.then(|| Box::new(record)),
        })
    }

    /// The fast path (see [`SpanPlan`]) for a record the reader built: from its values' places
    /// when it has them, else from its fields.
    pub(super) fn encode_plain(&self, plain: &SpanPlan, record: Record) -> Result<Encoded> {
        if record.spans.is_some() {
            return self.encode_texts(
                plain,
                |slot| record.span_text(slot),
                &record.raw,
                record.origin.line,
            );
        }
        // decoded whole (a store's first line, an array element, a compact line): when the
        // reader kept none of the keys, they are in the line's text
        if plain.keys.iter().any(|k| record.fields.contains_key(k)) {
            return self.encode(&plain.map, record, false);
        }
        match serde_json::from_str::<Value>(&record.raw) {
            Ok(Value::Object(fields)) => {
                let whole = Record::new(fields, "", record.origin);
                self.encode(&plain.map, whole, false)
            }
            _ => self.encode(&plain.map, record, false),
        }
    }

    /// The fast path for a JSON line the reader's scanner took: judged and written from the
    /// values' texts where they lie in the line, nothing built, nothing copied but the line.
    pub(super) fn encode_view(
        &self,
        plain: &SpanPlan,
        view: store::View,
    ) -> Result<Option<Encoded>> {
        self.encode_texts(plain, |slot| view.slot_text(slot), view.text, view.line)
            .map(Some)
    }

    /// Judge and write a record from each key's JSON text, by slot (`text_of`); `whole` and
    /// `line_no` are the record's text and line, for an error.
    fn encode_texts<'t>(
        &self,
        plain: &SpanPlan,
        text_of: impl Fn(usize) -> Option<&'t str>,
        whole: &str,
        line_no: u64,
    ) -> Result<Encoded> {
        let verdict = match plain.select.is_empty() {
            true => Verdict::Keep,
            false => {
                // only the values selection reads are built
                let mut fields = Map::new();
                for (key, slot) in &plain.select {
                    if let Some(text) = text_of(*slot) {
                        let value: Value = serde_json::from_str(text)
                            .map_err(|e| store::json_error(self.input_name, whole, line_no, &e))?;
                        fields.insert(key.clone(), value);
                    }
                }
                let record = Record::new(fields, "", Default::default());
                select::judge(self.criteria, &plain.map, self.supersession, &record)
            }
        };
        let line = match verdict {
            Verdict::Keep => Some(self.line_from_texts(plain, &text_of, whole, line_no)?),
            _ => None,
        };
        Ok(Encoded {
            verdict,
            line,
            record: None,
        })
    }

    /// A line from each field's JSON text, by slot (`text_of`); `whole` and `line_no` are the
    /// record's text and line, for an error.
    fn line_from_texts<'t>(
        &self,
        plain: &SpanPlan,
        text_of: &impl Fn(usize) -> Option<&'t str>,
        whole: &str,
        line_no: u64,
    ) -> Result<String> {
        let mut line = String::with_capacity(whole.len());
        let mut writer = LineWriter::new(&mut line);
        for (&slot, &kind) in plain.slot_of.iter().zip(&plain.kinds) {
            self.raw_cell(&mut writer, text_of(slot), kind, whole, line_no)?;
        }
        writer.finish();
        Ok(line)
    }

    /// Write one field from its JSON text (`None`: absent): a string without escapes is taken
    /// as it stands (nearly every value), null is null, anything else is decoded first.
    fn raw_cell(
        &self,
        writer: &mut LineWriter,
        text: Option<&str>,
        kind: CellKind,
        whole: &str,
        line_no: u64,
    ) -> Result<()> {
        match text {
            None => writer.cell(Cell::Absent, kind),
            Some("null") => writer.cell(Cell::Value(&Value::Null), kind),
            Some(t)
                if t.len() >= 2
                    && t.starts_with('"')
                    && memchr::memchr(b'\\', t.as_bytes()).is_none() =>
            {
                writer.cell(Cell::Text(&t[1..t.len() - 1]), kind)
            }
            Some(t) => {
                let value: Value = serde_json::from_str(t)
                    .map_err(|e| store::json_error(self.input_name, whole, line_no, &e))?;
                writer.cell(Cell::Value(&value), kind);
            }
        }
        Ok(())
    }
}

/// A record's compact line: each role of the order read through the map. With an inverse
/// supersedes map the supersedes field is derived from the old records' pointers, so the line
/// form (which has no inverse) still says who supersedes whom.
fn record_line(
    record: &Record,
    map: &FieldMap,
    supersession: &Supersession,
    inverse_supersedes: bool,
    order: &[String],
    hidden: &HashSet<String>,
) -> String {
    let values: Vec<Option<Cow<Value>>> = order
        .iter()
        .map(|role| {
            if role == "supersedes" && inverse_supersedes {
                let ids: Vec<String> = select::record_id(map, record)
                    .map(|id| supersession.superseded_by_record(&id).to_vec())
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|id| !hidden.contains(id))
                    .collect();
                return match ids.len() {
                    0 => None,
                    1 => Some(Cow::Owned(Value::String(ids[0].clone()))),
                    _ => Some(Cow::Owned(Value::Array(
                        ids.into_iter().map(Value::String).collect(),
                    ))),
                };
            }
            match map.get(role, &record.fields) {
                Some(v) if role == "supersedes" && !hidden.is_empty() => without_hidden(v, hidden),
                other => other,
            }
        })
        .collect();
    let mut line = String::new();
    compact::write_line(
        &mut line,
        values.iter().zip(order).map(|(v, field)| {
            let cell = v.as_deref().map_or(Cell::Absent, Cell::Value);
            (cell, field.as_str())
        }),
    );
    line
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
