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
pub mod warnings;

use crate::error::Result;
use crate::mapping::FieldMap;
use crate::progress;
use crate::store::{self, Entry, Input, KeySelection, View};
use report::Report;
use roles::{RawPlan, Roles};
use std::sync::OnceLock;

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

/// Records whose facts are held back before the first fold: they tell how large the records
/// are, so the lists of ids and concepts are sized once for the whole file rather than grown
/// by doubling.
const SIZING_RECORDS: usize = 2048;

/// How the records of one store are read: through the map given, or engrama's for a dump
/// when none was given; from the raw text when every role is a plain key (`plan`).
struct FactReader {
    map: FieldMap,
    plan: Option<RawPlan>,
    /// The read-only half of the rules (which fields, which markers): it reads each record.
    rules: rules::ReferenceRules,
}

impl FactReader {
    fn new(map: FieldMap, plan: Option<RawPlan>) -> FactReader {
        let rules = rules::ReferenceRules::new(map.clone());
        FactReader { map, plan, rules }
    }

    /// One record's facts, with nothing borrowed: they travel to the folding thread.
    fn facts(&self, roles: &Roles, line: u64, offset: u64) -> Facts {
        let mut rules = self.rules.facts(roles);
        let values = values::ValueChecks::facts(roles, line);
        // the name the reference gives a record is nearly always its id: one copy travels
        let name_is_id = rules.name.is_some() && rules.name.as_deref() == values.id();
        if name_is_id {
            rules.name = None;
        }
        Box::new(RecordFacts {
            rules: rules.into_owned(),
            values: values.pack(),
            offset,
            name_is_id,
        })
    }
}

/// What one record contributes to the report, read on any core, folded in store order.
struct RecordFacts {
    rules: rules::RuleFacts<'static>,
    values: values::PackedFacts,
    /// Where the record starts in the file (for the progress bar).
    offset: u64,
    /// The record's name is its id (`rules.name` is then left empty).
    name_is_id: bool,
}

/// Boxed: the facts pass through a few queues, and a pointer moves for free.
type Facts = Box<RecordFacts>;

