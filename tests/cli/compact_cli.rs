//! `vercy compact` over the fixtures in fixtures/compact/ and the reference store: the exact
//! published text and figures, selection (as-of, concept, reader, combined), escapes that read
//! back, --policy-line, -o, stdin, a closed pipe and bad arguments.

// The store reader's visitor returns vercy's error type, which carries its diagnostic.
#![allow(clippy::result_large_err)]

use assert_cmd::Command;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;

fn vercy() -> Command {
    let mut cmd = Command::cargo_bin("vercy").expect("the vercy binary builds");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1");
    cmd
}

struct Run {
    stdout: String,
    stderr: String,
    code: i32,
}

fn compact(args: &[&str]) -> Run {
    let out = vercy().arg("compact").args(args).output().unwrap();
    Run {
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
        code: out.status.code().unwrap_or(-1),
    }
}

const HEADER: &str =
    "# record_id|valid_from|valid_to|source|concept_owner|owner_role|supersedes|release_to|value\n";

/// The first field of each record line (the ids written).
fn ids(stdout: &str) -> Vec<String> {
    assert!(stdout.starts_with(HEADER), "no header: {stdout:?}");
    stdout
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('|').next().unwrap().to_string())
        .collect()
}

/// Read a compact text back through the store reader: the records' fields, in order.
fn read_back(text: &str) -> Vec<serde_json::Map<String, Value>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lines.txt");
    std::fs::write(&path, text).unwrap();
    let mut out = Vec::new();
    let shape = vercy::store::read_records(
        &vercy::store::Input::new(path.to_str().unwrap()),
        &mut |r| {
            out.push(r.fields);
            Ok(())
        },
    )
    .unwrap();
    assert!(matches!(
        shape,
        vercy::store::Shape::Compact | vercy::store::Shape::Empty
    ));
    out
}

#[test]
fn the_reference_store_gives_the_published_text_and_count() {
    let run = compact(&["fixtures/reference-store.jsonl"]);
    assert_eq!(run.code, 0);
    let expected =
        std::fs::read_to_string("fixtures/expected/reference-store.compact.txt").unwrap();
    assert_eq!(run.stdout, expected);
    assert_eq!(run.stdout.chars().count(), 1860);
    assert_eq!(
        run.stdout.lines().nth(1),
        Some("D-101|2025-01-01|2026-03-31|FIN-POL-04|finance|Head of Finance")
    );
    assert!(run.stdout.ends_with('\n'));
    assert_eq!(run.stderr, "", "nothing on stderr without --stats");
}

#[test]
fn stats_print_the_seed_table_on_stderr_and_leave_stdout_alone() {
    let run = compact(&["fixtures/reference-store.jsonl", "--stats"]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        std::fs::read_to_string("fixtures/expected/reference-store.compact.txt").unwrap()
    );
    assert!(run.stderr.contains("31 records written"), "{}", run.stderr);
    assert!(run
        .stderr
        .contains("| one JSON object per line | 6064 | - |"));
    assert!(run.stderr.contains("| compact line form | 1860 | 69.3% |"));
}

#[test]
fn stats_count_json_lines_the_same_for_an_array_store() {
    // the same 31 records as one pretty-printed array: JSON lines characters are counted as
    // Python's json.dumps writes each record, so the figures match the JSONL store's
    let run = compact(&["fixtures/compact/reference-store.json", "--stats"]);
    assert_eq!(run.code, 0);
    assert!(run
        .stderr
        .contains("| one JSON object per line | 6064 | - |"));
    assert!(run.stderr.contains("| compact line form | 1860 | 69.3% |"));
}

