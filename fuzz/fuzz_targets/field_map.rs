//! `--map` parsing and field paths on arbitrary text: the first line is a `--map` value, the
//! rest a JSON record every role is then read from. Never panics; a map that parses reads
//! every role of any record.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vercy::mapping::{FieldMap, FieldPath};

const ROLES: [&str; 14] = [
    "record_id", "valid_from", "valid_to", "source", "concept_owner", "owner_role",
    "conflict_policy", "applies_to", "does_not_apply_to", "release_to", "supersedes",
    "expected_concepts", "concept", "value",
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (spec, body) = text.split_once('\n').unwrap_or((text, "{}"));
    let record = match serde_json::from_str::<serde_json::Value>(body) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    let _ = FieldPath::parse(spec).get(&record);
    let Ok(map) = FieldMap::parse(&[spec.to_string()]) else { return };
    for role in ROLES {
        let _ = map.get(role, &record);
        let _ = map.inverse_path(role).map(|p| p.get(&record));
    }
    let _ = map.to_json();
    let _ = map.describe(&ROLES);
});
