//! `get_profile`: the embedded profile, or one of its fields.

use super::{Output, Tool, ToolError};
use crate::error::VercyError;
use crate::profile::Profile;
use serde_json::{json, Map, Value};

pub const TOOL: Tool = Tool {
    name: "get_profile",
    title: "Get the Vercy additive profile",
    description: "The Vercy additive profile that vercy checks against: its fields (level, \
        requirement, definition, how the check counts it, and the measured effect of having \
        it: study, without -> with), the levels and what each unlocks, the supersede \
        operation, the compact serialisation and where each field goes in each kind of store. \
        The same data as `vercy profile --format json`; with `field`, only that field.",
    schema,
    output_schema,
    run,
};

fn schema() -> Value {
    let fields: Vec<&str> = Profile::embedded()
        .fields
        .iter()
        .map(|f| f.id.as_str())
        .collect();
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "field": {
                "description": "One field of the profile.",
                "type": "string",
                "enum": fields
            }
        }
    })
}

/// The whole profile, or one field: one object type for both (an output schema's top is an
/// object), with the keys of each; neither set is required, for each answer has only one.
fn output_schema() -> Value {
    let text = json!({"type": "string"});
    let object = json!({"type": "object"});
    let list = json!({"type": "array", "items": {"type": "object"}});
    json!({
        "type": "object",
        "properties": {
            "overlay": text, "version": text, "license": text, "status": text,
            "levels": list, "fields": list, "mappings": list,
            "checker": object, "operation": object, "serialisation": object, "selection": object,
            "id": text,
            "level": {"type": "integer", "minimum": 1, "maximum": 3},
            "requirement": text, "definition": text,
            "check": object, "evidence": object
        }
    })
}

fn run(arguments: &Map<String, Value>) -> Result<Output, ToolError> {
    let profile = Profile::embedded();
    let value = match arguments.get("field").and_then(Value::as_str) {
        Some(id) => {
            let field = profile.field(id).ok_or_else(|| {
                ToolError::Arguments(format!("{id:?} is not a field of the profile"))
            })?;
            serde_json::to_value(field)
        }
        None => serde_json::to_value(profile),
    };
    value.map(Output::json).map_err(|e| {
        ToolError::Failed(VercyError::EmbeddedData {
            what: "profile.yaml".into(),
            message: e.to_string(),
        })
    })
}
