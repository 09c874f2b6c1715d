//! engrama NDJSON v1, the way `engrama export` (0.18.1, `engrama/migrate.py`) writes it.
//!
//! Line 1 is the envelope `{"engrama_export": 1, "version", "exported_at", "source_backend",
//! "embedding_model", "embedding_dimensions"}`; then node lines (`type, label, key_field,
//! key_value, properties`), relation lines, vector lines, each `json.dumps(obj,
//! ensure_ascii=False)` with the default separators. This module holds the identity rules
//! (what makes two lines the same node, edge or vector) and the conversion of a flat record
//! into a node line and back.

use crate::error::{Position, Result, VercyError};
use crate::python::json::python_text;
use crate::record::{is_blank, kind_name, Record};
use crate::record::{record_text, whole_fields};
use crate::store::decode::keep::{KeySelection, KeySlots, RawFields};
use crate::store::view::{Role, RoleValue, ViewPlan};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::sync::LazyLock;

/// The export format version engrama writes and reads.
pub const FORMAT_VERSION: u64 = 1;

/// Labels keyed on `title` rather than `name` (engrama.core.schema.TITLE_KEYED_LABELS).
pub const TITLE_KEYED_LABELS: [&str; 7] = [
    "Experiment",
    "Vulnerability",
    "Decision",
    "Problem",
    "Exercise",
    "Photo",
    "Insight",
];

/// The label given to the records of a flat store when `--label` is not given: a profile
/// record states something about one concept.
pub const DEFAULT_LABEL: &str = "Concept";

/// `source_backend` of a dump that vercy wrote from a flat store. Importing such a dump into a
/// new store gives back flat records (the node properties are the records, byte for byte).
pub const FLAT_BACKEND: &str = "jsonl";

/// The merge key engrama uses for a label.
pub fn key_field(label: &str) -> &'static str {
    if TITLE_KEYED_LABELS.contains(&label) {
        "title"
    } else {
        "name"
    }
}

/// The envelope of a dump written from a flat store, stamped with the export time as engrama
/// stamps it. The records' own timestamps are never touched.
pub fn flat_envelope(exported_at: &str) -> String {
    envelope(FLAT_BACKEND, exported_at)
}

/// The envelope line of a dump vercy writes from `backend`, without vectors.
pub fn envelope(backend: &str, exported_at: &str) -> String {
    let mut m = Map::new();
    m.insert("engrama_export".into(), Value::from(FORMAT_VERSION));
    m.insert(
        "version".into(),
        Value::from(format!("vercy {}", env!("CARGO_PKG_VERSION"))),
    );
    m.insert("exported_at".into(), Value::from(exported_at));
    m.insert("source_backend".into(), Value::from(backend));
    m.insert("embedding_model".into(), Value::from(""));
    m.insert("embedding_dimensions".into(), Value::from(0));
    python_text(&m)
}

/// The keys of a dump's envelope line, as engrama writes it (every version since 0.9).
pub const ENVELOPE_KEYS: [&str; 6] = [
    "engrama_export",
    "version",
    "exported_at",
    "source_backend",
    "embedding_model",
    "embedding_dimensions",
];

/// An engrama dump's envelope line: `engrama_export` with others of the envelope's keys and
/// nothing else. A record that merely holds an `engrama_export` key is a record.
pub fn is_envelope(first: &Map<String, Value>) -> bool {
    first.contains_key("engrama_export")
        && first.len() >= 2
        && first.keys().all(|k| ENVELOPE_KEYS.contains(&k.as_str()))
}

/// Did vercy write this dump from a flat store?
pub fn is_flat_envelope(header: &Map<String, Value>) -> bool {
    header.get("source_backend").and_then(Value::as_str) == Some(FLAT_BACKEND)
}

