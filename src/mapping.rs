//! Field maps: where each role of the profile lives in a store's records.
//!
//! A map is an ordered list of `role = path` pairs. Paths: a key, `a.b` into nested objects,
//! `a[]` for every element of a list, `a[].b` for a key in each element, `~path` for an
//! inverse pointer; `list(a)` for a list a writer had to put in a string (JSON text or items
//! between commas), `a + b` for the values of both in one list, `a | b` for the first that
//! holds a value. A key that exists literally in the record wins over reading it as a path,
//! so stores whose keys contain dots read as the reference checker reads them. Named maps
//! (`graphiti`, `mem0`, …) are data in `maps.yaml`, and mix with pairs.

use crate::error::{Result, VercyError};
use crate::record::py_strip;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::sync::OnceLock;

const MAPS_YAML: &str = include_str!("../maps.yaml");

#[derive(Debug, Clone, Deserialize)]
pub struct NamedMap {
    pub description: String,
    #[serde(default)]
    pub roles: indexmap_like::OrderedRoles,
}

/// The named maps of `maps.yaml`, in file order.
pub fn named_maps() -> &'static [(String, NamedMap)] {
    static MAPS: OnceLock<Vec<(String, NamedMap)>> = OnceLock::new();
    MAPS.get_or_init(|| {
        let parsed: serde_yaml::Mapping =
            serde_yaml::from_str(MAPS_YAML).expect("maps.yaml is valid YAML (tested)");
        parsed
            .into_iter()
            .map(|(k, v)| {
                let name = k.as_str().expect("map names are strings").to_string();
                let map: NamedMap =
                    serde_yaml::from_value(v).expect("maps.yaml entries are well formed (tested)");
                (name, map)
            })
            .collect()
    })
}

pub fn named_map(name: &str) -> Option<&'static NamedMap> {
    named_maps().iter().find(|(n, _)| n == name).map(|(_, m)| m)
}

mod indexmap_like {
    use serde::de::{Deserializer, MapAccess, Visitor};
    use serde::Deserialize;

    /// `role: path` pairs in the order the file lists them.
    #[derive(Debug, Clone, Default)]
    pub struct OrderedRoles(pub Vec<(String, String)>);

    impl<'de> Deserialize<'de> for OrderedRoles {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = OrderedRoles;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a mapping of role to path")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<OrderedRoles, A::Error> {
                    let mut out = Vec::new();
                    while let Some((k, v)) = a.next_entry::<String, String>()? {
                        out.push((k, v));
                    }
                    Ok(OrderedRoles(out))
                }
            }
            d.deserialize_map(V)
        }
    }
}

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    /// `[]`: every element of the list reached so far.
    Each,
}

/// One place a path reads: steps from the top of the record, and whether text found there is
/// a list written in a string (`list(place)`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Place {
    steps: Vec<Step>,
    list: bool,
}

/// One choice of a path: one place, or several whose values are gathered into one list
/// (`user_id + agent_id`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Choice(Vec<Place>);

/// A parsed path, keeping the text it was written as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPath {
    pub text: String,
    /// Read in turn (`a | b`): the first that holds a value is the path's value.
    choices: Vec<Choice>,
    /// `~path`: the role is satisfied by *other* records pointing at this one.
    pub inverse: bool,
}

impl Place {
    fn parse(text: &str) -> Place {
        let (list, body) = match text.strip_prefix("list(").and_then(|t| t.strip_suffix(')')) {
            Some(inner) => (true, inner.trim()),
            None => (false, text),
        };
        let mut steps = Vec::new();
        for part in body.split('.') {
            let mut part = part;
            let mut each = 0;
            while let Some(p) = part.strip_suffix("[]") {
                part = p;
                each += 1;
            }
            if !part.is_empty() || each == 0 {
                steps.push(Step::Key(part.to_string()));
            }
            steps.extend(std::iter::repeat_n(Step::Each, each));
        }
        Place { steps, list }
    }

    fn first_key(&self) -> Option<&str> {
        match self.steps.first() {
            Some(Step::Key(k)) => Some(k.as_str()),
            _ => None,
        }
    }

