//! Reports that scale with what they find: the grouped human report, GitHub annotations and
//! the step summary, SARIF valid against the SARIF 2.1.0 schema, on a messy store
//! (fixtures/values/messy-500.jsonl, written by bench/gen_messy.py: several owners per
//! concept, inverted intervals, dangling and cyclic supersedes, duplicate ids, bad dates).

use crate::common;

use common::{json_of, snapshot, stdout_of, vercy};
use serde_json::Value;
use std::path::Path;

const MESSY: &str = "fixtures/values/messy-500.jsonl";

fn human(args: &[&str]) -> String {
    let out = vercy().env("COLUMNS", "100").args(args).output().unwrap();
    stdout_of(&out)
}

#[test]
fn the_human_report_groups_warnings_by_code_on_one_screen() {
    let text = human(&["check", MESSY]);
    snapshot("check-messy.txt", &text);
    assert!(text.lines().count() <= 40, "{text}");
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "{line}");
    }
    // one group a code, however many warnings it has
    assert_eq!(text.matches("value.owners").count(), 1, "{text}");
    assert!(
        text.contains("105 concepts have more than one owner:"),
        "{text}"
    );
    assert!(
        text.contains("concept_000000 (sales, engineering),"),
        "{text}"
    );
    assert!(text.contains("supersedes cycles") || text.contains("value.supersedes_cycle"));
    // every id shown whole: R- and seven digits, never cut by a wrap
    for token in text.split(|c: char| c.is_whitespace() || ",():".contains(c)) {
        if let Some(digits) = token.strip_prefix("R-") {
            assert_eq!(digits.len(), 7, "{token:?} in\n{text}");
        }
    }
}

/// A store that warns under ten codes, with UUID ids (fixtures/values/crowded-uuid-400.jsonl:
/// `bench/gen_messy.py --long-ids 400`, then valid_from set to created_at on seven records in
/// ten, release_to a bare string on one in forty and a conflict policy on one in a hundred).
/// Each item on two lines would take 45: the last ones are said in one, with their count alone.
#[test]
fn a_report_with_every_code_still_fits_on_one_screen() {
    let text = human(&["check", "fixtures/values/crowded-uuid-400.jsonl"]);
    snapshot("check-crowded.txt", &text);
    assert!(text.lines().count() <= 40, "{text}");
    let codes = text.lines().filter(|l| l.starts_with("    value.")).count();
    assert_eq!(codes, 10, "{text}");
    // the first items keep their first records, the last one its count alone
    assert!(
        text.contains(
            "source             level 2 MUST: 3 records: 51c3de54-2def-0c7b-fd9f-beedabebe661,"
        ),
        "{text}"
    );
    let conflict = text.find("value.conflict").expect("the conflict group");
    let (last, _) = text[conflict..]
        .split_once("  profile")
        .expect("the footer");
    assert!(last.trim_end().ends_with("176 records"), "{last}");
    // every line within the width (a dangling pointer's two ids wrap between them)
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "{line:?} in\n{text}");
    }
    // a UUID is 36 characters: never cut by a wrap
    for token in text.split(|c: char| c.is_whitespace() || ",():→".contains(c)) {
        if token.len() > 8
            && token.as_bytes()[8] == b'-'
            && token.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
        {
            assert_eq!(token.len(), 36, "{token:?} in\n{text}");
        }
    }
}

#[test]
fn a_narrow_terminal_wraps_between_ids() {
    let out = vercy()
        .env("COLUMNS", "50")
        .args(["check", MESSY])
        .output()
        .unwrap();
    let text = stdout_of(&out);
    for token in text.split(|c: char| c.is_whitespace() || ",():".contains(c)) {
        if let Some(digits) = token.strip_prefix("R-") {
            assert_eq!(digits.len(), 7, "{token:?} in\n{text}");
        }
    }
}

#[test]
fn quiet_ends_with_what_it_left_out() {
    let text = human(&["check", MESSY, "--quiet"]);
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("  --quiet left out 3 missing fields ("),
        "{text}"
    );
    assert!(last.contains("warnings of 8 codes"), "{last}");
    assert!(!text.contains("value.owners"), "{text}");
}

