//! `compact_records`: records in the compact line form, only those a question needs, through
//! the same entry point as `vercy compact` (selection, fail-closed release_to, the codec).

use super::{args, Output, Tool, ToolError};
use crate::compact::{criteria, write, Request};
use serde_json::{json, Map, Value};

pub const TOOL: Tool = Tool {
    name: "compact_records",
    title: "Compact records for a reader",
    description: "Write memory records in the profile's compact line form (a header \
        `# record_id|valid_from|valid_to|source|concept_owner|owner_role|supersedes|release_to|value`, \
        then one `|`-separated line per record; `~` is an open valid_to), about 70% fewer \
        characters than JSON lines, keeping only what a question needs: `as_of` keeps the \
        records in force on that date, `concept` the records of one concept, `reader` only the \
        records whose release_to names that party exactly. Fail-closed: with a reader, a record \
        without release_to (or with null or an empty list) is withheld, never shown. The same \
        text as `vercy compact` (in `compact`), with the counts of what was left out.",
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
            "as_of": {
                "description": "Keep only the records in force on this date (2026-01-01 or \
                    2026-01-01T12:00:00Z): valid_from on or before it, valid_to open or on or \
                    after it, and not superseded by then (vercy compact --as-of).",
                "type": "string", "minLength": 1
            },
            "concept": {
                "description": "Keep only the records of this concept, compared exactly (vercy compact --concept).",
                "type": "string", "minLength": 1
            },
            "reader": {
                "description": "Keep only the records whose release_to names this party, \
                    compared exactly; withhold the rest (vercy compact --reader).",
                "type": "string", "minLength": 1
            }
        }
    })
}

fn output_schema() -> Value {
    let count = json!({"type": "integer", "minimum": 0});
    json!({
        "type": "object",
        "required": ["compact", "records_read", "records_written", "left_out", "shape"],
        "properties": {
            "compact": {
                "description": "The compact text: the header line, then one line per record kept.",
                "type": "string"
            },
            "records_read": count,
            "records_written": count,
            "left_out": {
                "type": "object",
                "required": ["not_in_force", "undated", "other_concept", "withheld"],
                "properties": {
                    "not_in_force": count, "undated": count, "other_concept": count,
                    "withheld": count
                }
            },
            "shape": {"description": "How the records were read (JSON lines, JSON array, ...).", "type": "string"}
        }
    })
}

fn run(arguments: &Map<String, Value>) -> Result<Output, ToolError> {
    let text_of = |name: &str| arguments.get(name).and_then(Value::as_str);
    let map = args::field_map(arguments)?;
    let request = Request {
        map_given: map.is_some(),
        map: map.unwrap_or_default(),
        criteria: criteria(
            text_of("as_of"),
            text_of("concept").map(str::to_string),
            text_of("reader").map(str::to_string),
        )
        .map_err(args::argument_error)?,
        policy_line: false,
        memory: crate::spill::DEFAULT_MEMORY,
    };
    let mut text = String::new();
    let done = write(&args::records(arguments), &request, &mut |_, line| {
        text.push_str(line);
        text.push('\n');
        Ok(())
    })
    .map_err(ToolError::Failed)?;
    let tally = &done.tally;
    let structured = json!({
        "compact": text,
        "records_read": tally.read,
        "records_written": tally.kept,
        "left_out": {
            "not_in_force": tally.not_in_force,
            "undated": tally.undated,
            "other_concept": tally.other_concept,
            "withheld": tally.withheld,
        },
        "shape": done.shape.name(),
    });
    Ok(Output::json(structured))
}