    /// The value here; `None` when some key on the way is missing. A path through `[]`
    /// collects every element reached into one list.
    fn get<'a>(&self, top: &dyn TopLevel<'a>) -> Option<Cow<'a, Value>> {
        let Some((Step::Key(first), rest)) = self.steps.split_first() else {
            // no key to start from: a path through `[]` from nothing reaches nothing
            return Some(Cow::Owned(Value::Array(Vec::new())));
        };
        let found = match top.top(first)? {
            Cow::Borrowed(root) => walk(root, rest)?,
            Cow::Owned(root) => Cow::Owned(walk(&root, rest)?.into_owned()),
        };
        Some(listed(self.list, found))
    }

    /// This place as a reader that notes where top-level values lie finds it: a top-level
    /// key, or one key inside a top-level object.
    fn key_place(&self) -> Option<KeyPlace<'_>> {
        let at = match self.steps.as_slice() {
            [Step::Key(key)] => KeyAt::Top(key),
            [Step::Key(object), Step::Key(key)] => KeyAt::Inside(object, key),
            _ => return None,
        };
        Some(KeyPlace {
            at,
            list: self.list,
        })
    }
}

/// The value a place holds, given the value found there: of a `list(…)` place, a string is
/// the list written in it ([`list_in_text`]); anything else is as it is.
pub fn listed(list: bool, found: Cow<'_, Value>) -> Cow<'_, Value> {
    match (list, found.as_ref()) {
        (true, Value::String(text)) => Cow::Owned(Value::Array(list_in_text(text))),
        _ => found,
    }
}

/// Where a place of a path lies when a reader can note it in a record's text without
/// building the record: a top-level key, or one key inside a top-level object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyAt<'p> {
    Top(&'p str),
    Inside(&'p str, &'p str),
}

/// One place of a path read at a key ([`KeyAt`]), and whether it is `list(…)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyPlace<'p> {
    pub at: KeyAt<'p>,
    pub list: bool,
}

/// The value `steps` reach from `root`.
fn walk<'v>(root: &'v Value, steps: &[Step]) -> Option<Cow<'v, Value>> {
    if !steps.contains(&Step::Each) {
        let mut at = root;
        for step in steps {
            let Step::Key(k) = step else { return None };
            at = at.as_object()?.get(k.as_str())?;
        }
        return Some(Cow::Borrowed(at));
    }
    let mut current: Vec<&'v Value> = vec![root];
    let mut many = false;
    for step in steps {
        match step {
            Step::Key(k) => {
                let next: Vec<&Value> = current
                    .iter()
                    .filter_map(|v| v.as_object().and_then(|o| o.get(k.as_str())))
                    .collect();
                if next.is_empty() && !many {
                    return None;
                }
                current = next;
            }
            Step::Each => {
                many = true;
                current = current
                    .iter()
                    .flat_map(|v| match v {
                        Value::Array(items) => items.iter().collect::<Vec<_>>(),
                        Value::Null => Vec::new(),
                        other => vec![*other],
                    })
                    .collect();
            }
        }
    }
    if many {
        Some(Cow::Owned(Value::Array(
            current.into_iter().cloned().collect(),
        )))
    } else {
        current.pop().map(Cow::Borrowed)
    }
}

/// Where a path finds a record's top-level values: its built fields, or each value parsed
/// from its text as the path asks for it ([`FieldPath::get_parsed`]).
trait TopLevel<'a> {
    fn top(&self, key: &str) -> Option<Cow<'a, Value>>;
}

impl<'a> TopLevel<'a> for &'a Map<String, Value> {
    fn top(&self, key: &str) -> Option<Cow<'a, Value>> {
        self.get(key).map(Cow::Borrowed)
    }
}

struct Parsed<F>(F);

impl<'a, F: Fn(&str) -> Option<Value>> TopLevel<'a> for Parsed<F> {
    fn top(&self, key: &str) -> Option<Cow<'a, Value>> {
        (self.0)(key).map(Cow::Owned)
    }
}

struct Found<F>(F);

impl<'a, F: Fn(&str) -> Option<&'a Value>> TopLevel<'a> for Found<F> {
    fn top(&self, key: &str) -> Option<Cow<'a, Value>> {
        (self.0)(key).map(Cow::Borrowed)
    }
}

impl Place {
    fn remove_values(&self, fields: &mut Map<String, Value>, drop: &dyn Fn(&Value) -> bool) {
        let Some((Step::Key(last), before)) = self.steps.split_last() else {
            return;
        };
        let mut object = fields;
        for step in before {
            let Step::Key(k) = step else { return };
            match object.get_mut(k.as_str()) {
                Some(Value::Object(inner)) => object = inner,
                _ => return,
            }
        }
        let Some(value) = object.get_mut(last.as_str()) else {
            return;
        };
        match value {
            Value::Array(items) => items.retain(|item| !drop(item)),
            Value::String(text) if self.list => {
                let items = list_in_text(text);
                if items.iter().any(drop) {
                    let kept: Vec<Value> = items.into_iter().filter(|i| !drop(i)).collect();
                    *text = match text.trim_start().starts_with('[') {
                        true => Value::Array(kept).to_string(),
                        false => kept
                            .iter()
                            .map(crate::record::py_str)
                            .collect::<Vec<_>>()
                            .join(", "),
                    };
                }
            }
            Value::Null => {}
            other if drop(other) => {
                object.shift_remove(last.as_str());
            }
            _ => {}
        }
    }
}

