//! Step 2, applicability (contract §3.2): with scope values in the question, a record whose
//! `does_not_apply_to` names one of them, or whose `applies_to` exists and names none, is
//! `out_of_scope`. Exact, case-sensitive equality; no substring or semantic matching. No scope
//! given: nothing is dropped. A record with neither field applies everywhere.

use crate::mapping::FieldMap;
use crate::record::{is_filled, py_str, Record};
use serde_json::Value;

/// The record applies to a question asked in `scopes`.
pub fn applies(map: &FieldMap, record: &Record, scopes: &[String]) -> bool {
    if scopes.is_empty() {
        return true;
    }
    let names = |role: &str| -> Option<Vec<String>> {
        let value = map.get(role, &record.fields)?;
        is_filled(&value).then(|| scope_values(&value))
    };
    let matches = |values: &[String]| values.iter().any(|v| scopes.contains(v));
    if names("does_not_apply_to").is_some_and(|v| matches(&v)) {
        return false;
    }
    names("applies_to").is_none_or(|v| matches(&v))
}

/// The scope values a field names: a string is one value (never split), a list its scalar
/// items; an object names nothing.
fn scope_values(value: &Value) -> Vec<String> {
    match value {
        Value::Array(items) => items
            .iter()
            .filter(|i| is_filled(i) && !i.is_array() && !i.is_object())
            .map(py_str)
            .collect(),
        Value::Object(_) => Vec::new(),
        v => vec![py_str(v)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Origin;
    use serde_json::json;

    fn applies_in(v: Value, scopes: &[&str]) -> bool {
        let r = Record::new(v.as_object().unwrap().clone(), "", Origin::default());
        let scopes: Vec<String> = scopes.iter().map(|s| s.to_string()).collect();
        applies(&FieldMap::identity(), &r, &scopes)
    }

    #[test]
    fn scope_matches_exactly() {
        let eu = json!({"applies_to": ["EU"], "does_not_apply_to": ["EU-contractors"]});
        assert!(applies_in(eu.clone(), &[]));
        assert!(applies_in(eu.clone(), &["EU"]));
        assert!(!applies_in(eu.clone(), &["eu"]));
        assert!(!applies_in(eu.clone(), &["EUR"]));
        assert!(!applies_in(eu.clone(), &["EU", "EU-contractors"]));
        assert!(!applies_in(eu, &["US"]));
        assert!(applies_in(json!({}), &["US"]));
        assert!(applies_in(
            json!({"applies_to": [], "does_not_apply_to": null}),
            &["US"]
        ));
        assert!(!applies_in(json!({"applies_to": "EU, US"}), &["US"]));
        assert!(applies_in(json!({"applies_to": "EU, US"}), &["EU, US"]));
    }
}
