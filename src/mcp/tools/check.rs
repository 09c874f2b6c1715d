//! `check_records`: the `vercy check --json` report for records an agent holds.
//!
//! The answer's shape, in one place (the description below says the same to the agent):
//! - `detail: "summary"` (the default): `{"report": "vercy-check-summary/1", "store",
//!   "records", "level", "min_level", "pass", "reference_level", "strict", "findings":
//!   [{"field", "requirement", "count", "offenders": first 20}], "warnings": [{"code",
//!   "field", "caps_level", "warnings", "count", "records": first 20 [{"record", "line"}],
//!   "first_message"}], "expected_concepts", "next_level"}`: a few kilobytes whatever the
//!   records hold.
//! - `detail: "full"`: the whole `vercy-check/1` report, as `vercy check --json` prints it,
//!   when it takes at most [`FULL_MAX_BYTES`]; past that, the summary, with `"truncated"`
//!   saying why.

use super::{args, Output, Tool, ToolError};
use crate::check::report::Report;
use crate::check::{check_store, Options};
use serde_json::{json, Map, Value};

/// Records (or offenders) listed per warning code or finding in the summary.
const SUMMARY_RECORDS: usize = 20;
/// The largest full report the tool answers with (4 MiB of JSON, about a million tokens):
/// beyond it, an agent gets the summary and the note.
pub const FULL_MAX_BYTES: usize = 4 << 20;

pub const TOOL: Tool = Tool {
    name: "check_records",
    title: "Check records against the profile",
    description: "Rate memory records against the Vercy additive profile (levels 1-3: time and \
        identity; provenance and authority; disclosure) and return the same `vercy-check/1` \
        report that `vercy check --json` prints: the level reached, pass/fail against min_level, \
        the findings (field, requirement, offending records by record_id or #index), value \
        warnings with line numbers, and what the next level needs. By default the answer is a \
        summary (`vercy-check-summary/1`): counts per finding and per warning code with the \
        first 20 records of each; `detail: \"full\"` gives the whole report (every offender \
        and warning) when it is at most 4 MiB, else the summary with `truncated` saying so. A \
        pass means the fields are present and sound, not that any system enforces them. The \
        report's `store` is \"<mcp>\".",
    schema,
    output_schema,
    run,
};

fn schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["records"],
        "properties": {
            "records": args::records_schema(),
            "map": args::map_schema(),
            "policy_outside_records": {
                "description": "The conflict policy is stated outside the records (vercy check --policy).",
                "type": "boolean"
            },
            "min_level": {
                "description": "The level needed to pass (vercy check --min-level); default 1.",
                "type": "integer", "minimum": 1, "maximum": 3
            },
            "strict": {
                "description": "Count value warnings against the level (vercy check --strict).",
                "type": "boolean"
            },
            "detail": {
                "description": "summary (default): counts and the first 20 records of each \
                    finding and warning code; full: the whole vercy-check/1 report (at most \
                    4 MiB, else the summary with `truncated`).",
                "type": "string", "enum": ["summary", "full"]
            },
            "expected": {
                "description": "Experimental: concepts the store must hold (vercy check --expected); \
                    each one no record holds is reported, the level does not change.",
                "type": "array", "items": {"type": "string"}
            }
        }
    })
}

/// The answer's schema: the keys and types the full report (`vercy-check/1`) and the summary
/// (`vercy-check-summary/1`) share, so a client validates either; `report` says which it is.
fn output_schema() -> Value {
    let int = |min: u64| json!({"type": "integer", "minimum": min});
    let level = json!({"type": "integer", "minimum": 0, "maximum": 3});
    let strings = json!({"type": "array", "items": {"type": "string"}});
    let warning = json!({
        "type": "object",
        "required": ["code", "field", "caps_level", "count", "records"],
        "properties": {
            "code": {"type": "string"},
            "field": {"type": "string"},
            "message": {"type": "string"},
            "first_message": {"type": "string"},
            "warnings": int(1),
            "caps_level": level,
            "count": int(0),
            "records": {"type": "array", "items": {
                "type": "object",
                "required": ["record", "line"],
                "properties": {"record": {"type": "string"}, "line": int(0)}
            }}
        }
    });
    let keys = [
        "report",
        "store",
        "records",
        "level",
        "min_level",
        "pass",
        "reference_level",
        "strict",
        "findings",
        "warnings",
        "expected_concepts",
        "next_level",
    ];
    json!({
        "type": "object",
        "required": keys,
        "properties": {
            "report": {"type": "string", "enum": ["vercy-check/1", "vercy-check-summary/1"]},
            "truncated": {"type": "string"},
            "profile": {"type": "string"},
            "profile_version": {"type": "string"},
            "scope": {"type": "string"},
            "scope_note": {"type": "string"},
            "records": int(0),
            "level": level,
            "min_level": {"type": "integer", "minimum": 1, "maximum": 3},
            "pass": {"type": "boolean"},
            "mapping": {"type": "object", "additionalProperties": {"type": "string"}},
            "policy_outside_records": {"type": "boolean"},
            "findings": {"type": "array", "items": {
                "type": "object",
                "required": ["field", "requirement", "count", "offenders"],
                "properties": {
                    "field": {"type": "string"},
                    "requirement": {"type": "string"},
                    "count": int(1),
                    "offenders": strings
                }
            }},
            "store": {"type": "string"},
            "shape": {"type": "string"},
            "strict": {"type": "boolean"},
            "reference_level": level,
            "warnings": {"type": "array", "items": warning},
            "expected_concepts": {"anyOf": [{"type": "null"}, {
                "type": "object",
                "required": ["experimental", "register", "missing"],
                "properties": {
                    "experimental": {"type": "boolean"},
                    "register": strings,
                    "register_count": int(0),
                    "missing": strings,
                    "missing_count": int(0)
                }
            }]},
            "next_level": {"anyOf": [{"type": "null"}, {
                "type": "object",
                "required": ["level", "needs"],
                "properties": {"level": level, "needs": {"type": "array"}}
            }]}
        }
    })
}

