//! `vercy resolve` on the command line: the reference store with the shipped host file (the
//! README's example), every store shape, bad host files and questions (exit 2, naming the
//! line), `compact --known-at`, and `check`'s `value.conflict`.

use crate::common;

use common::{json_of, stderr_of, stdout_of, vercy};
use serde_json::json;
use std::path::Path;

const REF: &str = "fixtures/reference-store.jsonl";
const HOST: &str = "fixtures/resolve/host.yaml";
/// The README's question: data_retention on 2026-07-01 for finance (D-802 holds).
pub const README_QUESTION: [&str; 6] = [
    "--concept",
    "data_retention",
    "--as-of",
    "2026-07-01",
    "--caller",
    "finance",
];

fn resolve(store: &str, host: &str, extra: &[&str]) -> std::process::Output {
    vercy()
        .args(["resolve", store, "--host", host])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn the_readme_example_answers_from_the_reference_store() {
    let out = resolve(
        REF,
        HOST,
        &[&README_QUESTION[..], &["--format", "json"]].concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let a = json_of(&out);
    assert_eq!(a["report"], "vercy-resolve/1");
    assert_eq!(a["answer"]["record_id"], "D-802");
    assert_eq!(
        a["reasons"],
        json!([{"code": "expired", "records": ["D-806"]}, {"code": "superseded", "records": ["D-801"]}])
    );
    let human = resolve(REF, HOST, &README_QUESTION);
    let text = stdout_of(&human);
    assert!(
        text.starts_with("answered: data_retention on 2026-07-01 for finance\nanswer: D-802\n"),
        "{text}"
    );
    let refused = resolve(
        REF,
        HOST,
        &[
            "--concept",
            "bonus_pool",
            "--as-of",
            "2026-01-01",
            "--caller",
            "hr",
        ],
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(!stdout_of(&refused).contains("4% payroll"));
    assert!(!stdout_of(&refused).contains("D-108"));
    // an audience the host gives the caller opens what release_to names
    let audit = resolve(
        REF,
        HOST,
        &[
            "--concept",
            "budget_freeze",
            "--as-of",
            "2025-12-01",
            "--caller",
            "auditor",
            "--format",
            "json",
        ],
    );
    assert_eq!(json_of(&audit)["answer"]["record_id"], "D-107");
}

/// `--explain` lists every record of the concept the caller may read, in store order, with
/// its dates, owner and what decided it, in the human form and as json's `records`.
#[test]
fn explain_lists_each_readable_record_and_what_decided_it() {
    let ask = [&README_QUESTION[..], &["--explain"]].concat();
    let human = resolve(REF, HOST, &ask);
    assert_eq!(human.status.code(), Some(0), "{}", stderr_of(&human));
    let text = stdout_of(&human);
    let listed = text
        .split_once("records the caller may read: 3 (id, valid, owner, what decided it)\n")
        .map(|(_, rows)| rows)
        .unwrap_or_else(|| panic!("no records section:\n{text}"));
    assert_eq!(
        listed,
        "  D-801  2025-01-01 .. open  legal  superseded\n\
         \x20 D-802  2026-06-01 .. open  legal  holds\n\
         \x20 D-806  2026-10-01 .. open  legal  expired\n"
    );
    let json = resolve(REF, HOST, &[&ask[..], &["--format", "json"]].concat());
    let a = json_of(&json);
    let records = a["records"].as_array().expect("a records array");
    let ids: Vec<&str> = records
        .iter()
        .map(|r| r["record_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["D-801", "D-802", "D-806"]);
    assert_eq!(records[1]["holds"], true);
    assert_eq!(records[1]["supersedes"], json!(["D-801"]));
    assert_eq!(records[0]["reasons"], json!(["superseded"]));
    assert_eq!(records[2]["valid_from"], "2026-10-01");
    assert_eq!(records[2]["valid_to"], serde_json::Value::Null);
    // without --explain the vercy-resolve/1 object is as it was
    let plain = resolve(
        REF,
        HOST,
        &[&README_QUESTION[..], &["--format", "json"]].concat(),
    );
    assert!(json_of(&plain).get("records").is_none());
}

#[test]
fn every_store_shape_gives_the_same_answer() {
    let dir = tempfile::tempdir().unwrap();
    let case = "fixtures/enforcement/forged-supersession";
    let ask = |store: &str| {
        let out = resolve(
            store,
            &format!("{case}/host.yaml"),
            &[
                "--concept",
                "retention",
                "--as-of",
                "2026-07-01",
                "--caller",
                "finance",
                "--format",
                "json",
            ],
        );
        let mut a = json_of(&out);
        a["store"] = json!(null);
        a
    };
    let expected = ask(&format!("{case}/store.jsonl"));
    assert_eq!(expected["answer"]["record_id"], "L-1");
    for (to, name) in [("json", "store.json"), ("compact", "store.txt")] {
        let path = dir.path().join(name);
        let out = vercy()
            .args([
                "export",
                &format!("{case}/store.jsonl"),
                "--to",
                to,
                "-o",
                path.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        let mut got = ask(path.to_str().unwrap());
        if to == "compact" {
            // the line form keeps the profile's fields only (no concept): ask through value
            assert_eq!(got["outcome"], "empty", "{got}");
            continue;
        }
        got["store"] = json!(null);
        assert_eq!(got, expected, "{to}");
    }
    // an envelope, and a store on stdin
    let lines = std::fs::read_to_string(format!("{case}/store.jsonl")).unwrap();
    let records: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let envelope = dir.path().join("envelope.json");
    std::fs::write(&envelope, json!({"memories": records}).to_string()).unwrap();
    assert_eq!(ask(envelope.to_str().unwrap()), expected);
    let out = vercy()
        .args([
            "resolve",
            "-",
            "--host",
            &format!("{case}/host.yaml"),
            "--concept",
            "retention",
            "--as-of",
            "2026-07-01",
            "--caller",
            "finance",
            "--format",
            "json",
        ])
        .write_stdin(lines)
        .output()
        .unwrap();
    let mut a = json_of(&out);
    a["store"] = json!(null);
    assert_eq!(a, expected);
}

#[test]
fn an_engrama_dump_resolves_through_the_engrama_map() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("dump.ndjson");
    let out = vercy()
        .args([
            "export",
            REF,
            "--to",
            "engrama",
            "--label",
            "data_retention",
            "-o",
            dump.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    // read through the engrama map (the dump's own), every node is of concept data_retention
    // (its label); flat records exported carry no engrama_id, so without a record_id role
    // no record has a known writer and none is authoritative
    let out = resolve(
        dump.to_str().unwrap(),
        HOST,
        &[
            "--concept",
            "data_retention",
            "--as-of",
            "2026-11-01",
            "--caller",
            "finance",
            "--format",
            "json",
        ],
    );
    let a = json_of(&out);
    assert!(
        a["reasons"]
            .as_array()
            .unwrap()
            .contains(&json!({"code": "no_authoritative_record"})),
        "{a}"
    );
    // with the ids mapped, legal's records are the owner's and D-806 holds
    let out = resolve(
        dump.to_str().unwrap(),
        HOST,
        &[
            "--concept",
            "data_retention",
            "--as-of",
            "2026-11-01",
            "--caller",
            "finance",
            "--format",
            "json",
            "--map",
            "engrama,record_id=properties.record_id",
        ],
    );
    let a = json_of(&out);
    assert_eq!(a["answer"]["properties"]["record_id"], "D-806", "{a}");
    assert!(
        a["reasons"]
            .as_array()
            .unwrap()
            .contains(&json!({"code": "superseded", "records": ["D-801", "D-802"]})),
        "{a}"
    );
}

/// A host directory with a write log and `host.yaml` holding `yaml`.
fn host_with(yaml: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("writes.jsonl"),
        "{\"record_id\": \"D-801\", \"written_by\": \"legal\"}\n",
    )
    .unwrap();
    let path = dir.path().join("host.yaml");
    std::fs::write(&path, yaml).unwrap();
    (dir, path.to_str().unwrap().to_string())
}

#[test]
fn bad_host_files_are_exit_2_naming_the_line() {
    for (yaml, at, says) in [
        (
            "owners: {}\nwriters: writes.jsonl\npolicy: [later_valid_from, newest]\n",
            "host.yaml:3:",
            "newest",
        ),
        (
            "owners: {}\nwriters: missing.jsonl\n",
            "host.yaml:2:1",
            "missing.jsonl",
        ),
        (
            "owners: {}\nwriters: writes.jsonl\nowner: legal\n",
            "host.yaml:3:1",
            "owner",
        ),
        (
            "owners: {}\nwriters: writes.jsonl\nunrestricted: open\n",
            "host.yaml:3:",
            "open",
        ),
        (
            "owners:\n  data_retention: [legal]\nwriters: writes.jsonl\n",
            "host.yaml:2:",
            "invalid type",
        ),
        (
            "owners: {}\nwriters: writes.jsonl\naudiences:\n  finance: \"board\"\n",
            "host.yaml:4:",
            "invalid type",
        ),
        (
            "owners: {}\nwriters: writes.jsonl\naudiences:\n  finance: [\"\"]\n",
            "host.yaml:4:",
            "empty",
        ),
        ("owners: {}\n", "host.yaml:1:", "writers"),
        ("owners: {a: b\n", "host.yaml:", ""),
        ("", "host.yaml:", ""),
    ] {
        let (_dir, host) = host_with(yaml);
        let out = resolve(
            REF,
            &host,
            &["--concept", "data_retention", "--caller", "finance"],
        );
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "{yaml}: {err}");
        assert!(err.contains(at) && err.contains(says), "{yaml}: {err}");
        assert!(err.contains("vercy::host::invalid"), "{err}");
        assert!(stdout_of(&out).is_empty());
    }
}

#[test]
fn a_bad_write_log_is_exit_2_naming_its_line() {
    let (dir, host) = host_with("owners: {data_retention: legal}\nwriters: writes.jsonl\n");
    for (log, at) in [
        ("{\"record_id\": \"D-801\", \"written_by\": \"legal\"}\n{\"record_id\": \"D-802\"}\n", "writes.jsonl:2:1"),
        ("{\"record_id\": \"D-801\", \"written_by\": \"legal\"}\n{\"record_id\": \"D-801\", \"written_by\": \"mallory\"}\n", "writes.jsonl:2:1"),
        ("{\"record_id\": \"D-801\", \"written_by\": \"legal\"}\n{\"record_id\": \n", "writes.jsonl:2:"),
    ] {
        std::fs::write(dir.path().join("writes.jsonl"), log).unwrap();
        let out = resolve(REF, &host, &["--concept", "data_retention", "--caller", "finance"]);
        assert_eq!(out.status.code(), Some(2), "{log}");
        assert!(stderr_of(&out).contains(at), "{log}: {}", stderr_of(&out));
    }
}

#[test]
fn bad_questions_are_exit_2() {
    for extra in [
        &[
            "--concept",
            "x",
            "--caller",
            "finance",
            "--as-of",
            "2026-02-30",
        ][..],
        &[
            "--concept",
            "x",
            "--caller",
            "finance",
            "--known-at",
            "yesterday",
        ][..],
        &["--concept", "x"][..],
        &["--caller", "finance"][..],
    ] {
        let out = resolve(REF, HOST, extra);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
    }
    let out = resolve(
        "fixtures/nowhere.jsonl",
        HOST,
        &["--concept", "x", "--caller", "finance"],
    );
    assert_eq!(out.status.code(), Some(2));
    let out = resolve(
        REF,
        "fixtures/nowhere.yaml",
        &["--concept", "x", "--caller", "finance"],
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn compact_known_at_keeps_what_the_store_knew_then() {
    let store = "fixtures/enforcement/known-at/store.jsonl";
    let lines = |known_at: &str| {
        let out = vercy()
            .args([
                "compact",
                store,
                "--map",
                "graphiti",
                "--known-at",
                known_at,
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        stdout_of(&out)
            .lines()
            .skip(1)
            .map(|l| l.split('|').next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(lines("2026-02-01"), ["e-1"]);
    assert_eq!(lines("2026-03-15T00:00:00Z"), ["e-1", "e-2"]);
    assert_eq!(lines("2026-05-01"), ["e-1", "e-3"]);
    assert!(lines("2024-01-01").is_empty());
    // with --as-of, a superseder the store did not know yet ends nothing
    let out = vercy()
        .args([
            "compact",
            store,
            "--map",
            "graphiti",
            "--known-at",
            "2026-02-01",
            "--as-of",
            "2026-07-01",
        ])
        .output()
        .unwrap();
    assert!(stdout_of(&out).contains("\ne-1|"), "{}", stdout_of(&out));
    let out = vercy()
        .args(["compact", store, "--known-at", "soon"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("--known-at"));
}

#[test]
fn check_warns_about_values_in_conflict() {
    let out = vercy()
        .args(["check", "fixtures/values/conflict.jsonl", "--json"])
        .output()
        .unwrap();
    let r = json_of(&out);
    let conflicts: Vec<&serde_json::Value> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["code"] == "value.conflict")
        .collect();
    assert_eq!(conflicts.len(), 1, "{}", r["warnings"]);
    assert_eq!(
        conflicts[0]["records"],
        json!([{"record": "C-1", "line": 1}, {"record": "C-2", "line": 2}])
    );
    assert!(conflicts[0]["message"]
        .as_str()
        .unwrap()
        .contains("from 2025-03-01"));
    // the reference store holds no contradiction
    let out = vercy().args(["check", REF, "--json"]).output().unwrap();
    assert!(!stdout_of(&out).contains("value.conflict"));
    assert!(Path::new("fixtures/values/conflict.jsonl").exists());
}

#[test]
fn the_readme_shows_what_resolve_prints() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let start = readme
        .find("$ vercy resolve ")
        .expect("the README's Resolve example");
    let block = &readme[start..readme[start..].find("```").unwrap() + start];
    let (command, shown) = block.split_once('\n').unwrap();
    let args: Vec<&str> = command
        .trim_start_matches("$ vercy ")
        .split_whitespace()
        .collect();
    let out = vercy().args(&args).output().unwrap();
    assert_eq!(stdout_of(&out), shown);
}

#[test]
fn the_mcp_server_checks_its_resolve_configuration_before_serving() {
    let (_dir, bad) = host_with("owners: {}\nwriters: writes.jsonl\npolicy: [newest]\n");
    for (store, host) in [
        (REF, bad.as_str()),
        ("fixtures/nowhere.jsonl", HOST),
        ("-", HOST),
    ] {
        let out = vercy()
            .args([
                "mcp", "--store", store, "--host", host, "--caller", "finance",
            ])
            .write_stdin("")
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{store} {host}: {}",
            stderr_of(&out)
        );
        assert!(stdout_of(&out).is_empty());
    }
    let out = vercy()
        .args(["mcp", "--host", HOST])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "--host needs --store and --caller"
    );
}
