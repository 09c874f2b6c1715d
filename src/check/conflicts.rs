//! `value.conflict`: records of one concept in force on a common date with different values
//! and no supersedes between them (mem0 and Graphiti users report such contradictions living
//! side by side). One warning, like every value warning: it names the first such pair of
//! each concept (ordered by the line of the later record of the pair), and its message the
//! first pair's concept and the first day that pair holds together.
//!
//! Linear: per record with a concept, a value and a readable valid_from, one fixed-size entry
//! (hashes and two instants, no text) and its supersedes targets' hashes. At the end the
//! entries are grouped by concept (one sort); within a concept a record superseded by another
//! of the concept ends the day before its superseder begins (the in-force rule), so two
//! records linked by supersedes never overlap; then one sweep in valid_from order keeps the
//! records still in force, grouped by value, and a record that meets an in-force record of
//! another value is the first conflict of its concept.

use super::values::RecordRef;
use crate::time::NANOS_PER_DAY;
use std::collections::{BinaryHeap, HashMap};

#[derive(Debug, Clone, Copy)]
struct Entry {
    concept: u64,
    value: u64,
    /// Hash of the record's id (0: none).
    id: u64,
    from: i128,
    /// Last instant in force (inclusive); `i128::MAX` open.
    to: i128,
    /// The record, as the value checks name it.
    who: u32,
    /// Its supersedes targets, in `Conflicts::targets`.
    targets: (u32, u32),
}

/// The facts of one record the conflict check reads.
#[derive(Debug, Clone, Copy)]
pub struct Held {
    pub concept: u64,
    pub value: u64,
    pub id: Option<u64>,
    pub from: i128,
    pub to: Option<i128>,
}

/// The one `value.conflict` warning of a store: its message and the records it names.
#[derive(Debug)]
pub struct Conflict {
    pub message: String,
    pub records: Vec<RecordRef>,
}

#[derive(Debug, Default)]
pub struct Conflicts {
    entries: Vec<Entry>,
    targets: Vec<u64>,
    /// One text per concept, for the message.
    names: HashMap<u64, String>,
}

impl Conflicts {
    /// Note a record (`who` names it for [`Self::warnings`]), with the hashes of the ids its
    /// supersedes names.
    pub fn note(
        &mut self,
        held: Held,
        concept: &str,
        targets: impl Iterator<Item = u64>,
        who: u32,
    ) {
        let start = self.targets.len() as u32;
        self.targets.extend(targets);
        self.names
            .entry(held.concept)
            .or_insert_with(|| concept.to_string());
        self.entries.push(Entry {
            concept: held.concept,
            value: held.value,
            id: held.id.unwrap_or(0),
            from: held.from,
            to: held.to.unwrap_or(i128::MAX),
            who,
            targets: (start, self.targets.len() as u32),
        });
    }

    /// The conflicts: one warning naming the first pair of each concept that has one (the
    /// message gives the first pair's concept and first day); `record` names a record by `who`.
    pub fn warning(mut self, record: impl Fn(u32) -> RecordRef) -> Option<Conflict> {
        // store order within a concept is kept by the stable sort
        self.entries.sort_by_key(|e| e.concept);
        let mut found = Vec::new();
        let mut start = 0;
        while start < self.entries.len() {
            let concept = self.entries[start].concept;
            let end = start
                + self.entries[start..]
                    .iter()
                    .take_while(|e| e.concept == concept)
                    .count();
            let group = &mut self.entries[start..end];
            end_superseded(group, &self.targets);
            if let Some((a, b, at)) = first_conflict(group) {
                found.push((concept, a, b, at));
            }
            start = end;
        }
        let mut pairs: Vec<(u64, RecordRef, RecordRef, i128)> = found
            .into_iter()
            .map(|(concept, a, b, at)| (concept, record(a), record(b), at))
            .collect();
        pairs.sort_by_key(|(_, a, b, _)| (a.line.max(b.line), a.line.min(b.line)));
        let (concept, first_a, first_b, at) = pairs.first()?;
        let name = self.names.get(concept).cloned().unwrap_or_default();
        let others = match pairs.len() {
            1 => String::new(),
            n => format!(" ({} more concepts so)", n - 1),
        };
        let message = format!(
            "records of one concept in force together with different values and no supersedes between them: concept {name:?} from {}, {} and {}{others}",
            day(*at),
            first_a.name,
            first_b.name
        );
        let records = pairs.into_iter().flat_map(|(_, a, b, _)| [a, b]).collect();
        Some(Conflict { message, records })
    }
}

/// A record superseded by another of the concept ends the day before its superseder begins.
fn end_superseded(group: &mut [Entry], targets: &[u64]) {
    let mut by_id: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, e) in group.iter().enumerate() {
        if e.id != 0 {
            by_id.entry(e.id).or_default().push(i);
        }
    }
    for i in 0..group.len() {
        let (s, t) = group[i].targets;
        let begins = group[i].from;
        for target in &targets[s as usize..t as usize] {
            for &j in by_id.get(target).map_or(&[][..], Vec::as_slice) {
                if j != i {
                    // on the superseder's first day the superseded record no longer holds
                    let day_start = begins.div_euclid(NANOS_PER_DAY) * NANOS_PER_DAY;
                    group[j].to = group[j].to.min(day_start - 1);
                }
            }
        }
    }
}

