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

// ---- what a test needs from outside the crate ----------------------------------------------

/// Whether nothing may be skipped (`VERCY_TEST_REQUIRE_ALL=1`, which .ci/run sets through
/// scripts/test): a missing program or service is then a failure, not a skip.
fn require_all() -> bool {
    std::env::var("VERCY_TEST_REQUIRE_ALL").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The one place a test learns that something outside the crate is missing. `found` is what
/// was looked up; when it is None, the test is skipped: a line `skipped: TEST: WHAT (HOW)`
/// goes to the terminal (past the test harness, which would keep a passing test's output to
/// itself) and the test returns early, or, when nothing may be skipped, it fails saying
/// what is missing.
pub fn needs<T>(found: Option<T>, what: &str, how: &str) -> Option<T> {
    if found.is_some() {
        return found;
    }
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    assert!(
        !require_all(),
        "VERCY_TEST_REQUIRE_ALL is set and {test} needs {what} ({how})"
    );
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {what} ({how})");
    None
}

/// What scripts/test provides says so.
const SCRIPT: &str = "run scripts/test";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// An executable file: `var` when set, else `default` under the checkout, when it is there.
fn installed(var: &str, default: &str) -> Option<PathBuf> {
    let path = std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join(default));
    path.is_file().then_some(path)
}

/// `program` on PATH.
fn on_path(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// A program the system provides (groff, jq, node, script, setpriv, unshare, python3), found
/// on PATH.
pub fn program(name: &str) -> Option<PathBuf> {
    needs(on_path(name), &format!("`{name}` on PATH"), SCRIPT)
}

/// The reference checker, vercy 0.2.0 from PyPI: VERCY_REFERENCE_BIN, or scripts/test's venv.
pub fn reference_checker() -> Option<PathBuf> {
    needs(
        installed("VERCY_REFERENCE_BIN", "target/ref-venv/bin/vercy"),
        "the reference checker (vercy 0.2.0 from PyPI)",
        SCRIPT,
    )
}

/// engrama 0.18.1 from PyPI: ENGRAMA_BIN, or scripts/test's venv.
pub fn engrama() -> Option<PathBuf> {
    needs(
        installed("ENGRAMA_BIN", "target/ref-venv/bin/engrama"),
        "engrama 0.18.1 from PyPI",
        SCRIPT,
    )
}

/// A Python with the official MCP SDK and jsonschema: VERCY_MCP_PYTHON, or scripts/test's venv.
pub fn mcp_python() -> Option<PathBuf> {
    needs(
        installed("VERCY_MCP_PYTHON", "target/mcp-venv/bin/python"),
        "the Python MCP SDK (mcp 2.x)",
        SCRIPT,
    )
}

/// node, with the official TypeScript MCP SDK installed in tests/mcp-clients/node_modules.
pub fn mcp_node() -> Option<PathBuf> {
    let sdk = root().join("tests/mcp-clients/node_modules/@modelcontextprotocol/sdk/package.json");
    let node = program("node")?;
    needs(
        sdk.is_file().then_some(node),
        "the TypeScript MCP SDK (tests/mcp-clients/node_modules)",
        SCRIPT,
    )
}

/// The folder of live stores scripts/test builds with the real engrama and LangGraph
/// (VERCY_TEST_LIVE_DIR).
pub fn live_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("VERCY_TEST_LIVE_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    needs(
        dir,
        "the live stores (VERCY_TEST_LIVE_DIR: engrama and LangGraph databases)",
        SCRIPT,
    )
}

/// The PostgreSQL server scripts/test starts: its URL and password (VERCY_TEST_PG_URL,
/// VERCY_TEST_PG_PASSWORD).
pub fn postgres() -> Option<(String, String)> {
    let var = |name| std::env::var(name).ok().filter(|v| !v.is_empty());
    let server = var("VERCY_TEST_PG_URL").zip(var("VERCY_TEST_PG_PASSWORD"));
    needs(
        server,
        "a PostgreSQL server (VERCY_TEST_PG_URL, VERCY_TEST_PG_PASSWORD)",
        SCRIPT,
    )
}

/// Whether this runs as root: some tests need to be (mknod, chown, running as another user,
/// mounting a small file system), and say so otherwise.
pub fn root_user(to: &str) -> Option<()> {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    needs(
        root.then_some(()),
        &format!("root, {to}"),
        "run the tests as root",
    )
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