fn run(arguments: &Map<String, Value>) -> Result<Output, ToolError> {
    let map = args::field_map(arguments)?;
    let opts = Options {
        map_given: map.is_some(),
        map: map.unwrap_or_default(),
        policy_outside_records: args::flag(arguments, "policy_outside_records"),
        min_level: arguments
            .get("min_level")
            .and_then(Value::as_u64)
            .and_then(|n| u8::try_from(n).ok())
            .unwrap_or(1),
        strict: args::flag(arguments, "strict"),
        expected: args::strings(arguments, "expected"),
        memory: crate::spill::DEFAULT_MEMORY,
    };
    let report = check_store(&args::records(arguments), &opts).map_err(ToolError::Failed)?;
    let full = arguments.get("detail").and_then(Value::as_str) == Some("full");
    let answer = if full {
        let value = crate::check::format::to_json(&report);
        let size = serde_json::to_vec(&value).map_or(usize::MAX, |v| v.len());
        if size <= FULL_MAX_BYTES {
            value
        } else {
            let mut summary = summary(&report);
            summary["truncated"] = json!(format!(
                "the full report takes {size} bytes, over the cap of {FULL_MAX_BYTES}: this is \
                 the summary; run `vercy check --json` on the store for every record"
            ));
            summary
        }
    } else {
        summary(&report)
    };
    // the names the answer gives were all read
    report.names_read_back().map_err(ToolError::Failed)?;
    Ok(Output::json(answer))
}

/// The summary answer (see the module's documentation for its shape).
fn summary(r: &Report) -> Value {
    let findings: Vec<Value> = r
        .findings
        .iter()
        .map(|f| {
            json!({"field": f.field, "requirement": f.requirement, "count": f.offenders.len(),
                   "offenders": f.offenders.iter().take(SUMMARY_RECORDS).collect::<Vec<_>>()})
        })
        .collect();
    let warnings: Vec<Value> = r
        .warnings
        .groups()
        .iter()
        .map(|g| {
            let records: Vec<Value> = r
                .warnings
                .of_code(g.code)
                .flat_map(|w| w.records())
                .take(SUMMARY_RECORDS)
                .map(|(name, line)| json!({"record": name, "line": line}))
                .collect();
            let first = r
                .warnings
                .of_code(g.code)
                .next()
                .map(|w| w.message().into_owned());
            json!({"code": g.code.code(), "field": g.code.field(), "caps_level": g.code.caps_level(),
                   "warnings": g.warnings, "count": g.records, "records": records,
                   "first_message": first})
        })
        .collect();
    let expected = match &r.expected_concepts {
        None => Value::Null,
        Some((register, missing)) => json!({"experimental": true,
            "register": register.iter().take(SUMMARY_RECORDS).collect::<Vec<_>>(),
            "register_count": register.len(),
            "missing": missing.iter().take(SUMMARY_RECORDS).collect::<Vec<_>>(),
            "missing_count": missing.len()}),
    };
    let next = match r.next_level() {
        None => Value::Null,
        Some((level, needs)) => json!({"level": level, "needs": needs}),
    };
    json!({"report": "vercy-check-summary/1", "store": r.store, "records": r.records,
           "level": r.level, "min_level": r.min_level, "pass": r.pass,
           "reference_level": r.reference_level, "strict": r.strict,
           "findings": findings, "warnings": warnings, "expected_concepts": expected,
           "next_level": next})
}
