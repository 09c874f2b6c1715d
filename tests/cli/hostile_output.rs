//! Records whose texts would drive a terminal or a CI log (fixtures/hostile/): every human
//! output shows them terminal-safe, `--format github` cannot be made to start a workflow
//! command of its own, and JSON outputs and written stores keep them exactly.

use crate::common;

use common::{fixture, stderr_of, stdout_of, vercy};
use serde_json::Value;
use std::path::Path;

/// What `output::terminal_safe` escapes, written out again here so the test does not trust it.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// No character a terminal or a log would act on, line endings aside.
fn assert_terminal_safe(what: &str, text: &str) {
    for (n, line) in text.lines().enumerate() {
        let bad: Vec<char> = line.chars().filter(|&c| unsafe_char(c)).collect();
        assert!(
            bad.is_empty(),
            "{what}, line {}: {bad:?} in {line:?}",
            n + 1
        );
    }
    assert!(!text.contains('\r'), "{what}: a CR");
}

/// The record ids of the hostile store, as the file holds them.
fn hostile_ids() -> Vec<String> {
    std::fs::read_to_string(fixture("hostile/records.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["record_id"].as_str().unwrap().to_string()
        })
        .collect()
}

fn run(args: &[&str]) -> std::process::Output {
    vercy().args(args).output().expect("vercy runs")
}

