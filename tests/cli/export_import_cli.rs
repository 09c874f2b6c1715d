//! `vercy export` and `vercy import` over the real engrama dumps in fixtures/engrama/ and the
//! flat fixture stores: exact round trips, idempotent re-import, identity, refusal of bad
//! dumps with the store untouched, and atomic replacement under kill -9.

use crate::common;
use common::*;
use serde_json::{Map, Value};
use std::fs;
use std::path::{Path, PathBuf};

const DUMPS: [&str; 4] = [
    "engrama/fixture-export-0.18.1-vectors.ndjson",
    "engrama/roundtrip-0.18.1.ndjson",
    "engrama/sample-export-0.15.0.ndjson",
    "engrama/sample-export-0.18.1.ndjson",
];

fn import(dump: &Path, store: &Path, extra: &[&str]) -> std::process::Output {
    let mut cmd = vercy();
    cmd.arg("import")
        .arg(dump)
        .arg("--into")
        .arg(store)
        .args(extra);
    cmd.output().unwrap()
}

fn export(store: &Path, to: &str, extra: &[&str]) -> std::process::Output {
    let mut cmd = vercy();
    cmd.env("SOURCE_DATE_EPOCH", "1700000000")
        .arg("export")
        .arg(store)
        .args(["--to", to])
        .args(extra);
    cmd.output().unwrap()
}

