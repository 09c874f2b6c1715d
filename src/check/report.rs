//! The check report: what every output format prints. Its JSON form is `vercy-check/1`, with
//! the reference checker's keys in the reference's order and meaning; what vercy adds comes
//! after them, under new keys.

//!
//! The formats (`format/`) read the report and what it holds through this module only: the
//! value warnings and their codes (`warnings/`, and every code the checks declare, `values/`),
//! the names of the records they name (the index's), the reference's findings.

pub use super::index::book::BookAhead;
pub use super::index::id_text::RecordName;
pub use super::index::names::{read_together, NamesAhead};
pub use super::rules::{Finding, NO_POLICY};
pub use super::values::codes;
pub use super::warnings::{Code, Group, Warning, Warnings, CODES_HELP_URI};
pub use crate::formats::plural;

use super::index::Expected;
use super::Options;
use crate::mapping::FieldMap;
use crate::profile::{Applies, Profile};
use crate::store::{Input, Shape};

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
    pub expected_concepts: Option<Expected>,
}

impl Report {
    /// Fails when a name or a concept the report wrote was to be read back from the check's
    /// temporary file and could not be: the report named it empty.
    pub fn names_read_back(&self) -> crate::error::Result<()> {
        if !self.warnings.names_unreadable() {
            return Ok(());
        }
        Err(crate::error::VercyError::Read {
            path: "the check's temporary file".to_string(),
            reason:
                "a record's name or a concept could not be read back: the report names it empty"
                    .to_string(),
        })
    }

    /// The report of one store read as `shape`: the reference's level and findings (under
    /// `mapping`, of `records` records) and the value warnings with the register.
    pub fn build(
        input: &Input,
        opts: &Options,
        (shape, mapping, records): (Shape, FieldMap, usize),
        (reference_level, findings): (u8, Vec<Finding>),
        (warnings, expected_concepts): (Warnings, Option<Expected>),
    ) -> Report {
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
        Some((next, self.needs(next)))
    }

    /// What level `next` (above the level reached) needs, as sentences.
    pub fn needs(&self, next: u8) -> Vec<String> {
        let profile = Profile::embedded();
        let mut needs: Vec<String> = Vec::new();
        for f in &self.findings {
            let field = profile.field(&f.field);
            let counts = match field.map(|x| x.check.applies) {
                Some(Applies::RuleRecords) => next >= 2,
                Some(_) => field.is_some_and(|x| x.level <= next && !x.is_should()),
                None => false,
            };
            if counts {
                needs.push(if f.offenders.len() == 1 && f.offenders.first().as_deref() == Some(NO_POLICY) {
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
        needs
    }
}
