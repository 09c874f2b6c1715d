//! A store ranked by read-time recency: every node (engrama dumps, degree from the relation
//! lines) or record (flat stores, through the field map) scored as of a time, highest first,
//! and the ranking rendered as JSON or for a person.

use super::{degree::Graph, Basis, Score, SettingOrigin, Settings, Subject};
use crate::error::Result;
use crate::mapping::FieldMap;
use crate::python::float_repr;
use crate::record::{py_str, Record};
use crate::store::{self, Entry, Input, NonRecordLine};
use crate::time::Timestamp;
use serde_json::{json, Map, Value};

/// One scored node or record.
pub struct Row {
    line: u64,
    label: Option<String>,
    /// engrama nodes only.
    key_value: Option<String>,
    record_id: Option<String>,
    degree: u64,
    score: Score,
}

/// Highest first, unknown last; ties keep the store's order.
pub fn rank(rows: &mut [Row]) {
    rows.sort_by(|a, b| {
        let key = |r: &Row| r.score.recency.unwrap_or(f64::NEG_INFINITY);
        key(b).total_cmp(&key(a))
    });
}

/// The records whose timestamp did not read: their line and why.
pub type Unreadable = Vec<(u64, String)>;

pub fn score_store(
    input: &Input,
    map: &FieldMap,
    settings: &Settings,
    as_of: &Timestamp,
) -> Result<(Vec<Row>, Unreadable)> {
    let mut graph = Graph::default();
    let mut engrama = false;
    // nodes wait for their degree (relation lines come after them); flat records are final
    let mut pending: Vec<(Record, usize)> = Vec::new();
    let mut rows = Vec::new();
    let mut unreadable = Vec::new();
    store::read(input, &mut |entry| {
        match entry {
            Entry::NonRecord(NonRecordLine::EngramaHeader, _) => engrama = true,
            Entry::NonRecord(NonRecordLine::Relation, rel) => graph.add_relation(&rel.fields),
            Entry::NonRecord(NonRecordLine::Vector, _) => {}
            Entry::Record(rec) if engrama => {
                let index = graph.add_node(&rec.fields);
                pending.push((slim_node(rec), index));
            }
            Entry::Record(rec) => {
                let label = map
                    .get("label", &rec.fields)
                    .filter(|v| !v.is_null())
                    .map(|v| py_str(&v));
                let last = map.get("last_activity_at", &rec.fields);
                let updated = map.get("updated_at", &rec.fields);
                let query = map.get("source_query", &rec.fields);
                let subject = Subject {
                    label: label.as_deref(),
                    last_activity_at: last.as_deref(),
                    updated_at: updated.as_deref(),
                    source_query: query.as_deref(),
                    degree: 0,
                };
                let score = scored(&subject, settings, as_of, rec.origin.line, &mut unreadable);
                let record_id = match map.get("record_id", &rec.fields) {
                    Some(v) if crate::record::is_filled(&v) => py_str(&v),
                    _ => format!("#{}", rec.origin.index),
                };
                rows.push(Row {
                    line: rec.origin.line,
                    label,
                    key_value: None,
                    record_id: Some(record_id),
                    degree: 0,
                    score,
                });
            }
        }
        Ok(())
    })?;
    let degrees = graph.degrees();
    for (rec, index) in pending {
        let f = &rec.fields;
        let props = f.get("properties").and_then(Value::as_object);
        let prop = |k: &str| props.and_then(|p| p.get(k));
        let label = f.get("label").map(py_str);
        let degree = degrees.get(index).copied().unwrap_or(0);
        let subject = Subject {
            label: label.as_deref(),
            last_activity_at: prop("last_activity_at"),
            updated_at: prop("updated_at"),
            source_query: prop("source_query"),
            degree,
        };
        let score = scored(&subject, settings, as_of, rec.origin.line, &mut unreadable);
        rows.push(Row {
            line: rec.origin.line,
            label,
            key_value: Some(f.get("key_value").map(py_str).unwrap_or_default()),
            record_id: None,
            degree,
            score,
        });
    }
    rows.sort_by_key(|r| r.line);
    unreadable.sort();
    Ok((rows, unreadable))
}

