//! The check report: what every output format prints. Its JSON form is `vercy-check/1`, with
//! the reference checker's keys in the reference's order and meaning; what vercy adds comes
//! after them, under new keys.

use super::rules::{Finding, ReferenceRules};
use super::values::{ValueChecks, Warning};
use super::Options;
use crate::mapping::FieldMap;
use crate::profile::{Applies, Profile};
use crate::store::{Input, Shape};
use serde_json::{json, Map, Value};

#[derive(Debug, Clone)]
pub struct Report {
    pub store: String,
    pub shape: Shape,
    pub records: usize,
    /// The level the reference rules reach.
    pub reference_level: u8,
    /// The level reported: the reference level, capped by warnings under `--strict`.
    pub level: u8,
    pub min_level: u8,
    pub pass: bool,
    pub strict: bool,
    pub mapping: FieldMap,
    pub policy_outside_records: bool,
    pub findings: Vec<Finding>,
    pub warnings: Vec<Warning>,
    /// The register (as given) and the concepts in it that no record holds.
    pub expected_concepts: Option<(Vec<String>, Vec<String>)>,
}

impl Report {
    pub fn build(
        input: &Input,
        opts: &Options,
        shape: Shape,
        rules: ReferenceRules,
        mut values: ValueChecks,
    ) -> Report {
        let mapping = rules.map().clone();
        let records = rules.records();
        let (reference_level, findings) = rules.finish(opts.policy_outside_records);
        let expected_concepts = values.expected_concepts();
        let warnings = values.finish();
        let level = if opts.strict {
            warnings
                .iter()
                .map(|w| w.caps_level)
                .fold(reference_level, u8::min)
        } else {
            reference_level
        };
        Report {
            store: input.arg.clone(),
            shape,
            records,
            reference_level,
            level,
            min_level: opts.min_level,
            pass: records > 0 && level >= opts.min_level,
            strict: opts.strict,
            mapping,
            policy_outside_records: opts.policy_outside_records,
            findings,
            warnings,
            expected_concepts,
        }
    }

    /// What the next level needs, as (level, sentences); `None` at the top level.
    pub fn next_level(&self) -> Option<(u8, Vec<String>)> {
        let profile = Profile::embedded();
        if self.records == 0 {
            return Some((1, vec!["records: the store holds none".into()]));
        }
        let next = self.level + 1;
        if next > profile.top_level() {
            return None;
        }
        let mut needs: Vec<String> = Vec::new();
        for f in &self.findings {
            let field = profile.field(&f.field);
            let counts = match field.map(|x| x.check.applies) {
                Some(Applies::RuleRecords) => next >= 2,
                Some(_) => field.is_some_and(|x| x.level <= next && !x.is_should()),
                None => false,
            };
            if counts {
                needs.push(if f.offenders.len() == 1 && f.offenders.first() == Some(super::rules::NO_POLICY) {
                    format!("{}: a conflict policy, stated once (a record carrying it, or --policy when it lives elsewhere)", f.field)
                } else {
                    format!("{}: on {} record{} ({})", f.field, f.offenders.len(), plural(f.offenders.len()), f.requirement)
                });
            }
        }
        if self.strict {
            for w in &self.warnings {
                if w.caps_level < next {
                    needs.push(format!("{} ({}) under --strict", w.message, w.code));
                }
            }
        }
        Some((next, needs))
    }

    /// The `vercy-check/1` object.
    pub fn to_json(&self) -> Value {
        let profile = Profile::embedded();
        let mut m = Map::new();
        m.insert("report".into(), json!("vercy-check/1"));
        m.insert("profile".into(), json!(profile.overlay));
        m.insert("profile_version".into(), json!(profile.version));
        m.insert("scope".into(), json!(profile.checker.scope));
        m.insert("scope_note".into(), json!(profile.checker.scope_note));
        m.insert("records".into(), json!(self.records));
        m.insert("level".into(), json!(self.level));
        m.insert("min_level".into(), json!(self.min_level));
        m.insert("pass".into(), json!(self.pass));
        m.insert("mapping".into(), self.mapping.to_json());
        m.insert(
            "policy_outside_records".into(),
            json!(self.policy_outside_records),
        );
        m.insert(
            "findings".into(),
            Value::Array(
                self.findings
                    .iter()
                    .map(|f| {
                        json!({"field": f.field, "requirement": f.requirement,
                               "count": f.offenders.len(), "offenders": f.offenders})
                    })
                    .collect(),
            ),
        );
        m.insert("store".into(), json!(self.store));
        // vercy's additions
        m.insert("shape".into(), json!(self.shape.name()));
        m.insert("strict".into(), json!(self.strict));
        m.insert("reference_level".into(), json!(self.reference_level));
        m.insert(
            "warnings".into(),
            Value::Array(
                self.warnings
                    .iter()
                    .map(|w| {
                        json!({"code": w.code, "field": w.field, "message": w.message,
                               "caps_level": w.caps_level, "count": w.records.len(),
                               "records": w.records.iter().map(|r| json!({"record": r.name, "line": r.line})).collect::<Vec<_>>()})
                    })
                    .collect(),
            ),
        );
        m.insert(
            "expected_concepts".into(),
            match &self.expected_concepts {
                None => Value::Null,
                Some((register, missing)) => {
                    json!({"experimental": true, "register": register, "missing": missing})
                }
            },
        );
        m.insert(
            "next_level".into(),
            match self.next_level() {
                None => Value::Null,
                Some((level, needs)) => json!({"level": level, "needs": needs}),
            },
        );
        Value::Object(m)
    }
}

pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
