//! Beyond the reference: the values, not just their presence. Every finding here is a warning
//! that names records and their lines; `--strict` lets each cap the level at the one below the
//! level of the field it concerns.
//!
//! Memory: per record we keep its id (for duplicates, supersession and the register), one
//! owner per concept and one text per policy: all bounded by the number of distinct ids and
//! concepts, each a hash map so the whole pass stays linear.

use crate::mapping::FieldMap;
use crate::record::{is_filled, is_truthy, py_str, Record};
use crate::time::{self, Timestamp};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// A record named in a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordRef {
    pub name: String,
    pub line: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// Stable code, e.g. `value.date`.
    pub code: &'static str,
    pub field: &'static str,
    pub message: String,
    pub records: Vec<RecordRef>,
    /// Under `--strict`, the level can be no higher than this.
    pub caps_level: u8,
}

/// Every warning code, with the level it caps and what it means (a test keeps them unique).
pub const CODES: [(&str, &str, u8, &str); 11] = [
    (
        "value.date",
        "valid_from",
        0,
        "a valid_from or valid_to that is not a date",
    ),
    (
        "value.interval",
        "valid_to",
        0,
        "valid_to before valid_from",
    ),
    (
        "value.duplicate_id",
        "record_id",
        0,
        "two records with the same record_id",
    ),
    (
        "value.capture_time",
        "valid_from",
        0,
        "valid_from equal to the capture timestamp on most records",
    ),
    (
        "value.owners",
        "concept_owner",
        1,
        "more than one owner for one concept",
    ),
    (
        "value.policies",
        "conflict_policy",
        1,
        "more than one conflict policy in the store",
    ),
    (
        "value.policy_repeated",
        "conflict_policy",
        1,
        "the conflict policy repeated on every record",
    ),
    (
        "value.release_to",
        "release_to",
        2,
        "release_to that is not a list of parties",
    ),
    (
        "value.supersedes_unknown",
        "supersedes",
        2,
        "supersedes names no record in the store",
    ),
    (
        "value.supersedes_cycle",
        "supersedes",
        2,
        "supersedes forms a cycle",
    ),
    (
        "value.superseded_valid_to",
        "supersedes",
        2,
        "a superseded record whose valid_to was written by hand",
    ),
];

fn warning(code: &'static str, message: String, records: Vec<RecordRef>) -> Warning {
    let (_, field, caps_level, _) = CODES
        .iter()
        .find(|c| c.0 == code)
        .copied()
        .expect("known code");
    Warning {
        code,
        field,
        message,
        records,
        caps_level,
    }
}

/// Keys where stores keep the capture (write) time of a record.
const CAPTURE_KEYS: [&str; 5] = [
    "created_at",
    "captured_at",
    "ingested_at",
    "recorded_at",
    "inserted_at",
];

struct IdInfo {
    line: u64,
    valid_to_written: bool,
}

#[derive(Default)]
pub struct ValueChecks {
    records: usize,
    bad_dates: Vec<RecordRef>,
    bad_date_example: Option<String>,
    inverted: Vec<RecordRef>,
    ids: HashMap<String, IdInfo>,
    duplicates: Vec<RecordRef>,
    /// (record, ids it supersedes)
    supersedes: Vec<(String, u64, Vec<String>)>,
    owners: HashMap<String, Vec<(String, RecordRef)>>,
    policies: Vec<(String, RecordRef)>,
    bad_release: Vec<RecordRef>,
    capture_equal: Vec<RecordRef>,
    capture_known: usize,
    concepts_held: HashSet<String>,
    register: Vec<String>,
}

