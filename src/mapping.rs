//! Field maps: where each role of the profile lives in a store's records.
//!
//! A map is an ordered list of `role = path` pairs. Paths: a key, `a.b` into nested objects,
//! `a[]` for every element of a list, `a[].b` for a key in each element, `~path` for an
//! inverse pointer. A key that exists literally in the record wins over reading it as a path,
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

/// A parsed path, keeping the text it was written as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPath {
    pub text: String,
    steps: Vec<Step>,
    /// `~path`: the role is satisfied by *other* records pointing at this one.
    pub inverse: bool,
}

impl FieldPath {
    pub fn parse(text: &str) -> FieldPath {
        let (inverse, body) = match text.strip_prefix('~') {
            Some(rest) => (true, rest),
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
        FieldPath {
            text: text.to_string(),
            steps,
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

    /// The top-level keys a lookup of this path can read: its whole text as one literal key
    /// (which wins) and the first key of the path. A reader that builds only some keys of each
    /// record builds these.
    pub fn top_keys(&self) -> impl Iterator<Item = &str> {
        let first = match self.steps.first() {
            Some(Step::Key(k)) => Some(k.as_str()),
            _ => None,
        };
        std::iter::once(self.body()).chain(first)
    }

    /// The key when the path is one plain top-level key (not inverse, no `.` or `[]`).
    pub fn single_key(&self) -> Option<&str> {
        match self.steps.as_slice() {
            [Step::Key(k)] if !self.inverse && k == self.body() => Some(k),
            _ => None,
        }
    }

    /// The two keys when the path is one key inside a top-level object (`properties.name`:
    /// not inverse, no `[]`). Its whole text is then also a literal top-level key, which a
    /// lookup reads first.
    pub fn nested_keys(&self) -> Option<(&str, &str)> {
        match self.steps.as_slice() {
            [Step::Key(object), Step::Key(key)] if !self.inverse => Some((object, key)),
            _ => None,
        }
    }

    /// Look the path up in a record. `None`: absent (some key on the way is missing).
    /// A path through `[]` collects every element reached into one list.
    pub fn get<'a>(&self, fields: &'a Map<String, Value>) -> Option<Cow<'a, Value>> {
        if let Some(v) = fields.get(self.body()) {
            return Some(Cow::Borrowed(v));
        }
        if self.steps.len() == 1 {
            return None;
        }
        let mut current: Vec<&'a Value> = Vec::new();
        let mut many = false;
        for (i, step) in self.steps.iter().enumerate() {
            match step {
                Step::Key(k) if i == 0 => current.push(fields.get(k.as_str())?),
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
        for name in ["profile", "dimension", "graphiti", "zep", "mem0", "engrama"] {
            assert!(named_map(name).is_some(), "{name}");
        }
    }
}
