//! stderr into a closed pipe (`(sleep .2; vercy import b --into s) 2>&1 | true`): every
//! command ends with the exit code it has when its stderr is read, never a panic (101). A
//! notice or a diagnostic nobody reads is dropped; the work and its exit code stay.

use std::fs::File;
use std::io::Write;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn vercy(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("vercy"));
    cmd.current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("ENGRAMA_RECENCY_HALF_LIFE");
    cmd
}

/// A pipe whose read end is already closed: every write to the other end fails with EPIPE.
fn closed_pipe() -> OwnedFd {
    let mut fds = [0; 2];
    // close-on-exec, so a vercy started meanwhile by another test in this binary cannot inherit
    // the read end and keep the pipe open (the write end is dup'ed onto the child's stderr,
    // which clears the flag there)
    #[cfg(target_os = "linux")]
    // SAFETY: `fds` has room for the two descriptors pipe2(2) writes.
    let made = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    #[cfg(not(target_os = "linux"))]
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    let made = unsafe { libc::pipe(fds.as_mut_ptr()) };
    assert_eq!(made, 0);
    // SAFETY: both descriptors were just created and are owned here alone.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    write
}

fn run(dir: &Path, args: &[&str], stdin: &[u8], stderr: Stdio, stdout: Stdio) -> Output {
    let mut child = vercy(dir, args)
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .expect("vercy starts");
    let mut input = child.stdin.take().unwrap();
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("vercy ends")
}

struct Case {
    args: &'static [&'static str],
    stdin: &'static [u8],
    /// The exit code with a readable stderr, and that the run writes something there.
    code: i32,
    notices: bool,
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

fn setup(dir: &Path) {
    std::fs::copy(fixture("reference-store.jsonl"), dir.join("store.jsonl")).unwrap();
    let mut f = File::create(dir.join("dump.jsonl")).unwrap();
    writeln!(f, r#"{{"record_id": "N-1", "value": "new"}}"#).unwrap();
    // a record whose timestamp is no date: recency notices it as unknown
    let mut f = File::create(dir.join("undated.jsonl")).unwrap();
    writeln!(f, r#"{{"record_id": "U-1", "updated_at": "zz"}}"#).unwrap();
}

const PING: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nnot json\n";

fn cases() -> Vec<Case> {
    let c = |args, code, notices| Case {
        args,
        stdin: b"",
        code,
        notices,
    };
    vec![
        c(&["check", "store.jsonl"], 0, false),
        c(&["check", "missing.jsonl"], 2, true),
        c(&["check", "--bogus-flag"], 2, true),
        c(&["compact", "store.jsonl", "--stats"], 0, true),
        c(&["compact", "missing.jsonl"], 2, true),
        c(
            &["export", "store.jsonl", "--to", "jsonl", "--label", "X"],
            0,
            true,
        ),
        c(&["export", "missing.jsonl"], 2, true),
        c(&["import", "dump.jsonl", "--into", "into.jsonl"], 0, true),
        c(
            &["import", "missing.jsonl", "--into", "into.jsonl"],
            2,
            true,
        ),
        c(&["recency", "undated.jsonl"], 0, true),
        c(&["recency", "missing.jsonl"], 2, true),
        c(&["decay", "store.jsonl"], 0, true),
        c(&["decay", "missing.jsonl"], 0, true),
        c(&["status"], 0, false),
        c(&["status", "--format", "nonsense"], 2, true),
        Case {
            args: &["mcp"],
            stdin: PING,
            code: 0,
            notices: false,
        },
        c(&["mcp", "--bogus-flag"], 2, true),
    ]
}

#[test]
fn every_command_keeps_its_exit_code_when_stderr_is_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    for case in cases() {
        let open = run(
            dir.path(),
            case.args,
            case.stdin,
            Stdio::piped(),
            Stdio::null(),
        );
        assert_eq!(
            open.status.code(),
            Some(case.code),
            "{:?} with a readable stderr: {}",
            case.args,
            String::from_utf8_lossy(&open.stderr)
        );
        assert_eq!(
            !open.stderr.is_empty(),
            case.notices,
            "{:?}: {}",
            case.args,
            String::from_utf8_lossy(&open.stderr)
        );
        let _ = std::fs::remove_file(dir.path().join("into.jsonl"));
        let closed = run(
            dir.path(),
            case.args,
            case.stdin,
            Stdio::from(closed_pipe()),
            Stdio::null(),
        );
        assert_eq!(
            closed.status.code(),
            Some(case.code),
            "{:?} with stderr into a closed pipe",
            case.args
        );
        let _ = std::fs::remove_file(dir.path().join("into.jsonl"));
    }
}

#[test]
fn stdout_and_stderr_into_one_closed_pipe_is_not_a_panic() {
    // `2>&1 | true`: both streams go to a reader that is gone
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    for case in cases() {
        let pipe = closed_pipe();
        let out = run(
            dir.path(),
            case.args,
            case.stdin,
            Stdio::from(pipe.try_clone().unwrap()),
            Stdio::from(pipe),
        );
        assert_eq!(out.status.code(), Some(case.code), "{:?}", case.args);
        let _ = std::fs::remove_file(dir.path().join("into.jsonl"));
    }
}

#[test]
fn the_import_still_happens_when_its_summary_cannot_be_shown() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let out = run(
        dir.path(),
        &["import", "dump.jsonl", "--into", "into.jsonl"],
        b"",
        Stdio::from(closed_pipe()),
        Stdio::null(),
    );
    assert_eq!(out.status.code(), Some(0));
    let store = std::fs::read_to_string(dir.path().join("into.jsonl")).unwrap();
    assert!(store.contains("\"N-1\""), "{store}");
}

#[test]
fn progress_bars_into_a_closed_pipe_are_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    for args in [
        &["--progress", "always", "check", "store.jsonl"][..],
        &[
            "--progress",
            "always",
            "import",
            "dump.jsonl",
            "--into",
            "into.jsonl",
        ][..],
    ] {
        let out = run(
            dir.path(),
            args,
            b"",
            Stdio::from(closed_pipe()),
            Stdio::null(),
        );
        assert_eq!(out.status.code(), Some(0), "{args:?}");
    }
}
