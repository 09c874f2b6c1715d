//! `vercy mcp` driven over stdio by a scripted client: the handshake, every tool, agreement
//! with the CLI, and the JSON-RPC errors a malformed request must get.

use crate::common;
use common::*;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(30);

/// A running `vercy mcp` and its output lines.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: i64,
}

impl Server {
    fn start() -> Server {
        Server::start_with(&[])
    }

    /// `vercy mcp ARGS…`
    fn start_with(args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_vercy"))
            .arg("mcp")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("vercy mcp starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Server {
            child,
            stdin,
            lines,
            next_id: 100,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn recv(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(TIMEOUT)
            .expect("the server answers within the timeout");
        assert!(!line.contains('\n'));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Send a request and return the whole answer (checking it carries the request's id).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        let reply = self.recv();
        assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }

    /// Call a tool; return the `tools/call` result (panics on a JSON-RPC error).
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let reply = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(reply.get("error").is_none(), "{tool}: {reply}");
        reply["result"].clone()
    }

    /// Call a tool that must succeed; return its structured content (checking the text agrees).
    fn ok(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments);
        assert_eq!(result["isError"], false, "{tool}: {result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert_eq!(result["content"][0]["type"], "text");
        assert_eq!(result["content"].as_array().unwrap().len(), 1);
        // the text is the structured content serialised, for clients that read only text
        let parsed: Value = serde_json::from_str(text).expect("the text is JSON");
        assert_eq!(
            parsed, result["structuredContent"],
            "{tool}: text and structure differ"
        );
        result["structuredContent"].clone()
    }

    /// The JSON-RPC error code a tool call gets.
    fn call_error(&mut self, tool: &str, arguments: Value) -> (i64, String) {
        let reply = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let error = &reply["error"];
        assert!(reply.get("result").is_none(), "{reply}");
        (
            error["code"].as_i64().unwrap(),
            error["message"].as_str().unwrap().to_string(),
        )
    }

    /// Close stdin and wait: the exit status and whatever was still printed.
    fn finish(mut self) -> (ExitStatus, Vec<String>, String) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        let rest: Vec<String> = self.lines.iter().collect();
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut self.child.stderr.take().unwrap(), &mut stderr).unwrap();
        (status, rest, stderr)
    }
}

/// Feed `input` to `vercy mcp` in one go; the answers and the exit status.
fn exchange(input: &str) -> (Vec<Value>, ExitStatus) {
    let mut server = Server::start();
    server
        .stdin
        .as_mut()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let (status, lines, _) = server.finish();
    let replies = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    (replies, status)
}

fn initialized() -> Server {
    initialized_with("2025-06-18")
}

/// A server whose client asked for protocol `version`.
fn initialized_with(version: &str) -> Server {
    let mut server = Server::start();
    let reply = server.request(
        "initialize",
        json!({"protocolVersion": version, "capabilities": {},
               "clientInfo": {"name": "scripted-test-client", "version": "1"}}),
    );
    assert_eq!(reply["result"]["protocolVersion"], version);
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    server
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(fixture(rel)).unwrap()
}

// ---------------------------------------------------------------------------------------------
// the protocol

#[test]
fn handshake_then_ping_and_eof_ends_with_exit_0() {
    let mut server = Server::start();
    let reply = server.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "t", "version": "0"}}),
    );
    let result = &reply["result"];
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert!(result["capabilities"]["tools"].is_object(), "{result}");
    assert_eq!(result["serverInfo"]["name"], "vercy");
    assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    // the notification gets no answer: the next line out is the ping's
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let pong = server.request("ping", json!({}));
    assert_eq!(pong["result"], json!({}));
    let (status, rest, stderr) = server.finish();
    assert_eq!(status.code(), Some(0));
    assert!(rest.is_empty(), "{rest:?}");
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn an_older_protocol_version_is_accepted_and_an_unknown_one_gets_ours() {
    let mut server = Server::start();
    let r = server.request(
        "initialize",
        json!({"protocolVersion": "2025-03-26", "capabilities": {}}),
    );
    assert_eq!(r["result"]["protocolVersion"], "2025-03-26");
    let r = server.request(
        "initialize",
        json!({"protocolVersion": "1999-01-01", "capabilities": {}}),
    );
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    for version in ["2025-11-25", "2025-06-18", "2024-11-05"] {
        let r = server.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": {}}),
        );
        assert_eq!(r["result"]["protocolVersion"], version);
    }
}