/// `embedding_dimensions` of an envelope (0 when absent or not a number).
pub fn embedding_dimensions(header: &Map<String, Value>) -> u64 {
    header
        .get("embedding_dimensions")
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

/// The time now as Python's `datetime.now(UTC).isoformat()` writes it
/// (`2026-11-29T21:21:46.440880+00:00`, no fraction on a whole second). `SOURCE_DATE_EPOCH`
/// (seconds) pins it for reproducible output.
pub fn exported_at_now() -> String {
    let nanos = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .map(|s| s as i128 * 1_000_000_000)
        .unwrap_or_else(|| crate::time::now().nanos);
    crate::time::python_isoformat_utc(nanos)
}

/// A flat record as a node line under `label`: key_value is the record_id (through the map),
/// properties are the record itself, its own bytes when it has them, so that importing the
/// dump gives the record back unchanged.
pub fn node_line(record: &Record, label: &str, plan: &ViewPlan, store: &str) -> Result<String> {
    let view = plan.view(record, true);
    let id = view.get(Role::by_name("record_id"));
    let key_value = match id.as_ref().map(RoleValue::json).as_deref() {
        // a blank id is a missing one, as `check` and import's identity judge it
        Some(Value::String(s)) if !is_blank(s) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        other => {
            let found = match other {
                None => "no record_id".to_string(),
                Some(Value::String(_)) => "a blank record_id".to_string(),
                Some(v) => format!("a record_id that is {}", kind_name(v)),
            };
            return Err(VercyError::Shape {
                path: store.to_string(),
                pos: Position {
                    line: record.origin.line,
                    column: 1,
                },
                message: format!("{found}: an engrama node needs a key value"),
                help: format!(
                    "give every record a string record_id, or name the field that holds it with \
                     --map record_id=FIELD (mapped: {})",
                    plan.map().path("record_id").text
                ),
            });
        }
    };
    let head = python_text(&serde_json::json!({
        "type": "node",
        "label": label,
        "key_field": key_field(label),
        "key_value": key_value,
    }));
    // `{"type": …, "key_value": "…"}` + `, "properties": ` + record + `}`
    let mut line = String::with_capacity(head.len() + record.raw.len() + 20);
    line.push_str(head.strip_suffix('}').unwrap_or(&head));
    line.push_str(", \"properties\": ");
    line.push_str(&record_text(record));
    line.push('}');
    Ok(line)
}

#[derive(Deserialize)]
struct NodeProperties<'a> {
    #[serde(borrow)]
    properties: Option<&'a RawValue>,
}

/// The properties of a node line as a flat record: their exact text in the line and their
/// fields. `None` when the node carries no properties object.
pub fn node_properties(node: &Record) -> Option<(String, Map<String, Value>)> {
    let fields = match whole_fields(node).get("properties") {
        Some(Value::Object(p)) => p.clone(),
        _ => return None,
    };
    let text = serde_json::from_str::<NodeProperties>(&node.raw)
        .ok()
        .and_then(|n| n.properties.map(|p| p.get().to_string()))
        .filter(|t| !t.contains(['\n', '\r']))
        .unwrap_or_else(|| python_text(&fields));
    Some((text, fields))
}

/// Lines of an engrama dump that are not records but travel with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonRecordLine {
    /// The first line: `{"engrama_export": 1, "version": …}`.
    EngramaHeader,
    Relation,
    Vector,
}

/// The key that says a line's kind (`"node"`, `"relation"`, `"vector"`).
pub const KIND_KEY: &str = "type";

/// The kinds of lines after the envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Node,
    Relation,
    Vector,
}

impl LineKind {
    /// The keys engrama's importer reads from a line of this kind (it fails on a missing one).
    fn required(self) -> &'static [&'static str] {
        match self {
            LineKind::Node => &["label", "key_field", "key_value", "properties"],
            LineKind::Relation => &[
                "from_label",
                "from_key",
                "from_value",
                "rel_type",
                "to_label",
                "to_key",
                "to_value",
            ],
            LineKind::Vector => &["label", "key_field", "key_value", "vector"],
        }
    }

    pub fn of_non_record(non_record: NonRecordLine) -> Option<LineKind> {
        match non_record {
            NonRecordLine::Relation => Some(LineKind::Relation),
            NonRecordLine::Vector => Some(LineKind::Vector),
            NonRecordLine::EngramaHeader => None,
        }
    }
}