impl ValueChecks {
    pub fn observe(&mut self, map: &FieldMap, record: &Record, name: &str) {
        self.records += 1;
        let here = || RecordRef {
            name: name.to_string(),
            line: record.origin.line,
        };
        let get = |role: &str| map.get(role, &record.fields).filter(|v| is_filled(v));

        // dates and their order
        let mut from: Option<Timestamp> = None;
        let mut to: Option<Timestamp> = None;
        for (role, slot) in [("valid_from", &mut from), ("valid_to", &mut to)] {
            if let Some(v) = get(role) {
                match time::parse_value(&v) {
                    Ok(t) => *slot = Some(t),
                    Err(e) => {
                        if self.bad_date_example.is_none() {
                            self.bad_date_example = Some(format!("{role}: {e}"));
                        }
                        self.bad_dates.push(here());
                    }
                }
            }
        }
        if let (Some(f), Some(t)) = (from, to) {
            if t.end() < f.start() {
                self.inverted.push(here());
            }
        }

        // identity and supersession
        let id = get("record_id").map(|v| py_str(&v));
        let valid_to_written = get("valid_to").is_some();
        if let Some(id) = &id {
            match self.ids.get(id) {
                Some(_) => self.duplicates.push(here()),
                None => {
                    self.ids.insert(
                        id.clone(),
                        IdInfo {
                            line: record.origin.line,
                            valid_to_written,
                        },
                    );
                }
            }
        }
        if let Some(v) = get("supersedes") {
            let mut targets = HashSet::new();
            super::rules::collect_ids(&v, &mut targets);
            let mut targets: Vec<String> = targets.into_iter().collect();
            targets.sort();
            self.supersedes.push((
                id.clone().unwrap_or_else(|| name.to_string()),
                record.origin.line,
                targets,
            ));
        }

        // one owner per concept
        if let (Some(concept), Some(owner)) = (get("concept"), get("concept_owner")) {
            let concept = py_str(&concept);
            let owner = py_str(&owner);
            self.concepts_held.insert(concept.clone());
            let seen = self.owners.entry(concept).or_default();
            if !seen.iter().any(|(o, _)| *o == owner) {
                seen.push((owner, here()));
            }
        } else if let Some(concept) = get("concept") {
            self.concepts_held.insert(py_str(&concept));
        }

        // one policy per store
        if let Some(p) = get("conflict_policy").filter(|v| is_truthy(v)) {
            self.policies.push((py_str(&p), here()));
        }

        // release_to is a list of parties
        if let Some(v) = get("release_to") {
            let ok = match &*v {
                Value::Array(items) => items
                    .iter()
                    .all(|i| i.as_str().is_some_and(|s| !crate::record::is_blank(s))),
                _ => false,
            };
            if !ok {
                self.bad_release.push(here());
            }
        }

        // validity time is not capture time
        if let Some(f) = from {
            if let Some(captured) = CAPTURE_KEYS.iter().find_map(|k| {
                record
                    .fields
                    .get(*k)
                    .and_then(|v| time::parse_value(v).ok())
            }) {
                self.capture_known += 1;
                if captured.nanos == f.nanos {
                    self.capture_equal.push(here());
                }
            }
        }

        // the experimental register
        if let Some(Value::Array(items)) = get("expected_concepts").as_deref() {
            self.register
                .extend(items.iter().filter(|v| is_filled(v)).map(py_str));
        }
    }

    /// Add concepts from `--expected FILE`.
    pub fn expect(&mut self, concepts: impl IntoIterator<Item = String>) {
        self.register.extend(concepts);
    }

    /// The register as given and the concepts it names that no record holds.
    pub fn expected_concepts(&self) -> Option<(Vec<String>, Vec<String>)> {
        if self.register.is_empty() {
            return None;
        }
        let mut seen = HashSet::new();
        let register: Vec<String> = self
            .register
            .iter()
            .filter(|c| seen.insert((*c).clone()))
            .cloned()
            .collect();
        let missing = register
            .iter()
            .filter(|c| !self.concepts_held.contains(*c))
            .cloned()
            .collect();
        Some((register, missing))
    }

    pub fn finish(self) -> Vec<Warning> {
        let mut out = Vec::new();
        if !self.bad_dates.is_empty() {
            let example = self.bad_date_example.clone().unwrap_or_default();
            out.push(warning(
                "value.date",
                format!("dates that do not parse (first: {example})"),
                self.bad_dates.clone(),
            ));
        }
        if !self.inverted.is_empty() {
            out.push(warning(
                "value.interval",
                "valid_to is before valid_from".into(),
                self.inverted.clone(),
            ));
        }
        if !self.duplicates.is_empty() {
            out.push(warning(
                "value.duplicate_id",
                "record_id used by more than one record (each repeat is named)".into(),
                self.duplicates.clone(),
            ));
        }
        if self.capture_known > 0 && self.capture_equal.len() * 2 > self.records {
            out.push(warning(
                "value.capture_time",
                format!(
                    "valid_from equals the capture timestamp on {} of {} records: validity time is when the statement became true, not when it was written",
                    self.capture_equal.len(),
                    self.records
                ),
                self.capture_equal.clone(),
            ));
        }
        let mut concepts: Vec<_> = self.owners.iter().filter(|(_, o)| o.len() > 1).collect();
        concepts.sort_by_key(|(c, _)| (*c).clone());
        for (concept, owners) in concepts {
            let names: Vec<&str> = owners.iter().map(|(o, _)| o.as_str()).collect();
            out.push(warning(
                "value.owners",
                format!(
                    "concept {concept:?} has {} owners: {}",
                    owners.len(),
                    names.join(", ")
                ),
                owners.iter().map(|(_, r)| r.clone()).collect(),
            ));
        }
        let distinct: HashSet<&str> = self.policies.iter().map(|(p, _)| p.as_str()).collect();
        if distinct.len() > 1 {
            out.push(warning(
                "value.policies",
                format!(
                    "{} different conflict policies: a store states one",
                    distinct.len()
                ),
                self.policies.iter().map(|(_, r)| r.clone()).collect(),
            ));
        } else if self.records > 1 && self.policies.len() == self.records {
            out.push(warning(
                "value.policy_repeated",
                "the conflict policy is repeated on every record: state it once per store".into(),
                self.policies
                    .iter()
                    .take(1)
                    .map(|(_, r)| r.clone())
                    .collect(),
            ));
        }
        if !self.bad_release.is_empty() {
            out.push(warning(
                "value.release_to",
                "release_to is not a list of party names".into(),
                self.bad_release.clone(),
            ));
        }
        self.supersession(&mut out);
        out
    }

