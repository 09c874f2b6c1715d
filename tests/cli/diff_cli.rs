//! `vercy diff` over fixtures/diff/: BASE is base.jsonl, each `CODE.head.jsonl` a HEAD that
//! changes history in one way (clean.head.jsonl only adds to it), each `bad-*.jsonl` bad input.
//! The exact findings and exit codes; each format; a real git repository made with git; a
//! property test of the rule itself.

use crate::check_reports::assert_valid_sarif;
use crate::common::{git, json_of, stderr_of, stdout_of, vercy};
use crate::memory_budget::same_report_at_every_budget;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::path::Path;

const BASE: &str = "fixtures/diff/base.jsonl";

fn head(name: &str) -> String {
    format!("fixtures/diff/{name}.head.jsonl")
}

/// `vercy diff BASE HEAD --format json`, its exit code checked: the report.
fn diff_json(base: &str, head: &str, extra: &[&str], code: i32) -> Value {
    let out = vercy()
        .args(["diff", base, head, "--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(code), "{}", stderr_of(&out));
    json_of(&out)
}

/// The findings without their messages (checked apart).
fn findings(report: &Value) -> Vec<Value> {
    let mut list = report["findings"].as_array().unwrap().clone();
    for f in &mut list {
        f.as_object_mut().unwrap().remove("message");
    }
    list
}

#[test]
fn a_head_that_only_adds_passes() {
    let r = diff_json(BASE, &head("clean"), &[], 0);
    assert_eq!(r["pass"], json!(true));
    assert_eq!(findings(&r), Vec::<Value>::new());
    assert_eq!(
        (&r["added"], &r["added_superseding"], &r["unchanged"]),
        (&json!(1), &json!(1), &json!(4))
    );
    // R-2's updated_at moved: capture time, not a statement
    assert_eq!(r["times_moved"], json!(1));
    let text = stdout_of(
        &vercy()
            .args(["diff", BASE, &head("clean")])
            .output()
            .unwrap(),
    );
    assert!(text.contains("pass · history was only added to"), "{text}");
}

#[test]
fn each_change_of_history_is_its_code_with_its_record_and_lines() {
    let cases = [
        (
            "edited",
            json!([{"code": "history.edited", "id": "R-2", "base_line": 2, "head_line": 2,
                "allowed": false, "changes": [{"field": "value", "old": "legal", "new": "finance"}]}]),
        ),
        (
            "end_written",
            json!([{"code": "history.end_written", "id": "R-1", "base_line": 1, "head_line": 1,
                "allowed": false, "changes": [{"field": "valid_to", "old": null, "new": "2025-06-01"}],
                "superseded_by": {"id": "R-5", "head_line": 5}}]),
        ),
        (
            "deleted",
            json!([{"code": "history.deleted", "id": "R-3", "base_line": 3, "head_line": 0,
                "allowed": false}]),
        ),
        (
            "supersedes_changed",
            json!([{"code": "history.supersedes_changed", "id": "R-4", "base_line": 4,
                "head_line": 4, "allowed": false,
                "changes": [{"field": "supersedes", "old": null, "new": "R-3"}]}]),
        ),
        (
            "id_reused",
            json!([{"code": "history.id_reused", "id": "R-3", "base_line": 3, "head_line": 3,
                "allowed": false, "changes": [
                    {"field": "concept", "old": "office", "new": "parking"},
                    {"field": "value", "old": "Berlin", "new": "level 2"}]}]),
        ),
        (
            "starts_before",
            json!([{"code": "history.starts_before", "id": "R-5", "base_line": 0, "head_line": 5,
                "allowed": false, "supersedes": {"id": "R-1", "head_line": 1}}]),
        ),
        (
            "superseded_missing",
            json!([{"code": "history.superseded_missing", "id": "R-5", "base_line": 0,
                "head_line": 5, "allowed": false, "supersedes": {"id": "R-9", "head_line": 0}}]),
        ),
    ];
    for (name, expected) in cases {
        let r = diff_json(BASE, &head(name), &[], 1);
        assert_eq!(json!(findings(&r)), expected, "{name}");
        assert_eq!(r["pass"], json!(false), "{name}");
        assert_eq!(r["counts"][format!("history.{name}")], json!(1), "{name}");
        // allowed: still reported, no longer failing
        let allowed = diff_json(BASE, &head(name), &["--allow", name], 0);
        assert_eq!(allowed["findings"][0]["allowed"], json!(true), "{name}");
    }
    // the end written by hand says who supersedes it, and that the end is derived
    let r = diff_json(BASE, &head("end_written"), &[], 1);
    let message = r["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("superseded by R-5 (line 5)"), "{message}");
    assert!(message.contains("derived when reading"), "{message}");
}

#[test]
fn bad_input_names_the_side_the_file_and_the_line() {
    let cases: [(&str, &str, &[&str]); 5] = [
        (
            BASE,
            "fixtures/diff/bad-duplicate-id.jsonl",
            &[
                "vercy::diff::input",
                "HEAD fixtures/diff/bad-duplicate-id.jsonl",
                "\"R-1\" is on line 1",
                "line 5",
            ],
        ),
        (
            "fixtures/diff/bad-duplicate-id.jsonl",
            BASE,
            &["BASE fixtures/diff/bad-duplicate-id.jsonl", "line 5"],
        ),
        (
            BASE,
            "fixtures/diff/bad-no-id.jsonl",
            &[
                "HEAD fixtures/diff/bad-no-id.jsonl",
                "none of its 4 records has a record_id",
                "line 1",
                "--map",
            ],
        ),
        (
            "fixtures/diff/bad-unreadable.jsonl",
            BASE,
            &[
                "vercy::diff::side",
                "BASE fixtures/diff/bad-unreadable.jsonl",
                "unreadable.jsonl:2:47: not JSON",
            ],
        ),
        (
            BASE,
            BASE,
            &["HEAD fixtures/diff/base.jsonl", "the same store as BASE"],
        ),
    ];
    for (base, head, said) in cases {
        let out = vercy()
            .env("COLUMNS", "400")
            .args(["diff", base, head])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{base} {head}");
        let err = stderr_of(&out);
        for s in said {
            assert!(err.contains(s), "{s:?} not in: {err}");
        }
        assert!(!err.contains("panicked"), "{err}");
        assert!(out.stdout.is_empty(), "{base} {head}");
    }
    // a store of another shape: an engrama dump against JSON lines
    let out = vercy()
        .env("COLUMNS", "400")
        .args(["diff", BASE, "fixtures/engrama/sample-export-0.18.1.ndjson"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("BASE as JSON lines"));
    // a side missing; an --allow that names no code
    let out = vercy()
        .args(["diff", BASE, "fixtures/diff/nope.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("HEAD fixtures/diff/nope.jsonl cannot be read"));
    let out = vercy()
        .args(["diff", BASE, &head("edited"), "--allow", "history.nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("history.edited"));
}

#[test]
fn a_side_that_cannot_be_read_leaves_the_report_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report");
    for format in ["human", "json", "html", "github", "sarif"] {
        std::fs::write(&report, "yesterday's report").unwrap();
        let out = vercy()
            .args([
                "diff",
                BASE,
                "fixtures/diff/nope.jsonl",
                "--format",
                format,
                "-o",
            ])
            .arg(&report)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{format}");
        let kept = std::fs::read_to_string(&report).unwrap();
        match format {
            // the machine forms report the failure in their own form, in the file asked for
            "github" => assert!(kept.contains("::error"), "{kept}"),
            "sarif" => assert!(kept.contains("\"executionSuccessful\": false"), "{kept}"),
            _ => assert_eq!(kept, "yesterday's report", "--format {format}"),
        }
    }
}

#[test]
fn stdin_is_one_side() {
    let out = vercy()
        .args(["diff", BASE, "-", "--format", "json"])
        .write_stdin(std::fs::read(head("edited")).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert_eq!(json_of(&out)["findings"][0]["id"], json!("R-2"));
}

#[test]
fn an_engrama_dump_may_move_its_capture_times_but_not_its_statements() {
    let dir = tempfile::tempdir().unwrap();
    let base = "fixtures/engrama/sample-export-0.18.1.ndjson";
    let text = std::fs::read_to_string(base).unwrap();
    let moved = text.replace(
        "\"created_at\": \"2026-11-29T21:19:59.368610+00:00\"",
        "\"created_at\": \"2026-12-01T00:00:00+00:00\"",
    );
    assert_ne!(moved, text);
    let head = dir.path().join("moved.ndjson");
    std::fs::write(&head, &moved).unwrap();
    let r = diff_json(base, head.to_str().unwrap(), &[], 0);
    assert!(r["times_moved"].as_u64().unwrap() >= 1, "{r}");
    let edited = moved.replace("Rust port of the memory graph CLI", "a Go port");
    std::fs::write(&head, &edited).unwrap();
    let r = diff_json(base, head.to_str().unwrap(), &[], 1);
    assert_eq!(r["findings"][0]["code"], json!("history.edited"));
    assert_eq!(
        r["findings"][0]["changes"][0]["field"],
        json!("properties.notes")
    );
    assert_eq!(
        r["findings"][0]["id"],
        json!("4d78926a-11c0-418a-b3e8-ad48a14ae382")
    );
}

/// A HEAD that changes many records in every way: BASE of 600 records with long ids.
fn many_changes(dir: &Path) -> (String, String) {
    let id = |i: usize| format!("{i:08}-5569-e6e9-cbee-a7b526fc854c");
    let rec = |i: usize, value: &str, valid_to: Value, supersedes: Value| {
        // the rewired ones start after the records they are pointed at
        let from = if i % 6 == 3 {
            "2025-03-01"
        } else {
            "2025-01-01"
        };
        json!({"record_id": id(i), "concept": format!("c{}", i % 50), "value": value,
               "valid_from": from, "valid_to": valid_to, "supersedes": supersedes})
        .to_string()
    };
    let base: Vec<String> = (0..600)
        .map(|i| rec(i, "v", Value::Null, Value::Null))
        .collect();
    let mut head = Vec::new();
    for i in 0..600 {
        match i % 6 {
            0 => continue, // deleted
            1 => head.push(rec(i, "edited", Value::Null, Value::Null)),
            2 => head.push(rec(i, "v", json!("2025-06-01"), Value::Null)),
            3 => head.push(rec(i, "v", Value::Null, json!(id(i - 1)))),
            _ => head.push(rec(i, "v", Value::Null, Value::Null)),
        }
    }
    // new records superseding the ended ones, one starting too early
    for i in (2..600).step_by(6) {
        let from = if i == 2 { "2024-01-01" } else { "2025-06-01" };
        head.push(
            json!({"record_id": format!("new-{i}"), "concept": "c", "value": "n",
            "valid_from": from, "valid_to": null, "supersedes": id(i)})
            .to_string(),
        );
    }
    let (b, h) = (dir.join("base.jsonl"), dir.join("head.jsonl"));
    std::fs::write(&b, base.join("\n") + "\n").unwrap();
    std::fs::write(&h, head.join("\n") + "\n").unwrap();
    (b.to_str().unwrap().into(), h.to_str().unwrap().into())
}

#[test]
fn the_human_report_stays_on_one_screen() {
    let dir = tempfile::tempdir().unwrap();
    let (base, head) = many_changes(dir.path());
    let out = vercy()
        .env("COLUMNS", "100")
        .args(["diff", &base, &head])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stdout_of(&out);
    assert!(text.lines().count() <= 40, "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
    for (code, n) in [
        ("history.deleted", "100 records"),
        ("history.edited", "100 records"),
        ("history.end_written", "100 records"),
        ("history.supersedes_changed", "100 records"),
        ("history.starts_before", "1 record"),
    ] {
        let line = text
            .lines()
            .find(|l| l.contains(code))
            .unwrap_or_else(|| panic!("{code}: {text}"));
        assert!(line.contains(n), "{line}");
    }
    // the first records with their lines
    assert!(
        text.contains("00000001-5569-e6e9-cbee-a7b526fc854c (line 1: value)"),
        "{text}"
    );
    let quiet = stdout_of(
        &vercy()
            .args(["diff", &base, &head, "--quiet"])
            .output()
            .unwrap(),
    );
    assert!(
        quiet.lines().count() <= 4 && quiet.contains("FAIL"),
        "{quiet}"
    );
}

#[test]
fn github_annotates_ten_of_each_type_and_writes_a_step_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (base, head) = many_changes(dir.path());
    let summary = dir.path().join("summary.md");
    let out = vercy()
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args([
            "diff", &base, &head, "--format", "github", "--allow", "deleted",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stdout_of(&out);
    let count = |kind: &str| {
        text.lines()
            .filter(|l| l.starts_with(&format!("::{kind} ")))
            .count()
    };
    assert_eq!(
        (count("error"), count("warning"), count("notice")),
        (10, 10, 1),
        "{text}"
    );
    // on HEAD's lines, titled by code
    assert!(
        text.contains(&format!(
            "::error file={},line=2,title=history.end_written::",
            head.replace(':', "%3A")
        )),
        "{text}"
    );
    assert!(text.contains("more annotations left out"), "{text}");
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.contains("`history.deleted` (allowed) | 100 |"), "{md}");
    assert!(md.contains("`history.end_written` | 100 |"), "{md}");
}

#[test]
fn many_changes_past_a_tiny_budget_read_back_the_same_in_every_form() {
    let dir = tempfile::tempdir().unwrap();
    let (base, head) = many_changes(dir.path());
    // 401 findings, 60 bytes each at the least (a 36-byte id, four numbers): past the 4 KiB
    // the findings keep at --memory 1, and 200K keeps them all
    for format in ["json", "human", "sarif", "github", "html"] {
        same_report_at_every_budget(&["diff", &base, &head], format, &["1", "200K"]);
    }
}

#[test]
fn sarif_is_valid_with_results_at_head_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (base, head) = many_changes(dir.path());
    let out = vercy()
        .args(["diff", &base, &head, "--format", "sarif"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let log = json_of(&out);
    assert_valid_sarif(&log);
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 401);
    let edited = results
        .iter()
        .find(|r| r["ruleId"] == "history.edited")
        .unwrap();
    assert_eq!(
        edited["locations"][0]["physicalLocation"]["region"]["startLine"],
        json!(1)
    );
    assert_eq!(
        edited["relatedLocations"][0]["physicalLocation"]["region"]["startLine"],
        json!(2)
    );
    let prints: std::collections::HashSet<&str> = results
        .iter()
        .map(|r| r["partialFingerprints"]["vercyDiff/v1"].as_str().unwrap())
        .collect();
    assert_eq!(prints.len(), results.len(), "one fingerprint a result");
    // the same in every run
    let again = json_of(
        &vercy()
            .args(["diff", &base, &head, "--format", "sarif"])
            .output()
            .unwrap(),
    );
    assert_eq!(again["runs"][0]["results"], log["runs"][0]["results"]);
    // a side that cannot be read is a failed invocation
    let out = vercy()
        .args([
            "diff",
            BASE,
            "fixtures/diff/bad-unreadable.jsonl",
            "--format",
            "sarif",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let log = json_of(&out);
    assert_valid_sarif(&log);
    let run = &log["runs"][0];
    assert_eq!(run["invocations"][0]["executionSuccessful"], json!(false));
    let note = &run["invocations"][0]["toolExecutionNotifications"][0];
    assert_eq!(
        note["locations"][0]["physicalLocation"]["region"]["startLine"],
        json!(2)
    );
}

#[test]
fn a_git_revision_is_a_side() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    git(repo, &["init", "-q", "-b", "main"]);
    std::fs::create_dir(repo.join("memory")).unwrap();
    let store = repo.join("memory/store.jsonl");
    std::fs::copy(
        BASE.replace(
            "fixtures",
            &format!("{}/fixtures", env!("CARGO_MANIFEST_DIR")),
        ),
        &store,
    )
    .unwrap();
    git(repo, &["add", "."]);
    git(repo, &["commit", "-q", "-m", "base"]);
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(head("end_written")),
        &store,
    )
    .unwrap();
    let run = |args: &[&str]| {
        vercy()
            .current_dir(repo.join("memory"))
            .args(args)
            .output()
            .unwrap()
    };
    // PATH from the repository's root, or ./PATH from the current folder
    for base in ["git:HEAD:memory/store.jsonl", "git:main:./store.jsonl"] {
        let out = run(&["diff", base, "store.jsonl", "--format", "json"]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
        assert_eq!(
            json_of(&out)["findings"][0]["code"],
            json!("history.end_written")
        );
    }
    // committed: nothing changed since
    git(repo, &["commit", "-q", "-am", "end R-1"]);
    let out = run(&["diff", "git:HEAD:./store.jsonl", "store.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    // and the commit before, as BASE
    let out = run(&[
        "diff",
        "git:HEAD~1:./store.jsonl",
        "git:HEAD:./store.jsonl",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    // a revision or a path that is not there
    let out = run(&["diff", "git:origin/main:./store.jsonl", "store.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("the revision origin/main is not in this repository"),
        "{}",
        stderr_of(&out)
    );
    let out = run(&["diff", "git:HEAD:./other.jsonl", "store.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("is not in the revision HEAD"),
        "{}",
        stderr_of(&out)
    );
    // a revision is never one of git's options
    let out = run(&["diff", "git:--output=x:store.jsonl", "store.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!repo.join("memory/x").exists());
}

/// A store of `n` records: ids R-i, a few concepts, dates a day apart.
fn store_lines(n: usize, seed: u64) -> Vec<Value> {
    (0..n)
        .map(|i| {
            json!({"record_id": format!("R-{i}"), "concept": format!("c{}", (i as u64 + seed) % 4),
                   "value": format!("v{i}"), "valid_from": format!("2025-01-{:02}", 1 + i % 28),
                   "valid_to": null, "source": "doc", "updated_at": "2025-02-01T00:00:00Z"})
        })
        .collect()
}

fn write_lines(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

fn diff_of(base: &Path, head: &Path) -> (i32, Value) {
    let out = vercy()
        .args([
            "diff",
            base.to_str().unwrap(),
            head.to_str().unwrap(),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    (out.status.code().unwrap(), json_of(&out))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Additions and proper supersessions only (a new record, starting after the one it
    /// names, the old one untouched; capture times may move): exit 0.
    #[test]
    fn only_adding_to_history_passes(n in 1usize..30, seed in 0u64..4,
                                     steps in prop::collection::vec((any::<bool>(), any::<prop::sample::Index>()), 0..12)) {
        let dir = tempfile::tempdir().unwrap();
        let base = store_lines(n, seed);
        let mut head = base.clone();
        for (k, (supersede, which)) in steps.iter().enumerate() {
            let mut new = json!({"record_id": format!("N-{k}"), "concept": "c", "value": format!("n{k}"),
                                 "valid_from": "2026-01-01", "valid_to": null});
            if *supersede {
                let target = which.get(&head);
                new["supersedes"] = target["record_id"].clone();
                new["concept"] = target["concept"].clone();
                // later than anything in the store so far
                new["valid_from"] = json!(format!("{}-01-01", 2030 + k));
            }
            head.push(new);
        }
        if let Some(first) = head.first_mut() {
            first["updated_at"] = json!("2026-03-01T00:00:00Z");
        }
        let (b, h) = (dir.path().join("b.jsonl"), dir.path().join("h.jsonl"));
        write_lines(&b, &base);
        write_lines(&h, &head);
        let (code, report) = diff_of(&b, &h);
        prop_assert_eq!(code, 0, "{}", report);
        prop_assert_eq!(report["findings"].as_array().unwrap().len(), 0);
        prop_assert_eq!(report["added"].as_u64(), Some(steps.len() as u64));
    }

    /// One in-place edit of a statement field of one record: exit 1, naming that record.
    #[test]
    fn one_edit_in_place_fails_naming_the_record(n in 1usize..30, seed in 0u64..4,
                                                 which in any::<prop::sample::Index>(),
                                                 field in prop::sample::select(vec!["concept", "value", "valid_from", "valid_to", "source", "supersedes"])) {
        let dir = tempfile::tempdir().unwrap();
        let base = store_lines(n, seed);
        let mut head = base.clone();
        let i = which.index(n);
        let edited = match field {
            "valid_from" => json!("2019-05-05"),
            "valid_to" => json!("2026-01-01"),
            "supersedes" => json!("R-elsewhere"),
            _ => json!("edited in place"),
        };
        head[i][field] = edited;
        let (b, h) = (dir.path().join("b.jsonl"), dir.path().join("h.jsonl"));
        write_lines(&b, &base);
        write_lines(&h, &head);
        let (code, report) = diff_of(&b, &h);
        prop_assert_eq!(code, 1, "{}", report);
        let id = format!("R-{i}");
        let named: Vec<&Value> = report["findings"].as_array().unwrap().iter()
            .filter(|f| f["id"] == json!(id) && f["base_line"] == json!(i + 1)).collect();
        prop_assert!(!named.is_empty(), "{} not named: {}", id, report);
    }
}

#[test]
fn every_code_has_its_row_in_the_readme() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let section = readme
        .split("## Catch edited history in CI")
        .nth(1)
        .expect("the README's section on diff");
    for code in vercy::diff::report::Code::ALL {
        assert!(
            section.contains(&format!("| `{}` |", code.name())),
            "{} has no row",
            code.name()
        );
    }
}

/// The `vercy-diff-system` hook's entry, as pre-commit runs it: the entry's words, then the
/// hook's args, then the staged files, in the repository's root, vercy on PATH.
fn hook(repo: &Path, args: &[&str]) -> std::process::Output {
    let hooks: Value = serde_yaml::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
        )
        .unwrap(),
    )
    .unwrap();
    let entry = hooks
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == "vercy-diff-system")
        .expect("the hook")["entry"]
        .as_str()
        .unwrap()
        .to_string();
    let bin = assert_cmd::cargo::cargo_bin("vercy");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap()
    );
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{entry} \"$@\""))
        .arg("sh")
        .args(args)
        .current_dir(repo)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn the_pre_commit_hook_compares_each_staged_store_with_head() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/diff");
    git(repo, &["init", "-q", "-b", "main"]);
    std::fs::copy(fixtures.join("base.jsonl"), repo.join("a.jsonl")).unwrap();
    std::fs::copy(fixtures.join("base.jsonl"), repo.join("b.jsonl")).unwrap();
    git(repo, &["add", "."]);
    git(repo, &["commit", "-q", "-m", "base"]);
    std::fs::copy(fixtures.join("clean.head.jsonl"), repo.join("a.jsonl")).unwrap();
    std::fs::copy(fixtures.join("base.jsonl"), repo.join("new.jsonl")).unwrap();
    let out = hook(repo, &["a.jsonl", "new.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(stdout_of(&out).contains("pass · history was only added to"));
    std::fs::copy(fixtures.join("edited.head.jsonl"), repo.join("b.jsonl")).unwrap();
    let out = hook(repo, &["a.jsonl", "b.jsonl"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(
        stdout_of(&out).contains("R-2 (line 2: value)"),
        "{}",
        stdout_of(&out)
    );
    // args for vercy diff end with "--"
    let out = hook(repo, &["--allow", "edited", "--", "b.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    std::fs::write(repo.join("b.jsonl"), "{not json\n").unwrap();
    let out = hook(repo, &["b.jsonl", "a.jsonl"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
}
