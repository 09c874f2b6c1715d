//! `value.conflict`: records of one concept in force on a common date with different values
//! and no supersedes between them (mem0 and Graphiti users report such contradictions living
//! side by side). One warning, like every value warning: it names the first such pair of
//! each concept (ordered by the lines of the pair's records), and its message the first
//! pair's concept and the first day that pair holds together.
//!
//! The records of each concept in time are the index's timeline (`index/timeline.rs`),
//! read a partition at a time, sorted by concept and valid_from: a record superseded by
//! another of the concept ends the day before its superseder begins (the in-force rule, so
//! two records linked by supersedes never overlap), and one sweep keeps the record in force
//! longest: a record that meets one of another value is its concept's first conflict. What
//! stays is one small entry a concept in conflict.

use super::super::index::timeline::{Entry, Timeline};
use super::super::index::Index;
use super::super::warnings::{Code, Spec, Warnings};
use super::ValueCheck;
use crate::time::NANOS_PER_DAY;
use std::io;

const CONFLICT: Code = Code::new(&Spec {
    code: "value.conflict",
    field: "supersedes",
    caps_level: 2,
    meaning: "records of one concept in force together with different values and no supersedes between them",
    many: None,
    words: None,
});

const SECS_PER_DAY: i64 = 86_400;

/// The check: once the timeline is settled, the first pair of each concept in conflict and
/// the first pair's concept.
#[derive(Default)]
pub(super) struct Conflicts {
    found: Option<(Found, String)>,
}

impl ValueCheck for Conflicts {
    const CODES: &'static [Code] = &[CONFLICT];

    /// What a record holds of its concept in time is the index's.
    type Facts = ();

    /// Settled before the concepts are, so the two are never held at once.
    fn settle(&mut self, index: &mut Index) -> io::Result<()> {
        let timeline = index.take_timeline();
        let names = index.names();
        if let Some(found) = find(timeline, |who, out| names.lines(who, out))? {
            let concept = index.concept_text(found.concept())?.unwrap_or_default();
            self.found = Some((found, concept));
        }
        Ok(())
    }

    fn warnings(&mut self, index: &mut Index, out: &mut Warnings) {
        if let Some((found, concept)) = self.found.take() {
            let (a, b) = found.first();
            let names = index.names();
            let message = found.message(&concept, &names.name(a).0, &names.name(b).0);
            out.push_named(CONFLICT, &message, "", found.records());
        }
    }
}

/// The first conflict of every concept of `timeline` that has one; `lines` gives records'
/// lines (by `who`, a batch at a time, appended in order). Fails only when the temporary file
/// cannot be read back.
fn find(
    timeline: Timeline,
    lines: impl Fn(&[u32], &mut Vec<u64>) + Sync,
) -> io::Result<Option<Found>> {
    let each = |work: &mut PartWork, sorted: &mut [Entry]| work.conflicts(sorted, &lines);
    let settled = timeline.settle(PartWork::default, each)?;
    let first = settled.iter().filter_map(|part| part.first).min_by_key(|f| f.0);
    let Some((_, concept, at)) = first else {
        return Ok(None);
    };
    let mut pairs: Vec<Pair> = Vec::with_capacity(settled.iter().map(|p| p.pairs.len()).sum());
    for part in settled {
        pairs.extend(part.pairs);
    }
    pairs.sort_unstable_by_key(|p| p.order);
    let pairs = pairs.into_iter().map(|p| (p.a, p.b)).collect();
    Ok(Some(Found {
        concept,
        pairs,
        at,
    }))
}

/// One partition's first conflicts: each concept's pair, and the first of them (its place,
/// concept and instant).
struct PartFound {
    pairs: Vec<Pair>,
    first: Option<(Order, u64, (i64, u32))>,
}

/// Buffers one core reuses from one partition to the next.
#[derive(Default)]
struct PartWork {
    scratch: Scratch,
    /// A partition's first conflicts, and their records and lines.
    met: Vec<(Entry, Entry, (i64, u32))>,
    who: Vec<u32>,
    met_lines: Vec<u64>,
}

