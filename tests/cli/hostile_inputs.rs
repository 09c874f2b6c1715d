//! Hostile input against every command that reads a store: the corpus in `fixtures/bad/`
//! (see its README for what each file is), plus cases generated into a temporary folder
//! (100,000 levels of nesting in every shape, a 64 MB record, a directory, a missing file, an
//! unreadable file, stdin). Every run must end with a correct answer or exit 2 and a diagnostic
//! naming file:line:column; no run may panic, hang or die of a signal.

use crate::common;
use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

fn bad_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bad")
}

fn vercy(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("vercy").unwrap();
    cmd.current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .timeout(Duration::from_secs(120));
    cmd
}

/// What a store must produce.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// Read: this many records.
    Records(usize),
    /// Read, and there are no records (check: level 0, exit 1).
    NoRecords,
    /// Refused: exit 2, a diagnostic naming this line and (when given) column.
    ErrorAt(u64, Option<u64>),
}
use Expect::*;

/// The committed corpus, with what each file must produce (fixtures/bad/README.md).
const CORPUS: &[(&str, Expect)] = &[
    ("not-json.jsonl", ErrorAt(1, Some(1))),
    ("bad-line-middle.jsonl", ErrorAt(4, Some(77))),
    ("invalid-utf8.jsonl", ErrorAt(3, Some(82))),
    ("non-object.jsonl", ErrorAt(3, Some(1))),
    ("truncated.jsonl", ErrorAt(4, Some(56))),
    ("deep-nesting.json", ErrorAt(1, None)),
    ("array-of-non-objects.json", ErrorAt(1, Some(70))),
    ("bom.jsonl", Records(5)),
    ("crlf.jsonl", Records(5)),
    ("blank-lines.jsonl", NoRecords),
    ("empty.jsonl", NoRecords),
    ("duplicate-keys.jsonl", Records(4)),
    ("compact-bad-line.txt", ErrorAt(4, Some(1))),
    ("compact-bad-header.txt", ErrorAt(1, Some(1))),
    ("engrama-bad-line.ndjson", ErrorAt(3, Some(104))),
    ("engrama-unknown-type.ndjson", ErrorAt(3, Some(2))),
    ("array-bad-element.json", ErrorAt(4, Some(65))),
    ("array-missing-comma.json", ErrorAt(4, Some(1))),
    ("array-unclosed.json", ErrorAt(4, Some(1))),
    ("envelope-non-object.json", ErrorAt(1, None)),
    ("nul-bytes.jsonl", ErrorAt(2, Some(21))),
    ("utf16.jsonl", ErrorAt(1, Some(1))),
    ("bom-array.json", Records(2)),
    ("huge-numbers.jsonl", Records(2)),
    ("truncated-brace.jsonl", ErrorAt(3, None)),
    ("two-on-a-line.jsonl", ErrorAt(2, Some(113))),
    ("bom-and-blank-lines.jsonl", NoRecords),
    ("lone-bracket.json", ErrorAt(1, Some(2))),
    ("compact-header-only.txt", NoRecords),
    ("empty-array.json", NoRecords),
    ("space-before-a-later-record.jsonl", ErrorAt(2, Some(1))),
    ("space-then-another-record.jsonl", ErrorAt(1, Some(19))),
    ("array-trailing-comma.json", ErrorAt(3, Some(1))),
    ("envelope-pretty-truncated.json", ErrorAt(6, Some(1))),
    ("envelope-pretty-bad-record.json", ErrorAt(4, Some(44))),
    ("envelope-pretty-missing-colon.json", ErrorAt(2, Some(10))),
    ("envelope-pretty-non-object.json", ErrorAt(4, Some(5))),
];

/// A command that reads a store, and how to tell how many records it read.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cmd {
    Check,
    Compact,
    ExportJsonl,
    ExportEngrama,
    Import,
    Recency,
    /// Deprecated: always exit 0; a store it cannot read is named in its notice.
    Decay,
}

