//! The check report: what every output format prints. Its JSON form is `vercy-check/1`, with
//! the reference checker's keys in the reference's order and meaning; what vercy adds comes
//! after them, under new keys.

use super::rules::{Finding, Offenders, ReferenceRules};
use super::values::ValueChecks;
use super::warnings::{Warning, Warnings};
use super::Options;
use crate::mapping::FieldMap;
use crate::profile::{Applies, Profile};
use crate::store::{Input, Shape};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{json, Value};

#[derive(Debug)]
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
    pub warnings: Warnings,
    /// The register (as given) and the concepts in it that no record holds.
    pub expected_concepts: Option<(Vec<String>, Vec<String>)>,
}

impl Report {
    pub fn build(
        input: &Input,
        opts: &Options,
        shape: Shape,
        rules: ReferenceRules,
        values: ValueChecks,
    ) -> Report {
        let mapping = rules.map().clone();
        let records = rules.records();
        let (reference_level, findings) = rules.finish(opts.policy_outside_records);
        let expected_concepts = values.expected_concepts();
        let warnings = values.finish();
        let level = if opts.strict {
            warnings
                .groups()
                .iter()
                .map(|g| g.code.caps_level())
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
            // one line a code, however many warnings it has
            for g in self.warnings.groups() {
                if g.code.caps_level() >= next {
                    continue;
                }
                let first = self.warnings.of_code(g.code).next();
                match first {
                    Some(w) if g.warnings == 1 => {
                        needs.push(format!("{} ({}) under --strict", w.message(), w.code))
                    }
                    _ => needs.push(format!(
                        "{} warnings of {} ({}) under --strict",
                        g.warnings,
                        g.code,
                        g.code.meaning()
                    )),
                }
            }
        }
        Some((next, needs))
    }

    /// The `vercy-check/1` object, built (for a small report: the MCP tool's full detail).
    /// `Report`'s [`Serialize`] is the object's definition; the CLI writes the same bytes by
    /// hand as it goes (`format/json.rs`), the lists from the compact state one item at a time.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The `vercy-check/1` object: the reference's keys in its order, then vercy's. A key added
/// here is added to `format/json.rs` too (a test compares the two).
impl Serialize for Report {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let profile = Profile::embedded();
        let mut m = serializer.serialize_map(None)?;
        m.serialize_entry("report", "vercy-check/1")?;
        m.serialize_entry("profile", &profile.overlay)?;
        m.serialize_entry("profile_version", &profile.version)?;
        m.serialize_entry("scope", &profile.checker.scope)?;
        m.serialize_entry("scope_note", &profile.checker.scope_note)?;
        m.serialize_entry("records", &self.records)?;
        m.serialize_entry("level", &self.level)?;
        m.serialize_entry("min_level", &self.min_level)?;
        m.serialize_entry("pass", &self.pass)?;
        m.serialize_entry("mapping", &self.mapping.to_json())?;
        m.serialize_entry("policy_outside_records", &self.policy_outside_records)?;
        m.serialize_entry("findings", &Each(|| self.findings.iter().map(FindingJson)))?;
        m.serialize_entry("store", &self.store)?;
        // vercy's additions
        m.serialize_entry("shape", &self.shape.name())?;
        m.serialize_entry("strict", &self.strict)?;
        m.serialize_entry("reference_level", &self.reference_level)?;
        m.serialize_entry("warnings", &Each(|| self.warnings.iter().map(WarningJson)))?;
        let expected = match &self.expected_concepts {
            None => Value::Null,
            Some((register, missing)) => {
                json!({"experimental": true, "register": register, "missing": missing})
            }
        };
        m.serialize_entry("expected_concepts", &expected)?;
        let next = match self.next_level() {
            None => Value::Null,
            Some((level, needs)) => json!({"level": level, "needs": needs}),
        };
        m.serialize_entry("next_level", &next)?;
        m.end()
    }
}

/// A list written item by item from an iterator it makes (no `Vec` of the items).
pub struct Each<F>(pub F);

impl<F, I> Serialize for Each<F>
where
    F: Fn() -> I,
    I: Iterator,
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq((self.0)())
    }
}

/// A finding as the reference writes it: every offender.
struct FindingJson<'a>(&'a Finding);

impl Serialize for FindingJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let f = self.0;
        let mut m = serializer.serialize_map(Some(4))?;
        m.serialize_entry("field", &f.field)?;
        m.serialize_entry("requirement", &f.requirement)?;
        m.serialize_entry("count", &f.offenders.len())?;
        m.serialize_entry("offenders", &OffendersJson(&f.offenders))?;
        m.end()
    }
}

struct OffendersJson<'a>(&'a Offenders);

impl Serialize for OffendersJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter())
    }
}

/// A warning with its count and every record it names.
struct WarningJson<'a>(Warning<'a>);

impl Serialize for WarningJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let w = &self.0;
        let mut m = serializer.serialize_map(Some(6))?;
        m.serialize_entry("code", w.code.code())?;
        m.serialize_entry("field", w.code.field())?;
        m.serialize_entry("message", &w.message())?;
        m.serialize_entry("caps_level", &w.code.caps_level())?;
        m.serialize_entry("count", &w.count())?;
        m.serialize_entry("records", &Each(|| w.records().map(RecordJson)))?;
        m.end()
    }
}

struct RecordJson<'a>((&'a str, u64));

impl Serialize for RecordJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut m = serializer.serialize_map(Some(2))?;
        m.serialize_entry("record", self.0 .0)?;
        m.serialize_entry("line", &self.0 .1)?;
        m.end()
    }
}

pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
