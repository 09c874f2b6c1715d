//! `check_records`: the `vercy check --json` report for records an agent holds.

use super::{args, Output, Tool, ToolError};
use crate::check::{check_store, Options};
use serde_json::{json, Map, Value};

pub const TOOL: Tool = Tool {
    name: "check_records",
    title: "Check records against the profile",
    description: "Rate memory records against the Vercy additive profile (levels 1-3: time and \
        identity; provenance and authority; disclosure) and return the same `vercy-check/1` \
        report that `vercy check --json` prints: the level reached, pass/fail against min_level, \
        the findings (field, requirement, offending records by record_id or #index), value \
        warnings with line numbers, and what the next level needs. A pass means the fields are \
        present and sound, not that any system enforces them. The report's `store` is \"<mcp>\".",
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
            "expected": {
                "description": "Experimental: concepts the store must hold (vercy check --expected); \
                    each one no record holds is reported, the level does not change.",
                "type": "array", "items": {"type": "string"}
            }
        }
    })
}

/// The `vercy-check/1` report, key for key as [`crate::check::report`] writes it.
fn output_schema() -> Value {
    let int = |min: u64| json!({"type": "integer", "minimum": min});
    let level = json!({"type": "integer", "minimum": 0, "maximum": 3});
    let strings = json!({"type": "array", "items": {"type": "string"}});
    let keys = [
        "report",
        "profile",
        "profile_version",
        "scope",
        "scope_note",
        "records",
        "level",
        "min_level",
        "pass",
        "mapping",
        "policy_outside_records",
        "findings",
        "store",
        "shape",
        "strict",
        "reference_level",
        "warnings",
        "expected_concepts",
        "next_level",
    ];
    json!({
        "type": "object",
        "required": keys,
        "properties": {
            "report": {"type": "string", "const": "vercy-check/1"},
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
            "warnings": {"type": "array", "items": {
                "type": "object",
                "required": ["code", "field", "message", "caps_level", "count", "records"],
                "properties": {
                    "code": {"type": "string"},
                    "field": {"type": "string"},
                    "message": {"type": "string"},
                    "caps_level": level,
                    "count": int(1),
                    "records": {"type": "array", "items": {
                        "type": "object",
                        "required": ["record", "line"],
                        "properties": {"record": {"type": "string"}, "line": int(1)}
                    }}
                }
            }},
            "expected_concepts": {"anyOf": [{"type": "null"}, {
                "type": "object",
                "required": ["experimental", "register", "missing"],
                "properties": {
                    "experimental": {"type": "boolean"},
                    "register": strings,
                    "missing": strings
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
        expected: arguments
            .get("expected")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
    };
    let report = check_store(&args::records(arguments), &opts).map_err(ToolError::Failed)?;
    Ok(Output::json(report.to_json()))
}
