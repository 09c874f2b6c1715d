//! Arguments that several tools share: the records and the field map, each one string.
//!
//! One type per argument: clients backed by Gemini refuse a schema whose `type` is a list, so
//! the records are the store's text (JSON lines, a JSON array, an envelope object, an engrama
//! dump, the compact form), read through the one store reader exactly as `vercy check -`
//! reads it from stdin, and the map is the text `--map` takes.
//!
//! The store is named [`STORE_NAME`] in reports and diagnostics.

use super::ToolError;
use crate::error::VercyError;
use crate::mapping::FieldMap;
use crate::store::Input;
use serde_json::{json, Map, Value};

/// What the records are called in reports (the `store` key) and diagnostics.
pub const STORE_NAME: &str = "<mcp>";

pub fn records_schema() -> Value {
    json!({
        "description": "The records: JSON lines text (or any store text vercy reads: a JSON array, \
            an envelope such as {\"results\": [...]}, an engrama NDJSON dump, the compact form). \
            Records held as objects go as JSON lines: one object per line.",
        "type": "string"
    })
}

pub fn map_schema() -> Value {
    json!({
        "description": "Where each profile role lives in these records. A string as `vercy --map` \
            takes it: role=path pairs and named maps, comma-separated (\"graphiti\", \
            \"record_id=uuid,source=metadata.source\"). Paths: key, a.b, a[], a[].b, ~inverse.",
        "type": "string"
    })
}

/// The `records` argument as a store to read (the schema has been checked).
pub fn records(args: &Map<String, Value>) -> Input {
    let text = args.get("records").and_then(Value::as_str).unwrap_or("");
    Input::from_bytes(STORE_NAME, std::sync::Arc::<[u8]>::from(text.as_bytes()))
}

/// The `map` argument, if given.
pub fn field_map(args: &Map<String, Value>) -> Result<Option<FieldMap>, ToolError> {
    match args.get("map") {
        None => Ok(None),
        Some(Value::String(spec)) => FieldMap::parse(std::slice::from_ref(spec))
            .map(Some)
            .map_err(|e| match e {
                VercyError::Map { message, names } => {
                    ToolError::Arguments(format!("`map`: {message} (named maps: {names})"))
                }
                other => ToolError::Failed(other),
            }),
        Some(_) => Err(ToolError::Arguments("`map` must be a string".into())),
    }
}

/// An optional boolean argument.
pub fn flag(args: &Map<String, Value>, name: &str) -> bool {
    args.get(name).and_then(Value::as_bool).unwrap_or(false)
}

/// A list-of-strings argument (`expected`, `scope`); absent or not a list: empty.
pub fn strings(args: &Map<String, Value>, name: &str) -> Vec<String> {
    args.get(name)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// An error the CLI would give for a flag (`--as-of` that is not a date): a wrong argument,
/// named as the tool names it (`as_of`); any other error is the tool failing.
pub fn argument_error(e: VercyError) -> ToolError {
    match e {
        VercyError::Argument {
            what,
            message,
            help,
        } => ToolError::Arguments(format!(
            "`{}`: {message} ({help})",
            what.trim_start_matches('-').replace('-', "_")
        )),
        other => ToolError::Failed(other),
    }
}
