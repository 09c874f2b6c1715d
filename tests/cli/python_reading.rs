//! Stores the reference checker reads with Python's `json.loads`, `str.strip()` and
//! `str.splitlines()` where plain JSON lines would refuse them (fixtures/python/), and the
//! options it reads with argparse and `int()`. vercy must read them as the reference does:
//! these assertions hold without the reference installed (tests/cli/parity_reference.rs runs
//! both).

use assert_cmd::Command;
use serde_json::Value;

fn check(args: &[&str]) -> (i32, Value) {
    let out = Command::cargo_bin("vercy")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .arg("check")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    let code = out.status.code().expect("exit code");
    let report = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (code, report)
}

fn offenders(report: &Value, field: &str) -> Vec<String> {
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
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

#[test]
fn unicode_whitespace_around_the_records_is_stripped() {
    for store in [
        "fixtures/python/whitespace-around.jsonl",
        "fixtures/python/whitespace-around.json",
    ] {
        let (code, report) = check(&[store]);
        assert_eq!((code, report["records"].as_u64()), (0, Some(2)), "{store}");
    }
}

#[test]
fn line_breaks_python_splits_on_separate_records() {
    let (code, report) = check(&["fixtures/python/cr-line-ends.jsonl"]);
    assert_eq!((code, report["records"].as_u64()), (0, Some(3)));
    let (_, report) = check(&["fixtures/python/python-line-breaks.jsonl"]);
    assert_eq!(report["records"], 9);
    let ids: Vec<String> = (0..9).map(|i| format!("P-{i}")).collect();
    assert_eq!(offenders(&report, "source"), ids, "every record, in order");
}

#[test]
fn nan_and_infinity_read_as_pythons_floats() {
    let (code, report) = check(&["fixtures/python/nan-infinity.jsonl"]);
    assert_eq!(code, 1);
    assert_eq!(report["records"], 4);
    assert_eq!(
        offenders(&report, "valid_to"),
        ["nan", "inf", "[-inf, '\\u3000', 1.5]"]
    );
    // a record whose conflict_policy is Infinity states a rule
    assert_eq!(offenders(&report, "applies_to"), ["P-3"]);
}

#[test]
fn lone_surrogates_in_fields_not_read_do_not_refuse_the_store() {
    let (code, report) = check(&["fixtures/python/lone-surrogate-unread.jsonl"]);
    assert_eq!((code, report["records"].as_u64()), (0, Some(3)));
}

#[test]
fn a_lone_surrogate_reads_the_same_through_a_choice_as_through_its_key() {
    // a choice among keys (`record_id | chroma:id`, the chroma map's) finds the value a
    // plain key finds, as Python reads it, not nothing because serde_json refuses it
    let store = "fixtures/quirks/lone-surrogate-id.jsonl";
    let plain = check(&[store, "--map", "record_id=record_id"]);
    let chosen = check(&[store, "--map", "record_id=record_id | chroma:id"]);
    assert_eq!(chosen.1["level"], 1, "{}", chosen.1);
    assert_eq!(chosen.1["findings"], plain.1["findings"]);
    let (_, report) = check(&[store, "--map", "chroma"]);
    assert_eq!(report["level"], 1, "{report}");
}
#[test]
fn an_engrama_export_key_in_a_record_is_a_record() {
    let (code, report) = check(&["fixtures/python/engrama-key-in-a-record.jsonl"]);
    assert_eq!((code, report["records"].as_u64()), (0, Some(2)));
    assert_eq!(offenders(&report, "source"), ["P-1", "P-2"]);
}

#[test]
fn nesting_is_read_to_a_thousand_levels() {
    for store in [
        "fixtures/python/nested-979-levels.jsonl",
        "fixtures/python/nested-999-levels.jsonl",
    ] {
        let (code, report) = check(&[store]);
        assert_eq!((code, report["records"].as_u64()), (0, Some(3)), "{store}");
    }
}

#[test]
fn offenders_are_named_with_pythons_repr() {
    let (_, report) = check(&["fixtures/python/unprintable-offenders.jsonl"]);
    assert_eq!(
        offenders(&report, "valid_from"),
        [
            "['\\u3000']",
            "['\\u061c']",
            "['\\u180e']",
            "['\\u202e']",
            "['\\u2066']",
            "['\\ue000']",
            "['\\U000e0001']",
            "['\\u0378']",
            "['\\xad']",
            "['ok']"
        ]
    );
}

#[test]
fn min_level_is_read_as_python_int_reads_it() {
    let store = "fixtures/python/cr-line-ends.jsonl"; // level 1
    for (level, want) in [
        (" 1", 0),
        ("\t2", 1),
        ("\u{ff11}", 0),
        ("\u{661}", 0),
        ("+2", 1),
        ("\u{a0}3\u{3000}", 1),
        ("1_0", 2),
        ("4", 2),
        ("2\u{1f}", 2),
        ("1__0", 2),
    ] {
        let arg = format!("--min-level={level}");
        assert_eq!(check(&[store, &arg]).0, want, "{level:?}");
    }
}

#[test]
fn long_options_take_unique_prefixes_and_repeat() {
    let store = "fixtures/python/cr-line-ends.jsonl";
    let (code, report) = check(&[store, "--pol", "--min", "2", "--quie"]);
    assert_eq!(
        (code, report["policy_outside_records"].as_bool()),
        (1, Some(true))
    );
    assert_eq!(report["min_level"], 2);
    let (code, report) = check(&[store, "--js", "--min-level", "3", "--min-level", "1"]);
    assert_eq!((code, report["min_level"].as_u64()), (0, Some(1)));
}

#[test]
fn map_pairs_are_stripped_as_python_strips_them() {
    let store = "fixtures/python/cr-line-ends.jsonl";
    let (_, report) = check(&[
        store,
        "--map",
        "source=P-0\u{1f}, \u{1c}concept_owner\u{a0}=x",
    ]);
    assert_eq!(report["mapping"]["source"], "P-0");
    assert_eq!(report["mapping"]["concept_owner"], "x");
}
