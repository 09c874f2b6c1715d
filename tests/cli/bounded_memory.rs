//! Big inputs in bounded memory: a line of many keys costs compact and import a small multiple
//! of its bytes (not a tree of every key, many times them), and the MCP server refuses a
//! message over its documented limit (16 MiB) without holding it whole.
//!
//! Peak memory is vercy's own, reaped by a small process of its own, so tests running beside it
//! do not count, with its address space laid out the same way each run.

#![cfg(target_os = "linux")]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Where the measuring process writes what it saw (`code peak`), and the arguments it runs.
const MEASURE_INTO: &str = "VERCY_TEST_MEASURE_INTO";
const MEASURE_ARGS: &str = "VERCY_TEST_MEASURE_ARGS";

/// Run vercy with `args` in `dir`, feeding `stdin`; its exit code, stdout and peak RSS (bytes).
///
/// The peak must be vercy's own. A child started from this test process inherits its high-water
/// mark (Linux keeps the old memory map's peak across exec, and posix_spawn's child shares our
/// map), and this process holds the data of every test running beside it. So a fresh copy of
/// this test binary, small, starts vercy and reports the peak ([`measure_one_run`]).
fn run_measured(dir: &Path, args: &[&str], stdin: Vec<u8>) -> (i32, Vec<u8>, u64) {
    let report = dir.join("measured");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "bounded_memory::measure_one_run"])
        .args(["--ignored", "--nocapture", "--test-threads=1", "--quiet"])
        .env(MEASURE_INTO, &report)
        .env(MEASURE_ARGS, args.join("\u{1f}"))
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("the test binary starts again");
    let mut input = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let status = child.wait().unwrap();
    writer.join().unwrap();
    assert!(
        status.success(),
        "measuring vercy {args:?} failed: {status}"
    );
    let seen = std::fs::read_to_string(&report).unwrap();
    let (code, peak) = seen.trim().split_once(' ').unwrap();
    let out = std::fs::read(report.with_extension("out")).unwrap();
    (code.parse().unwrap(), out, peak.parse().unwrap())
}

/// Not a test: the small process [`run_measured`] starts. It runs vercy with stdin passed on,
/// reaps it with wait4 (which gives the child's own peak memory) and writes what it saw.
#[test]
#[ignore = "run by run_measured in a process of its own"]
// the child is reaped by wait4, which also gives its own peak memory
#[allow(clippy::zombie_processes)]
fn measure_one_run() {
    let (Some(report), Some(args)) = (
        std::env::var_os(MEASURE_INTO),
        std::env::var(MEASURE_ARGS).ok(),
    ) else {
        panic!("run by run_measured, which names the report file and the arguments");
    };
    let report = std::path::PathBuf::from(report);
    // The same run's peak moves by up to 0.7 MB from one run to the next with the address
    // space laid out at random; laid out the same each time (this process's persona, which
    // vercy inherits), it moves by a few pages. A system that refuses (a container's seccomp
    // filter may) keeps the randomness.
    // SAFETY: personality takes a word of flags and changes only this process's persona (and
    // its children's); 0xffffffff reads it.
    unsafe {
        let persona = libc::personality(0xffff_ffff);
        if persona != -1 {
            libc::personality((persona | libc::ADDR_NO_RANDOMIZE) as libc::c_ulong);
        }
    }
    let child = Command::new(assert_cmd::cargo::cargo_bin("vercy"))
        .args(args.split('\u{1f}'))
        .env("NO_COLOR", "1")
        .stdin(Stdio::inherit())
        .stdout(std::fs::File::create(report.with_extension("out")).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("vercy starts");
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it in for the child just spawned.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our own child's, not yet waited for.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    assert!(
        libc::WIFEXITED(status),
        "vercy {args:?} did not exit: {status}"
    );
    // ru_maxrss is in KiB on Linux
    let peak = usage.ru_maxrss as u64 * 1024;
    std::fs::write(report, format!("{} {peak}", libc::WEXITSTATUS(status))).unwrap();
}