#[test]
fn record_text_cannot_drive_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("esc.jsonl");
    std::fs::write(
        &store,
        "{\"record_id\": \"A\\u001b[31m\\u202e\", \"valid_from\": \"nope\\u001b[2J\", \"valid_to\": null}\n",
    )
    .unwrap();
    let text = human(&["check", store.to_str().unwrap()]);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{202e}'),
        "{text:?}"
    );
    assert!(text.contains("A\\u{1b}[31m\\u{202e}"), "{text}");
}

/// Annotations by type: `::error`, `::warning`, `::notice`.
fn annotation_counts(text: &str) -> [usize; 3] {
    let mut n = [0; 3];
    for line in text.lines() {
        for (i, kind) in ["::error ", "::warning ", "::notice "].iter().enumerate() {
            if line.starts_with(kind) {
                n[i] += 1;
            }
        }
    }
    n
}

#[test]
fn github_writes_ten_annotations_a_type_a_summary_and_the_step_summary() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "before\n").unwrap();
    let out = vercy()
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args(["check", MESSY, "--format", "github"])
        .output()
        .unwrap();
    let text = stdout_of(&out);
    snapshot("check-messy.github", &text);
    assert!(text.lines().all(|l| l.starts_with("::")), "{text}");
    let counts = annotation_counts(&text);
    assert!(counts.iter().all(|&n| n <= 10), "{counts:?}\n{text}");
    assert_eq!(counts[1], 10, "the warnings fill their budget: {text}");
    let last = text.lines().last().unwrap();
    assert!(last.starts_with(
        "::notice file=fixtures/values/messy-500.jsonl,title=vercy check%3A summary::"
    ));
    assert!(last.contains("value.owners"), "{last}");
    assert!(last.contains("more annotations left out"), "{last}");
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.starts_with("before\n## vercy check\n"), "appended: {md}");
    assert!(md.contains("| `value.owners` |"), "{md}");
    assert!(md.contains("| source | level 2 MUST |"), "{md}");
    assert!(md.len() < 1 << 20);
}

#[test]
fn github_annotates_an_unreadable_store_with_its_line() {
    let out = vercy()
        .args([
            "check",
            "fixtures/bad/bad-line-middle.jsonl",
            MESSY,
            "--format",
            "github",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let text = stdout_of(&out);
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("::error file=fixtures/bad/bad-line-middle.jsonl,line="),
        "{text}"
    );
    assert!(first.contains(",col="), "{first}");
    assert!(
        text.contains("title=vercy check%3A level"),
        "the readable store is reported too"
    );
}

/// The vendored OASIS SARIF 2.1.0 schema (draft-04), its formats (uri, uri-reference,
/// date-time) checked too; built once for every test that validates a log.
fn sarif_schema() -> &'static jsonschema::Validator {
    static SCHEMA: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    SCHEMA.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sarif-schema-2.1.0.json");
        let text = std::fs::read_to_string(path).unwrap();
        // The pattern of the two `language` properties has a bare `]`, a literal only in
        // ECMA-262's web-compatible grammar (Annex B), which the validator's check of the
        // schema refuses: escaped, it means the same in both.
        let bare = r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#;
        assert_eq!(text.matches(bare).count(), 2, "the vendored schema changed");
        let text = text.replace(bare, r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\\]?$""#);
        let schema: Value = serde_json::from_str(&text).unwrap();
        jsonschema::draft4::options()
            .should_validate_formats(true)
            .build(&schema)
            .expect("the SARIF schema compiles")
    })
}

/// Validate a SARIF log against the SARIF schema; panics naming every place it breaks it.
pub fn assert_valid_sarif(log: &Value) {
    let errors: Vec<String> = sarif_schema()
        .iter_errors(log)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "invalid SARIF:\n{}", errors.join("\n"));
}