/// A list a writer had to put in a string (a store whose values are only text and numbers):
/// JSON text of a list is that list; any other text, its items between commas, each trimmed,
/// the empty ones left out.
pub fn list_in_text(text: &str) -> Vec<Value> {
    let trimmed = text.trim();
    if trimmed.starts_with('[') {
        if let Ok(Value::Array(items)) = serde_json::from_str(trimmed) {
            return items;
        }
    }
    trimmed
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| Value::String(item.to_string()))
        .collect()
}

impl Choice {
    /// The place's value; of several places, every value they hold (a list's items one by
    /// one, null as nothing) gathered into one list, `None` when none holds one.
    fn get<'a>(&self, top: &dyn TopLevel<'a>) -> Option<Cow<'a, Value>> {
        let [one] = self.0.as_slice() else {
            return gather(self.0.iter().map(|place| place.get(top))).map(Cow::Owned);
        };
        one.get(top)
    }
}

/// The values of several places gathered into one list: a list's items one by one, null and
/// absent as nothing; `None` when none holds a value.
pub fn gather<'v>(values: impl IntoIterator<Item = Option<Cow<'v, Value>>>) -> Option<Value> {
    let mut items = Vec::new();
    let mut any = false;
    for value in values {
        match value {
            None => {}
            Some(value) => match value.into_owned() {
                Value::Null => {}
                Value::Array(values) => {
                    any = true;
                    items.extend(values);
                }
                value => {
                    any = true;
                    items.push(value);
                }
            },
        }
    }
    any.then_some(Value::Array(items))
}

impl FieldPath {
    /// `a.b`, `a[]`, `a[].b`, `~a`; `list(a)` (a list written in a string); `a + b` (the
    /// values of both, in one list); `a | b` (the first that holds a value). A path without
    /// `|`, `+` or `list(…)` is one place, read as it always was.
    pub fn parse(text: &str) -> FieldPath {
        let (inverse, body) = match text.strip_prefix('~') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let choices = if body.contains(['|', '+']) || body.starts_with("list(") {
            body.split('|')
                .map(|choice| Choice(choice.split('+').map(|p| Place::parse(p.trim())).collect()))
                .collect()
        } else {
            vec![Choice(vec![Place::parse(body)])]
        };
        FieldPath {
            text: text.to_string(),
            choices,
            inverse,
        }
    }

    /// The key this path reads when it is one plain key (the common case, and the only one
    /// the reference checker knows).
    fn body(&self) -> &str {
        if self.inverse {
            &self.text[1..]
        } else {
            &self.text
        }
    }

    /// The one place this path reads, when it reads one as it is (no choice, no list).
    fn place(&self) -> Option<&[Step]> {
        match self.choices.as_slice() {
            [Choice(places)] => match places.as_slice() {
                [Place { steps, list: false }] if !self.inverse => Some(steps),
                _ => None,
            },
            _ => None,
        }
    }

    /// The top-level keys a lookup of this path can read: its whole text as one literal key
    /// (which wins) and the first key of each place it reads. A reader that builds only some
    /// keys of each record builds these.
    pub fn top_keys(&self) -> impl Iterator<Item = &str> {
        let firsts = self
            .choices
            .iter()
            .flat_map(|c| &c.0)
            .filter_map(Place::first_key);
        std::iter::once(self.body()).chain(firsts)
    }

    /// The top-level key a lookup of this path reads first: its whole text (without `~`),
    /// which wins over reading it as a path.
    pub fn literal_key(&self) -> &str {
        self.body()
    }

