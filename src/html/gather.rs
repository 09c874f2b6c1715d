//! The concepts worth drawing, found by reading the store again: the report says which records
//! its findings name (by line, [`Marks`]); a first pass adds each marked record's findings to
//! its concept in a bounded summary of the heaviest concepts (`Heaviest`), and a second pass
//! gathers the records of the candidates it kept, at most [`BARS`] a concept, counting their
//! findings exactly. The [`MOST`] with the most findings are drawn, most first.
//!
//! Memory, whatever the store: the marks (8 bytes a record a finding names, as the report
//! itself keeps 4), the summary's 8,192 counters (twice that at most between two trims), and
//! the candidates' records: [`MOST`] × 4 candidates × [`BARS`] records.

use super::{seconds, Bar, Drawn, End, Timeline};
use crate::error::Result;
use crate::mapping::FieldMap;
use crate::store::{self, Input, RecordView, RoleReading, RoleSet};
use hashbrown::{HashMap, HashSet};
use std::hash::BuildHasher;

/// The most concepts a page draws.
pub const MOST: usize = 50;
/// Candidates kept for the second pass, per concept drawn: the summary's counts are a lower
/// bound, so a few more than are drawn are counted exactly before the last cut.
const CANDIDATES: usize = 4;
/// Counters the summary keeps: a concept with more than 1/SUMMARY of all the findings on
/// marked records is certain to be among them.
const SUMMARY: usize = 8192;
/// The most records a timeline draws (the rest are counted): the page stays small whatever
/// the concept's size.
pub const BARS: usize = 120;

/// What the report says of the records it names, by line: each record's line with one mark
/// (an index into the marks' names) for each finding that names it.
#[derive(Debug, Default)]
pub struct Marks {
    by_line: Vec<(u32, u16)>,
    /// Where the marks of each run of [`BUCKET`] lines start in `by_line` (and where the last
    /// run's end): a record's marks are found in a few steps, not a search of them all.
    starts: Vec<u32>,
    names: Vec<String>,
    conflict: Option<u16>,
    sorted: bool,
}

/// Lines a bucket of [`Marks::starts`] spans.
const BUCKET: u32 = 64;

impl Marks {
    /// Marks named `names` (a check's codes); the one named `conflict` outlines its records as
    /// a conflict.
    pub fn new(names: Vec<String>, conflict: &str) -> Marks {
        let conflict = names.iter().position(|n| n == conflict).map(|i| i as u16);
        Marks {
            names,
            conflict,
            ..Marks::default()
        }
    }

