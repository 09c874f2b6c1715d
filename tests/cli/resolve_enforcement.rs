//! The enforcement contract's adversarial fixture (ENFORCEMENT-CONTRACT.md §6, plus our own
//! cases), run through every path a caller has: `vercy resolve` (JSON and human), `vercy
//! compact --reader`, and the MCP server's `resolve` tool.
//!
//! One directory per case under `fixtures/enforcement/`: `store.jsonl`, `host.yaml` (with its
//! write log `writes.jsonl`), `args` (the question, one argument per line), `expected.json`
//! (the exact `vercy-resolve/1` answer; `VERCY_UPDATE_SNAPSHOTS=1` rewrites it) and `withheld`
//! (the record ids withheld from the caller, one per line). For every withheld record, every
//! text it holds that no visible record holds is looked for in every output of the case, and
//! must not be there.

use crate::common;

use common::{stderr_of, stdout_of, vercy};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Case {
    name: String,
    dir: PathBuf,
    /// `fixtures/enforcement/NAME`, as the commands are given it.
    rel: String,
    args: Vec<String>,
    withheld: Vec<String>,
}

fn cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/enforcement");
    let mut cases: Vec<Case> = std::fs::read_dir(&root)
        .expect("fixtures/enforcement")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|dir| {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            let lines = |f: &str| -> Vec<String> {
                std::fs::read_to_string(dir.join(f))
                    .unwrap_or_default()
                    .lines()
                    .filter(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect()
            };
            Case {
                rel: format!("fixtures/enforcement/{name}"),
                args: lines("args"),
                withheld: lines("withheld"),
                name,
                dir,
            }
        })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(cases.len() >= 20, "the fixture holds every case");
    cases
}

impl Case {
    fn arg(&self, flag: &str) -> Option<&str> {
        let i = self.args.iter().position(|a| a == flag)?;
        self.args.get(i + 1).map(String::as_str)
    }

    fn all(&self, flag: &str) -> Vec<&str> {
        self.args
            .windows(2)
            .filter(|w| w[0] == flag)
            .map(|w| w[1].as_str())
            .collect()
    }

    fn resolve(&self, format: &str) -> std::process::Output {
        self.resolve_with(format, &[])
    }

    fn resolve_with(&self, format: &str, extra: &[&str]) -> std::process::Output {
        vercy()
            .arg("resolve")
            .arg(format!("{}/store.jsonl", self.rel))
            .args(&self.args)
            .args([
                "--host",
                &format!("{}/host.yaml", self.rel),
                "--format",
                format,
            ])
            .args(extra)
            .output()
            .unwrap()
    }

    /// Every text of each withheld record that no visible record of the store holds.
    fn secrets(&self) -> Vec<String> {
        let store = std::fs::read_to_string(self.dir.join("store.jsonl")).unwrap();
        let records: Vec<Value> = store
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let id_of = |r: &Value| {
            r.get("record_id")
                .or(r.get("uuid"))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let (hidden, shown): (Vec<&Value>, Vec<&Value>) = records
            .iter()
            .partition(|r| id_of(r).is_some_and(|id| self.withheld.contains(&id)));
        assert_eq!(
            hidden.len(),
            self.withheld.len(),
            "{}: every withheld id is a record",
            self.name
        );
        let mut visible = Vec::new();
        for r in &shown {
            let mut r = (*r).clone();
            // a visible record's pointer to a withheld one is not the visible record's text
            r.as_object_mut().unwrap().remove("supersedes");
            leaves(&r, &mut visible);
        }
        visible.extend(self.args.iter().cloned());
        let mut secrets = Vec::new();
        for r in hidden {
            let mut texts = Vec::new();
            leaves(r, &mut texts);
            secrets.extend(texts.into_iter().filter(|t| !visible.contains(t)));
            secrets.push(id_of(r).unwrap());
        }
        secrets.sort();
        secrets.dedup();
        secrets
    }
}

fn leaves(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Number(n) => out.push(n.to_string()),
        Value::Array(items) => items.iter().for_each(|i| leaves(i, out)),
        Value::Object(m) => m.values().for_each(|i| leaves(i, out)),
        _ => {}
    }
}

/// `needle` occurs in `hay` as a whole word (an id `L-2` is not found inside `L-20`).
fn contains_word(hay: &str, needle: &str) -> bool {
    let part = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    hay.match_indices(needle).any(|(i, _)| {
        let before = hay[..i].chars().next_back();
        let after = hay[i + needle.len()..].chars().next();
        !before.is_some_and(part) && !after.is_some_and(part)
    })
}

fn assert_no_leak(case: &Case, path: &str, output: &str) {
    for secret in case.secrets() {
        assert!(
            !contains_word(output, &secret),
            "{}: {path} shows {secret:?}, from a withheld record:\n{output}",
            case.name
        );
    }
}

