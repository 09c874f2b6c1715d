//! Signals and pipes: a reader that closes the pipe early is success, quietly; Ctrl-C (and a
//! kill) during an import leaves the old store whole and no temporary file; a full disk is an
//! error (exit 2, a diagnostic), never a torn file.

use crate::common;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn vercy_bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("vercy")
}

fn vercy(dir: &Path) -> Command {
    let mut cmd = Command::new(vercy_bin());
    cmd.current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE");
    cmd
}

fn fixture(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
        .display()
        .to_string()
}

/// A JSONL store of `n` flat records (about 150 bytes each), distinct ids.
fn big_store(path: &Path, n: usize) {
    let mut f = std::io::BufWriter::new(File::create(path).unwrap());
    for i in 0..n {
        writeln!(
            f,
            r#"{{"record_id": "R-{i}", "valid_from": "2025-01-01", "valid_to": null, "source": "S-{}", "concept_owner": "finance", "value": "{}"}}"#,
            i % 97,
            "v".repeat(60)
        )
        .unwrap();
    }
}

fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Names of the temporary files an atomic write leaves while it is in progress.
fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".vercy-tmp"))
        .collect()
}

// ---- closed pipes -------------------------------------------------------------------------

/// `vercy ARGS | head -1` in a shell with pipefail: vercy's own exit status, and its stderr.
fn piped_to_head(dir: &Path, args: &[&str]) -> (i32, String) {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let script = format!(
        "set -o pipefail; \"$VERCY\" {} 2>\"$ERR\" | head -1 >/dev/null",
        quoted.join(" ")
    );
    let err = dir.join("stderr.txt");
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("VERCY", vercy_bin())
        .env("ERR", &err)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = std::fs::read_to_string(&err).unwrap_or_default();
    (out.status.code().unwrap_or(-1), stderr)
}

#[test]
fn piping_a_big_output_into_head_ends_quietly_with_0() {
    let dir = tempfile::tempdir().unwrap();
    // 20,000 records: far more output than a pipe holds, so vercy meets the closed pipe
    big_store(&dir.path().join("big.jsonl"), 20_000);
    // check prints about 500 bytes a store: 200 stores are more than a pipe holds
    let reference = fixture("reference-store.jsonl");
    let many_checks: Vec<&str> = std::iter::once("check")
        .chain(std::iter::repeat_n(reference.as_str(), 200))
        .collect();
    let cases: Vec<Vec<&str>> = vec![
        vec!["compact", "big.jsonl"],
        vec!["export", "big.jsonl", "--to", "jsonl"],
        vec!["export", "big.jsonl", "--to", "json"],
        vec!["export", "big.jsonl", "--to", "engrama"],
        vec!["recency", "big.jsonl", "--as-of", "2026-01-01"],
        many_checks,
    ];
    for args in cases {
        let (code, stderr) = piped_to_head(dir.path(), &args);
        assert_eq!(
            code,
            0,
            "vercy {} | head -1: exit {code}\n{stderr}",
            args.join(" ")
        );
        assert_eq!(
            stderr,
            "",
            "vercy {} | head -1 said something",
            args.join(" ")
        );
    }
}

/// stdout closed before vercy writes a byte: every command that prints ends as it would have,
/// with nothing on stderr.
#[test]
fn a_stdout_closed_from_the_start_is_not_an_error() {
    let store = fixture("reference-store.jsonl");
    let cases: Vec<Vec<&str>> = vec![
        vec!["check", &store],
        vec!["check", &store, "--format", "sarif"],
        vec!["compact", &store],
        vec!["export", &store, "--to", "engrama"],
        vec!["recency", &store, "--as-of", "2026-01-01"],
        vec!["status"],
        vec!["profile"],
        vec!["map"],
        vec!["completions", "bash"],
        vec!["--help"],
    ];
    for args in cases {
        let mut child = vercy(Path::new(env!("CARGO_MANIFEST_DIR")))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader goes away before the first write
        let out = child.wait_with_output().unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(out.status.code(), Some(0), "vercy {args:?}: {stderr}");
        assert_eq!(stderr, "", "vercy {args:?} said something");
    }
}

// ---- full disk ----------------------------------------------------------------------------