/// Check one store: a single streaming pass through both rule sets.
///
/// Each record is read on whichever core decoded it (`store::read_looking`): its facts, a
/// few flags and texts, are all that travel on; they are folded in store order (by one
/// worker at a time, see `store/batch.rs`), so the report is the one a record-by-record pass gives. When every role the checks
/// read is one plain top-level key, a JSON line is not built at all: the reader's scanner
/// validates it and notes where the wanted values lie, and the checks read them from the line,
/// borrowed (`roles.rs`); otherwise the reader builds only the keys the checks look at.
///
/// Memory: the fold keeps what `rules.rs` and `values.rs` describe (ids, concepts, pointers,
/// offenders: each at most one entry per record, so linear); the reading side holds a few
/// blocks of the file and their facts at a time, whatever the store's size.
pub fn check_store(input: &Input, opts: &Options) -> Result<Report> {
    let maps = store::Maps::new(opts.map.clone(), opts.map_given)?;
    let roles = roles::role_names();
    let given_plan = RawPlan::new(&opts.map, &values::CAPTURE_KEYS);
    let keep = match &given_plan {
        Some(plan) => KeySelection::slots(plan.slots.clone()),
        None => keys_looked_at(maps.each(), roles),
    };
    let raw_only = given_plan.is_some();
    // settled by the first entry, which is read before any other: an engrama dump's header
    let reading: OnceLock<FactReader> = OnceLock::new();
    let work = |entry: Entry| -> Result<Option<Facts>> {
        let reading = reading.get_or_init(|| match maps.own(&entry) {
            Some(own) => FactReader::new(own.clone(), None),
            None => FactReader::new(opts.map.clone(), given_plan.clone()),
        });
        let Entry::Record(record) = entry else {
            return Ok(None);
        };
        let roles = Roles::of(&record, &reading.map, reading.plan.as_ref(), raw_only);
        Ok(Some(reading.facts(
            &roles,
            record.origin.line,
            record.origin.offset,
        )))
    };
    // a JSON line the reader's scanner took: read in place (the first lines came as entries,
    // so `reading` is settled; views come only with `KeySelection::slots`, that is with a plan:
    // the built fallback is for completeness)
    let look = |view: View| -> Result<Option<Facts>> {
        let reading = reading.get_or_init(|| FactReader::new(opts.map.clone(), given_plan.clone()));
        let roles = match &reading.plan {
            Some(plan) => Roles::spans(plan, view),
            None => {
                let fields = serde_json::from_str(view.text).unwrap_or_default();
                Roles::Built {
                    map: &reading.map,
                    fields: std::borrow::Cow::Owned(fields),
                }
            }
        };
        Ok(Some(reading.facts(&roles, view.line, view.offset)))
    };

    let mut rules: Option<rules::ReferenceRules> = None;
    let mut values = values::ValueChecks::default();
    let bar = progress::bar(input, "checking", false);
    let file_size = input
        .path
        .as_deref()
        .and_then(|p| std::fs::metadata(p).ok())
        .map(|m| m.len());
    let mut early: Option<Vec<Facts>> = Some(Vec::with_capacity(SIZING_RECORDS));
    // how many records the store holds, estimated from the first ones (0: unknown)
    let mut expected = 0;
    let mut fold = |facts: Facts, values: &mut values::ValueChecks, expected: usize| {
        let rules = rules.get_or_insert_with(|| {
            let map = reading.get().map_or(&opts.map, |r| &r.map);
            let mut rules = rules::ReferenceRules::new(map.clone());
            rules.expect_records(expected);
            rules
        });
        let unnamed;
        let name = match (&facts.rules.name, facts.values.id()) {
            (_, Some(id)) if facts.name_is_id => id,
            (Some(name), _) => name.as_ref(),
            _ => {
                unnamed = rules::unnamed(rules.records());
                unnamed.as_str()
            }
        };
        rules.fold(&facts.rules, name, facts.values.line());
        values.fold(&facts.values, name);
        let offset = facts.offset;
        if let Some(bar) = &bar {
            if rules.records().is_multiple_of(4096) {
                bar.set_position(offset);
            }
        }
    };
    let shape = store::read_looking(input, &keep, &look, &work, &mut |facts| {
        let Some(facts) = facts else {
            return Ok(());
        };
        match &mut early {
            Some(held) if held.len() < SIZING_RECORDS => held.push(facts),
            Some(_) => {
                let mut held = early.take().unwrap_or_default();
                expected = size_tables(&held, file_size, &mut values);
                held.push(facts);
                for facts in held {
                    fold(facts, &mut values, expected);
                }
            }
            None => fold(facts, &mut values, expected),
        }
        Ok(())
    })?;
    if let Some(held) = early.take() {
        expected = size_tables(&held, file_size, &mut values);
        for facts in held {
            fold(facts, &mut values, expected);
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let map = reading.get().map_or(&opts.map, |r| &r.map).clone();
    let rules = rules.unwrap_or_else(|| rules::ReferenceRules::new(map));
    values.expect(opts.expected.iter().cloned());
    // the value checks' tables go before the report's lists of offenders are built
    values
        .settle()
        .map_err(|e| crate::error::VercyError::Read {
            path: "the conflict check's temporary file".to_string(),
            reason: e.to_string(),
        })?;
    Ok(Report::build(input, opts, shape, rules, values))
}

/// Size the value checks' id table once for the whole file, from the first records' sizes;
/// returns the number of records the file holds, about (0 when unknown).
fn size_tables(early: &[Facts], file_size: Option<u64>, values: &mut values::ValueChecks) -> usize {
    let (Some(size), Some(end)) = (file_size, early.last().map(|f| f.offset)) else {
        return 0;
    };
    if end == 0 {
        return 0;
    }
    let records = (early.len() as u64).saturating_mul(size) / end;
    let records = usize::try_from(records + records / 8).unwrap_or(usize::MAX);
    let per_record = |len: fn(&values::PackedFacts) -> usize| {
        let bytes: usize = early.iter().map(|facts| len(&facts.values)).sum();
        records.saturating_mul(bytes / early.len().max(1) + 1)
    };
    let pointers: usize = early.iter().map(|facts| facts.values.pointer_count()).sum();
    let pointers = pointers.saturating_mul(records) / early.len().max(1);
    values.expect_records(
        records,
        per_record(values::PackedFacts::id_len),
        pointers,
        per_record(values::PackedFacts::concept_len),
    );
    records
}

/// The top-level keys the checks read under these maps: the keys their roles' paths start
/// with (and the literal keys, which win), plus the capture-time keys.
fn keys_looked_at<'m>(maps: impl Iterator<Item = &'m FieldMap>, roles: &[&str]) -> KeySelection {
    let mut keys: Vec<String> = values::CAPTURE_KEYS.iter().map(|k| k.to_string()).collect();
    for map in maps {
        for role in roles {
            keys.extend(map.path(role).top_keys().map(str::to_string));
        }
    }
    KeySelection::keys(keys)
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
        let read = |keep: &KeySelection, plan: Option<&RawPlan>| -> Option<Vec<String>> {
            let mut out = Vec::new();
            let read = store::read_with(&Input::new(path), keep, &mut |entry| {
                if let Entry::Record(record) = entry {
                    let roles = Roles::of(&record, &map, plan, plan.is_some());
                    out.push(format!(
                        "{:?} {:?}",
                        rules.facts(&roles),
                        values::ValueChecks::facts(&roles, record.origin.line)
                    ));
                }
                Ok(())
            });
            read.ok().map(|_| out)
        };
        let fast = read(&KeySelection::slots(plan.slots.clone()), Some(&plan));
        let general = read(&KeySelection::all(), None);
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