    /// The choices of this path, each its places, when every place is a top-level key or one
    /// key inside a top-level object ([`KeyPlace`]), which a reader can note without building
    /// the record: the path's value is then its literal key's ([`Self::literal_key`]), else
    /// the first choice's that holds one ([`listed`], [`gather`]). `None` for an inverse path
    /// or a place deeper or through `[]`.
    pub fn key_choices(&self) -> Option<Vec<Vec<KeyPlace<'_>>>> {
        if self.inverse {
            return None;
        }
        self.choices
            .iter()
            .map(|choice| choice.0.iter().map(Place::key_place).collect())
            .collect()
    }

    /// The key when the path is one plain top-level key (not inverse, no `.` or `[]`, no
    /// choice, no list).
    pub fn single_key(&self) -> Option<&str> {
        match self.place()? {
            [Step::Key(k)] if k == self.body() => Some(k),
            _ => None,
        }
    }

    /// The two keys when the path is one key inside a top-level object (`properties.name`:
    /// not inverse, no `[]`, no choice, no list). Its whole text is then also a literal
    /// top-level key, which a lookup reads first.
    pub fn nested_keys(&self) -> Option<(&str, &str)> {
        match self.place()? {
            [Step::Key(object), Step::Key(key)] => Some((object, key)),
            _ => None,
        }
    }

    /// Take out of a record every value this path reads that `drop` names: an item of a list
    /// (a list written in a string is written again without it), or the key holding a value
    /// on its own. Places through `[]` are left as they are.
    pub fn remove_values(&self, fields: &mut Map<String, Value>, drop: &dyn Fn(&Value) -> bool) {
        let literal = Place {
            steps: vec![Step::Key(self.body().to_string())],
            list: false,
        };
        for place in std::iter::once(&literal).chain(self.choices.iter().flat_map(|c| &c.0)) {
            place.remove_values(fields, drop);
        }
    }

    /// Look the path up in a record. `None`: absent (some key on the way is missing, in each
    /// choice).
    pub fn get<'a>(&self, fields: &'a Map<String, Value>) -> Option<Cow<'a, Value>> {
        if let Some(v) = fields.get(self.body()) {
            return Some(Cow::Borrowed(v));
        }
        if self.is_one_key() {
            return None;
        }
        self.choices.iter().find_map(|choice| choice.get(&fields))
    }

    /// [`Self::get`] in a record whose top-level values `top` gives, parsed as they are asked
    /// for: only the keys the path reaches are read.
    pub fn get_parsed(&self, top: impl Fn(&str) -> Option<Value>) -> Option<Value> {
        if let Some(v) = top(self.body()) {
            return Some(v);
        }
        if self.is_one_key() {
            return None;
        }
        let top = Parsed(top);
        self.choices
            .iter()
            .find_map(|choice| choice.get(&top))
            .map(Cow::into_owned)
    }

    /// The keys inside the value of top-level key `key` that this path reads, when it reads
    /// only keys inside it (`metadata.owner | metadata.source`: owner and source); `None`
    /// when it reads the value itself, or through `[]`.
    pub fn keys_inside(&self, key: &str) -> Option<Vec<&str>> {
        if self.body() == key {
            return None;
        }
        let mut inside = Vec::new();
        for place in self.choices.iter().flat_map(|c| &c.0) {
            match place.steps.as_slice() {
                [Step::Key(first), ..] if first != key => {}
                [Step::Key(_), Step::Key(k), ..] => inside.push(k.as_str()),
                _ => return None,
            }
        }
        Some(inside)
    }

    /// [`Self::get`] in a record whose top-level values `top` finds (a few values read from a
    /// record's text, kept in a short list).
    pub fn get_found<'a>(&self, top: impl Fn(&str) -> Option<&'a Value>) -> Option<Cow<'a, Value>> {
        if let Some(v) = top(self.body()) {
            return Some(Cow::Borrowed(v));
        }
        if self.is_one_key() {
            return None;
        }
        let top = Found(top);
        self.choices.iter().find_map(|choice| choice.get(&top))
    }

    /// One place of one step: its key is the whole text, read first as a literal key.
    fn is_one_key(&self) -> bool {
        match self.choices.as_slice() {
            [Choice(places)] => {
                matches!(places.as_slice(), [Place { steps, list: false }] if steps.len() == 1)
            }
            _ => false,
        }
    }
}

/// Roles that are not profile fields but that commands need.
pub const EXTRA_ROLES: [&str; 2] = ["concept", "value"];

/// An ordered role → path map. Roles not in the map read from the key of the same name.
#[derive(Debug, Clone, Default)]
pub struct FieldMap {
    pairs: Vec<(String, FieldPath)>,
}

impl FieldMap {
    /// The identity map: every role under its own name.
    pub fn identity() -> Self {
        FieldMap::default()
    }