/// Keep only what recency reads from a node line (a dump's nodes may carry long bodies).
fn slim_node(rec: Record) -> Record {
    let mut fields = Map::new();
    for key in ["label", "key_value"] {
        if let Some(v) = rec.fields.get(key) {
            fields.insert(key.into(), v.clone());
        }
    }
    if let Some(props) = rec.fields.get("properties").and_then(Value::as_object) {
        let mut kept = Map::new();
        for key in ["last_activity_at", "updated_at", "source_query"] {
            if let Some(v) = props.get(key) {
                kept.insert(key.into(), v.clone());
            }
        }
        fields.insert("properties".into(), Value::Object(kept));
    }
    Record::new(fields, "", rec.origin)
}

fn scored(
    subject: &Subject,
    settings: &Settings,
    as_of: &Timestamp,
    line: u64,
    unreadable: &mut Unreadable,
) -> Score {
    super::score(subject, settings, as_of).unwrap_or_else(|e| {
        unreadable.push((line, e.to_string()));
        Score {
            recency: None,
            age_days: None,
            half_life: None,
            basis: Basis::Unknown,
        }
    })
}

fn number(v: Option<f64>) -> Value {
    v.map_or(Value::Null, |f| json!(f))
}

pub fn render_json(rows: &[Row]) -> String {
    let items: Vec<Value> = rows
        .iter()
        .map(|r| {
            let mut o = Map::new();
            o.insert(
                "label".into(),
                r.label.clone().map_or(Value::Null, Value::String),
            );
            match &r.key_value {
                Some(key) => {
                    o.insert("key_value".into(), Value::String(key.clone()));
                }
                None => {
                    o.insert("record_id".into(), json!(r.record_id));
                }
            }
            o.insert("degree".into(), json!(r.degree));
            o.insert("recency".into(), number(r.score.recency));
            o.insert("age_days".into(), number(r.score.age_days));
            o.insert("half_life".into(), number(r.score.half_life));
            o.insert("basis".into(), json!(r.score.basis.name()));
            o.insert("line".into(), json!(r.line));
            Value::Object(o)
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&Value::Array(items)).unwrap_or_default();
    text.push('\n');
    text
}

pub fn render_human(rows: &[Row], total: usize, s: &Settings, as_of: Option<&str>) -> String {
    let setting = |v: String, o: SettingOrigin| format!("{v} ({})", o.name());
    let mut out = format!(
        "recency as of {}: half-life {}, system Insights {}, degree factor {}\n",
        as_of.unwrap_or("now"),
        setting(
            format!("{} d", float_repr(s.half_life.value)),
            s.half_life.source
        ),
        setting(
            format!("{} d", float_repr(s.insight_half_life.value)),
            s.insight_half_life.source
        ),
        setting(
            if s.degree.value { "on" } else { "off" }.into(),
            s.degree.source
        ),
    );
    let table: Vec<[String; 6]> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let name = match (&r.key_value, &r.record_id) {
                (Some(key), _) => format!("{} {key}", r.label.as_deref().unwrap_or("?")),
                (None, Some(id)) => match &r.label {
                    Some(l) => format!("{id} ({l})"),
                    None => id.clone(),
                },
                (None, None) => String::new(),
            };
            [
                (i + 1).to_string(),
                r.score
                    .recency
                    .map_or("unknown".into(), |v| format!("{v:.6}")),
                r.score.age_days.map_or("-".into(), |v| format!("{v:.1}")),
                r.degree.to_string(),
                match (r.score.basis, r.score.half_life) {
                    (Basis::Anchor, _) => "anchor".into(),
                    (_, Some(h)) => format!("{h:.1}"),
                    _ => "-".into(),
                },
                crate::text::terminal_safe(&name).into_owned(),
            ]
        })
        .collect();
    let header = ["rank", "score", "age (days)", "degree", "half-life", "node"].map(String::from);
    let mut widths = header.clone().map(|h| h.chars().count());
    for row in &table {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in std::iter::once(&header).chain(&table) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<w$}  ", w = widths[i]));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if total == 0 {
        out.push_str("(no records)\n");
    } else if rows.len() < total {
        out.push_str(&format!("({} of {total} shown)\n", rows.len()));
    }
    out
}
