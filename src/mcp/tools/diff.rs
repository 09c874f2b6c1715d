//! `diff`: `vercy diff BASE HEAD` as a tool, over the two stores the host named when it
//! started the server (`vercy mcp --diff BASE HEAD`): an agent asks whether history was only
//! added to, and sees what was edited, ended by hand or deleted; it can name no other file.
//! Without `--diff` the tool is not offered. The answer is the `vercy-diff/1` object `vercy
//! diff --format json` prints, its findings the first 20 of each code unless
//! `detail: "full"` asks for all (at most 4 MiB of them).

use super::{Output, Tool, ToolError};
use crate::diff::format::json::{finding, summary};
use crate::diff::report::{Code, Finding, Report};
use crate::diff::{diff_stores, Options};
use crate::error::VercyError;
use crate::mapping::FieldMap;
use crate::store::Input;
use serde_json::{json, Map, Value};
use std::sync::OnceLock;

/// Findings listed per code in the summary.
const FINDINGS_SHOWN: usize = 20;

/// The stores the server was started with, and their map.
#[derive(Debug)]
pub struct DiffConfig {
    pub base: String,
    pub head: String,
    pub map: FieldMap,
    pub map_given: bool,
}

static SESSION: OnceLock<DiffConfig> = OnceLock::new();

/// Fix the two stores for the life of the process.
pub fn configure(config: DiffConfig) {
    let _ = SESSION.set(config);
}

/// The tool, when the server was given two stores.
pub fn offered() -> Option<Tool> {
    SESSION.get().map(|_| TOOL)
}

pub const TOOL: Tool = Tool {
    name: "diff",
    title: "Compare two versions of a store",
    description: "Compare the two versions of a memory store this server was started with \
        (BASE before a change, HEAD after), matched by record_id, and say whether history was \
        only added to (pass) or changed: history.end_written (a superseded record's valid_to \
        written by hand; the end is derived when reading), history.edited (a statement edited \
        in place: fields, old and new values, lines), history.id_reused, \
        history.supersedes_changed, history.deleted, and for supersessions HEAD adds \
        history.starts_before and history.superseded_missing. The answer is the \
        `vercy-diff/1` object of `vercy diff --format json`: counts per code, what was added, \
        and the first 20 findings of each code (`detail: \"full\"` for all, up to 4 MiB). \
        The stores are fixed by the server; `allow` accepts codes on purpose.",
    schema,
    output_schema,
    run,
};

fn schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "allow": {
                "description": "Codes accepted on purpose (a migration): still reported, not failing (vercy diff --allow).",
                "type": "array",
                "items": {"type": "string", "enum": Code::ALL.iter().map(|c| c.name()).collect::<Vec<_>>()}
            },
            "detail": {
                "description": "summary (default): the first 20 findings of each code; full: every finding (at most 4 MiB, else the summary with `truncated`).",
                "type": "string", "enum": ["summary", "full"]
            }
        }
    })
}

fn output_schema() -> Value {
    let int = json!({"type": "integer", "minimum": 0});
    let side = json!({"type": "object", "required": ["store", "shape", "records", "without_id"]});
    json!({
        "type": "object",
        "required": ["format", "pass", "base", "head", "added", "added_superseding",
                     "unchanged", "times_moved", "counts", "allowed", "findings"],
        "properties": {
            "format": {"type": "string", "enum": ["vercy-diff/1"]},
            "pass": {"type": "boolean"},
            "base": side,
            "head": side,
            "added": int, "added_superseding": int, "unchanged": int, "times_moved": int,
            "counts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}},
            "allowed": {"type": "array", "items": {"type": "string"}},
            "truncated": {"type": "string"},
            "findings": {"type": "array", "items": {
                "type": "object",
                "required": ["code", "id", "base_line", "head_line", "allowed", "message"],
                "properties": {
                    "code": {"type": "string"},
                    "id": {"type": "string"},
                    "base_line": int, "head_line": int,
                    "allowed": {"type": "boolean"},
                    "message": {"type": "string"}
                }
            }}
        }
    })
}

/// The report as the tool answers it: every finding, or the first of each code. Every
/// finding is gathered only while they fit the answer: past it, they are counted.
fn answer(r: &Report, full: bool) -> std::io::Result<Value> {
    let mut out = summary(r);
    let of = |f: &Finding| finding(f, r.is_allowed(f.code));
    if full {
        let (mut all, mut size) = (Vec::new(), 0);
        for f in r.findings.iter() {
            let f = of(&f?);
            size += f.to_string().len();
            if size <= super::check::FULL_MAX_BYTES {
                all.push(f);
            } else {
                all = Vec::new();
            }
        }
        if size <= super::check::FULL_MAX_BYTES {
            out["findings"] = Value::Array(all);
            return Ok(out);
        }
        out["truncated"] = json!(format!(
            "the findings take {size} bytes, over {}: the first {FINDINGS_SHOWN} of each code",
            super::check::FULL_MAX_BYTES
        ));
    }
    let mut first = Vec::new();
    for code in Code::ALL {
        first.extend(r.first(code, FINDINGS_SHOWN)?.iter().map(of));
    }
    out["findings"] = Value::Array(first);
    Ok(out)
}

fn run(arguments: &Map<String, Value>) -> Result<Output, ToolError> {
    let session = SESSION.get().ok_or_else(|| {
        ToolError::Arguments("diff is offered only when the server is started with --diff".into())
    })?;
    let allowed = super::args::strings(arguments, "allow")
        .iter()
        .map(|name| {
            Code::parse(name).ok_or_else(|| {
                ToolError::Arguments(format!("`allow`: {name:?} is not a diff code"))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let opts = Options {
        map: session.map.clone(),
        map_given: session.map_given,
        allowed,
        memory: crate::spill::DEFAULT_MEMORY,
    };
    let full = arguments.get("detail").and_then(Value::as_str) == Some("full");
    let report = diff_stores(
        (&Input::new(&session.base), &session.base),
        (&Input::new(&session.head), &session.head),
        &opts,
    )
    .map_err(|e: VercyError| ToolError::Failed(e))?;
    let answer = answer(&report, full).map_err(|e| ToolError::Failed(report.lost(e)))?;
    Ok(Output::json(answer))
}
