//! `vercy mcp` under the official MCP SDK clients: the Python `mcp` package (2.x) and the
//! TypeScript `@modelcontextprotocol/sdk` (1.32). Each script in tests/mcp-clients/ starts the
//! server, lists the tools, calls every tool listed with valid and bad arguments, and has its
//! SDK (and a JSON Schema validator besides) validate every answer against the tool's
//! `outputSchema`. scripts/test installs both SDKs.

use crate::common;
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
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
    let Some(python) = common::mcp_python() else {
        return;
    };
    let mut cmd = Command::new(python);
    cmd.arg(root().join("tests/mcp-clients/python_client.py"));
    run_client(cmd, "python_client.py");
}

#[test]
fn the_typescript_sdk_client_lists_calls_and_validates_every_tool() {
    let Some(node) = common::mcp_node() else {
        return;
    };
    let mut cmd = Command::new(node);
    cmd.arg(root().join("tests/mcp-clients/ts_client.mjs"));
    run_client(cmd, "ts_client.mjs");
}