/// The validator is a real one: a log of vercy's, broken in each way below, is refused at
/// the place broken (an enum, a minimum, a type, and the uri format, which draft-04 checks).
#[test]
fn the_sarif_schema_refuses_a_broken_log() {
    let good = sarif(&["check", MESSY, "--format", "sarif"], 0);
    assert_valid_sarif(&good);
    let breaks: [(&str, &str, Value); 4] = [
        ("/runs/0/results/0/level", "level", Value::from("fatal")),
        (
            "/runs/0/results/0/locations/0/physicalLocation/region/startLine",
            "startLine",
            Value::from(0),
        ),
        (
            "/runs/0/results/0/partialFingerprints/vercyResult~1v1",
            "fingerprint",
            Value::from(36848),
        ),
        (
            "/runs/0/tool/driver/rules/0/helpUri",
            "helpUri",
            Value::from("README.md#check-codes"),
        ),
    ];
    for (at, what, bad) in breaks {
        let mut log = good.clone();
        *log.pointer_mut(at).unwrap() = bad;
        let errors: Vec<String> = sarif_schema()
            .iter_errors(&log)
            .map(|e| e.instance_path().to_string())
            .collect();
        assert_eq!(errors, [at], "{what}");
    }
}

fn sarif(args: &[&str], code: i32) -> Value {
    let out = vercy().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(code), "{}", common::stderr_of(&out));
    json_of(&out)
}

#[test]
fn sarif_is_valid_and_within_github_limits_for_any_path() {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("a store #1 ñ%.jsonl");
    std::fs::copy(MESSY, &odd).unwrap();
    for store in [MESSY, odd.to_str().unwrap()] {
        let log = sarif(&["check", store, "--format", "sarif"], 0);
        assert_valid_sarif(&log);
        let run = &log["runs"][0];
        let results = run["results"].as_array().unwrap();
        assert!(!results.is_empty() && results.len() <= 25_000);
        for r in results {
            let loc = &r["locations"][0]["physicalLocation"];
            let uri = loc["artifactLocation"]["uri"].as_str().unwrap();
            assert!(!uri.contains(' ') && !uri.contains('#'), "{uri}");
            assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1, "{r}");
            assert!(r["partialFingerprints"]["vercyResult/v1"].is_string());
            assert!(r["relatedLocations"].as_array().map_or(0, Vec::len) <= 100);
        }
        let owners = results
            .iter()
            .find(|r| r["ruleId"] == "value.owners")
            .unwrap();
        assert!(
            owners["properties"]["warnings"].as_u64().unwrap() > 50,
            "{owners}"
        );
        for rule in run["tool"]["driver"]["rules"].as_array().unwrap() {
            assert!(
                rule["help"]["text"].is_string() && rule["helpUri"].is_string(),
                "{rule}"
            );
        }
    }
    let absolute = sarif(&["check", odd.to_str().unwrap(), "--format", "sarif"], 0);
    let uri = absolute["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        ["artifactLocation"]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        uri.starts_with("file:///") && uri.ends_with("a%20store%20%231%20%C3%B1%25.jsonl"),
        "{uri}"
    );
    // the same store twice: the same fingerprints
    let again = sarif(&["check", MESSY, "--format", "sarif"], 0);
    let prints = |log: &Value| -> Vec<Value> {
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["partialFingerprints"].clone())
            .collect()
    };
    assert_eq!(
        prints(&again),
        prints(&sarif(&["check", MESSY, "--format", "sarif"], 0))
    );
}

#[test]
fn an_unreadable_store_is_a_failed_sarif_invocation() {
    let log = sarif(
        &[
            "check",
            "fixtures/bad/bad-line-middle.jsonl",
            "--format",
            "sarif",
        ],
        2,
    );
    assert_valid_sarif(&log);
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let note = &invocation["toolExecutionNotifications"][0];
    assert_eq!(note["level"], "error");
    assert!(
        note["locations"][0]["physicalLocation"]["region"]["startLine"]
            .as_u64()
            .unwrap()
            >= 1
    );
    assert!(note["message"]["text"]
        .as_str()
        .unwrap()
        .contains("bad-line-middle.jsonl"));
}

