//! The record view: a record's roles as a command reads them, whatever form the reader found
//! the record in. The reader hands every looking command (`check`, `compact`, selection) one
//! [`RecordView`] per record, and the command asks it for roles by number:
//!
//! - a JSON line the reader's scanner took is seen in place: each role's value is read from
//!   the line's text at the place the scanner noted, and a plain string — most values — is
//!   never copied; a role one key inside a top-level object (an engrama node's
//!   `properties.valid_from`) is read the same way, the object's keys scanned from its text
//!   as the view is made;
//! - a record whose values were found by parsing its text (an escaped line, a compact line
//!   read back) is read the same way, from the text;
//! - a record built as fields (a deeper path in the map, a record read whole) is read through
//!   the field map.
//!
//! All give the same answers: a role's value is the same JSON value either way, only held
//! differently ([`RoleValue`]). Which map applies — the one given, or a store's own — is the
//! reader's to settle (`maps.rs`), once per store.

use super::decode::keep::{KeySlots, RawFields};
use super::decode::{pyjson, scan};
use crate::mapping::{gather, listed, FieldMap, FieldPath, KeyAt, KeyPlace};
use crate::record::{
    collect_ids, is_blank, is_filled, is_truthy, py_str, slot_text, Origin, Record, Span,
};
use crate::time::{self, DateError, Timestamp};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// One role's value: a string borrowed from the record's text, or a JSON value.
#[derive(Debug, Clone)]
pub enum RoleValue<'a> {
    Text(Cow<'a, str>),
    Json(Cow<'a, Value>),
}

impl<'a> RoleValue<'a> {
    /// Record ids named by this value: a filled string, or what [`collect_ids`] finds.
    pub fn collect_ids(&self, out: &mut std::collections::HashSet<String>) {
        match self {
            RoleValue::Text(s) if self.is_filled() => {
                out.insert(s.to_string());
            }
            RoleValue::Text(_) => {}
            RoleValue::Json(v) => collect_ids(v, out),
        }
    }

    /// The value of a role from its raw JSON text.
    pub fn of_raw(text: &'a str) -> RoleValue<'a> {
        if text.len() >= 2 && text.starts_with('"') && !text.contains('\\') {
            return RoleValue::Text(Cow::Borrowed(&text[1..text.len() - 1]));
        }
        // an escaped string (Python writes every character past ASCII so) decoded here: what
        // serde_json would decode it to, without building a value around it
        if let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
            if let Some(decoded) = scan::decode_string(inner) {
                return RoleValue::Text(Cow::Owned(decoded));
            }
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
                .or_else(|_| pyjson::parse(text))
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

    /// The value as JSON, owned.
    pub fn into_json(self) -> Value {
        match self {
            RoleValue::Text(s) => Value::String(s.into_owned()),
            RoleValue::Json(v) => v.into_owned(),
        }
    }

    /// The value is JSON's `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, RoleValue::Json(v) if v.is_null())
    }

    /// The items when the value is a list.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            RoleValue::Json(v) => v.as_array().map(Vec::as_slice),
            RoleValue::Text(_) => None,
        }
    }
}

