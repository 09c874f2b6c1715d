//! `where_does_it_go`: where a profile field goes in a kind of store (mappings.csv) and
//! where it lives in a real system's records (the named maps of maps.yaml).

use super::{Output, Tool, ToolError};
use crate::error::VercyError;
use crate::mapping::{named_maps, EXTRA_ROLES};
use crate::profile::{is_addition, placements, Profile};
use serde_json::{json, Map, Value};

pub const TOOL: Tool = Tool {
    name: "where_does_it_go",
    title: "Where does a field go",
    description: "Where a profile field goes in each kind of store (bitemporal graph, vector \
        memory, data catalogue, wiki or documents, relational table, Vercy dimension), from \
        the profile's placement table; `missing: true` marks a store that has no place for it \
        yet (the placement says what to add). Also where the field lives in the records of real \
        systems (named maps: graphiti, zep, mem0, engrama, ...), for use as a check map. Give a \
        `field`, a `target` (a kind of store or a named map), or both (at least one). The same data as \
        `vercy map`.",
    schema,
    output_schema,
    run,
};

/// The roles a named map can place: the profile's fields, then the roles commands need.
fn roles() -> Vec<String> {
    Profile::embedded()
        .fields
        .iter()
        .map(|f| f.id.clone())
        .chain(EXTRA_ROLES.iter().map(|r| r.to_string()))
        .collect()
}

fn targets() -> Vec<String> {
    let profile = Profile::embedded();
    let mut all: Vec<String> = profile.mappings.iter().map(|t| t.target.clone()).collect();
    for (name, _) in named_maps() {
        if !all.contains(name) {
            all.push(name.clone());
        }
    }
    all
}

fn schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "field": {
                "description": "A profile field (or the roles concept and value, which only named maps place).",
                "type": "string",
                "enum": roles()
            },
            "target": {
                "description": "A kind of store (bitemporal_graph, vector_memory, catalogue, documents, \
                    relational, dimension) or a named map (graphiti, zep, mem0, engrama, ...).",
                "type": "string",
                "enum": targets()
            }
        }
    })
}

/// The answer names the field and target asked for; null is the one not given.
fn output_schema() -> Value {
    let asked = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
    json!({
        "type": "object",
        "required": ["field", "target", "placements", "named_maps"],
        "properties": {
            "field": asked,
            "target": asked,
            "placements": {"type": "array", "items": {
                "type": "object",
                "required": ["field", "target", "target_name", "placement", "missing"],
                "properties": {
                    "field": {"type": "string"},
                    "target": {"type": "string"},
                    "target_name": {"type": "string"},
                    "placement": {"type": "string"},
                    "missing": {"type": "boolean"}
                }
            }},
            "named_maps": {"type": "array", "items": {
                "type": "object",
                "required": ["map", "field", "path", "same_name"],
                "properties": {
                    "map": {"type": "string"},
                    "field": {"type": "string"},
                    "path": {"type": "string"},
                    "same_name": {"type": "boolean"}
                }
            }}
        }
    })
}

fn run(arguments: &Map<String, Value>) -> Result<Output, ToolError> {
    let field = arguments.get("field").and_then(Value::as_str);
    let target = arguments.get("target").and_then(Value::as_str);
    if field.is_none() && target.is_none() {
        return Err(ToolError::Arguments(
            "give a `field`, a `target`, or both".into(),
        ));
    }
    let wanted = |x: &str, filter: Option<&str>| filter.is_none_or(|f| f == x);
    let profile = Profile::embedded();
    let (_, rows) = placements().map_err(|m| {
        ToolError::Failed(VercyError::EmbeddedData {
            what: "mappings.csv".into(),
            message: m,
        })
    })?;
    let mut forms = Vec::new();
    for row in rows.iter().filter(|r| wanted(&r.field, field)) {
        for (form, cell) in row.cells.iter().filter(|(t, _)| wanted(t, target)) {
            let name = profile
                .mappings
                .iter()
                .find(|m| &m.target == form)
                .map_or(form.as_str(), |m| m.name.as_str());
            forms.push(
                json!({"field": row.field, "target": form, "target_name": name,
                              "placement": cell, "missing": is_addition(cell)}),
            );
        }
    }
    let mut maps = Vec::new();
    for (name, map) in named_maps().iter().filter(|(n, _)| wanted(n, target)) {
        for role in roles().iter().filter(|r| wanted(r, field)) {
            let path = map.roles.0.iter().find(|(r, _)| r == role).map(|(_, p)| p);
            maps.push(json!({"map": name, "field": role,
                             "path": path.unwrap_or(role), "same_name": path.is_none()}));
        }
    }
    Ok(Output::json(json!({
        "field": field,
        "target": target,
        "placements": forms,
        "named_maps": maps,
    })))
}
