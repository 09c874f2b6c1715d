//! Arguments that several tools share: the records (text, or JSON values) and the field map.
//!
//! Records always go through the one store reader, as a file would:
//! - text (JSON lines, a JSON array, an envelope object, an engrama dump, the compact form) is
//!   read exactly as `vercy check -` reads it from stdin;
//! - an array of record objects, or one record object, is written as a JSON array with one
//!   record per line (record N on line N + 1) and read as that, so every element is a record
//!   (as the reference checker takes them: one object is one record, never an envelope).
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
            an envelope such as {\"results\": [...]}, an engrama NDJSON dump, the compact form), \
            an array of record objects, or one record object.",
        "type": ["string", "array", "object"],
        "items": {"type": "object"}
    })
}

pub fn map_schema() -> Value {
    json!({
        "description": "Where each profile role lives in these records. A string as `vercy --map` \
            takes it: role=path pairs and named maps, comma-separated (\"graphiti\", \
            \"record_id=uuid,source=metadata.source\"); or an object role -> path \
            ({\"record_id\": \"uuid\"}). Paths: key, a.b, a[], a[].b, ~inverse.",
        "type": ["string", "object"],
        "additionalProperties": {"type": "string"}
    })
}

/// The `records` argument as a store to read (the schema has been checked).
pub fn records(args: &Map<String, Value>) -> Input {
    let bytes: std::sync::Arc<[u8]> = match args.get("records") {
        Some(Value::String(text)) => text.as_bytes().into(),
        Some(Value::Array(items)) => one_per_line(items).as_bytes().into(),
        Some(one @ Value::Object(_)) => one_per_line(std::slice::from_ref(one)).as_bytes().into(),
        _ => std::sync::Arc::from(&b""[..]),
    };
    Input::from_bytes(STORE_NAME, bytes)
}

fn one_per_line(items: &[Value]) -> String {
    let lines: Vec<String> = items.iter().map(Value::to_string).collect();
    format!("[\n{}\n]\n", lines.join(",\n"))
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
        Some(Value::Object(pairs)) => {
            let mut map = FieldMap::identity();
            for (role, path) in pairs {
                let path = path.as_str().ok_or_else(|| {
                    ToolError::Arguments(format!("`map.{role}` must be a string"))
                })?;
                map.set(role, path);
            }
            Ok(Some(map))
        }
        Some(_) => Err(ToolError::Arguments(
            "`map` must be a string or an object".into(),
        )),
    }
}

/// An optional boolean argument.
pub fn flag(args: &Map<String, Value>, name: &str) -> bool {
    args.get(name).and_then(Value::as_bool).unwrap_or(false)
}