/// A role's value as a writer takes it ([`RecordView::raw_or_value`]).
pub enum RawOrValue<'a> {
    /// Its raw JSON text, as the record holds it.
    Raw(&'a str),
    Value(RoleValue<'a>),
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
struct RawRole<'a> {
    text: &'a str,
    presence: Presence,
    /// A string without escapes: its value is the text between the quotes.
    plain: bool,
}

impl<'a> RawRole<'a> {
    /// Size up a value's raw text; `plain`: it is known to be a string without escapes.
    #[inline(always)]
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
            // (an escaped one too, when its first character is not an escape)
            Some(b'"')
                if bytes
                    .get(1)
                    .is_some_and(|&b| b != b'"' && b != b'\\' && b.is_ascii_graphic()) =>
            {
                role(Presence::Truthy, plain)
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

/// The roles one command reads, numbered once: a role is asked for by its number, so reading
/// one from a line's text is an index into a table, not a lookup by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleSet {
    /// Sorted, each once.
    names: Vec<&'static str>,
    /// Which set this is: its roles carry it, so a view reads by number only the roles of
    /// the set it was planned for (one number per set made; a clone is the same set).
    id: u32,
}

impl RoleSet {
    pub fn new(names: impl IntoIterator<Item = &'static str>) -> RoleSet {
        static SETS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        let mut names: Vec<&'static str> = names.into_iter().collect();
        names.sort_unstable();
        names.dedup();
        RoleSet {
            names,
            id: SETS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// The role of this set with this name; a role the set lacks is read by its name, the
    /// slow way (see [`RecordView::get`]).
    pub fn role(&self, name: &'static str) -> Role {
        match self.names.binary_search(&name) {
            Ok(index) => Role {
                name,
                index,
                set: self.id,
            },
            Err(_) => Role::by_name(name),
        }
    }

    pub fn names(&self) -> &[&'static str] {
        &self.names
    }
}

/// A role a command asks for: its name (read through the map) and its number in the command's
/// [`RoleSet`] (read from a line's text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Role {
    pub name: &'static str,
    index: usize,
    /// The set that numbers it (0: none).
    set: u32,
}

impl Role {
    /// A role read by its name only: for records read whole, whose roles are read through the
    /// map (see [`ViewPlan::fields`]).
    pub fn by_name(name: &'static str) -> Role {
        Role {
            name,
            index: usize::MAX,
            set: 0,
        }
    }
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
    /// The bit of a role in these sets (0 for a role past `MAX_ROLES`, which is not in them).
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

/// How the roles of one [`RoleSet`] are found in the records of a store read through one map:
/// through the map in built fields, and, when no role is inverse, at the slots of the keys
/// they read in the record's text (a role one plain top-level key or one key inside one
/// top-level object read there as it is; a role whose path chooses among such keys, gathers
/// them or reads a list in one, read from the values at their slots; any other computed from
/// the values of the top-level keys its path reads).
#[derive(Debug, Clone)]
pub struct ViewPlan {
    map: FieldMap,
    /// The role set's names, by number ...
    names: Vec<&'static str>,
    /// ... and the set: a role of another set is read by its name.
    set: u32,
    /// Literal top-level keys a command reads whatever the map says.
    literal: Vec<&'static str>,
    slots: Option<SlotPlan>,
}

/// Where each role's key lies in a record's text, by slot.
#[derive(Debug, Clone)]
struct SlotPlan {
    /// The top-level keys, whose places the reader notes.
    slots: KeySlots,
    /// How each role is read, by role number.
    reads: Vec<Read>,
    /// The roles a view sizes up when it is made (the first [`MAX_ROLES`]), each with its
    /// slot: empty unless the command asks how every role counts ([`RecordView::counts`]).
    sized: Vec<(usize, usize)>,
    /// Each view sizes up its roles as it is made (the command asks how all of them count).
    sizes: bool,
    /// The literal keys and their slots, looked through in order (a few short keys: no hash).
    literal_slots: Vec<(&'static str, usize)>,
    /// The keys inside one top-level object that roles read, when there are some.
    inside: Option<Inside>,
    /// The roles whose path chooses among places at slots ([`Read::Chosen`]).
    chosen: Vec<Chosen>,
    /// The roles whose path reads places the reader does not note (`a[].b`, `a.b.c`, a key
    /// inside a second object): each read through the map from the top-level keys its path
    /// reads, parsed from their slots as the role is asked for.
    computed: Vec<Computed>,
    /// The top-level keys they read, all together, each with its slot and the keys inside
    /// its value that they read (`None`: the value itself): a view that sizes up its roles
    /// reads each once for all of them.
    computed_keys: Vec<(String, usize, Option<Vec<String>>)>,
}

/// How a role is read from a record's text.
#[derive(Debug, Clone, Copy)]
enum Read {
    /// As the value at one slot: a plain top-level key, or one key inside an object (its
    /// whole path as one key first).
    Slot(usize),
    /// Through [`SlotPlan::chosen`]'s entry: a choice among places at slots.
    Chosen(usize),
    /// Through [`SlotPlan::computed`]'s entry: parsed through the path.
    Computed(usize),
}

/// A role whose path chooses among places the reader notes (`id | chroma:id`, `list(a)`,
/// `user_id + agent_id`, `metadata.a | a`): its value is the first choice's that holds one,
/// read from the values at the places' slots alone. The path's whole text, as one key, is the
/// first choice.
#[derive(Debug, Clone)]
struct Chosen {
    index: usize,
    /// Each choice: its places, each a slot and whether it is `list(…)`.
    choices: Vec<Vec<(usize, bool)>>,
}

/// A chosen role's value in one record: the text at a slot (a place that holds a value as
/// it is, and whether that text is a plain string), or a value made of the places' values (a
/// list read from a string, values gathered).
enum Found<'t> {
    Text(&'t str, bool),
    Value(Value),
}

impl Chosen {
    /// The role's value, the text at each slot given by `at` (and whether it is a plain
    /// string); `None`: absent. As [`FieldPath::get`] reads the record built whole.
    #[inline]
    fn find<'t>(&self, at: impl Fn(usize) -> Option<(&'t str, bool)>) -> Option<Found<'t>> {
        for choice in &self.choices {
            if let [(slot, list)] = choice.as_slice() {
                let Some((text, plain)) = at(*slot) else {
                    continue;
                };
                if *list && text.starts_with('"') {
                    let text = RoleValue::of_raw_known(text, plain).into_json();
                    return Some(Found::Value(listed(true, Cow::Owned(text)).into_owned()));
                }
                return Some(Found::Text(text, plain));
            }
            let values = choice.iter().map(|&(slot, list)| {
                let (text, plain) = at(slot)?;
                let value = RoleValue::of_raw_known(text, plain).into_json();
                Some(listed(list, Cow::Owned(value)))
            });
            if let Some(value) = gather(values) {
                return Some(Found::Value(value));
            }
        }
        None
    }
}

/// A role read through its path from the values of a few top-level keys.
#[derive(Debug, Clone)]
struct Computed {
    index: usize,
    path: FieldPath,
    /// The top-level keys the path reads, each with its slot and, when the path reads only
    /// keys inside its value, those keys.
    keys: Vec<(String, usize, Option<Vec<String>>)>,
}

impl Computed {
    /// The role's value: the path read through the keys it reaches, each parsed from its
    /// text (which the reader has validated) as the path asks for it.
    fn value<'t>(&self, text_at: impl Fn(usize) -> Option<&'t str>) -> Option<Value> {
        self.path.get_parsed(|key| {
            let (_, slot, inside) = self.keys.iter().find(|(k, _, _)| k == key)?;
            parse_value(text_at(*slot)?, inside.as_deref())
        })
    }
}

/// A value's text parsed (the reader has validated it); of an object whose keys `inside`
/// names, only those keys.
fn parse_value(text: &str, inside: Option<&[String]>) -> Option<Value> {
    match inside {
        Some(inside) if text.starts_with('{') => {
            let mut de = serde_json::Deserializer::from_str(text);
            serde::de::DeserializeSeed::deserialize(Only(inside), &mut de).ok()
        }
        _ => serde_json::from_str(text).ok(),
    }
}

/// An object's text read into an object of only the keys named (the last of a repeated
/// key, as a whole read keeps it); the other values are stepped over, not built.
struct Only<'k>(&'k [String]);

impl<'de> serde::de::DeserializeSeed<'de> for Only<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Only<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut kept = Map::new();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if self.0.iter().any(|k| *k == key) {
                kept.insert(key.into_owned(), map.next_value()?);
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(Value::Object(kept))
    }
}

/// Keys inside one top-level object that roles read (the engrama map's
/// `properties.valid_from`, the mem0 map's `metadata.source | source`): the reader notes
/// where the object lies, and a view scans the object's text for its keys, into slots
/// numbered after the top-level ones (a view then reads every role the same way).
#[derive(Debug, Clone)]
struct Inside {
    /// The top-level slot of the object (`properties`).
    object: usize,
    /// How many top-level slots there are: the keys inside take the slots after them.
    outer: usize,
    /// The keys inside the object.
    slots: KeySlots,
    /// The roles one key inside the object, whose lookup reads their whole path as one key
    /// first ([`Dotted`]).
    dotted: Vec<Dotted>,
    /// How many slots there are in all.
    len: usize,
}

/// A role one key inside the object (`properties.valid_from`): its whole path is a top-level
/// key too (`"properties.valid_from"`), which a lookup by path reads first.
#[derive(Debug, Clone)]
struct Dotted {
    /// The key's slot among those inside (from 0).
    inner: usize,
    /// The top-level slot of the whole path as one key.
    literal: usize,
    /// The slot the role reads, which holds the literal key's value when there is one, else
    /// the key's inside: the key's own slot, or, when a choice also reads the key inside
    /// (which a whole path does not stand for), one past the keys inside.
    target: usize,
}

/// Slots a view can hold: its plain-string bits are one word.
const MAX_SLOTS: usize = 64;