#[test]
fn stdout_on_a_full_device_is_exit_2_with_a_diagnostic() {
    let full = Path::new("/dev/full").exists().then_some(());
    if common::needs(full, "/dev/full", "a Linux system has it").is_none() {
        return;
    }
    let store = fixture("reference-store.jsonl");
    let cases: Vec<Vec<&str>> = vec![
        vec!["check", &store],
        vec!["compact", &store],
        vec!["export", &store, "--to", "json"],
        vec!["recency", &store, "--as-of", "2026-01-01"],
        vec!["status"],
        vec!["profile"],
        vec!["completions", "zsh"],
    ];
    for args in cases {
        let full = File::options().write(true).open("/dev/full").unwrap();
        let out = vercy(Path::new(env!("CARGO_MANIFEST_DIR")))
            .args(&args)
            .stdout(full)
            .output()
            .unwrap();
        let stderr = stderr_of(&out);
        assert_eq!(
            out.status.code(),
            Some(2),
            "vercy {args:?} > /dev/full: {stderr}"
        );
        assert!(
            stderr.contains("<stdout>: cannot write") && stderr.contains("space"),
            "vercy {args:?} > /dev/full: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// A file written on a filesystem that fills up: the command fails with exit 2 and the old
/// file is untouched, with no temporary file left. Needs a small tmpfs, so it runs only as
/// root with `unshare` (a private mount namespace, gone when the shell ends).
#[test]
fn a_full_disk_is_an_error_not_a_torn_file() {
    if common::root_user("to mount a small tmpfs").is_none() {
        return;
    }
    let Some(unshare) = common::program("unshare") else {
        return;
    };
    let can_mount = Command::new(&unshare)
        .args(["-m", "--propagation", "private", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    let how = "run the tests where root may unshare, not in a restricted container";
    if common::needs(can_mount.then_some(()), "a mount namespace of its own", how).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    big_store(&dir.path().join("big.jsonl"), 5_000); // about 750 KB of output
    let old = "{\"record_id\": \"old-1\", \"valid_from\": \"2020-01-01\", \"valid_to\": null}\n";
    std::fs::write(dir.path().join("old.jsonl"), old).unwrap();
    let writes = [
        "\"$VERCY\" export big.jsonl --to jsonl -o small/out.jsonl",
        "\"$VERCY\" compact big.jsonl -o small/out.jsonl",
        "\"$VERCY\" import big.jsonl --into small/out.jsonl",
    ];
    for write in writes {
        let script = format!(
            "mkdir -p small && mount -t tmpfs -o size=256k tmpfs small && cp old.jsonl small/out.jsonl \
             && {write}; echo \"exit=$?\"; cat small/out.jsonl; ls -a small"
        );
        let out = Command::new(&unshare)
            .args(["-m", "--propagation", "private", "sh", "-c", &script])
            .current_dir(dir.path())
            .env("VERCY", vercy_bin())
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = stderr_of(&out);
        assert!(stdout.contains("exit=2"), "{write}: {stdout}\n{stderr}");
        assert!(
            stderr.contains("small/out.jsonl: cannot write") && stderr.contains("space"),
            "{write}: {stderr}"
        );
        assert!(
            stdout.contains(old),
            "{write}: the old file changed:\n{stdout}"
        );
        assert!(
            !stdout.contains(".vercy-tmp"),
            "{write}: a temporary file is left:\n{stdout}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

// ---- Ctrl-C and kill during an import -----------------------------------------------------

const IMPORT: [&str; 4] = ["import", "dump.jsonl", "--into", "store.jsonl"];
const EXPORT: [&str; 6] = ["export", "dump.jsonl", "--to", "json", "-o", "store.jsonl"];
const COMPACT: [&str; 4] = ["compact", "dump.jsonl", "-o", "store.jsonl"];

/// Start `vercy import dump --into store`, wait until `when` says so, send `signal`, and
/// return the exit status. `None` when the import finished before the moment came.
fn import_and_signal(
    dir: &Path,
    signal: i32,
    when: &dyn Fn(&Path, Duration) -> bool,
) -> Option<std::process::ExitStatus> {
    run_and_signal(dir, &IMPORT, signal, when)
}

/// Start `vercy ARGS` (which writes store.jsonl), wait until `when` says so, send `signal`.
fn run_and_signal(
    dir: &Path,
    args: &[&str],
    signal: i32,
    when: &dyn Fn(&Path, Duration) -> bool,
) -> Option<std::process::ExitStatus> {
    let mut child = vercy(dir)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        if when(dir, start.elapsed()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    // SAFETY: kill on our own child's pid.
    unsafe { libc::kill(child.id() as i32, signal) };
    Some(child.wait().unwrap())
}

const OLD_STORE: &str =
    "{\"record_id\": \"old-1\", \"valid_from\": \"2020-01-01\", \"valid_to\": null}\n";

fn import_setup(records: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    big_store(&dir.path().join("dump.jsonl"), records);
    std::fs::write(dir.path().join("store.jsonl"), OLD_STORE).unwrap();
    dir
}

/// 130, whether vercy's handler ended it (exit 130) or the signal did before the handler was
/// installed (a shell reports 128 + 2 = 130 either way).
fn is_130(status: std::process::ExitStatus) -> bool {
    use std::os::unix::process::ExitStatusExt;
    status.code() == Some(130) || status.signal() == Some(libc::SIGINT)
}

fn interrupt_while_writing(signal: i32) {
    interrupt_while_writing_with(&IMPORT, signal)
}

fn interrupt_while_writing_with(args: &[&str], signal: i32) {
    let when_writing = |dir: &Path, _: Duration| !temp_files(dir).is_empty();
    let mut records = 100_000;
    for _attempt in 0..4 {
        let dir = import_setup(records);
        let Some(status) = run_and_signal(dir.path(), args, signal, &when_writing) else {
            records *= 2; // the write came and went between two looks: a bigger dump
            continue;
        };
        if status.success() {
            records *= 2; // the signal arrived after the rename
            continue;
        }
        assert_eq!(
            status.code(),
            Some(130),
            "signal {signal} while writing: {status:?}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("store.jsonl")).unwrap(),
            OLD_STORE
        );
        assert_eq!(
            temp_files(dir.path()),
            Vec::<String>::new(),
            "temporary file left"
        );
        return;
    }
    panic!("never caught the import while it was writing");
}

#[test]
fn ctrl_c_while_the_import_writes_ends_130_and_leaves_no_temporary_file() {
    interrupt_while_writing(libc::SIGINT);
}

#[test]
fn a_kill_while_the_import_writes_leaves_the_store_whole_and_no_temporary_file() {
    interrupt_while_writing(libc::SIGTERM);
}

#[test]
fn ctrl_c_while_export_or_compact_writes_a_file_leaves_the_old_file_and_no_temporary_file() {
    interrupt_while_writing_with(&EXPORT, libc::SIGINT);
    interrupt_while_writing_with(&COMPACT, libc::SIGINT);
}

#[test]
fn ctrl_c_while_the_import_reads_ends_130_and_changes_nothing() {
    // the dump comes on stdin and half of it is held back, so the import is surely still
    // reading when Ctrl-C comes, however fast the machine
    let dir = import_setup(2_000);
    let dump = std::fs::read(dir.path().join("dump.jsonl")).unwrap();
    let mut child = vercy(dir.path())
        .args(["import", "-", "--into", "store.jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&dump[..dump.len() / 2]).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the import ended without its input"
    );
    // SAFETY: kill on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    drop(stdin);
    assert!(is_130(status), "{status:?}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("store.jsonl")).unwrap(),
        OLD_STORE
    );
    assert_eq!(temp_files(dir.path()), Vec::<String>::new());
}

#[test]
fn sigkill_while_the_import_writes_leaves_the_old_store_whole() {
    let when_writing = |dir: &Path, _: Duration| !temp_files(dir).is_empty();
    let dir = import_setup(50_000);
    if let Some(status) = import_and_signal(dir.path(), libc::SIGKILL, &when_writing) {
        assert!(!status.success());
        // nothing can clean up after SIGKILL: the temporary file may stay, the store is whole
        assert_eq!(
            std::fs::read_to_string(dir.path().join("store.jsonl")).unwrap(),
            OLD_STORE
        );
    }
}