impl Cmd {
    /// The command line for `store`; `scratch` is a folder the command may write in.
    fn args(self, store: &str, scratch: &Path) -> Vec<String> {
        let s = |x: &str| x.to_string();
        match self {
            Cmd::Check => vec![s("check"), s(store), s("--json")],
            Cmd::Compact => vec![s("compact"), s(store)],
            Cmd::ExportJsonl => vec![s("export"), s(store), s("--to"), s("jsonl")],
            Cmd::ExportEngrama => vec![
                s("export"),
                s(store),
                s("--to"),
                s("engrama"),
                s("--label"),
                s("Decision"),
            ],
            Cmd::Import => vec![
                s("import"),
                s(store),
                s("--into"),
                scratch.join("target.jsonl").display().to_string(),
            ],
            Cmd::Recency => vec![
                s("recency"),
                s(store),
                s("--as-of"),
                s("2026-01-01"),
                s("--format"),
                s("json"),
            ],
            Cmd::Decay => vec![s("decay"), s("--rate"), s("0.01"), s(store)],
        }
    }

    /// The number of records the command's output shows, when it succeeded.
    fn records(self, out: &Output, scratch: &Path) -> usize {
        let stdout = String::from_utf8_lossy(&out.stdout);
        let data_lines = |text: &str| {
            text.lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
                .count()
        };
        match self {
            Cmd::Check => {
                let v: serde_json::Value = serde_json::from_str(&stdout).expect("check --json");
                v["records"].as_u64().expect("records") as usize
            }
            Cmd::Compact | Cmd::ExportJsonl => data_lines(&stdout),
            Cmd::ExportEngrama => stdout
                .lines()
                .filter(|l| l.contains("\"type\":\"node\"") || l.contains("\"type\": \"node\""))
                .count(),
            Cmd::Import => {
                let text = std::fs::read_to_string(scratch.join("target.jsonl")).unwrap();
                data_lines(&text) - SEED_RECORDS
            }
            Cmd::Recency => {
                let v: serde_json::Value = serde_json::from_str(&stdout).expect("recency json");
                v.as_array().expect("a list of scores").len()
            }
            Cmd::Decay => stdout
                .lines()
                .find_map(|l| l.strip_prefix("records seen: "))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(0),
        }
    }
}

/// Records the import target holds before each import (distinct ids, so nothing merges).
const SEED_RECORDS: usize = 1;
const SEED: &str =
    "{\"record_id\": \"seed-1\", \"valid_from\": \"2020-01-01\", \"valid_to\": null}\n";

/// Run one command on one store and hold it to `expect`. `shown` is how the command names
/// the store in a diagnostic (the argument as given, or `<stdin>`).
fn run_case(
    cmd: Cmd,
    dir: &Path,
    store: &str,
    stdin: Option<Vec<u8>>,
    shown: &str,
    expect: Expect,
) -> String {
    let scratch = tempfile::tempdir().unwrap();
    let target = scratch.path().join("target.jsonl");
    std::fs::write(&target, SEED).unwrap();
    let mut c = vercy(dir);
    c.args(cmd.args(store, scratch.path()));
    if let Some(bytes) = stdin {
        c.write_stdin(bytes);
    }
    let out = c.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let what = format!("{cmd:?} on {shown}");
    assert!(!stderr.contains("panicked"), "{what} panicked:\n{stderr}");
    let code = out
        .status
        .code()
        .unwrap_or_else(|| panic!("{what} died of a signal: {:?}\n{stderr}", out.status));
    match expect {
        ErrorAt(line, column) => {
            let want = if cmd == Cmd::Decay { 0 } else { 2 };
            assert_eq!(code, want, "{what}: exit {code}, expected {want}\n{stderr}");
            let at = match column {
                Some(c) => format!("{shown}:{line}:{c}"),
                None => format!("{shown}:{line}:"),
            };
            assert!(
                stderr.contains(&at),
                "{what}: the diagnostic should name {at}:\n{stderr}"
            );
            if cmd != Cmd::Decay {
                assert!(stderr.contains("help:"), "{what}: no help in\n{stderr}");
            }
            if cmd == Cmd::Import {
                assert_eq!(
                    std::fs::read_to_string(&target).unwrap(),
                    SEED,
                    "{what} changed the store"
                );
            }
        }
        NoRecords => {
            let want = if cmd == Cmd::Check { 1 } else { 0 };
            assert!(
                !stderr.contains("× "),
                "{what}: an error for an empty store:\n{stderr}"
            );
            assert_eq!(code, want, "{what}: exit {code}, expected {want}\n{stderr}");
            assert_eq!(cmd.records(&out, scratch.path()), 0, "{what}");
            if cmd == Cmd::Check {
                let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(v["level"], 0, "{what}");
            }
        }
        Records(n) => {
            assert_eq!(code, 0, "{what}: exit {code}, expected 0\n{stderr}");
            assert_eq!(cmd.records(&out, scratch.path()), n, "{what}: record count");
        }
    }
    if cmd == Cmd::Import {
        let left: Vec<_> = std::fs::read_dir(scratch.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "target.jsonl" && n != ".target.jsonl.vercy-lock")
            .collect();
        assert!(left.is_empty(), "{what} left files behind: {left:?}");
    }
    stderr.into_owned()
}

