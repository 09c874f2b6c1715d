//! Property tests: generated stores, with timestamps written every way stores write them
//! (`Z`, `+00:00`, other offsets, 0–9 fraction digits, date only, naive), go through export and
//! import and keep every byte.

use clap::Parser;
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::fs;
use std::path::Path;

/// Run vercy in-process (quiet: summaries off), panicking with the error on failure.
fn vercy(args: &[&str]) {
    let mut argv = vec!["vercy", "-q", "--progress", "never"];
    argv.extend_from_slice(args);
    let cli = vercy::cli::Cli::try_parse_from(&argv).expect("arguments parse");
    match vercy::run(cli) {
        Ok(vercy::Outcome::Success) => {}
        other => panic!("vercy {args:?}: {other:?}"),
    }
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A timestamp in one of the forms stores use.
fn timestamp() -> impl Strategy<Value = String> {
    let date = (1970i32..2100, 1u32..=12, 1u32..=28);
    let time = (0u32..24, 0u32..60, 0u32..60);
    let fraction = (0usize..=9, any::<u64>()).prop_map(|(digits, n)| {
        if digits == 0 {
            String::new()
        } else {
            let s = format!("{:09}", n % 1_000_000_000);
            format!(".{}", &s[..digits])
        }
    });
    let zone = prop_oneof![
        Just("Z".to_string()),
        Just("+00:00".to_string()),
        Just(String::new()), // naive
        (
            0u32..14,
            prop_oneof![Just(0u32), Just(30), Just(45)],
            any::<bool>()
        )
            .prop_map(|(h, m, neg)| format!("{}{h:02}:{m:02}", if neg { '-' } else { '+' })),
    ];
    prop_oneof![
        date.clone()
            .prop_map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}")),
        (date, time, fraction, zone).prop_map(|((y, mo, d), (h, mi, s), f, z)| {
            format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{f}{z}")
        }),
    ]
}

/// Text that stresses serialisation: quotes, escapes, non-ASCII, separators.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,12}",
        Just("é ñ 中文 \u{2028} 🙂".to_string()),
        Just("quote \" backslash \\ tab \t newline \n ctl \u{1}".to_string()),
        Just("a|b,c~".to_string()),
    ]
}

/// One flat record with a unique id and timestamps in several fields.
fn record(i: usize) -> impl Strategy<Value = Map<String, Value>> {
    (
        timestamp(),
        prop::option::of(timestamp()),
        timestamp(),
        prop::option::of(timestamp()),
        text(),
        prop_oneof![
            Just(json!(1.50)),
            Just(json!(17)),
            Just(json!(null)),
            Just(json!(["x", "y"]))
        ],
    )
        .prop_map(move |(from, to, created, archived, value, extra)| {
            let mut m = Map::new();
            m.insert("record_id".into(), json!(format!("R-{i}")));
            m.insert("valid_from".into(), json!(from));
            m.insert("valid_to".into(), to.map_or(Value::Null, Value::from));
            m.insert("created_at".into(), json!(created));
            if let Some(a) = archived {
                m.insert("archived_at".into(), json!(a));
            }
            m.insert("value".into(), json!(value));
            m.insert("extra".into(), extra);
            m
        })
}

/// A flat JSONL store: records in either the Python style or the compact style.
fn flat_store() -> impl Strategy<Value = String> {
    (1usize..12, any::<bool>())
        .prop_flat_map(|(n, python)| ((0..n).map(record).collect::<Vec<_>>(), Just(python)))
        .prop_map(|(records, python)| {
            records
                .iter()
                .map(|r| {
                    let line = if python {
                        vercy::record::fields_text(r)
                    } else {
                        serde_json::to_string(r).unwrap()
                    };
                    line + "\n"
                })
                .collect()
        })
}