    /// The record on `line` carries mark `mark` once more (a line past 2^32, or 0 for not
    /// known, cannot be matched to a record and is left out).
    pub fn push(&mut self, line: u64, mark: usize) {
        if let (Ok(line), Ok(mark)) = (u32::try_from(line), u16::try_from(mark)) {
            if line > 0 {
                self.by_line.push((line, mark));
                self.sorted = false;
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.by_line.is_empty()
    }

    fn settle(&mut self) {
        if self.sorted {
            return;
        }
        self.by_line.sort_unstable();
        let buckets = self.by_line.last().map_or(0, |&(l, _)| l / BUCKET + 1);
        self.starts.clear();
        let mut at = 0;
        for b in 0..=buckets {
            while at < self.by_line.len() && self.by_line[at].0 / BUCKET < b {
                at += 1;
            }
            self.starts.push(at as u32);
        }
        self.sorted = true;
    }

    /// The marks of the record on `line` (`settle` first).
    fn of(&self, line: u64) -> &[(u32, u16)] {
        let Ok(line) = u32::try_from(line) else {
            return &[];
        };
        let b = (line / BUCKET) as usize;
        let (Some(&from), Some(&to)) = (self.starts.get(b), self.starts.get(b + 1)) else {
            return &[];
        };
        let run = &self.by_line[from as usize..to as usize];
        let start = run.partition_point(|&(l, _)| l < line);
        let end = start + run[start..].partition_point(|&(l, _)| l == line);
        &run[start..end]
    }
}

/// The heaviest concepts of a stream of (concept, weight), in bounded memory: the weighted
/// Misra–Gries summary, trimmed in batches. When it holds twice [`SUMMARY`] counters, the
/// [`SUMMARY`]th largest count is taken from every counter and the ones left at nothing go.
/// Each count is then at most the total weight / [`SUMMARY`] below the true one.
#[derive(Debug, Default)]
struct Heaviest {
    counts: HashMap<u64, u64>,
}

impl Heaviest {
    fn add(&mut self, key: u64, weight: u64) {
        *self.counts.entry(key).or_default() += weight;
        if self.counts.len() >= 2 * SUMMARY {
            let mut all: Vec<u64> = self.counts.values().copied().collect();
            let at = all.len() - SUMMARY;
            let (_, &mut cut, _) = all.select_nth_unstable(at);
            self.counts.retain(|_, c| {
                *c = c.saturating_sub(cut);
                *c > 0
            });
        }
    }

    /// The `most` heaviest keys.
    fn top(&self, most: usize) -> HashSet<u64> {
        let mut all: Vec<(u64, u64)> = self.counts.iter().map(|(&k, &c)| (c, k)).collect();
        all.sort_unstable_by(|a, b| b.cmp(a));
        all.into_iter().take(most).map(|(_, k)| k).collect()
    }
}

/// The roles a timeline reads.
const ROLES: [&str; 6] = [
    "concept",
    "record_id",
    "valid_from",
    "valid_to",
    "concept_owner",
    "supersedes",
];

/// The roles of [`ROLES`], as the reading numbers them.
struct Roles {
    concept: store::Role,
    record_id: store::Role,
    valid_from: store::Role,
    valid_to: store::Role,
    owner: store::Role,
    supersedes: store::Role,
}

impl Roles {
    fn of(set: &RoleSet) -> Roles {
        let [concept, record_id, valid_from, valid_to, owner, supersedes] =
            ROLES.map(|r| set.role(r));
        Roles {
            concept,
            record_id,
            valid_from,
            valid_to,
            owner,
            supersedes,
        }
    }
}

/// One concept being gathered.
struct Gathered {
    concept: String,
    findings: usize,
    bars: Vec<Bar>,
    not_drawn: usize,
}

/// What a page draws of the store `input`, read again through `map` (a store's own when not
/// `map_given`): the timelines of the concepts `marks` weigh most; or, for a store that can be
/// read only once (stdin, a child's output), none and a note saying why.
pub fn draw(input: &Input, map: &FieldMap, map_given: bool, mut marks: Marks) -> Result<Drawn> {
    if input.is_pipe() {
        let note = "no timelines: the store was read from a pipe, and they need it read again";
        return Ok(Drawn {
            timelines: Vec::new(),
            note: Some(note.to_string()),
        });
    }
    Ok(Drawn {
        timelines: worst(input, map, map_given, &mut marks)?,
        note: None,
    })
}

/// The timelines of the (at most [`MOST`]) concepts whose records the marks name most, most
/// first, read from `input` through `map` (a store's own when not `map_given`).
fn worst(
    input: &Input,
    map: &FieldMap,
    map_given: bool,
    marks: &mut Marks,
) -> Result<Vec<Timeline>> {
    marks.settle();
    if marks.is_empty() {
        return Ok(Vec::new());
    }
    let marks = &*marks;
    // the first pass reads the concept alone, the second every role a bar shows
    let concept_only = RoleSet::new(["concept"]);
    let set = RoleSet::new(ROLES);
    let roles = Roles::of(&set);
    let reading = |set: &RoleSet| -> Result<RoleReading> {
        Ok(RoleReading::new(
            store::Maps::new(map.clone(), map_given)?,
            set,
            &[],
            false,
        ))
    };
    // fixed, not seeded per run: the candidates past the cut, among concepts of equal weight,
    // are the ones the hash orders first in every run, and so the same concepts are drawn
    let hasher = foldhash::fast::FixedState::default();
    // the concept's text is borrowed from the record where it can be: every record is asked
    let key_of = |view: &RecordView, concept: store::Role| -> Option<u64> {
        Some(hasher.hash_one(view.filled(concept)?.text().as_ref()))
    };

    // first pass: each marked record's findings to its concept, the heaviest kept
    let mut heaviest = Heaviest::default();
    let concept = concept_only.role("concept");
    let weigh = |view: &RecordView| -> Result<Option<(u64, u64)>> {
        let weight = marks.of(view.origin.line).len() as u64;
        Ok(match weight {
            0 => None,
            _ => key_of(view, concept).map(|key| (key, weight)),
        })
    };
    let first = reading(&concept_only)?;
    store::read_views(input, &first, &weigh, &mut |weighed| {
        if let Some((key, weight)) = weighed {
            heaviest.add(key, weight);
        }
        Ok(())
    })?;
    let candidates = heaviest.top(MOST * CANDIDATES);
    drop(heaviest);

    // second pass: the candidates' records
    let mut gathered: HashMap<u64, Gathered> = HashMap::new();
    let draw = |view: &RecordView| -> Result<Option<(u64, String, DrawnBar)>> {
        let Some(key) = key_of(view, roles.concept).filter(|k| candidates.contains(k)) else {
            return Ok(None);
        };
        let concept = view
            .filled(roles.concept)
            .map(|v| v.py_str())
            .unwrap_or_default();
        Ok(Some((key, concept, bar(view, &roles, marks))))
    };
    let second = reading(&set)?;
    store::read_views(input, &second, &draw, &mut |drawn| {
        if let Some((key, concept, drawn)) = drawn {
            let g = gathered.entry(key).or_insert_with(|| Gathered {
                concept,
                findings: 0,
                bars: Vec::new(),
                not_drawn: 0,
            });
            g.findings += drawn.marks_count;
            match g.bars.len() < BARS {
                true => g.bars.push(drawn.bar),
                false => g.not_drawn += 1,
            }
        }
        Ok(())
    })?;
    let mut all: Vec<Gathered> = gathered.into_values().filter(|g| g.findings > 0).collect();
    all.sort_by(|a, b| {
        b.findings
            .cmp(&a.findings)
            .then_with(|| a.concept.cmp(&b.concept))
    });
    all.truncate(MOST);
    Ok(all
        .into_iter()
        .map(|g| Timeline {
            concept: g.concept,
            findings: g.findings,
            bars: g.bars,
            not_drawn: g.not_drawn,
            ..Timeline::default()
        })
        .collect())
}

/// A record drawn, and how many findings name it.
struct DrawnBar {
    bar: Bar,
    marks_count: usize,
}

/// One record as its bar, with the marks the report gave it.
fn bar(view: &RecordView, roles: &Roles, marks: &Marks) -> DrawnBar {
    let line = view.origin.line;
    let mine = marks.of(line);
    let mut names: Vec<String> = Vec::new();
    for &(_, m) in mine {
        if let Some(name) = marks.names.get(m as usize) {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    DrawnBar {
        bar: Bar {
            id: view
                .filled(roles.record_id)
                .map_or_else(|| format!("line {line}"), |v| v.py_str()),
            line,
            from: view
                .filled(roles.valid_from)
                .and_then(|v| Some((seconds(&v.parse_time().ok()?), v.py_str()))),
            to: end_of(view.get(roles.valid_to)),
            owner: view
                .filled(roles.owner)
                .map(|v| v.py_str())
                .unwrap_or_default(),
            supersedes: pointers(view.get(roles.supersedes)),
            conflict: mine.iter().any(|&(_, m)| Some(m) == marks.conflict),
            holds: false,
            marks: names,
        },
        marks_count: mine.len(),
    }
}

/// Where a validity ends, from its valid_to: none or null is open.
pub fn end_of(value: Option<store::RoleValue>) -> End {
    match value {
        None => End::Open,
        Some(v) if v.is_null() || !v.is_filled() => End::Open,
        Some(v) => match v.parse_time() {
            Ok(t) => End::At(seconds(&t), v.py_str()),
            Err(_) => End::Unreadable(v.py_str()),
        },
    }
}

/// The ids a supersedes value names, sorted.
pub fn pointers(value: Option<store::RoleValue>) -> Vec<String> {
    let mut ids = std::collections::HashSet::new();
    if let Some(v) = value {
        v.collect_ids(&mut ids);
    }
    let mut ids: Vec<String> = ids.into_iter().collect();
    ids.sort();
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_keeps_the_heavy_among_many_light() {
        let mut h = Heaviest::default();
        // a light concept each, with three heavy ones among them
        for k in 0..(SUMMARY as u64 * 5) {
            h.add(1_000_000 + k, 1);
            if k % 100 == 0 {
                h.add(1, 5);
                h.add(2, 4);
                h.add(3, 3);
            }
        }
        assert!(h.counts.len() < 2 * SUMMARY);
        let top = h.top(3);
        assert_eq!(top, HashSet::from_iter([1, 2, 3]));
    }

    #[test]
    fn marks_are_found_by_line() {
        let mut m = Marks::new(
            vec!["value.date".into(), "value.conflict".into()],
            "value.conflict",
        );
        m.push(7, 1);
        m.push(3, 0);
        m.push(7, 0);
        m.push(0, 0);
        m.settle();
        assert_eq!(m.of(7).len(), 2);
        assert_eq!(m.of(3), &[(3, 0)]);
        assert!(m.of(5).is_empty());
        assert_eq!(m.conflict, Some(1));
        // across the buckets' edges, an empty bucket, and past the last
        let mut m = Marks::new(vec!["a".into()], "none");
        for line in [63, 64, 64, 65, 200, 1] {
            m.push(line, 0);
        }
        m.settle();
        let counts: Vec<usize> = [1, 62, 63, 64, 65, 130, 200, 201, 5000]
            .iter()
            .map(|&l| m.of(l).len())
            .collect();
        assert_eq!(counts, [1, 0, 1, 2, 1, 0, 1, 0, 0]);
        assert_eq!(m.conflict, None);
    }
}
