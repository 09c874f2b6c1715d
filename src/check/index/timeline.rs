//! The timeline: what each record holds of its concept in time (its value's hash, its
//! validity interval, its id's hash) and the ids it supersedes, as fixed-size entries with
//! no text, kept by concept partition. A check over a concept's records in time reads them
//! here, a partition at a time, sorted by concept and valid_from (`values/conflicts.rs`).
//!
//! Memory, whatever the store: 56 bytes a record with a concept, a value and a readable
//! valid_from, and as much again an id its supersedes names. Past the budget's number of
//! entries in memory every partition's go to the temporary file of `spill.rs`, and each is
//! read back alone when the timeline is settled.

use super::super::table;
use crate::spill;
use rayon::prelude::*;
use std::io;

/// Concept partitions: the top bits of the concept's hash (a partition of the index's
/// concepts holds four of them).
const PARTS: usize = 128;
/// A partition of more entries than this (a store of a few concepts: an engrama dump's
/// concepts are its labels) is sorted where it was read back, not copied into buckets: the
/// copy would hold the partition twice.
const SORT_IN_PLACE: usize = 1 << 16;
/// `to_nanos` of an entry that is a supersedes edge rather than a record (a record's
/// nanoseconds are below 10⁹).
const EDGE: u32 = u32::MAX;

/// A record of a concept, or a supersedes edge from one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub concept: u64,
    /// A record: its value's hash; an edge: the hash of the id it supersedes.
    pub key: u64,
    /// A record: its id's hash (0: none).
    pub id: u64,
    /// valid_from (an edge: its superseder's), in seconds and nanoseconds.
    pub from_secs: i64,
    /// Last instant in force (inclusive; `i64::MAX` open), in seconds and nanoseconds.
    pub to_secs: i64,
    pub from_nanos: u32,
    /// [`EDGE`] for an edge.
    pub to_nanos: u32,
    /// The record (an edge: its superseder), as the value checks name it.
    pub who: u32,
    /// The record's place in store order (an edge: its superseder's).
    pub seq: u32,
}

const ENTRY_BYTES: usize = 56;

impl Entry {
    pub fn is_edge(&self) -> bool {
        self.to_nanos == EDGE
    }

    pub fn from(&self) -> (i64, u32) {
        (self.from_secs, self.from_nanos)
    }

    pub fn to(&self) -> (i64, u32) {
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

/// What a record holds of its concept: the hashes of the concept, its value and its id,
/// and the instants it holds (`to`: `None` when open).
#[derive(Debug, Clone, Copy)]
pub struct Held {
    pub concept: u64,
    pub value: u64,
    pub id: Option<u64>,
    pub from: i128,
    pub to: Option<i128>,
}

/// Every record's entry, and every supersedes edge, kept by concept partition.
pub struct Timeline {
    /// The entries not in the temporary file, by partition.
    parts: Vec<Vec<Entry>>,
    noted: u32,
    /// The entries held, and the runs in the temporary file.
    spill: spill::Spill,
    /// A run's bytes, made before it is written.
    bytes: Vec<u8>,
}

impl Timeline {
    /// No entries yet; every partition's go to the temporary file past `limit` held.
    pub fn new(limit: usize) -> Timeline {
        Timeline {
            parts: Vec::new(),
            noted: 0,
            spill: spill::Spill::new(limit),
            bytes: Vec::new(),
        }
    }

    /// Note a record (`who` names it), with the hashes of the ids its
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

    /// Every partition's entries in [`order_key`]'s order (by concept; in a concept, the
    /// records by valid_from then store order, then the edges), each partition given to
    /// `each` (its entries of a concept together, and free to change) with buffers of the
    /// caller's that one core reuses from one partition to the next (`S`, made by `init`), in
    /// partition order: what `each` makes of each. Fails only when the temporary file cannot
    /// be read back.
    pub fn settle<S: Send, R: Send>(
        mut self,
        init: impl Fn() -> S + Sync + Send,
        each: impl Fn(&mut S, &mut [Entry]) -> R + Sync,
    ) -> io::Result<Vec<R>> {
        let parts = std::mem::take(&mut self.parts);
        let count = |p: usize| parts[p].len() + self.spill.count(p);
        // Partitions on every core, one a core, when each is small; a store of a few concepts
        // has partitions of hundreds of thousands of entries, each read back and sorted alone
        // (see [`SORT_IN_PLACE`]), so that one is held at a time. After the parallel run each
        // core's allocator gives back what its partitions freed, which the owners book made
        // next would otherwise find held beside its own.
        let small = (0..parts.len()).all(|p| count(p) <= SORT_IN_PLACE);
        let spill = &self.spill;
        let work = || (PartWork::default(), init());
        let settle = |(work, own): &mut (PartWork, S), (p, entries)| {
            work.sorted(spill, p, entries)
                .map(|sorted| each(own, sorted))
        };
        match small {
            true => parts
                .into_par_iter()
                .enumerate()
                .map_init(work, settle)
                .collect::<io::Result<_>>()
                .inspect(|_| table::give_back_freed()),
            false => {
                let mut work = work();
                let parts = parts.into_iter().enumerate();
                parts.map(|part| settle(&mut work, part)).collect()
            }
        }
    }
}

/// Buffers one core reuses from one partition to the next.
#[derive(Default)]
struct PartWork {
    bytes: Vec<u8>,
    sorted: Vec<Entry>,
    counts: Vec<u32>,
}

impl PartWork {
    /// Partition `p`: the entries held (`entries`) after its runs in `spill`, sorted.
    fn sorted(
        &mut self,
        spill: &spill::Spill,
        p: usize,
        mut entries: Vec<Entry>,
    ) -> io::Result<&mut [Entry]> {
        entries.reserve_exact(spill.count(p));
        for &run in spill.runs(p) {
            spill.read(run, &mut self.bytes)?;
            entries.extend(self.bytes.chunks_exact(ENTRY_BYTES).map(Entry::decode));
        }
        if entries.len() > SORT_IN_PLACE {
            entries.par_sort_unstable_by_key(order_key);
            self.sorted = entries;
        } else {
            sort_entries(&entries, &mut self.sorted, &mut self.counts);
        }
        Ok(&mut self.sorted)
    }
}

/// The order [`Timeline::settle`] gives a partition's entries in: by concept; in a concept,
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

fn part_of(concept: u64) -> usize {
    (concept >> (64 - PARTS.trailing_zeros())) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_DAY;
    use proptest::prelude::*;

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

    }
}
