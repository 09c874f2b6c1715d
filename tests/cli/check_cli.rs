//! `vercy check` over the shipped fixtures: levels, findings, exit codes, formats, errors.

use crate::common;
use common::*;
use serde_json::{json, Value};

const GRAPH_MAP: &str = "record_id=uuid,valid_from=valid_at,valid_to=invalid_at,source=episode";

fn findings(report: &Value) -> Vec<(String, String, u64)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["field"].as_str().unwrap().to_string(),
                f["requirement"].as_str().unwrap().to_string(),
                f["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_reference_store_reaches_level_3() {
    let r = report_of(
        &[
            "check",
            "fixtures/reference-store.jsonl",
            "--min-level",
            "3",
            "--json",
        ],
        0,
    );
    assert_eq!(r["records"], 31);
    assert_eq!(r["level"], 3);
    assert_eq!(r["pass"], true);
    // only SHOULD findings remain at level 3
    assert!(findings(&r).iter().all(|(_, req, _)| req == "SHOULD"));
    assert_eq!(
        r["warnings"],
        json!([]),
        "the reference store carries no value problems"
    );
}

#[test]
fn graph_edges_reach_level_1_and_miss_exactly_owner_and_policy() {
    for map in [GRAPH_MAP, "graphiti,source=episode"] {
        let out = vercy()
            .args([
                "check",
                "fixtures/graph-edges.jsonl",
                "--json",
                "--map",
                map,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "map {map}");
        let r = json_of(&out);
        assert_eq!(r["level"], 1, "map {map}");
        let must: Vec<_> = findings(&r)
            .into_iter()
            .filter(|(_, req, _)| req != "SHOULD")
            .collect();
        assert_eq!(
            must,
            vec![
                ("concept_owner".to_string(), "level 2 MUST".to_string(), 31),
                ("conflict_policy".to_string(), "level 2 MUST".to_string(), 1),
            ],
            "map {map}"
        );
        assert_eq!(
            r["findings"][1]["offenders"],
            json!(["no conflict policy anywhere in the store"])
        );
    }
}

#[test]
fn the_json_report_keeps_the_reference_keys_in_order() {
    let out = vercy()
        .args([
            "check",
            "fixtures/graph-edges.jsonl",
            "--json",
            "--map",
            GRAPH_MAP,
        ])
        .output()
        .unwrap();
    let text = stdout_of(&out);
    let r: serde_json::Map<String, Value> = serde_json::from_str(&text).unwrap();
    let keys: Vec<&str> = r.keys().map(String::as_str).take(13).collect();
    assert_eq!(
        keys,
        [
            "report",
            "profile",
            "profile_version",
            "scope",
            "scope_note",
            "records",
            "level",
            "min_level",
            "pass",
            "mapping",
            "policy_outside_records",
            "findings",
            "store"
        ]
    );
    assert!(
        text.starts_with("{\n \"report\": \"vercy-check/1\",\n"),
        "indent=1 like the reference"
    );
    snapshot("check-graph-edges.json", &text);
}

#[test]
fn a_flat_attribute_store_is_level_0_and_fails() {
    let out = vercy()
        .args(["check", "fixtures/flat-attributes.jsonl", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let r = json_of(&out);
    assert_eq!(r["level"], 0);
    assert_eq!(r["pass"], false);
    assert_eq!(findings(&r)[0].0, "record_id");
}

#[test]
fn min_level_and_policy_flags_decide_the_exit_code() {
    vercy()
        .args([
            "check",
            "fixtures/graph-edges.jsonl",
            "--map",
            GRAPH_MAP,
            "--min-level",
            "2",
        ])
        .assert()
        .code(1);
    vercy()
        .args([
            "check",
            "fixtures/reference-store.jsonl",
            "--min-level",
            "3",
        ])
        .assert()
        .code(0);
    vercy()
        .args([
            "check",
            "fixtures/reference-store.jsonl",
            "--min-level",
            "4",
        ])
        .assert()
        .code(2);
    vercy()
        .args([
            "check",
            "fixtures/reference-store.jsonl",
            "--min-level",
            "0",
        ])
        .assert()
        .code(2);
    let out = vercy()
        .args([
            "check",
            "fixtures/edge/policy-only-outside.jsonl",
            "--policy",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(json_of(&out)["policy_outside_records"], true);
    assert!(findings(&json_of(&out))
        .iter()
        .all(|(f, _, _)| f != "conflict_policy"));
}

#[test]
fn records_without_an_id_are_named_by_index_and_numbers_as_python_prints_them() {
    let out = vercy()
        .args(["check", "fixtures/edge/no-ids.jsonl", "--json"])
        .output()
        .unwrap();
    let r = json_of(&out);
    let offenders = &r["findings"][0]["offenders"];
    assert!(offenders
        .as_array()
        .unwrap()
        .iter()
        .all(|o| o.as_str().unwrap().starts_with('#')));
    let out = vercy()
        .args(["check", "fixtures/edge/float-ids.jsonl", "--json"])
        .output()
        .unwrap();
    let text = stdout_of(&out);
    assert!(
        text.contains("\"1.5\"") && text.contains("\"1e+20\""),
        "{text}"
    );
}

#[test]
fn no_records_is_level_0_and_exit_1() {
    for f in [
        "bad/empty.jsonl",
        "bad/blank-lines.jsonl",
        "edge/array-empty.json",
    ] {
        let out = vercy()
            .args(["check", &format!("fixtures/{f}"), "--json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{f}");
        let r = json_of(&out);
        assert_eq!(
            (
                r["records"].clone(),
                r["level"].clone(),
                r["findings"].clone()
            ),
            (json!(0), json!(0), json!([]))
        );
    }
}

#[test]
fn unreadable_stores_exit_2_naming_file_line_and_column() {
    let cases = [
        ("bad/not-json.jsonl", "not-json.jsonl:1:1:"),
        ("bad/bad-line-middle.jsonl", "bad-line-middle.jsonl:4:"),
        ("bad/invalid-utf8.jsonl", "invalid-utf8.jsonl:3:"),
        ("bad/non-object.jsonl", "non-object.jsonl:3:1:"),
        ("bad/truncated.jsonl", "truncated.jsonl:4:"),
        ("bad/deep-nesting.json", "deep-nesting.json:1:"),
        (
            "bad/array-of-non-objects.json",
            "array-of-non-objects.json:1:70:",
        ),
        (
            "no-such-file.jsonl",
            "no-such-file.jsonl: cannot read: no such file",
        ),
        ("bad", "bad: is a directory"),
    ];
    for (file, expected) in cases {
        let out = vercy()
            .args(["check", &format!("fixtures/{file}")])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{file}");
        let err = stderr_of(&out);
        assert!(err.contains(expected), "{file}: {err}");
        assert!(!err.contains("panicked"), "{file}: {err}");
        assert!(out.stdout.is_empty(), "{file}: no report on stdout");
    }
}

#[test]
fn a_byte_order_mark_and_crlf_lines_are_accepted() {
    for f in ["bad/bom.jsonl", "bad/crlf.jsonl"] {
        let out = vercy()
            .args(["check", &format!("fixtures/{f}"), "--json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{f}");
        assert_eq!(json_of(&out)["records"], 5, "{f}");
    }
}

#[test]
fn stdin_and_json_arrays_read_like_files() {
    let text = std::fs::read_to_string(fixture("reference-store.jsonl")).unwrap();
    let out = vercy()
        .args(["check", "-", "--json"])
        .write_stdin(text)
        .output()
        .unwrap();
    let r = json_of(&out);
    assert_eq!(
        (r["records"].clone(), r["level"].clone(), r["store"].clone()),
        (json!(31), json!(3), json!("-"))
    );
    let out = vercy()
        .args(["check", "fixtures/edge/array-store.json", "--json"])
        .output()
        .unwrap();
    assert_eq!(json_of(&out)["shape"], "JSON array");
}

#[test]
fn envelopes_and_engrama_dumps_are_read_through_the_same_reader() {
    let out = vercy()
        .args(["check", "-", "--json"])
        .write_stdin(
            r#"{"results": [{"record_id": "a", "valid_from": "2025-01-01", "valid_to": null}]}"#,
        )
        .output()
        .unwrap();
    let r = json_of(&out);
    assert_eq!(
        (r["records"].clone(), r["level"].clone()),
        (json!(1), json!(1))
    );
    let out = vercy()
        .args([
            "check",
            "fixtures/engrama/sample-export-0.18.1.ndjson",
            "--json",
        ])
        .output()
        .unwrap();
    let r = json_of(&out);
    assert_eq!(r["shape"], "engrama NDJSON dump");
    assert_eq!(r["mapping"]["record_id"], "properties.engrama_id");
    assert_eq!(
        r["records"], 6,
        "node lines are the records; relation lines ride along"
    );
}

#[test]
fn several_stores_in_one_run_fail_if_any_fails() {
    let r = report_of(
        &[
            "check",
            "fixtures/reference-store.jsonl",
            "fixtures/flat-attributes.jsonl",
            "--json",
        ],
        1,
    );
    assert_eq!(r.as_array().unwrap().len(), 2);
    let out = vercy()
        .args([
            "check",
            "fixtures/reference-store.jsonl",
            "fixtures/bad/not-json.jsonl",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stdout_of(&out).contains("level 3 of 3"),
        "the readable store is still reported"
    );
}

/// A superseded record that carries a valid_to is named once, whether it came before the
/// records that supersede it (noted as the pointer is read) or after (found at the end).
#[test]
fn superseded_records_with_a_valid_to_are_named_once_wherever_they_stand() {
    let r = report_of(
        &[
            "check",
            "fixtures/values/superseded-valid-to.jsonl",
            "--json",
        ],
        0,
    );
    assert_eq!(
        r["warnings"],
        json!([{
            "code": "value.superseded_valid_to",
            "field": "supersedes",
            "message": "a superseded record carries a valid_to: the end of a superseded interval is derived when reading; leave the old record untouched",
            "caps_level": 2,
            "count": 2,
            "records": [{"record": "A-1", "line": 1}, {"record": "B-1", "line": 4}]
        }, {
            "code": "value.conflict",
            "field": "supersedes",
            "message": "records of one concept in force together with different values and no supersedes between them: concept \"refunds\" from 2025-09-01, A-2 and A-3",
            "caps_level": 2,
            "count": 2,
            "records": [{"record": "A-2", "line": 2}, {"record": "A-3", "line": 5}]
        }])
    );
}

#[test]
fn value_warnings_name_records_and_lines_and_count_under_strict() {
    let out = vercy()
        .args(["check", "fixtures/values/problems.jsonl", "--json"])
        .output()
        .unwrap();
    let r = json_of(&out);
    assert_eq!(r["level"], 3, "warnings alone never change the level");
    let codes: Vec<&str> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        [
            "value.date",
            "value.interval",
            "value.duplicate_id",
            "value.owners",
            "value.policies",
            "value.release_to",
            "value.supersedes_unknown",
            "value.supersedes_cycle",
            "value.superseded_valid_to",
            "value.conflict"
        ]
    );
    let dup = &r["warnings"][2]["records"][0];
    assert_eq!(
        (dup["record"].clone(), dup["line"].clone()),
        (json!("V-3"), json!(4))
    );
    let strict = vercy()
        .args([
            "check",
            "fixtures/values/problems.jsonl",
            "--json",
            "--strict",
        ])
        .output()
        .unwrap();
    let s = json_of(&strict);
    assert_eq!(
        (s["level"].clone(), s["reference_level"].clone()),
        (json!(0), json!(3))
    );
    assert_eq!(strict.status.code(), Some(1));
}

#[test]
fn capture_time_used_as_validity_is_flagged() {
    let out = vercy()
        .args(["check", "fixtures/values/capture-time.jsonl", "--json"])
        .output()
        .unwrap();
    let r = json_of(&out);
    assert_eq!(r["warnings"][0]["code"], "value.capture_time");
    assert_eq!(r["warnings"][0]["count"], 4);
}

#[test]
fn expected_concepts_are_reported_and_never_change_the_level() {
    let out = vercy()
        .args(["check", "fixtures/values/register.jsonl", "--json"])
        .output()
        .unwrap();
    let r = json_of(&out);
    assert_eq!(r["expected_concepts"]["missing"], json!(["data_retention"]));
    assert_eq!(r["level"], 1);
    let out = vercy()
        .args([
            "check",
            "fixtures/values/register.jsonl",
            "--json",
            "--expected",
            "fixtures/values/expected.txt",
        ])
        .output()
        .unwrap();
    assert_eq!(
        json_of(&out)["expected_concepts"]["missing"],
        json!(["data_retention", "pricing"])
    );
}

/// Records that name the same expected concepts again (and `--expected` naming them too):
/// each concept is in the register once, in the order first named, records before the file.
#[test]
fn a_register_named_again_lists_each_concept_once() {
    let store = "fixtures/values/register-repeated.jsonl";
    let expected = "fixtures/values/expected.txt";
    let r = report_of(&["check", store, "--json", "--expected", expected], 0);
    assert_eq!(
        r["expected_concepts"],
        json!({
            "experimental": true,
            "register": ["shipping", "refunds", "data_retention", "pricing"],
            "missing": ["shipping", "pricing"],
        })
    );
}

#[test]
fn human_output_shows_level_next_level_and_findings() {
    let out = vercy()
        .args(["check", "fixtures/graph-edges.jsonl", "--map", GRAPH_MAP])
        .output()
        .unwrap();
    let text = stdout_of(&out);
    assert!(text.contains("level 1 of 3 · pass"), "{text}");
    assert!(text.contains("level 2 needs:"), "{text}");
    assert!(text.contains("concept_owner: on 31 records"), "{text}");
    snapshot("check-graph-edges.txt", &text);
    let quiet = vercy()
        .args([
            "check",
            "fixtures/graph-edges.jsonl",
            "--map",
            GRAPH_MAP,
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(!stdout_of(&quiet).contains("findings:"));
}

#[test]
fn github_and_sarif_formats() {
    let out = vercy()
        .args([
            "check",
            "fixtures/values/problems.jsonl",
            "--format",
            "github",
        ])
        .output()
        .unwrap();
    let text = stdout_of(&out);
    assert!(text.lines().all(|l| l.starts_with("::")), "{text}");
    assert!(
        text.contains(
            "::warning file=fixtures/values/problems.jsonl,line=4,title=value.duplicate_id::"
        ),
        "{text}"
    );
    let out = vercy()
        .args([
            "check",
            "fixtures/values/problems.jsonl",
            "--format",
            "sarif",
        ])
        .output()
        .unwrap();
    let s = json_of(&out);
    assert_eq!(s["version"], "2.1.0");
    let results = s["runs"][0]["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r["ruleId"] == "value.interval"
        && r["locations"][0]["physicalLocation"]["region"]["startLine"] == 3));
    vercy()
        .args([
            "check",
            "fixtures/reference-store.jsonl",
            "--json",
            "--format",
            "human",
        ])
        .assert()
        .code(2);
}

#[test]
fn map_paths_reach_nested_keys_and_named_maps_lift_real_shapes() {
    let out = vercy()
        .args([
            "check",
            "fixtures/formats/mem0_memories.jsonl",
            "--json",
            "--map",
            "record_id=id,valid_from=created_at,valid_to=expiration_date,source=metadata.source",
        ])
        .output()
        .unwrap();
    let r = json_of(&out);
    assert_eq!(r["records"], 3);
    assert_eq!(r["mapping"]["source"], "metadata.source");
    let bad = vercy()
        .args([
            "check",
            "fixtures/reference-store.jsonl",
            "--map",
            "nosuchmap",
        ])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr_of(&bad).contains("graphiti"),
        "the help lists the named maps"
    );
}

#[test]
fn an_endless_line_is_refused_with_bounded_memory() {
    let out = vercy()
        .args(["check", "/dev/zero"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("/dev/zero:1:1: a line longer than 256 MiB"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn human_output_is_coloured_only_when_asked_and_machine_formats_never() {
    let always = vercy()
        .args([
            "check",
            "fixtures/reference-store.jsonl",
            "--color",
            "always",
        ])
        .output()
        .unwrap();
    assert!(stdout_of(&always).contains("\u{1b}[1;32mpass\u{1b}[0m"));
    // NO_COLOR is set by vercy(): auto means none, and a pipe is not a terminal either
    let auto = vercy()
        .args(["check", "fixtures/reference-store.jsonl"])
        .output()
        .unwrap();
    assert!(!stdout_of(&auto).contains('\u{1b}'));
    let forced = vercy()
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1")
        .args(["check", "fixtures/reference-store.jsonl", "--json"])
        .output()
        .unwrap();
    assert!(
        !stdout_of(&forced).contains('\u{1b}'),
        "JSON is never coloured"
    );
}

#[test]
fn an_inverse_role_counts_the_records_pointed_at() {
    // supersedes=~replaced_by: a record has supersedes when another record's replaced_by
    // names it (R-1 → R-2 → R-3), so only R-1 and F-1 lack it
    let r = report_of(
        &[
            "check",
            "fixtures/compact/chain-inverse.jsonl",
            "--map",
            "record_id=id,concept=topic,supersedes=~replaced_by",
            "--json",
        ],
        0,
    );
    assert_eq!(r["level"], 1);
    let supersedes = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "supersedes")
        .expect("a supersedes finding");
    assert_eq!(supersedes["offenders"], json!(["R-1", "F-1"]));
}

#[test]
fn conflicts_on_one_line_are_listed_in_store_order_every_run() {
    // every record of a one-line JSON array starts on line 1: the records' order in the
    // store decides which pair comes first (it once followed a hash seeded per process)
    for _ in 0..4 {
        let out = vercy()
            .args(["check", "fixtures/values/conflict-one-line.json", "--json"])
            .output()
            .unwrap();
        let r = json_of(&out);
        let conflict = r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["code"] == "value.conflict")
            .unwrap();
        assert!(
            conflict["message"]
                .as_str()
                .unwrap()
                .ends_with("concept \"c0\" from 2025-01-02, r00 and r01 (5 more concepts so)"),
            "{conflict}"
        );
        let names: Vec<&str> = conflict["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["record"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["r00", "r01", "r10", "r11", "r20", "r21", "r30", "r31", "r40", "r41", "r50", "r51"]
        );
    }
}

/// UUID ids are kept in a shorter form than their text: every report still names them as
/// written, in either case, and an id in mixed case (kept as text) stays another id.
#[test]
fn uuid_ids_are_named_as_written() {
    let out = vercy()
        .args(["check", "fixtures/values/uuid-ids.jsonl", "--json"])
        .output()
        .unwrap();
    let r = json_of(&out);
    let named: Vec<(String, Vec<(String, u64)>)> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            let records = w["records"].as_array().unwrap().iter();
            let records = records.map(|x| {
                (
                    x["record"].as_str().unwrap().to_owned(),
                    x["line"].as_u64().unwrap(),
                )
            });
            (w["code"].as_str().unwrap().to_owned(), records.collect())
        })
        .collect();
    let (lower, upper, mixed) = (
        "298ae558-fe1a-3bb5-aab7-fab0bad18e42",
        "298AE558-FE1A-3BB5-AAB7-FAB0BAD18E42",
        "298ae558-FE1A-3bb5-aab7-fab0bad18e42",
    );
    let (a, b) = (
        "aaaaaaaa-0000-4000-8000-000000000005",
        "bbbbbbbb-0000-4000-8000-000000000006",
    );
    let expected = [
        ("value.duplicate_id", vec![(lower.to_owned(), 3)]),
        (
            "value.supersedes_unknown",
            vec![(format!("{mixed} → 00000000-0000-0000-0000-00000000000a"), 4)],
        ),
        (
            "value.supersedes_cycle",
            vec![(a.to_owned(), 5), (b.to_owned(), 6)],
        ),
        ("value.superseded_valid_to", vec![(upper.to_owned(), 2)]),
    ]
    .map(|(code, records)| (code.to_owned(), records));
    assert_eq!(named, expected);
    assert_eq!(
        r["findings"][1]["offenders"],
        json!([lower, upper, lower]),
        "the reference's offenders, by id"
    );
}

/// The report without where its records stand (lines, the store's name and shape).
fn placeless(report: &Value) -> Value {
    match report {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "line" | "store" | "shape"))
                .map(|(k, v)| (k.clone(), placeless(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(placeless).collect()),
        other => other.clone(),
    }
}

/// The same records as JSON lines, as a JSON array on one line and pretty-printed, as an
/// envelope pretty-printed (with keys around the list) and on one line longer than the read
/// buffer, from a file and from stdin: one report, and each record named on its own line.
#[test]
fn every_shape_of_the_same_records_gives_the_same_report() {
    let mut records: Vec<Value> =
        std::fs::read_to_string("fixtures/values/superseded-valid-to.jsonl")
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    // past the 1 MiB the reader buffers, so the one-line envelope takes the long road
    for i in 0..6000 {
        records.push(json!({
            "record_id": format!("F-{i}"),
            "valid_from": "2024-01-01",
            "valid_to": null,
            "concept": format!("filler {i}"),
            "value": "x".repeat(200),
        }));
    }
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let lines: String = records.iter().map(|r| format!("{r}\n")).collect();
    let jsonl = write("store.jsonl", lines);
    let one_line_envelope = serde_json::to_string(&json!({"results": records})).unwrap();
    assert!(one_line_envelope.len() > 1 << 20);
    let counted =
        serde_json::to_string(&json!({"count": records.len(), "results": records})).unwrap();
    let pretty_envelope = serde_json::to_string_pretty(
        &json!({"total": records.len(), "data": records, "next": null}),
    )
    .unwrap();
    let shapes = [
        write("array.json", serde_json::to_string(&records).unwrap()),
        write(
            "pretty.json",
            serde_json::to_string_pretty(&records).unwrap(),
        ),
        write("envelope.json", pretty_envelope.clone()),
        write("long.json", one_line_envelope),
        write("counted.json", counted.clone()),
    ];
    let expected = report_of(&["check", &jsonl, "--json"], 0);
    assert_eq!(expected["records"], 6007);
    let hand_closed = &expected["warnings"][0];
    assert_eq!(hand_closed["code"], "value.superseded_valid_to");
    assert_eq!(hand_closed["count"], 2);
    for path in &shapes {
        let report = report_of(&["check", path, "--json"], 0);
        assert_eq!(placeless(&report), placeless(&expected), "{path}");
    }
    let out = vercy()
        .args(["check", "-", "--json"])
        .write_stdin(pretty_envelope.clone())
        .output()
        .unwrap();
    assert_eq!(placeless(&json_of(&out)), placeless(&expected), "stdin");
    let out = vercy()
        .args(["check", "-", "--json"])
        .write_stdin(counted)
        .output()
        .unwrap();
    assert_eq!(
        placeless(&json_of(&out)),
        placeless(&expected),
        "stdin, a count first"
    );
    // a pretty envelope's records are named on the lines where they start
    let report = report_of(&["check", &shapes[2], "--json"], 0);
    let text_lines: Vec<&str> = pretty_envelope.lines().collect();
    for named in report["warnings"][0]["records"].as_array().unwrap() {
        let line = named["line"].as_u64().unwrap() as usize;
        let id = named["record"].as_str().unwrap();
        let opening = text_lines[line - 1].trim();
        let next = text_lines[line].trim();
        assert_eq!(opening, "{", "line {line}");
        assert_eq!(next, format!("\"record_id\": \"{id}\","), "line {line}");
    }
}

/// A JSON lines store whose first record is longer than the reader's buffer is outlined as a
/// possible envelope first, then read as the JSON lines it is: from a file and through a
/// pipe, every record is there, the long one named like the rest.
#[test]
fn a_long_first_record_is_read_as_a_json_line() {
    let long = json!({
        "record_id": "LONG-1",
        "valid_from": "2025-01-01",
        "valid_to": null,
        "notes": "n".repeat(3 << 20),
    });
    let mut text = format!("{long}\n");
    for i in 0..3 {
        text.push_str(&format!(
            "{{\"record_id\": \"R-{i}\", \"valid_from\": \"2025-01-01\", \"valid_to\": null, \"source\": \"s\"}}\n"
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.jsonl");
    std::fs::write(&path, &text).unwrap();
    let from_file = report_of(&["check", path.to_str().unwrap(), "--json"], 0);
    assert_eq!(from_file["records"], 4);
    assert_eq!(from_file["shape"], "JSON lines");
    let source = from_file["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "source")
        .expect("a finding on source");
    assert_eq!(source["offenders"], json!(["LONG-1"]));
    let out = vercy()
        .args(["check", "-", "--json"])
        .write_stdin(text)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(placeless(&json_of(&out)), placeless(&from_file));
}
