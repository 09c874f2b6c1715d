//! The compact line codec both ways. Arbitrary text through `parse_line` never panics, and
//! whatever it reads writes back (`line`) to text that reads into the same fields; arbitrary
//! field values written with `line` read back into the same values.
#![no_main]

use libfuzzer_sys::{arbitrary, fuzz_target};
use serde_json::Value;
use vercy::store::compact::{line, parse_line};

#[derive(Debug, arbitrary::Arbitrary)]
enum Case {
    Text(String),
    Fields(Vec<Option<Cell>>),
}

#[derive(Debug, arbitrary::Arbitrary)]
enum Cell {
    Null,
    Text(String),
    List(Vec<String>),
}

fn order() -> Vec<String> {
    vercy::profile::Profile::embedded()
        .serialisation
        .field_order
        .clone()
}

fn round_trip(values: &[Option<Value>], order: &[String]) -> serde_json::Map<String, Value> {
    let refs: Vec<Option<&Value>> = values.iter().map(Option::as_ref).collect();
    let text = line(&refs, order);
    assert!(!text.contains('\n') && !text.contains('\r'), "a line break in {text:?}");
    parse_line(&text, order).unwrap_or_else(|e| panic!("{text:?} does not read back: {e}"))
}

fuzz_target!(|case: Case| {
    let order = order();
    match case {
        Case::Text(text) => {
            let Ok(fields) = parse_line(&text, &order) else { return };
            let values: Vec<Option<Value>> = order.iter().map(|f| fields.get(f).cloned()).collect();
            assert_eq!(round_trip(&values, &order), fields, "from {text:?}");
        }
        Case::Fields(cells) => {
            let values: Vec<Option<Value>> = order
                .iter()
                .zip(cells.into_iter().chain(std::iter::repeat_with(|| None)))
                .map(|(field, cell)| match cell {
                    None => None,
                    Some(Cell::Null) => Some(Value::Null),
                    // lists are only read back in release_to
                    Some(Cell::List(items)) if field == "release_to" => {
                        Some(Value::Array(items.into_iter().map(Value::String).collect()))
                    }
                    Some(Cell::List(items)) => Some(Value::String(items.join(" "))),
                    Some(Cell::Text(s)) => Some(Value::String(s)),
                })
                .collect();
            let back = round_trip(&values, &order);
            for (field, value) in order.iter().zip(&values) {
                // what the form cannot say: empty text and null outside valid_to are absent,
                // an empty list or a list of one empty item is absent
                let expected = match value {
                    Some(Value::Null) if field != "valid_to" => None,
                    Some(Value::String(s)) if s.is_empty() => None,
                    Some(Value::Array(items))
                        if items.is_empty() || (items.len() == 1 && items[0] == "") =>
                    {
                        None
                    }
                    other => other.as_ref(),
                };
                assert_eq!(back.get(field), expected, "field {field}");
            }
        }
    }
});
