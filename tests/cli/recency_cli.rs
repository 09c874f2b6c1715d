//! `vercy recency` and `vercy status`.
//!
//! The expected scores below were computed independently, by engrama 0.18.1 itself:
//! `tests/recency/engrama_reference.py` imports the dump with engrama's importer, counts degrees
//! with engrama's SQL and scores with `engrama.core.temporal.recency` at a frozen clock
//! (`tests/recency/compare.py` runs the whole comparison; the difference is 0 on every dump).

use crate::common;
use assert_cmd::Command;
use common::vercy;
use serde_json::Value;
use std::path::PathBuf;

const AS_OF: &str = "2026-12-01T00:00:00Z";

/// A file of fixtures/recency/.
fn fixture(name: &str) -> PathBuf {
    common::fixture("recency").join(name)
}

fn recency_json(cmd: &mut Command) -> Vec<Value> {
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn dump_json(extra: &[&str], env: &[(&str, &str)]) -> Vec<Value> {
    let mut cmd = vercy();
    cmd.arg("recency")
        .arg(fixture("fixture-export-0.18.1-vectors.ndjson"))
        .args(["--as-of", AS_OF, "--format", "json"])
        .args(extra);
    for (k, v) in env {
        cmd.env(k, v);
    }
    recency_json(&mut cmd)
}

/// (key_value, degree, engrama's recency) for every node of the fixture dump, in dump order.
type Expected = [(&'static str, u64, f64); 12];

const DEFAULTS: Expected = [
    ("knowledge-graphs", 1, 1.0),
    ("engrama-rs", 2, 1.0),
    ("read-time recency", 2, 0.9983479793571014),
    ("hub concept", 3, 0.998576366779083),
    ("tech-0", 1, 0.9978653102263734),
    ("tech-1", 1, 0.9978653102581505),
    ("tech-2", 1, 0.9978653102776748),
    ("Deprecate engrama decay", 1, 0.9978653103211931),
    (
        "Concept cluster: hub concept (3 entities)",
        1,
        0.9872600214972126,
    ),
    ("Lesson: never decay in storage", 0, 0.2775289540656729),
    ("OldLib", 0, 0.2775289540656729),
    ("superseded fact", 0, 0.2775289540656729),
];

/// --half-life 90 --insight-half-life 7.5
const SHORT: Expected = [
    ("knowledge-graphs", 1, 1.0),
    ("engrama-rs", 2, 1.0),
    ("read-time recency", 2, 0.9966986878864074),
    ("hub concept", 3, 0.9971547602897137),
    ("tech-0", 1, 0.9957351773531765),
    ("tech-1", 1, 0.9957351774165949),
    ("tech-2", 1, 0.9957351774555602),
    ("Deprecate engrama decay", 1, 0.9957351775424109),
    (
        "Concept cluster: hub concept (3 entities)",
        1,
        0.9500056834925124,
    ),
    ("Lesson: never decay in storage", 0, 0.07702232034478637),
    ("OldLib", 0, 0.07702232034478637),
    ("superseded fact", 0, 0.07702232034478637),
];

/// the degree factor off
const NO_DEGREE: Expected = [
    ("knowledge-graphs", 1, 1.0),
    ("engrama-rs", 2, 1.0),
    ("read-time recency", 2, 0.9957351775893646),
    ("hub concept", 3, 0.9957351776465698),
    ("tech-0", 1, 0.9957351773531765),
    ("tech-1", 1, 0.9957351774165949),
    ("tech-2", 1, 0.9957351774555602),
    ("Deprecate engrama decay", 1, 0.9957351775424109),
    (
        "Concept cluster: hub concept (3 entities)",
        1,
        0.9746823500466767,
    ),
    ("Lesson: never decay in storage", 0, 0.2775289540656729),
    ("OldLib", 0, 0.2775289540656729),
    ("superseded fact", 0, 0.2775289540656729),
];

fn assert_matches(got: &[Value], want: &Expected) {
    assert_eq!(got.len(), want.len());
    for (key, degree, recency) in want {
        let row = got
            .iter()
            .find(|r| r["key_value"] == *key)
            .unwrap_or_else(|| panic!("{key} missing"));
        assert_eq!(row["degree"], *degree, "{key}");
        let score = row["recency"].as_f64().unwrap();
        assert!(
            (score - recency).abs() <= 1e-12,
            "{key}: {score} vs engrama's {recency}"
        );
    }
}

#[test]
fn scores_match_engramas_own_recency_with_default_and_changed_settings() {
    assert_matches(&dump_json(&[], &[]), &DEFAULTS);
    assert_matches(
        &dump_json(&["--half-life", "90", "--insight-half-life", "7.5"], &[]),
        &SHORT,
    );
    assert_matches(
        &dump_json(
            &[],
            &[
                ("ENGRAMA_RECENCY_HALF_LIFE", "90"),
                ("ENGRAMA_RECENCY_INSIGHT_HALF_LIFE", "7.5"),
            ],
        ),
        &SHORT,
    );
    assert_matches(&dump_json(&["--no-degree"], &[]), &NO_DEGREE);
    assert_matches(
        &dump_json(&[], &[("ENGRAMA_RECENCY_DEGREE", "Off")]),
        &NO_DEGREE,
    );
    // flags win over the environment
    assert_matches(
        &dump_json(
            &["--half-life", "180", "--insight-half-life", "30"],
            &[
                ("ENGRAMA_RECENCY_HALF_LIFE", "90"),
                ("ENGRAMA_RECENCY_INSIGHT_HALF_LIFE", "7.5"),
            ],
        ),
        &DEFAULTS,
    );
}

#[test]
fn the_formula_by_hand_for_the_untouched_nodes() {
    // last_activity_at 2026-01-02T03:04:05Z, as of 2026-12-01: 332 days 20:55:55, degree 0
    let age = 332.0 + (20.0 * 3600.0 + 55.0 * 60.0 + 55.0) / 86400.0;
    let rows = dump_json(&[], &[]);
    let lesson = rows
        .iter()
        .find(|r| r["key_value"] == "Lesson: never decay in storage")
        .unwrap();
    assert!((lesson["age_days"].as_f64().unwrap() - age).abs() < 1e-9);
    assert!((lesson["recency"].as_f64().unwrap() - 2f64.powf(-age / 180.0)).abs() < 1e-12);
    assert_eq!(lesson["half_life"], 180.0);
    // the hub: 3 IMPLEMENTS edges count, the ABOUT edge from the system Insight does not
    let hub = rows
        .iter()
        .find(|r| r["key_value"] == "hub concept")
        .unwrap();
    assert_eq!(hub["half_life"], 180.0 * 3.0);
    // the system Insight fades on its own half-life, stretched by its one edge
    let insight = rows
        .iter()
        .find(|r| r["key_value"] == "Concept cluster: hub concept (3 entities)")
        .unwrap();
    assert_eq!(insight["half_life"], 30.0 * 2.0);
    // anchors score 1 and carry no age
    let domain = &rows[0];
    assert_eq!(
        (domain["label"].as_str(), domain["recency"].as_f64()),
        (Some("Domain"), Some(1.0))
    );
    assert_eq!(domain["basis"], "anchor");
}

#[test]
fn json_and_human_output_rank_by_score_and_top_cuts() {
    let rows = dump_json(&[], &[]);
    let scores: Vec<f64> = rows
        .iter()
        .map(|r| r["recency"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    let top = dump_json(&["--top", "3"], &[]);
    assert_eq!(top.len(), 3);
    assert_eq!(top[2]["key_value"], "hub concept");

    let out = vercy()
        .arg("recency")
        .arg(fixture("fixture-export-0.18.1-vectors.ndjson"))
        .args(["--as-of", AS_OF, "--top", "4"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains("half-life 180.0 d (default)"), "{text}");
    assert!(lines[1].starts_with("rank"), "{text}");
    assert_eq!(lines.len(), 2 + 4 + 1, "{text}");
    assert_eq!(lines[6], "(4 of 12 shown)");
    assert!(
        lines[4].contains("0.998576") && lines[4].ends_with("Concept hub concept"),
        "{text}"
    );
    assert!(lines[5].contains("0.998348") && lines[5].ends_with("Concept read-time recency"));
}

#[test]
fn no_timestamp_is_unknown_not_fresh() {
    // engrama 0.15 dumps carry no created_at / updated_at / last_activity_at
    let rows = recency_json(
        vercy()
            .arg("recency")
            .arg(fixture("sample-export-0.15.0.ndjson"))
            .args(["--as-of", AS_OF, "--format", "json"]),
    );
    for r in &rows {
        if r["label"] == "Project" {
            assert_eq!(r["recency"], 1.0);
        } else {
            assert!(r["recency"].is_null(), "{r}");
            assert_eq!(r["basis"], "unknown");
        }
    }
    // unknowns rank last
    assert_eq!(rows[0]["label"], "Project");
}

#[test]
fn flat_stores_go_through_the_map_without_degree() {
    let rows = recency_json(vercy().arg("recency").arg(fixture("flat.jsonl")).args([
        "--as-of",
        "2026-07-03T00:00:00Z",
        "--format",
        "json",
    ]));
    let by_id = |id: &str| rows.iter().find(|r| r["record_id"] == id).unwrap().clone();
    assert_eq!(by_id("F-1")["recency"], 1.0); // Project: anchor
    assert!((by_id("F-2")["recency"].as_f64().unwrap() - 2f64.powf(-30.0 / 180.0)).abs() < 1e-15);
    assert_eq!(by_id("F-3")["recency"], 0.5); // system Insight, 30 days
    assert!(by_id("F-4")["recency"].is_null());
    assert_eq!(by_id("F-5")["recency"], 1.0); // empty last_activity_at: updated_at, in the future
    assert!(by_id("#5")["recency"].is_null()); // updated_at "not a date"
    assert!(rows
        .iter()
        .all(|r| r["degree"] == 0 && r.get("key_value").is_none()));

    let mapped = recency_json(
        vercy()
            .arg("recency")
            .arg(fixture("mapped.jsonl"))
            .args(["--as-of", "2026-07-03T00:00:00Z", "--format", "json"])
            .args(["--map", "record_id=uuid,updated_at=meta.touched"]),
    );
    assert_eq!(mapped[0]["record_id"], "m-1");
    assert_eq!(mapped[0]["age_days"], 31.0);
    assert_eq!(mapped[1]["record_id"], "m-2");
}

#[test]
fn every_bad_setting_exits_2_naming_it() {
    let store = fixture("fixture-export-0.18.1-vectors.ndjson");
    for (name, value) in [
        ("ENGRAMA_RECENCY_HALF_LIFE", "0"),
        ("ENGRAMA_RECENCY_HALF_LIFE", "-30"),
        ("ENGRAMA_RECENCY_HALF_LIFE", "nan"),
        ("ENGRAMA_RECENCY_HALF_LIFE", "inf"),
        ("ENGRAMA_RECENCY_HALF_LIFE", "ninety"),
        ("ENGRAMA_RECENCY_HALF_LIFE", ""),
        ("ENGRAMA_RECENCY_INSIGHT_HALF_LIFE", "0"),
        ("ENGRAMA_RECENCY_INSIGHT_HALF_LIFE", "-1e3"),
        ("ENGRAMA_RECENCY_INSIGHT_HALF_LIFE", "thirty"),
        ("ENGRAMA_RECENCY_DEGREE", "maybe"),
        ("ENGRAMA_RECENCY_DEGREE", "2"),
        ("ENGRAMA_RECENCY_DEGREE", ""),
    ] {
        for cmd in [&["recency", store.to_str().unwrap()][..], &["status"]] {
            let out = vercy().args(cmd).env(name, value).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{name}={value:?} {cmd:?}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(stderr.contains(name), "{name}={value:?}: {stderr}");
            assert!(out.stdout.is_empty());
        }
    }
    for (flag, value) in [
        ("--half-life", "0"),
        ("--half-life", "-5"),
        ("--half-life", "NaN"),
        ("--half-life", "inf"),
        ("--half-life", "abc"),
        ("--insight-half-life", "0"),
        ("--insight-half-life", "-0.5"),
        ("--insight-half-life", "infinity"),
    ] {
        let out = vercy()
            .arg("recency")
            .arg(&store)
            .args([flag, value])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(flag), "{flag} {value}: {stderr}");
    }
    let out = vercy()
        .arg("recency")
        .arg(&store)
        .args(["--as-of", "last tuesday"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--as-of"));
}

#[test]
fn status_shows_each_setting_and_where_it_came_from() {
    let out = vercy()
        .args(["status", "--format", "json"])
        .env("ENGRAMA_RECENCY_HALF_LIFE", "90")
        .env("ENGRAMA_RECENCY_DEGREE", "no")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["profile"]["id"], "vercy-governance-overlay");
    assert!(v["profile"]["version"].is_string());
    let r = &v["recency"];
    assert_eq!(
        (&r["half_life"]["value"], &r["half_life"]["source"]),
        (&Value::from(90.0), &Value::from("environment"))
    );
    assert_eq!(
        (
            &r["insight_half_life"]["value"],
            &r["insight_half_life"]["source"]
        ),
        (&Value::from(30.0), &Value::from("default"))
    );
    assert_eq!(
        (&r["degree_factor"]["value"], &r["degree_factor"]["source"]),
        (&Value::from(false), &Value::from("environment"))
    );
    assert_eq!(
        v["exempt_labels"],
        serde_json::json!(["Project", "Client", "Course", "Domain"])
    );

    let out = vercy().arg("status").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("recency half-life   180.0 days (default; ENGRAMA_RECENCY_HALF_LIFE)"),
        "{text}"
    );
    assert!(
        text.contains("degree factor       on (default; ENGRAMA_RECENCY_DEGREE)"),
        "{text}"
    );
    assert!(
        text.contains("exempt labels       Project, Client, Course, Domain"),
        "{text}"
    );
}

/// A seeded random dump (`tests/recency/random_dump.py 7 250 800`): names shared across owners,
/// owner-less and scoped relation lines, endpoints in another case, duplicate, self and
/// dangling edges, empty and future stamps. The expected files are engrama 0.18.1's own output
/// (`engrama_reference.py`), with the default settings and with changed ones.
#[test]
fn a_random_dump_matches_engramas_own_output_node_for_node() {
    let dump = fixture("random-seed7.ndjson");
    for (expected, args, env) in [
        ("random-seed7.engrama-defaults.json", &[][..], &[][..]),
        (
            "random-seed7.engrama-hl45.5-ihl7-nodegree.json",
            &["--insight-half-life", "7"][..],
            &[
                ("ENGRAMA_RECENCY_HALF_LIFE", "45.5"),
                ("ENGRAMA_RECENCY_DEGREE", "off"),
            ][..],
        ),
    ] {
        let want: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(fixture(expected)).unwrap()).unwrap();
        let mut cmd = vercy();
        cmd.arg("recency")
            .arg(&dump)
            .args(["--as-of", AS_OF, "--format", "json"])
            .args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let got = recency_json(&mut cmd);
        assert_eq!(got.len(), want.len(), "{expected}");
        let mut worst = 0f64;
        for w in &want {
            let g = got
                .iter()
                .find(|g| g["line"] == w["line"])
                .unwrap_or_else(|| panic!("{expected}: line {} missing", w["line"]));
            assert_eq!(
                (&g["label"], &g["key_value"], &g["degree"]),
                (&w["label"], &w["key_value"], &w["degree"]),
                "{expected}"
            );
            match (g["recency"].as_f64(), w["recency"].as_f64()) {
                (Some(a), Some(b)) => worst = worst.max((a - b).abs()),
                (None, None) => {}
                other => panic!("{expected}: line {}: {other:?}", w["line"]),
            }
        }
        assert!(worst <= 1e-12, "{expected}: max |diff| {worst}");
    }
}
