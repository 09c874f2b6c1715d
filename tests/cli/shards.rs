//! A store split by concept, its shards checked apart and their facts merged gives the report
//! one check of the whole store gives, byte for byte, in every format, with its exit code
//! (docs/SCALE.md); and every input of a merge that is not what it should be is refused.

use crate::common::{stderr_of, vercy};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

const FORMATS: [&str; 4] = ["json", "human", "github", "sarif"];

/// What a run printed and how it exited.
type Run = (String, Option<i32>);

fn run(args: &[&str]) -> Run {
    let out = vercy().args(args).output().expect("vercy runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}

/// The `--map` among a check's arguments (a split reads concepts through it).
fn map_of(args: &[String]) -> Vec<String> {
    let mut map = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == "--map" {
            map.push("--map".to_string());
            map.extend(words.next().cloned());
        }
    }
    map
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// Split `store` into `shards` in `dir`, check each shard with `args` (writing its facts
/// beside it), and return the shards' paths.
fn split_and_check(store: &str, args: &[String], shards: usize, dir: &Path) -> Vec<String> {
    let out_dir = dir.display().to_string();
    let n = shards.to_string();
    let mut split = strings(&["split", store, "--shards", &n, "-o", &out_dir]);
    split.extend(map_of(args));
    let out = vercy().args(&split).output().expect("vercy runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "split {store}: {}",
        stderr_of(&out)
    );
    let paths: Vec<String> = String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(str::to_string)
        .collect();
    assert!(paths.len() <= shards);
    for shard in &paths {
        let facts = format!("{shard}.facts");
        let mut check = strings(&["check", shard, "--facts", &facts, "--format", "json"]);
        check.extend(args.iter().cloned());
        let out = vercy().args(&check).output().expect("vercy runs");
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "check {shard}: {}",
            stderr_of(&out)
        );
    }
    paths
}

/// Check `store` whole and merged from `shards` shards, in each of `formats`, and hold the two
/// to the same bytes and exit code.
fn same_report(store: &str, args: &[String], shards: usize, formats: &[&str]) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    split_and_check(store, args, shards, dir.path());
    let split = dir.path().display().to_string();
    for format in formats {
        let mut whole = strings(&["check", store, "--format", format]);
        whole.extend(args.iter().cloned());
        let whole = run(&whole.iter().map(String::as_str).collect::<Vec<_>>());
        let merged = run(&["merge-reports", &split, "--format", format]);
        if whole != merged {
            // the first line that differs, not two whole reports
            let (w, m) = (whole.0.lines(), merged.0.lines());
            let at = w.clone().zip(m.clone()).position(|(a, b)| a != b);
            panic!(
                "{store} {args:?} in {shards} shards, --format {format}: exit {:?} and {:?}, line {at:?}: {:?} against {:?}",
                whole.1,
                merged.1,
                at.and_then(|at| w.clone().nth(at)).map(|l| l.chars().take(300).collect::<String>()),
                at.and_then(|at| m.clone().nth(at)).map(|l| l.chars().take(300).collect::<String>()),
            );
        }
    }
}

/// Every JSON lines store in fixtures/ that a check reads, with the arguments its `.args`
/// file gives it (one run a line) or none.
fn fixture_runs() -> Vec<(String, Vec<String>)> {
    let mut stores = Vec::new();
    let mut folders = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("read fixtures/") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                stores.push(path);
            }
        }
    }
    stores.sort();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut runs = Vec::new();
    for path in stores {
        let store = path
            .strip_prefix(root)
            .expect("under the crate")
            .display()
            .to_string();
        let args_file = PathBuf::from(format!("{}.args", path.display()));
        let lines = match std::fs::read_to_string(&args_file) {
            Ok(text) => text.lines().map(str::to_string).collect(),
            Err(_) => vec![String::new()],
        };
        for line in lines {
            runs.push((
                store.clone(),
                strings(&line.split_whitespace().collect::<Vec<_>>()),
            ));
        }
    }
    runs
}

