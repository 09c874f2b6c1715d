//! A record's roles as the checks read them, from either form a record comes in:
//!
//! - built fields (`Record::fields`) read through the field map: any map, any shape;
//! - the record's raw text, when every role the checks read is one top-level key (the identity
//!   map, plain renames): the values are then borrowed from the text, and a plain string —
//!   most values — is never copied. This is what makes a check of a million-record store take
//!   about as long as reading it.
//!
//! Both give the same answers: a role's value is the same JSON value either way, only held
//! differently ([`RoleValue`]).

use crate::mapping::{FieldMap, FieldPath};
use crate::record::{is_blank, is_filled, is_truthy, py_str, Record};
use crate::store::{KeySlots, RawFields, View};
use crate::time::{self, DateError, Timestamp};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::sync::OnceLock;

/// One role's value: a string borrowed from the record's text, or a JSON value.
#[derive(Debug, Clone)]
pub enum RoleValue<'a> {
    Text(Cow<'a, str>),
    Json(Cow<'a, Value>),
}

impl<'a> RoleValue<'a> {
    fn of_raw(text: &'a str) -> RoleValue<'a> {
        if text.len() >= 2 && text.starts_with('"') && !text.contains('\\') {
            return RoleValue::Text(Cow::Borrowed(&text[1..text.len() - 1]));
        }
        // the literals most records hold (an open valid_to is `null`), without a parser
        let literal = match text {
            "null" => Some(Value::Null),
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        };
        if let Some(value) = literal {
            return RoleValue::Json(Cow::Owned(value));
        }
        // the reader validated the text with the same parser, so this cannot fail
        RoleValue::Json(Cow::Owned(
            serde_json::from_str(text).unwrap_or(Value::Null),
        ))
    }

    /// Present and not empty (the reference's rule).
    pub fn is_filled(&self) -> bool {
        match self {
            RoleValue::Text(s) => !is_blank(s),
            RoleValue::Json(v) => is_filled(v),
        }
    }

    /// Python's truthiness of the value.
    pub fn is_truthy(&self) -> bool {
        match self {
            RoleValue::Text(s) => !is_blank(s),
            RoleValue::Json(v) => is_truthy(v),
        }
    }

    /// The text the reference prints for the value, borrowed from the record when it can be.
    pub fn text(&self) -> Cow<'a, str> {
        match self {
            RoleValue::Text(Cow::Borrowed(s)) => Cow::Borrowed(s),
            RoleValue::Text(Cow::Owned(s)) => Cow::Owned(s.clone()),
            RoleValue::Json(v) => Cow::Owned(py_str(v)),
        }
    }

    /// The text the reference prints for the value.
    pub fn py_str(&self) -> String {
        match self {
            RoleValue::Text(s) => s.to_string(),
            RoleValue::Json(v) => py_str(v),
        }
    }

    pub fn parse_time(&self) -> Result<Timestamp, DateError> {
        match self {
            RoleValue::Text(s) => time::parse(s),
            RoleValue::Json(v) => time::parse_value(v),
        }
    }

    /// The value as JSON (a string is built only here).
    pub fn json(&self) -> Cow<'_, Value> {
        match self {
            RoleValue::Text(s) => Cow::Owned(Value::String(s.to_string())),
            RoleValue::Json(v) => Cow::Borrowed(v),
        }
    }

    /// The items when the value is a list.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            RoleValue::Json(v) => v.as_array().map(Vec::as_slice),
            RoleValue::Text(_) => None,
        }
    }
}

/// Every role the checks read, in a fixed order: a role is asked for by its number, so reading
/// one from raw text is an index into a table, not a lookup by name.
pub fn role_names() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut roles = super::rules::ReferenceRules::role_names();
        roles.extend(super::values::ROLES);
        roles.sort_unstable();
        roles.dedup();
        roles
    })
}

/// Roles past this many are looked up each time they are asked for (the profile has fewer).
const MAX_ROLES: usize = 32;

/// A role the checks ask for: its name (read through the map) and its number (read from raw
/// text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Role {
    pub name: &'static str,
    index: usize,
}

impl Role {
    pub fn named(name: &'static str) -> Role {
        Role {
            name,
            index: role_names().binary_search(&name).unwrap_or(usize::MAX),
        }
    }
}

/// How roles are found in records read as raw text: the slot of each role's key, by role
/// number.
#[derive(Clone)]
pub struct RawPlan {
    pub slots: KeySlots,
    slot_of: Vec<Option<usize>>,
}

impl RawPlan {
    /// A plan when every role is one plain top-level key under `map` (else `None`: the
    /// records must be built and read through the map). `literal` keys are read as they are.
    pub fn new(map: &FieldMap, literal: &[&str]) -> Option<RawPlan> {
        let mut keys: Vec<String> = Vec::new();
        for role in role_names() {
            keys.push(map.path(role).single_key()?.to_string());
        }
        let slots = KeySlots::new(
            keys.iter()
                .map(String::as_str)
                .chain(literal.iter().copied()),
        );
        let slot_of = keys.iter().map(|key| slots.slot(key)).collect();
        Some(RawPlan { slots, slot_of })
    }