    fn supersession(&self, out: &mut Vec<Warning>) {
        let mut unknown = Vec::new();
        let mut hand_written = Vec::new();
        let mut edges: HashMap<&str, Vec<&str>> = HashMap::new();
        for (id, line, targets) in &self.supersedes {
            for t in targets {
                match self.ids.get(t) {
                    None => unknown.push(RecordRef {
                        name: format!("{id} → {t}"),
                        line: *line,
                    }),
                    Some(info) => {
                        if info.valid_to_written {
                            hand_written.push(RecordRef {
                                name: t.clone(),
                                line: info.line,
                            });
                        }
                        edges.entry(id.as_str()).or_default().push(t.as_str());
                    }
                }
            }
        }
        if !unknown.is_empty() {
            out.push(warning(
                "value.supersedes_unknown",
                "supersedes names a record that is not in the store".into(),
                unknown,
            ));
        }
        let cycles = find_cycles(&edges);
        if !cycles.is_empty() {
            for cycle in cycles {
                let records = cycle[..cycle.len() - 1]
                    .iter()
                    .map(|id| RecordRef {
                        name: id.to_string(),
                        line: self.ids.get(*id).map_or(0, |i| i.line),
                    })
                    .collect();
                out.push(warning(
                    "value.supersedes_cycle",
                    format!("supersedes forms a cycle: {}", cycle.join(" → ")),
                    records,
                ));
            }
        }
        if !hand_written.is_empty() {
            hand_written.sort_by_key(|r| r.line);
            hand_written.dedup();
            out.push(warning(
                "value.superseded_valid_to",
                "a superseded record carries a valid_to: the end of a superseded interval is derived when reading; leave the old record untouched".into(),
                hand_written,
            ));
        }
    }
}

/// The cycles of a supersedes graph (iterative depth-first search, linear in its size).
fn find_cycles<'a>(edges: &HashMap<&'a str, Vec<&'a str>>) -> Vec<Vec<&'a str>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Active,
        Done,
    }
    let mut marks: HashMap<&str, Mark> = HashMap::new();
    let mut cycles = Vec::new();
    let mut starts: Vec<&&str> = edges.keys().collect();
    starts.sort();
    for &start in starts {
        if marks.contains_key(start) {
            continue;
        }
        let mut stack: Vec<(&str, usize)> = vec![(start, 0)];
        marks.insert(start, Mark::Active);
        while let Some((node, i)) = stack.last().copied() {
            let next = edges.get(node).and_then(|e| e.get(i)).copied();
            match next {
                Some(n) => {
                    stack.last_mut().expect("non-empty").1 += 1;
                    match marks.get(n) {
                        None => {
                            marks.insert(n, Mark::Active);
                            stack.push((n, 0));
                        }
                        Some(Mark::Active) => {
                            let from = stack.iter().position(|(s, _)| *s == n).unwrap_or(0);
                            let mut cycle: Vec<&str> =
                                stack[from..].iter().map(|(s, _)| *s).collect();
                            cycle.push(n);
                            cycles.push(cycle);
                        }
                        Some(Mark::Done) => {}
                    }
                }
                None => {
                    marks.insert(node, Mark::Done);
                    stack.pop();
                }
            }
        }
    }
    cycles
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warning_codes_are_unique() {
        let mut seen = HashSet::new();
        for (code, ..) in CODES {
            assert!(seen.insert(code), "duplicate code {code}");
        }
    }

    #[test]
    fn cycles_are_found_once() {
        let mut e: HashMap<&str, Vec<&str>> = HashMap::new();
        e.insert("a", vec!["b"]);
        e.insert("b", vec!["c"]);
        e.insert("c", vec!["a"]);
        e.insert("d", vec!["a"]);
        let c = find_cycles(&e);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].first(), c[0].last());
    }
}
