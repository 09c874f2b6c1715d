//! The reference checker's rules, rule for rule (vercy 0.2.0, `vercy check`), driven by the
//! profile: which fields make each level, which apply to rule or restricted records, which are
//! SHOULD. Presence only; the values are judged in `values.rs`.
//!
//! Memory: one pass, keeping only the names of offending records (the report lists them all)
//! and, for an inverse-mapped role, the ids pointed at. Nothing grows with the store otherwise.

use crate::mapping::FieldMap;
use crate::profile::{Applies, CountsWhen, Field, Profile};
use crate::record::{is_filled, is_truthy, py_str, Record};
use std::collections::HashSet;

/// The one offender of the missing-policy finding.
pub const NO_POLICY: &str = "no conflict policy anywhere in the store";

/// A requirement some records did not meet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub field: String,
    pub requirement: String,
    pub offenders: Vec<String>,
}

/// Per-field state while the store streams past.
struct FieldState {
    field: &'static Field,
    offenders: Vec<String>,
    /// For a `~inverse` role: (name, record_id) of records that lack it unless pointed at.
    deferred: Vec<(String, String)>,
}

pub struct ReferenceRules {
    profile: &'static Profile,
    map: FieldMap,
    fields: Vec<FieldState>,
    /// ids named by inverse pointers (`supersedes=~replaced_by`).
    pointed_at: HashSet<String>,
    policy_in_records: bool,
    restricted: usize,
    records: usize,
}

impl ReferenceRules {
    pub fn new(map: FieldMap) -> Self {
        let profile = Profile::embedded();
        ReferenceRules {
            profile,
            map,
            fields: profile
                .fields
                .iter()
                .filter(|f| !f.is_experimental())
                .map(|field| FieldState {
                    field,
                    offenders: Vec::new(),
                    deferred: Vec::new(),
                })
                .collect(),
            pointed_at: HashSet::new(),
            policy_in_records: false,
            restricted: 0,
            records: 0,
        }
    }

    pub fn map(&self) -> &FieldMap {
        &self.map
    }

    fn filled(&self, role: &str, record: &Record) -> bool {
        self.map
            .get(role, &record.fields)
            .is_some_and(|v| is_filled(&v))
    }

    /// The name the reference gives a record: its record_id as Python prints it, or `#index`.
    pub fn name_of(map: &FieldMap, record: &Record) -> String {
        match map.get("record_id", &record.fields) {
            Some(v) if is_filled(&v) && is_truthy(&v) => py_str(&v),
            _ => format!("#{}", record.origin.index),
        }
    }

    pub fn observe(&mut self, record: &Record) {
        self.records += 1;
        let checker = &self.profile.checker;
        let states_rule = checker.rule_markers.iter().any(|m| self.filled(m, record));
        let restricted = checker
            .restriction_markers
            .iter()
            .any(|m| self.filled(m, record));
        if restricted {
            self.restricted += 1;
        }
        let name = Self::name_of(&self.map, record);
        for i in 0..self.fields.len() {
            let field = self.fields[i].field;
            let role = field.id.as_str();
            let met = match field.check.counts_when {
                CountsWhen::Present => self.map.get(role, &record.fields).is_some(),
                CountsWhen::NonEmpty => self.filled(role, record),
            };
            match field.check.applies {
                Applies::EveryRecord => {
                    if let Some(path) = self.map.inverse_path(role) {
                        if let Some(v) = path.get(&record.fields) {
                            collect_ids(&v, &mut self.pointed_at);
                        }
                        let id = self
                            .map
                            .get("record_id", &record.fields)
                            .filter(|v| is_filled(v))
                            .map(|v| py_str(&v))
                            .unwrap_or_default();
                        self.fields[i].deferred.push((name.clone(), id));
                    } else if !met {
                        self.fields[i].offenders.push(name.clone());
                    }
                }
                // the reference tests this one with Python truthiness (`any(...)`)
                Applies::OncePerStore
                    if self
                        .map
                        .get(role, &record.fields)
                        .is_some_and(|v| is_filled(&v) && is_truthy(&v)) =>
                {
                    self.policy_in_records = true;
                }
                Applies::RuleRecords if states_rule && !met => {
                    self.fields[i].offenders.push(name.clone())
                }
                Applies::RestrictedRecords if restricted && !met => {
                    self.fields[i].offenders.push(name.clone())
                }
                _ => {}
            }
        }
    }

    pub fn records(&self) -> usize {
        self.records
    }

    pub fn has_policy_in_records(&self) -> bool {
        self.policy_in_records
    }

    /// The level reached and the findings, in the reference's order: the fields of the levels
    /// tried (stopping at the first that fails), then the rule fields, then the SHOULD fields.
    pub fn finish(mut self, policy_outside_records: bool) -> (u8, Vec<Finding>) {
        if self.records == 0 {
            return (0, Vec::new());
        }
        for state in &mut self.fields {
            for (name, id) in std::mem::take(&mut state.deferred) {
                if id.is_empty() || !self.pointed_at.contains(&id) {
                    state.offenders.push(name);
                }
            }
        }
        let offenders = |field: &Field| -> Vec<String> {
            self.fields
                .iter()
                .find(|s| s.field.id == field.id)
                .map(|s| s.offenders.clone())
                .unwrap_or_default()
        };
        let finding = |field: &Field, offenders: Vec<String>| Finding {
            field: field.id.clone(),
            requirement: field.check.label.clone(),
            offenders,
        };
        let mut findings = Vec::new();
        let mut reached = 0;
        for level in 1..=self.profile.top_level() {
            let mut ok = true;
            for field in self.profile.level_fields(level) {
                let missing = match field.check.applies {
                    Applies::OncePerStore if !policy_outside_records && !self.policy_in_records => {
                        vec![NO_POLICY.to_string()]
                    }
                    Applies::OncePerStore => Vec::new(),
                    Applies::RestrictedRecords if self.restricted == 0 => Vec::new(),
                    _ => offenders(field),
                };
                if !missing.is_empty() {
                    findings.push(finding(field, missing));
                    ok = false;
                }
            }
            if !ok {
                break;
            }
            reached = level;
        }
        for field in self.profile.rule_fields() {
            let missing = offenders(field);
            if !missing.is_empty() {
                findings.push(finding(field, missing));
                if reached >= 2 {
                    reached = 1;
                }
            }
        }
        for field in self.profile.should_fields() {
            let missing = offenders(field);
            if !missing.is_empty() {
                findings.push(finding(field, missing));
            }
        }
        (reached, findings)
    }
}

/// Record ids named by a value: a string, a number, or a list of them.
pub fn collect_ids(value: &serde_json::Value, out: &mut HashSet<String>) {
    match value {
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_ids(v, out)),
        v if is_filled(v) => {
            out.insert(py_str(v));
        }
        _ => {}
    }
}