#[test]
fn check_human_shows_every_hostile_id_escaped() {
    let out = run(&["check", "fixtures/hostile/records.jsonl"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout_of(&out);
    assert_terminal_safe("check human", &text);
    for shown in [
        r"R-\u{1b}[31mred\u{1b}[0m",
        r"R-2\u{a}::error::x",
        r"R-3\u{d}\u{a}::add-mask::x",
        r"R-4\u{202e}\u{61c}\u{200e}\u{200f}\u{202a}",
    ] {
        assert!(text.contains(shown), "{shown} not in:\n{text}");
    }
    // a warning's records are named escaped too (its code's meaning stands for the message)
    assert!(
        text.contains(r"R-4\u{202e}\u{61c}\u{200e}\u{200f}\u{202a} (line 4)"),
        "{text}"
    );
}

#[test]
fn check_github_starts_no_workflow_command_of_its_own() {
    let out = run(&[
        "check",
        "fixtures/hostile/records.jsonl",
        "--format",
        "github",
    ]);
    let text = stdout_of(&out);
    assert_terminal_safe("check github", &text);
    assert!(!text.is_empty());
    for line in text.lines() {
        let command = line.split("::").nth(1).unwrap_or("");
        assert!(
            ["error", "warning", "notice"]
                .iter()
                .any(|k| command.starts_with(&format!("{k} file=fixtures/hostile/records.jsonl"))),
            "a line that is not one of vercy's annotations: {line:?}"
        );
        assert!(!line.starts_with("::add-mask::"), "{line}");
    }
    assert!(text.contains(r"R-2\u{a}::error::x"), "{text}");
}

#[test]
fn check_json_and_sarif_keep_the_ids_exactly() {
    let ids = hostile_ids();
    let out = run(&["check", "fixtures/hostile/records.jsonl", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let supersedes = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "supersedes")
        .expect("a supersedes finding");
    let offenders: Vec<&str> = supersedes["offenders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    assert_eq!(offenders, ids);

    let out = run(&[
        "check",
        "fixtures/hostile/records.jsonl",
        "--format",
        "sarif",
    ]);
    let sarif = String::from_utf8(out.stdout).unwrap();
    let sarif: Value = serde_json::from_str(&sarif).unwrap();
    let messages: String = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"]["text"].as_str().unwrap().to_string())
        .collect();
    assert!(messages.contains(&ids[1]), "{messages:?}");
    assert!(messages.contains(&ids[0]), "{messages:?}");
}

#[test]
fn recency_human_escapes_and_json_keeps_exactly() {
    let out = run(&["recency", "fixtures/hostile/records.jsonl"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let text = stdout_of(&out);
    assert_terminal_safe("recency human", &text);
    assert_terminal_safe("recency notices", &stderr_of(&out));
    assert!(text.contains(r"R-3\u{d}\u{a}::add-mask::x"), "{text}");

    let out = run(&[
        "recency",
        "fixtures/hostile/records.jsonl",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let json = String::from_utf8(out.stdout).unwrap();
    for id in hostile_ids() {
        let quoted = serde_json::to_string(&id).unwrap();
        assert!(
            json.contains(&quoted[1..quoted.len() - 1]),
            "{id:?} not in {json}"
        );
    }
}

/// The diagnostic's snippet line and the place its underline starts, in characters, both
/// counted from the start of the line (the gutters `  2 │ ` and `    · ` have one width).
fn snippet_and_underline(stderr: &str) -> (String, usize, usize) {
    let lines: Vec<&str> = stderr.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with("2 │"))
        .unwrap_or_else(|| panic!("no snippet line in:\n{stderr}"));
    let snippet = lines[at].to_string();
    let marks: Vec<char> = lines[at + 1].chars().collect();
    let start = marks
        .iter()
        .position(|&c| c == '─' || c == '┬')
        .unwrap_or_else(|| panic!("no underline in:\n{stderr}"));
    let width = marks[start..]
        .iter()
        .take_while(|&&c| c == '─' || c == '┬')
        .count();
    (snippet, start, width)
}

/// `text` escaped as `output::terminal_safe` escapes it, written out again here.
fn escaped(text: &str) -> String {
    text.chars()
        .map(|c| {
            if unsafe_char(c) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[test]
fn a_diagnostic_shows_its_line_escaped_with_the_caret_still_on_the_error() {
    let out = run(&["check", "fixtures/hostile/bad-line-cr.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = stderr_of(&out);
    assert_terminal_safe("diagnostic", &stderr);
    // the column the diagnostic names, in the line as the file holds it
    let column: usize = stderr
        .split("bad-line-cr.jsonl:2:")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no line:column in:\n{stderr}"));
    let line = std::fs::read_to_string(fixture("hostile/bad-line-cr.jsonl")).unwrap();
    let line: Vec<char> = line.split('\n').nth(1).unwrap().chars().collect();
    let before: String = line[..column - 1].iter().collect();
    let (snippet, start, width) = snippet_and_underline(&stderr);
    let gutter = snippet.find("│ ").unwrap() + "│ ".len();
    let shown_before: String = snippet[gutter..]
        .chars()
        .take(start - snippet[..gutter].chars().count())
        .collect();
    assert!(snippet.contains(r#""x",\u{d}"value": nope"#), "{stderr}");
    assert_eq!(shown_before, escaped(&before), "the caret moved:\n{stderr}");
    assert_eq!(
        snippet.chars().nth(start),
        Some(line[column - 1]),
        "{stderr}"
    );
    assert_eq!(width, 1);

    let out = run(&["check", "fixtures/hostile/bad-line-raw-escape.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = stderr_of(&out);
    assert_terminal_safe("diagnostic", &stderr);
    let (snippet, start, width) = snippet_and_underline(&stderr);
    let shown: String = snippet.chars().skip(start).take(width).collect();
    assert_eq!(
        shown, r"\u{1b}",
        "the underline is not on the ESC:\n{stderr}"
    );
}

#[test]
fn import_and_export_carry_the_texts_exactly_and_notices_are_safe() {
    let dir = tempfile::tempdir().unwrap();
    // a dump whose very name would colour the terminal and start a log command
    let dump = dir.path().join("dump\x1b[31m\n::error::x.jsonl");
    std::fs::copy(fixture("hostile/records.jsonl"), &dump).unwrap();
    let store = dir.path().join("store.jsonl");
    let out = vercy()
        .arg("import")
        .arg(&dump)
        .arg("--into")
        .arg(&store)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let notice = stderr_of(&out);
    assert!(!notice.is_empty());
    assert_terminal_safe("import notice", &notice);
    assert!(
        notice.contains(r"dump\u{1b}[31m\u{a}::error::x.jsonl"),
        "{notice}"
    );
    let ids = |path: &Path| -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["record_id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    let mut stored = ids(&store);
    let mut expected = hostile_ids();
    stored.sort();
    expected.sort();
    assert_eq!(stored, expected);

    let out = run(&["export", "fixtures/hostile/records.jsonl", "--to", "jsonl"]);
    assert_eq!(out.status.code(), Some(0));
    let exported: Vec<String> = stdout_of(&out)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["record_id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(exported, hostile_ids());
}

#[test]
fn compact_notices_are_safe() {
    let out = run(&[
        "compact",
        "fixtures/hostile/records.jsonl",
        "--reader",
        "fin\x1b]0;title\x07ance",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let stderr = stderr_of(&out);
    assert!(stderr.contains("withheld"), "{stderr}");
    assert_terminal_safe("compact notice", &stderr);
}

#[test]
fn decay_names_an_unreadable_store_safely() {
    let out = run(&["decay", "missing\x1b[31m\n::error::x.jsonl"]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains(r"missing\u{1b}[31m\u{a}::error::x.jsonl"),
        "{stderr}"
    );
    assert_terminal_safe("decay", &stderr);
}
