//! The degree of each node of an engrama dump, counted as engrama 0.18.1 counts it.
//!
//! engrama's importer resolves a relation line's endpoints by label and key_value (ASCII case
//! folded, as SQLite's LOWER does), within the relation's owner (org_id, user_id, or the shared
//! entity user `__entity__`) when the line carries both. Which node wins when several match is
//! SQLite's choice, and it follows the query plan engrama's query gets: a scoped lookup scans
//! the label index, so the first node in file order wins; an unscoped one scans the identity
//! index, so the smallest (key_value, org_id, user_id) wins. A line
//! whose endpoint is missing makes no edge; (from, rel_type, to) is one edge however often it is
//! written. The degree of a node is the number of its edges, either end, not counting those
//! whose other end is a system Insight (label Insight with a non-null source_query).

use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

const ENTITY_USER: &str = "__entity__";

struct Node {
    key_value: String,
    org_id: Option<String>,
    user_id: Option<String>,
    system_insight: bool,
}

/// Nodes and relation lines, gathered as the dump streams by; degrees at the end.
#[derive(Default)]
pub struct Graph {
    nodes: Vec<Node>,
    by_name: HashMap<(String, String), Vec<usize>>,
    relations: Vec<Relation>,
}

struct Relation {
    from: (String, String),
    to: (String, String),
    rel_type: String,
    scope: Option<(String, String)>,
}

fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(crate::record::py_str(other)),
    }
}

/// engrama's `x or None` on a JSON value: empty strings and nulls count as absent.
fn owner_part(v: Option<&Value>) -> Option<String> {
    text(v).filter(|s| !s.is_empty())
}

fn name_key(label: Option<&Value>, key: Option<&Value>) -> (String, String) {
    (
        text(label).unwrap_or_default(),
        text(key).unwrap_or_default().to_ascii_lowercase(),
    )
}

impl Graph {
    /// Add a node line; returns its index (the order of the node lines).
    pub fn add_node(&mut self, line: &Map<String, Value>) -> usize {
        let empty = Map::new();
        let props = line
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let label = line.get("label");
        let index = self.nodes.len();
        self.nodes.push(Node {
            key_value: text(line.get("key_value")).unwrap_or_default(),
            org_id: text(props.get("org_id")),
            user_id: text(props.get("user_id")),
            system_insight: label.and_then(Value::as_str) == Some("Insight")
                && props.get("source_query").is_some_and(|v| !v.is_null()),
        });
        self.by_name
            .entry(name_key(label, line.get("key_value")))
            .or_default()
            .push(index);
        index
    }

    /// Add a relation line (resolved when the degrees are asked for, so order does not matter).
    pub fn add_relation(&mut self, line: &Map<String, Value>) {
        let scope = owner_part(line.get("org_id")).zip(owner_part(line.get("user_id")));
        self.relations.push(Relation {
            from: name_key(line.get("from_label"), line.get("from_value")),
            to: name_key(line.get("to_label"), line.get("to_value")),
            rel_type: text(line.get("rel_type")).unwrap_or_default(),
            scope,
        });
    }

    fn resolve(&self, name: &(String, String), scope: &Option<(String, String)>) -> Option<usize> {
        let candidates = self.by_name.get(name)?.iter().copied();
        match scope {
            None => candidates.min_by_key(|&i| {
                let n = &self.nodes[i];
                let owner = |v: &Option<String>| v.clone().unwrap_or_default();
                (n.key_value.clone(), owner(&n.org_id), owner(&n.user_id), i)
            }),
            Some((org, user)) => candidates.into_iter().find(|&i| {
                let n = &self.nodes[i];
                n.org_id.as_deref() == Some(org.as_str())
                    && matches!(n.user_id.as_deref(), Some(u) if u == user || u == ENTITY_USER)
            }),
        }
    }

    /// The degree of every node, in node-line order.
    pub fn degrees(&self) -> Vec<u64> {
        let mut degree = vec![0u64; self.nodes.len()];
        let mut seen = HashSet::new();
        for r in &self.relations {
            let (Some(from), Some(to)) = (
                self.resolve(&r.from, &r.scope),
                self.resolve(&r.to, &r.scope),
            ) else {
                continue;
            };
            if !seen.insert((from, r.rel_type.as_str(), to)) {
                continue;
            }
            if !self.nodes[to].system_insight {
                degree[from] += 1;
            }
            if from != to && !self.nodes[from].system_insight {
                degree[to] += 1;
            }
        }
        degree
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn node(label: &str, key: &str, extra: Value) -> Map<String, Value> {
        let mut props = obj(json!({"org_id": "o", "user_id": "u"}));
        props.extend(obj(extra));
        obj(json!({"type": "node", "label": label, "key_value": key, "properties": props}))
    }

    fn rel(fl: &str, fv: &str, t: &str, tl: &str, tv: &str) -> Map<String, Value> {
        obj(
            json!({"type": "relation", "from_label": fl, "from_value": fv, "rel_type": t,
                   "to_label": tl, "to_value": tv, "org_id": "o", "user_id": "u"}),
        )
    }

    #[test]
    fn edges_from_system_insights_do_not_count_and_duplicates_count_once() {
        let mut g = Graph::default();
        g.add_node(&node("Concept", "hub", json!({})));
        g.add_node(&node("Technology", "a", json!({})));
        g.add_node(&node("Insight", "cluster", json!({"source_query": "q"})));
        g.add_node(&node("Insight", "note", json!({"source_query": null})));
        g.add_relation(&rel("Technology", "A", "IMPLEMENTS", "Concept", "hub"));
        g.add_relation(&rel("Technology", "a", "IMPLEMENTS", "Concept", "hub"));
        g.add_relation(&rel("Technology", "a", "USES", "Concept", "hub"));
        g.add_relation(&rel("Insight", "cluster", "ABOUT", "Concept", "hub"));
        g.add_relation(&rel("Insight", "note", "ABOUT", "Concept", "hub"));
        g.add_relation(&rel("Insight", "note", "ABOUT", "Concept", "missing"));
        g.add_relation(&rel("Concept", "hub", "SELF", "Concept", "hub"));
        assert_eq!(g.degrees(), vec![4, 2, 1, 1]);
    }

    #[test]
    fn scoped_relations_only_reach_their_owner() {
        let mut g = Graph::default();
        let other = obj(json!({"type": "node", "label": "C", "key_value": "x",
                               "properties": {"org_id": "o2", "user_id": "u2"}}));
        g.add_node(&other);
        g.add_node(&node("C", "x", json!({})));
        g.add_node(&node("C", "y", json!({})));
        g.add_relation(&rel("C", "x", "R", "C", "y"));
        assert_eq!(g.degrees(), vec![0, 1, 1]);
        // a legacy (0.15) relation without an owner takes the node of that name with the
        // smallest (key_value, org_id, user_id), as SQLite's identity index returns it
        let mut legacy = rel("C", "x", "L", "C", "y");
        legacy.remove("org_id");
        g.add_relation(&legacy);
        assert_eq!(g.degrees(), vec![0, 2, 2]);
        let upper = obj(json!({"type": "node", "label": "C", "key_value": "X",
                               "properties": {"org_id": "o9", "user_id": "u9"}}));
        g.add_node(&upper);
        // resolved once every node is known, as engrama imports every node before any edge:
        // "X" sorts before "x", so both owner-less lines now start at the new node
        let mut to_upper = rel("C", "x", "U", "C", "y");
        to_upper.remove("user_id");
        g.add_relation(&to_upper);
        assert_eq!(g.degrees(), vec![0, 1, 3, 2]);
    }
}