/// The whole corpus, from files and on stdin, through one command.
fn corpus(cmd: Cmd) {
    for &(file, expect) in CORPUS {
        run_case(cmd, &bad_dir(), file, None, file, expect);
        if cmd == Cmd::Decay {
            continue; // legacy scripts never pipe a store to decay; `-` is not read
        }
        let bytes = std::fs::read(bad_dir().join(file)).unwrap();
        run_case(cmd, &bad_dir(), "-", Some(bytes), "<stdin>", expect);
    }
}

/// Stores generated on the spot: nesting 100,000 levels deep in every shape.
fn deep_stores(dir: &Path) -> Vec<(&'static str, Expect)> {
    const D: usize = 100_000;
    let open = "[".repeat(D);
    let close = "]".repeat(D);
    let objs = "{\"a\":".repeat(D) + "1" + &"}".repeat(D);
    let rec = r#"{"record_id": "R-1", "valid_from": "2025-01-01", "valid_to": null}"#;
    let header = r#"{"engrama_export": 1, "version": "0.18.1", "exported_at": "2026-01-01T00:00:00+00:00", "source_backend": "sqlite", "embedding_model": "", "embedding_dimensions": 0}"#;
    let files = [
        (
            "deep-lines.jsonl",
            format!("{rec}\n{{\"record_id\": \"R-2\", \"x\": {open}{close}}}\n"),
            ErrorAt(2, None),
        ),
        ("deep-objects.jsonl", format!("{objs}\n"), ErrorAt(1, None)),
        (
            "deep-unclosed.jsonl",
            format!("{rec}\n{rec}\n{{\"x\": {open}\n"),
            ErrorAt(3, None),
        ),
        (
            "deep-array.json",
            format!("[{rec},\n{{\"x\": {open}{close}}}]\n"),
            ErrorAt(2, None),
        ),
        (
            "deep-array-unclosed.json",
            format!("[{rec},\n{open}\n"),
            ErrorAt(2, None),
        ),
        (
            "deep-envelope.json",
            format!("{{\"results\": [\n{open}{close}\n]}}\n"),
            ErrorAt(2, None),
        ),
        (
            "deep-engrama.ndjson",
            format!("{header}\n{{\"type\": \"node\", \"properties\": {objs}}}\n"),
            ErrorAt(2, None),
        ),
    ];
    files
        .into_iter()
        .map(|(name, text, expect)| {
            std::fs::write(dir.join(name), text).unwrap();
            (name, expect)
        })
        .collect()
}

fn deep(cmd: Cmd) {
    let dir = tempfile::tempdir().unwrap();
    for (name, expect) in deep_stores(dir.path()) {
        let stderr = run_case(cmd, dir.path(), name, None, name, expect);
        assert!(
            flat(&stderr).contains("1000 levels deep"),
            "{cmd:?} on {name}: the diagnostic should say what the limit is:\n{}",
            tail(&stderr)
        );
    }
}