impl Inside {
    /// The top-level spans with the keys inside the object noted after them, into `all`;
    /// returns how many slots that is and their plain-string bits. `None` when the object is
    /// left to serde_json ([`scan::object_spans`]): the record is then read from its
    /// fields.
    #[inline]
    fn spans(
        &self,
        text: &str,
        spans: &[Span],
        plain: u64,
        all: &mut [Span; MAX_SLOTS],
    ) -> Option<(usize, u64)> {
        if spans.len() != self.outer {
            return None;
        }
        all[..self.outer].copy_from_slice(spans);
        let inner = &mut all[self.outer..self.outer + self.slots.len()];
        let mut inner_plain = 0;
        match slot_text(text, spans, self.object) {
            // a value that is not an object has no keys: a path through it finds nothing
            Some(object) if object.starts_with('{') => {
                let start = spans[self.object].0;
                inner_plain = scan::object_spans(object, &self.slots, inner)?;
                for span in inner.iter_mut().filter(|s| s.1 != 0) {
                    *span = (span.0 + start, span.1 + start);
                }
            }
            _ => inner.fill((0, 0)),
        }
        let mut plain = (plain & low_bits(self.outer)) | (inner_plain << self.outer);
        for dotted in &self.dotted {
            let from = match spans[dotted.literal].1 != 0 {
                true => dotted.literal,
                false => self.outer + dotted.inner,
            };
            let (target, from_plain) = (dotted.target, is_plain(plain, from));
            all[target] = all[from];
            plain = (plain & !(1 << target)) | (u64::from(from_plain) << target);
        }
        Some((self.len, plain))
    }
}

/// The bits below `n` (all 64 from 64 up).
fn low_bits(n: usize) -> u64 {
    1u64.checked_shl(n as u32).map_or(u64::MAX, |b| b - 1)
}

impl ViewPlan {
    /// The plan for `roles` and the `literal` keys through `map`; with `sized`, each view
    /// sizes up every role as it is made (for a command that asks how all of them count).
    /// The reader also notes where `reader_keys` lie, which it reads for itself (an engrama
    /// dump's line kind).
    pub fn new(
        map: &FieldMap,
        roles: &RoleSet,
        literal: &[&'static str],
        reader_keys: &[&str],
        sized: bool,
    ) -> ViewPlan {
        let slots = SlotPlan::top_keys(map, roles).and_then(|keys| {
            let slots = KeySlots::new(
                keys.iter()
                    .map(String::as_str)
                    .chain(literal.iter().copied())
                    .chain(reader_keys.iter().copied()),
            );
            SlotPlan::new(map, roles, literal, sized, slots)
        });
        ViewPlan {
            map: map.clone(),
            names: roles.names.clone(),
            set: roles.id,
            literal: literal.to_vec(),
            slots,
        }
    }

    /// A plan that reads built fields only, through `map`: for records read whole.
    pub fn fields(map: &FieldMap) -> ViewPlan {
        ViewPlan {
            map: map.clone(),
            names: Vec::new(),
            set: 0,
            literal: Vec::new(),
            slots: None,
        }
    }

    /// The same plan reading built fields only (for records the reader builds whole).
    pub fn without_slots(&self) -> ViewPlan {
        ViewPlan {
            slots: None,
            ..self.clone()
        }
    }

    pub fn map(&self) -> &FieldMap {
        &self.map
    }

    /// The top-level keys' slots, when no role is inverse (and the keys inside lie in one
    /// object): the reader then notes where their values lie in each line and builds nothing.
    pub fn key_slots(&self) -> Option<&KeySlots> {
        self.slots.as_ref().map(|s| &s.slots)
    }

    /// The top-level keys the roles (and the literal keys) start with: what a reader must
    /// build of a record for this plan to read it from fields.
    pub fn top_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.literal.iter().map(|k| k.to_string()).collect();
        for role in &self.names {
            // an inverse role's path is read forwards, from the same keys
            keys.extend(self.map.path(role).top_keys().map(str::to_string));
        }
        keys
    }

    /// The view of a record read as fields (or as its text with slots noted, or with nothing
    /// built: `built` false, its fields are then read from its text). Its roles are not
    /// sized up (see [`Self::with_view`]).
    pub fn view<'a>(&'a self, record: &'a Record, built: bool) -> RecordView<'a> {
        let origin = record.origin;
        // roles inside an object are read from spans only as a view is handed over
        if let Some(plan) = self.slots.as_ref().filter(|plan| plan.inside.is_none()) {
            if let Some(spans) = &record.spans {
                return self.spans_view(&record.raw, spans, 0, origin, Some(record), None);
            }
            if let Some(fields) = RawFields::parse(&record.raw, &plan.slots) {
                return RecordView {
                    plan: self,
                    origin,
                    text: &record.raw,
                    record: Some(record),
                    form: Form::Raw(fields),
                };
            }
        }
        let fields = match built {
            true => Cow::Borrowed(&record.fields),
            false => match pyjson::object(&record.raw) {
                Some(fields) => Cow::Owned(fields),
                None => Cow::Borrowed(&record.fields),
            },
        };
        RecordView {
            plan: self,
            origin,
            text: &record.raw,
            record: Some(record),
            form: Form::Fields(fields),
        }
    }