#[test]
fn tools_list_gives_every_tool_read_only_with_a_schema() {
    let mut server = initialized();
    let tools = server.request("tools/list", json!({}))["result"]["tools"].clone();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "check_records",
            "get_profile",
            "compact_records",
            "where_does_it_go"
        ]
    );
    for tool in tools.as_array().unwrap() {
        let name = &tool["name"];
        assert!(tool["description"].as_str().unwrap().len() > 80, "{name}");
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
        assert_eq!(tool["inputSchema"]["additionalProperties"], false, "{name}");
        assert_eq!(tool["outputSchema"]["type"], "object", "{name}");
        assert!(tool["outputSchema"]["properties"].is_object(), "{name}");
        // Claude refuses a tool whose input schema combines schemas at its top
        for combinator in ["anyOf", "oneOf", "allOf", "not"] {
            assert!(
                tool["inputSchema"].get(combinator).is_none(),
                "{name}: a top-level {combinator}"
            );
        }
        // clients backed by Gemini refuse a `type` that is a list: one type per argument
        for (arg, spec) in tool["inputSchema"]["properties"].as_object().unwrap() {
            assert!(
                spec["type"].is_string(),
                "{name}.{arg} has no single type: {spec}"
            );
            assert_no_type_lists(spec, &format!("{name}.{arg}"));
        }
        let a = &tool["annotations"];
        assert_eq!(
            (
                &a["readOnlyHint"],
                &a["destructiveHint"],
                &a["idempotentHint"],
                &a["openWorldHint"]
            ),
            (&json!(true), &json!(false), &json!(true), &json!(false)),
            "{name}"
        );
    }
    let check = &tools[0]["inputSchema"];
    assert_eq!(check["required"], json!(["records"]));
    assert_eq!(check["properties"]["min_level"]["minimum"], 1);
    assert_eq!(check["properties"]["min_level"]["maximum"], 3);
}

/// No `type` anywhere inside `schema` is a list.
fn assert_no_type_lists(schema: &Value, at: &str) {
    match schema {
        Value::Object(m) => {
            if let Some(t) = m.get("type") {
                assert!(t.is_string(), "{at}: type {t}");
            }
            for (k, v) in m {
                assert_no_type_lists(v, &format!("{at}.{k}"));
            }
        }
        Value::Array(items) => items.iter().for_each(|v| assert_no_type_lists(v, at)),
        _ => {}
    }
}