/// An engrama dump: envelope, nodes with timestamps in their properties, relations between
/// them, and vectors, written as engrama writes them.
fn engrama_dump() -> impl Strategy<Value = String> {
    (1usize..8)
        .prop_flat_map(|n| {
            (
                prop::collection::vec((timestamp(), timestamp(), timestamp(), prop::option::of(timestamp()), text()), n),
                prop::collection::vec((0..n, 0..n), 0..6),
                prop::collection::vec(0..n, 0..3),
                timestamp(),
            )
        })
        .prop_map(|(nodes, edges, vectors, exported_at)| {
            let py = |v: &Value| vercy::python::json::python_text(v);
            let mut out = py(&json!({"engrama_export": 1, "version": "0.18.1", "exported_at": exported_at,
                "source_backend": "sqlite", "embedding_model": "test", "embedding_dimensions": 2})) + "\n";
            let label = |i: usize| if i.is_multiple_of(2) { "Concept" } else { "Decision" };
            let key = |i: usize| if i.is_multiple_of(2) { "name" } else { "title" };
            for (i, (from, activity, created, to, notes)) in nodes.iter().enumerate() {
                let mut props = Map::new();
                props.insert("notes".into(), json!(notes));
                props.insert("org_id".into(), json!("o"));
                props.insert("user_id".into(), json!("u"));
                props.insert(key(i).into(), json!(format!("n{i}")));
                props.insert("valid_from".into(), json!(from));
                props.insert("confidence".into(), json!(1.0));
                props.insert("last_activity_at".into(), json!(activity));
                if let Some(to) = to {
                    props.insert("valid_to".into(), json!(to));
                }
                props.insert("created_at".into(), json!(created));
                props.insert("updated_at".into(), json!(created));
                out += &py(&json!({"type": "node", "label": label(i), "key_field": key(i),
                    "key_value": format!("n{i}"), "properties": props}));
                out += "\n";
            }
            let mut seen = std::collections::HashSet::new();
            for (a, b) in edges {
                if seen.insert((a, b)) {
                    out += &py(&json!({"type": "relation", "from_label": label(a), "from_key": key(a),
                        "from_value": format!("n{a}"), "rel_type": "RELATES", "to_label": label(b),
                        "to_key": key(b), "to_value": format!("n{b}"), "org_id": "o", "user_id": "u"}));
                    out += "\n";
                }
            }
            let mut seen = std::collections::HashSet::new();
            for i in vectors {
                if seen.insert(i) {
                    out += &py(&json!({"type": "vector", "label": label(i), "key_field": key(i),
                        "key_value": format!("n{i}"), "org_id": "o", "user_id": "u", "vector": [0.5, 0.10000000149011612]}));
                    out += "\n";
                }
            }
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// flat store → engrama → new store: byte-identical; and → jsonl: byte-identical.
    #[test]
    fn flat_stores_round_trip_through_engrama(store in flat_store(), label in prop_oneof![Just("Decision"), Just("Concept")]) {
        let dir = tempfile::tempdir().unwrap();
        let (src, dump, back, lines) = (dir.path().join("s.jsonl"), dir.path().join("d.ndjson"),
            dir.path().join("b.jsonl"), dir.path().join("l.jsonl"));
        fs::write(&src, &store).unwrap();
        vercy(&["export", p(&src), "--to", "engrama", "--label", label, "-o", p(&dump)]);
        vercy(&["import", p(&dump), "--into", p(&back)]);
        prop_assert_eq!(fs::read_to_string(&back).unwrap(), store.clone());
        vercy(&["export", p(&src), "--to", "jsonl", "-o", p(&lines)]);
        prop_assert_eq!(fs::read_to_string(&lines).unwrap(), store.clone());
        // and re-importing either changes nothing
        vercy(&["import", p(&dump), "--into", p(&back)]);
        vercy(&["import", p(&src), "--into", p(&back)]);
        prop_assert_eq!(fs::read_to_string(&back).unwrap(), store);
    }

    /// engrama dump → new store → engrama: every line identical, the envelope too.
    #[test]
    fn engrama_dumps_round_trip(dump in engrama_dump()) {
        let dir = tempfile::tempdir().unwrap();
        let (src, store, out) = (dir.path().join("d.ndjson"), dir.path().join("s.jsonl"), dir.path().join("o.ndjson"));
        fs::write(&src, &dump).unwrap();
        vercy(&["import", p(&src), "--into", p(&store)]);
        vercy(&["export", p(&store), "--to", "engrama", "-o", p(&out)]);
        prop_assert_eq!(fs::read_to_string(&out).unwrap(), dump.clone());
        vercy(&["import", p(&src), "--into", p(&store)]);
        prop_assert_eq!(fs::read_to_string(&store).unwrap(), dump);
    }

    /// Merging a dump into a store: every record the dump names ends with the dump's timestamp
    /// text exactly; records it does not name keep their bytes.
    #[test]
    fn merged_records_take_the_dump_timestamps_verbatim(old in flat_store(), new in flat_store()) {
        let dir = tempfile::tempdir().unwrap();
        let (store, dump) = (dir.path().join("s.jsonl"), dir.path().join("d.jsonl"));
        fs::write(&store, &old).unwrap();
        fs::write(&dump, &new).unwrap();
        vercy(&["import", p(&dump), "--into", p(&store)]);
        let merged = fs::read_to_string(&store).unwrap();
        let parse = |t: &str| -> Vec<Map<String, Value>> { t.lines().map(|l| serde_json::from_str(l).unwrap()).collect() };
        let (old_r, new_r, merged_r) = (parse(&old), parse(&new), parse(&merged));
        prop_assert_eq!(merged_r.len(), old_r.len().max(new_r.len()));
        for (i, m) in merged_r.iter().enumerate() {
            match new_r.get(i) {
                Some(n) => for (k, v) in n {
                    prop_assert_eq!(m.get(k), Some(v));
                },
                None => prop_assert_eq!(merged.lines().nth(i), old.lines().nth(i)),
            }
        }
    }
}