#[test]
fn json_names_every_offender_and_every_warning_record() {
    let out = vercy().args(["check", MESSY, "--json"]).output().unwrap();
    let r = json_of(&out);
    for f in r["findings"].as_array().unwrap() {
        assert_eq!(
            f["count"].as_u64().unwrap() as usize,
            f["offenders"].as_array().unwrap().len()
        );
    }
    let warnings = r["warnings"].as_array().unwrap();
    assert!(warnings.len() > 50);
    for w in warnings {
        assert_eq!(
            w["count"].as_u64().unwrap() as usize,
            w["records"].as_array().unwrap().len()
        );
    }
}

/// A store named `name` of `records` (a line each), in a folder that lives as long as the
/// `TempDir` returned.
fn temp_store(
    name: &str,
    records: impl IntoIterator<Item = String>,
) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join(name);
    let text: String = records.into_iter().map(|record| record + "\n").collect();
    std::fs::write(&store, text).unwrap();
    (dir, store)
}

/// The warnings of `code` in a JSON report.
fn warnings_of<'r>(report: &'r Value, code: &str) -> Vec<&'r Value> {
    let warnings = report["warnings"].as_array().unwrap();
    warnings.iter().filter(|w| w["code"] == code).collect()
}

/// A store that names a person as each record's owner has as many owners as records: past the
/// first 65,536 the check keeps them as text beside their concepts (`values/owners.rs`) and
/// writes the ids' names to its temporary file. The owners' warnings still name each owner
/// and its first record, and an owner named twice is still one owner.
#[test]
fn an_owner_a_record_is_named_in_each_owners_warning() {
    const CONCEPTS: usize = 70_000;
    // concept c in records c and CONCEPTS + c; the last thousand's second record names the
    // first record's owner again
    let records = (0..2 * CONCEPTS).map(|i| {
        let c = i % CONCEPTS;
        let person = if i >= CONCEPTS && c >= CONCEPTS - 1000 {
            c
        } else {
            i
        };
        format!(
            "{{\"record_id\": \"r{i:06}\", \"concept\": \"c{c:06}\", \"valid_from\": \
             \"2024-01-01\", \"concept_owner\": \"person.{person:06}@example.org\"}}"
        )
    });
    let (_dir, store) = temp_store("people.jsonl", records);
    let r = common::report_of(&["check", store.to_str().unwrap(), "--json"], 1);
    let owners = warnings_of(&r, "value.owners");
    assert_eq!(owners.len(), CONCEPTS - 1000);
    for (c, w) in owners.iter().enumerate() {
        let second = CONCEPTS + c;
        assert_eq!(
            w["message"],
            format!(
                "concept \"c{c:06}\" has 2 owners: person.{c:06}@example.org, \
                 person.{second:06}@example.org"
            ),
        );
        let records: Vec<(&str, u64)> = w["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["record"].as_str().unwrap(), r["line"].as_u64().unwrap()))
            .collect();
        let (first, second) = (format!("r{c:06}"), format!("r{second:06}"));
        assert_eq!(
            records,
            [
                (first.as_str(), c as u64 + 1),
                (second.as_str(), CONCEPTS as u64 + c as u64 + 1)
            ]
        );
    }
}

/// Records that each supersede the five before them, one id written again at the end: every
/// record supersedes every other through some path. One warning names the group, each record
/// once, and shows the first records of its cycle; a search that listed a cycle for every
/// pointer back made thousands of overlapping ones (a 20,000-record store held 8.7 GB).
#[test]
fn a_tangle_of_supersedes_is_one_cycle_warning() {
    const RECORDS: usize = 2_000;
    let records = (1..=RECORDS).map(|i| {
        // the last record is R-0001 again: it closes the loop
        let id = if i == RECORDS { 1 } else { i };
        let targets: Vec<String> = (1..=5)
            .filter(|k| *k < i)
            .map(|k| format!("\"R-{:04}\"", i - k))
            .collect();
        format!(
            "{{\"record_id\": \"R-{id:04}\", \"concept\": \"c\", \"valid_from\": \"2024-01-01\", \
             \"supersedes\": [{}]}}",
            targets.join(", ")
        )
    });
    let (_dir, store) = temp_store("tangle.jsonl", records);
    let path = store.to_str().unwrap();
    let out = vercy().args(["check", path, "--json"]).output().unwrap();
    let r = json_of(&out);
    let cycles = warnings_of(&r, "value.supersedes_cycle");
    assert_eq!(cycles.len(), 1, "{cycles:#?}");
    let mut named: Vec<&str> = cycles[0]["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["record"].as_str().unwrap())
        .collect();
    assert_eq!(named.len(), RECORDS - 1);
    named.sort_unstable();
    named.dedup();
    assert_eq!(named.len(), RECORDS - 1, "each record once");
    let message = cycles[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("supersedes forms a cycle of ") && message.contains(" → … → "),
        "{message}"
    );
    let lines = human(&["check", path]).lines().count();
    assert!(lines <= 40, "{lines} lines");
}

/// Records that each supersede five left out of the store (a slice of a larger one), and one
/// without an id: every pointer is named, `record → target` on its record's line, also once
/// the targets and the pointers are past what is held in memory (they go to the temporary
/// file and are read back).
#[test]
fn every_dangling_pointer_is_named_when_read_back() {
    const RECORDS: usize = 40_000;
    const POINTERS: usize = 5;
    // 40,000 × 5 targets of 56 bytes: past the 8 MiB of targets and 4 MiB of pointers held
    let target = |i: usize, k: usize| format!("left-out/{i:06}/{k}/{}", "x".repeat(40));
    let records = (0..RECORDS).map(|i| {
        let targets: Vec<String> = (0..POINTERS)
            .map(|k| format!("{:?}", target(i, k)))
            .collect();
        format!(
            "{{\"record_id\": \"R-{i:06}\", \"valid_from\": \"2024-01-01\", \
             \"supersedes\": [{}]}}",
            targets.join(", ")
        )
    });
    let nameless = "{\"valid_from\": \"2024-01-01\", \"supersedes\": \"gone\"}".to_string();
    let (_dir, store) = temp_store("slice.jsonl", records.chain([nameless]));
    let r = common::report_of(&["check", store.to_str().unwrap(), "--json"], 1);
    let unknown = warnings_of(&r, "value.supersedes_unknown");
    assert_eq!(unknown.len(), 1);
    let records = unknown[0]["records"].as_array().unwrap();
    assert_eq!(unknown[0]["count"], RECORDS * POINTERS + 1);
    assert_eq!(records.len(), RECORDS * POINTERS + 1);
    for i in [0, 1, 12_345, RECORDS - 1] {
        for k in [0, POINTERS - 1] {
            let named = &records[i * POINTERS + k];
            assert_eq!(named["record"], format!("R-{i:06} → {}", target(i, k)));
            assert_eq!(named["line"], i + 1);
        }
    }
    let last = &records[RECORDS * POINTERS];
    assert!(
        last["record"].as_str().unwrap().ends_with(" → gone"),
        "{last}"
    );
    assert_eq!(last["line"], RECORDS + 1);
}

/// Policies past the few a table counts (4,096) are counted from a sorted list: the count is
/// still of distinct texts, and every record that states one is named.
#[test]
fn many_distinct_policies_are_counted_once_each() {
    const RECORDS: usize = 6_000;
    let records = (0..RECORDS).map(|i| {
        // 5,000 texts, the last thousand stated twice: some in the table, most past it
        let policy = if i < 5_000 { i } else { i - 1_000 };
        format!(
            "{{\"record_id\": \"R-{i:04}\", \"valid_from\": \"2024-01-01\", \
             \"conflict_policy\": \"policy {policy}\"}}"
        )
    });
    let (_dir, store) = temp_store("policies.jsonl", records);
    let r = common::report_of(&["check", store.to_str().unwrap(), "--json"], 1);
    let policies = warnings_of(&r, "value.policies");
    assert_eq!(policies.len(), 1);
    assert_eq!(
        policies[0]["message"],
        "5000 different conflict policies: a store states one"
    );
    assert_eq!(policies[0]["count"], RECORDS);
    assert_eq!(policies[0]["records"][RECORDS - 1]["record"], "R-5999");
    assert_eq!(policies[0]["records"][RECORDS - 1]["line"], RECORDS);
}
