//! `check`: rate a store against the profile's levels.
//!
//! [`rules`] is the reference checker's behaviour (presence), [`values`] goes further (values)
//! over the index every value check reads (`index/`), [`report`] assembles both into the
//! `vercy-check/1` report, [`mod@format`] prints it.

pub mod format;
mod index;
pub mod report;
mod roles;
pub mod rules;
pub mod shard;
mod table;
pub mod values;
mod warnings;

use crate::error::Result;
use crate::progress;
use crate::store::{self, Input, RecordView, RoleReading, Sighting};
use report::Report;
use std::sync::OnceLock;

/// What a check run was asked.
#[derive(Debug, Clone)]
pub struct Options {
    pub map: crate::mapping::FieldMap,
    /// `--map` was given (else a store's native map may apply, e.g. engrama's).
    pub map_given: bool,
    pub policy_outside_records: bool,
    pub min_level: u8,
    pub strict: bool,
    /// Concepts from `--expected FILE`.
    pub expected: Vec<String>,
    /// What the checks may keep in memory before a temporary file (`--memory`, bytes).
    pub memory: usize,
}

impl Options {
    /// A check through `map` (`--map` as given, none: the identity or a store's own), with
    /// every other setting at its default.
    pub fn with_map(map: &[String]) -> Result<Options> {
        Ok(Options {
            map: crate::mapping::FieldMap::parse(map)?,
            map_given: !map.is_empty(),
            policy_outside_records: false,
            min_level: 1,
            strict: false,
            expected: Vec::new(),
            memory: crate::spill::DEFAULT_MEMORY,
        })
    }
}

/// Records whose facts are held back before the first fold: they tell how large the records
/// are, so the lists of ids and concepts are sized once for the whole file rather than grown
/// by doubling.
const SIZING_RECORDS: usize = 2048;

/// One record's facts, with nothing borrowed: they travel to the folding thread. `rules` is
/// the read-only half of the rules (which fields, which markers) for the map the record
/// reads through.
fn facts(rules: &rules::ReferenceRules, view: &RecordView) -> Facts {
    let mut rule_facts = rules.facts(view);
    let values = values::ValueChecks::facts(view, view.origin.line);
    // the name the reference gives a record is nearly always its id: one copy travels
    let name_is_id =
        rule_facts.name.is_some() && rule_facts.name.as_deref() == values.shared().id();
    if name_is_id {
        rule_facts.name = None;
    }
    Box::new(RecordFacts {
        rules: rule_facts.into_owned(),
        values,
        offset: view.origin.offset,
        len: u32::try_from(view.text.len()).unwrap_or(0),
        name_is_id,
    })
}

/// What one record contributes to the report, read on any core, folded in store order (and
/// serialised, one JSON line a record, in a shard's facts: `shard/facts.rs`).
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct RecordFacts {
    rules: rules::RuleFacts<'static>,
    values: values::PackedFacts,
    /// Where the record starts in the file (for the progress bar, and for reading it back).
    #[serde(skip)]
    offset: u64,
    /// How many bytes its text takes there (0: the reader kept none).
    #[serde(skip)]
    len: u32,
    /// The record's name is its id (`rules.name` is then left empty).
    name_is_id: bool,
}

impl RecordFacts {
    /// The record starts on `line` of the whole store (a shard's record, merged).
    pub(crate) fn set_line(&mut self, line: u64) {
        self.values.shared_mut().set_line(line);
    }

    /// Where the record lies in its store (its text's length 0 when the reader kept none, as
    /// for a record built whole) and its concept's key ([`concept_key`] of its text), when it
    /// holds a concept.
    pub(crate) fn sighting(&self) -> Option<Sighting> {
        let shared = self.values.shared();
        shared.concept_hash().map(|key| Sighting {
            line: shared.line(),
            offset: self.offset,
            len: self.len,
            key,
        })
    }
}

/// The key the check gives a concept: the hash its index keeps of the concept's text (random
/// in each process, the same on every thread).
pub(crate) fn concept_key(text: &str) -> u64 {
    table::hash(text)
}

/// Give concepts the same keys in every run (a fixed hash seed, set before the first hash):
/// a page drawn from the check's keys then draws the same concepts each time, as the cut of
/// its summary keeps, among concepts of equal weight, the ones the hash orders first. The
/// price is `table::fix_seed`'s. False when this process already hashed with a random seed.
pub(crate) fn fix_concept_keys() -> bool {
    table::fix_seed()
}

