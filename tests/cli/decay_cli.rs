//! `vercy decay` is deprecated and changes nothing: every legacy invocation, against a store, a
//! folder, a missing path or nothing at all, exits 0, prints one notice on stderr, and leaves
//! every byte, modification time and directory entry as it was.

use crate::common;
use common::vercy;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

const NOTICE_MARK: &str = "is deprecated and changes nothing";

/// A file of fixtures/recency/.
fn fixture(name: &str) -> PathBuf {
    common::fixture("recency").join(name)
}

/// Everything a write could change: for each entry under `root` (and root itself), its bytes
/// (files), modification time, change time and size.
type Snapshot = BTreeMap<PathBuf, (Option<Vec<u8>>, SystemTime, i64, u64)>;

fn snapshot(root: &Path) -> Snapshot {
    let mut out = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(p) = todo.pop() {
        let meta = fs::symlink_metadata(&p).unwrap();
        let bytes = if meta.is_file() {
            Some(fs::read(&p).unwrap())
        } else {
            for e in fs::read_dir(&p).unwrap() {
                todo.push(e.unwrap().path());
            }
            None
        };
        out.insert(
            p,
            (bytes, meta.modified().unwrap(), meta.ctime(), meta.len()),
        );
    }
    out
}

/// A folder holding copies of the stores, with modification times set a day in the past so a
/// rewrite (even of identical bytes) would show.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let past = SystemTime::now() - Duration::from_secs(86_400);
    for name in ["decayed.ndjson", "decayed.jsonl"] {
        let to = dir.path().join(name);
        fs::copy(fixture(name), &to).unwrap();
        fs::File::options()
            .write(true)
            .open(&to)
            .unwrap()
            .set_modified(past)
            .unwrap();
    }
    fs::create_dir(dir.path().join("sub")).unwrap();
    dir
}

/// Run decay with these arguments; assert exit 0 and exactly one notice; return stdout.
fn decay_ok(args: &[OsString], cwd: &Path) -> String {
    let out = vercy()
        .current_dir(cwd)
        .arg("decay")
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args:?}\n{stderr}");
    assert_eq!(stderr.matches(NOTICE_MARK).count(), 1, "{args:?}\n{stderr}");
    assert!(
        stderr.contains("vercy recency") && stderr.contains("removed in a later minor release"),
        "{stderr}"
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// Every subset of the five legacy flags, each in one of its old spellings (rotating through
/// them), with the target before or after the flags.
fn legacy_flag_sets() -> Vec<Vec<String>> {
    let forms: [&[&[&str]]; 5] = [
        &[
            &["--rate", "0.05"],
            &["-r", "0.05"],
            &["--rate=0.05"],
            &["-r0.05"],
        ],
        &[
            &["--min-confidence", "0.5"],
            &["-c", "0.5"],
            &["--min-confidence=0.5"],
        ],
        &[&["--max-age", "30"], &["-a", "30"], &["--max-age=30"]],
        &[&["--label", "Concept"], &["--label=Concept"]],
        &[&["--dry-run"]],
    ];
    let mut sets = Vec::new();
    for mask in 0..32usize {
        let mut args = Vec::new();
        for (bit, spellings) in forms.iter().enumerate() {
            if mask & (1 << bit) != 0 {
                let form = spellings[(mask + bit) % spellings.len()];
                args.extend(form.iter().map(|s| s.to_string()));
            }
        }
        sets.push(args);
    }
    sets
}

#[test]
fn every_legacy_flag_combination_changes_nothing_and_exits_0() {
    let ws = workspace();
    let before = snapshot(ws.path());
    let targets: [Option<&str>; 5] = [
        Some("decayed.ndjson"),
        Some("decayed.jsonl"),
        Some("sub"),
        Some("no-such-store.ndjson"),
        None,
    ];
    for flags in legacy_flag_sets() {
        for target in targets {
            for target_first in [true, false] {
                let mut args: Vec<OsString> = Vec::new();
                if target_first {
                    args.extend(target.map(OsString::from));
                }
                args.extend(flags.iter().map(OsString::from));
                if !target_first {
                    args.extend(target.map(OsString::from));
                }
                let stdout = decay_ok(&args, ws.path());
                if let Some(t @ ("decayed.ndjson" | "decayed.jsonl")) = target {
                    assert!(stdout.contains("changed: 0"), "{args:?}\n{stdout}");
                    assert!(stdout.contains(&format!("vercy recency {t}")), "{stdout}");
                } else {
                    assert!(stdout.is_empty(), "{args:?}: {stdout}");
                }
            }
        }
    }
    assert_eq!(snapshot(ws.path()), before, "decay changed the folder");
}

#[test]
fn arguments_no_legacy_script_should_pass_are_still_accepted() {
    let ws = workspace();
    let before = snapshot(ws.path());
    let junk: Vec<Vec<OsString>> = vec![
        os(&["--foo=bar", "decayed.ndjson"]),
        os(&["-r", "abc", "decayed.ndjson"]),
        os(&["decayed.ndjson", "--rate"]),
        os(&[
            "--max-age",
            "1.5",
            "--min-confidence",
            "NaN",
            "decayed.jsonl",
        ]),
        os(&["--rate", "inf", "-c", "-1", "decayed.jsonl"]),
        os(&["--unknown", "x", "y", "decayed.ndjson", "z"]),
        os(&["-z", "-xyz", "--", "--rate", "decayed.ndjson"]),
        os(&["--color", "bogus", "--progress=sometimes", "decayed.ndjson"]),
        os(&["--color=bogus", "-q", "sub"]),
        os(&["--label"]),
        os(&[""]),
        os(&["-", "--label", "--dry-run"]),
        os(&["--m", "1", "--rate=", "-c="]),
        os(&["--help=no", "--version", "decayed.jsonl"]),
        os(&["--version"]),
        os(&["-V", "decayed.ndjson"]),
        vec![<OsString as std::os::unix::ffi::OsStringExt>::from_vec(
            b"store-\xff.ndjson".to_vec(),
        )],
    ];
    for args in &junk {
        decay_ok(args, ws.path());
    }
    assert_eq!(snapshot(ws.path()), before, "decay changed the folder");
}

#[test]
fn a_missing_store_or_a_folder_is_said_on_stderr_and_still_exits_0() {
    let ws = workspace();
    for (target, says) in [
        ("no-such-store.ndjson", "cannot read"),
        ("sub", "is a directory"),
    ] {
        let out = vercy()
            .current_dir(ws.path())
            .args(["decay", "--rate", "0.01", target])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(says), "{stderr}");
        assert!(stderr.contains("nothing was read or changed"), "{stderr}");
    }
}

