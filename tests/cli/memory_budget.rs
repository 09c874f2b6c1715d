//! `--memory SIZE`: a store larger than a small budget is checked through the temporary file
//! and gets the report it gets in memory, in every format; a size that is not one is refused
//! with a diagnostic, exit 2.

use crate::common::*;

/// A messy store of `n` records whose index is far past a budget of a few kilobytes: long ids
/// (some repeated), concepts with several owners and values that disagree in time, inverted
/// intervals, supersedes pointers back, forward (cycles) and to no record.
fn messy_store(n: usize) -> String {
    let id = |i: usize| format!("R-{i:07}-{}", "q".repeat(i % 23));
    let mut out = String::new();
    for i in 0..n {
        let own = if i % 97 == 1 { id(i - 1) } else { id(i) };
        let concept = format!("concept_{:05}", i % 701);
        let owner = ["people", "legal", "finance", "security"][(i * 7 / 3) % 4];
        let (from, to) = match i % 53 {
            0 => ("2024-06-01", "\"2023-01-01\""),
            k if k % 2 == 0 => ("2023-03-04", "null"),
            _ => ("2024-02-0", "\"2024-12-31\""),
        };
        let from = if from.ends_with('-') {
            format!("{from}{}", 1 + i % 9)
        } else {
            from.to_string()
        };
        let supersedes = match i {
            _ if i % 211 == 0 => format!(", \"supersedes\": \"R-gone-{i}\""),
            _ if i % 401 == 2 => format!(", \"supersedes\": \"{}\"", id(i + 1)),
            _ if i % 401 == 3 => format!(", \"supersedes\": \"{}\"", id(i - 1)),
            _ if i % 5 == 0 && i > 3 => format!(", \"supersedes\": [\"{}\"]", id(i - 3)),
            _ => String::new(),
        };
        let release_to = match i % 7 {
            0 | 3 => ", \"release_to\": [\"hr\", \"audit\"]",
            1 | 4 | 5 => ", \"release_to\": \"hr\"",
            _ => "",
        };
        out.push_str(&format!(
            "{{\"record_id\": \"{own}\", \"concept\": \"{concept}\", \"value\": \"v{}\", \
             \"valid_from\": \"{from}\", \"valid_to\": {to}, \"source\": \"doc-{i}\", \
             \"concept_owner\": \"{owner}\", \"conflict_policy\": \"latest valid_from wins\"\
             {supersedes}{release_to}}}\n",
            i % 3
        ));
    }
    out
}

/// [`messy_store`] of 6,000 records, written in `dir`: its path.
fn messy_file(dir: &tempfile::TempDir) -> String {
    let store = dir.path().join("messy.jsonl");
    std::fs::write(&store, messy_store(6000)).unwrap();
    store.to_str().unwrap().to_string()
}

/// `vercy ARGS --format FORMAT` at each of `budgets` prints what it prints at `--memory 1G`
/// (which it returns), exiting 1 each time.
pub fn same_report_at_every_budget(args: &[&str], format: &str, budgets: &[&str]) -> String {
    let args = [args, &["--format", format]].concat();
    same_output_at_every_budget(&args, budgets, 1)
}

/// `vercy ARGS` at each of `budgets` prints what it prints at `--memory 1G` (which it
/// returns), on stdout and stderr, exiting `code` each time.
fn same_output_at_every_budget(args: &[&str], budgets: &[&str], code: i32) -> String {
    let run = |memory: &str| {
        let out = vercy()
            .args(args)
            .args(["--memory", memory])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{}", stderr_of(&out));
        (stdout_of(&out), stderr_of(&out))
    };
    let in_memory = run("1G");
    for memory in budgets {
        assert!(
            run(memory) == in_memory,
            "{args:?} --memory {memory}: another output than in memory"
        );
    }
    in_memory.0
}

#[test]
fn a_store_past_a_small_budget_gets_the_report_it_gets_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let store = messy_file(&dir);
    let store = store.as_str();
    for format in ["json", "human", "sarif", "github"] {
        let budgets = ["128M", "64K", "1k", "1"];
        let in_memory =
            same_report_at_every_budget(&["check", store, "--strict"], format, &budgets);
        if format == "json" {
            assert!(
                in_memory.contains("\"R-0000097-qqqqq\""),
                "a repeated id is named"
            );
        }
    }
}