fn ok(out: std::process::Output) -> std::process::Output {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn lines_of(text: &str) -> Vec<Map<String, Value>> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// node key (label, key_value) → last_activity_at, from a dump's text.
fn last_activity(text: &str) -> Vec<(String, String, Option<String>)> {
    lines_of(text)
        .into_iter()
        .filter(|l| l.get("type").and_then(Value::as_str) == Some("node"))
        .map(|l| {
            (
                l["label"].as_str().unwrap().to_string(),
                l["key_value"].as_str().unwrap().to_string(),
                l["properties"]["last_activity_at"]
                    .as_str()
                    .map(str::to_string),
            )
        })
        .collect()
}

/// stderr with miette's wrapping undone (lines joined, frame characters dropped), so a check
/// does not depend on where a long temporary path made it break.
fn said(out: &std::process::Output) -> String {
    stderr_of(out)
        .lines()
        .map(|l| {
            l.trim_start_matches([' ', '│', '×', '╰', '─', '▶'])
                .trim_end()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The files in `dir`, but the lock files a writer keeps beside a store (`.STORE.vercy-lock`).
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.to_string_lossy().ends_with(".vercy-lock"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_engrama_dump_comes_back_line_for_line() {
    for dump in DUMPS {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store.jsonl");
        let out = ok(import(&fixture(dump), &store, &[]));
        assert!(stderr_of(&out).contains("added"), "{dump}: a summary");
        let original = fs::read_to_string(fixture(dump)).unwrap();
        let exported = stdout_of(&ok(export(&store, "engrama", &[])));
        // envelope, node, relation and vector lines, byte for byte and in order
        assert_eq!(exported, original, "{dump}");
        // and the store itself is the dump: node, relation and vector lines kept as they are
        assert_eq!(fs::read_to_string(&store).unwrap(), original, "{dump}");
    }
}

#[test]
fn importing_the_same_dump_twice_changes_nothing() {
    for dump in DUMPS {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store.jsonl");
        ok(import(&fixture(dump), &store, &[]));
        let first = fs::read(&store).unwrap();
        let modified = fs::metadata(&store).unwrap().modified().unwrap();
        let out = ok(import(&fixture(dump), &store, &[]));
        assert!(
            stderr_of(&out).contains(" 0 added, 0 updated,"),
            "{}",
            stderr_of(&out)
        );
        assert_eq!(fs::read(&store).unwrap(), first, "{dump}");
        assert_eq!(
            fs::metadata(&store).unwrap().modified().unwrap(),
            modified,
            "{dump}: an import that changes nothing does not rewrite the store"
        );
    }
}

#[test]
fn relation_lines_never_restamp_last_activity_at() {
    // roundtrip-0.18.1 is engrama 0.18.1's own import+export of sample-export-0.18.1: it
    // re-stamped last_activity_at on every node with an edge. vercy keeps the dump's values.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.jsonl");
    ok(import(
        &fixture("engrama/sample-export-0.18.1.ndjson"),
        &store,
        &[],
    ));
    let ours = last_activity(&stdout_of(&ok(export(&store, "engrama", &[]))));
    let dump =
        last_activity(&fs::read_to_string(fixture("engrama/sample-export-0.18.1.ndjson")).unwrap());
    let engrama =
        last_activity(&fs::read_to_string(fixture("engrama/roundtrip-0.18.1.ndjson")).unwrap());
    assert_eq!(ours, dump);
    let restamped = engrama.iter().zip(&dump).filter(|(e, d)| e != d).count();
    assert_eq!(
        restamped, 5,
        "engrama re-stamped the five nodes that have edges"
    );
    // the edge-less archived node kept its value in both
    assert!(ours.contains(&(
        "Technology".into(),
        "OldLib".into(),
        Some("2026-11-29T21:19:59.377083+00:00".into())
    )));
}

#[test]
fn a_newer_dump_updates_the_nodes_it_names_and_keeps_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.jsonl");
    ok(import(
        &fixture("engrama/sample-export-0.18.1.ndjson"),
        &store,
        &[],
    ));
    let out = ok(import(
        &fixture("engrama/roundtrip-0.18.1.ndjson"),
        &store,
        &[],
    ));
    // five nodes carry a new last_activity_at; OldLib's properties changed only in key order
    assert!(
        stderr_of(&out).contains("0 added, 5 updated, 1 unchanged; 6 relations (0 new)"),
        "{}",
        stderr_of(&out)
    );
    let text = fs::read_to_string(&store).unwrap();
    let newer = fs::read_to_string(fixture("engrama/roundtrip-0.18.1.ndjson")).unwrap();
    let older = fs::read_to_string(fixture("engrama/sample-export-0.18.1.ndjson")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // the envelope follows the newer dump; updated nodes are the newer dump's lines exactly
    assert_eq!(lines[0], newer.lines().next().unwrap());
    for i in [1, 2, 3, 4, 6] {
        assert_eq!(lines[i], newer.lines().nth(i).unwrap());
    }
    // the unchanged node keeps the bytes the store had
    assert_eq!(lines[5], older.lines().nth(5).unwrap());
}

#[test]
fn older_dumps_stay_without_the_timestamps_they_lack() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.jsonl");
    ok(import(
        &fixture("engrama/sample-export-0.15.0.ndjson"),
        &store,
        &[],
    ));
    let text = stdout_of(&ok(export(&store, "engrama", &[])));
    for field in [
        "created_at",
        "updated_at",
        "last_activity_at",
        "archived_reason",
    ] {
        assert!(!text.contains(field), "{field} was invented");
    }
    assert!(text.contains(r#""archived_at": "2026-11-29T21:20:31.439146+00:00""#));
}

#[test]
fn node_identity_is_label_key_value_and_owner() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("two-owners.ndjson");
    let env = r#"{"engrama_export": 1, "version": "0.18.1", "exported_at": "2026-11-29T00:00:00+00:00", "source_backend": "sqlite", "embedding_model": "", "embedding_dimensions": 0}"#;
    let node = |user: &str, notes: &str| {
        format!(
            r#"{{"type": "node", "label": "Concept", "key_field": "name", "key_value": "x", "properties": {{"notes": "{notes}", "org_id": "o", "user_id": "{user}", "name": "x", "created_at": "2026-01-01T00:00:00+00:00"}}}}"#
        )
    };
    fs::write(
        &dump,
        format!("{env}\n{}\n{}\n", node("a", "1"), node("b", "1")),
    )
    .unwrap();
    let store = dir.path().join("store.jsonl");
    let out = ok(import(&dump, &store, &[]));
    assert!(
        stderr_of(&out).contains("2 added"),
        "same name, two owners: two nodes"
    );
    // same label, key_value and owner: merged, properties key by key, the rest kept
    let update = dir.path().join("update.ndjson");
    fs::write(
        &update,
        format!(
            "{env}\n{}\n",
            r#"{"type": "node", "label": "Concept", "key_field": "name", "key_value": "x", "properties": {"notes": "2", "org_id": "o", "user_id": "b"}}"#
        ),
    )
    .unwrap();
    let out = ok(import(&update, &store, &[]));
    assert!(
        stderr_of(&out).contains("0 added, 1 updated"),
        "{}",
        stderr_of(&out)
    );
    let text = fs::read_to_string(&store).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[1], node("a", "1"));
    assert_eq!(lines[2], node("b", "2"), "created_at kept, notes taken");
}

#[test]
fn a_flat_store_through_engrama_comes_back_byte_identical() {
    for (store, map) in [
        ("reference-store.jsonl", None),
        ("graph-edges.jsonl", Some("record_id=uuid")),
        ("flat-attributes.jsonl", Some("record_id=attribute")),
        ("edge/unicode-ids.jsonl", None),
        ("edge/float-ids.jsonl", None),
        ("edge/nonstring-values.jsonl", None),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let dump = dir.path().join("dump.ndjson");
        let back = dir.path().join("back.jsonl");
        let maps: Vec<&str> = map.map(|m| vec!["--map", m]).unwrap_or_default();
        let mut args = vec!["--label", "Decision", "-o", dump.to_str().unwrap()];
        args.extend(&maps);
        ok(export(&fixture(store), "engrama", &args));
        ok(import(&dump, &back, &maps));
        assert_eq!(
            fs::read(&back).unwrap(),
            fs::read(fixture(store)).unwrap(),
            "{store}"
        );
    }
}

#[test]
fn flat_records_become_nodes_the_way_engrama_keys_the_label() {
    let out = ok(export(
        &fixture("reference-store.jsonl"),
        "engrama",
        &["--label", "Decision"],
    ));
    let text = stdout_of(&out);
    let lines = lines_of(&text);
    assert_eq!(
        text.lines().next().unwrap(),
        format!(
            r#"{{"engrama_export": 1, "version": "vercy {}", "exported_at": "2023-11-14T22:13:20+00:00", "source_backend": "jsonl", "embedding_model": "", "embedding_dimensions": 0}}"#,
            env!("CARGO_PKG_VERSION")
        )
    );
    assert_eq!(lines.len(), 32);
    assert_eq!(lines[1]["key_field"], "title");
    assert_eq!(lines[1]["key_value"], "D-101");
    let first = fs::read_to_string(fixture("reference-store.jsonl")).unwrap();
    assert!(text.lines().nth(1).unwrap().ends_with(&format!(
        r#""properties": {}}}"#,
        first.lines().next().unwrap()
    )));
    let concept = stdout_of(&ok(export(
        &fixture("reference-store.jsonl"),
        "engrama",
        &[],
    )));
    assert!(concept.lines().nth(1).unwrap().starts_with(
        r#"{"type": "node", "label": "Concept", "key_field": "name", "key_value": "D-101", "properties": {"#
    ));
}

#[test]
fn a_record_without_a_key_value_is_refused_naming_its_line() {
    let out = export(&fixture("edge/no-ids.jsonl"), "engrama", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        said(&out).contains("no-ids.jsonl:1:1"),
        "{}",
        stderr_of(&out)
    );
    assert!(said(&out).contains("--map record_id="));
}

#[test]
fn jsonl_json_and_compact_exports() {
    let original = fs::read_to_string(fixture("reference-store.jsonl")).unwrap();
    let jsonl = stdout_of(&ok(export(&fixture("reference-store.jsonl"), "jsonl", &[])));
    assert_eq!(jsonl, original);
    let dir = tempfile::tempdir().unwrap();
    let array = dir.path().join("store.json");
    ok(export(
        &fixture("reference-store.jsonl"),
        "json",
        &["-o", array.to_str().unwrap()],
    ));
    let parsed: Vec<Value> = serde_json::from_str(&fs::read_to_string(&array).unwrap()).unwrap();
    assert_eq!(parsed.len(), 31);
    assert_eq!(stdout_of(&ok(export(&array, "jsonl", &[]))), original);
    let compact = stdout_of(&ok(export(
        &fixture("reference-store.jsonl"),
        "compact",
        &[],
    )));
    assert_eq!(
        compact,
        fs::read_to_string(fixture("expected/reference-store.compact.txt")).unwrap()
    );
    // exactly what `vercy compact` writes, for every store shape (an engrama dump reads
    // through the engrama map, as in `vercy compact`)
    for store in ["reference-store.jsonl", "graph-edges.jsonl"]
        .into_iter()
        .chain(DUMPS)
    {
        let ours = stdout_of(&ok(export(&fixture(store), "compact", &[])));
        let theirs = stdout_of(&ok(vercy()
            .arg("compact")
            .arg(fixture(store))
            .output()
            .unwrap()));
        assert_eq!(ours, theirs, "{store}");
    }
    // the compact form reads back and exports to JSON lines
    let lines = dir.path().join("lines.txt");
    fs::write(&lines, &compact).unwrap();
    let back = stdout_of(&ok(export(&lines, "jsonl", &[])));
    assert_eq!(back.lines().count(), 31);
    assert!(back.starts_with(
        r#"{"record_id": "D-101", "valid_from": "2025-01-01", "valid_to": "2026-03-31""#
    ));
    // an engrama dump to JSON lines: its node lines, with a notice for the rest
    let out = ok(export(
        &fixture("engrama/fixture-export-0.18.1-vectors.ndjson"),
        "jsonl",
        &[],
    ));
    assert_eq!(stdout_of(&out).lines().count(), 12);
    assert!(stderr_of(&out).contains("7 relation and 2 vector lines not written"));
    let empty = dir.path().join("empty.jsonl");
    fs::write(&empty, "").unwrap();
    assert_eq!(stdout_of(&ok(export(&empty, "json", &[]))), "[]\n");
}

#[test]
fn a_bad_line_refuses_the_whole_dump_and_leaves_the_store_alone() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.jsonl");
    ok(import(
        &fixture("engrama/sample-export-0.18.1.ndjson"),
        &store,
        &[],
    ));
    let before = fs::read(&store).unwrap();
    let original = fs::read_to_string(fixture("engrama/roundtrip-0.18.1.ndjson")).unwrap();
    let mut lines: Vec<String> = original.lines().map(str::to_string).collect();
    // a good update on line 2, then a broken line 9
    lines[8].truncate(40);
    let bad = dir.path().join("bad.ndjson");
    fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let out = import(&bad, &store, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(said(&out).contains("bad.ndjson:9:"), "{}", stderr_of(&out));
    assert_eq!(fs::read(&store).unwrap(), before);
    assert_eq!(
        files_in(dir.path()),
        vec![bad.clone(), store.clone()],
        "no temp file left"
    );

    // a line engrama could not import (a relation without its target) is refused the same way
    let mut lines: Vec<String> = original.lines().map(str::to_string).collect();
    lines[7] = lines[7].replace(r#", "to_value": "SQLite""#, "");
    fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let out = import(&bad, &store, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        said(&out).contains("bad.ndjson:8:1: a relation line without `to_value`"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(fs::read(&store).unwrap(), before);
}

#[test]
fn kinds_mix_only_where_nothing_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("graph.jsonl");
    ok(import(
        &fixture("engrama/sample-export-0.18.1.ndjson"),
        &graph,
        &[],
    ));
    // flat records go into an engrama store as the node lines `export --to engrama` makes
    let out = ok(import(&fixture("reference-store.jsonl"), &graph, &[]));
    assert!(
        said(&out).contains("31 added")
            && said(&out).contains("31 flat records went in as Concept nodes"),
        "{}",
        said(&out)
    );
    let nodes = stdout_of(&ok(export(
        &fixture("reference-store.jsonl"),
        "engrama",
        &[],
    )));
    let store = fs::read_to_string(&graph).unwrap();
    let dump = fs::read_to_string(fixture("engrama/sample-export-0.18.1.ndjson")).unwrap();
    let (store_lines, dump_lines): (Vec<&str>, Vec<&str>) =
        (store.lines().collect(), dump.lines().collect());
    assert_eq!(store_lines[..7], dump_lines[..7], "envelope and nodes kept");
    assert_eq!(
        store_lines[7..38],
        nodes.lines().skip(1).collect::<Vec<_>>()[..],
        "new nodes after them"
    );
    assert_eq!(store_lines[38..], dump_lines[7..], "then the relations");
    // and a second time changes nothing
    let out = ok(import(&fixture("reference-store.jsonl"), &graph, &[]));
    assert!(
        said(&out).contains("0 added, 0 updated, 31 unchanged"),
        "{}",
        said(&out)
    );
    // a record without a key value cannot be a node
    let out = import(&fixture("edge/no-ids.jsonl"), &graph, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        said(&out).contains("no-ids.jsonl:1:1: no record_id"),
        "{}",
        said(&out)
    );
    assert_eq!(fs::read_to_string(&graph).unwrap(), store);

    let flat = dir.path().join("flat.jsonl");
    fs::copy(fixture("reference-store.jsonl"), &flat).unwrap();
    let out = import(&fixture("engrama/sample-export-0.18.1.ndjson"), &flat, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        said(&out).contains("sample-export-0.18.1.ndjson:8:1"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(
        fs::read(&flat).unwrap(),
        fs::read(fixture("reference-store.jsonl")).unwrap()
    );

    let array = dir.path().join("store.json");
    fs::write(&array, "[{\"record_id\": \"a\"}]\n").unwrap();
    let out = import(&fixture("reference-store.jsonl"), &array, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(said(&out).contains("import merges into JSON lines"));
}

#[test]
fn flat_merge_by_record_id_through_the_map() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.jsonl");
    fs::write(
        &store,
        "{\"id\":\"a\",\"v\":1,\"valid_from\":\"2025-01-01T00:00:00.123456789Z\"}\n{\"id\":\"b\",\"v\":2}\n",
    )
    .unwrap();
    let dump = dir.path().join("dump.jsonl");
    fs::write(
        &dump,
        "{\"id\": \"b\", \"v\": 3}\n{\"id\": \"a\", \"v\": 1}\n{\"id\": \"c\", \"valid_to\": null}\n",
    )
    .unwrap();
    let out = ok(import(&dump, &store, &["--map", "record_id=id"]));
    assert!(
        stderr_of(&out).contains("1 added, 2 updated, 0 unchanged"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(
        fs::read_to_string(&store).unwrap(),
        // a and b: replaced whole by the incoming version (a's valid_from, which the dump does
        // not carry, is gone), in their place; c: appended as it came
        "{\"id\": \"a\", \"v\": 1}\n{\"id\": \"b\", \"v\": 3}\n{\"id\": \"c\", \"valid_to\": null}\n"
    );
    // the same dump again changes nothing: the store keeps its bytes
    let out = ok(import(&dump, &store, &["--map", "record_id=id"]));
    assert!(stderr_of(&out).contains("0 added, 0 updated, 3 unchanged"));
    // --purge replaces instead of merging
    ok(import(&dump, &store, &["--map", "record_id=id", "--purge"]));
    assert_eq!(
        fs::read_to_string(&store).unwrap(),
        fs::read_to_string(&dump).unwrap()
    );
}

#[test]
fn kill_9_in_the_middle_of_a_large_import_leaves_a_whole_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.jsonl");
    let old = "{\"record_id\": \"old\", \"valid_from\": \"2020-01-01\", \"valid_to\": null}\n";
    let dump = dir.path().join("big.jsonl");
    let mut big = String::with_capacity(12 << 20);
    for i in 0..50_000 {
        big.push_str(&format!(
            "{{\"record_id\": \"R-{i}\", \"valid_from\": \"2025-01-01T00:00:{:02}.{i}+02:00\", \"valid_to\": null, \"source\": \"S\", \"value\": \"{}\"}}\n",
            i % 60,
            "x".repeat(100)
        ));
    }
    fs::write(&dump, &big).unwrap();
    let expected = format!("{old}{big}");
    let bin = assert_cmd::cargo::cargo_bin("vercy");
    let is_temp = |p: &Path| p.to_string_lossy().ends_with(".vercy-tmp");
    // kill while the dump is being read, then kill as soon as the new store is being written
    for while_writing in [false, true] {
        for p in files_in(dir.path()).into_iter().filter(|p| is_temp(p)) {
            fs::remove_file(p).unwrap();
        }
        fs::write(&store, old).unwrap();
        let mut child = std::process::Command::new(&bin)
            .args(["-q", "import"])
            .arg(&dump)
            .arg("--into")
            .arg(&store)
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            let writing = files_in(dir.path()).iter().any(|p| is_temp(p));
            if (while_writing && writing)
                || (!while_writing && started.elapsed().as_millis() > 100)
                || started.elapsed().as_secs() > 120
            {
                let _ = child.kill(); // SIGKILL: no handler runs, no cleanup
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        child.wait().unwrap();
        let now = fs::read_to_string(&store).unwrap();
        assert!(
            now == old || now == expected,
            "after a kill (while writing: {while_writing}) the store is torn ({} bytes)",
            now.len()
        );
    }
}

/// scripts/interop-engrama.sh with the real engrama: every timestamp survives the round trip.
#[test]
fn interop_with_the_real_engrama() {
    let Some(engrama) = common::engrama() else {
        return;
    };
    let out = std::process::Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/interop-engrama.sh"))
        .env("VERCY", assert_cmd::cargo::cargo_bin("vercy"))
        .env("ENGRAMA_BIN", engrama)
        .output()
        .unwrap();
    let said = stdout_of(&out);
    assert_eq!(out.status.code(), Some(0), "{said}{}", stderr_of(&out));
    assert!(said.contains("interop-engrama: PASS"), "{said}");
}
