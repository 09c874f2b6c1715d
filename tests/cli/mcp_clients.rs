//! `vercy mcp` under the official MCP SDK clients: the Python `mcp` package (2.x) and the
//! TypeScript `@modelcontextprotocol/sdk` (1.32). Each script in tests/mcp-clients/ starts the
//! server, lists the tools, calls every tool listed with valid and bad arguments, and has its
//! SDK (and a JSON Schema validator besides) validate every answer against the tool's
//! `outputSchema`. .ci/ecosystem.sh installs both SDKs; where they are missing the tests say
//! so and pass, except in CI (CI=true), where they fail.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `tool` when it exists; otherwise None, or a failure in CI.
fn installed(tool: PathBuf, what: &str) -> Option<PathBuf> {
    if tool.exists() {
        return Some(tool);
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(
        !ci,
        "{what} is not installed ({}): run .ci/ecosystem.sh",
        tool.display()
    );
    eprintln!("skipped: {what} is not installed; .ci/ecosystem.sh installs it");
    None
}

fn run_client(mut cmd: Command, name: &str) {
    let out = cmd
        .arg(env!("CARGO_BIN_EXE_vercy"))
        .arg(root())
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("{name} does not start: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{name} failed ({:?}):\n{stdout}\n{stderr}",
        out.status
    );
    // the script's own tally: every call it made was counted
    let tally = stdout
        .lines()
        .find(|l| l.contains(" passed, 0 failed"))
        .unwrap_or_else(|| panic!("{name} printed no tally:\n{stdout}\n{stderr}"));
    let passed: usize = tally
        .split(": ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(passed >= 60, "{name}: only {passed} checks ran: {tally}");
    eprintln!("{tally}");
}

#[test]
fn the_python_sdk_client_lists_calls_and_validates_every_tool() {
    let venv = std::env::var_os("VERCY_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/eco-venv/bin/python"));
    let Some(python) = installed(venv, "the Python MCP SDK (target/eco-venv)") else {
        return;
    };
    let mut cmd = Command::new(python);
    cmd.arg(root().join("tests/mcp-clients/python_client.py"));
    run_client(cmd, "python_client.py");
}

#[test]
fn the_typescript_sdk_client_lists_calls_and_validates_every_tool() {
    let sdk = root().join("tests/mcp-clients/node_modules/@modelcontextprotocol/sdk/package.json");
    if installed(
        sdk,
        "the TypeScript MCP SDK (tests/mcp-clients/node_modules)",
    )
    .is_none()
    {
        return;
    }
    let mut cmd = Command::new("node");
    cmd.arg(root().join("tests/mcp-clients/ts_client.mjs"));
    run_client(cmd, "ts_client.mjs");
}