    fn slot(&self, role: Role) -> Option<usize> {
        self.slot_of.get(role.index).copied().flatten()
    }
}

/// A record's roles, ready to be read.
// `Spans` carries its role texts inline (a few hundred bytes): a `Roles` lives on the stack
// for the one record being read and is never stored, and boxing would cost an allocation a
// record.
#[allow(clippy::large_enum_variant)]
pub enum Roles<'a> {
    Built {
        map: &'a FieldMap,
        fields: Cow<'a, Map<String, Value>>,
    },
    /// Values read from the raw text at the places the reader noted.
    Spans {
        plan: &'a RawPlan,
        view: View<'a>,
        /// Each role's raw text, by role number, looked up once: the rules and the value
        /// checks ask for most roles more than once.
        texts: [Option<&'a str>; MAX_ROLES],
    },
    /// Values read from the raw text, found by parsing it (records of other shapes).
    Raw {
        plan: &'a RawPlan,
        fields: RawFields<'a>,
    },
}

impl<'a> Roles<'a> {
    /// The roles of built fields, read through the map.
    pub fn built(map: &'a FieldMap, fields: &'a Map<String, Value>) -> Roles<'a> {
        Roles::Built {
            map,
            fields: Cow::Borrowed(fields),
        }
    }

    /// The roles of a record seen in place: each read from the text at its slot, once.
    pub fn spans(plan: &'a RawPlan, view: View<'a>) -> Roles<'a> {
        let mut texts = [None; MAX_ROLES];
        for (i, text) in texts.iter_mut().enumerate() {
            *text = plan
                .slot_of
                .get(i)
                .copied()
                .flatten()
                .and_then(|slot| view.slot_text(slot));
        }
        Roles::Spans { plan, view, texts }
    }

    /// The roles of a record: from its raw text when there is a plan; else from its fields,
    /// built here from the raw text when the reader kept only the text (`raw_only`).
    pub fn of(
        record: &'a Record,
        map: &'a FieldMap,
        plan: Option<&'a RawPlan>,
        raw_only: bool,
    ) -> Roles<'a> {
        if let Some(plan) = plan {
            if let Some(spans) = &record.spans {
                let view = View {
                    text: &record.raw,
                    spans,
                    line: record.origin.line,
                    offset: record.origin.offset,
                };
                return Roles::spans(plan, view);
            }
            if let Some(fields) = RawFields::parse(&record.raw, &plan.slots) {
                return Roles::Raw { plan, fields };
            }
        }
        if raw_only {
            if let Ok(fields) = serde_json::from_str::<Map<String, Value>>(&record.raw) {
                return Roles::Built {
                    map,
                    fields: Cow::Owned(fields),
                };
            }
        }
        Roles::built(map, &record.fields)
    }

    /// The value of a role (`None` when absent; inverse roles read as absent).
    pub fn get(&self, role: Role) -> Option<RoleValue<'_>> {
        match self {
            Roles::Built { map, fields } => map.get(role.name, fields).map(RoleValue::Json),
            Roles::Spans { plan, view, texts } => match texts.get(role.index) {
                Some(text) => text.map(RoleValue::of_raw),
                None => view.slot_text(plan.slot(role)?).map(RoleValue::of_raw),
            },
            Roles::Raw { plan, fields } => fields.get(plan.slot(role)?).map(RoleValue::of_raw),
        }
    }

    /// The value of a role when it is filled.
    pub fn filled(&self, role: Role) -> Option<RoleValue<'_>> {
        self.get(role).filter(RoleValue::is_filled)
    }

    /// The value under a literal top-level key, whatever the map says.
    pub fn literal(&self, key: &str) -> Option<RoleValue<'_>> {
        match self {
            Roles::Built { fields, .. } => {
                fields.get(key).map(|v| RoleValue::Json(Cow::Borrowed(v)))
            }
            Roles::Spans { plan, view, .. } => {
                view.slot_text(plan.slots.slot(key)?).map(RoleValue::of_raw)
            }
            Roles::Raw { plan, fields } => fields.get(plan.slots.slot(key)?).map(RoleValue::of_raw),
        }
    }

    /// The value at a path, read forwards (an inverse role's pointers).
    pub fn path(&self, path: &FieldPath) -> Option<RoleValue<'_>> {
        match self {
            Roles::Built { fields, .. } => path.get(fields).map(RoleValue::Json),
            // a plan exists only when no role is inverse: no path is read from raw text
            Roles::Spans { .. } | Roles::Raw { .. } => None,
        }
    }
}
