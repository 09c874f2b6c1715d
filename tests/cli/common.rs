//! Helpers shared by the CLI tests.
#![allow(dead_code)]

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// `vercy` with a clean environment for reproducible output (no colour, no progress).
pub fn vercy() -> Command {
    let mut cmd = Command::cargo_bin("vercy").expect("the vercy binary builds");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("ENGRAMA_RECENCY_HALF_LIFE")
        .env_remove("ENGRAMA_RECENCY_INSIGHT_HALF_LIFE")
        .env_remove("ENGRAMA_RECENCY_DEGREE");
    cmd
}

pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

/// Compare `actual` with `tests/snapshots/NAME`; `VERCY_UPDATE_SNAPSHOTS=1` rewrites it.
pub fn snapshot(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(name);
    if std::env::var_os("VERCY_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, actual).expect("write snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path).expect("read snapshot");
    assert_eq!(
        expected, actual,
        "snapshot {name} differs (VERCY_UPDATE_SNAPSHOTS=1 to accept the new output)"
    );
}

pub fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

pub fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("stderr is UTF-8")
}

pub fn json_of(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// Run `vercy` with `args` (a command that prints JSON), check it exits with `code`, and
/// return what it printed.
pub fn report_of(args: &[&str], code: i32) -> serde_json::Value {
    let out = vercy().args(args).output().expect("vercy runs");
    assert_eq!(out.status.code(), Some(code), "{}", stderr_of(&out));
    json_of(&out)
}

/// Run git in `dir` with a name and no signing, as a test's own repository needs; panics when
/// git fails.
pub fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