#[test]
fn malformed_requests_get_the_right_json_rpc_errors_and_keep_their_id() {
    let mut server = initialized();
    let mut error_of = |line: &str| {
        server.send(line);
        let reply = server.recv();
        assert!(reply.get("result").is_none(), "{line}: {reply}");
        (
            reply["id"].clone(),
            reply["error"]["code"].as_i64().unwrap(),
        )
    };
    assert_eq!(error_of("{this is not json"), (Value::Null, -32700));
    assert_eq!(
        error_of(r#"{"jsonrpc":"2.0","id":1,"method":"ping""#),
        (Value::Null, -32700)
    );
    assert_eq!(error_of(r#"{"jsonrpc":"2.0","id":1}"#), (json!(1), -32600));
    assert_eq!(
        error_of(r#"{"jsonrpc":"2.0","id":"s-2","method":7}"#),
        (json!("s-2"), -32600)
    );
    assert_eq!(error_of(r#"{"id":3,"method":"ping"}"#), (json!(3), -32600));
    assert_eq!(
        error_of(r#"[{"jsonrpc":"2.0","id":4,"method":"ping"}]"#),
        (Value::Null, -32600)
    );
    assert_eq!(error_of(r#""ping""#), (Value::Null, -32600));
    assert_eq!(
        error_of(r#"{"jsonrpc":"2.0","id":5,"method":"resources/list"}"#),
        (json!(5), -32601)
    );
    assert_eq!(
        error_of(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[]}"#),
        (json!(6), -32602)
    );
    assert_eq!(
        error_of(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}"#),
        (json!(7), -32602)
    );
    assert_eq!(
        error_of(
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"check_records","arguments":"x"}}"#
        ),
        (json!(8), -32602)
    );
    // the server is still there
    assert_eq!(server.request("ping", json!({}))["result"], json!({}));
}

/// Tool calls whose arguments are wrong, and what each answer must name.
fn bad_argument_cases() -> Vec<(&'static str, Value, &'static str)> {
    let records = "{\"record_id\":\"a\",\"valid_from\":\"2026-01-01\",\"valid_to\":null}\n";
    let cases = vec![
        (
            "check_records",
            json!({"records": records, "min_level": 0}),
            "min_level",
        ),
        (
            "check_records",
            json!({"records": records, "min_level": 4}),
            "min_level",
        ),
        (
            "check_records",
            json!({"records": records, "min_level": "2"}),
            "min_level",
        ),
        (
            "check_records",
            json!({"records": records, "map": {"record_id": "uuid"}}),
            "`map` must be string",
        ),
        (
            "check_records",
            json!({"records": records, "map": "no_such_map"}),
            "no_such_map",
        ),
        ("check_records", json!({"records": 17}), "records"),
        (
            "check_records",
            json!({"records": [{"record_id": "a"}]}),
            "records",
        ),
        ("check_records", json!({}), "records"),
        (
            "check_records",
            json!({"records": records, "colour": "blue"}),
            "colour",
        ),
        ("get_profile", json!({"field": "no_such_field"}), "field"),
        ("where_does_it_go", json!({}), "field"),
        (
            "where_does_it_go",
            json!({"target": "spreadsheet"}),
            "target",
        ),
    ];
    cases
}

#[test]
fn bad_tool_arguments_are_invalid_params_before_2025_11_25() {
    let mut server = initialized();
    let mut cases = bad_argument_cases();
    cases.push(("no_such_tool", json!({}), "no_such_tool"));
    for (tool, args, named) in cases {
        let (code, message) = server.call_error(tool, args.clone());
        assert_eq!(code, -32602, "{tool} {args}: {message}");
        assert!(
            message.contains(named),
            "{tool} {args}: {message:?} should name {named}"
        );
    }
}

#[test]
fn bad_tool_arguments_are_error_results_the_model_reads_from_2025_11_25() {
    let mut server = initialized_with("2025-11-25");
    for (tool, args, named) in bad_argument_cases() {
        let result = server.call(tool, args.clone());
        assert_eq!(result["isError"], true, "{tool} {args}: {result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains(named),
            "{tool} {args}: {text:?} should name {named}"
        );
        assert!(result.get("structuredContent").is_none(), "{result}");
    }
    // an unknown tool is still a protocol error
    let (code, message) = server.call_error("no_such_tool", json!({}));
    assert_eq!(code, -32602, "{message}");
    // and a client that says nothing of its version gets the newest rules
    let mut bare = Server::start();
    let reply = bare.request(
        "tools/call",
        json!({"name": "check_records", "arguments": {"records": "", "min_level": 9}}),
    );
    assert_eq!(reply["result"]["isError"], true, "{reply}");
}

#[test]
fn notifications_get_no_answer_at_all() {
    let input = [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","method":"no/such/method"}"#,
        r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"get_profile"}}"#,
        r#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
        "",
        "   ",
    ]
    .join("\n");
    let (replies, status) = exchange(&(input + "\n"));
    assert!(replies.is_empty(), "{replies:?}");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn requests_in_one_stream_are_answered_in_order() {
    let input = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"get_profile","arguments":{"field":"source"}}}"#,
        "not json",
        r#"{"jsonrpc":"2.0","id":4,"method":"nope"}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"check_records","arguments":{"records":"{\"record_id\":\"a\",\"valid_from\":\"2026-01-01\",\"valid_to\":null}"}}}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#,
    ]
    .join("\r\n"); // CRLF line ends, and no newline after the last request
    let (replies, status) = exchange(&input);
    assert_eq!(status.code(), Some(0));
    let ids: Vec<Value> = replies.iter().map(|r| r["id"].clone()).collect();
    assert_eq!(
        ids,
        [
            json!(1),
            json!(2),
            json!("three"),
            Value::Null,
            json!(4),
            json!(5),
            json!(6)
        ]
    );
    assert_eq!(replies[2]["result"]["structuredContent"]["id"], "source");
    assert_eq!(replies[3]["error"]["code"], -32700);
    assert_eq!(replies[4]["error"]["code"], -32601);
    assert_eq!(replies[5]["result"]["structuredContent"]["level"], 1);
}

#[test]
fn eof_at_once_is_a_clean_exit() {
    let (replies, status) = exchange("");
    assert!(replies.is_empty());
    assert_eq!(status.code(), Some(0));
}

// ---------------------------------------------------------------------------------------------
// check_records

/// `vercy check --json -` on `text` with `cli_args`: the report, or None when the CLI could
/// not read the input (exit 2), with its stderr.
fn cli_check(text: &str, cli_args: &[String]) -> (Option<Value>, String) {
    let out = vercy()
        .args(["check", "--json", "-"])
        .args(cli_args)
        .write_stdin(text.as_bytes().to_vec())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    match out.status.code() {
        Some(2) => (None, stderr),
        Some(0 | 1) => (Some(serde_json::from_slice(&out.stdout).unwrap()), stderr),
        other => panic!("exit {other:?}: {stderr}"),
    }
}

/// The tool arguments that say what `cli_args` say; `None` for a flag the tool has no
/// argument for (that variant is not compared).
fn tool_args(text: &str, cli_args: &[String]) -> Option<Value> {
    let mut args = json!({"records": text});
    let mut maps: Vec<&str> = Vec::new();
    let mut it = cli_args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--map" => maps.push(it.next()?),
            "--min-level" => args["min_level"] = json!(it.next()?.parse::<u8>().ok()?),
            "--policy" => args["policy_outside_records"] = json!(true),
            "--strict" => args["strict"] = json!(true),
            _ => return None,
        }
    }
    if !maps.is_empty() {
        args["map"] = json!(maps.join(","));
    }
    Some(args)
}

fn without_store(mut report: Value) -> Value {
    report.as_object_mut().unwrap().remove("store");
    report
}

#[test]
fn check_records_gives_exactly_the_report_of_vercy_check_json() {
    let mut server = initialized();
    let mut compared = 0;
    let mut unreadable = 0;
    for dir in ["", "edge", "values", "quirks", "bad"] {
        let mut paths: Vec<_> = std::fs::read_dir(fixture(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.is_file()
                    && matches!(
                        p.extension().and_then(|e| e.to_str()),
                        Some("jsonl" | "json")
                    )
            })
            .collect();
        paths.sort();
        for path in paths {
            // records travel as a JSON string: only UTF-8 text can be sent
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let args_file = Path::new(&format!("{}.args", path.display())).to_path_buf();
            // the fixture as it is, each line of its .args, and --strict
            let mut variants: Vec<Vec<String>> = vec![vec![], vec!["--strict".into()]];
            if let Ok(lines) = std::fs::read_to_string(&args_file) {
                variants.extend(
                    lines
                        .lines()
                        .map(|l| l.split_whitespace().map(str::to_string).collect()),
                );
            }
            for cli_args in variants {
                let name = format!("{} {}", path.display(), cli_args.join(" "));
                let (expected, stderr) = cli_check(&text, &cli_args);
                let Some(arguments) = tool_args(&text, &cli_args) else {
                    continue;
                };
                // the full report is the one `vercy check --json` prints
                let mut arguments = arguments;
                arguments["detail"] = json!("full");
                let result = server.call("check_records", arguments);
                match expected {
                    Some(report) => {
                        assert_eq!(result["isError"], false, "{name}: {result}");
                        let got = &result["structuredContent"];
                        assert_eq!(got["store"], "<mcp>", "{name}");
                        assert_eq!(
                            without_store(got.clone()),
                            without_store(report.clone()),
                            "{name}"
                        );
                        // the text is the CLI's own text, but for the store's name
                        let cli_text = vercy_check_text(&text, &cli_args);
                        assert_eq!(
                            result["content"][0]["text"].as_str().unwrap().to_string() + "\n",
                            cli_text.replace(
                                &format!("\"store\": {}", report["store"]),
                                "\"store\": \"<mcp>\""
                            ),
                            "{name}"
                        );
                        compared += 1;
                    }
                    None => {
                        assert_eq!(
                            result["isError"], true,
                            "{name}: the CLI could not read it: {stderr}\n{result}"
                        );
                        let message = result["content"][0]["text"].as_str().unwrap();
                        // the same place in the text: `<mcp>:L:C:` where the CLI says `<stdin>:L:C:`
                        let place = message
                            .strip_prefix("<mcp>")
                            .unwrap_or_else(|| panic!("{name}: {message}"));
                        let place = &place[..place.find(": ").unwrap_or(place.len())];
                        assert!(
                            stderr.contains(&format!("<stdin>{place}")),
                            "{name}: {message} vs\n{stderr}"
                        );
                        unreadable += 1;
                    }
                }
            }
        }
    }
    eprintln!("compared {compared} reports and {unreadable} unreadable inputs with vercy check");
    assert!(compared >= 80, "only {compared} reports compared");
    assert!(
        unreadable >= 10,
        "only {unreadable} unreadable fixtures compared"
    );
}

fn vercy_check_text(text: &str, cli_args: &[String]) -> String {
    let out = vercy()
        .args(["check", "--json", "-"])
        .args(cli_args)
        .write_stdin(text.as_bytes().to_vec())
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn records_held_as_objects_are_checked_as_json_lines_and_a_map_is_one_string() {
    let mut server = initialized();
    let text = read("reference-store.jsonl");
    let records: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let lines: String = records.iter().map(|r| format!("{r}\n")).collect();
    let from_text = server.ok(
        "check_records",
        json!({"records": text, "min_level": 2, "detail": "full"}),
    );
    let from_lines = server.ok(
        "check_records",
        json!({"records": lines, "min_level": 2, "detail": "full"}),
    );
    for key in ["records", "level", "pass", "findings", "next_level"] {
        assert_eq!(from_text[key], from_lines[key], "{key}");
    }
    // an empty text: no records, level 0, fail
    let none = server.ok("check_records", json!({"records": ""}));
    assert_eq!(
        (
            none["records"].clone(),
            none["level"].clone(),
            none["pass"].clone()
        ),
        (json!(0), json!(0), json!(false))
    );
    let edges = read("graph-edges.jsonl");
    let mapped = server.ok(
        "check_records",
        json!({"records": edges, "map": "record_id=uuid,valid_from=valid_at,valid_to=invalid_at,source=episode", "detail": "full"}),
    );
    assert_eq!(mapped["mapping"]["record_id"], "uuid");
    let named = server.ok(
        "check_records",
        json!({"records": edges, "map": "graphiti", "detail": "full"}),
    );
    assert_eq!(named["mapping"]["valid_from"], "valid_at");
}

#[test]
fn unreadable_records_are_a_tool_error_that_names_the_place() {
    let mut server = initialized();
    let text = "{\"record_id\": \"a\", \"valid_from\": \"2026-01-01\", \"valid_to\": null}\n{\"record_id\": \"b\",, }\n";
    let result = server.call("check_records", json!({"records": text}));
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("<mcp>:2:"), "{text}");
    assert!(text.contains("\nhelp: "), "{text}");
    assert!(text.ends_with("\ncode: vercy::store::json"), "{text}");
    assert!(result.get("structuredContent").is_none(), "{result}");
    // and the server goes on
    assert_eq!(
        server.ok("check_records", json!({"records": "[]"}))["records"],
        0
    );
}

// ---------------------------------------------------------------------------------------------
// get_profile and where_does_it_go

#[test]
fn get_profile_is_vercy_profile_json() {
    let mut server = initialized();
    let cli: Value = serde_json::from_slice(
        &vercy()
            .args(["profile", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let whole = server.ok("get_profile", json!({}));
    assert_eq!(whole, cli);
    assert_eq!(whole["fields"].as_array().unwrap().len(), 12);
    let field = server.ok("get_profile", json!({"field": "release_to"}));
    let cli_field: Value = serde_json::from_slice(
        &vercy()
            .args(["profile", "--format", "json", "--field", "release_to"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(field, cli_field);
    assert_eq!(field["level"], 3);
    assert_eq!(field["evidence"]["critical_errors_without"], 2);
}

#[test]
fn where_does_it_go_reads_the_placement_table_and_the_named_maps() {
    let mut server = initialized();
    let one = server.ok(
        "where_does_it_go",
        json!({"field": "valid_from", "target": "vector_memory"}),
    );
    let placements = one["placements"].as_array().unwrap();
    assert_eq!(placements.len(), 1);
    assert_eq!(
        placements[0]["placement"],
        "add: metadata field, distinct from the created-at timestamp"
    );
    assert_eq!(placements[0]["missing"], true);
    assert_eq!(one["named_maps"], json!([]));

    let graph = server.ok(
        "where_does_it_go",
        json!({"field": "valid_from", "target": "bitemporal_graph"}),
    );
    assert_eq!(graph["placements"][0]["placement"], "valid_at");
    assert_eq!(graph["placements"][0]["missing"], false);

    // a field alone: every kind of store in mappings.csv, and every named map
    let field = server.ok("where_does_it_go", json!({"field": "record_id"}));
    let forms: Vec<&str> = field["placements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["target"].as_str().unwrap())
        .collect();
    let header = read("../mappings.csv");
    let columns: Vec<&str> = header.lines().next().unwrap().split(',').skip(1).collect();
    assert_eq!(forms, columns);
    let graphiti = field["named_maps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["map"] == "graphiti")
        .unwrap();
    assert_eq!(
        (graphiti["path"].clone(), graphiti["same_name"].clone()),
        (json!("uuid"), json!(false))
    );

    // a named map as the target
    let map = server.ok("where_does_it_go", json!({"target": "mem0"}));
    assert!(map["placements"].as_array().unwrap().is_empty());
    let roles: Vec<&str> = map["named_maps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["field"].as_str().unwrap())
        .collect();
    assert!(
        roles.contains(&"record_id") && roles.contains(&"concept"),
        "{roles:?}"
    );

    // agreement with `vercy map --target T --format json`
    let cli: Value = serde_json::from_slice(
        &vercy()
            .args(["map", "--target", "documents", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let tool = server.ok("where_does_it_go", json!({"target": "documents"}));
    for (row, p) in cli["fields"]
        .as_array()
        .unwrap()
        .iter()
        .zip(tool["placements"].as_array().unwrap())
    {
        assert_eq!(
            (&row["field"], &row["placement"], &row["missing"]),
            (&p["field"], &p["placement"], &p["missing"])
        );
    }
}

// ---------------------------------------------------------------------------------------------
// compact_records

/// `vercy compact -` on `text` with `cli_args`: stdout and stderr.
fn cli_compact(text: &str, cli_args: &[&str]) -> (String, String) {
    let out = vercy()
        .args(["compact", "-"])
        .args(cli_args)
        .write_stdin(text.as_bytes().to_vec())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn compact_records_writes_what_vercy_compact_writes() {
    let mut server = initialized();
    let cases: [(&str, &[&str], Value); 7] = [
        ("reference-store.jsonl", &[], json!({})),
        ("compact/escapes.jsonl", &[], json!({})),
        (
            "compact/chain.jsonl",
            &["--as-of", "2026-07-01"],
            json!({"as_of": "2026-07-01"}),
        ),
        (
            "compact/chain-inverse.jsonl",
            &[
                "--map",
                "record_id=id,supersedes=~replaced_by",
                "--as-of",
                "2026-07-01",
            ],
            json!({"map": "record_id=id,supersedes=~replaced_by", "as_of": "2026-07-01"}),
        ),
        (
            "compact/reader.jsonl",
            &["--reader", "finance"],
            json!({"reader": "finance"}),
        ),
        (
            "compact/reader-mapped.jsonl",
            &["--map", "release_to=acl.parties", "--reader", "finance"],
            json!({"map": "release_to=acl.parties", "reader": "finance"}),
        ),
        (
            "compact/chain.jsonl",
            &["--concept", "retention", "--as-of", "2026-01-01"],
            json!({"concept": "retention", "as_of": "2026-01-01"}),
        ),
    ];
    for (file, cli_args, mut args) in cases {
        let text = read(file);
        let (expected, _) = cli_compact(&text, cli_args);
        args["records"] = json!(text);
        let result = server.ok("compact_records", args);
        assert_eq!(result["compact"], expected, "{file} {cli_args:?}");
        assert!(
            expected.starts_with("# record_id|valid_from|valid_to|"),
            "{file}"
        );
    }
}

#[test]
fn compact_records_with_a_reader_fails_closed() {
    let mut server = initialized();
    let text = read("compact/reader.jsonl");
    let out = server.ok(
        "compact_records",
        json!({"records": text, "reader": "finance"}),
    );
    let ids: Vec<&str> = out["compact"]
        .as_str()
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split('|').next().unwrap())
        .collect();
    // only the records whose release_to names the party exactly; no release_to is no permission
    assert_eq!(ids, ["Y-string", "Y-list", "Y-later"]);
    assert_eq!(out["records_read"], 15);
    assert_eq!(out["records_written"], 3);
    assert_eq!(out["left_out"]["withheld"], 12);
    let (_, stderr) = cli_compact(&text, &["--reader", "finance"]);
    assert!(stderr.contains("withheld 12 records"), "{stderr}");
    // the reference store: 1,860 characters, as the profile measures
    let all = server.ok(
        "compact_records",
        json!({"records": read("reference-store.jsonl")}),
    );
    assert_eq!(all["compact"].as_str().unwrap().chars().count(), 1860);
    assert_eq!(all["compact"], read("expected/reference-store.compact.txt"));
}

#[test]
fn compact_records_refuses_a_bad_selection_as_invalid_params() {
    let mut server = initialized();
    let text = read("compact/chain.jsonl");
    for (args, named) in [
        (json!({"records": text, "as_of": "next tuesday"}), "as_of"),
        (json!({"records": text, "reader": ""}), "reader"),
        (json!({"records": text, "as_of": 20260101}), "as_of"),
        (json!({"records": text, "policy_line": true}), "policy_line"),
    ] {
        let (code, message) = server.call_error("compact_records", args.clone());
        assert_eq!(code, -32602, "{args}: {message}");
        assert!(message.contains(named), "{message}");
    }
    let broken = server.call(
        "compact_records",
        json!({"records": "[{\"record_id\": 1,]"}),
    );
    assert_eq!(broken["isError"], true, "{broken}");
}

#[test]
fn check_records_answers_a_summary_unless_full_detail_is_asked() {
    let records = std::fs::read_to_string(fixture("values/messy-500.jsonl")).unwrap();
    let mut server = initialized();
    let summary = server.ok("check_records", json!({"records": records}));
    assert_eq!(summary["report"], "vercy-check-summary/1");
    let owners = summary["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["code"] == "value.owners")
        .unwrap()
        .clone();
    assert_eq!(owners["warnings"], 105);
    assert_eq!(owners["records"].as_array().unwrap().len(), 20);
    for f in summary["findings"].as_array().unwrap() {
        assert!(f["offenders"].as_array().unwrap().len() <= 20);
    }
    let full = server.ok(
        "check_records",
        json!({"records": records, "detail": "full"}),
    );
    assert_eq!(full["report"], "vercy-check/1");
    assert_eq!(full["level"], summary["level"]);
    let owner_warnings = full["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["code"] == "value.owners")
        .count();
    assert_eq!(owner_warnings, 105);
    assert!(serde_json::to_string(&summary).unwrap().len() < 64 << 10);
}

#[test]
fn the_diff_tool_compares_the_two_stores_the_host_named() {
    let mut server = Server::start_with(&[
        "--diff",
        "fixtures/diff/base.jsonl",
        "fixtures/diff/end_written.head.jsonl",
    ]);
    server.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}}),
    );
    let tools = server.request("tools/list", json!({}))["result"]["tools"].clone();
    let diff = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "diff")
        .expect("offered with --diff");
    assert_eq!(diff["annotations"]["readOnlyHint"], true);
    let r = server.ok("diff", json!({}));
    assert_eq!(r["format"], "vercy-diff/1");
    assert_eq!(r["pass"], false);
    assert_eq!(r["findings"][0]["code"], "history.end_written");
    assert_eq!(r["findings"][0]["superseded_by"]["id"], "R-5");
    let r = server.ok(
        "diff",
        json!({"allow": ["history.end_written"], "detail": "full"}),
    );
    assert_eq!(r["pass"], true);
    // the stores are the host's: an agent names no file
    let (code, _) = server.call_error("diff", json!({"base": "/etc/passwd"}));
    assert_eq!(code, -32602);
    // without --diff the tool is not there
    let mut bare = initialized();
    let tools = bare.request("tools/list", json!({}))["result"]["tools"].clone();
    assert!(tools
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["name"] != "diff"));
}