impl PartWork {
    /// The first conflict of each concept of one partition of the timeline, `sorted`.
    fn conflicts(
        &mut self,
        sorted: &mut [Entry],
        lines: &impl Fn(&[u32], &mut Vec<u64>),
    ) -> PartFound {
        for group in sorted.chunk_by_mut(|x, y| x.concept == y.concept) {
            self.met.extend(self.scratch.first_conflict(group));
        }
        // each record's line is a read at a random place among the ids: the partition's are
        // read together, so their cache misses overlap
        self.who.clear();
        self.who.extend(self.met.iter().flat_map(|(a, b, _)| [a.who, b.who]));
        self.met_lines.clear();
        lines(&self.who, &mut self.met_lines);
        let mut found = PartFound {
            pairs: Vec::with_capacity(self.met.len()),
            first: None,
        };
        for ((a, b, at), pair_lines) in self.met.drain(..).zip(self.met_lines.chunks_exact(2)) {
            let (la, lb) = (pair_lines[0], pair_lines[1]);
            let order = (la.max(lb), la.min(lb), a.seq.max(b.seq), a.seq.min(b.seq));
            if found.first.is_none_or(|(o, _, _)| order < o) {
                found.first = Some((order, a.concept, at));
            }
            found.pairs.push(Pair {
                order,
                a: a.who,
                b: b.who,
            });
        }
        found
    }
}

/// Where a pair is listed: the later and the earlier line of its two records, then their
/// places in store order.
type Order = (u64, u64, u32, u32);

/// One concept's first conflict: the two records (`a` in force first) and their lines.
#[derive(Debug, Clone, Copy)]
struct Pair {
    order: Order,
    a: u32,
    b: u32,
}

/// The conflicts of a store: the first pair of each concept that has one, in line order.
#[derive(Debug)]
struct Found {
    /// Each pair's records (`a`, `b`), in line order: what sorted them is let go (a store can
    /// have a conflict in every other record, and the warnings come after).
    pairs: Vec<(u32, u32)>,
    /// The first pair's concept (its hash) and the instant its two records meet.
    concept: u64,
    at: (i64, u32),
}

impl Found {
    /// The hash of the first pair's concept.
    fn concept(&self) -> u64 {
        self.concept
    }

    /// The two records of the first pair.
    fn first(&self) -> (u32, u32) {
        self.pairs[0]
    }

    /// The warning's message, given the first pair's concept and the names of its records.
    fn message(&self, concept: &str, a: &str, b: &str) -> String {
        let others = match self.pairs.len() {
            1 => String::new(),
            n => format!(" ({} more concepts so)", n - 1),
        };
        format!(
            "records of one concept in force together with different values and no supersedes between them: concept {concept:?} from {}, {a} and {b}{others}",
            day(self.at.0)
        )
    }

    /// Every pair's records, pair by pair.
    fn records(&self) -> impl Iterator<Item = u32> + '_ {
        self.pairs.iter().flat_map(|&(a, b)| [a, b])
    }
}

/// Buffers reused from one concept to the next.
#[derive(Default)]
struct Scratch {
    /// The records of the concept with an id: (its hash, their index in the group).
    ids: Vec<(u64, usize)>,
}

impl Scratch {
    /// The first two records of a concept (sorted as the timeline sorts them) in force
    /// together with different values, and the instant they meet.
    fn first_conflict(&mut self, group: &mut [Entry]) -> Option<(Entry, Entry, (i64, u32))> {
        let records = group.iter().take_while(|e| !e.is_edge()).count();
        if records < 2 {
            return None;
        }
        let (records, edges) = group.split_at_mut(records);
        if !edges.is_empty() {
            self.end_superseded(records, edges);
        }
        // in force so far: the record of one value that holds longest (a second value in
        // force is the conflict, so there is never more than one)
        let mut live: Option<Entry> = None;
        for e in records.iter().filter(|e| e.to() >= e.from()) {
            if let Some(l) = live {
                if l.to() < e.from() {
                    live = None;
                } else if l.key != e.key {
                    return Some((l, *e, e.from()));
                }
            }
            match live {
                Some(l) if l.to() >= e.to() => {}
                _ => live = Some(*e),
            }
        }
        None
    }