/// A bad line after megabytes of good ones (the reader works in blocks of half a megabyte):
/// the diagnostic still names the right line and column, from a file and from stdin, with
/// LF and CRLF line ends; the good lines alone are all read.
fn bad_line_after_megabytes(cmd: Cmd) {
    let dir = tempfile::tempdir().unwrap();
    const GOOD: usize = 30_000; // about 4 MB
    for (name, eol) in [("late-lf.jsonl", "\n"), ("late-crlf.jsonl", "\r\n")] {
        let mut text = String::with_capacity(GOOD * 140);
        for i in 0..GOOD {
            text.push_str(&format!(
                r#"{{"record_id": "L-{i}", "valid_from": "2025-01-01", "valid_to": null, "source": "S", "note": "{}"}}{eol}"#,
                "n".repeat(i % 50)
            ));
        }
        let good_only = format!("good-{name}");
        std::fs::write(dir.path().join(&good_only), &text).unwrap();
        text.push_str(&format!(
            r#"{{"record_id": "BAD", "valid_from": 2025-01-01}}{eol}"#
        ));
        text.push_str(&format!(
            r#"{{"record_id": "AFTER", "valid_from": "2025-01-01", "valid_to": null}}{eol}"#
        ));
        std::fs::write(dir.path().join(name), &text).unwrap();
        let at = ErrorAt(GOOD as u64 + 1, Some(40));
        run_case(cmd, dir.path(), name, None, name, at);
        if cmd != Cmd::Decay {
            run_case(cmd, dir.path(), "-", Some(text.into_bytes()), "<stdin>", at);
        }
        run_case(cmd, dir.path(), &good_only, None, &good_only, Records(GOOD));
    }
}

/// A directory, a missing file, an unreadable file: exit 2 with a diagnostic saying so.
fn not_files(cmd: Cmd) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("folder.jsonl")).unwrap();
    let cases = [
        ("folder.jsonl", "is a directory"),
        ("missing.jsonl", "no such file"),
    ];
    for (name, says) in cases {
        let scratch = tempfile::tempdir().unwrap();
        let out = vercy(dir.path())
            .args(cmd.args(name, scratch.path()))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let want = if cmd == Cmd::Decay { 0 } else { 2 };
        assert_eq!(
            out.status.code(),
            Some(want),
            "{cmd:?} on {name}:\n{stderr}"
        );
        assert!(
            stderr.contains(name) && stderr.contains(says),
            "{cmd:?} on {name}:\n{stderr}"
        );
        assert!(!stderr.contains("panicked"));
    }
    // a character device that is empty, and stdin that is a directory
    run_case(cmd, dir.path(), "/dev/null", None, "/dev/null", NoRecords);
    if cmd != Cmd::Decay {
        let scratch = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("vercy"))
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .args(cmd.args("-", scratch.path()))
            .stdin(std::fs::File::open(dir.path()).unwrap())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{cmd:?} with a directory on stdin:\n{stderr}"
        );
        assert!(stderr.contains("<stdin>: cannot read"), "{cmd:?}: {stderr}");
    }
    use std::os::unix::fs::PermissionsExt;
    let locked = dir.path().join("locked.jsonl");
    std::fs::write(&locked, "{\"record_id\": \"a\"}\n").unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let args = cmd.args("locked.jsonl", scratch.path());
    // SAFETY: geteuid has no preconditions.
    let out = if unsafe { libc::geteuid() } == 0 {
        // root reads any file: vercy runs as nobody, in folders nobody may enter and write
        let Some(setpriv) = common::program("setpriv") else {
            return;
        };
        for open in [dir.path(), scratch.path()] {
            std::fs::set_permissions(open, std::fs::Permissions::from_mode(0o777)).unwrap();
        }
        std::process::Command::new(setpriv)
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(assert_cmd::cargo::cargo_bin("vercy"))
            .args(&args)
            .current_dir(dir.path())
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    } else {
        vercy(dir.path()).args(&args).output().unwrap()
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    // decay (deprecated) reads nothing and exits 0 whatever it is given
    let want = if cmd == Cmd::Decay { 0 } else { 2 };
    assert_eq!(out.status.code(), Some(want), "{cmd:?}: {stderr}");
    assert!(
        stderr.contains("locked.jsonl") && stderr.contains("permission denied"),
        "{cmd:?}: {stderr}"
    );
}