#[test]
fn a_diff_past_a_small_budget_finds_what_it_finds_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.jsonl");
    let head = dir.path().join("head.jsonl");
    // the repeated ids left out: a diff refuses a side with an id twice
    let records: Vec<String> = messy_store(6000)
        .lines()
        .enumerate()
        .filter(|(i, _)| i % 97 != 1)
        .map(|(_, l)| l.to_string())
        .collect();
    std::fs::write(&base, records.join("\n") + "\n").unwrap();
    // every 4th value edited in place, every 70th record deleted, every 9th ended by hand
    let edited: Vec<String> = records
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 70 != 5)
        .map(|(i, l)| match i % 4 {
            0 => l.replacen("\"value\": \"v", "\"value\": \"edited v", 1),
            _ if i % 9 == 1 => l.replacen("\"valid_to\": null", "\"valid_to\": \"2026-01-01\"", 1),
            _ => l.clone(),
        })
        .collect();
    std::fs::write(&head, edited.join("\n") + "\n").unwrap();
    let (base, head) = (base.to_str().unwrap(), head.to_str().unwrap());
    // 64K keeps 16K of findings, 1 the least (4K): some 1,500 findings are far past both, so
    // they are read back from the temporary file, merged
    for format in ["json", "human", "sarif", "github", "html"] {
        let in_memory = same_report_at_every_budget(&["diff", base, head], format, &["64K", "1"]);
        if format == "json" {
            let report: serde_json::Value = serde_json::from_str(&in_memory).unwrap();
            let findings = report["findings"].as_array().unwrap();
            assert!(findings.len() > 1500, "{}", findings.len());
            for code in ["history.edited", "history.deleted"] {
                assert!(findings.iter().any(|f| f["code"] == code), "{code}");
            }
        }
    }
    let out = vercy()
        .args(["diff", base, head, "--memory", "lots"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("vercy::args::value"));
}

#[test]
fn a_selection_past_a_small_budget_keeps_what_it_keeps_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let store = messy_file(&dir);
    let store = store.as_str();
    let budgets = ["64K", "1k", "1"];
    let compact = |extra: &[&str]| {
        let args = [&["compact", store][..], extra].concat();
        same_output_at_every_budget(&args, &budgets, 0)
    };
    let all = compact(&[]);
    for date in ["2024-01-01", "2024-02-05", "2025-06-01"] {
        let in_force = compact(&["--as-of", date]);
        let kept = in_force.lines().count() - 1;
        assert!(
            kept > 0 && kept < all.lines().count() - 1,
            "--as-of {date}: some records are in force and some are not ({kept})"
        );
    }
    // a record superseded by one begun by the date is out of force: R-0000052 by R-0000055;
    // R-0000050, of the same dates, is superseded by none
    let superseded = compact(&["--as-of", "2024-06-01"]);
    let written = |id: &str| superseded.lines().any(|line| line.starts_with(id));
    assert!(
        !written("R-0000052-") && written("R-0000055-"),
        "{superseded:.600}"
    );
    assert!(written("R-0000050-"), "{superseded:.600}");
    compact(&["--as-of", "2024-02-05", "--concept", "concept_00004"]);
    compact(&["--as-of", "2024-02-05", "--known-at", "2030-01-01"]);
    compact(&["--as-of", "2024-02-05", "--policy-line"]);
    // a record released to the reader names records withheld from them: taken out
    let seen = compact(&["--reader", "hr"]);
    let line = |id: &str| seen.lines().find(|l| l.starts_with(id)).unwrap();
    let r5 = line("R-0000005-");
    assert!(!r5.contains("R-0000002-"), "R-0000002 is withheld: {r5}");
    let r15 = line("R-0000015-");
    assert!(r15.contains("R-0000012-"), "R-0000012 is released: {r15}");
    compact(&[
        "--reader",
        "audit",
        "--as-of",
        "2024-06-01",
        "--policy-line",
    ]);
    compact(&["--reader", "hr", "--map", "supersedes=~supersedes"]);
    // the old record names its successor: an inverse map
    compact(&["--as-of", "2024-02-05", "--map", "supersedes=~supersedes"]);
}

#[test]
fn a_size_that_is_not_one_is_refused() {
    let commands: [&[&str]; 2] = [
        &["check", "fixtures/reference-store.jsonl"],
        &[
            "compact",
            "fixtures/reference-store.jsonl",
            "--as-of",
            "2025-01-01",
        ],
    ];
    for (size, command) in ["0", "-1", "lots", "", "12Q", "0.0001"]
        .into_iter()
        .flat_map(|size| commands.map(|command| (size, command)))
    {
        let out = vercy()
            .args(command)
            .args(["--memory", size])
            .output()
            .unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(2), "--memory {size:?}: {stderr}");
        assert!(
            stderr.contains("--memory") && stderr.contains("vercy::args::value"),
            "--memory {size:?}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "--memory {size:?}: no report");
    }
    let out = vercy()
        .args([
            "check",
            "fixtures/reference-store.jsonl",
            "--memory",
            "1.5G",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}