/// Boxed: the facts pass through a few queues, and a pointer moves for free.
type Facts = Box<RecordFacts>;

/// How the checks read a store: their roles and the capture-time keys, through the map given
/// or the store's own, each view sized up at once (the rules ask how every role counts).
fn role_reading(opts: &Options) -> Result<RoleReading> {
    let maps = store::Maps::new(opts.map.clone(), opts.map_given)?;
    Ok(RoleReading::new(
        maps,
        roles::role_set(),
        &values::CAPTURE_KEYS,
        true,
    ))
}

/// Check one store: a single streaming pass through both rule sets.
///
/// Each record is read on whichever core decoded it, as the reader's view of it
/// (`store::read_views`: a JSON line seen in place, nothing built, when every role is one
/// plain key): its facts, a few flags and texts, are all that travel on; they are folded in
/// store order (by one worker at a time, see `store/batch.rs`), so the report is the one a
/// record-by-record pass gives.
///
/// Memory: the fold keeps what `rules.rs` and `values.rs` describe (ids, concepts, pointers,
/// offenders: each at most one entry per record, so linear); the reading side holds a few
/// blocks of the file and their facts at a time, whatever the store's size.
pub fn check_store(input: &Input, opts: &Options) -> Result<Report> {
    check_store_with(input, opts, &mut |_| Ok(()))
}