/// Refuse a line engrama could not import: a required key missing or null, properties that
/// are not an object, a vector that is not a list.
pub fn check_line(kind: LineKind, line: &LineView, dump: &str, at: &Record) -> Result<()> {
    let missing: Vec<&str> = kind
        .required()
        .iter()
        .copied()
        .filter(|k| matches!(line.kind_of(k), None | Some(b'n')))
        .collect();
    let wrong = match kind {
        LineKind::Node => line
            .kind_of("properties")
            .filter(|&b| b != b'{' && b != b'n')
            .map(|_| "`properties` is not an object"),
        LineKind::Vector => line
            .kind_of("vector")
            .filter(|&b| b != b'[' && b != b'n')
            .map(|_| "`vector` is not a list"),
        LineKind::Relation => None,
    };
    let message = if !missing.is_empty() {
        format!(
            "a {} line without {}",
            kind.name(),
            crate::store::decode::locate::key_list(&missing)
        )
    } else if let Some(w) = wrong {
        format!("a {} line whose {w}", kind.name())
    } else {
        return Ok(());
    };
    Err(VercyError::Shape {
        path: dump.to_string(),
        pos: Position {
            line: at.origin.line,
            column: 1,
        },
        message,
        help: format!(
            "engrama NDJSON v1 {} lines carry {}",
            kind.name(),
            kind.required().join(", ")
        ),
    })
}

impl LineKind {
    fn name(self) -> &'static str {
        match self {
            LineKind::Node => "node",
            LineKind::Relation => "relation",
            LineKind::Vector => "vector",
        }
    }
}

/// The top-level keys of an engrama line that its checks and identities read.
pub const LINE_KEYS: [&str; 14] = [
    "label",
    "key_field",
    "key_value",
    "properties",
    "vector",
    "from_label",
    "from_key",
    "from_value",
    "rel_type",
    "to_label",
    "to_key",
    "to_value",
    "org_id",
    "user_id",
];

/// The place of a key in [`LINE_KEYS`] (a match, not a search: it is asked a few times a line).
fn line_slot(key: &str) -> Option<usize> {
    Some(match key {
        "label" => 0,
        "key_field" => 1,
        "key_value" => 2,
        "properties" => 3,
        "vector" => 4,
        "from_label" => 5,
        "from_key" => 6,
        "from_value" => 7,
        "rel_type" => 8,
        "to_label" => 9,
        "to_key" => 10,
        "to_value" => 11,
        "org_id" => 12,
        "user_id" => 13,
        _ => return None,
    })
}

static LINE_SLOTS: LazyLock<KeySlots> = LazyLock::new(|| KeySlots::new(LINE_KEYS));
const OWNER_KEYS: [&str; 2] = ["org_id", "user_id"];
static OWNER_SLOTS: LazyLock<KeySlots> = LazyLock::new(|| KeySlots::new(OWNER_KEYS));

/// How to read lines for [`LineView`]: their text kept and checked whole, nothing built, the
/// places of the keys that checks and identities read noted.
pub fn line_keep() -> KeySelection {
    KeySelection::slots(LINE_SLOTS.clone())
}