    /// [`Self::view`] handed to `f`, its roles sized up when the plan says so.
    pub fn with_view<R>(
        &self,
        record: &Record,
        built: bool,
        f: impl FnOnce(&RecordView<'_>) -> R,
    ) -> R {
        match &record.spans {
            Some(spans) if self.slots.is_some() => {
                self.with_spans(&record.raw, spans, 0, record.origin, Some(record), f)
            }
            _ => f(&self.view(record, built)),
        }
    }

    /// The view of built fields.
    pub fn view_fields<'a>(
        &'a self,
        fields: &'a Map<String, Value>,
        origin: Origin,
    ) -> RecordView<'a> {
        RecordView {
            plan: self,
            origin,
            text: "",
            record: None,
            form: Form::Fields(Cow::Borrowed(fields)),
        }
    }

    /// The view of a line seen in place, handed to `f`: each role read from its text at its
    /// slot (`spans`, `plain`: the slots known to hold a string without escapes), sized up
    /// once when the plan says so. (Handed over rather than returned: the view and what it
    /// sized up stay where they were made.)
    #[inline(always)]
    pub(super) fn with_spans<R>(
        &self,
        text: &str,
        spans: &[Span],
        plain: u64,
        origin: Origin,
        record: Option<&Record>,
        f: impl FnOnce(&RecordView<'_>) -> R,
    ) -> R {
        if let Some(inside) = self.slots.as_ref().and_then(|plan| plan.inside.as_ref()) {
            let mut all = [(0, 0); MAX_SLOTS];
            return match inside.spans(text, spans, plain, &mut all) {
                Some((len, plain)) => {
                    self.with_all_spans(text, &all[..len], plain, origin, record, f)
                }
                None => f(&self.text_view(text, origin, record)),
            };
        }
        self.with_all_spans(text, spans, plain, origin, record, f)
    }

    /// [`Self::with_spans`] once every role's slot has its span.
    #[inline(always)]
    fn with_all_spans<R>(
        &self,
        text: &str,
        spans: &[Span],
        plain: u64,
        origin: Origin,
        record: Option<&Record>,
        f: impl FnOnce(&RecordView<'_>) -> R,
    ) -> R {
        let sized_roles;
        let sized = match &self.slots {
            Some(plan) if plan.sizes => {
                sized_roles = SizedRoles::of(plan, text, spans, plain);
                Some(&sized_roles)
            }
            _ => None,
        };
        f(&self.spans_view(text, spans, plain, origin, record, sized))
    }

    /// The view of a record read from the fields its text holds.
    #[cold]
    fn text_view<'a>(
        &'a self,
        text: &'a str,
        origin: Origin,
        record: Option<&'a Record>,
    ) -> RecordView<'a> {
        // the reader validated the text, so it parses
        let fields = pyjson::object(text).unwrap_or_default();
        RecordView {
            plan: self,
            origin,
            text,
            record,
            form: Form::Fields(Cow::Owned(fields)),
        }
    }

    #[inline(always)]
    fn spans_view<'a>(
        &'a self,
        text: &'a str,
        spans: &'a [Span],
        plain: u64,
        origin: Origin,
        record: Option<&'a Record>,
        sized: Option<&'a SizedRoles<'a>>,
    ) -> RecordView<'a> {
        RecordView {
            plan: self,
            origin,
            text,
            record,
            form: Form::Spans {
                spans,
                plain,
                sized,
            },
        }
    }

    /// How a role of this plan's set is read from a record's text.
    #[inline]
    fn read(&self, role: Role) -> Option<Read> {
        self.slots.as_ref()?.reads.get(role.index).copied()
    }

    /// The chosen role numbered `n` by [`Read::Chosen`].
    fn chosen(&self, n: usize) -> Option<&Chosen> {
        self.slots.as_ref()?.chosen.get(n)
    }

    /// The computed role numbered `n` by [`Read::Computed`].
    fn computed(&self, n: usize) -> Option<&Computed> {
        self.slots.as_ref()?.computed.get(n)
    }

    #[inline]
    fn literal_slot(&self, key: &str) -> Option<usize> {
        self.slots
            .as_ref()?
            .literal_slots
            .iter()
            .find(|(k, _)| crate::bytes::same(k.as_bytes(), key.as_bytes()))
            .map(|&(_, slot)| slot)
    }
}

impl SlotPlan {
    /// The top-level keys whose places a plan for `roles` under `map` reads: each role's key;
    /// for a key inside an object, the object and the whole path as one key; for a choice
    /// among places at keys ([`Self::chosen_places`]), its whole text as one key and each
    /// place's key (or object); for any other path, the keys it reads
    /// ([`FieldPath::top_keys`]). `None` when some role is inverse, or roles one key inside an
    /// object name more than one object: the records must then be built and read through the
    /// map.
    fn top_keys(map: &FieldMap, roles: &RoleSet) -> Option<Vec<String>> {
        let paths: Vec<_> = roles.names.iter().map(|role| map.path(role)).collect();
        let object = Self::object(&paths)?;
        let mut keys = Vec::new();
        for path in &paths {
            if let Some(key) = path.single_key() {
                keys.push(key.to_string());
            } else if path.inverse {
                return None;
            } else if let Some((outer, _)) = path.nested_keys() {
                keys.push(outer.to_string());
                keys.push(path.text.clone());
            } else if let Some(choices) = Self::chosen_places(path, object) {
                keys.push(path.literal_key().to_string());
                keys.extend(choices.iter().flatten().map(|place| match place.at {
                    KeyAt::Top(key) | KeyAt::Inside(key, _) => key.to_string(),
                }));
            } else {
                keys.extend(path.top_keys().map(str::to_string));
            }
        }
        Some(keys)
    }

    /// The one top-level object whose keys the plan notes (`Some(None)`: none): that of the
    /// roles one key inside an object, else the first a choice reads inside. `None` when
    /// roles one key inside an object name more than one.
    fn object<'p>(paths: &'p [Cow<'_, FieldPath>]) -> Option<Option<&'p str>> {
        let mut nested = paths.iter().filter_map(|p| p.nested_keys()).map(|(o, _)| o);
        let Some(first) = nested.next() else {
            let choices = paths.iter().filter_map(|p| p.key_choices()).flatten();
            return Some(choices.flatten().find_map(|place| match place.at {
                KeyAt::Inside(object, _) => Some(object),
                KeyAt::Top(_) => None,
            }));
        };
        nested.all(|o| o == first).then_some(Some(first))
    }

    /// The choices of a role's path as places the reader notes, when it is neither one key
    /// nor one key inside an object, and every place is a top-level key or a key inside
    /// `object` ([`FieldPath::key_choices`]).
    fn chosen_places<'p>(
        path: &'p FieldPath,
        object: Option<&str>,
    ) -> Option<Vec<Vec<KeyPlace<'p>>>> {
        if path.single_key().is_some() || path.nested_keys().is_some() {
            return None;
        }
        let choices = path.key_choices()?;
        let noted = |place: &KeyPlace| match place.at {
            KeyAt::Top(_) => true,
            KeyAt::Inside(outer, _) => Some(outer) == object,
        };
        choices.iter().flatten().all(noted).then_some(choices)
    }

    /// A plan over `slots`, which hold every key [`Self::top_keys`] names.
    fn new(
        map: &FieldMap,
        roles: &RoleSet,
        literal: &[&'static str],
        sized: bool,
        slots: KeySlots,
    ) -> Option<SlotPlan> {
        let paths: Vec<_> = roles.names.iter().map(|role| map.path(role)).collect();
        let object = Self::object(&paths)?;
        let chosen_places: Vec<_> = paths
            .iter()
            .map(|path| Self::chosen_places(path, object))
            .collect();
        let inside = match object {
            None => None,
            Some(object) => Some(Inside::new(&paths, &chosen_places, object, &slots)?),
        };
        if inside.as_ref().map_or(slots.len(), |inside| inside.len) > MAX_SLOTS {
            return None;
        }
        let slot_of_place = |place: &KeyPlace| match (place.at, &inside) {
            (KeyAt::Top(key), _) => slots.slot(key),
            (KeyAt::Inside(_, key), Some(inside)) => Some(inside.outer + inside.slots.slot(key)?),
            (KeyAt::Inside(..), None) => None,
        };
        let mut reads = Vec::with_capacity(paths.len());
        let mut chosen = Vec::new();
        let mut computed = Vec::new();
        for (index, (path, places)) in paths.iter().zip(&chosen_places).enumerate() {
            let read = if let Some(key) = path.single_key() {
                Read::Slot(slots.slot(key)?)
            } else if let Some((_, key)) = path.nested_keys() {
                Read::Slot(inside.as_ref()?.target(key)?)
            } else if let Some(places) = places {
                let whole = vec![(slots.slot(path.literal_key())?, false)];
                let choices = places.iter().map(|choice| {
                    choice
                        .iter()
                        .map(|place| Some((slot_of_place(place)?, place.list)))
                        .collect::<Option<Vec<_>>>()
                });
                let choices = std::iter::once(Some(whole)).chain(choices);
                chosen.push(Chosen {
                    index,
                    choices: choices.collect::<Option<_>>()?,
                });
                Read::Chosen(chosen.len() - 1)
            } else {
                let mut keys: Vec<(String, usize, Option<Vec<String>>)> = Vec::new();
                for key in path.top_keys() {
                    if !keys.iter().any(|(k, _, _)| k == key) {
                        let inside = path
                            .keys_inside(key)
                            .map(|keys| keys.into_iter().map(str::to_string).collect());
                        keys.push((key.to_string(), slots.slot(key)?, inside));
                    }
                }
                computed.push(Computed {
                    index,
                    path: path.clone().into_owned(),
                    keys,
                });
                Read::Computed(computed.len() - 1)
            };
            reads.push(read);
        }
        let sized_roles: Vec<(usize, usize)> = match sized {
            true => reads
                .iter()
                .take(MAX_ROLES)
                .enumerate()
                .filter_map(|(index, read)| match read {
                    Read::Slot(slot) => Some((index, *slot)),
                    _ => None,
                })
                .collect(),
            false => Vec::new(),
        };
        let literal_slots = literal
            .iter()
            .filter_map(|key| Some((*key, slots.slot(key)?)))
            .collect();
        let mut computed_keys: Vec<(String, usize, Option<Vec<String>>)> = Vec::new();
        for (key, slot, inside) in computed.iter().flat_map(|c| &c.keys) {
            match computed_keys.iter_mut().find(|(k, _, _)| k == key) {
                None => computed_keys.push((key.clone(), *slot, inside.clone())),
                Some((_, _, all)) => match (all.as_mut(), inside) {
                    (Some(all), Some(inside)) => all.extend(inside.iter().cloned()),
                    _ => *all = None,
                },
            }
        }
        Some(SlotPlan {
            sizes: sized && !(sized_roles.is_empty() && chosen.is_empty() && computed.is_empty()),
            slots,
            reads,
            sized: sized_roles,
            literal_slots,
            inside,
            chosen,
            computed,
            computed_keys,
        })
    }
}