#[test]
fn the_report_counts_the_damage_and_the_old_jobs_marks() {
    let stdout = decay_ok(
        &[fixture("decayed.ndjson").into_os_string()],
        Path::new("."),
    );
    for line in [
        "records seen: 8",
        "changed: 0 (nothing was written)",
        "archived: 0 (nothing is archived automatically)",
        // every dated node with a confidence the old exp(-rate*days) would move
        "rewritten the stored confidence of: 7",
        "unknown for 1 without a readable updated_at",
        "open records (valid_to null) with a stored confidence below 1.0: 5",
        "archived records with the old job's mark (updated_at = archived_at, no archived_reason): 1",
        "unknown for 1 archived without a reason and without updated_at",
        "recency now lives at read time: vercy recency",
    ] {
        assert!(stdout.contains(line), "missing {line:?} in\n{stdout}");
    }
    assert!(stdout.contains("jq -c "), "{stdout}");

    // the old rule, read-only: a threshold above every confidence would have archived every
    // dated live node (5 of them); an age limit of 100000 days none
    let high = decay_ok(
        &os(&[
            "-c",
            "2",
            "-a",
            "100000",
            fixture("decayed.ndjson").to_str().unwrap(),
        ]),
        Path::new("."),
    );
    assert!(high.contains("  archived: 5\n"), "{high}");
    let label = decay_ok(
        &os(&[
            "--label",
            "Technology",
            "--min-confidence",
            "2",
            fixture("decayed.ndjson").to_str().unwrap(),
        ]),
        Path::new("."),
    );
    // Technology: two archived already, one undated: nothing left for the old job to archive
    assert!(label.contains("  archived: 0\n"), "{label}");
    assert!(
        label.contains("  rewritten the stored confidence of: 2\n"),
        "{label}"
    );
}

#[test]
fn the_documented_restore_line_sets_open_records_back_to_1() {
    // the line runs jq by name, from PATH
    if common::program("jq").is_none() {
        return;
    }
    let ws = workspace();
    for store in ["decayed.ndjson", "decayed.jsonl"] {
        let stdout = decay_ok(&os(&[store]), ws.path());
        let line = stdout
            .lines()
            .find(|l| l.trim_start().starts_with("jq "))
            .unwrap_or_else(|| panic!("no restore line in\n{stdout}"));
        let status = std::process::Command::new("sh")
            .current_dir(ws.path())
            .args(["-c", line.trim()])
            .status()
            .unwrap();
        assert!(status.success(), "{line}");
        let restored = format!("{store}.restored");
        let after = decay_ok(&os(&[&restored]), ws.path());
        assert!(
            after.contains("with a stored confidence below 1.0: 0"),
            "{after}"
        );
        // closed records keep their stored confidence
        let text = fs::read_to_string(ws.path().join(&restored)).unwrap();
        assert!(
            text.contains("\"confidence\":0.5") || text.contains("\"confidence\":0.2"),
            "{text}"
        );
    }
}

#[test]
fn help_still_shows_and_the_top_level_help_marks_decay_deprecated() {
    for args in [
        &["decay", "--help"][..],
        &["decay", "-h"],
        &["decay", "--rate", "1", "--help"],
    ] {
        let out = vercy().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("Usage: vercy decay"), "{args:?}: {stdout}");
        assert!(stdout.contains("deprecated"), "{stdout}");
    }
    let out = vercy().arg("--help").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("decay"))
        .unwrap_or_else(|| panic!("decay not listed:\n{stdout}"));
    assert!(line.contains("[deprecated]"), "{line}");
}
