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
        out.push_str(&format!(
            "{{\"record_id\": \"{own}\", \"concept\": \"{concept}\", \"value\": \"v{}\", \
             \"valid_from\": \"{from}\", \"valid_to\": {to}, \"source\": \"doc-{i}\", \
             \"concept_owner\": \"{owner}\", \"conflict_policy\": \"latest valid_from wins\"\
             {supersedes}}}\n",
            i % 3
        ));
    }
    out
}

#[test]
fn a_store_past_a_small_budget_gets_the_report_it_gets_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("messy.jsonl");
    std::fs::write(&store, messy_store(6000)).unwrap();
    let store = store.to_str().unwrap();
    for format in ["json", "human", "sarif", "github"] {
        let run = |memory: &str| {
            let out = vercy()
                .args(["check", store, "--strict", "--format", format])
                .args(["--memory", memory])
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
            stdout_of(&out)
        };
        let in_memory = run("1G");
        if format == "json" {
            assert!(
                in_memory.contains("\"R-0000097-qqqqq\""),
                "a repeated id is named"
            );
        }
        for memory in ["128M", "64K", "1k", "1"] {
            assert!(
                run(memory) == in_memory,
                "--format {format} --memory {memory}: another report than in memory"
            );
        }
    }
}

#[test]
fn a_size_that_is_not_one_is_refused() {
    for size in ["0", "-1", "lots", "", "12Q", "0.0001"] {
        let out = vercy()
            .args(["check", "fixtures/reference-store.jsonl", "--memory", size])
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