impl Inside {
    /// The keys inside `object` that the roles read, one key inside it (`paths`) or as places
    /// of their choices (`chosen`), after the top-level `slots`.
    fn new(
        paths: &[Cow<'_, FieldPath>],
        chosen: &[Option<Vec<Vec<KeyPlace<'_>>>>],
        object: &str,
        slots: &KeySlots,
    ) -> Option<Inside> {
        let of_roles = paths.iter().filter_map(|p| p.nested_keys()).map(|(_, k)| k);
        let of_choices: Vec<&str> = chosen
            .iter()
            .flatten()
            .flatten()
            .flatten()
            .filter_map(|place| match place.at {
                KeyAt::Inside(_, key) => Some(key),
                KeyAt::Top(_) => None,
            })
            .collect();
        let keys = KeySlots::new(of_roles.chain(of_choices.iter().copied()));
        let outer = slots.len();
        let mut len = outer + keys.len();
        let mut dotted: Vec<Dotted> = Vec::new();
        for path in paths {
            let Some((_, key)) = path.nested_keys() else {
                continue;
            };
            let inner = keys.slot(key)?;
            if dotted.iter().any(|d| d.inner == inner) {
                continue;
            }
            let target = match of_choices.contains(&key) {
                true => {
                    len += 1;
                    len - 1
                }
                false => outer + inner,
            };
            dotted.push(Dotted {
                inner,
                literal: slots.slot(&path.text)?,
                target,
            });
        }
        Some(Inside {
            object: slots.slot(object)?,
            outer,
            slots: keys,
            dotted,
            len,
        })
    }

    /// The slot a role one key inside the object reads (see [`Dotted::target`]).
    fn target(&self, key: &str) -> Option<usize> {
        let inner = self.slots.slot(key)?;
        self.dotted
            .iter()
            .find(|d| d.inner == inner)
            .map(|d| d.target)
    }
}

/// The slot is known to hold a plain string (a bit per slot, the first 64).
#[inline(always)]
fn is_plain(plain: u64, slot: usize) -> bool {
    slot < 64 && plain & (1 << slot) != 0
}

/// One record that holds a concept, as a command's own pass saw it: where it lies and its
/// concept's key. An HTML page weighs concepts and finds their records by these, without
/// reading the store again (`html/gather/`); check's pass and diff's read of HEAD note them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sighting {
    /// The line it starts on (its findings' line).
    pub line: u64,
    /// The byte where it starts.
    pub offset: u64,
    /// How many bytes its text takes (0: the reader kept none, or more than a `u32` counts).
    pub len: u32,
    /// Its concept's key (a hash of the concept's text, the same function for a whole store).
    pub key: u64,
}

impl Sighting {
    /// Where `view` lies, its concept's key `key`.
    pub fn of(view: &RecordView, key: u64) -> Sighting {
        Sighting {
            line: view.origin.line,
            offset: view.origin.offset,
            len: u32::try_from(view.text.len()).unwrap_or(0),
            key,
        }
    }
}

/// A record's roles, ready to be read, and where it was read.
pub struct RecordView<'a> {
    /// How its roles are found; only the roles of the plan's set are read by number.
    plan: &'a ViewPlan,
    /// Where the record starts; its `index` among the records is not known for a line seen
    /// in place (count the records as they are visited).
    pub origin: Origin,
    /// The record's text as read (empty when the reader kept none).
    pub text: &'a str,
    /// The record, when the reader built one (not for a line seen in place).
    record: Option<&'a Record>,
    form: Form<'a>,
}

/// Each role's raw text, by role number, looked up and sized up once (the checks ask for most
/// roles more than once), and how each counts, as bit sets by role number.
struct SizedRoles<'a> {
    texts: [Option<RawRole<'a>>; MAX_ROLES],
    counts: PresenceBits,
    /// The roles whose value is not the text at a slot (computed, or chosen and made of the
    /// places' values), by role number as bits ...
    valued: u32,
    /// ... and their values.
    values: Vec<(usize, Option<Value>)>,
}

