//! `resolve`: the contract's read path as a tool, for the caller the server was started for.
//!
//! The store, the host file and the caller are host configuration, fixed when the server
//! starts (`vercy mcp --store STORE --host HOST.yaml --caller PARTY`): an agent asks questions
//! of a store it cannot see whole, and can never ask as someone else. A call that passes a
//! `caller` (or a store, or a host) is refused with `isError`; without `--host` the tool is
//! not offered at all. The answer is `vercy-resolve/1`, exactly as `vercy resolve --format
//! json` prints it, built by the same disclosure boundary.

use super::{args, Output, Tool, ToolError};
use crate::error::VercyError;
use crate::mapping::FieldMap;
use crate::resolve::{self, host::Host, Question};
use crate::store::Input;
use serde_json::{json, Map, Value};
use std::sync::OnceLock;

/// What the server was started with.
#[derive(Debug)]
pub struct ResolveConfig {
    pub store: String,
    pub map: FieldMap,
    pub map_given: bool,
    pub host: Host,
    pub caller: String,
}

static SESSION: OnceLock<ResolveConfig> = OnceLock::new();

/// Fix the session for the life of the process (the first call wins: the caller can never
/// be changed once the server serves).
pub fn configure(session: ResolveConfig) {
    let _ = SESSION.set(session);
}

/// The tool, when the server has a session.
pub fn offered() -> Option<Tool> {
    SESSION.get().map(|_| TOOL)
}

pub const TOOL: Tool = Tool {
    name: "resolve",
    title: "Resolve a concept for this caller",
    description: "Which record holds for a concept on a date, for the caller this server was \
        started for, by the enforcement contract's rules in order: validity on the date, \
        applicability to the scope, supersession (only by the concept's owner), precedence \
        (the owner's records outrank all others; the host's policy decides between them), \
        and disclosure last. The outcome is answered (one record), abstained (a conflict the \
        policy does not decide), refused (the winner, or a side of the conflict, is withheld \
        from this caller: nothing of it is shown, and no older record is offered instead) or \
        empty. Authority and the caller come from the server's host configuration, never \
        from the records or from these arguments.",
    schema,
    output_schema,
    run,
};

fn schema() -> Value {
    json!({
        "type": "object",
        "required": ["concept"],
        "properties": {
            "concept": {
                "description": "The concept asked about: the records whose concept is exactly this.",
                "type": "string", "minLength": 1
            },
            "as_of": {
                "description": "Valid time: the date the answer holds on (2026-07-01 or 2026-07-01T12:00:00Z); default now.",
                "type": "string", "minLength": 1
            },
            "scope": {
                "description": "The scope values of the question (exact, case-sensitive), matched against applies_to and does_not_apply_to.",
                "type": "array", "items": {"type": "string", "minLength": 1}
            },
            "known_at": {
                "description": "Transaction time: answer from the store as it was known then (recorded_at, expired_at).",
                "type": "string", "minLength": 1
            },
            "explain": {
                "description": "Also list, as `records`, every record of the concept this caller may read, in store order, with its dates as written, owner and what decided it (holds, or the reasons raised about it).",
                "type": "boolean"
            }
        }
    })
}

/// The schema of the tool's `structuredContent` (`vercy-resolve/1`).
pub fn output_schema() -> Value {
    let names = json!({"type": "array", "items": {"type": "string"}});
    json!({
        "type": "object",
        "required": ["report", "store", "concept", "as_of", "known_at", "scope", "caller",
                     "outcome", "answer", "candidates", "reasons", "withheld"],
        "properties": {
            "report": {"type": "string", "enum": [crate::resolve::answer::REPORT]},
            "store": {"type": "string"},
            "concept": {"type": "string"},
            "as_of": {"type": "string"},
            "known_at": {"type": ["string", "null"]},
            "scope": names,
            "caller": {"type": "string"},
            "outcome": {"type": "string", "enum": ["answered", "abstained", "refused", "empty"]},
            "answer": {"type": ["object", "null"]},
            "candidates": names,
            "reasons": {"type": "array", "items": {
                "type": "object",
                "required": ["code"],
                "properties": {
                    "code": {"type": "string", "enum": crate::resolve::answer::Code::ALL
                        .iter().map(|c| c.name()).collect::<Vec<_>>()},
                    "records": names,
                    "count": {"type": "integer", "minimum": 1}
                }
            }},
            "withheld": {"type": "integer", "minimum": 0},
            "records": {"type": "array", "items": {
                "type": "object",
                "required": ["record_id", "line", "valid_from", "valid_to", "concept_owner",
                             "supersedes", "holds", "reasons"],
                "properties": {
                    "record_id": {"type": "string"},
                    "line": {"type": "integer", "minimum": 0},
                    "valid_from": {"type": ["string", "null"]},
                    "valid_to": {"type": ["string", "null"]},
                    "concept_owner": {"type": "string"},
                    "supersedes": names,
                    "holds": {"type": "boolean"},
                    "reasons": names
                }
            }}
        }
    })
}

fn run(arguments: &Map<String, Value>) -> Result<Output, ToolError> {
    let session = SESSION.get().ok_or_else(|| {
        ToolError::Arguments(
            "resolve is offered only when the server is started with --host".into(),
        )
    })?;
    for key in arguments.keys() {
        if !["concept", "as_of", "scope", "known_at", "explain"].contains(&key.as_str()) {
            return Err(ToolError::Failed(VercyError::argument(
                format!("resolve: `{key}`"),
                "is not an argument of this tool; the caller, the store and the host are fixed when the server starts",
                "ask with concept, as_of, scope, known_at and explain only",
            )));
        }
    }
    let text_of = |name: &str| {
        arguments
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let question = Question {
        concept: text_of("concept").unwrap_or_default(),
        as_of: text_of("as_of"),
        known_at: text_of("known_at"),
        scope: args::strings(arguments, "scope"),
        caller: session.caller.clone(),
    };
    let answer = resolve::resolve(
        &Input::new(&session.store),
        &session.map,
        session.map_given,
        &session.host,
        &question,
    )
    .map_err(args::argument_error)?;
    let explain = arguments.get("explain").and_then(Value::as_bool) == Some(true);
    let structured = answer.to_json(explain);
    Ok(Output {
        text: serde_json::to_string(&structured).unwrap_or_default(),
        structured,
    })
}
