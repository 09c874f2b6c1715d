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
        // (or, for a lone surrogate escape, the Python reading that took the line)
        RoleValue::Json(Cow::Owned(
            serde_json::from_str(text)
                .or_else(|_| crate::store::pyjson::parse(text))
                .unwrap_or(Value::Null),
        ))
    }

    /// [`RoleValue::of_raw`] of a text known to be a string without escapes when `plain`
    /// (the scanner noted it), which is then the text between the quotes, no search needed.
    #[inline(always)]
    fn of_raw_known(text: &'a str, plain: bool) -> RoleValue<'a> {
        match inside_quotes(text) {
            Some(inside) if plain => RoleValue::Text(Cow::Borrowed(inside)),
            _ => RoleValue::of_raw(text),
        }
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

/// The text between the quotes of a string's raw JSON text (`None` if it is too short).
#[inline(always)]
fn inside_quotes(text: &str) -> Option<&str> {
    text.get(1..text.len().saturating_sub(1))
}

/// How a role's value counts, which is all most checks ask: absent; present but empty (null,
/// blank, `[]`, `{}`); filled but false to Python (`false`, `0`); filled and truthy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Presence {
    Absent,
    Empty,
    Falsy,
    Truthy,
}

impl Presence {
    fn of(value: Option<&RoleValue>) -> Presence {
        match value {
            None => Presence::Absent,
            Some(v) if !v.is_filled() => Presence::Empty,
            Some(v) if v.is_truthy() => Presence::Truthy,
            Some(_) => Presence::Falsy,
        }
    }

    #[inline]
    pub fn is_present(self) -> bool {
        self != Presence::Absent
    }

    /// Present and not empty (the reference's rule).
    #[inline]
    pub fn is_filled(self) -> bool {
        self >= Presence::Falsy
    }
}

/// One role's raw JSON text in a line, sized up once: the checks ask most roles several
/// times, mostly only how they count, and most values are plain strings or literals that need
/// no parser.
#[derive(Debug, Clone, Copy)]
pub struct RawRole<'a> {
    text: &'a str,
    presence: Presence,
    /// A string without escapes: its value is the text between the quotes.
    plain: bool,
}

impl<'a> RawRole<'a> {
    /// Size up a value's raw text; `plain`: it is known to be a string without escapes.
    fn of(text: &'a str, plain: bool) -> RawRole<'a> {
        let bytes = text.as_bytes();
        let role = |presence, plain| RawRole {
            text,
            presence,
            plain,
        };
        let filled = |filled: bool| {
            if filled {
                Presence::Truthy
            } else {
                Presence::Empty
            }
        };
        let plain =
            plain || (bytes.first() == Some(&b'"') && memchr::memchr(b'\\', bytes).is_none());
        match bytes.first() {
            // most strings start with a printable character: filled, nothing more to look at
            Some(b'"')
                if plain
                    && bytes
                        .get(1)
                        .is_some_and(|&b| b != b'"' && b.is_ascii_graphic()) =>
            {
                role(Presence::Truthy, true)
            }
            Some(b'"') if plain && text.len() >= 2 => {
                role(filled(!is_blank(&text[1..text.len() - 1])), true)
            }
            Some(b'n') if text == "null" => role(Presence::Empty, false),
            Some(b't') if text == "true" => role(Presence::Truthy, false),
            Some(b'f') if text == "false" => role(Presence::Falsy, false),
            // a list or an object is filled (and truthy) when anything is inside
            Some(b'[' | b'{') => {
                let inside = bytes[1..bytes.len().saturating_sub(1)].trim_ascii();
                role(filled(!inside.is_empty()), false)
            }
            // numbers, escaped strings: as the parsed value counts
            _ => role(Presence::of(Some(&RoleValue::of_raw(text))), false),
        }
    }

    #[inline(always)]
    fn value(&self) -> RoleValue<'a> {
        RoleValue::of_raw_known(self.text, self.plain)
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
const MAX_ROLES: usize = 20;

/// How a record's roles count, as bit sets (bit i: role number i), for the checks that ask
/// only that of many roles at once.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PresenceBits {
    pub present: u32,
    pub filled: u32,
    pub truthy: u32,
}

impl PresenceBits {
    /// The bit of a role in these sets (0 for a role past [`MAX_ROLES`], which is not in them).
    pub fn bit(role: Role) -> u32 {
        1u32.checked_shl(role.index.try_into().unwrap_or(u32::MAX))
            .unwrap_or(0)
    }