impl<'a> SizedRoles<'a> {
    #[inline(always)]
    fn of(plan: &SlotPlan, text: &'a str, spans: &[Span], plain: u64) -> SizedRoles<'a> {
        let mut sized = SizedRoles {
            texts: [None; MAX_ROLES],
            counts: PresenceBits::default(),
            valued: 0,
            values: Vec::new(),
        };
        for &(index, slot) in &plan.sized {
            if let Some(raw) = slot_text(text, spans, slot) {
                sized.size_up(index, RawRole::of(raw, is_plain(plain, slot)));
            }
        }
        let at = |slot| slot_text(text, spans, slot).map(|t| (t, is_plain(plain, slot)));
        for chosen in plan.chosen.iter().filter(|c| c.index < MAX_ROLES) {
            match chosen.find(at) {
                None => {}
                Some(Found::Text(text, plain)) => {
                    sized.size_up(chosen.index, RawRole::of(text, plain));
                }
                Some(Found::Value(value)) => sized.keep(chosen.index, Some(value)),
            }
        }
        // a computed role counts as its value does, kept for when it is asked for; the keys
        // they read are read once for all of them
        if plan.computed.is_empty() {
            return sized;
        }
        let mut fields: Vec<(&str, Value)> = Vec::with_capacity(plan.computed_keys.len());
        for (key, slot, inside) in &plan.computed_keys {
            if let Some(value) =
                slot_text(text, spans, *slot).and_then(|text| parse_value(text, inside.as_deref()))
            {
                fields.push((key, value));
            }
        }
        let found = |key: &str| fields.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
        for computed in plan.computed.iter().filter(|c| c.index < MAX_ROLES) {
            let value = computed.path.get_found(found).map(Cow::into_owned);
            sized.keep(computed.index, value);
        }
        sized
    }

    /// A role read from its text.
    #[inline(always)]
    fn size_up(&mut self, index: usize, raw: RawRole<'a>) {
        self.counts.add(index, raw.presence);
        if let Some(t) = self.texts.get_mut(index) {
            *t = Some(raw);
        }
    }

    /// A role whose value is made, not read from a text at a slot (`None`: absent).
    fn keep(&mut self, index: usize, value: Option<Value>) {
        if let Some(value) = &value {
            let value = RoleValue::Json(Cow::Borrowed(value));
            self.counts.add(index, Presence::of(Some(&value)));
        }
        self.valued |= 1 << index;
        self.values.push((index, value));
    }

    /// A made role's value, when the role is one ([`Self::keep`]).
    fn value(&self, index: usize) -> Option<Option<&Value>> {
        if index >= MAX_ROLES || self.valued & (1 << index) == 0 {
            return None;
        }
        let (_, value) = self.values.iter().find(|(i, _)| *i == index)?;
        Some(value.as_ref())
    }
}

/// The forms a record's roles are read from.
// `Spans` carries its role texts inline (a few hundred bytes): a view lives on the stack for
// the one record being read and is never stored, and boxing would cost an allocation a record.
#[allow(clippy::large_enum_variant)]
enum Form<'a> {
    /// Built fields, read through the map.
    Fields(Cow<'a, Map<String, Value>>),
    /// Values read from the text at the places the reader noted.
    Spans {
        spans: &'a [Span],
        /// Slots known to hold a plain string, one without escapes (a bit per slot, the
        /// first 64; a clear bit tells nothing).
        plain: u64,
        /// The roles sized up as the view was made, when the plan asks for it.
        sized: Option<&'a SizedRoles<'a>>,
    },
    /// Values read from the text, found by parsing it.
    Raw(RawFields<'a>),
}

impl<'a> RecordView<'a> {
    /// The map the record's roles read through.
    pub fn map(&self) -> &'a FieldMap {
        &self.plan.map
    }

    /// The record as the reader built it, when it built one (a line seen in place has none).
    pub fn record(&self) -> Option<&'a Record> {
        self.record
    }

    /// How every role counts, as bit sets, when the view sized them up from the text (roles
    /// past `MAX_ROLES` are not in them: [`PresenceBits::bit`] gives them no bit).
    #[inline]
    pub fn counts(&self) -> Option<PresenceBits> {
        match &self.form {
            Form::Spans {
                sized: Some(sized), ..
            } => Some(sized.counts),
            _ => None,
        }
    }

    /// The role has a number (else it is read by its name). A numbered role is one of this
    /// view's set: a command reads the views of its reading with the roles of the same set
    /// (checked in debug builds, which the tests run).
    #[inline(always)]
    fn numbers(&self, role: Role) -> bool {
        debug_assert!(
            role.set == self.plan.set || role.index == usize::MAX,
            "role {} of another set",
            role.name
        );
        role.index != usize::MAX
    }

    /// The text at a slot of the record's text, and whether it is known to be a plain string
    /// (`None`: absent, or the record is read from built fields).
    #[inline(always)]
    fn at(&self, slot: usize) -> Option<(&'a str, bool)> {
        match &self.form {
            Form::Spans { spans, plain, .. } => {
                slot_text(self.text, spans, slot).map(|t| (t, is_plain(*plain, slot)))
            }
            Form::Raw(fields) => fields.get(slot).map(|t| (t, false)),
            Form::Fields(_) => None,
        }
    }

