//! The compact form reads back: arbitrary records with hostile text in every ordered field
//! (unicode, empty strings, `|`, `\`, `,`, line breaks, CR, exactly `~`, trailing backslashes,
//! a leading `#`, blank text) → compact text → the store reader → the same values.
//!
//! What the line form cannot carry is normalised on the expected side, as the codec documents:
//! absent, null and an empty list read back as absent (a null valid_to as null), release_to
//! always as a list, supersedes as one id or a list of several.

// The store reader's visitor returns vercy's error type, which carries its diagnostic.
#![allow(clippy::result_large_err)]

use proptest::prelude::*;
use serde_json::{Map, Value};
use std::io::Write;

fn order() -> Vec<String> {
    vercy::profile::Profile::embedded()
        .serialisation
        .field_order
        .clone()
}

/// Text that is hard for a line format.
fn hostile() -> BoxedStrategy<String> {
    let special = prop::sample::select(vec![
        "",
        "~",
        "|",
        "\\",
        ",",
        "\n",
        "\r",
        "\r\n",
        "#",
        " ",
        "\t",
        "\\e",
        "\\~",
        "a\\",
        "\\\\",
        "~~",
        "# record_id|",
        "\u{feff}",
        "\u{2028}",
        "\u{85}",
        "é",
        "名",
        "🦀",
        "\u{2029}",
        "\u{b}",
        "\u{c}",
        "\u{1c}",
        "\u{1e}",
        "\\u2028",
        "\\u00zz",
        "\\u",
    ])
    .prop_map(str::to_string);
    prop_oneof![
        3 => any::<String>(),
        2 => special.clone(),
        3 => prop::collection::vec(prop_oneof![special, "[a-z|,~\\\\ ]{0,3}".prop_map(String::from)], 0..6)
            .prop_map(|parts| parts.concat()),
    ]
    .boxed()
}

/// A value for one ordered field, as a store might hold it.
fn field_value(field: &str) -> BoxedStrategy<Option<Value>> {
    let text = hostile().prop_map(Value::String);
    match field {
        "release_to" => prop_oneof![
            Just(None),
            Just(Some(Value::Null)),
            text.clone().prop_map(Some),
            prop::collection::vec(hostile().prop_map(Value::String), 0..4)
                .prop_map(|v| Some(Value::Array(v))),
        ]
        .boxed(),
        "supersedes" => prop_oneof![
            Just(None),
            text.clone().prop_map(Some),
            prop::collection::vec(hostile().prop_map(Value::String), 2..4)
                .prop_map(|v| Some(Value::Array(v))),
        ]
        .boxed(),
        _ => prop_oneof![
            1 => Just(None),
            1 => Just(Some(Value::Null)),
            6 => text.prop_map(Some),
        ]
        .boxed(),
    }
}

fn record() -> impl Strategy<Value = Map<String, Value>> {
    let strategies: Vec<_> = order().iter().map(|f| field_value(f)).collect();
    strategies.prop_map(|values| {
        let mut m = Map::new();
        for (field, v) in order().into_iter().zip(values) {
            if let Some(v) = v {
                m.insert(field, v);
            }
        }
        m
    })
}

/// What the line form promises to give back for a record's ordered fields.
fn expected(record: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for field in order() {
        let Some(v) = record.get(&field) else {
            continue;
        };
        let v = match (field.as_str(), v) {
            ("valid_to", Value::Null) => Value::Null,
            (_, Value::Null) => continue,
            (_, Value::Array(items)) if items.is_empty() => continue,
            ("release_to", Value::String(_)) => Value::Array(vec![v.clone()]),
            _ => v.clone(),
        };
        out.insert(field, v);
    }
    out
}

/// Read a compact text back through the store reader.
fn read_back(text: &str) -> Vec<Map<String, Value>> {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(text.as_bytes()).unwrap();
    file.flush().unwrap();
    let mut out = Vec::new();
    vercy::store::read_records(
        &vercy::store::Input::new(file.path().to_str().unwrap()),
        &mut |r| {
            out.push(r.fields);
            Ok(())
        },
    )
    .unwrap();
    out
}

/// The codec alone: header and lines as `vercy compact` writes them.
fn to_compact(records: &[Map<String, Value>]) -> String {
    let order = order();
    let mut text = vercy::store::compact::header(&order);
    text.push('\n');
    for r in records {
        let values: Vec<Option<&Value>> = order.iter().map(|f| r.get(f)).collect();
        text.push_str(&vercy::store::compact::line(&values, &order));
        text.push('\n');
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn escape_and_unescape_are_inverse(text in hostile(), in_list in any::<bool>()) {
        let escaped = vercy::store::compact::escape(&text, in_list);
        prop_assert!(!escaped.contains('\n') && !escaped.contains('\r'));
        prop_assert!(!escaped.is_empty());
        prop_assert_eq!(vercy::store::compact::unescape(&escaped), text);
    }

    #[test]
    fn records_read_back_with_the_same_values(records in prop::collection::vec(record(), 1..8)) {
        let text = to_compact(&records);
        // one header and one line per record, whatever the values hold
        prop_assert_eq!(text.matches('\n').count(), 1 + records.len());
        // and one line for readers that split as Python's str.splitlines does
        let breaks = ['\r', '\u{b}', '\u{c}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{85}', '\u{2028}', '\u{2029}'];
        prop_assert!(!text.contains(&breaks[..]), "{:?}", text);
        let back = read_back(&text);
        prop_assert_eq!(back.len(), records.len());
        for (got, want) in back.iter().zip(&records) {
            prop_assert_eq!(got, &expected(want));
        }
    }
}

proptest! {
    // each case runs the binary: fewer cases, whole stores
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn the_command_round_trips_a_whole_store(records in prop::collection::vec(record(), 1..12)) {
        let mut store = String::new();
        for r in &records {
            store.push_str(&serde_json::to_string(r).unwrap());
            store.push('\n');
        }
        let out = assert_cmd::Command::cargo_bin("vercy")
            .unwrap()
            .args(["compact", "-"])
            .write_stdin(store)
            .output()
            .unwrap();
        prop_assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        prop_assert_eq!(&text, &to_compact(&records));
        let back = read_back(&text);
        prop_assert_eq!(back.len(), records.len());
        for (got, want) in back.iter().zip(&records) {
            prop_assert_eq!(got, &expected(want));
        }
    }
}
