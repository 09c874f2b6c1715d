//! The merge rules: how an incoming line changes the line already there with its identity.

use super::{parse, too_many, MergeLine, Store, StoreKind, VECTORS};
use crate::error::Result;
use crate::mapping::FieldMap;
use crate::python::json::python_text;
use crate::store::engrama::embedding_dimensions;
use crate::write::jsonl::same_fields;
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Change {
    Added,
    Updated,
    Unchanged,
}

/// How an incoming line changes the line already there with its identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MergeRule {
    /// Flat records: the incoming version replaces the stored one whole (a field it does not
    /// carry is gone: a record re-imported without its release_to is released to nobody).
    Replace,
    /// engrama node lines: the top-level keys set over the stored ones, the properties key by
    /// key as engrama merges them, less the disclosure grants the incoming node does not carry
    /// (see [`overlay`]).
    Properties,
    /// Relation and vector lines: the incoming keys set over the stored ones.
    Overlay,
}

/// The keys of an engrama node's properties (or of its line) that name who may read it:
/// `release_to` and, when the map reads release_to elsewhere in the properties, that key. The restriction
/// markers (classification, confidential, restricted) are not among them: they only ever
/// narrow who may read a record (under the contract's `unrestricted: public` reading, a marker
/// is what withholds a record without release_to), so one that the incoming node does not
/// carry is kept, and only an incoming value (null, say) lifts it.
pub(super) fn grant_keys(map: &FieldMap) -> Vec<String> {
    let mut keys = vec!["release_to".to_string()];
    let mapped = map.path("release_to");
    if let Some(key) = mapped.text.strip_prefix("properties.") {
        if !key.contains(['.', '[', '~']) && !keys.iter().any(|k| k == key) {
            keys.push(key.to_string());
        }
    }
    keys
}

impl Store {
    /// Put `incoming` in: new identity → appended; known → the existing line takes the
    /// incoming version as `rule` says.
    pub(super) fn upsert(
        &mut self,
        table: usize,
        incoming: MergeLine,
        rule: MergeRule,
    ) -> Result<Change> {
        let mut shared = false;
        if let Some(first) = self.tables[table].first(incoming.key) {
            let mut at = Some(first);
            let mut text = self.text_at(table, first)?;
            if text == incoming.text {
                return Ok(Change::Unchanged);
            }
            let mut existing: Map<String, Value> = parse(&text);
            if self.identity_of(table, &existing) != incoming.identity {
                // another identity has this hash: this one is indexed by its full text
                shared = true;
                at = self.tables[table].shared.get(&incoming.identity).copied();
                if let Some(i) = at {
                    text = self.text_at(table, i)?;
                    if text == incoming.text {
                        return Ok(Change::Unchanged);
                    }
                    existing = parse(&text);
                }
            }
            if let Some(i) = at {
                return self.update(table, i, &existing, incoming, rule);
            }
        }
        let at = match (incoming.source, self.dump.is_some()) {
            (Some(from), true) => self.append_copy(from, &incoming.text)?,
            _ => self.append(&incoming.text)?,
        };
        let t = &mut self.tables[table];
        let i = t
            .push(at, incoming.key)
            .ok_or_else(|| too_many(&self.target))?;
        if shared {
            t.shared.insert(incoming.identity, i);
        } else {
            t.index(i);
        }
        Ok(Change::Added)
    }

    /// Line `i` takes the incoming version, as `rule` says.
    pub(super) fn update(
        &mut self,
        table: usize,
        i: usize,
        existing: &Map<String, Value>,
        incoming: MergeLine,
        rule: MergeRule,
    ) -> Result<Change> {
        let fields = parse(&incoming.text);
        let merged = match rule {
            MergeRule::Replace => fields.clone(),
            MergeRule::Overlay => overlay(existing, &fields, None),
            MergeRule::Properties => overlay(existing, &fields, Some(&self.grants)),
        };
        if same_fields(&merged, existing) {
            return Ok(Change::Unchanged);
        }
        let at = if same_fields(&merged, &fields) {
            self.append(&incoming.text)?
        } else {
            self.append(&python_text(&merged))?
        };
        self.tables[table].places[i] = at;
        Ok(Change::Updated)
    }

    /// The store's envelope follows the newest dump, except that a dump without embeddings
    /// does not take away the dimensions of vectors the store keeps.
    pub(super) fn merge_envelope(
        &mut self,
        line: MergeLine,
        fields: Map<String, Value>,
    ) -> Result<()> {
        if self.kind != StoreKind::Graph {
            return Ok(());
        }
        match &self.envelope {
            Some((_, old)) if same_fields(old, &fields) => {}
            Some((_, old))
                if embedding_dimensions(&fields) == 0
                    && embedding_dimensions(old) != 0
                    && !self.tables[VECTORS].places.is_empty() => {}
            _ => {
                let at = self.place(&line)?;
                self.envelope = Some((at, fields));
                self.changed = true;
            }
        }
        Ok(())
    }
}
/// `existing` with every incoming field set over it (keys keep their place; new keys go last).
/// With `grants` (engrama nodes), `properties` is merged key by key, as engrama merges a
/// node's properties, except the keys that grant disclosure (`grants`): one the incoming
/// properties do not carry is removed, not kept, so the incoming version's value is never
/// released to the parties an older version named.
pub(super) fn overlay(
    existing: &Map<String, Value>,
    incoming: &Map<String, Value>,
    grants: Option<&[String]>,
) -> Map<String, Value> {
    let mut out = existing.clone();
    if let Some(grants) = grants {
        // a grant beside the properties (read there with --map release_to=release_to) too
        out.retain(|k, _| incoming.contains_key(k) || !grants.contains(k));
    }
    for (k, v) in incoming {
        if let (Some(grants), "properties") = (grants, k.as_str()) {
            if let (Some(Value::Object(old)), Value::Object(new)) = (out.get_mut(k), v) {
                old.retain(|pk, _| new.contains_key(pk) || !grants.contains(pk));
                for (pk, pv) in new {
                    old.insert(pk.clone(), pv.clone());
                }
                continue;
            }
        }
        out.insert(k.clone(), v.clone());
    }
    out
}
