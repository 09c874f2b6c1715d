//! `check`: rate a store against the profile's levels.
//!
//! [`rules`] is the reference checker's behaviour (presence), [`values`] goes further (values),
//! [`report`] assembles both into the `vercy-check/1` report, [`format`] prints it.

pub mod format;
pub mod report;
mod roles;
pub mod rules;
mod table;
pub mod values;

use crate::error::Result;
use crate::mapping::FieldMap;
use crate::output;
use crate::record::Record;
use crate::store::{self, Aside, Entry, Input, Keep};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use report::Report;
use roles::{RawPlan, Roles};

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

/// Records read per batch: each batch is read in parallel, then folded in order.
const BATCH: usize = 2048;

/// Stores smaller than this get no progress bar.
const PROGRESS_MIN_BYTES: u64 = 32 << 20;

/// Check one store: a single streaming pass through both rule sets.
///
/// Records come in batches; each record of a batch is read on any core (`facts`), and the
/// facts are folded in store order, so the report is the one a record-by-record pass gives.
/// When every role the checks read is one plain top-level key, the reader keeps only each
/// record's validated text and the checks read the values they need from it, borrowed
/// (`roles.rs`); otherwise it builds only the keys the checks look at.
pub fn check_store(input: &Input, opts: &Options) -> Result<Report> {
    let engrama = FieldMap::parse(&["engrama".to_string()])?;
    let roles = roles::role_names();
    let given_plan = RawPlan::new(&opts.map, &values::CAPTURE_KEYS);
    let keep = match &given_plan {
        Some(plan) => Keep::slots(plan.slots.clone()),
        None if opts.map_given => keys_looked_at(&[&opts.map], roles),
        None => keys_looked_at(&[&opts.map, &engrama], roles),
    };
    let raw_only = given_plan.is_some();
    let mut map = opts.map.clone();
    let mut plan = given_plan.as_ref();
    let mut rules: Option<rules::ReferenceRules> = None;
    let mut values = values::ValueChecks::default();
    let mut batch: Vec<Record> = Vec::with_capacity(BATCH);
    let bar = progress_bar(input);
    let file_size = input
        .path
        .as_deref()
        .and_then(|p| std::fs::metadata(p).ok())
        .map(|m| m.len());
    let mut first_batch = true;
    let mut flush = |batch: &mut Vec<Record>, map: &FieldMap, plan: Option<&RawPlan>| {
        let rules = rules.get_or_insert_with(|| rules::ReferenceRules::new(map.clone()));
        let reached = batch.last().map(|r| r.origin.offset);
        // each record is read on any core; the facts borrow from the records, which go once
        // the batch is folded
        let roles: Vec<Roles> = batch
            .par_iter()
            .map(|record| Roles::of(record, map, plan, raw_only))
            .collect();
        let rules_now: &rules::ReferenceRules = rules;
        let facts: Vec<_> = roles
            .par_iter()
            .zip(batch.par_iter())
            .map(|(roles, record)| {
                (
                    rules_now.facts(roles, record.origin.index),
                    values::ValueChecks::facts(roles, record.origin.line),
                )
            })
            .collect();
        if first_batch {
            // the first batch tells how large the records are: size the id table once for
            // the whole file rather than let it grow by doubling
            first_batch = false;
            if let (Some(size), Some(end)) = (file_size, reached.filter(|&e| e > 0)) {
                let records = (facts.len() as u64).saturating_mul(size) / end;
                let records = usize::try_from(records + records / 8).unwrap_or(usize::MAX);
                let id_bytes: usize = facts.iter().map(|(_, v)| v.id_len()).sum();
                let per_id = id_bytes / facts.len().max(1) + 1;
                values.expect_records(records, records.saturating_mul(per_id));
            }
        }
        for (rule_facts, value_facts) in facts {
            rules.fold(&rule_facts);
            values.fold(value_facts, &rule_facts.name);
        }
        drop(roles);
        batch.clear();
        if let (Some(bar), Some(offset)) = (&bar, reached) {
            bar.set_position(offset);
        }
    };
    let shape = store::read_with(input, &keep, &mut |entry| {
        match entry {
            // an engrama dump reads through the engrama map unless the user gave one
            Entry::Aside(Aside::EngramaHeader, _) if !opts.map_given => {
                map = engrama.clone();
                plan = None;
            }
            Entry::Record(record) => {
                batch.push(record);
                if batch.len() == BATCH {
                    flush(&mut batch, &map, plan);
                }
            }
            Entry::Aside(..) => {}
        }
        Ok(())
    })?;
    if !batch.is_empty() {
        flush(&mut batch, &map, plan);
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let rules = rules.unwrap_or_else(|| rules::ReferenceRules::new(map));
    values.expect(opts.expected.iter().cloned());
    // the value checks' tables go before the report's lists of offenders are built
    values.settle();
    Ok(Report::build(input, opts, shape, rules, values))
}

/// The top-level keys the checks read under these maps: the keys their roles' paths start
/// with (and the literal keys, which win), plus the capture-time keys.
fn keys_looked_at(maps: &[&FieldMap], roles: &[&str]) -> Keep {
    let mut keys: Vec<String> = values::CAPTURE_KEYS.iter().map(|k| k.to_string()).collect();
    for map in maps {
        for role in roles {
            keys.extend(map.path(role).top_keys().map(str::to_string));
        }
    }
    Keep::keys(keys)
}

/// A byte progress bar on stderr for a large store file, when progress is wanted.
fn progress_bar(input: &Input) -> Option<ProgressBar> {
    if !output::progress_enabled() {
        return None;
    }
    let len = std::fs::metadata(input.path.as_deref()?).ok()?.len();
    if len < PROGRESS_MIN_BYTES {
        return None;
    }
    let style = ProgressStyle::with_template("checking {bar:30} {bytes}/{total_bytes} {eta}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    Some(ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr()).with_style(style))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every record's facts, read the fast way (values borrowed from the raw text at the
    /// places the reader noted) and the general way (fields built, read through the map).
    fn facts_both_ways(path: &str) -> Option<Vec<(String, String)>> {
        let map = FieldMap::identity();
        let plan = RawPlan::new(&map, &values::CAPTURE_KEYS).expect("identity plan");
        let rules = rules::ReferenceRules::new(map.clone());
        let read = |keep: &Keep, plan: Option<&RawPlan>| -> Option<Vec<String>> {
            let mut out = Vec::new();
            let read = store::read_with(&Input::new(path), keep, &mut |entry| {
                if let Entry::Record(record) = entry {
                    let roles = Roles::of(&record, &map, plan, plan.is_some());
                    out.push(format!(
                        "{:?} {:?}",
                        rules.facts(&roles, record.origin.index),
                        values::ValueChecks::facts(&roles, record.origin.line)
                    ));
                }
                Ok(())
            });
            read.ok().map(|_| out)
        };
        let fast = read(&Keep::slots(plan.slots.clone()), Some(&plan));
        let general = read(&Keep::all(), None);
        // a store one way cannot read, the other cannot read either
        assert_eq!(fast.is_some(), general.is_some(), "{path}");
        let (fast, general) = (fast?, general?);
        assert_eq!(fast.len(), general.len(), "{path}");
        Some(fast.into_iter().zip(general).collect())
    }

    #[test]
    fn borrowed_and_built_reads_give_the_same_facts() {
        let mut checked = 0;
        for dir in [
            "fixtures/edge",
            "fixtures/values",
            "fixtures/quirks",
            "fixtures/bad",
            "fixtures",
        ] {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
            for entry in std::fs::read_dir(&dir).expect("fixtures") {
                let path = entry.expect("entry").path();
                let name = path.to_string_lossy().to_string();
                if !(name.ends_with(".jsonl") || name.ends_with(".json")) {
                    continue;
                }
                for (fast, general) in facts_both_ways(&name).unwrap_or_default() {
                    assert_eq!(fast, general, "{name}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "{checked} records compared");
    }
}
