//! Records that an import, an envelope or the compact form must never lose, merge away or
//! disclose (issue 18, items 4, 5, 6 and 10), over the fixtures in fixtures/import/,
//! fixtures/bad/envelope-two-keys*.json and fixtures/compact/release-nonstring.jsonl:
//!
//! - a record whose record_id `check` judges missing (absent, null, `""`, blank, `[]`, `{}`)
//!   is identified by its whole content on import, never merged with another by that value;
//! - an import never widens who may read a record: a flat record is replaced whole, an engrama
//!   node loses the release_to its incoming version does not carry;
//! - a store and its compact form release the same records to every reader;
//! - an envelope with records under two keys is refused, naming them, by every command.

use crate::common;
use common::*;
use serde_json::{json, Map, Value};
use std::fs;
use std::path::Path;

fn run(args: &[&str]) -> std::process::Output {
    vercy().args(args).output().expect("vercy runs")
}

fn ok(out: std::process::Output) -> std::process::Output {
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    out
}

fn import_into(dump: &Path, store: &Path) -> std::process::Output {
    vercy()
        .arg("import")
        .arg(dump)
        .arg("--into")
        .arg(store)
        .output()
        .unwrap()
}

fn lines_of(text: &str) -> Vec<Map<String, Value>> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// The offenders `check --json` names for a field.
fn offenders(store: &str, field: &str) -> Vec<String> {
    let out = run(&["check", store, "--json"]);
    let report = json_of(&out);
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == field)
        .map(|f| {
            f["offenders"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o.as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------- item 4

#[test]
fn records_whose_id_check_judges_missing_are_never_merged_by_that_value() {
    let dump = fixture("import/ids-missing.jsonl");
    let dump_text = fs::read_to_string(&dump).unwrap();
    // check names every one of them by its index: their ids are missing
    let expected: Vec<String> = (0..10).map(|i| format!("#{i}")).collect();
    assert_eq!(
        offenders("fixtures/import/ids-missing.jsonl", "record_id"),
        expected
    );
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.jsonl");
    let out = ok(import_into(&dump, &store));
    assert!(
        stderr_of(&out).contains("10 added, 0 updated, 0 unchanged"),
        "{}",
        stderr_of(&out)
    );
    // ten records in, ten records kept, each as it came
    assert_eq!(fs::read_to_string(&store).unwrap(), dump_text);
    // the same dump again: every record is the one already there
    let out = ok(import_into(&dump, &store));
    assert!(
        stderr_of(&out).contains("0 added, 0 updated, 10 unchanged"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(fs::read_to_string(&store).unwrap(), dump_text);
}

#[test]
fn unicode_blank_ids_are_missing_and_equal_content_is_one_record() {
    let dump = fixture("import/ids-blank-unicode.jsonl");
    // U+3000, U+001F and U+2003 are blank to check (Python's str.strip)
    assert_eq!(
        offenders("fixtures/import/ids-blank-unicode.jsonl", "record_id"),
        ["#0", "#1", "#2", "#3", "#4"]
    );
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.jsonl");
    let out = ok(import_into(&dump, &store));
    // lines 2 and 3 are byte-identical, lines 1 and 5 the same content: one record each
    assert!(
        stderr_of(&out).contains("3 added, 0 updated, 2 unchanged"),
        "{}",
        stderr_of(&out)
    );
    let notes: Vec<Value> = lines_of(&fs::read_to_string(&store).unwrap())
        .into_iter()
        .map(|r| r["note"].clone())
        .collect();
    assert_eq!(
        notes,
        [
            json!("ideographic space"),
            json!("unit separator and em space"),
            json!("another ideographic space")
        ]
    );
}

#[test]
fn a_blank_record_id_is_no_engrama_key_value() {
    let out = run(&[
        "export",
        "fixtures/import/ids-blank-unicode.jsonl",
        "--to",
        "engrama",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(err.contains("ids-blank-unicode.jsonl:1:1"), "{err}");
    assert!(err.contains("a blank record_id"), "{err}");
}

// ---------------------------------------------------------------------------------- item 5

/// The records `compact --reader PARTY` writes from a store, by the first field of each line.
fn released(store: &Path, party: &str, map: &[&str]) -> Vec<String> {
    let mut cmd = vercy();
    cmd.arg("compact").arg(store).args(["--reader", party]);
    for m in map {
        cmd.args(["--map", m]);
    }
    let out = ok(cmd.output().unwrap());
    stdout_of(&out)
        .lines()
        .skip(1)
        .map(|l| l.split('|').next().unwrap().to_string())
        .collect()
}

#[test]
fn a_flat_record_reimported_without_its_release_to_is_released_to_nobody() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.jsonl");
    fs::copy(fixture("import/disclosure-store.jsonl"), &store).unwrap();
    assert_eq!(released(&store, "finance", &[]), ["D-1"]);
    let dump = fixture("import/disclosure-dump.jsonl");
    let out = ok(import_into(&dump, &store));
    assert!(stderr_of(&out).contains("0 added, 2 updated"));
    // each record is the incoming version, whole: no release_to, no note left from before
    assert_eq!(
        fs::read_to_string(&store).unwrap(),
        fs::read_to_string(&dump).unwrap()
    );
    assert!(released(&store, "finance", &[]).is_empty());
    assert!(released(&store, "board", &[]).is_empty());
    assert_eq!(released(&store, "hr", &[]), ["D-2"]);
}

#[test]
fn an_engrama_node_loses_the_release_to_its_incoming_version_does_not_carry() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.ndjson");
    fs::copy(fixture("import/disclosure-store.ndjson"), &store).unwrap();
    let map = ["engrama", "record_id=properties.record_id"];
    assert_eq!(released(&store, "finance", &map), ["D-1"]);
    ok(import_into(
        &fixture("import/disclosure-dump.ndjson"),
        &store,
    ));
    let nodes: Vec<Map<String, Value>> = lines_of(&fs::read_to_string(&store).unwrap())
        .into_iter()
        .skip(1)
        .collect();
    let props = |i: usize| nodes[i]["properties"].as_object().unwrap().clone();
    // pay band: the new value, no grant; the restriction marker and the other properties,
    // which engrama keeps key by key, stay
    let pay = props(0);
    assert_eq!(pay["value"], "new pay band, not for finance");
    assert!(!pay.contains_key("release_to"), "{pay:?}");
    assert_eq!(pay["classification"], "confidential");
    assert_eq!(pay["valid_from"], "2025-01-01");
    // cap: the grant the incoming node carries is taken as it is
    assert_eq!(props(1)["release_to"], json!(["hr", "ops"]));
    assert!(released(&store, "finance", &map).is_empty());
    assert!(released(&store, "board", &map).is_empty());
    assert_eq!(released(&store, "ops", &map), ["D-2"]);
}

// ---------------------------------------------------------------------------------- item 6

#[test]
fn the_compact_form_releases_what_the_json_releases_to_every_reader() {
    let json_store = "fixtures/compact/release-nonstring.jsonl";
    let dir = tempfile::tempdir().unwrap();
    let form = dir.path().join("store.txt");
    let out = ok(run(&["compact", json_store, "-o", form.to_str().unwrap()]));
    assert!(out.stdout.is_empty());
    let form_store = form.to_str().unwrap();
    for party in [
        "finance",
        "hr",
        "1",
        "true",
        "null",
        "[\"finance\"]",
        "{\"finance\":true}",
        "finance, hr",
        "a|b,c\\d",
    ] {
        let from_json = released(Path::new(json_store), party, &[]);
        let from_form = released(&form, party, &[]);
        assert_eq!(from_json, from_form, "--reader {party:?}");
    }
    // only the string parties are released at all
    assert_eq!(released(&form, "finance", &[]), ["R6", "R9"]);
    assert_eq!(released(&form, "finance, hr", &[]), ["R8"]);
    assert_eq!(released(&form, "a|b,c\\d", &[]), ["R6"]);
    // and the form gives every release_to back as the JSON had it
    let back = ok(run(&["export", form_store, "--to", "jsonl"]));
    let original = lines_of(&fs::read_to_string(json_store).unwrap());
    for (got, want) in lines_of(&stdout_of(&back)).iter().zip(&original) {
        let want = match &want["release_to"] {
            Value::String(s) => json!([s]),
            other => other.clone(),
        };
        assert_eq!(got["release_to"], want, "{}", got["record_id"]);
    }
}

#[test]
fn a_typed_release_to_that_is_not_json_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let form = dir.path().join("bad.txt");
    fs::write(
        &form,
        "# record_id|valid_from|valid_to|source|concept_owner|owner_role|supersedes|release_to|value\nR1|||||||finance\nR2|||||||\\j[1\n",
    )
    .unwrap();
    let out = run(&["compact", form.to_str().unwrap(), "--reader", "finance"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(err.contains("bad.txt:3:1"), "{err}");
    assert!(err.contains("marked `\\j` does not hold JSON"), "{err}");
}

// --------------------------------------------------------------------------------- item 10

#[test]
fn an_envelope_with_records_under_two_keys_is_refused_by_every_command() {
    let cases = [
        ("envelope-two-keys.json", "`results`, `facts`"),
        ("envelope-two-keys-pretty.json", "`facts`, `memories`"),
    ];
    for (file, keys) in cases {
        let path = format!("fixtures/bad/{file}");
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store.jsonl");
        let old = "{\"record_id\": \"old\", \"valid_from\": \"2020-01-01\", \"valid_to\": null}\n";
        fs::write(&store, old).unwrap();
        let commands: [Vec<&str>; 6] = [
            vec!["check", &path],
            vec!["compact", &path],
            vec!["export", &path, "--to", "jsonl"],
            vec!["export", &path, "--to", "engrama"],
            vec!["recency", &path],
            vec!["import", &path, "--into", store.to_str().unwrap()],
        ];
        for args in commands {
            let out = run(&args);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr_of(&out));
            let err = stderr_of(&out);
            assert!(err.contains(&format!("{file}:1:1")), "{args:?}: {err}");
            assert!(err.contains(keys), "{args:?}: {err}");
            assert!(out.stdout.is_empty() || args[0] == "compact", "{args:?}");
        }
        // the refused import left the store as it was
        assert_eq!(fs::read_to_string(&store).unwrap(), old);
    }
}

#[test]
fn an_envelope_reads_the_one_key_that_holds_records() {
    // `results` is empty: the records are under `facts`, and none of them is dropped
    let path = "fixtures/import/envelope-one-key-holds.json";
    let report = report_of(&["check", path, "--json"], 0);
    assert_eq!(report["records"], 2);
    let out = ok(run(&["export", path, "--to", "jsonl"]));
    let ids: Vec<Value> = lines_of(&stdout_of(&out))
        .into_iter()
        .map(|r| r["record_id"].clone())
        .collect();
    assert_eq!(ids, [json!("B-1"), json!("B-2")]);
}