#[test]
fn stats_cover_only_the_records_written() {
    let run = compact(&[
        "fixtures/reference-store.jsonl",
        "--stats",
        "--concept",
        "data_retention",
    ]);
    let jsonl: usize = std::fs::read_to_string("fixtures/reference-store.jsonl")
        .unwrap()
        .lines()
        .filter(|l| l.contains(r#""concept": "data_retention""#))
        .map(|l| l.chars().count() + 1)
        .sum();
    assert_eq!(ids(&run.stdout), ["D-801", "D-802", "D-806"]);
    let compact_chars = run.stdout.chars().count();
    assert!(run.stderr.contains("3 records written"));
    assert!(run
        .stderr
        .contains(&format!("| one JSON object per line | {jsonl} | - |")));
    let saving = 100.0 * (1.0 - compact_chars as f64 / jsonl as f64);
    assert!(run.stderr.contains(&format!(
        "| compact line form | {compact_chars} | {saving:.1}% |"
    )));
}

#[test]
fn as_of_follows_a_supersession_chain_across_every_boundary() {
    // R-1 from 2025-01-01, superseded by R-2 from 2026-06-01, superseded by R-3 from
    // 2026-10-01; F-1 holds 2025-11-01 to 2025-12-31 inclusive; U-* have unreadable dates
    let cases: [(&str, &[&str]); 12] = [
        ("2024-12-31", &[]),
        ("2025-01-01", &["R-1"]),
        ("2025-10-31", &["R-1"]),
        ("2025-11-01", &["R-1", "F-1"]),
        ("2025-12-31", &["R-1", "F-1"]),
        ("2025-12-31T23:59:59Z", &["R-1", "F-1"]),
        ("2026-01-01", &["R-1"]),
        ("2026-05-31", &["R-1"]),
        ("2026-06-01", &["R-2"]),
        ("2026-09-30", &["R-2"]),
        ("2026-10-01", &["R-3"]),
        ("2031-01-01", &["R-3"]),
    ];
    for (date, expected) in cases {
        let run = compact(&["fixtures/compact/chain.jsonl", "--as-of", date]);
        assert_eq!(run.code, 0, "{date}: {}", run.stderr);
        assert_eq!(ids(&run.stdout), expected, "as of {date}");
        assert!(
            run.stderr
                .contains("left out 3 records whose valid_from is missing"),
            "{date}: {}",
            run.stderr
        );
    }
}

#[test]
fn as_of_reads_inverse_pointers_and_writes_them_forward() {
    let map = "record_id=id,concept=topic,supersedes=~replaced_by";
    for (date, expected) in [
        ("2026-05-31", ["R-1"]),
        ("2026-06-01", ["R-2"]),
        ("2026-09-30", ["R-2"]),
        ("2026-10-01", ["R-3"]),
    ] {
        let run = compact(&[
            "fixtures/compact/chain-inverse.jsonl",
            "--map",
            map,
            "--as-of",
            date,
        ]);
        assert_eq!(ids(&run.stdout), expected, "as of {date}");
    }
    // without a date every record is written, supersedes derived from the old records
    let run = compact(&["fixtures/compact/chain-inverse.jsonl", "--map", map]);
    assert_eq!(
        run.stdout,
        format!(
            "{HEADER}R-1|2025-01-01|~|LEG-1|legal||||seven years\n\
             R-2|2026-06-01|~|LEG-2|legal||R-1||five years\n\
             R-3|2026-10-01|~|LEG-3|legal||R-2||three years\n\
             F-1|2025-11-01|2025-12-31|FIN-1|finance||||spend cap\n"
        )
    );
}

#[test]
fn as_of_compares_dates_with_date_times_at_their_own_precision() {
    // Graphiti edges: e1 ends 2026-03-31T00:00Z (inclusive), e2 begins 2026-04-01; e4
    // supersedes e3 from 2026-06-01T09:00+02:00 (07:00Z); e3 has no invalid_at at all (open)
    let map = "graphiti,supersedes=replaces";
    let cases: [(&str, [&str; 2]); 6] = [
        ("2026-03-31", ["e1", "e3"]),
        ("2026-04-01", ["e2", "e3"]),
        ("2026-05-31", ["e2", "e3"]),
        // on the day of the hand-over the successor holds
        ("2026-06-01", ["e2", "e4"]),
        ("2026-06-01T06:59:59Z", ["e2", "e3"]),
        ("2026-06-01T09:00:00+02:00", ["e2", "e4"]),
    ];
    for (at, expected) in cases {
        let run = compact(&[
            "fixtures/compact/graphiti-edges.jsonl",
            "--map",
            map,
            "--as-of",
            at,
        ]);
        assert_eq!(ids(&run.stdout), expected, "as of {at}");
    }
}

#[test]
fn as_of_on_the_reference_store() {
    // D-801 → D-802 (2026-06-01) → D-806 (2026-10-01); D-101 ends 2026-03-31, D-102 begins
    // 2026-04-01
    let run = compact(&[
        "fixtures/reference-store.jsonl",
        "--as-of",
        "2026-07-01",
        "--concept",
        "data_retention",
    ]);
    assert_eq!(ids(&run.stdout), ["D-802"]);
    let run = compact(&[
        "fixtures/reference-store.jsonl",
        "--as-of",
        "2026-03-31",
        "--concept",
        "fiscal_year",
    ]);
    assert_eq!(ids(&run.stdout), ["D-101"]);
    let run = compact(&[
        "fixtures/reference-store.jsonl",
        "--as-of",
        "2026-04-01",
        "--concept",
        "fiscal_year",
    ]);
    assert_eq!(ids(&run.stdout), ["D-102"]);
    let all = compact(&["fixtures/reference-store.jsonl", "--as-of", "2026-11-29"]);
    let kept = ids(&all.stdout);
    for gone in [
        "D-101", "D-103", "D-107", "D-801", "D-802", "D-201", "D-301", "D-401", "D-501",
    ] {
        assert!(!kept.contains(&gone.to_string()), "{gone} is not in force");
    }
    assert_eq!(kept.len(), 31 - 9);
}

#[test]
fn reader_keeps_only_records_naming_the_party_exactly() {
    let run = compact(&["fixtures/compact/reader.jsonl", "--reader", "finance"]);
    assert_eq!(run.code, 0);
    assert_eq!(ids(&run.stdout), ["Y-string", "Y-list", "Y-later"]);
    assert!(
        run.stderr
            .contains(r#"withheld 12 records without release_to naming "finance""#),
        "{}",
        run.stderr
    );
    // a name with a comma is one party, whether a bare string or a list item
    let run = compact(&[
        "fixtures/compact/reader.jsonl",
        "--reader",
        "finance, audit",
    ]);
    assert_eq!(ids(&run.stdout), ["N-comma-string", "N-comma-list"]);
    // no case folding
    let run = compact(&["fixtures/compact/reader.jsonl", "--reader", "Finance"]);
    assert_eq!(ids(&run.stdout), ["N-case"]);
    // no wildcard
    let run = compact(&["fixtures/compact/reader.jsonl", "--reader", "*"]);
    assert_eq!(ids(&run.stdout), ["N-wildcard"]);
    // a party nobody names: everything withheld
    let run = compact(&["fixtures/compact/reader.jsonl", "--reader", "nobody"]);
    assert_eq!(ids(&run.stdout), Vec::<String>::new());
    assert!(run.stderr.contains("withheld 15 records"));
}

#[test]
fn reader_reads_release_to_through_the_map() {
    let run = compact(&[
        "fixtures/compact/reader-mapped.jsonl",
        "--map",
        "release_to=acl.parties",
        "--reader",
        "finance",
    ]);
    assert_eq!(ids(&run.stdout), ["M-1"]);
    assert!(run.stderr.contains("withheld 2 records"));
}

#[test]
fn quiet_silences_the_withheld_count_but_not_the_selection() {
    let run = compact(&["-q", "fixtures/compact/reader.jsonl", "--reader", "finance"]);
    assert_eq!(ids(&run.stdout), ["Y-string", "Y-list", "Y-later"]);
    assert_eq!(run.stderr, "");
}

#[test]
fn flags_combine() {
    // Y-later begins 2027-01-01: not in force in 2026, so only two remain, and it is not
    // counted as withheld (it was not selected in the first place)
    let run = compact(&[
        "fixtures/compact/reader.jsonl",
        "--reader",
        "finance",
        "--as-of",
        "2026-01-01",
        "--concept",
        "c",
    ]);
    assert_eq!(ids(&run.stdout), ["Y-string", "Y-list"]);
    assert!(run.stderr.contains("withheld 12 records"), "{}", run.stderr);
    let run = compact(&[
        "fixtures/reference-store.jsonl",
        "--reader",
        "finance",
        "--as-of",
        "2025-12-01",
    ]);
    assert_eq!(ids(&run.stdout), ["D-107", "D-108", "D-203", "D-403"]);
    let run = compact(&[
        "fixtures/reference-store.jsonl",
        "--reader",
        "finance",
        "--concept",
        "salary_band",
    ]);
    assert_eq!(ids(&run.stdout), ["D-203"]);
}

#[test]
fn hostile_text_is_escaped_and_reads_back() {
    let run = compact(&["fixtures/compact/escapes.jsonl"]);
    assert_eq!(run.code, 0);
    let expected = std::fs::read_to_string("fixtures/compact/escapes.compact.txt").unwrap();
    assert_eq!(run.stdout, expected);
    // one line per record, whatever the values hold
    assert_eq!(run.stdout.lines().count(), 1 + 11);
    // also for readers that split lines as Python does (U+2028, U+0085, \v, … are escaped)
    assert!(!run
        .stdout
        .contains(&['\r', '\u{b}', '\u{85}', '\u{2028}'][..]));

    let back = read_back(&run.stdout);
    assert_eq!(back.len(), 11);
    assert_eq!(back[0]["source"], json!("a|b"));
    assert_eq!(back[0]["value"], json!("back\\slash"));
    assert_eq!(back[0]["valid_to"], Value::Null);
    assert_eq!(back[1]["valid_to"], json!("~"));
    assert_eq!(back[1]["source"], json!("~"));
    assert_eq!(back[1]["value"], json!("line one\nline two\r\n"));
    assert_eq!(back[2]["release_to"], json!(["finance, audit", "hr"]));
    assert_eq!(back[2]["value"], json!("trailing backslash\\"));
    assert_eq!(back[3]["source"], json!(""));
    assert_eq!(back[3]["owner_role"], json!(""));
    assert!(!back[3].contains_key("concept_owner"));
    assert_eq!(back[4]["record_id"], json!("#E-5"));
    assert_eq!(back[5]["record_id"], json!(" "));
    assert!(back[6].is_empty());
    assert_eq!(back[7]["supersedes"], json!(["E-1", "E-2"]));
    assert_eq!(back[7]["release_to"], json!(["a, b"]));
    assert_eq!(back[7]["value"], json!("commas, in, text"));
    assert_eq!(back[8]["supersedes"], json!("E,3"));
    assert_eq!(back[8]["value"], json!("\\e is not empty; ~ and \\~"));
    assert_eq!(back[9]["record_id"], json!("17"));
    assert_eq!(back[9]["owner_role"], json!("true"));
    assert_eq!(
        back[10]["value"],
        json!("para\u{2028}graph\u{85}end\u{b} and \\u2028 as text")
    );
}

#[test]
fn a_compact_file_is_read_back_and_re_emitted_unchanged() {
    for file in [
        "fixtures/compact/escapes.compact.txt",
        "fixtures/expected/reference-store.compact.txt",
    ] {
        let run = compact(&[file]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(run.stdout, std::fs::read_to_string(file).unwrap(), "{file}");
    }
    // and check reads it too
    let out = vercy()
        .args([
            "check",
            "fixtures/expected/reference-store.compact.txt",
            "--json",
        ])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["records"], json!(31));
}

#[test]
fn policy_line_is_off_by_default_and_written_once_after_the_header() {
    let plain = compact(&["fixtures/compact/policy.jsonl"]);
    assert!(!plain.stdout.contains("conflict_policy"));
    let run = compact(&["fixtures/compact/policy.jsonl", "--policy-line"]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    // the first truthy policy ("" and 0 are not policies); its line break escaped
    assert_eq!(lines[1], r"# conflict_policy: newest wins\nthen the owner");
    assert_eq!(run.stdout.matches("# conflict_policy:").count(), 1);
    assert_eq!(ids(&run.stdout), ["P-1", "P-2", "P-3", "P-4", "P-5"]);
    // the comment line does not become a record when read back
    assert_eq!(read_back(&run.stdout).len(), 5);

    let reference = compact(&["fixtures/reference-store.jsonl", "--policy-line"]);
    assert_eq!(
        reference.stdout.lines().nth(1),
        Some("# conflict_policy: the later valid_from wins; on a tie the owner decides")
    );
    let none = compact(&["fixtures/compact/chain.jsonl", "--policy-line"]);
    assert!(!none.stdout.contains("conflict_policy"));
    assert!(none.stderr.contains("no conflict policy"));
}

#[test]
fn policy_line_follows_the_reader_rule() {
    let policy_of = |reader: &[&str]| {
        let mut args = vec!["fixtures/compact/policy-restricted.jsonl", "--policy-line"];
        args.extend_from_slice(reader);
        let run = compact(&args);
        assert_eq!(run.code, 0);
        (
            run.stdout
                .lines()
                .find_map(|l| l.strip_prefix("# conflict_policy: "))
                .map(str::to_string),
            run.stderr,
        )
    };
    assert_eq!(policy_of(&[]).0.as_deref(), Some("legal's own policy"));
    assert_eq!(
        policy_of(&["--reader", "finance"]).0.as_deref(),
        Some("the finance policy")
    );
    assert_eq!(
        policy_of(&["--reader", "legal"]).0.as_deref(),
        Some("legal's own policy")
    );
    let (line, stderr) = policy_of(&["--reader", "hr"]);
    assert_eq!(
        line, None,
        "a policy on records not released to hr is not shown to hr"
    );
    assert!(stderr.contains("does not name \"hr\""), "{stderr}");
    // the reference store states its policy on a record without release_to: withheld too
    let run = compact(&[
        "fixtures/reference-store.jsonl",
        "--policy-line",
        "--reader",
        "finance",
    ]);
    assert!(!run.stdout.contains("conflict_policy"));
}

#[test]
fn output_file_is_written_whole_and_stdout_stays_empty() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("context.txt");
    std::fs::write(&out, "old contents\n").unwrap();
    let run = compact(&[
        "fixtures/reference-store.jsonl",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string("fixtures/expected/reference-store.compact.txt").unwrap()
    );
    assert_eq!(
        std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| !e
                .as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".vercy-lock"))
            .count(),
        1,
        "no temp file left (the lock file stays)"
    );
}

#[test]
fn stdin_is_read_once_and_selects_like_a_file() {
    let store = std::fs::read("fixtures/compact/chain.jsonl").unwrap();
    let out = vercy()
        .args(["compact", "-", "--as-of", "2026-06-01", "--policy-line"])
        .write_stdin(store)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(ids(&String::from_utf8(out.stdout).unwrap()), ["R-2"]);

    let out = vercy()
        .args(["compact", "-"])
        .write_stdin(std::fs::read("fixtures/reference-store.jsonl").unwrap())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        std::fs::read_to_string("fixtures/expected/reference-store.compact.txt").unwrap()
    );
}

#[test]
fn an_engrama_dump_reads_through_the_engrama_map() {
    let dump = Path::new("fixtures/engrama/sample-export-0.18.1.ndjson");
    if !dump.exists() {
        return;
    }
    let run = compact(&[dump.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let first = run.stdout.lines().nth(1).expect("a node line");
    assert!(!first.starts_with('|'), "node ids are read: {first}");
}

#[test]
fn a_closed_pipe_ends_quietly_with_success() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for i in 0..60_000 {
        writeln!(
            f,
            r#"{{"record_id": "R-{i}", "valid_from": "2025-01-01", "valid_to": null, "source": "S", "value": "a value long enough to fill the pipe quickly"}}"#
        )
        .unwrap();
    }
    drop(f);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("vercy"))
        .args(["compact", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap(); // the reader goes away after one line
    let out = child.wait_with_output().unwrap();
    assert_eq!(first, HEADER);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn bad_arguments_are_diagnostics_with_exit_2() {
    let run = compact(&["fixtures/reference-store.jsonl", "--as-of", "2026-02-30"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--as-of"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    let run = compact(&["fixtures/reference-store.jsonl", "--reader", ""]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--reader"));
    let run = compact(&["fixtures/compact/does-not-exist.jsonl"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("does-not-exist.jsonl"));
    let run = compact(&["fixtures/bad/truncated.jsonl"]);
    assert_eq!(run.code, 2);
}

/// Records whose values take every way through the writer: strings with and without JSON
/// escapes, numbers as written, booleans, null, lists (nested, empty, of non-strings),
/// objects, a repeated key, and a value too deep for the reader's fast path (`extra`, on the
/// first line and later ones). Each is one JSON line.
fn hostile_lines() -> Vec<String> {
    let deep = format!("{}1{}", "[".repeat(70), "]".repeat(70));
    let mut lines = vec![
        format!(r#"{{"record_id": "R-0", "value": "first line", "extra": {deep}}}"#),
        r#"{"record_id": "R-1", "valid_to": null, "value": "tab\there \"quoted\" \u00e9\u2028", "source": "a|b\\c"}"#.to_string(),
        r#"{"record_id": 17, "valid_from": 2025.50, "valid_to": "~", "owner_role": true, "concept_owner": 1e5, "source": -0.0}"#.to_string(),
        r#"{"record_id": "R-3", "release_to": ["x,y", "", null, 3, ["n"], {"k": [1, 2]}], "supersedes": []}"#.to_string(),
        r#"{"record_id": "R-4", "release_to": "a, b", "supersedes": "S,1", "value": {"nested": "x|y"}}"#.to_string(),
        r#"{"record_id": "a", "record_id": "b", "value": "the later key wins", "value": null}"#.to_string(),
        r##"{"record_id": "#5", "value": "a comment-like line"}"##.to_string(),
        r#"{"record_id": " ", "source": "\u0085\u000b"}"#.to_string(),
        r#"{"unrelated": "nothing the form writes"}"#.to_string(),
        "{}".to_string(),
        format!(r#"{{"record_id": "R-10", "value": {deep}, "source": "s"}}"#),
        r#"{"record_id": "R-11", "value": "", "source": "", "valid_to": ""}"#.to_string(),
    ];
    for i in 0..3000 {
        lines.push(format!(
            r#"{{"record_id": "B-{i}", "valid_from": "2025-0{}-01", "valid_to": null, "source": "src/{i}", "value": "block {i}, with | and \\ and \n", "release_to": ["p{}"], "concept": "c{}", "supersedes": "B-{}"}}"#,
            1 + i % 9,
            i % 7,
            i % 3,
            i / 2
        ));
    }
    lines
}

/// The form of these lines as the codec writes each record read whole.
fn expected_compact(lines: &[String]) -> String {
    let order = vercy::profile::Profile::embedded()
        .serialisation
        .field_order
        .clone();
    let mut text = vercy::store::compact::header(&order);
    text.push('\n');
    for line in lines {
        let record: serde_json::Map<String, Value> = serde_json::from_str(line).unwrap();
        let values: Vec<Option<&Value>> = order.iter().map(|f| record.get(f)).collect();
        text.push_str(&vercy::store::compact::line(&values, &order));
        text.push('\n');
    }
    text
}

#[test]
fn every_shape_and_path_writes_the_line_the_codec_gives() {
    let lines = hostile_lines();
    let expected = expected_compact(&lines);
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("store.jsonl");
    std::fs::write(&jsonl, lines.join("\n") + "\n").unwrap();
    let array = dir.path().join("store.json");
    std::fs::write(&array, format!("[{}]", lines.join(",\n"))).unwrap();
    let (jsonl, array) = (jsonl.to_str().unwrap(), array.to_str().unwrap());

    // the fast path (values read from the line's text), a plain map given, the whole-record
    // path (--stats), and a store read whole (an array, stdin)
    for args in [
        vec![jsonl],
        vec![jsonl, "--map", "record_id=record_id"],
        vec![jsonl, "--stats"],
        vec![array],
        vec![array, "--stats"],
    ] {
        let run = compact(&args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert!(run.stdout == expected, "{args:?}");
    }
    let out = vercy()
        .args(["compact", "-"])
        .write_stdin(lines.join("\n"))
        .output()
        .unwrap();
    assert!(String::from_utf8(out.stdout).unwrap() == expected);

    // selections judge the same from the line's text as from the records read whole
    for selection in [
        &["--reader", "p3"][..],
        &["--concept", "c1"],
        &["--as-of", "2025-05-01"],
        &["--as-of", "2025-05-01", "--reader", "p2", "--concept", "c2"],
    ] {
        let fast = compact(&[&[jsonl][..], selection].concat());
        let whole = compact(&[&[jsonl, "--stats"][..], selection].concat());
        assert_eq!(fast.code, 0, "{selection:?}: {}", fast.stderr);
        assert!(fast.stdout.lines().count() > 10, "{selection:?}");
        assert!(fast.stdout == whole.stdout, "{selection:?}");
        // the same counts of what was left out (--stats adds its table after them)
        assert!(whole.stderr.starts_with(&fast.stderr), "{selection:?}");
    }

    // a renamed key reads through the map on the fast path too
    let renamed: Vec<String> = lines
        .iter()
        .map(|l| l.replace(r#""value":"#, r#""text":"#))
        .collect();
    let path = dir.path().join("renamed.jsonl");
    std::fs::write(&path, renamed.join("\n")).unwrap();
    let run = compact(&[path.to_str().unwrap(), "--map", "value=text"]);
    assert!(run.stdout == expected);
}

#[test]
fn an_engrama_dump_compacts_the_same_with_or_without_its_map_named() {
    let dump = "fixtures/engrama/sample-export-0.18.1.ndjson";
    let bare = compact(&[dump]);
    let named = compact(&[dump, "--map", "engrama"]);
    assert_eq!(bare.code, 0, "{}", bare.stderr);
    assert_eq!(bare.stdout, named.stdout);
    assert!(bare.stdout.lines().count() > 2);
    // and a selection reads the dump through the same map
    let as_of = compact(&[dump, "--as-of", "2030-01-01"]);
    let as_of_named = compact(&[dump, "--as-of", "2030-01-01", "--map", "engrama"]);
    assert_eq!(as_of.stdout, as_of_named.stdout);
}

#[test]
fn a_line_only_python_reads_is_written_whole_on_every_path() {
    // NaN and Infinity, a lone surrogate: serde_json refuses these lines and the reader takes
    // them as the reference does; the form must carry their values, not an empty line
    for (store, first_ids) in [
        (
            "fixtures/python/nan-infinity.jsonl",
            &["NaN", "Infinity"][..],
        ),
        ("fixtures/quirks/nan-id.jsonl", &["E-1", "NaN", "-Infinity"]),
        ("fixtures/quirks/lone-surrogate.jsonl", &["E-1", "E-2"]),
    ] {
        let fast = compact(&[store]);
        let whole = compact(&[store, "--stats"]);
        assert_eq!(fast.code, 0, "{store}: {}", fast.stderr);
        assert_eq!(fast.stdout, whole.stdout, "{store}");
        assert_eq!(&ids(&fast.stdout)[..first_ids.len()], first_ids, "{store}");
        assert!(
            !fast.stdout.lines().any(|l| l == "|"),
            "{store}: {}",
            fast.stdout
        );
        let piped = vercy()
            .args(["compact", "-", "--as-of", "2025-06-01"])
            .write_stdin(std::fs::read(store).unwrap())
            .output()
            .unwrap();
        let dated = compact(&[store, "--as-of", "2025-06-01"]);
        assert_eq!(
            String::from_utf8(piped.stdout).unwrap(),
            dated.stdout,
            "{store}"
        );
        assert!(ids(&dated.stdout).len() >= 2, "{store}: {}", dated.stdout);
    }
}

#[test]
fn a_lone_surrogate_is_written_the_same_through_a_choice_as_through_its_key() {
    // the mem0 map reads source as `metadata.source | source`: the choice finds what the
    // plain key finds (a lone surrogate Python reads), and the form writes it the same
    let store = "fixtures/quirks/lone-surrogate.jsonl";
    let cells = |map: &str| -> Vec<String> {
        let run = compact(&[store, "--map", map]);
        assert_eq!(run.code, 0, "{map}: {}", run.stderr);
        let lines = run.stdout.lines().skip(1);
        lines
            .map(|l| l.split('|').nth(3).unwrap().to_string())
            .collect()
    };
    let plain = cells("record_id=id,source=source");
    assert_eq!(plain, ["S-1", "\u{fffd}"]);
    assert_eq!(cells("mem0"), plain);
}
