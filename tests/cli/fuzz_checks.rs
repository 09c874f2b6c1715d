//! What each fuzz target asserts, in one place: the fuzz targets (`fuzz/fuzz_targets/`) call
//! these on the fuzzer's bytes, and `tests/cli/fuzz_regressions.rs` calls them on every input
//! kept in `tests/fuzz-corpus/<target>/`, so a crash found once is checked by every `cargo
//! test`. Each takes raw bytes and panics only when vercy misbehaves.
#![allow(dead_code)]
// the reader's visitor returns vercy's diagnostic error, which is large by design
#![allow(clippy::result_large_err)]

use serde_json::{Map, Value};
use vercy::check::{check_store, format, Options};
use vercy::mapping::{FieldMap, FieldPath};
use vercy::store::{self, Entry, Input};
use vercy::time::{parse, parse_value, Precision};

/// A property over raw bytes: returns, or panics when vercy misbehaves.
pub type Check = fn(&[u8]);

/// The targets, by name, as `fuzz/Cargo.toml` lists them.
pub const TARGETS: [(&str, Check); 5] = [
    ("store_read", store_read),
    ("compact_line", compact_line),
    ("date_parse", date_parse),
    ("field_map", field_map),
    ("check_bytes", check_bytes),
];

/// The store reader on arbitrary bytes, whatever shape they look like: records or an error.
/// Records come in file order and point inside the input.
pub fn store_read(data: &[u8]) {
    let input = Input::from_bytes("fuzz.jsonl", data.to_vec());
    let mut last_line = 0;
    let _ = store::read(&input, &mut |entry| {
        let record = match &entry {
            Entry::Record(r) | Entry::NonRecord(_, r) => r,
        };
        assert!(record.origin.line >= last_line, "records out of order");
        assert!(
            record.origin.offset as usize <= data.len(),
            "origin past the end"
        );
        last_line = record.origin.line;
        Ok(())
    });
}

fn field_order() -> Vec<String> {
    vercy::profile::Profile::embedded()
        .serialisation
        .field_order
        .clone()
}

fn write_line(fields: &Map<String, Value>, order: &[String]) -> String {
    let values: Vec<Option<&Value>> = order.iter().map(|f| fields.get(f)).collect();
    let text = store::compact::line(&values, order);
    assert!(
        !text.contains(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']),
        "a line break in {text:?}"
    );
    text
}

fn read_line(text: &str, order: &[String]) -> Map<String, Value> {
    store::compact::parse_line(text, order)
        .unwrap_or_else(|e| panic!("{text:?}, written by `line`, does not read back: {e}"))
}

/// The compact line codec both ways, without restating its rules. First byte even: the rest
/// is a line of text; `parse_line` never panics and read∘write∘read = read. Odd: the rest is
/// a record (cells split on 0x00, each cell's first byte picks null, text, number, boolean or
/// list split on 0x01); its line is one line, always reads back, and after one trip through
/// the form the record and its line are fixed points.
pub fn compact_line(data: &[u8]) {
    let order = field_order();
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode.is_multiple_of(2) {
        let text = String::from_utf8_lossy(rest);
        let Ok(fields) = store::compact::parse_line(&text, &order) else {
            return;
        };
        let again = read_line(&write_line(&fields, &order), &order);
        assert_eq!(
            again, fields,
            "read∘write∘read differs from read for {text:?}"
        );
        return;
    }
    let mut fields = Map::new();
    for (field, cell) in order.iter().zip(rest.split(|b| *b == 0)) {
        let Some((&kind, body)) = cell.split_first() else {
            continue;
        };
        let text = || String::from_utf8_lossy(body).into_owned();
        let value = match kind % 6 {
            0 => continue,
            1 => Value::Null,
            2 => Value::String(text()),
            3 => Value::from(i64::from_le_bytes(
                body.iter()
                    .copied()
                    .chain([0; 8])
                    .take(8)
                    .collect::<Vec<_>>()
                    .try_into()
                    .unwrap(),
            )),
            4 => Value::Bool(body.first().is_some_and(|b| b % 2 == 1)),
            _ => Value::Array(
                body.split(|b| *b == 1)
                    .map(|item| Value::String(String::from_utf8_lossy(item).into_owned()))
                    .collect(),
            ),
        };
        fields.insert(field.clone(), value);
    }
    // a value the form reads back as another type (a list in a text field) may change once;
    // after one trip through the form, the record and its line are fixed
    let once = read_line(&write_line(&fields, &order), &order);
    let line = write_line(&once, &order);
    let twice = read_line(&line, &order);
    assert_eq!(
        twice, once,
        "a second trip through {line:?} changed {fields:?}"
    );
    assert_eq!(write_line(&twice, &order), line, "from {fields:?}");
}

/// The one date parser on arbitrary text and JSON values: a timestamp or an error, never an
/// overflow; an interval is never inverted; a date names the same instant as its midnight.
pub fn date_parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(ts) = parse(text) {
        assert!(ts.start() <= ts.end());
        if ts.precision == Precision::Date {
            let midnight = parse(&format!("{}T00:00:00Z", text.trim()))
                .unwrap_or_else(|e| panic!("{text:?} parses as a date but not at midnight: {e}"));
            assert_eq!(midnight.nanos, ts.nanos, "{text:?}");
        }
    }
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        let _ = parse_value(&value);
    }
}