#[test]
fn every_fixture_split_in_three_merges_to_the_whole_report() {
    let mut merged = 0;
    for (store, args) in fixture_runs() {
        let mut check = strings(&["check", &store, "--format", "json"]);
        check.extend(args.iter().cloned());
        let (_, code) = run(&check.iter().map(String::as_str).collect::<Vec<_>>());
        if code == Some(2) {
            // a store a check refuses is no store a split reads either
            let dir = tempfile::tempdir().expect("a temporary folder");
            let out = dir.path().display().to_string();
            let mut split = strings(&["split", &store, "--shards", "3", "-o", &out]);
            split.extend(map_of(&args));
            let out = vercy().args(&split).output().expect("vercy runs");
            assert_eq!(out.status.code(), Some(2), "split {store}");
            assert!(!dir.path().join("split.json").exists(), "{store}");
            continue;
        }
        same_report(&store, &args, 3, &["json", "human"]);
        merged += 1;
    }
    assert!(merged > 100, "only {merged} fixture runs merged");
}

#[test]
fn the_reference_and_messy_stores_merge_in_every_format_and_shard_count() {
    for store in [
        "fixtures/reference-store.jsonl",
        "fixtures/values/messy-500.jsonl",
    ] {
        for shards in [1, 2, 7, 64] {
            same_report(store, &[], shards, &FORMATS);
        }
    }
    let policy = strings(&["--policy", "--strict", "--min-level", "2"]);
    same_report("fixtures/values/problems.jsonl", &policy, 5, &FORMATS);
    let expected = strings(&["--expected", "fixtures/values/expected.txt"]);
    same_report("fixtures/values/messy-500.jsonl", &expected, 4, &FORMATS);
}

/// A store made to cross shards at every turn: ids repeated under other concepts, pointers to
/// other concepts' records (some naming none, some in cycles), records without an id or a
/// concept, several owners a concept, values that change on the same date, dates that do not
/// parse or run backwards.
fn generated(records: usize, concepts: usize, seed: u64) -> String {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % n.max(1) as u64) as usize
    };
    let mut out = String::new();
    for i in 0..records {
        let mut fields = Vec::new();
        match next(20) {
            0 => {}
            1 => fields.push(format!("\"record_id\": \"R-{}\"", next(i + 1))),
            _ => fields.push(format!("\"record_id\": \"R-{i}\"")),
        }
        if next(15) != 0 {
            fields.push(format!("\"concept\": \"c{}\"", next(concepts)));
            let owners = ["legal", "ops", "people", ""];
            fields.push(format!("\"concept_owner\": \"{}\"", owners[next(4)]));
        }
        fields.push(format!("\"value\": \"v{}\"", next(3)));
        let day = 1 + next(28);
        let from = match next(25) {
            0 => "2025-13-01".to_string(),
            _ => format!("2025-0{}-{day:02}", 1 + next(9)),
        };
        fields.push(format!("\"valid_from\": \"{from}\""));
        match next(6) {
            0 => fields.push(format!("\"valid_to\": \"2025-0{}-01\"", 1 + next(9))),
            1 => fields.push("\"valid_to\": null".to_string()),
            _ => {}
        }
        if next(4) == 0 {
            // backwards and forwards, so some pointers close cycles; some name no record
            let target = next(records + records / 10);
            fields.push(format!("\"supersedes\": \"R-{target}\""));
        }
        if next(3) == 0 {
            fields.push("\"source\": \"doc\"".to_string());
        }
        if next(40) == 0 {
            fields.push("\"conflict_policy\": \"latest valid_from wins\"".to_string());
        }
        if next(10) == 0 {
            fields.push("\"release_to\": [\"hr\"]".to_string());
        }
        out.push('{');
        out.push_str(&fields.join(", "));
        out.push_str("}\n");
    }
    out
}

#[test]
fn a_generated_store_that_crosses_shards_merges_to_the_whole_report() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let store = dir.path().join("generated.jsonl");
    std::fs::write(&store, generated(6000, 400, 7)).expect("write the store");
    let store = store.display().to_string();
    same_report(&store, &[], 8, &FORMATS);
    same_report(&store, &strings(&["--strict", "--policy"]), 3, &["json"]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Any store of the generator's kind, in any number of shards.
    #[test]
    fn any_generated_store_merges_to_the_whole_report(
        records in 0usize..300,
        concepts in 1usize..40,
        shards in 1usize..10,
        seed in any::<u64>(),
    ) {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = dir.path().join("generated.jsonl");
        std::fs::write(&store, generated(records, concepts, seed)).expect("write the store");
        same_report(&store.display().to_string(), &[], shards, &["json"]);
    }
}

