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

/// Running under CI (`CI` set, and not `0` or `false`): what a test would skip locally is a
/// failure there.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// An external program a test drives: the path in the environment variable `env` when set,
/// else the first of `names` found on `PATH`. Missing, it says so loudly on stderr with how to
/// get it (`install`) and gives `None`; under CI that is a failure instead (`.ci/` installs
/// it).
pub fn program(env: &str, names: &[&str], install: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        let why = format!("none of {names:?} is on PATH and {env} is not set: {install}");
        assert!(!in_ci(), "CI: {why}");
        eprintln!("\n!!! NOT TESTED: {why}\n");
    }
    found
}
