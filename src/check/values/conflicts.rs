//! `value.conflict`: records of one concept in force on a common date with different values
//! and no supersedes between them (mem0 and Graphiti users report such contradictions living
//! side by side). One warning, like every value warning: it names the first such pair of
//! each concept (ordered by the lines of the pair's records), and its message the first
//! pair's concept and the first day that pair holds together.
//!
//! Memory, whatever the store: a record with a concept, a value and a readable valid_from
//! becomes one fixed-size entry (hashes, two instants, its place in store order, no text), and
//! each id its supersedes names one more. The entries are kept by concept partition, and past
//! a fixed number in memory every partition's entries go to the temporary file of `spill.rs`.
//! At the end one partition at a time is read back: its entries sorted by concept and
//! valid_from, a record superseded by another of the concept ends the day before its
//! superseder begins (the in-force rule, so two records linked by supersedes never overlap),
//! and one sweep keeps the record in force longest: a record that meets one of another value
//! is its concept's first conflict. What stays is one small entry a concept in conflict.

use super::super::spill;
use super::super::table;
use super::super::warnings::Warnings;
use super::{Code, Folding, Reading, Settled, Settling, ValueCheck};
use crate::time::NANOS_PER_DAY;
use rayon::prelude::*;
use std::io;

/// Concept partitions: the top bits of the concept's hash.
const PARTS: usize = 128;
/// Entries held in memory before every partition's go to the temporary file.
const IN_MEMORY: usize = 1 << 16;
/// A partition of more entries than this (a store of a few concepts: an engrama dump's
/// concepts are its labels) is sorted where it was read back, not copied into buckets: the
/// copy would hold the partition twice.
const SORT_IN_PLACE: usize = 1 << 16;
/// `to_nanos` of an entry that is a supersedes edge rather than a record (a record's
/// nanoseconds are below 10⁹).
const EDGE: u32 = u32::MAX;
const SECS_PER_DAY: i64 = 86_400;

/// A record of a concept, or a supersedes edge from one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    concept: u64,
    /// A record: its value's hash; an edge: the hash of the id it supersedes.
    key: u64,
    /// A record: its id's hash (0: none).
    id: u64,
    /// valid_from (an edge: its superseder's), in seconds and nanoseconds.
    from_secs: i64,
    /// Last instant in force (inclusive; `i64::MAX` open), in seconds and nanoseconds.
    to_secs: i64,
    from_nanos: u32,
    /// [`EDGE`] for an edge.
    to_nanos: u32,
    /// The record (an edge: its superseder), as the value checks name it.
    who: u32,
    /// The record's place in store order (an edge: its superseder's).
    seq: u32,
}

const ENTRY_BYTES: usize = 56;

impl Entry {
    fn is_edge(&self) -> bool {
        self.to_nanos == EDGE
    }

    fn from(&self) -> (i64, u32) {
        (self.from_secs, self.from_nanos)
    }

    fn to(&self) -> (i64, u32) {
        (self.to_secs, self.to_nanos)
    }

    fn encode(&self, out: &mut Vec<u8>) {
        for word in [self.concept, self.key, self.id] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&self.from_secs.to_le_bytes());
        out.extend_from_slice(&self.to_secs.to_le_bytes());
        for word in [self.from_nanos, self.to_nanos, self.who, self.seq] {
            out.extend_from_slice(&word.to_le_bytes());
        }
    }

    fn decode(b: &[u8]) -> Entry {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap_or_default());
        Entry {
            concept: u64_at(0),
            key: u64_at(8),
            id: u64_at(16),
            from_secs: u64_at(24) as i64,
            to_secs: u64_at(32) as i64,
            from_nanos: u32_at(40),
            to_nanos: u32_at(44),
            who: u32_at(48),
            seq: u32_at(52),
        }
    }
}