    /// Parse `--map` values: each is a comma-separated list of `role=path` pairs and named
    /// maps. Pairs follow the reference checker's reading (split on `,`, split each on the
    /// first `=`, trim both sides, skip blank pairs; a later pair for the same role replaces
    /// the earlier one in place).
    pub fn parse(specs: &[String]) -> Result<Self> {
        let mut map = FieldMap::default();
        for spec in specs {
            for pair in spec.split(',') {
                // Python's `strip()`, as the reference strips them (U+001F too)
                if py_strip(pair).is_empty() {
                    continue;
                }
                match pair.split_once('=') {
                    Some((role, path)) => map.set(py_strip(role), py_strip(path)),
                    None => {
                        let name = py_strip(pair);
                        let named = named_map(name).ok_or_else(|| VercyError::Map {
                            message: format!(
                                "{name:?} is neither a role=path pair nor a named map"
                            ),
                            names: named_maps()
                                .iter()
                                .map(|(n, _)| n.as_str())
                                .collect::<Vec<_>>()
                                .join(", "),
                        })?;
                        for (role, path) in &named.roles.0 {
                            map.set(role, path);
                        }
                    }
                }
            }
        }
        Ok(map)
    }

    pub fn set(&mut self, role: &str, path: &str) {
        let parsed = FieldPath::parse(path);
        match self.pairs.iter_mut().find(|(r, _)| r == role) {
            Some(slot) => slot.1 = parsed,
            None => self.pairs.push((role.to_string(), parsed)),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The pairs as written, for reports (`"mapping": {"record_id": "uuid"}`).
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.pairs
            .iter()
            .map(|(r, p)| (r.as_str(), p.text.as_str()))
    }

    /// The path of a role (its own name when the map does not mention it).
    pub fn path(&self, role: &str) -> Cow<'_, FieldPath> {
        match self.pairs.iter().find(|(r, _)| r == role) {
            Some((_, p)) => Cow::Borrowed(p),
            None => Cow::Owned(FieldPath::parse(role)),
        }
    }