    fn add(&mut self, index: usize, presence: Presence) {
        let bit = 1u32 << index;
        self.present |= bit;
        if presence.is_filled() {
            self.filled |= bit;
        }
        if presence == Presence::Truthy {
            self.truthy |= bit;
        }
    }
}

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
    /// The roles [`Roles::spans`] sizes up (the first [`MAX_ROLES`]), each with its slot.
    sized: Vec<(usize, usize)>,
    /// The literal keys and their slots, looked through in order (a few short keys: no hash).
    literal_slots: Vec<(String, usize)>,
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
        let slot_of: Vec<Option<usize>> = keys.iter().map(|key| slots.slot(key)).collect();
        let sized = slot_of
            .iter()
            .take(MAX_ROLES)
            .enumerate()
            .filter_map(|(index, slot)| Some((index, (*slot)?)))
            .collect();
        let literal_slots = literal
            .iter()
            .filter_map(|key| Some((key.to_string(), slots.slot(key)?)))
            .collect();
        Some(RawPlan {
            slots,
            slot_of,
            sized,
            literal_slots,
        })
    }

    fn literal_slot(&self, key: &str) -> Option<usize> {
        self.literal_slots
            .iter()
            .find(|(k, _)| crate::bytes::same(k.as_bytes(), key.as_bytes()))
            .map(|&(_, slot)| slot)
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
        /// Each role's raw text, by role number, looked up and sized up once: the rules and
        /// the value checks ask for most roles more than once.
        texts: [Option<RawRole<'a>>; MAX_ROLES],
        /// How each counts, as bit sets by role number.
        counts: PresenceBits,
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
        let mut counts = PresenceBits::default();
        for &(index, slot) in &plan.sized {
            if let Some(raw) = view.slot_text(slot) {
                let raw = RawRole::of(raw, view.is_plain(slot));
                counts.add(index, raw.presence);
                if let Some(text) = texts.get_mut(index) {
                    *text = Some(raw);
                }
            }
        }
        Roles::Spans {
            plan,
            view,
            texts,
            counts,
        }
    }

    /// How every role counts, as bit sets, when the roles were sized up from raw text (roles
    /// past [`MAX_ROLES`] are not in them: [`PresenceBits::bit`] gives them no bit).
    #[inline]
    pub fn counts(&self) -> Option<PresenceBits> {
        match self {
            Roles::Spans { counts, .. } => Some(*counts),
            _ => None,
        }
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
                    plain: 0,
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
            if let Some(fields) = crate::store::pyjson::object(&record.raw) {
                return Roles::Built {
                    map,
                    fields: Cow::Owned(fields),
                };
            }
        }
        Roles::built(map, &record.fields)
    }

    /// The value of a role (`None` when absent; inverse roles read as absent).
    #[inline]
    pub fn get(&self, role: Role) -> Option<RoleValue<'_>> {
        if let Some(raw) = self.sized_up(role) {
            return raw.map(|raw| raw.value());
        }
        match self {
            Roles::Built { map, fields } => map.get(role.name, fields).map(RoleValue::Json),
            Roles::Spans { plan, view, .. } => {
                view.slot_text(plan.slot(role)?).map(RoleValue::of_raw)
            }
            Roles::Raw { plan, fields } => fields.get(plan.slot(role)?).map(RoleValue::of_raw),
        }
    }

    /// The role's raw text as [`Roles::spans`] sized it up (`Some(None)`: absent), or `None`
    /// when it was not (other forms, roles past [`MAX_ROLES`]).
    #[inline]
    fn sized_up(&self, role: Role) -> Option<Option<RawRole<'a>>> {
        match self {
            Roles::Spans { texts, .. } => texts.get(role.index).copied(),
            _ => None,
        }
    }

    /// A filled role's raw JSON text, when the roles were sized up from raw text: `Some(None)`
    /// when the role is not filled, `None` when the text is not at hand (other forms).
    pub fn filled_text(&self, role: Role) -> Option<Option<&'a str>> {
        self.sized_up(role).map(|raw| {
            raw.filter(|raw| raw.presence.is_filled())
                .map(|raw| raw.text)
        })
    }

    /// How a role's value counts (without reading the value, when the text was sized up).
    #[inline(always)]
    pub fn presence(&self, role: Role) -> Presence {
        match self.sized_up(role) {
            Some(raw) => raw.map_or(Presence::Absent, |raw| raw.presence),
            None => Presence::of(self.get(role).as_ref()),
        }
    }

    /// The value of a role when it is filled.
    #[inline(always)]
    pub fn filled(&self, role: Role) -> Option<RoleValue<'_>> {
        match self.sized_up(role) {
            Some(raw) => raw
                .filter(|raw| raw.presence.is_filled())
                .map(|raw| raw.value()),
            None => self.get(role).filter(RoleValue::is_filled),
        }
    }

    /// A filled role that is a plain string: its text, borrowed from the line; `None` for
    /// anything else (read it with [`Roles::filled`]). Cheaper than building a
    /// [`RoleValue`] for the texts nearly every record holds.
    #[inline(always)]
    fn filled_plain(&self, role: Role) -> Option<&'a str> {
        let raw = self.sized_up(role)??;
        if raw.plain && raw.presence.is_filled() {
            inside_quotes(raw.text)
        } else {
            None
        }
    }

    /// A filled role's text as the reference prints it ([`RoleValue::text`]): borrowed from
    /// the line when the role is a plain string ([`Roles::filled_plain`]).
    #[inline(always)]
    pub fn filled_str(&self, role: Role) -> Option<Cow<'_, str>> {
        match self.filled_plain(role) {
            Some(plain) => Some(Cow::Borrowed(plain)),
            None => self.filled(role).map(|v| v.text()),
        }
    }

    /// A filled role read as a date or a timestamp (straight from the line when it is a
    /// plain string).
    #[inline(always)]
    pub fn filled_time(&self, role: Role) -> Option<Result<Timestamp, DateError>> {
        match self.filled_plain(role) {
            Some(plain) => Some(time::parse(plain)),
            None => self.filled(role).map(|v| v.parse_time()),
        }
    }

    /// The value under a literal top-level key, whatever the map says.
    pub fn literal(&self, key: &str) -> Option<RoleValue<'_>> {
        match self {
            Roles::Built { fields, .. } => {
                fields.get(key).map(|v| RoleValue::Json(Cow::Borrowed(v)))
            }
            Roles::Spans { plan, view, .. } => {
                let slot = plan.literal_slot(key)?;
                let text = view.slot_text(slot)?;
                Some(RoleValue::of_raw_known(text, view.is_plain(slot)))
            }
            Roles::Raw { plan, fields } => {
                fields.get(plan.literal_slot(key)?).map(RoleValue::of_raw)
            }
        }
    }

    /// The value under a literal top-level key when it is a plain string, borrowed from the
    /// line; `None` for anything else (read it with [`Roles::literal`]).
    #[inline(always)]
    fn literal_plain(&self, key: &str) -> Option<&'a str> {
        match self {
            Roles::Spans { plan, view, .. } => {
                let slot = plan.literal_slot(key)?;
                let text = view.slot_text(slot)?;
                if view.is_plain(slot) {
                    inside_quotes(text)
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// The value under a literal top-level key read as a date or a timestamp (straight from
    /// the line when it is a plain string).
    #[inline(always)]
    pub fn literal_time(&self, key: &str) -> Option<Result<Timestamp, DateError>> {
        match self.literal_plain(key) {
            Some(plain) => Some(time::parse(plain)),
            None => self.literal(key).map(|v| v.parse_time()),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Sized up from the raw text, a value counts as the parsed value does.
    #[test]
    fn raw_text_counts_as_the_parsed_value() {
        for text in [
            r#""x""#,
            r#""""#,
            r#"" ""#,
            r#""\t""#,
            r#""\\""#,
            r#""\u00a0""#,
            r#""\u0041""#,
            "null",
            "true",
            "false",
            "0",
            "-0",
            "0.0",
            "0e5",
            "1",
            "-2.5",
            "[]",
            "[ ]",
            "[0]",
            "[[]]",
            "{}",
            "{ }",
            r#"{"a": null}"#,
        ] {
            let parsed: Value = serde_json::from_str(text).expect(text);
            let expected = Presence::of(Some(&RoleValue::Json(Cow::Owned(parsed.clone()))));
            for plain_known in [false, true] {
                // a scanner says "plain" only of strings without escapes
                let plain_string = text.starts_with('"') && !text.contains('\\');
                if plain_known && !plain_string {
                    continue;
                }
                let raw = RawRole::of(text, plain_known);
                assert_eq!(raw.presence, expected, "{text}");
                assert_eq!(raw.value().json().into_owned(), parsed, "{text}");
            }
        }
    }
}