const ROLES: [&str; 14] = [
    "record_id",
    "valid_from",
    "valid_to",
    "source",
    "concept_owner",
    "owner_role",
    "conflict_policy",
    "applies_to",
    "does_not_apply_to",
    "release_to",
    "supersedes",
    "expected_concepts",
    "concept",
    "value",
];

/// `--map` parsing and field paths: the first line is a `--map` value, the rest a JSON record
/// every role is read from. A map that parses reads every role of any record.
pub fn field_map(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (spec, body) = text.split_once('\n').unwrap_or((text, "{}"));
    let record = match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let _ = FieldPath::parse(spec).get(&record);
    let Ok(map) = FieldMap::parse(&[spec.to_string()]) else {
        return;
    };
    for role in ROLES {
        let _ = map.get(role, &record);
        let _ = map.inverse_path(role).map(|p| p.get(&record));
    }
    let _ = map.to_json();
}

/// `check` end to end on arbitrary bytes: read, both rule sets, every output format. The
/// first byte picks the options (map, --policy, --min-level, --strict, --expected, --quiet).
pub fn check_bytes(data: &[u8]) {
    let (&flags, body) = data.split_first().unwrap_or((&0, &[]));
    let spec = match flags % 4 {
        0 => None,
        1 => Some("engrama"),
        2 => Some("graphiti"),
        _ => Some("record_id=id,valid_from=a.b,supersedes=~replaced_by,release_to=r[].p"),
    };
    let opts = Options {
        map_given: spec.is_some(),
        map: spec.map_or_else(FieldMap::identity, |s| {
            FieldMap::parse(&[s.to_string()]).expect("a fixed map parses")
        }),
        policy_outside_records: flags & 4 != 0,
        min_level: 1 + (flags >> 3) % 3,
        strict: flags & 32 != 0,
        expected: if flags & 64 != 0 {
            vec!["retention".into(), String::new()]
        } else {
            Vec::new()
        },
        memory: vercy::spill::DEFAULT_MEMORY,
    };
    let input = Input::from_bytes("fuzz.jsonl", body.to_vec());
    if let Ok(report) = check_store(&input, &opts) {
        let reports = [report];
        for f in [
            format::Format::Human,
            format::Format::Json,
            format::Format::Github,
            format::Format::Sarif,
        ] {
            let _ = format::render(f, &reports, flags & 128 != 0);
        }
    }
}