    /// A role's value as a writer takes it: its raw JSON text where the record's text holds
    /// the value as it is ([`RawOrValue::Raw`]), else the value (built fields; a list read
    /// from a string, values gathered, a role computed through its path). `None`: absent.
    #[inline]
    pub fn raw_or_value(&self, role: Role) -> Option<RawOrValue<'_>> {
        if let Some(raw) = self.sized_up(role) {
            return raw.map(|raw| RawOrValue::Raw(raw.text));
        }
        let found = match (self.has_text() && self.numbers(role), self.plan.read(role)) {
            (true, Some(Read::Slot(slot))) => {
                return self.at(slot).map(|(t, _)| RawOrValue::Raw(t))
            }
            (true, Some(Read::Chosen(n))) if self.made(role).is_none() => {
                self.plan.chosen(n)?.find(|slot| self.at(slot))
            }
            _ => return self.get(role).map(RawOrValue::Value),
        };
        match found? {
            Found::Text(text, _) => Some(RawOrValue::Raw(text)),
            Found::Value(value) => Some(RawOrValue::Value(RoleValue::Json(Cow::Owned(value)))),
        }
    }

    /// The roles of this record are read from its text, not from built fields.
    pub fn has_text(&self) -> bool {
        !matches!(self.form, Form::Fields(_))
    }

    /// The value of a role (`None` when absent; inverse roles read as absent).
    #[inline]
    pub fn get(&self, role: Role) -> Option<RoleValue<'_>> {
        if let Some(raw) = self.sized_up(role) {
            return raw.map(|raw| raw.value());
        }
        if let Some(made) = self.made(role) {
            return made.map(|v| RoleValue::Json(Cow::Borrowed(v)));
        }
        let read = match self.numbers(role) {
            true => self.plan.read(role),
            false => None,
        };
        match (&self.form, read) {
            (Form::Fields(fields), _) => self.plan.map.get(role.name, fields).map(RoleValue::Json),
            (_, Some(Read::Slot(slot))) => {
                let (text, plain) = self.at(slot)?;
                Some(RoleValue::of_raw_known(text, plain))
            }
            (_, Some(Read::Chosen(n))) => match self.plan.chosen(n)?.find(|slot| self.at(slot))? {
                Found::Text(text, plain) => Some(RoleValue::of_raw_known(text, plain)),
                Found::Value(value) => Some(RoleValue::Json(Cow::Owned(value))),
            },
            (_, Some(Read::Computed(n))) => {
                let computed = self.plan.computed(n)?;
                let value = computed.value(|slot| self.at(slot).map(|(text, _)| text))?;
                Some(RoleValue::Json(Cow::Owned(value)))
            }
            // a role the plan does not number: read through the map from the whole text
            (_, None) => {
                let fields = pyjson::object(self.text)?;
                let value = self.plan.map.get(role.name, &fields)?.into_owned();
                Some(RoleValue::Json(Cow::Owned(value)))
            }
        }
    }

    /// The role's raw text as the view sized it up (`Some(None)`: absent), or `None` when it
    /// was not (other forms, roles past [`MAX_ROLES`], roles of another set, roles whose
    /// value was made: [`Self::made`]).
    #[inline]
    fn sized_up(&self, role: Role) -> Option<Option<RawRole<'a>>> {
        match &self.form {
            Form::Spans {
                sized: Some(sized), ..
            } => {
                debug_assert!(role.set == self.plan.set || role.index == usize::MAX);
                if role.index < MAX_ROLES && sized.valued & (1 << role.index) != 0 {
                    return None;
                }
                // a role read by name has no number: not sized up, read the slow way
                sized.texts.get(role.index).copied()
            }
            _ => None,
        }
    }

    /// The value of a role the view made as it sized its roles up (`Some(None)`: absent), or
    /// `None` when it made none (see [`SizedRoles::keep`]).
    #[inline]
    fn made(&self, role: Role) -> Option<Option<&Value>> {
        match &self.form {
            Form::Spans {
                sized: Some(sized), ..
            } if self.numbers(role) => sized.value(role.index),
            _ => None,
        }
    }

    /// A filled role's raw JSON text, when the view sized it up: `Some(None)` when the role
    /// is not filled, `None` when the text is not at hand (other forms).
    pub fn filled_text(&self, role: Role) -> Option<Option<&'a str>> {
        self.sized_up(role).map(|raw| {
            raw.filter(|raw| raw.presence.is_filled())
                .map(|raw| raw.text)
        })
    }

    /// How a role's value counts (without reading the value, when the view sized it up).
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
    /// anything else (read it with [`RecordView::filled`]). Cheaper than building a
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
    /// the line when the role is a plain string (`RecordView::filled_plain`).
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
        match &self.form {
            Form::Fields(fields) => fields.get(key).map(|v| RoleValue::Json(Cow::Borrowed(v))),
            Form::Spans { spans, plain, .. } => {
                let slot = self.plan.literal_slot(key)?;
                let text = slot_text(self.text, spans, slot)?;
                Some(RoleValue::of_raw_known(text, is_plain(*plain, slot)))
            }
            Form::Raw(fields) => fields
                .get(self.plan.literal_slot(key)?)
                .map(RoleValue::of_raw),
        }
    }

    /// The value under a literal top-level key when it is a plain string, borrowed from the
    /// line; `None` for anything else (read it with [`RecordView::literal`]).
    #[inline(always)]
    fn literal_plain(&self, key: &str) -> Option<&'a str> {
        match &self.form {
            Form::Spans { spans, plain, .. } => {
                let slot = self.plan.literal_slot(key)?;
                let text = slot_text(self.text, spans, slot)?;
                if is_plain(*plain, slot) {
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
        match &self.form {
            Form::Fields(fields) => path.get(fields).map(RoleValue::Json),
            // a plan reads from the text only when no role is inverse: no path is read there
            Form::Spans { .. } | Form::Raw(_) => None,
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

    /// Each role of `view` reads as it does in the record built whole: its value (also as a
    /// writer takes it, and as the filled text a check reads), how it counts (also in the
    /// view's bit sets, when it sized its roles up), its text.
    fn reads_as_whole(view: &RecordView, whole: &RecordView, roles: &RoleSet, text: &str) {
        for name in roles.names() {
            let (role, by_name) = (roles.role(name), Role::by_name(name));
            let got = view.get(role).map(RoleValue::into_json);
            let expected = whole.get(by_name).map(RoleValue::into_json);
            assert_eq!(got, expected, "{name} in {text}");
            let written = view.raw_or_value(role).map(|value| match value {
                RawOrValue::Raw(raw) => RoleValue::of_raw(raw).into_json(),
                RawOrValue::Value(value) => value.into_json(),
            });
            assert_eq!(written, expected, "{name} written, in {text}");
            let presence = whole.presence(by_name);
            assert_eq!(view.presence(role), presence, "{name} in {text}");
            if let Some(filled) = view.filled_text(role) {
                let filled = filled.map(|raw| RoleValue::of_raw(raw).into_json());
                let expected = expected.as_ref().filter(|_| presence.is_filled());
                assert_eq!(filled.as_ref(), expected, "{name} filled, in {text}");
            }
            assert_eq!(
                view.filled_str(role).map(Cow::into_owned),
                whole.filled_str(by_name).map(Cow::into_owned),
                "{name} in {text}"
            );
            if let Some(counts) = view.counts() {
                let bit = PresenceBits::bit(role);
                assert_eq!(
                    counts.present & bit != 0,
                    presence.is_present(),
                    "{name} in {text}"
                );
                assert_eq!(
                    counts.filled & bit != 0,
                    presence.is_filled(),
                    "{name} in {text}"
                );
            }
        }
    }

    /// The named maps whose paths choose among keys and lists in text (mem0's, Chroma's)
    /// read every role at the slots the reader notes: none is parsed through its path.
    #[test]
    fn the_named_maps_choices_read_at_slots() {
        for name in ["mem0", "chroma"] {
            let named = crate::mapping::named_map(name).expect("a named map");
            let roles = RoleSet::new(named.roles.0.iter().map(|(role, _)| role.as_str()));
            let map = FieldMap::parse(&[name.to_string()]).expect("a map");
            let plan = ViewPlan::new(&map, &roles, &[], &[], true);
            let slots = plan.slots.as_ref().expect("roles read from the text");
            assert!(slots.computed.is_empty(), "{name}: {:?}", slots.computed);
            assert!(!slots.chosen.is_empty(), "{name}");
        }
    }

    /// A JSON text for the proptest below: mostly plain strings, some escaped, empty or
    /// not strings at all.
    fn value_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof![
            4 => "[a-z0-9 -]{0,8}".prop_map(|s| format!("{s:?}")),
            1 => Just(r#""a\"b""#.to_string()),
            1 => Just(r#""\u00e9t\u00e9""#.to_string()),
            1 => Just(r#""  ""#.to_string()),
            1 => Just("null".to_string()),
            1 => Just("0".to_string()),
            1 => Just("false".to_string()),
            1 => Just("[]".to_string()),
            1 => Just(r#"["x", {"id": 1}]"#.to_string()),
        ]
    }

    /// An object's text from its keys and values, in order (a key may repeat).
    fn object_text(members: &[(String, String)]) -> String {
        let members: Vec<String> = members.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        format!("{{{}}}", members.join(", "))
    }

    proptest::proptest! {
        /// Roles whose path is a choice, a list in text or gathered places (of top-level
        /// keys and keys inside one object, read at their slots), or a path the reader does
        /// not note (computed from the values of its keys), read from the spans the reader
        /// notes (sized up or not) or from the values a parse finds at the slots, are the
        /// values a lookup through the map finds in the record built whole: the whole path
        /// as one key first, then each choice in turn; a key inside the object that both a
        /// role one key inside it (whose dotted key wins) and a choice read.
        #[test]
        fn computed_roles_read_as_the_map_reads_them(
            members in proptest::collection::vec(
                (proptest::sample::select(vec![
                    r#""id""#, r#""chroma:id""#, r#""valid_from""#, r#""release_to""#,
                    r#""user_id""#, r#""agent_id""#, r#""id | chroma:id""#, r#""x""#,
                    r#""metadata.valid_from""#, r#""list(applies_to)""#,
                ]), value_text()),
                0..7,
            ),
            inner in proptest::collection::vec(
                (proptest::sample::select(vec![
                    r#""valid_from""#, r#""release_to""#, r#""other""#,
                ]), value_text()),
                0..4,
            ),
            metadata in 0..3u8,
            list_text in proptest::sample::select(vec![
                r#""a, b""#, r#""[\"a\", 1]""#, r#""""#, r#"" , ""#, r#""[x""#,
                r#"["a"]"#, "null",
            ]),
        ) {
            let mut members: Vec<(String, String)> = members
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect();
            let inner: Vec<(String, String)> =
                inner.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
            match metadata {
                0 => members.push(("\"metadata\"".into(), object_text(&inner))),
                1 => members.push(("\"metadata\"".into(), list_text.to_string())),
                _ => {}
            }
            members.push(("\"applies_to\"".into(), list_text.to_string()));
            let text = object_text(&members);
            let fields = pyjson::object(&text).expect("an object");
            for (spec, names) in [
                // the mem0 map's forms, with a plain key among them
                (
                    "record_id=id | chroma:id,valid_from=metadata.valid_from | valid_from,\
                     release_to=metadata.release_to | list(release_to) | user_id + agent_id,\
                     applies_to=list(applies_to),source=x",
                    &["record_id", "valid_from", "release_to", "applies_to", "source"][..],
                ),
                // top-level keys only (read from a parse's values too)
                ("record_id=id | chroma:id,applies_to=list(applies_to)", &["record_id", "applies_to"]),
                // a key inside read by a role one key inside and by choices; lists inside,
                // places inside gathered; paths through [] and three keys deep, computed
                (
                    "valid_from=metadata.valid_from,valid_to=metadata.valid_from | id,\
                     release_to=list(metadata.release_to) + user_id,\
                     concept_owner=metadata.other + agent_id | x,\
                     supersedes=applies_to[] | id,owner_role=metadata.other.id | x",
                    &["valid_from", "valid_to", "release_to", "concept_owner", "supersedes",
                      "owner_role"],
                ),
            ] {
                let map = FieldMap::parse(&[spec.to_string()]).expect("a map");
                let roles = RoleSet::new(names.iter().copied());
                let whole = ViewPlan::fields(&map);
                let whole = whole.view_fields(&fields, Origin::default());
                for sized in [true, false] {
                    let plan = ViewPlan::new(&map, &roles, &[], &[], sized);
                    let slots = plan.key_slots().expect("roles read from the text");
                    let mut spans = vec![(0, 0); slots.len()];
                    if let Some(plain) = scan::object_spans(&text, slots, &mut spans) {
                        plan.with_spans(&text, &spans, plain, Origin::default(), None, |view| {
                            reads_as_whole(view, &whole, &roles, &text)
                        });
                    }
                    // a record the reader keeps whole, its roles read from its text
                    let record = Record::new(Map::new(), text.as_str(), Origin::default());
                    reads_as_whole(&plan.view(&record, false), &whole, &roles, &text);
                }
            }
        }

        /// Roles one key inside an object (`properties.valid_from`), read from the spans
        /// the reader notes and the object's own scanned from its text, are the values a
        /// lookup through the map finds in the record built whole: a literal dotted key
        /// first, the last of a repeated key, nothing inside a value that is not an object.
        #[test]
        fn roles_inside_an_object_read_as_the_map_reads_them(
            inner in proptest::collection::vec(
                (proptest::sample::select(vec![
                    r#""valid_from""#, r#""id""#, r#""source""#, r#""other""#,
                    r#""valid\u005ffrom""#,
                ]), value_text()),
                0..6,
            ),
            outer in proptest::collection::vec(
                (proptest::sample::select(vec![
                    r#""label""#, r#""properties""#, r#""properties.id""#,
                    r#""properties.source""#, r#""x""#,
                ]), value_text()),
                0..5,
            ),
            properties_is_object in proptest::bool::ANY,
        ) {
            let mut members: Vec<(String, String)> = outer
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect();
            if properties_is_object {
                let inner: Vec<(String, String)> =
                    inner.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
                members.insert(members.len() / 2, ("\"properties\"".into(), object_text(&inner)));
            }
            let text = object_text(&members);
            let map = FieldMap::parse(&["record_id=properties.id,valid_from=properties.valid_from,\
                source=properties.source,concept=label".to_string()]).expect("a map");
            let roles = RoleSet::new(["record_id", "valid_from", "source", "concept", "value"]);
            let plan = ViewPlan::new(&map, &roles, &[], &[], true);
            let slots = plan.key_slots().expect("roles one key inside one object");
            let mut spans = vec![(0, 0); slots.len()];
            let Some(plain) = scan::object_spans(&text, slots, &mut spans) else {
                return Ok(());
            };
            let fields = pyjson::object(&text).expect("an object");
            let whole = ViewPlan::fields(&map);
            let whole = whole.view_fields(&fields, Origin::default());
            let origin = Origin::default();
            plan.with_spans(&text, &spans, plain, origin, None, |view| {
                reads_as_whole(view, &whole, &roles, &text)
            });
        }
    }
}