/// An instant in nanoseconds as seconds and nanoseconds (ordered as the instant is).
fn split(nanos: i128) -> (i64, u32) {
    // the years 1678 to 2262 fit in 64 bits, where dividing by a constant is a multiply; a
    // 128-bit division is a call to the runtime, two of them a record on the fold's thread
    if let Ok(nanos) = i64::try_from(nanos) {
        return (
            nanos.div_euclid(1_000_000_000),
            nanos.rem_euclid(1_000_000_000) as u32,
        );
    }
    let secs = nanos.div_euclid(1_000_000_000);
    let secs = i64::try_from(secs).unwrap_or(if secs < 0 { i64::MIN } else { i64::MAX });
    (secs, nanos.rem_euclid(1_000_000_000) as u32)
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

/// Every record's entry, and every supersedes edge, kept by concept partition.
#[derive(Default)]
pub struct ConflictEntries {
    /// The entries not in the temporary file, by partition.
    parts: Vec<Vec<Entry>>,
    noted: u32,
    /// The entries held, and the runs in the temporary file.
    spill: spill::Spill<IN_MEMORY>,
    /// A run's bytes, made before it is written.
    bytes: Vec<u8>,
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
pub struct Found {
    /// Each pair's records (`a`, `b`), in line order: what sorted them is let go (a store can
    /// have a conflict in every other record, and the warnings come after).
    pairs: Vec<(u32, u32)>,
    /// The first pair's concept (its hash) and the instant its two records meet.
    concept: u64,
    at: (i64, u32),
}

impl Found {
    /// The hash of the first pair's concept.
    pub fn concept(&self) -> u64 {
        self.concept
    }

    /// The two records of the first pair.
    pub fn first(&self) -> (u32, u32) {
        self.pairs[0]
    }

    /// The warning's message, given the first pair's concept and the names of its records.
    pub fn message(&self, concept: &str, a: &str, b: &str) -> String {
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
    pub fn records(&self) -> impl Iterator<Item = u32> + '_ {
        self.pairs.iter().flat_map(|&(a, b)| [a, b])
    }
}

impl ConflictEntries {
    /// Note a record (`who` names it for [`Self::settle`]), with the hashes of the ids its
    /// supersedes names. Records come in store order.
    pub fn note(&mut self, held: Held, targets: impl Iterator<Item = u64>, who: u32) {
        let seq = self.noted;
        self.noted = self.noted.saturating_add(1);
        let (from_secs, from_nanos) = split(held.from);
        let (to_secs, to_nanos) = held.to.map_or((i64::MAX, 999_999_999), split);
        let record = Entry {
            concept: held.concept,
            key: held.value,
            id: held.id.unwrap_or(0),
            from_secs,
            to_secs,
            from_nanos,
            to_nanos,
            who,
            seq,
        };
        if self.parts.is_empty() {
            self.parts.resize_with(PARTS, Vec::new);
        }
        let part = &mut self.parts[part_of(held.concept)];
        let before = part.len();
        part.push(record);
        for target in targets {
            part.push(Entry {
                key: target,
                id: 0,
                to_secs: 0,
                to_nanos: EDGE,
                ..record
            });
        }
        if self.spill.hold(part.len() - before) {
            if let Err(_unwritable) = self.write_out() {
                self.spill.stop();
            }
        }
    }

    /// Move every partition's entries to the temporary file.
    fn write_out(&mut self) -> io::Result<()> {
        for (p, part) in self.parts.iter_mut().enumerate() {
            if part.is_empty() {
                continue;
            }
            self.bytes.clear();
            for e in part.iter() {
                e.encode(&mut self.bytes);
            }
            self.spill
                .write(p, part.len() as u32, part.len(), &[&self.bytes])?;
            part.clear();
        }
        Ok(())
    }

    /// The first conflict of every concept that has one; `lines` gives records' lines (by
    /// `who`, a batch at a time, appended in order). Fails only when the temporary file cannot
    /// be read back.
    pub fn settle(
        mut self,
        lines: impl Fn(&[u32], &mut Vec<u64>) + Sync,
    ) -> io::Result<Option<Found>> {
        let parts = std::mem::take(&mut self.parts);
        let count = |p: usize| parts[p].len() + self.spill.count(p);
        // Partitions on every core, one a core, when each is small; a store of a few concepts
        // has partitions of hundreds of thousands of entries, each read back and sorted alone
        // (see [`SORT_IN_PLACE`]), so that one is held at a time. After the parallel run each
        // core's allocator gives back what its partitions freed, which the owners book made
        // next would otherwise find held beside its own.
        let small = (0..parts.len()).all(|p| count(p) <= SORT_IN_PLACE);
        let spill = &self.spill;
        let settled: Vec<PartFound> = match small {
            true => parts
                .into_par_iter()
                .enumerate()
                .map_init(PartWork::default, |work, (p, entries)| {
                    work.settle(spill, p, entries, &lines)
                })
                .collect::<io::Result<_>>()
                .inspect(|_| table::give_back_freed())?,
            false => {
                let mut work = PartWork::default();
                parts
                    .into_iter()
                    .enumerate()
                    .map(|(p, entries)| work.settle(spill, p, entries, &lines))
                    .collect::<io::Result<_>>()?
            }
        };
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
        Ok(Some(Found { pairs, concept, at }))
    }
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
    group_scratch: Scratch,
    bytes: Vec<u8>,
    sorted: Vec<Entry>,
    counts: Vec<u32>,
    /// A partition's first conflicts, and their records' lines.
    met: Vec<(Entry, Entry, (i64, u32))>,
    who: Vec<u32>,
    met_lines: Vec<u64>,
}

impl PartWork {
    /// Partition `p`: the entries held (`entries`) after its runs in `spill`, sorted, and the
    /// first conflict of each of its concepts.
    fn settle(
        &mut self,
        spill: &spill::Spill<IN_MEMORY>,
        p: usize,
        mut entries: Vec<Entry>,
        lines: &(impl Fn(&[u32], &mut Vec<u64>) + Sync),
    ) -> io::Result<PartFound> {
        entries.reserve_exact(spill.count(p));
        for &run in spill.runs(p) {
            spill.read(run, &mut self.bytes)?;
            entries.extend(self.bytes.chunks_exact(ENTRY_BYTES).map(Entry::decode));
        }
        let mut sorted = std::mem::take(&mut self.sorted);
        if entries.len() > SORT_IN_PLACE {
            entries.par_sort_unstable_by_key(order_key);
            sorted = entries;
        } else {
            sort_entries(&entries, &mut sorted, &mut self.counts);
            drop(entries);
        }
        for group in sorted.chunk_by_mut(|x, y| x.concept == y.concept) {
            self.met.extend(self.group_scratch.first_conflict(group));
        }
        self.sorted = sorted;
        // each record's line is a read at a random place among the ids: the partition's
        // are read together, so their cache misses overlap
        self.who.clear();
        self.who.extend(
            self.met
                .iter()
                .flat_map(|(a, b, _): &(Entry, Entry, _)| [a.who, b.who]),
        );
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
        Ok(found)
    }
}

/// The order [`ConflictEntries::settle`] reads a partition's entries in: by concept; in a concept,
/// the records by valid_from then store order, then the edges.
fn order_key(e: &Entry) -> (u64, bool, (i64, u32), u32) {
    (e.concept, e.is_edge(), e.from(), e.seq)
}

/// One partition's `entries` in [`order_key`]'s order, into `sorted`: counted out into buckets
/// by the bits of the concept below the partition's (hashes, so they spread evenly: a few
/// entries a bucket), then each bucket sorted whole. Linear: sorting the partition whole
/// moved each 56-byte entry a dozen times. Entries of one key (the edges of one record) come
/// in no set order, and nothing depends on their order.
fn sort_entries(entries: &[Entry], sorted: &mut Vec<Entry>, counts: &mut Vec<u32>) {
    sorted.clear();
    let Some(&any) = entries.first() else {
        return;
    };
    // about four entries a bucket
    let bits = (entries.len() / 4).max(1).ilog2().min(20);
    let below_part = PARTS.trailing_zeros();
    let bucket = |e: &Entry| match bits {
        0 => 0,
        _ => ((e.concept << below_part) >> (64 - bits)) as usize,
    };
    counts.clear();
    counts.resize((1 << bits) + 1, 0);
    for e in entries {
        counts[bucket(e) + 1] += 1;
    }
    for b in 1..counts.len() {
        counts[b] += counts[b - 1];
    }
    // each bucket's position moves along as it is filled, to where the next starts
    sorted.resize(entries.len(), any);
    for e in entries {
        let at = &mut counts[bucket(e)];
        sorted[*at as usize] = *e;
        *at += 1;
    }
    let mut start = 0;
    for &end in &counts[..counts.len() - 1] {
        sorted[start..end as usize].sort_unstable_by_key(order_key);
        start = end as usize;
    }
}

/// Buffers reused from one concept to the next.
#[derive(Default)]
struct Scratch {
    /// The records of the concept with an id: (its hash, their index in the group).
    ids: Vec<(u64, usize)>,
}

impl Scratch {
    /// The first two records of a concept (sorted as [`ConflictEntries::settle`] sorts) in force
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

fn part_of(concept: u64) -> usize {
    (concept >> (64 - PARTS.trailing_zeros())) as usize
}

/// The calendar day of an instant (seconds), `YYYY-MM-DD`.
fn day(secs: i64) -> String {
    let days = secs.div_euclid(SECS_PER_DAY);
    let (y, m, d) = crate::time::civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

const _: () = assert!(NANOS_PER_DAY == SECS_PER_DAY as i128 * 1_000_000_000);

/// The check: what a record holds of its concept (its value's hash, valid_from's first and
/// valid_to's last instant), kept as entries in store order; once settled, the first pair of
/// each concept in conflict and the first pair's concept.
#[derive(Default)]
pub(super) struct Conflicts {
    entries: ConflictEntries,
    found: Option<(Found, String)>,
}

/// What a record holds from its valid_from, when it has a value and a readable valid_from.
#[derive(Debug, Clone, Copy)]
pub(super) struct HeldValue {
    value: u64,
    from: i128,
    /// `None`: open or absent.
    to: Option<i128>,
}

impl ValueCheck for Conflicts {
    type Facts = Option<HeldValue>;

    #[inline(always)]
    fn read(record: &Reading) -> Option<HeldValue> {
        let from = record.from()?;
        let value = record.view.filled(record.roles.value)?;
        Some(HeldValue {
            value: table::hash(&value.text()),
            from: from.start(),
            to: record.to().map(|t| t.end()),
        })
    }

    #[inline(always)]
    fn fold(&mut self, held: &Option<HeldValue>, record: &mut Folding) {
        let (Some(held), Some(concept)) = (held, record.shared.concept()) else {
            return;
        };
        let who = record.who();
        let held = Held {
            concept: concept.hash,
            value: held.value,
            id: record.shared.id().map(|id| id.hash),
            from: held.from,
            to: held.to,
        };
        let targets = record.shared.targets.iter().map(|t| t.hash);
        self.entries.note(held, targets, who);
    }

    /// Settled before the shared concepts are made, so the two are never held at once.
    fn settle(&mut self, store: &mut Settling) -> io::Result<()> {
        let names = &*store.names;
        let found = std::mem::take(&mut self.entries).settle(|who, out| names.lines(who, out))?;
        if let Some(found) = found {
            let concept = store.concepts.text(found.concept())?.unwrap_or_default();
            self.found = Some((found, concept));
        }
        Ok(())
    }

    fn warnings(&mut self, store: &mut Settled, out: &mut Warnings) {
        if let Some((found, concept)) = self.found.take() {
            let (a, b) = found.first();
            let message = found.message(&concept, &store.names.name(a).0, &store.names.name(b).0);
            out.push_named(Code::Conflict, &message, "", found.records());
        }
    }
}

#[cfg(test)]
mod tests {
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
    fn warning(c: ConflictEntries) -> Option<(String, Vec<u32>)> {
        let found = c
            .settle(|who, out| out.extend(who.iter().map(|&w| u64::from(w))))
            .unwrap()?;
        let (a, b) = found.first();
        let message = found.message("x", &format!("R{a}"), &format!("R{b}"));
        Some((message, found.records().collect()))
    }

    #[test]
    fn overlapping_different_values_conflict_from_the_later_start() {
        let mut c = ConflictEntries::default();
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
        let mut c = ConflictEntries::default();
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
        let found = c
            .settle(|who, out| out.extend(who.iter().map(|&w| u64::from(w))))
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
        let mut c = ConflictEntries::default();
        c.note(held(1, 10, 1, "2025-01-01", None), [].into_iter(), 1);
        c.note(held(1, 20, 2, "2025-06-01", None), [1u64].into_iter(), 2);
        c.note(held(1, 20, 3, "2025-07-01", None), [].into_iter(), 3);
        assert_eq!(warning(c), None);
        let mut c = ConflictEntries::default();
        let ended = held(1, 10, 1, "2025-01-01", Some("2025-05-31"));
        c.note(ended, [].into_iter(), 1);
        c.note(held(1, 20, 2, "2025-06-01", None), [].into_iter(), 2);
        assert_eq!(warning(c), None);
        // a value ended early still in force beside a third value
        let mut c = ConflictEntries::default();
        let year = held(1, 10, 1, "2025-01-01", Some("2025-12-31"));
        c.note(year, [].into_iter(), 1);
        let month = held(1, 10, 4, "2025-02-01", Some("2025-03-01"));
        c.note(month, [].into_iter(), 4);
        c.note(held(1, 30, 3, "2025-06-01", None), [].into_iter(), 3);
        let (message, _) = warning(c).unwrap();
        assert!(message.contains("R1 and R3"), "{message}");
    }

    #[test]
    fn instants_split_keep_their_order() {
        let (low, high) = (i64::MIN as i128, i64::MAX as i128);
        let instants = [
            i128::MIN / 4,
            low - 1,
            low,
            low + 1,
            -NANOS_PER_DAY - 1,
            -1,
            0,
            1,
            999_999_999,
            1_000_000_000,
            high - 1,
            high,
            high + 1,
            i128::MAX / 4,
        ];
        for pair in instants.windows(2) {
            assert!(split(pair[0]) < split(pair[1]), "{pair:?}");
        }
        // the same seconds and nanoseconds on both sides of the 64-bit edges
        for n in instants {
            let secs = n.div_euclid(1_000_000_000);
            let nanos = n.rem_euclid(1_000_000_000) as u32;
            if let Ok(secs) = i64::try_from(secs) {
                assert_eq!(split(n), (secs, nanos), "{n}");
            }
        }
        assert_eq!(split(-1), (-1, 999_999_999));
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
        /// Counted out by bucket and sorted a bucket at a time, entries come in the order of
        /// a sort of them whole.
        #[test]
        fn entries_are_sorted_as_a_whole_sort_sorts_them(
            raw in proptest::collection::vec(
                (proptest::num::u64::ANY, 0u64..4, proptest::bool::ANY, -3i64..3, 0u32..3),
                0..300,
            ),
        ) {
            let entries: Vec<Entry> = raw
                .iter()
                .enumerate()
                .map(|(i, &(concept, low, edge, from, nanos))| Entry {
                    // one partition, few concepts: groups of several entries
                    concept: (concept >> 7 >> 50 << 50) | low,
                    key: i as u64,
                    id: 0,
                    from_secs: from,
                    to_secs: 0,
                    from_nanos: nanos,
                    to_nanos: if edge { EDGE } else { 0 },
                    who: i as u32,
                    seq: (i / 2) as u32,
                })
                .collect();
            let (mut sorted, mut counts) = (Vec::new(), Vec::new());
            sort_entries(&entries, &mut sorted, &mut counts);
            let mut whole = entries.clone();
            whole.sort_by_key(order_key);
            prop_assert_eq!(
                sorted.iter().map(order_key).collect::<Vec<_>>(),
                whole.iter().map(order_key).collect::<Vec<_>>()
            );
            let mut all: Vec<u64> = sorted.iter().map(|e| e.key).collect();
            all.sort_unstable();
            prop_assert_eq!(all, (0..entries.len() as u64).collect::<Vec<_>>());
        }

        /// The sweep finds what the plain reading finds, whether the entries stay in memory
        /// or go to the temporary file.
        #[test]
        fn the_sweep_agrees_with_the_plain_rule(recs in records(), limit in 1usize..8) {
            let run = |limit: usize| {
                let spill = spill::Spill::with_limit(limit);
                let mut c = ConflictEntries { spill, ..ConflictEntries::default() };
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
                c.settle(|who, out| out.extend(who.iter().map(|&w| u64::from(w))))
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