#[test]
fn every_case_answers_exactly_as_expected() {
    for case in cases() {
        let out = case.resolve("json");
        let got: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{}: {}", case.name, stderr_of(&out)));
        let expected_path = case.dir.join("expected.json");
        if std::env::var_os("VERCY_UPDATE_SNAPSHOTS").is_some() {
            std::fs::write(
                &expected_path,
                serde_json::to_string_pretty(&got).unwrap() + "\n",
            )
            .unwrap();
        }
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(&expected_path).unwrap())
                .unwrap_or_else(|e| panic!("{}: expected.json: {e}", case.name));
        assert_eq!(got, expected, "{}", case.name);
        let code = if expected["outcome"] == "answered" {
            0
        } else {
            1
        };
        assert_eq!(out.status.code(), Some(code), "{}", case.name);
        assert_eq!(
            expected["withheld"].as_u64().unwrap() as usize,
            case.withheld.len(),
            "{}: the withheld file lists every withheld record",
            case.name
        );
    }
}

#[test]
fn the_contract_cases_have_their_outcome_and_reasons() {
    let answer = |name: &str| -> Value {
        let case = cases().into_iter().find(|c| c.name == name).unwrap();
        serde_json::from_slice(&case.resolve("json").stdout).unwrap()
    };
    let codes = |a: &Value| -> Vec<String> {
        a["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["code"].as_str().unwrap().to_string())
            .collect()
    };
    let a = answer("forged-authority");
    assert_eq!(
        (a["outcome"].as_str(), a["answer"]["record_id"].as_str()),
        (Some("answered"), Some("L-1"))
    );
    assert!(codes(&a).contains(&"unauthorized_precedence".into()));
    let a = answer("forged-supersession");
    assert_eq!(a["answer"]["record_id"], "L-1");
    assert!(codes(&a).contains(&"unauthorized_supersession".into()));
    for name in [
        "unauthorized-retrieval",
        "no-fallback",
        "hidden-side-of-conflict",
        "fail-closed-default",
    ] {
        let a = answer(name);
        assert_eq!(a["outcome"], "refused", "{name}");
        assert_eq!(a["answer"], Value::Null, "{name}");
    }
    let a = answer("unresolved-conflict");
    assert_eq!(a["outcome"], "abstained");
    assert_eq!(
        a["reasons"][0],
        json!({"code": "conflict_unresolved", "records": ["L-1", "L-2"]})
    );
    let a = answer("expired-truth");
    assert_eq!(a["answer"]["record_id"], "L-2");
    assert_eq!(
        a["reasons"][0],
        json!({"code": "expired", "records": ["L-1"]})
    );
    assert_eq!(answer("laundered-fact")["answer"]["record_id"], "L-1");
    assert_eq!(answer("empty")["outcome"], "empty");
}

#[test]
fn no_withheld_text_crosses_any_path() {
    let mut looked = 0;
    for case in cases() {
        let secrets = case.secrets();
        assert_eq!(
            case.withheld.is_empty(),
            secrets.is_empty(),
            "{}",
            case.name
        );
        looked += secrets.len();
        for format in ["json", "human", "html"] {
            for extra in [&[][..], &["--explain"][..]] {
                let out = case.resolve_with(format, extra);
                let asked = format!("resolve --format {format} {}", extra.join(" "));
                assert_no_leak(&case, &format!("{asked} (stdout)"), &stdout_of(&out));
                assert_no_leak(&case, &format!("{asked} (stderr)"), &stderr_of(&out));
            }
        }
        // compact --reader: the same store, selected for the same caller
        let mut compact = vercy();
        compact
            .arg("compact")
            .arg(format!("{}/store.jsonl", case.rel))
            .args(["--reader", case.arg("--caller").unwrap()]);
        for flag in ["--concept", "--as-of", "--known-at", "--map"] {
            if let Some(v) = case.arg(flag) {
                compact.args([flag, v]);
            }
        }
        let out = compact.output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            case.name,
            stderr_of(&out)
        );
        assert_no_leak(&case, "compact --reader (stdout)", &stdout_of(&out));
        assert_no_leak(&case, "compact --reader (stderr)", &stderr_of(&out));
        // the MCP server, started for this caller
        let replies = mcp(&case);
        assert_no_leak(&case, "mcp", &replies);
    }
    assert!(looked >= 10, "the withheld records have texts to look for");
}