/// The first pair in force together with different values, and the instant they meet.
fn first_conflict(group: &mut [Entry]) -> Option<(u32, u32, i128)> {
    group.sort_by_key(|e| e.from);
    // in force so far, by value: each value's records, and when the last of them ends
    let mut live: HashMap<u64, (u32, i128)> = HashMap::new();
    let mut ends: BinaryHeap<std::cmp::Reverse<(i128, u64)>> = BinaryHeap::new();
    for e in group.iter().filter(|e| e.to >= e.from) {
        while let Some(std::cmp::Reverse((to, value))) = ends.peek().copied() {
            if to >= e.from {
                break;
            }
            ends.pop();
            if live.get(&value).is_some_and(|&(_, last)| last == to) {
                live.remove(&value);
            }
        }
        // at most one value is ever in force here: a second one is the conflict
        if let Some((&_, &(other, _))) = live.iter().find(|(&v, _)| v != e.value) {
            return Some((other, e.who, e.from));
        }
        // each value is named by the record of it that holds longest
        let slot = live.entry(e.value).or_insert((e.who, e.to));
        if e.to > slot.1 {
            *slot = (e.who, e.to);
        }
        ends.push(std::cmp::Reverse((slot.1, e.value)));
    }
    None
}

/// The calendar day of an instant, `YYYY-MM-DD`.
fn day(at: i128) -> String {
    let days = at.div_euclid(NANOS_PER_DAY) as i64;
    let (y, m, d) = crate::time::civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::parse;

    fn held(value: u64, id: u64, from: &str, to: Option<&str>) -> Held {
        Held {
            concept: 1,
            value,
            id: Some(id),
            from: parse(from).unwrap().start(),
            to: to.map(|t| parse(t).unwrap().end()),
        }
    }

    fn names(c: Conflicts) -> Vec<String> {
        c.warning(|who| RecordRef {
            name: format!("R{who}"),
            line: who as u64,
        })
        .into_iter()
        .map(|w| w.message)
        .collect()
    }

    #[test]
    fn overlapping_different_values_conflict_from_the_later_start() {
        let mut c = Conflicts::default();
        c.note(held(10, 1, "2025-01-01", None), "x", [].into_iter(), 1);
        c.note(held(20, 2, "2025-06-01", None), "x", [].into_iter(), 2);
        let w = names(c);
        assert_eq!(w.len(), 1);
        assert!(
            w[0].contains("from 2025-06-01") && w[0].contains("R1 and R2"),
            "{}",
            w[0]
        );
    }

    #[test]
    fn every_concept_in_conflict_is_in_one_warning() {
        let mut c = Conflicts::default();
        for concept in [7u64, 3] {
            let mut h = held(10, concept * 10, "2025-01-01", None);
            h.concept = concept;
            c.note(
                h,
                &format!("c{concept}"),
                [].into_iter(),
                concept as u32 * 10,
            );
            let mut h = held(20, concept * 10 + 1, "2025-02-01", None);
            h.concept = concept;
            c.note(
                h,
                &format!("c{concept}"),
                [].into_iter(),
                concept as u32 * 10 + 1,
            );
        }
        let w: Vec<_> = c
            .warning(|who| RecordRef {
                name: format!("R{who}"),
                line: who as u64,
            })
            .into_iter()
            .collect();
        assert_eq!(w.len(), 1);
        let names: Vec<&str> = w[0].records.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["R30", "R31", "R70", "R71"]);
        assert!(
            w[0].message
                .contains("concept \"c3\" from 2025-02-01, R30 and R31 (1 more concepts so)"),
            "{}",
            w[0].message
        );
    }

    #[test]
    fn supersedes_ends_the_older_and_disjoint_or_equal_values_do_not_conflict() {
        let mut c = Conflicts::default();
        c.note(held(10, 1, "2025-01-01", None), "x", [].into_iter(), 1);
        c.note(held(20, 2, "2025-06-01", None), "x", [1u64].into_iter(), 2);
        c.note(held(20, 3, "2025-07-01", None), "x", [].into_iter(), 3);
        assert!(names(c).is_empty());
        let mut c = Conflicts::default();
        c.note(
            held(10, 1, "2025-01-01", Some("2025-05-31")),
            "x",
            [].into_iter(),
            1,
        );
        c.note(held(20, 2, "2025-06-01", None), "x", [].into_iter(), 2);
        assert!(names(c).is_empty());
        // a value ended early still in force beside a third value
        let mut c = Conflicts::default();
        c.note(
            held(10, 1, "2025-01-01", Some("2025-12-31")),
            "x",
            [].into_iter(),
            1,
        );
        c.note(
            held(10, 4, "2025-02-01", Some("2025-03-01")),
            "x",
            [].into_iter(),
            4,
        );
        c.note(held(30, 3, "2025-06-01", None), "x", [].into_iter(), 3);
        let w = names(c);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("R1 and R3"), "{}", w[0]);
    }
}