#[test]
fn every_concept_lies_in_one_shard() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let shards = split_and_check("fixtures/values/messy-500.jsonl", &[], 6, dir.path());
    let mut seen = std::collections::HashMap::new();
    for shard in &shards {
        let text = std::fs::read_to_string(shard).expect("read a shard");
        for line in text.lines() {
            let record: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            if let Some(concept) = record["concept"].as_str() {
                let first = seen.entry(concept.to_string()).or_insert(shard.clone());
                assert_eq!(first, shard, "{concept} in two shards");
            }
        }
    }
    assert!(seen.len() > 20);
}

/// A split of the messy store in three, its shards checked: the folder and the shards' paths.
fn checked_split() -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let shards = split_and_check("fixtures/values/messy-500.jsonl", &[], 3, dir.path());
    assert_eq!(shards.len(), 3);
    (dir, shards)
}

/// Merge the split in `dir` with `facts`, expect exit 2 and a diagnostic that says `says`.
fn refused(dir: &Path, facts: &[&str], says: &str) {
    let split = dir.display().to_string();
    let mut args = vec!["merge-reports", split.as_str()];
    args.extend(facts);
    let out = vercy().args(&args).output().expect("vercy runs");
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty(), "a refused merge prints no report");
    // miette wraps long lines (at a space or after a hyphen): compare without either
    let bare = |t: &str| t.replace('│', "").split_whitespace().collect::<String>();
    assert!(
        bare(&stderr).contains(&bare(says)),
        "{says:?} not in {stderr}"
    );
}

#[test]
fn a_missing_shard_is_refused() {
    let (dir, shards) = checked_split();
    std::fs::remove_file(format!("{}.facts", shards[1])).expect("remove one shard's facts");
    refused(dir.path(), &[], "no facts for the shard");
    let given: Vec<String> = [&shards[0], &shards[2]]
        .iter()
        .map(|s| format!("{s}.facts"))
        .collect();
    let given: Vec<&str> = given.iter().map(String::as_str).collect();
    refused(dir.path(), &given, "no facts for the shard");
}

#[test]
fn a_file_that_is_not_facts_is_refused() {
    let (dir, shards) = checked_split();
    // a shard's JSON report is no shard's facts
    std::fs::write(format!("{}.facts", shards[0]), "{\"vercy_check\": 1}\n").expect("write");
    refused(dir.path(), &[], "not a shard's facts");
    refused(
        dir.path(),
        &["fixtures/reference-store.jsonl"],
        "not a shard's facts",
    );
    // no split at all
    refused(Path::new("fixtures/values"), &[], "cannot read");
}

#[test]
fn facts_cut_short_are_refused() {
    let (dir, shards) = checked_split();
    let path = format!("{}.facts", shards[2]);
    let text = std::fs::read_to_string(&path).expect("read facts");
    let cut: Vec<&str> = text.lines().collect();
    std::fs::write(&path, cut[..cut.len() - 1].join("\n") + "\n").expect("write");
    refused(dir.path(), &[], "did not finish");
}

