//! `check`: rate a store against the profile's levels.
//!
//! [`rules`] is the reference checker's behaviour (presence), [`values`] goes further (values),
//! [`report`] assembles both into the `vercy-check/1` report, [`format`] prints it.

pub mod format;
pub mod report;
pub mod rules;
pub mod values;

use crate::error::Result;
use crate::mapping::FieldMap;
use crate::store::{self, Aside, Entry, Input};
use report::Report;

/// What a check run was asked.
#[derive(Debug, Clone)]
pub struct Options {
    pub map: FieldMap,
    /// `--map` was given (else a store's native map may apply, e.g. engrama's).
    pub map_given: bool,
    pub policy_outside_records: bool,
    pub min_level: u8,
    pub strict: bool,
    /// Concepts from `--expected FILE`.
    pub expected: Vec<String>,
}

/// Check one store: a single streaming pass through both rule sets.
pub fn check_store(input: &Input, opts: &Options) -> Result<Report> {
    let mut map = opts.map.clone();
    let mut rules: Option<rules::ReferenceRules> = None;
    let mut values = values::ValueChecks::default();
    let shape = store::read(input, &mut |entry| {
        match entry {
            // an engrama dump reads through the engrama map unless the user gave one
            Entry::Aside(Aside::EngramaHeader, _) if !opts.map_given => {
                map = FieldMap::parse(&["engrama".to_string()])?;
            }
            Entry::Record(record) => {
                let rules = rules.get_or_insert_with(|| rules::ReferenceRules::new(map.clone()));
                rules.observe(&record);
                let name = rules::ReferenceRules::name_of(rules.map(), &record);
                values.observe(rules.map(), &record, &name);
            }
            Entry::Aside(..) => {}
        }
        Ok(())
    })?;
    let rules = rules.unwrap_or_else(|| rules::ReferenceRules::new(map));
    values.expect(opts.expected.iter().cloned());
    Ok(Report::build(input, opts, shape, rules, values))
}