    /// The value of a role in a record (`None` when absent). Inverse roles read as absent
    /// here: they are resolved across the store by the command that needs them.
    pub fn get<'a>(&self, role: &str, fields: &'a Map<String, Value>) -> Option<Cow<'a, Value>> {
        match self.pairs.iter().find(|(r, _)| r == role) {
            Some((_, p)) if p.inverse => None,
            Some((_, p)) => p.get(fields),
            None => fields.get(role).map(Cow::Borrowed),
        }
    }

    /// The role's path when it is an inverse pointer (`~replaced_by`), read forwards.
    pub fn inverse_path(&self, role: &str) -> Option<FieldPath> {
        let p = self.path(role);
        p.inverse.then(|| FieldPath::parse(p.body()))
    }

    /// The map as ordered role → path text (for JSON reports).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        for (r, p) in self.pairs() {
            m.insert(r.to_string(), Value::String(p.to_string()));
        }
        Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn paths_reach_nested_values_and_literal_keys_win() {
        let r = obj(
            json!({"metadata": {"source": "S-1"}, "a.b": 1, "a": {"b": 2},
            "eps": [{"id": "e1"}, {"id": "e2"}], "tags": ["x", "y"]}),
        );
        assert_eq!(
            FieldPath::parse("metadata.source")
                .get(&r)
                .unwrap()
                .as_ref(),
            &json!("S-1")
        );
        assert_eq!(FieldPath::parse("a.b").get(&r).unwrap().as_ref(), &json!(1));
        assert_eq!(
            FieldPath::parse("eps[].id").get(&r).unwrap().as_ref(),
            &json!(["e1", "e2"])
        );
        assert_eq!(
            FieldPath::parse("tags[]").get(&r).unwrap().as_ref(),
            &json!(["x", "y"])
        );
        assert!(FieldPath::parse("metadata.owner").get(&r).is_none());
        assert!(FieldPath::parse("nothing.here").get(&r).is_none());
        let p = FieldPath::parse("~replaced_by");
        assert!(p.inverse);
    }

    #[test]
    fn choices_gather_and_lists_written_in_text() {
        let get = |path: &str, record: Value| {
            FieldPath::parse(path)
                .get(&obj(record))
                .map(|v| v.into_owned())
        };
        // the first choice that holds a value, null included
        assert_eq!(get("a | b", json!({"b": 2})), Some(json!(2)));
        assert_eq!(get("a | b", json!({"a": null, "b": 2})), Some(json!(null)));
        assert_eq!(get("a|m.b", json!({"m": {"b": 3}})), Some(json!(3)));
        assert_eq!(get("a | b", json!({"c": 1})), None);
        // places gathered: lists item by item, null and absent as nothing
        assert_eq!(
            get("u + g", json!({"u": "alice", "g": ["bot", "ops"]})),
            Some(json!(["alice", "bot", "ops"]))
        );
        assert_eq!(get("u + g", json!({"g": "bot"})), Some(json!(["bot"])));
        assert_eq!(get("u + g", json!({"u": null})), None);
        assert_eq!(
            get("r | u + g", json!({"u": "alice"})),
            Some(json!(["alice"]))
        );
        // a list in a string: JSON text, else items between commas; a list as it is
        assert_eq!(
            get("list(r)", json!({"r": "[\"finance\", \"hr\"]"})),
            Some(json!(["finance", "hr"]))
        );
        assert_eq!(
            get("list(r)", json!({"r": " finance, hr ,,"})),
            Some(json!(["finance", "hr"]))
        );
        assert_eq!(get("list(r)", json!({"r": ""})), Some(json!([])));
        assert_eq!(
            get("list(r)", json!({"r": "[1, 2"})),
            Some(json!(["[1", "2"]))
        );
        assert_eq!(get("list(r)", json!({"r": ["a"]})), Some(json!(["a"])));
        assert_eq!(get("list(r)", json!({"r": 7})), Some(json!(7)));
        assert_eq!(
            get("list(m.r)", json!({"m": {"r": "a,b"}})),
            Some(json!(["a", "b"]))
        );
        // a literal key still wins; a plain path reads as it always did
        assert_eq!(get("a | b", json!({"a | b": 1, "a": 2})), Some(json!(1)));
        assert_eq!(get("[]", json!({"": [1]})), None);
        // only a plain path is one key or one key inside an object
        for path in ["a | b", "list(a)", "a + b", "~a"] {
            let p = FieldPath::parse(path);
            assert_eq!((p.single_key(), p.nested_keys()), (None, None), "{path}");
        }
        assert_eq!(FieldPath::parse("m.k").nested_keys(), Some(("m", "k")));
        let p = FieldPath::parse("metadata.r | list(r) | u + g");
        assert_eq!(
            p.top_keys().collect::<Vec<_>>(),
            ["metadata.r | list(r) | u + g", "metadata", "r", "u", "g"]
        );
        assert_eq!(p.keys_inside("metadata"), Some(vec!["r"]));
        assert_eq!(p.keys_inside("r"), None);
        assert_eq!(
            FieldPath::parse("m.a | m.b[]").keys_inside("m"),
            Some(vec!["a", "b"])
        );
        assert_eq!(FieldPath::parse("m[].a").keys_inside("m"), None);
    }

    #[test]
    fn values_are_taken_out_wherever_the_path_reads_them() {
        let drop = |v: &Value| v == "X";
        let mut r = obj(json!({
            "s": "X", "keep": "Y", "l": ["A", "X"], "m": {"s": "X", "t": "X"},
            "j": "[\"X\", \"B\"]", "c": "C, X", "n": null, "each": [{"s": "X"}]
        }));
        for path in [
            "s",
            "keep",
            "l",
            "m.s",
            "list(j) | list(c)",
            "n",
            "each[].s",
        ] {
            FieldPath::parse(path).remove_values(&mut r, &drop);
        }
        assert_eq!(
            Value::Object(r),
            json!({
                "keep": "Y", "l": ["A"], "m": {"t": "X"}, "j": "[\"B\"]", "c": "C",
                "n": null, "each": [{"s": "X"}]
            })
        );
    }

    #[test]
    fn map_specs_parse_like_the_reference_and_mix_named_maps() {
        let m = FieldMap::parse(&[" record_id = uuid ,, valid_from=valid_at,record_id=id".into()])
            .unwrap();
        assert_eq!(
            m.pairs().collect::<Vec<_>>(),
            vec![("record_id", "id"), ("valid_from", "valid_at")]
        );
        let g = FieldMap::parse(&["graphiti,source=episode".into()]).unwrap();
        assert_eq!(g.path("record_id").text, "uuid");
        assert_eq!(g.path("source").text, "episode");
        assert!(FieldMap::parse(&["nonsense".into()]).is_err());
    }

    #[test]
    fn every_named_map_loads() {
        for name in [
            "profile",
            "dimension",
            "graphiti",
            "zep",
            "mem0",
            "chroma",
            "engrama",
            "langgraph",
        ] {
            assert!(named_map(name).is_some(), "{name}");
        }
    }
}