#[test]
fn facts_of_another_vercy_are_refused() {
    let (dir, shards) = checked_split();
    let path = format!("{}.facts", shards[0]);
    let text = std::fs::read_to_string(&path).expect("read facts");
    let version = format!("\"vercy\":\"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(text.contains(&version));
    std::fs::write(&path, text.replacen(&version, "\"vercy\":\"0.0.1\"", 1)).expect("write");
    refused(dir.path(), &[], "written by vercy 0.0.1");
}

#[test]
fn shards_checked_with_other_settings_or_maps_are_refused() {
    let (dir, shards) = checked_split();
    let facts = format!("{}.facts", shards[1]);
    let strict = vercy()
        .args([
            "check", &shards[1], "--facts", &facts, "--strict", "--quiet",
        ])
        .output()
        .expect("vercy runs");
    assert!(matches!(strict.status.code(), Some(0 | 1)));
    refused(dir.path(), &[], "--strict true against false");
    let mapped = vercy()
        .args([
            "check", &shards[1], "--facts", &facts, "--map", "mem0", "--quiet",
        ])
        .output()
        .expect("vercy runs");
    assert!(matches!(mapped.status.code(), Some(0 | 1)));
    refused(dir.path(), &[], "a shard checked through --map");
}

#[test]
fn facts_of_another_split_are_refused() {
    let (dir, shards) = checked_split();
    let (other, other_shards) = {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let shards = split_and_check("fixtures/reference-store.jsonl", &[], 3, dir.path());
        (dir, shards)
    };
    // the same shard's name, another store's records
    let mut given: Vec<String> = shards.iter().map(|s| format!("{s}.facts")).collect();
    given[0] = format!("{}.facts", other_shards[0]);
    let given: Vec<&str> = given.iter().map(String::as_str).collect();
    refused(dir.path(), &given, "the facts of another shard-000.jsonl");
    // twice the same shard
    let twice = format!("{}.facts", shards[0]);
    refused(dir.path(), &[&twice, &twice], "a second facts file");
    drop(other);
}

#[test]
fn places_cut_short_are_refused() {
    let (dir, _) = checked_split();
    let places = dir.path().join("places");
    let text = std::fs::read_to_string(&places).expect("read places");
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&places, lines[..10].join("\n") + "\n").expect("write");
    refused(dir.path(), &[], "places of the 500 records");
    std::fs::write(&places, "x y\n").expect("write");
    refused(dir.path(), &[], "not a place");
}

#[test]
fn a_split_reads_json_lines_only_and_at_most_64_shards() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = dir.path().display().to_string();
    for (store, shards, says) in [
        ("fixtures/values/conflict-one-line.json", "3", "JSON lines"),
        ("fixtures/reference-store.jsonl", "0", "1 to 64"),
        ("fixtures/reference-store.jsonl", "65", "1 to 64"),
    ] {
        let got = vercy()
            .args(["split", store, "--shards", shards, "-o", &out])
            .output()
            .expect("vercy runs");
        assert_eq!(got.status.code(), Some(2), "{store}");
        assert!(stderr_of(&got).contains(says), "{}", stderr_of(&got));
        assert!(!dir.path().join("split.json").exists());
    }
}

#[test]
fn facts_take_one_store() {
    let out = vercy()
        .args([
            "check",
            "fixtures/reference-store.jsonl",
            "fixtures/values/conflict.jsonl",
            "--facts",
            "/dev/null",
        ])
        .output()
        .expect("vercy runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("the facts of one store"));
}

#[test]
fn a_record_of_facts_that_does_not_read_is_refused() {
    let (dir, shards) = checked_split();
    let path = format!("{}.facts", shards[1]);
    let text = std::fs::read_to_string(&path).expect("read facts");
    let mut lines: Vec<&str> = text.lines().collect();
    let middle = lines.len() / 2;
    lines[middle] = "{\"rules\": [1, 2]}";
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    refused(dir.path(), &[], "a record's facts that do not read");
    refused(dir.path(), &[], &format!(".facts:{}:", middle + 1));
}

#[test]
fn facts_kept_elsewhere_are_named_on_the_command_line() {
    let (dir, shards) = checked_split();
    let elsewhere = tempfile::tempdir().expect("a temporary folder");
    let mut given = Vec::new();
    // in another order than the split's, under other names
    for (n, shard) in shards.iter().enumerate().rev() {
        let to = elsewhere.path().join(format!("job-{n}.out"));
        std::fs::rename(format!("{shard}.facts"), &to).expect("move the facts");
        given.push(to.display().to_string());
    }
    let split = dir.path().join("split.json").display().to_string();
    let mut args = vec!["merge-reports", split.as_str(), "--format", "json"];
    args.extend(given.iter().map(String::as_str));
    let merged = run(&args);
    let whole = run(&[
        "check",
        "fixtures/values/messy-500.jsonl",
        "--format",
        "json",
    ]);
    assert_eq!(whole, merged);
}
