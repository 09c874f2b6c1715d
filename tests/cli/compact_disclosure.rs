//! A store and its compact form release the same records to every reader: random stores whose
//! release_to is any JSON value (null, booleans, numbers, strings with escapes, commas, bars
//! and backslashes, lists of all of these with null items, nested lists, objects) → their
//! compact form → the selection `--reader P`, for several P, is the same from the JSON and
//! from the form. The parties asked for are drawn from the store itself (every string in it,
//! and the text each non-string would read back as if the form wrote it as text), so the
//! selections are rarely empty.

// The store reader's visitor returns vercy's error type, which carries its diagnostic.
#![allow(clippy::result_large_err)]

use proptest::prelude::*;
use serde_json::{Map, Value};
use vercy::compact::{criteria, write, Request};
use vercy::mapping::FieldMap;
use vercy::store::Input;

/// Text that is hard for the line form (and for the JSON text it is read from).
fn party() -> BoxedStrategy<String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "finance", "hr", "board", "", " ", "~", "|", ",", "\\", "\\e", "\\j", "\\j[1]",
            "a,b", "a|b", "a\\,b", "1", "true", "null", "[\"finance\"]", "finance, hr",
            "\n", "\"", "\u{2028}", "#x", "é",
        ])
        .prop_map(str::to_string),
        2 => "[a-c,|\\\\~\" ]{1,4}",
        1 => any::<String>(),
    ]
    .boxed()
}

/// Any JSON value, a few levels deep, weighted toward what a release_to holds.
fn json_value() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => any::<i64>().prop_map(Value::from),
        1 => prop::sample::select(vec!["1.0", "-0", "1e5", "0.5", "12345678901234567890"])
            .prop_map(|n| serde_json::from_str::<Value>(n).unwrap()),
        5 => party().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 5, |inner| {
        prop_oneof![
            4 => prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            1 => prop::collection::vec((party(), inner), 0..3)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
    .boxed()
}

fn store() -> impl Strategy<Value = Vec<Option<Value>>> {
    prop::collection::vec(
        prop_oneof![1 => Just(None), 6 => json_value().prop_map(Some)],
        1..10,
    )
}

/// The store as JSON lines: record `r{i}` with the i-th release_to (none when `None`).
fn jsonl(store: &[Option<Value>]) -> String {
    let mut text = String::new();
    for (i, release_to) in store.iter().enumerate() {
        let mut record = Map::new();
        record.insert("record_id".into(), Value::String(format!("r{i}")));
        if let Some(v) = release_to {
            record.insert("release_to".into(), v.clone());
        }
        record.insert("value".into(), Value::String(format!("v{i}")));
        text.push_str(&serde_json::to_string(&record).unwrap());
        text.push('\n');
    }
    text
}

/// The compact text of `bytes` (named `name`, whose extension says nothing: the reader finds
/// the shape), only the records released to `reader` when one is given.
fn compact(name: &str, bytes: &[u8], reader: Option<&str>) -> String {
    let request = Request {
        map: FieldMap::identity(),
        map_given: false,
        criteria: criteria(None, None, reader.map(str::to_string)).unwrap(),
        policy_line: false,
        memory: vercy::spill::DEFAULT_MEMORY,
    };
    let mut text = String::new();
    write(
        &Input::from_bytes(name, bytes.to_vec()),
        &request,
        &mut |_, line| {
            text.push_str(line);
            text.push('\n');
            Ok(())
        },
    )
    .unwrap();
    text
}

/// The ids of the records a compact text holds.
fn ids(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .map(|l| l.split('|').next().unwrap().to_string())
        .collect()
}

/// Parties worth asking for: every string in the values, and each non-string's JSON text.
fn parties_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| parties_in(i, out)),
        Value::Object(o) => o.iter().for_each(|(k, v)| {
            out.push(k.clone());
            parties_in(v, out);
        }),
        other => out.push(other.to_string()),
    }
    if !value.is_string() {
        out.push(value.to_string());
    }
}

fn readers(store: &[Option<Value>]) -> Vec<String> {
    let mut out: Vec<String> = ["finance", "hr", "1", "true", "null", "\\e", "\\j"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut drawn = Vec::new();
    store
        .iter()
        .flatten()
        .for_each(|v| parties_in(v, &mut drawn));
    // a dozen from the store is plenty per case (each is two passes), the cases vary the rest
    out.extend(drawn.into_iter().take(12));
    // an empty party is refused as an argument (`--reader ""`)
    out.retain(|p| !p.is_empty());
    out.sort();
    out.dedup();
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn the_form_selects_what_the_json_selects_for_every_reader(store in store()) {
        let json = jsonl(&store);
        let form = compact("store.jsonl", json.as_bytes(), None);
        prop_assert_eq!(form.lines().count(), 1 + store.len(), "{}", form);
        for reader in readers(&store) {
            let from_json = compact("store.jsonl", json.as_bytes(), Some(&reader));
            let from_form = compact("store.txt", form.as_bytes(), Some(&reader));
            prop_assert_eq!(ids(&from_json), ids(&from_form), "--reader {:?}\n{}\n{}", reader, json, form);
            // and the lines written for the reader are the same text
            prop_assert_eq!(from_json, from_form);
        }
    }

    #[test]
    fn a_release_to_that_is_not_parties_reads_back_as_itself(store in store()) {
        let form = compact("store.jsonl", jsonl(&store).as_bytes(), None);
        let mut back = Vec::new();
        vercy::store::read_records(&Input::from_bytes("store.txt", form.into_bytes()), &mut |r| {
            back.push(r.fields.get("release_to").cloned());
            Ok(())
        })
        .unwrap();
        for (got, want) in back.iter().zip(&store) {
            let want = match want {
                None | Some(Value::Null) => None,
                Some(Value::Array(a)) if a.is_empty() => None,
                Some(Value::String(s)) => Some(Value::Array(vec![Value::String(s.clone())])),
                Some(v) => Some(v.clone()),
            };
            prop_assert_eq!(got, &want);
        }
    }
}

proptest! {
    // each case runs the binary: fewer cases
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn the_command_agrees_with_itself_through_the_form(store in store()) {
        let dir = tempfile::tempdir().unwrap();
        let json_path = dir.path().join("store.jsonl");
        let form_path = dir.path().join("store.txt");
        std::fs::write(&json_path, jsonl(&store)).unwrap();
        let out = assert_cmd::Command::cargo_bin("vercy")
            .unwrap()
            .arg("compact")
            .arg(&json_path)
            .arg("-o")
            .arg(&form_path)
            .output()
            .unwrap();
        prop_assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        for reader in readers(&store).into_iter().take(6) {
            let select = |path: &std::path::Path| {
                let out = assert_cmd::Command::cargo_bin("vercy")
                    .unwrap()
                    .arg("compact")
                    .arg(path)
                    .arg(format!("--reader={reader}"))
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                String::from_utf8(out.stdout).unwrap()
            };
            prop_assert_eq!(select(&json_path), select(&form_path), "--reader {:?}", reader);
        }
    }
}
