//! The tools the server offers: each a name, a description written for agents, an input
//! schema, an output schema, and a function over the library. All of them only read: nothing is written
//! anywhere, nothing leaves the machine.

mod args;
mod check;
mod compact;
pub mod diff;
mod placement;
mod profile;
pub mod resolve;

pub use args::STORE_NAME;

use super::rpc::{RpcError, INTERNAL_ERROR};
use super::schema;
use super::session::Session;
use crate::error::VercyError;
use miette::Diagnostic;
use serde_json::{json, Map, Value};

/// One tool.
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// The JSON Schema of the arguments (published in `tools/list`, enforced in `tools/call`).
    pub schema: fn() -> Value,
    /// The JSON Schema of the answers' `structuredContent` (published in `tools/list`;
    /// tests/cli/mcp_clients.rs has the official SDKs validate every answer against it).
    pub output_schema: fn() -> Value,
    pub run: fn(&Map<String, Value>) -> Result<Output, ToolError>,
}

/// What a tool answers: a JSON object, and its text (the object serialised, as MCP asks for
/// clients that read only text).
pub struct Output {
    pub text: String,
    pub structured: Value,
}

impl Output {
    /// A JSON answer, its text written as `vercy … --json` prints it.
    pub fn json(value: Value) -> Output {
        Output {
            text: crate::python::json::to_python_json(&value),
            structured: value,
        }
    }
}

/// Why a tool gave no answer.
#[derive(Debug)]
pub enum ToolError {
    /// The arguments are wrong in a way the schema cannot say (an unknown named map):
    /// answered like a schema failure (see [`call`]).
    Arguments(String),
    /// The tool ran and the data failed (records that do not read): a result with `isError`,
    /// so the agent sees the diagnostic and can correct the data.
    Failed(VercyError),
}

/// Every tool, in the order `tools/list` gives them.
pub fn tools() -> Vec<Tool> {
    let mut tools = vec![check::TOOL, profile::TOOL, compact::TOOL, placement::TOOL];
    // only when the server was started with a store, a host file and a caller
    tools.extend(resolve::offered());
    // only when the server was started with two stores to compare
    tools.extend(diff::offered());
    tools
}

const ANNOTATIONS: [(&str, bool); 4] = [
    ("readOnlyHint", true),
    ("destructiveHint", false),
    ("idempotentHint", true),
    ("openWorldHint", false),
];

/// The `tools/list` result.
pub fn list() -> Value {
    let tools: Vec<Value> = tools()
        .iter()
        .map(|t| {
            let mut annotations = Map::new();
            annotations.insert("title".into(), json!(t.title));
            for (hint, on) in ANNOTATIONS {
                annotations.insert(hint.into(), json!(on));
            }
            json!({"name": t.name, "title": t.title, "description": t.description,
                   "inputSchema": (t.schema)(), "outputSchema": (t.output_schema)(),
                   "annotations": annotations})
        })
        .collect();
    json!({ "tools": tools })
}

/// The `tools/call` result for `name` with `arguments`, or the JSON-RPC error to answer.
/// Bad arguments are an `isError` result from protocol 2025-11-25 on, a -32602 before it.
pub fn call(
    name: &str,
    arguments: &Map<String, Value>,
    session: &Session,
) -> Result<Value, RpcError> {
    let wrong_arguments = |message: String| {
        let message = format!("{name}: {message}");
        if session.argument_errors_are_results() {
            Ok(error_result(&message))
        } else {
            Err(RpcError::invalid_params(message))
        }
    };
    let tools = tools();
    let tool = tools.iter().find(|t| t.name == name).ok_or_else(|| {
        let names: Vec<&str> = tools.iter().map(|t| t.name).collect();
        RpcError::invalid_params(format!(
            "unknown tool {name:?} (the tools are: {})",
            names.join(", ")
        ))
    })?;
    if let Err(m) = schema::validate_arguments(arguments, &(tool.schema)()) {
        return wrong_arguments(m);
    }
    match (tool.run)(arguments) {
        Ok(out) => Ok(json!({"content": [{"type": "text", "text": out.text}],
                             "structuredContent": out.structured, "isError": false})),
        Err(ToolError::Arguments(m)) => wrong_arguments(m),
        // the embedded data is this build's, not the caller's: an internal error
        Err(ToolError::Failed(e @ VercyError::EmbeddedData { .. })) => {
            Err(RpcError::new(INTERNAL_ERROR, e.to_string()))
        }
        Err(ToolError::Failed(e)) => Ok(failure(&e)),
    }
}

/// A tool-level failure: the diagnostic as text (its message, its help, its code), with
/// `isError`.
fn failure(e: &VercyError) -> Value {
    let mut text = e.to_string();
    if let Some(help) = e.help() {
        text.push_str(&format!("\nhelp: {help}"));
    }
    if let Some(code) = e.code() {
        text.push_str(&format!("\ncode: {code}"));
    }
    error_result(&text)
}

/// An `isError` result: text only, for `structuredContent` is what the output schema
/// describes, and an error is not that (the TypeScript SDK validates it even on errors).
fn error_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}