/// One record of `keys` keys on one line (about 20 bytes a key), then a small one.
fn wide_store(path: &Path, keys: usize) -> u64 {
    let mut line =
        String::from(r#"{"record_id": "wide", "valid_from": "2025-01-01", "valid_to": null"#);
    for i in 0..keys {
        line.push_str(&format!(r#", "field_{i:07}": {}"#, i % 1000));
    }
    line.push_str("}\n");
    let bytes = line.len() as u64;
    line.push_str(r#"{"record_id": "small", "valid_from": "2025-01-01", "valid_to": null}"#);
    line.push('\n');
    std::fs::write(path, line).unwrap();
    bytes
}

#[test]
fn a_line_of_many_keys_costs_a_small_multiple_of_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let wide = dir.path().join("wide.jsonl");
    let bytes = wide_store(&wide, 100_000);
    std::fs::write(
        dir.path().join("tiny.jsonl"),
        "{\"record_id\": \"small\", \"valid_from\": \"2025-01-01\", \"valid_to\": null}\n",
    )
    .unwrap();
    for (name, args) in [
        ("compact", vec!["compact", "{}"]),
        ("import", vec!["import", "{}", "--into", "into.jsonl"]),
    ] {
        let with =
            |file: &str| -> Vec<String> { args.iter().map(|a| a.replace("{}", file)).collect() };
        let _ = std::fs::remove_file(dir.path().join("into.jsonl"));
        let (code, _, base) = run_measured(
            dir.path(),
            &with("tiny.jsonl")
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            Vec::new(),
        );
        assert_eq!(code, 0, "{name} of the tiny store");
        let _ = std::fs::remove_file(dir.path().join("into.jsonl"));
        let (code, _, peak) = run_measured(
            dir.path(),
            &with("wide.jsonl")
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            Vec::new(),
        );
        assert_eq!(code, 0, "{name} of the wide store");
        let extra = peak.saturating_sub(base);
        assert!(
            extra <= 4 * bytes,
            "{name}: a {bytes}-byte line took {extra} bytes more than a tiny store (peak {peak})"
        );
    }
    // nothing was lost on the way: the wide record is in the store as it was read
    let store = std::fs::read_to_string(dir.path().join("into.jsonl")).unwrap();
    let original = std::fs::read_to_string(&wide).unwrap();
    assert!(store.contains(original.lines().next().unwrap()));
    assert_eq!(store.lines().count(), 2);
}

/// An envelope of 100 MB, pretty-printed and on one line, from a file and from stdin: check
/// reads it a block at a time, never as one text or one tree (which took 3.5 times its bytes).
#[test]
fn an_envelope_is_checked_in_a_fraction_of_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let records: Vec<serde_json::Value> = (0..50_000)
        .map(|i| {
            serde_json::json!({
                "record_id": format!("R-{i}"),
                "valid_from": "2025-01-01",
                "valid_to": null,
                "concept": format!("c{}", i % 500),
                "value": "v".repeat(2000),
            })
        })
        .collect();
    let pretty =
        serde_json::to_vec_pretty(&serde_json::json!({"data": records, "next": null})).unwrap();
    let line = serde_json::to_vec(&serde_json::json!({"results": records})).unwrap();
    // `json.dump({"count": n, "results": records})`: the list is not the first key
    let counted =
        serde_json::to_vec(&serde_json::json!({"count": records.len(), "results": records}))
            .unwrap();
    std::fs::write(dir.path().join("pretty.json"), &pretty).unwrap();
    std::fs::write(dir.path().join("line.json"), &line).unwrap();
    std::fs::write(dir.path().join("counted.json"), &counted).unwrap();
    std::fs::write(
        dir.path().join("tiny.jsonl"),
        "{\"record_id\": \"small\", \"valid_from\": \"2025-01-01\", \"valid_to\": null}\n",
    )
    .unwrap();
    let (code, _, base) = run_measured(dir.path(), &["check", "tiny.jsonl"], Vec::new());
    assert_eq!(code, 0);
    for (name, args, stdin) in [
        ("pretty", ["check", "pretty.json", "--json"], Vec::new()),
        ("one line", ["check", "line.json", "--json"], Vec::new()),
        (
            "one line, a count first",
            ["check", "counted.json", "--json"],
            Vec::new(),
        ),
        ("stdin", ["check", "-", "--json"], pretty.clone()),
        (
            "stdin, a count first",
            ["check", "-", "--json"],
            counted.clone(),
        ),
    ] {
        let (code, out, peak) = run_measured(dir.path(), &args, stdin);
        assert_eq!(code, 0, "{name}");
        let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(report["records"], 50_000, "{name}");
        let extra = peak.saturating_sub(base);
        let bytes = pretty.len() as u64;
        assert!(
            extra <= bytes / 4,
            "{name}: a {bytes}-byte envelope took {extra} bytes more than a tiny store"
        );
    }
}

/// 50,000 records, two a concept, each concept 3,000 bytes long, owned by `owners` teams in
/// turn: with two, every concept has two owners, and the book the report reads them from
/// holds 75 MB of concept texts.
fn long_concepts_store(path: &Path, owners: usize) {
    let mut text = String::new();
    for k in 0..50_000 {
        let concept = format!("{:06}{}", k / 2, "c".repeat(2994));
        text.push_str(&format!(
            "{{\"record_id\": \"r{k}\", \"concept\": \"{concept}\", \"value\": \"v\", \
             \"valid_from\": \"2024-01-01\", \"valid_to\": null, \"concept_owner\": \"team-{}\"}}\n",
            k % owners
        ));
    }
    std::fs::write(path, text).unwrap();
}

/// The book of concepts with several owners is written out while it is made, past its
/// limit: a store whose every concept has two owners peaks no higher than the same store
/// with one owner a concept (no book at all), where a book made whole in memory first took
/// its 75 MB of texts.
#[test]
fn a_book_of_long_concepts_is_not_held_whole() {
    let dir = tempfile::tempdir().unwrap();
    long_concepts_store(&dir.path().join("one.jsonl"), 1);
    long_concepts_store(&dir.path().join("two.jsonl"), 2);
    let (code, _, base) = run_measured(dir.path(), &["check", "one.jsonl"], Vec::new());
    assert_eq!(code, 0);
    let (code, out, peak) = run_measured(dir.path(), &["check", "two.jsonl"], Vec::new());
    assert_eq!(code, 0);
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("25,000 concepts have more than one owner"),
        "{out}"
    );
    let extra = peak.saturating_sub(base);
    assert!(
        extra <= 12 << 20,
        "a book of 75 MB of texts took {extra} bytes more than no book (peak {peak})"
    );
}

/// A `tools/call` of `check_records` whose records take about `bytes` bytes.
fn big_request(id: u64, bytes: usize) -> Vec<u8> {
    let mut records = String::from("[");
    let mut i = 0;
    while records.len() < bytes {
        if i > 0 {
            records.push(',');
        }
        records.push_str(&format!(
            r#"{{"record_id":"R-{i}","valid_from":"2025-01-01","valid_to":null,"k{i}":{i}}}"#
        ));
        i += 1;
    }
    records.push(']');
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"check_records","arguments":{{"records":{records}}}}}}}"#
    )
    .into_bytes()
}