/// One record whose text is 64 MB, in JSON lines and in a JSON array (which crosses the
/// reader's block boundaries many times). It must be read, with memory in proportion to the
/// record, not many copies of it.
fn huge_record(cmd: Cmd) {
    const MB: usize = 1 << 20;
    let dir = tempfile::tempdir().unwrap();
    let value = "x".repeat(64 * MB);
    let rec = format!(
        "{{\"record_id\": \"BIG-1\", \"valid_from\": \"2025-01-01\", \"valid_to\": null, \"source\": \"S\", \"value\": \"{value}\"}}"
    );
    drop(value);
    let small = |id: &str| {
        format!(r#"{{"record_id": "{id}", "valid_from": "2025-01-01", "valid_to": null}}"#)
    };
    let (a, b) = (small("R-2"), small("R-3"));
    std::fs::write(dir.path().join("big.jsonl"), format!("{a}\n{rec}\n{b}\n")).unwrap();
    std::fs::write(
        dir.path().join("big.json"),
        format!("[{a},\n{rec},\n{b}]\n"),
    )
    .unwrap();
    drop(rec);
    // the array form crosses the shared reader's block boundaries; one command covers it
    // (debug builds write 64 MB slowly, so the others take the JSON lines form only)
    let shapes: &[&str] = match cmd {
        Cmd::Check => &["big.jsonl", "big.json"],
        _ => &["big.jsonl"],
    };
    for &name in shapes {
        let scratch = tempfile::tempdir().unwrap();
        std::fs::write(scratch.path().join("target.jsonl"), SEED).unwrap();
        // the child's peak memory, in KiB, from the shell's own accounting
        let line = cmd
            .args(name, scratch.path())
            .iter()
            .map(|a| format!("'{a}'"))
            .collect::<Vec<_>>()
            .join(" ");
        let script = format!(
            "ulimit -v {}; \"$VERCY\" {line} > \"$OUT\"; echo $? >&2",
            MEMORY_CAP_MB * 1024
        );
        let stdout_file = scratch.path().join("stdout");
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(dir.path())
            .env("VERCY", assert_cmd::cargo::cargo_bin("vercy"))
            .env("OUT", &stdout_file)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("panicked") && !stderr.contains("memory allocation"),
            "{cmd:?} on {name} under a {MEMORY_CAP_MB} MB cap:\n{}",
            tail(&stderr)
        );
        let code = stderr.lines().last().unwrap_or("").trim().to_string();
        assert_eq!(code, "0", "{cmd:?} on {name}:\n{}", tail(&stderr));
        let output = Output {
            status: out.status,
            stdout: std::fs::read(&stdout_file).unwrap(),
            stderr: Vec::new(),
        };
        assert_eq!(cmd.records(&output, scratch.path()), 3, "{cmd:?} on {name}");
    }
}

/// Address space allowed for a store holding one 64 MB record (a handful of copies of it:
/// the line, the parsed value, the kept raw text, the output).
const MEMORY_CAP_MB: usize = 512;

/// A diagnostic with miette's line wrapping and gutter undone, for phrase matching.
fn flat(s: &str) -> String {
    s.replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn tail(s: &str) -> &str {
    &s[s.len().saturating_sub(2000)..]
}

macro_rules! hostile {
    ($name:ident, $cmd:expr) => {
        mod $name {
            use super::*;
            #[test]
            fn the_bad_corpus_from_files_and_stdin() {
                corpus($cmd);
            }
            #[test]
            fn nesting_100000_levels_deep_in_every_shape() {
                deep($cmd);
            }
            #[test]
            fn a_directory_a_missing_file_an_unreadable_file() {
                not_files($cmd);
            }
            #[test]
            fn a_bad_line_after_megabytes_of_good_ones() {
                bad_line_after_megabytes($cmd);
            }
            #[test]
            fn a_64_mb_record() {
                huge_record($cmd);
            }
        }
    };
}

hostile!(check, Cmd::Check);
hostile!(compact, Cmd::Compact);
hostile!(export_jsonl, Cmd::ExportJsonl);
hostile!(export_engrama, Cmd::ExportEngrama);
hostile!(import, Cmd::Import);
hostile!(recency, Cmd::Recency);
hostile!(decay, Cmd::Decay);