    /// A record superseded by another of the concept ends the day before its superseder
    /// begins.
    fn end_superseded(&mut self, records: &mut [Entry], edges: &[Entry]) {
        self.ids.clear();
        self.ids.extend(
            records
                .iter()
                .enumerate()
                .filter(|(_, r)| r.id != 0)
                .map(|(i, r)| (r.id, i)),
        );
        self.ids.sort_unstable();
        for edge in edges {
            // on the superseder's first day the superseded record no longer holds
            let day_start = edge.from_secs.div_euclid(SECS_PER_DAY) * SECS_PER_DAY;
            let ends = (day_start - 1, 999_999_999);
            let at = self.ids.partition_point(|&(id, _)| id < edge.key);
            for &(id, i) in &self.ids[at..] {
                if id != edge.key {
                    break;
                }
                let r = &mut records[i];
                if r.seq != edge.seq && r.to() > ends {
                    (r.to_secs, r.to_nanos) = ends;
                }
            }
        }
    }
}

/// The calendar day of an instant (seconds), `YYYY-MM-DD`.
fn day(secs: i64) -> String {
    let days = secs.div_euclid(SECS_PER_DAY);
    let (y, m, d) = crate::time::civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

const _: () = assert!(NANOS_PER_DAY == SECS_PER_DAY as i128 * 1_000_000_000);

#[cfg(test)]
mod tests {
    use super::super::super::index::timeline::Held;
    use super::*;
    use crate::time::parse;
    use proptest::prelude::*;

    fn held(concept: u64, value: u64, id: u64, from: &str, to: Option<&str>) -> Held {
        Held {
            concept,
            value,
            id: Some(id),
            from: parse(from).unwrap().start(),
            to: to.map(|t| parse(t).unwrap().end()),
        }
    }

    /// The warning as (message with concept "x", records), records named `R{who}` on line
    /// `who`.
    fn warning(c: Timeline) -> Option<(String, Vec<u32>)> {
        let found = find(c, |who, out| out.extend(who.iter().map(|&w| u64::from(w)))).unwrap()?;
        let (a, b) = found.first();
        let message = found.message("x", &format!("R{a}"), &format!("R{b}"));
        Some((message, found.records().collect()))
    }

    #[test]
    fn overlapping_different_values_conflict_from_the_later_start() {
        let mut c = Timeline::new(1 << 16);
        c.note(held(1, 10, 1, "2025-01-01", None), [].into_iter(), 1);
        c.note(held(1, 20, 2, "2025-06-01", None), [].into_iter(), 2);
        let (message, records) = warning(c).unwrap();
        assert!(
            message.ends_with("concept \"x\" from 2025-06-01, R1 and R2"),
            "{message}"
        );
        assert_eq!(records, [1, 2]);
    }

    #[test]
    fn every_concept_in_conflict_is_in_one_warning_in_line_order() {
        let mut c = Timeline::new(1 << 16);
        for concept in [7u64 << 60, 3 << 60] {
            let who = (concept >> 60) as u32 * 10;
            c.note(
                held(concept, 10, who as u64, "2025-01-01", None),
                [].into_iter(),
                who,
            );
            let (id, who) = (who as u64 + 1, who + 1);
            c.note(
                held(concept, 20, id, "2025-02-01", None),
                [].into_iter(),
                who,
            );
        }
        let found = find(c, |who, out| out.extend(who.iter().map(|&w| u64::from(w))))
            .unwrap()
            .unwrap();
        assert_eq!(found.concept(), 3 << 60);
        assert_eq!(found.records().collect::<Vec<_>>(), [30, 31, 70, 71]);
        assert!(found
            .message("c3", "R30", "R31")
            .ends_with("concept \"c3\" from 2025-02-01, R30 and R31 (1 more concepts so)"));
    }

    #[test]
    fn supersedes_ends_the_older_and_disjoint_or_equal_values_do_not_conflict() {
        let mut c = Timeline::new(1 << 16);
        c.note(held(1, 10, 1, "2025-01-01", None), [].into_iter(), 1);
        c.note(held(1, 20, 2, "2025-06-01", None), [1u64].into_iter(), 2);
        c.note(held(1, 20, 3, "2025-07-01", None), [].into_iter(), 3);
        assert_eq!(warning(c), None);
        let mut c = Timeline::new(1 << 16);
        let ended = held(1, 10, 1, "2025-01-01", Some("2025-05-31"));
        c.note(ended, [].into_iter(), 1);
        c.note(held(1, 20, 2, "2025-06-01", None), [].into_iter(), 2);
        assert_eq!(warning(c), None);
        // a value ended early still in force beside a third value
        let mut c = Timeline::new(1 << 16);
        let year = held(1, 10, 1, "2025-01-01", Some("2025-12-31"));
        c.note(year, [].into_iter(), 1);
        let month = held(1, 10, 4, "2025-02-01", Some("2025-03-01"));
        c.note(month, [].into_iter(), 4);
        c.note(held(1, 30, 3, "2025-06-01", None), [].into_iter(), 3);
        let (message, _) = warning(c).unwrap();
        assert!(message.contains("R1 and R3"), "{message}");
    }

    /// A record: concept, value, id, first day, days in force (none: open), ids superseded.
    type Rec = (u64, u64, u64, i64, Option<i64>, Vec<u64>);

    /// Records of a few concepts, values, days and supersedes, as a store might hold them.
    fn records() -> impl Strategy<Value = Vec<Rec>> {
        let record = (
            0u64..3,
            0u64..3,
            0u64..12,
            0i64..40,
            proptest::option::of(0i64..40),
        )
            .prop_flat_map(|(c, v, id, from, len)| {
                let targets = proptest::collection::vec(0u64..12, 0..3);
                targets.prop_map(move |t| (c, v, id, from, len, t))
            });
        proptest::collection::vec(record, 0..40)
    }

    /// The rule read plainly, pair by pair: each concept's first pair in force together on
    /// some instant with different values once the superseded records are ended.
    fn model(recs: &[Rec]) -> Vec<u32> {
        let day = NANOS_PER_DAY;
        let mut ends: Vec<i128> = recs
            .iter()
            .map(|r| r.4.map_or(i128::MAX, |len| (r.3 + len) as i128 * day))
            .collect();
        for (i, r) in recs.iter().enumerate() {
            for (j, s) in recs.iter().enumerate() {
                if i != j && s.0 == r.0 && r.5.contains(&s.2) {
                    ends[j] = ends[j].min(r.3 as i128 * day - 1);
                }
            }
        }
        let from = |i: usize| recs[i].3 as i128 * day;
        let mut pairs = Vec::new();
        for concept in 0..3 {
            // in the sweep's order: by valid_from, then store order
            let mut order: Vec<usize> = (0..recs.len())
                .filter(|&i| recs[i].0 == concept && ends[i] >= from(i))
                .collect();
            order.sort_by_key(|&i| (from(i), i));
            'sweep: for (k, &b) in order.iter().enumerate() {
                // the record in force longest before b, of the values in force at b's start
                let mut live: Option<usize> = None;
                for &a in &order[..k] {
                    if ends[a] >= from(b) && live.is_none_or(|l| ends[a] > ends[l]) {
                        live = Some(a);
                    }
                }
                if let Some(a) = live {
                    if recs[a].1 != recs[b].1 {
                        pairs.push((a.max(b), a.min(b), a as u32, b as u32));
                        break 'sweep;
                    }
                }
            }
        }
        pairs.sort();
        pairs.into_iter().flat_map(|p| [p.2, p.3]).collect()
    }

    proptest! {
        /// The sweep finds what the plain reading finds, whether the entries stay in memory
        /// or go to the temporary file.
        #[test]
        fn the_sweep_agrees_with_the_plain_rule(recs in records(), limit in 1usize..8) {
            let run = |limit: usize| {
                let mut c = Timeline::new(limit);
                for (i, r) in recs.iter().enumerate() {
                    let held = Held {
                        concept: r.0 << 62 | r.0,
                        value: r.1,
                        id: Some(r.2 + 1),
                        from: r.3 as i128 * NANOS_PER_DAY,
                        // an end at a midnight: in force that instant, as another's start
                        to: r.4.map(|len| (r.3 + len) as i128 * NANOS_PER_DAY),
                    };
                    c.note(held, r.5.iter().map(|t| t + 1), i as u32);
                }
                find(c, |who, out| out.extend(who.iter().map(|&w| u64::from(w))))
                    .unwrap()
                    .map(|f| f.records().collect::<Vec<_>>())
                    .unwrap_or_default()
            };
            let expected = model(&recs);
            prop_assert_eq!(run(usize::MAX), expected.clone());
            prop_assert_eq!(run(limit), expected);
        }
    }
}