/// [`check_store`], handing each record's facts to `each` once folded, in store order (a
/// shard's facts, `shard/facts.rs`).
pub(crate) fn check_store_with(
    input: &Input,
    opts: &Options,
    each: &mut (dyn FnMut(&RecordFacts) -> Result<()> + Send),
) -> Result<Report> {
    let reading = role_reading(opts)?;
    // the rules' read-only half, for the map the records read through (the same for every
    // record: the reader settles it before the first)
    let reader: OnceLock<rules::ReferenceRules> = OnceLock::new();
    let work = |view: &RecordView| -> Result<Facts> {
        let rules = reader.get_or_init(|| rules::ReferenceRules::new(view.map().clone()));
        Ok(facts(rules, view))
    };

    let mut fold = Fold::within(opts.memory);
    let bar = progress::bar(input, "checking", false);
    let file_size = input
        .path()
        .and_then(|p| std::fs::metadata(p).ok())
        .map(|m| m.len());
    let mut early: Option<Vec<Facts>> = Some(Vec::with_capacity(SIZING_RECORDS));
    // how many records the store holds, estimated from the first ones (0: unknown)
    let mut expected = 0;
    let mut fold_one = |facts: Facts, fold: &mut Fold, expected: usize| -> Result<()> {
        let map = reader.get().map_or(&opts.map, |r| r.map());
        fold.fold(&facts, map, expected);
        if let Some(bar) = &bar {
            if fold.records().is_multiple_of(4096) {
                progress::show(bar, facts.offset);
            }
        }
        each(&facts)
    };
    let (shape, plan) = store::read_views(input, &reading, &work, &mut |facts| {
        match &mut early {
            Some(held) if held.len() < SIZING_RECORDS => held.push(facts),
            Some(_) => {
                let mut held = early.take().unwrap_or_default();
                expected = size_tables(&held, file_size, &mut fold.values);
                held.push(facts);
                for facts in held {
                    fold_one(facts, &mut fold, expected)?;
                }
            }
            None => fold_one(facts, &mut fold, expected)?,
        }
        Ok(())
    })?;
    if let Some(held) = early.take() {
        expected = size_tables(&held, file_size, &mut fold.values);
        for facts in held {
            fold_one(facts, &mut fold, expected)?;
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    fold.report(input, opts, shape, plan.map())
}

/// The records' facts folded in store order, and the report they come to: what
/// [`check_store`] does with the facts it reads, and what merging shards does with the facts
/// they wrote (`shard/merge.rs`).
#[derive(Default)]
pub(crate) struct Fold {
    /// Made at the first record, for the map it reads through.
    rules: Option<rules::ReferenceRules>,
    values: values::ValueChecks,
}

impl Fold {
    /// A fold whose value checks keep up to `memory` bytes before they spill (`--memory`).
    pub(crate) fn within(memory: usize) -> Fold {
        Fold {
            rules: None,
            values: values::ValueChecks::within(memory),
        }
    }

    /// Add one record's facts, in store order: `map` is the map the records read through,
    /// `expected` about how many records the store holds (0: unknown).
    pub(crate) fn fold(
        &mut self,
        facts: &RecordFacts,
        map: &crate::mapping::FieldMap,
        expected: usize,
    ) {
        let rules = self.rules.get_or_insert_with(|| {
            let mut rules = rules::ReferenceRules::new(map.clone());
            rules.expect_records(expected);
            rules
        });
        let values = &mut self.values;
        let unnamed;
        let name = match (&facts.rules.name, facts.values.shared().id()) {
            (_, Some(id)) if facts.name_is_id => id,
            (Some(name), _) => name.as_ref(),
            _ => {
                unnamed = rules::unnamed(rules.records());
                unnamed.as_str()
            }
        };
        // the value checks first: they name the record (by `who`) the way the rules' list
        // of offenders keeps it
        let line = facts.values.shared().line();
        let who = values.fold(&facts.values, name);
        rules.fold(&facts.rules, name, line, &mut || {
            who.unwrap_or_else(|| values.name_aside(name, line))
        });
    }

    /// How many records were folded.
    pub(crate) fn records(&self) -> usize {
        self.rules
            .as_ref()
            .map_or(0, rules::ReferenceRules::records)
    }

    /// The report of the store `input` read as `shape` through `map`, once every record is
    /// folded.
    pub(crate) fn report(
        self,
        input: &Input,
        opts: &Options,
        shape: store::Shape,
        map: &crate::mapping::FieldMap,
    ) -> Result<Report> {
        let Fold { rules, mut values } = self;
        let rules = rules.unwrap_or_else(|| rules::ReferenceRules::new(map.clone()));
        values.expect(opts.expected.iter().cloned());
        // the value checks' tables go before the report's lists of offenders are built
        values
            .settle()
            .map_err(|e| crate::error::VercyError::Read {
                path: "the check's temporary file".to_string(),
                reason: e.to_string(),
            })?;
        let (mapping, records) = (rules.map().clone(), rules.records());
        let (warnings, expected) = values.finish();
        let reference = rules.finish(opts.policy_outside_records, &warnings.record_names());
        Ok(Report::build(
            input,
            opts,
            (shape, mapping, records),
            reference,
            (warnings, expected),
        ))
    }
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
    let per_record = |len: fn(&index::SharedFacts) -> usize| {
        let bytes: usize = early.iter().map(|facts| len(facts.values.shared())).sum();
        records.saturating_mul(bytes / early.len().max(1) + 1)
    };
    let pointers: usize = early
        .iter()
        .map(|facts| facts.values.shared().pointer_count())
        .sum();
    let pointers = pointers.saturating_mul(records) / early.len().max(1);
    values.expect_records(
        records,
        per_record(index::SharedFacts::id_len),
        pointers,
        per_record(index::SharedFacts::concept_len),
    );
    records
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every record's facts, read the fast way (values borrowed from the raw text at the
    /// places the reader noted) and the general way (every record built whole, read through
    /// the map).
    fn facts_both_ways(path: &str, map: Option<&str>) -> Option<Vec<(String, String)>> {
        let opts = Options {
            map: match map {
                Some(spec) => crate::mapping::FieldMap::parse(&[spec.to_string()]).expect(spec),
                None => crate::mapping::FieldMap::identity(),
            },
            map_given: map.is_some(),
            policy_outside_records: false,
            min_level: 1,
            strict: false,
            expected: Vec::new(),
            memory: crate::spill::DEFAULT_MEMORY,
        };
        let rules = rules::ReferenceRules::new(opts.map.clone());
        let read = |reading: &RoleReading| -> Option<Vec<String>> {
            let work = |view: &RecordView| {
                Ok(format!(
                    "{:?} {:?}",
                    rules.facts(view),
                    values::ValueChecks::facts(view, view.origin.line)
                ))
            };
            let mut out = Vec::new();
            let read = store::read_views(&Input::new(path), reading, &work, &mut |facts| {
                out.push(facts);
                Ok(())
            });
            read.ok().map(|_| out)
        };
        let fast = role_reading(&opts).expect("the map");
        assert!(fast.given().key_slots().is_some(), "the fast way");
        let fast = read(&fast);
        let general = read(&role_reading(&opts).expect("the map").whole_records());
        // a store one way cannot read, the other cannot read either
        assert_eq!(fast.is_some(), general.is_some(), "{path}");
        let (fast, general) = (fast?, general?);
        assert_eq!(fast.len(), general.len(), "{path}");
        Some(fast.into_iter().zip(general).collect())
    }

    /// Every record's facts both ways, for each store of `dirs` read through `map`; returns
    /// how many records were compared.
    fn compare_both_ways(dirs: &[&str], map: Option<&str>) -> usize {
        let mut checked = 0;
        for dir in dirs {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
            for entry in std::fs::read_dir(&dir).expect("fixtures") {
                let path = entry.expect("entry").path();
                let name = path.to_string_lossy().to_string();
                if ![".jsonl", ".json", ".ndjson"]
                    .iter()
                    .any(|e| name.ends_with(e))
                {
                    continue;
                }
                for (fast, general) in facts_both_ways(&name, map).unwrap_or_default() {
                    assert_eq!(fast, general, "{name}");
                    checked += 1;
                }
            }
        }
        checked
    }

    #[test]
    fn borrowed_and_built_reads_give_the_same_facts() {
        let dirs = [
            "fixtures/edge",
            "fixtures/values",
            "fixtures/quirks",
            "fixtures/bad",
            "fixtures",
        ];
        let checked = compare_both_ways(&dirs, None);
        assert!(checked > 100, "{checked} records compared");
    }

    proptest::proptest! {
        /// Values written with escapes (as json.dumps writes every character past ASCII, a
        /// surrogate pair, an escaped digit or quote) give the facts of a whole read: the
        /// scanner takes those lines, and decodes what it takes as serde_json does.
        #[test]
        fn escaped_values_give_the_facts_of_a_whole_read(
            values in proptest::collection::vec(
                proptest::collection::vec(
                    r#"\\u00e9|\\u0032|\\ud83d\\ude00|\\u00a0|\\"|\\n|\\u20ac|[a-z0-9 -]"#,
                    0..5,
                ),
                7,
            ),
        ) {
            let v: Vec<String> = values.iter().map(|pieces| pieces.concat()).collect();
            // each value as written: a JSON string, escapes and all
            let line = |id: &str, target: &str| {
                let fields = [
                    ("record_id", format!(r#""{id}""#)),
                    ("concept", format!(r#""{}""#, v[1])),
                    ("valid_from", format!(r#""{}""#, v[2])),
                    ("valid_to", format!(r#""{}""#, v[3])),
                    ("source", format!(r#""{}""#, v[4])),
                    ("concept_owner", format!(r#""{}""#, v[5])),
                    ("supersedes", format!(r#"["{target}"]"#)),
                    ("release_to", format!(r#"["{}"]"#, v[6])),
                    ("conflict_policy", format!(r#""{}""#, v[4])),
                ];
                let body: Vec<String> =
                    fields.iter().map(|(k, v)| format!(r#""{k}": {v}"#)).collect();
                format!("{{{}}}", body.join(", "))
            };
            let store = [line(&v[0], &v[6]), line(&v[6], &v[0]), line(&v[0], "x")].join("\n");
            let file = tempfile::NamedTempFile::new().expect("a temporary file");
            std::fs::write(file.path(), store).expect("written");
            let name = file.path().to_string_lossy().to_string();
            let pairs = facts_both_ways(&name, None).expect("a store both ways read");
            proptest::prop_assert_eq!(pairs.len(), 3);
            for (fast, general) in pairs {
                proptest::prop_assert_eq!(fast, general);
            }
        }
    }

    /// The roles one key inside an object (an engrama dump's node properties, a LangGraph
    /// item's value), read from the text at their places, give the facts a read through the
    /// map of every record built whole gives.
    #[test]
    fn roles_inside_an_object_give_the_facts_of_a_whole_read() {
        let dumps = compare_both_ways(&["fixtures/engrama", "fixtures/recency"], None);
        assert!(dumps > 100, "{dumps} nodes compared");
        let langgraph = compare_both_ways(&["fixtures/live"], Some("langgraph"));
        assert!(langgraph > 3, "{langgraph} items compared");
    }
}
