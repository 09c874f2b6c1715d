//! Checking tool arguments against the input schemas the server publishes in `tools/list`,
//! so what a client is told and what the server accepts cannot drift apart.
//!
//! Enough of JSON Schema for these tools: `type` (one or a list), `properties`, `required`,
//! `additionalProperties` (false, or a schema for the values), `items`, `enum`, `minimum`,
//! `maximum`, `minLength`, `anyOf`. A failure is a sentence naming the argument.

use serde_json::{Map, Value};

/// Check `value` against `schema`; `at` names the value in messages.
pub fn validate(value: &Value, schema: &Value, at: &str) -> Result<(), String> {
    let Some(schema) = schema.as_object() else {
        return Ok(());
    };
    if let Some(types) = schema.get("type") {
        let types: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.is_empty() && !types.iter().any(|t| is_type(value, t)) {
            return Err(format!(
                "{} must be {}, not {}",
                shown(at),
                types.join(" or "),
                crate::record::kind_name(value)
            ));
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            let names: Vec<String> = allowed.iter().map(Value::to_string).collect();
            return Err(format!("{} must be one of {}", shown(at), names.join(", ")));
        }
    }
    if let Some(n) = value.as_f64().filter(|_| value.is_number()) {
        let low = schema.get("minimum").and_then(Value::as_f64);
        let high = schema.get("maximum").and_then(Value::as_f64);
        if low.is_some_and(|l| n < l) || high.is_some_and(|h| n > h) {
            return Err(format!(
                "{} must be between {} and {}, not {value}",
                shown(at),
                low.map_or("-∞".into(), |l| l.to_string()),
                high.map_or("∞".into(), |h| h.to_string())
            ));
        }
    }
    if let (Some(s), Some(min)) = (
        value.as_str(),
        schema.get("minLength").and_then(Value::as_u64),
    ) {
        if (s.chars().count() as u64) < min {
            return Err(format!(
                "{} must have at least {min} character(s)",
                shown(at)
            ));
        }
    }
    if let Some(items) = value.as_array() {
        if let Some(item_schema) = schema.get("items") {
            for (i, item) in items.iter().enumerate() {
                validate(item, item_schema, &format!("{at}[{i}]"))?;
            }
        }
    }
    if let Some(object) = value.as_object() {
        validate_object(object, schema, at)?;
    }
    any_of(schema, |branch| validate(value, branch, at))
}

/// Check a tool's arguments (always an object: `tools/call` refuses anything else) against
/// its schema, without copying them.
pub fn validate_arguments(arguments: &Map<String, Value>, schema: &Value) -> Result<(), String> {
    let Some(schema) = schema.as_object() else {
        return Ok(());
    };
    validate_object(arguments, schema, "")?;
    any_of(schema, |branch| validate_arguments(arguments, branch))
}

/// `anyOf`: at least one branch must hold.
fn any_of(
    schema: &Map<String, Value>,
    check: impl Fn(&Value) -> Result<(), String>,
) -> Result<(), String> {
    let Some(branches) = schema.get("anyOf").and_then(Value::as_array) else {
        return Ok(());
    };
    let failures: Vec<String> = branches.iter().filter_map(|b| check(b).err()).collect();
    if !branches.is_empty() && failures.len() == branches.len() {
        return Err(failures.join("; or "));
    }
    Ok(())
}

fn validate_object(
    object: &Map<String, Value>,
    schema: &Map<String, Value>,
    at: &str,
) -> Result<(), String> {
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let name = |key: &str| {
        if at.is_empty() {
            key.to_string()
        } else {
            format!("{at}.{key}")
        }
    };
    for key in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !object.contains_key(key) {
            return Err(format!("{} is required", shown(&name(key))));
        }
    }
    for (key, value) in object {
        match (properties.get(key), schema.get("additionalProperties")) {
            (Some(rule), _) => validate(value, rule, &name(key))?,
            (None, Some(Value::Bool(false))) => {
                let known: Vec<&str> = properties.keys().map(String::as_str).collect();
                return Err(format!(
                    "unknown argument {} (the arguments are: {})",
                    shown(&name(key)),
                    known.join(", ")
                ));
            }
            (None, Some(rule @ Value::Object(_))) => validate(value, rule, &name(key))?,
            (None, _) => {}
        }
    }
    Ok(())
}

/// A value's name in messages: `map.record_id`, or "the arguments" for the whole object.
fn shown(at: &str) -> String {
    if at.is_empty() {
        "the arguments".into()
    } else {
        format!("`{at}`")
    }
}

fn is_type(value: &Value, kind: &str) -> bool {
    match kind {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        // an integer is written without a fraction or an exponent (1, not 1.0)
        "integer" => {
            value.is_number()
                && value
                    .to_string()
                    .bytes()
                    .all(|b| b == b'-' || b.is_ascii_digit())
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "additionalProperties": false, "required": ["records"],
               "properties": {
                   "records": {"type": ["string", "array", "object"], "items": {"type": "object"}},
                   "map": {"type": ["string", "object"], "additionalProperties": {"type": "string"}},
                   "min_level": {"type": "integer", "minimum": 1, "maximum": 3},
                   "field": {"type": "string", "enum": ["record_id", "valid_to"]}}})
    }

    fn check(args: Value) -> Result<(), String> {
        validate(&args, &schema(), "")
    }

    #[test]
    fn good_arguments_pass() {
        check(json!({"records": "{}"})).unwrap();
        check(json!({"records": [{}], "map": {"record_id": "uuid"}, "min_level": 3})).unwrap();
        check(json!({"records": {}, "map": "graphiti", "field": "valid_to"})).unwrap();
    }

    #[test]
    fn bad_arguments_are_named() {
        let cases = [
            (json!({}), "`records` is required"),
            (
                json!({"records": 5}),
                "`records` must be string or array or object",
            ),
            (json!({"records": [1]}), "`records[0]` must be object"),
            (
                json!({"records": "", "min_level": 0}),
                "`min_level` must be between 1 and 3",
            ),
            (
                json!({"records": "", "min_level": 4}),
                "`min_level` must be between",
            ),
            (
                json!({"records": "", "min_level": 2.5}),
                "`min_level` must be integer",
            ),
            (
                json!({"records": "", "min_level": "2"}),
                "`min_level` must be integer",
            ),
            (
                json!({"records": "", "min_level": true}),
                "`min_level` must be integer",
            ),
            (
                json!({"records": "", "map": {"record_id": 3}}),
                "`map.record_id` must be string",
            ),
            (
                json!({"records": "", "map": ["x"]}),
                "`map` must be string or object",
            ),
            (
                json!({"records": "", "field": "nope"}),
                "`field` must be one of",
            ),
            (
                json!({"records": "", "extra": 1}),
                "unknown argument `extra`",
            ),
        ];
        for (args, expected) in cases {
            let err = check(args.clone()).unwrap_err();
            assert!(err.contains(expected), "{args}: {err}");
        }
    }

    #[test]
    fn any_of_needs_one_branch() {
        let s =
            json!({"type": "object", "anyOf": [{"required": ["field"]}, {"required": ["target"]}]});
        validate(&json!({"field": "x"}), &s, "").unwrap();
        validate(&json!({"target": "x"}), &s, "").unwrap();
        let err = validate(&json!({}), &s, "").unwrap_err();
        assert!(err.contains("`field` is required") && err.contains("`target` is required"));
    }
}