/// Start `vercy mcp` for the case's caller, list the tools, ask the case's question, try every
/// other tool, and return every line it answered.
fn mcp(case: &Case) -> String {
    let mut args = vec![
        "mcp".to_string(),
        "--store".into(),
        format!("{}/store.jsonl", case.rel),
        "--host".into(),
        format!("{}/host.yaml", case.rel),
        "--caller".into(),
        case.arg("--caller").unwrap().into(),
    ];
    if let Some(map) = case.arg("--map") {
        args.extend(["--map".into(), map.into()]);
    }
    let mut arguments = json!({"concept": case.arg("--concept").unwrap()});
    for (flag, key) in [("--as-of", "as_of"), ("--known-at", "known_at")] {
        if let Some(v) = case.arg(flag) {
            arguments[key] = json!(v);
        }
    }
    let scope = case.all("--scope");
    if !scope.is_empty() {
        arguments["scope"] = json!(scope);
    }
    let mut explained = arguments.clone();
    explained["explain"] = json!(true);
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "resolve", "arguments": arguments}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "compact_records", "arguments": {"records": "", "reader": "finance"}}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "check_records", "arguments": {"records": []}}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "resolve", "arguments": {"concept": "retention", "as_of": "2000-01-01"}}}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "resolve", "arguments": explained}}),
    ];
    let replies = serve(&args, &requests);
    let answer: Value = serde_json::from_str(replies.lines().nth(2).unwrap()).unwrap();
    let structured = &answer["result"]["structuredContent"];
    let cli: Value = serde_json::from_slice(&case.resolve("json").stdout).unwrap();
    assert_eq!(
        structured, &cli,
        "{}: the tool answers as the CLI does",
        case.name
    );
    let text: Value =
        serde_json::from_str(answer["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        &text, structured,
        "{}: the text is the structured answer",
        case.name
    );
    vercy::mcp::schema::validate(
        structured,
        &vercy::mcp::tools::resolve::output_schema(),
        "answer",
    )
    .unwrap_or_else(|e| panic!("{}: the answer fits its output schema: {e}", case.name));
    // explain: true answers as `resolve --format json --explain` does, and fits the schema
    let explained: Value = serde_json::from_str(replies.lines().nth(6).unwrap()).unwrap();
    let explained = &explained["result"]["structuredContent"];
    let cli: Value =
        serde_json::from_slice(&case.resolve_with("json", &["--explain"]).stdout).unwrap();
    assert_eq!(explained, &cli, "{}: explain as the CLI", case.name);
    assert!(explained["records"].is_array(), "{}", case.name);
    vercy::mcp::schema::validate(
        explained,
        &vercy::mcp::tools::resolve::output_schema(),
        "answer",
    )
    .unwrap_or_else(|e| panic!("{}: the explained answer fits its schema: {e}", case.name));
    replies
}

fn serve(args: &[String], requests: &[Value]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vercy"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap()
}

#[test]
fn a_caller_argument_is_refused_and_the_tool_needs_a_host() {
    let case = cases()
        .into_iter()
        .find(|c| c.name == "unauthorized-retrieval")
        .unwrap();
    let args: Vec<String> = [
        "mcp",
        "--store",
        &format!("{}/store.jsonl", case.rel),
        "--host",
        &format!("{}/host.yaml", case.rel),
        "--caller",
        "finance",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let replies = serve(
        &args,
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "resolve",
            "arguments": {"concept": "retention", "as_of": "2026-07-01", "caller": "legal"}}}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "resolve",
            "arguments": {"concept": "retention", "store": "/etc/passwd"}}}),
        ],
    );
    let lines: Vec<Value> = replies
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let tool = lines[0]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "resolve")
        .unwrap()
        .clone();
    let schema = &tool["inputSchema"];
    for key in ["anyOf", "oneOf", "allOf"] {
        assert!(schema.get(key).is_none());
    }
    for (name, p) in schema["properties"].as_object().unwrap() {
        assert!(p["type"].is_string(), "{name} has one type");
    }
    for reply in &lines[1..] {
        assert_eq!(reply["result"]["isError"], true, "{reply}");
        // an error is text only: no structured outcome a client could mistake for an answer
        assert!(
            reply["result"].get("structuredContent").is_none(),
            "{reply}"
        );
    }
    assert_no_leak(&case, "mcp caller argument", &replies);
    // without --host the tool is not offered
    let plain = serve(
        &["mcp".to_string()],
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})],
    );
    let list: Value = serde_json::from_str(plain.lines().next().unwrap()).unwrap();
    assert!(list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["name"] != "resolve"));
    let call = serve(
        &["mcp".to_string()],
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "resolve", "arguments": {"concept": "retention"}}})],
    );
    assert!(call.contains("\"error\""), "{call}");
}

#[test]
fn export_is_the_operator_s_copy_and_no_caller_path() {
    // export has no reader: it writes every record, withheld or not (it is how an operator
    // moves a store). No caller reaches it: the MCP server offers no export tool.
    let case = cases()
        .into_iter()
        .find(|c| c.name == "unauthorized-retrieval")
        .unwrap();
    let out = vercy()
        .args(["export", &format!("{}/store.jsonl", case.rel)])
        .output()
        .unwrap();
    assert!(stdout_of(&out).contains("LEG-HOLD-77"));
    let list = serve(
        &["mcp".to_string()],
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})],
    );
    assert!(!list.to_lowercase().contains("\"name\":\"export"), "{list}");
}