/// The values of an engrama line that its checks and identities read: from its text at the
/// places the reader noted (read with [`line_keep`]; nothing else of the line is built), or
/// from its fields.
pub enum LineView<'a> {
    Text(&'a Record),
    Fields(Cow<'a, Map<String, Value>>),
}

impl<'a> LineView<'a> {
    pub fn of(record: &'a Record) -> LineView<'a> {
        match &record.spans {
            Some(spans) if spans.len() == LINE_KEYS.len() => LineView::Text(record),
            _ => LineView::Fields(whole_fields(record)),
        }
    }

    pub fn of_fields(fields: &'a Map<String, Value>) -> LineView<'a> {
        LineView::Fields(Cow::Borrowed(fields))
    }

    fn text(record: &'a Record, key: &str) -> Option<&'a str> {
        record.span_text(line_slot(key)?)
    }

    /// The first byte of the value's JSON text (`{` an object, `[` a list, `n` null; `0` for
    /// anything else built); `None` when the key is absent.
    fn kind_of(&self, key: &str) -> Option<u8> {
        match self {
            LineView::Text(r) => LineView::text(r, key).and_then(|t| t.bytes().next()),
            LineView::Fields(f) => f.get(key).map(|v| match v {
                Value::Object(_) => b'{',
                Value::Array(_) => b'[',
                Value::Null => b'n',
                _ => b'0',
            }),
        }
    }

    /// One part of an identity. engrama matches owners with `COALESCE(org_id, '')`, so an
    /// absent, null or empty org_id / user_id are the same owner (none).
    fn owner(&self, key: &str) -> Value {
        match self {
            LineView::Text(r) => owner_text(LineView::text(r, key)),
            LineView::Fields(f) => owner(f, key),
        }
    }

    /// The owner of a node: org_id and user_id of its properties.
    fn property_owners(&self) -> [Value; 2] {
        match self {
            LineView::Text(r) => {
                let props = LineView::text(r, "properties").filter(|t| t.starts_with('{'));
                let [org, user] = match props {
                    None => [None, None],
                    Some(t) => scan_keys(t, OWNER_KEYS).unwrap_or_else(|| {
                        // a key written with escapes: let serde_json read it
                        let fields = RawFields::parse(t, &OWNER_SLOTS);
                        let fields = fields.as_ref();
                        [0, 1].map(|slot| fields.and_then(|f| f.get(slot)))
                    }),
                };
                [owner_text(org), owner_text(user)]
            }
            LineView::Fields(f) => match f.get("properties").and_then(Value::as_object) {
                Some(props) => OWNER_KEYS.map(|key| owner(props, key)),
                None => [Value::from(""), Value::from("")],
            },
        }
    }
}

/// The text of the values of `keys` at the top level of a JSON object's text that the reader
/// has validated (the last one, when a key is repeated, as a whole read keeps it; `None` for
/// a key the object does not have); `None` when a key is written with escapes
/// (or the text is not what a validated object looks like), for serde_json to read instead.
/// Values are stepped over by their delimiters alone, which a validated text makes safe.
fn scan_keys<'t, const N: usize>(object: &'t str, keys: [&str; N]) -> Option<[Option<&'t str>; N]> {
    let b = object.as_bytes();
    let mut found = [None; N];
    let mut i = skip_space(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_space(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return Some(found);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(b, i)?;
        let name = &b[i + 1..key_end - 1];
        if name.contains(&b'\\') {
            return None;
        }
        i = skip_space(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_space(b, i + 1);
        let value_end = value_end(b, i)?;
        if let Some(k) = keys.iter().position(|k| k.as_bytes() == name) {
            found[k] = Some(object.get(i..value_end)?);
        }
        i = skip_space(b, value_end);
        match b.get(i) {
            Some(b',') => i = skip_space(b, i + 1),
            Some(b'}') => return Some(found),
            _ => return None,
        }
    }
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// Just past the string that starts at `start` (its opening quote).
fn string_end(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        let j = i + memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
        if b[j] == b'\\' {
            i = j + 2;
        } else {
            return Some(j + 1);
        }
    }
}

/// Just past the value that starts at `start`.
fn value_end(b: &[u8], start: usize) -> Option<usize> {
    match *b.get(start)? {
        b'"' => string_end(b, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = start;
            loop {
                match *b.get(i)? {
                    b'"' => {
                        i = string_end(b, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let mut i = start;
            while !matches!(
                b.get(i),
                None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            ) {
                i += 1;
            }
            Some(i)
        }
    }
}

/// [`owner`] of a value's JSON text.
fn owner_text(text: Option<&str>) -> Value {
    match text.and_then(|t| serde_json::from_str::<Value>(t).ok()) {
        None | Some(Value::Null) => Value::from(""),
        Some(v) => v,
    }
}

/// One part of an identity (see [`LineView::owner`]).
fn owner(fields: &Map<String, Value>, key: &str) -> Value {
    match fields.get(key) {
        None | Some(Value::Null) => Value::from(""),
        Some(v) => v.clone(),
    }
}

/// A node's identity, as engrama merges nodes: label + key_value + org_id + user_id (the owner
/// lives in the properties).
pub fn node_identity(node: &LineView) -> String {
    let [org, user] = node.property_owners();
    identity(&[node.owner("label"), node.owner("key_value"), org, user])
}

/// An edge's identity: both endpoints, the type, and the owner that wrote it (engrama keeps
/// one edge per from-node, type and to-node, nodes being unique per owner).
pub fn relation_identity(rel: &LineView) -> String {
    identity(&[
        rel.owner("from_label"),
        rel.owner("from_value"),
        rel.owner("rel_type"),
        rel.owner("to_label"),
        rel.owner("to_value"),
        rel.owner("org_id"),
        rel.owner("user_id"),
    ])
}

/// A vector's identity: the node it belongs to (label + key_value + owner).
pub fn vector_identity(vec: &LineView) -> String {
    identity(&[
        vec.owner("label"),
        vec.owner("key_value"),
        vec.owner("org_id"),
        vec.owner("user_id"),
    ])
}

fn identity(parts: &[Value]) -> String {
    serde_json::to_string(parts).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::FieldMap;

    #[test]
    fn scanned_keys_are_the_ones_serde_json_reads() {
        let slots = KeySlots::new(["org_id", "x"]);
        for text in [
            r#"{}"#,
            r#" { "org_id" : "a" } "#,
            r#"{"x": {"org_id": 1, "y": [1, {"org_id": 2}]}, "org_id": "b\"}\\", "z": 3}"#,
            r#"{"org_id": null, "s": "}{][\\", "org_id": [1, "]"], "t": -1.5e3}"#,
            r#"{"a": true, "b": false, "c": 12}"#,
            r#"{"org_id":{"a":[{}]},"b":"\u00e9"}"#,
        ] {
            let serde = RawFields::parse(text, &slots).unwrap();
            let scanned = scan_keys(text, ["org_id", "x"]);
            assert_eq!(scanned, Some([serde.get(0), serde.get(1)]), "{text}");
        }
        // a key written with escapes is left to serde_json
        assert_eq!(scan_keys(r#"{"org\u005fid": 1}"#, ["org_id"]), None);
    }

    #[test]
    fn line_slots_are_the_places_of_the_line_keys() {
        for (i, key) in LINE_KEYS.iter().enumerate() {
            assert_eq!(line_slot(key), Some(i));
            assert_eq!(LINE_SLOTS.slot(key), Some(i));
        }
    }

    #[test]
    fn key_fields_follow_engrama() {
        assert_eq!(key_field("Decision"), "title");
        assert_eq!(key_field("Insight"), "title");
        assert_eq!(key_field("Concept"), "name");
        assert_eq!(key_field("Memory"), "name");
    }

    #[test]
    fn node_lines_carry_the_record_bytes() {
        let raw = r#"{"record_id":"D-1","valid_from":"2025-01-01T00:00:00.5+02:00"}"#;
        let rec = Record::new(serde_json::from_str(raw).unwrap(), raw, Default::default());
        let plan = ViewPlan::fields(&FieldMap::identity());
        let line = node_line(&rec, "Decision", &plan, "s").unwrap();
        assert_eq!(
            line,
            format!(
                r#"{{"type": "node", "label": "Decision", "key_field": "title", "key_value": "D-1", "properties": {raw}}}"#
            )
        );
        let node = Record::new(
            serde_json::from_str(&line).unwrap(),
            line,
            Default::default(),
        );
        let (text, fields) = node_properties(&node).unwrap();
        assert_eq!(text, raw);
        assert_eq!(fields, rec.fields);
    }
}