#[test]
fn an_mcp_message_over_the_limit_is_refused_in_bounded_memory() {
    const LIMIT: usize = 16 << 20;
    let dir = tempfile::tempdir().unwrap();
    let mut input = big_request(1, LIMIT + 1024);
    input.push(b'\n');
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
    let (code, out, peak) = run_measured(dir.path(), &["mcp"], input);
    assert_eq!(code, 0);
    let replies: Vec<serde_json::Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(replies.len(), 2, "{replies:?}");
    let head = |v: &serde_json::Value| v.to_string().chars().take(300).collect::<String>();
    assert_eq!(replies[0]["error"]["code"], -32700, "{}", head(&replies[0]));
    assert!(
        replies[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&LIMIT.to_string()),
        "{}",
        head(&replies[0])
    );
    assert_eq!(replies[1]["id"], 2);
    assert!(replies[1]["result"].is_object());
    // the message is read up to the limit and the rest stepped over, never parsed
    assert!(
        peak < 3 * LIMIT as u64,
        "a refused {}-byte message took a peak of {peak} bytes",
        LIMIT + 1024
    );

    // just under the limit it is answered
    let mut input = big_request(3, 256 << 10);
    input.push(b'\n');
    let (code, out, _) = run_measured(dir.path(), &["mcp"], input);
    assert_eq!(code, 0);
    let reply: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(reply["id"], 3);
    assert!(reply["result"].is_object(), "{reply}");
}

/// 30,000 records named by 3,000-byte ids (90 MB of them, past what the pass holds), every
/// one without a source and with a date that does not parse, every other one superseding
/// another.
fn long_ids_store(path: &Path) {
    let id = |k: usize| format!("{k:06}{}", "i".repeat(2994));
    let mut text = String::new();
    for k in 0..30_000 {
        let supersedes = match k % 2 {
            1 => format!(", \"supersedes\": [\"{}\"]", id(k * 7919 % 30_000)),
            _ => String::new(),
        };
        text.push_str(&format!(
            "{{\"record_id\": \"{}\", \"concept\": \"c{}\", \"value\": \"v\", \
             \"valid_from\": \"2024-13-01\", \"valid_to\": null{supersedes}}}\n",
            id(k),
            k / 2
        ));
    }
    std::fs::write(path, text).unwrap();
}

/// The JSON report names every record of a long list, a window of them rendered at a time:
/// a window holds as many bytes of names whatever their length, so naming 30,000 records
/// by their 3,000-byte ids twice (offenders, warnings) peaks about as high as the human
/// report, which names a few. Windows of as many records as short names have held 200 MB.
#[test]
fn a_report_of_long_names_is_written_in_bounded_windows() {
    let dir = tempfile::tempdir().unwrap();
    long_ids_store(&dir.path().join("long.jsonl"));
    let (code, _, base) = run_measured(dir.path(), &["check", "long.jsonl"], Vec::new());
    assert_eq!(code, 0, "level 1, as asked");
    let args = ["check", "long.jsonl", "--format", "json"];
    let (code, out, peak) = run_measured(dir.path(), &args, Vec::new());
    assert_eq!(code, 0);
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let source = &report["findings"][0];
    assert_eq!(source["field"], "source");
    assert_eq!(source["offenders"].as_array().unwrap().len(), 30_000);
    let dates = report["warnings"].as_array().unwrap().iter();
    let dates = dates
        .filter(|w| w["code"] == "value.date")
        .collect::<Vec<_>>();
    assert_eq!(dates[0]["records"].as_array().unwrap().len(), 30_000);
    let extra = peak.saturating_sub(base);
    assert!(
        extra <= 16 << 20,
        "naming 30,000 records by 3,000-byte ids took {extra} bytes more in JSON than in the \
         human report (peak {peak})"
    );
}
