//! The names of the records the value warnings name, by `who`: a record's id (its index in
//! [`Ids`]) or, for a record named otherwise, its place among the names kept aside. The
//! warnings keep each record as that number and the report reads the name here when it
//! writes it, so naming a record costs 4 bytes a warning however long its id.

use super::super::table::Names;
use super::dangling::Dangling;
use super::id_text::RecordName;
use super::ids::{small, Ids, ReadAhead};
use rayon::prelude::*;
use std::sync::{Mutex, PoisonError};

/// A record a warning may name, as the value checks keep it: the index of its id in `ids`
/// (its name is its id), or with this bit, its index in `named`.
pub const NAMED: u32 = 1 << 31;

/// A record a warning names by its id's text, as a supersedes pointer names it, even where
/// the reference names it otherwise: with this bit, the index of its id (below 2^30: a store
/// of a billion ids is far beyond the memory a check has).
pub const AS_ID: u32 = 1 << 30;

/// Where a record's name is kept (see [`RecordNames::place`]).
enum Place {
    Aside(usize),
    Id(u32),
}

/// Every name a value warning may give a record, and its line.
#[derive(Default)]
pub struct RecordNames {
    /// Every record id and every supersedes target (`ids.rs`).
    pub ids: Ids,
    /// Names of records named otherwise than by their id (without one, or one the reference
    /// names otherwise), kept when a warning may name them, and by the same index their
    /// lines.
    named: Names,
    named_lines: Vec<u64>,
    /// Ids whose record is named otherwise: (its index in `ids`, in `named`), in store order.
    renamed: Vec<(u32, u32)>,
    /// The supersedes pointers that name no record (`dangling.rs`).
    pub dangling: Dangling,
}

impl std::fmt::Debug for RecordNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordNames")
            .field("ids", &self.ids.len())
            .field("named", &self.named.len())
            .field("renamed", &self.renamed.len())
            .field("dangling", &self.dangling.len())
            .finish()
    }
}

impl RecordNames {
    /// No names yet; the ids and the dangling pointers held up to `budget`'s shares.
    pub fn new(budget: &super::Budget) -> RecordNames {
        RecordNames {
            ids: Ids::new(budget),
            dangling: Dangling::new(budget.dangling),
            ..RecordNames::default()
        }
    }

    /// Keep `name` (on `line`) for a record that is not named by its id: its `who` without
    /// the [`NAMED`] bit.
    pub fn name_aside(&mut self, name: &str, line: u64) -> u32 {
        self.named_lines.push(line);
        small(self.named.push(name)).min(NAMED - 1)
    }

    /// The record whose id is at `i` is named `name` instead (ids come in store order): its
    /// `who` without the [`NAMED`] bit.
    pub fn rename(&mut self, i: u32, name: &str, line: u64) -> u32 {
        let j = self.name_aside(name, line);
        self.renamed.push((i, j));
        j
    }

    /// How long a record's name is, on average (its id's kept form, or the name kept aside),
    /// in bytes.
    pub fn mean_len(&self) -> usize {
        let bytes = self.ids.kept_bytes().saturating_add(self.named.text_len());
        bytes / (self.ids.len() + self.named.len()).max(1)
    }

    /// Some name could not be read back from the temporary file: a report that named it is
    /// missing that name, and should not be trusted.
    pub fn unreadable(&self) -> bool {
        self.ids.unreadable() || self.dangling.unreadable()
    }

    /// The name and line (0: not known) of the record `who`.
    pub fn name(&self, who: u32) -> (RecordName<'_>, u64) {
        match self.place(who) {
            Place::Aside(j) => self.named_at(j),
            Place::Id(i) => (self.ids.text(i), self.ids.line(i)),
        }
    }

    /// The line of the record `who`, without reading its name.
    pub fn line(&self, who: u32) -> u64 {
        match self.place(who) {
            Place::Aside(j) => self.named_lines.get(j).copied().unwrap_or(0),
            Place::Id(i) => self.ids.line(i),
        }
    }

    /// The lines of the records `who`, appended to `out` in order: as [`Self::line`] of each,
    /// but each step for all of them before the next, so the reads among the ids (at random
    /// places, for records named in no order) are in flight together, not one at a time
    /// between other work.
    pub fn lines(&self, who: &[u32], out: &mut Vec<u64>) {
        let start = out.len();
        out.extend(who.iter().map(|&w| u64::from(self.placed(w))));
        for p in out.get_mut(start..).unwrap_or_default() {
            let at = *p as u32;
            *p = if at & NAMED == 0 {
                self.ids.line(at)
            } else {
                let j = (at & !NAMED) as usize;
                self.named_lines.get(j).copied().unwrap_or(0)
            };
        }
    }

    /// Where the name of the record `who` is kept: among the names kept aside (it has the
    /// [`NAMED`] bit, or its id was renamed and it lacks [`AS_ID`]), or as its id.
    fn place(&self, who: u32) -> Place {
        if who & NAMED != 0 {
            return Place::Aside((who & !NAMED) as usize);
        }
        if who & AS_ID != 0 {
            return Place::Id(who & !AS_ID);
        }
        match self.renamed.binary_search_by_key(&who, |&(id, _)| id) {
            Ok(at) => Place::Aside(self.renamed[at].1 as usize),
            Err(_) => Place::Id(who),
        }
    }

    /// A name kept aside, by its place, and its line.
    pub fn named_at(&self, j: usize) -> (RecordName<'_>, u64) {
        (
            RecordName::Text(self.named.get(j)),
            self.named_lines.get(j).copied().unwrap_or(0),
        )
    }

    /// [`Self::place`] in one number: an id's index, or with [`NAMED`] a place aside.
    fn placed(&self, who: u32) -> u32 {
        match self.place(who) {
            Place::Aside(j) => small(j).min(NAMED - 1) | NAMED,
            Place::Id(i) => i,
        }
    }
}

/// Records named by `who` whose names are read a batch at a time, for a report that writes
/// every record of every warning (hundreds of thousands of records spread over the whole
/// store). One name is three reads, each needing the one before (where the id is kept, where
/// its text lies, the text), and nearly each misses the cache: read one after another they
/// wait out every miss. Here the reads of a batch are started together a step at a time, so
/// the misses of a batch overlap.
///
/// Memory: a batch of names and places, whatever the store.
pub struct NamesAhead<'a> {
    names: &'a RecordNames,
    /// The records, by `who`, as the warnings name them.
    who: &'a [u32],
    /// The names of `who[from..from + batch.len()]`.
    from: usize,
    batch: Vec<(RecordName<'a>, u64)>,
    /// Where each name of the batch is kept (see [`RecordNames::placed`]).
    places: Vec<u32>,
    /// Names of the batch in the temporary file, to read with others' (see
    /// [`NamesAhead::hold`]): where each lies, and its place in the batch.
    wanted: Vec<Wanted>,
    /// The names [`read_together`] read for the batch, one after the other in `read`, and
    /// by place in the batch where each lies there ([`UNREAD`]: none, the batch has it);
    /// sized by [`NamesAhead::hold`] when it leaves names for later, else empty.
    read: String,
    read_at: Vec<(u32, u32)>,
    /// What was read back of the ids that went to the temporary file, and of the dangling
    /// pointers' targets.
    ahead: ReadAhead,
    dangling_ahead: ReadAhead,
}

/// In `NamesAhead::read_at`: not read together.
const UNREAD: u32 = u32::MAX;

/// Names read together: enough misses to overlap, few enough that the first are still in the
/// cache when the last are read.
const BATCH: usize = 64;

impl<'a> NamesAhead<'a> {
    pub fn new(names: &'a RecordNames, who: &'a [u32]) -> NamesAhead<'a> {
        NamesAhead {
            names,
            who,
            from: 0,
            batch: Vec::with_capacity(BATCH),
            places: Vec::with_capacity(BATCH),
            wanted: Vec::new(),
            read: String::new(),
            read_at: Vec::new(),
            ahead: ReadAhead::default(),
            dangling_ahead: ReadAhead::default(),
        }
    }

    /// The name and line of the `k`th dangling pointer (see `Dangling::name`), read ahead
    /// when `k` comes in order.
    pub fn dangling(&mut self, k: usize) -> (RecordName<'a>, u64) {
        let ahead = (&mut self.ahead, &mut self.dangling_ahead);
        self.names.dangling.name(k, self.names, Some(ahead))
    }

    /// The name and line of the record `who[k]`: as `RecordNames::name`, read ahead when
    /// `k` comes in order.
    #[inline]
    pub fn get(&mut self, k: usize) -> (RecordName<'a>, u64) {
        let (read, (name, line)) = self.look_up(k);
        let name = read.map_or_else(|| name.clone(), |text| RecordName::Read(text.into()));
        (name, *line)
    }

    /// [`Self::get`], the name lent until the next call rather than given: a name read
    /// back from the temporary file is not copied.
    #[inline]
    pub fn lend(&mut self, k: usize) -> (RecordName<'_>, u64) {
        let (read, (name, line)) = self.look_up(k);
        (read.map_or_else(|| name.clone(), RecordName::Text), *line)
    }

    /// The batch's entry for `who[k]` (read now when the batch does not have it), and the
    /// name [`read_together`] read for it, if it did (the entry's name is then empty).
    #[inline]
    fn look_up(&mut self, k: usize) -> (Option<&str>, &(RecordName<'a>, u64)) {
        static NONE: (RecordName<'static>, u64) = (RecordName::Text(""), 0);
        let mut at = k.wrapping_sub(self.from);
        if at >= self.batch.len() {
            self.read(k);
            at = 0;
        }
        let read = match self.read_at.get(at) {
            Some(&(start, end)) if start != UNREAD => self.read.get(start as usize..end as usize),
            _ => None,
        };
        (read, self.batch.get(at).unwrap_or(&NONE))
    }

    /// Make the batch the names of `who[from..to]`, for a run of [`Self::get`] over them,
    /// when the ids went to the temporary file: the names held in memory read now, the ones
    /// in the file left for [`read_together`] to read with those other readers leave. With
    /// every id in memory it does nothing: [`Self::get`] reads a small batch as it goes,
    /// whose names are still in the cache when they are written.
    ///
    /// Memory: a name and a line each, and the text of the names read back together.
    pub fn hold(&mut self, from: usize, to: usize) {
        let names = self.names;
        let ids = &names.ids;
        if !ids.spilled() {
            return;
        }
        let who = self.who.get(from..to).unwrap_or_default();
        self.from = from;
        self.batch.clear();
        self.wanted.clear();
        self.read.clear();
        self.read_at.clear();
        // sized once: grown by doubling, a batch of a window's readers held twice its room
        self.batch.reserve_exact(who.len());
        for who in who.chunks(BATCH) {
            self.places.clear();
            self.places.extend(who.iter().map(|&w| names.placed(w)));
            self.prefetch();
            for &p in &self.places {
                let slot = small(self.batch.len());
                self.batch.push(if p & NAMED == 0 {
                    let name = ids.held_or_spilled(p).unwrap_or_else(|at| {
                        self.wanted.push(Wanted::new(at, slot));
                        RecordName::Text("")
                    });
                    (name, ids.line(p))
                } else {
                    names.named_at((p & !NAMED) as usize)
                });
            }
        }
        if !self.wanted.is_empty() {
            self.read_at.resize(self.batch.len(), (UNREAD, UNREAD));
        }
    }

    /// Start loading the ids of the batch's places, a step at a time.
    fn prefetch(&self) {
        let ids = &self.names.ids;
        let by_id = || self.places.iter().copied().filter(|p| p & NAMED == 0);
        by_id().for_each(|i| ids.prefetch_place(i));
        by_id().for_each(|i| ids.prefetch_bounds(i));
        by_id().for_each(|i| ids.prefetch_text(i));
    }

    /// Read the batch that starts at `who[k]`.
    fn read(&mut self, k: usize) {
        let names = self.names;
        let ids = &names.ids;
        let end = self.who.len().min(k.saturating_add(BATCH));
        let who = self.who.get(k..end).unwrap_or_default();
        self.from = k;
        self.places.clear();
        self.places.extend(who.iter().map(|&w| names.placed(w)));
        self.prefetch();
        self.batch.clear();
        self.read_at.clear();
        let ahead = &mut self.ahead;
        self.batch.extend(self.places.iter().map(|&p| {
            if p & NAMED == 0 {
                (ids.text_ahead(p, ahead), ids.line(p))
            } else {
                names.named_at((p & !NAMED) as usize)
            }
        }));
    }
}

/// A name of a batch that lies in the temporary file (see [`NamesAhead::hold`]), in 16
/// bytes: a window of readers leaves tens of thousands.
#[derive(Clone, Copy)]
struct Wanted {
    /// The spill's partition in the top byte (there are fewer than 256), the start of the
    /// name's span in that partition below it (a temporary file of 2^56 bytes is out of
    /// reach): one key that sorts the names as they lie.
    at: u64,
    len: u32,
    /// Its place in its reader's batch, then in all the batches one after the other.
    slot: u32,
}

impl Wanted {
    fn new((n, (start, end)): (usize, (u64, u64)), slot: u32) -> Wanted {
        debug_assert!(n < 256 && start < 1 << 56);
        Wanted {
            at: (n as u64) << 56 | start,
            len: u32::try_from(end.saturating_sub(start)).unwrap_or(u32::MAX),
            slot,
        }
    }

    fn part(&self) -> usize {
        (self.at >> 56) as usize
    }

    fn span(&self) -> (u64, u64) {
        let start = self.at & ((1 << 56) - 1);
        (start, start + u64::from(self.len))
    }
}

/// Read the names that `aheads` left for later (see [`NamesAhead::hold`]) from the temporary
/// file, all together, a partition on each core at a time, in the order they lie there: names
/// a report writes by concept come from all over the file, and read one by one each cost a
/// call; read together, those close to one another share one.
///
/// Memory: 16 bytes a name left, and the names of one partition a core before they go to
/// their batch.
pub fn read_together(aheads: &mut [NamesAhead<'_>]) {
    let Some(names) = aheads.first().map(|a| a.names) else {
        return;
    };
    // each reader's batch from its first place among all the batches
    let mut firsts = Vec::with_capacity(aheads.len());
    let mut wanted = Vec::with_capacity(aheads.iter().map(|a| a.wanted.len()).sum());
    let mut first = 0u32;
    for ahead in aheads.iter_mut() {
        firsts.push(first);
        let placed = ahead.wanted.drain(..).map(|w| Wanted {
            slot: first.saturating_add(w.slot),
            ..w
        });
        wanted.extend(placed);
        first = first.saturating_add(small(ahead.batch.len()));
    }
    wanted.par_sort_unstable_by_key(|w| w.at);
    let aheads = Mutex::new(aheads);
    let parts: Vec<&[Wanted]> = wanted.chunk_by(|a, b| a.part() == b.part()).collect();
    parts.into_par_iter().for_each(|part| {
        let n = part.first().map_or(0, Wanted::part);
        let spans: Vec<(u64, u64)> = part.iter().map(Wanted::span).collect();
        // the partition's names, one after the other, and where each lies and goes
        let mut text = String::new();
        let mut read = Vec::with_capacity(part.len());
        names.ids.read_spilled(n, &spans, |k, name| {
            if let Some(w) = part.get(k) {
                let start = text.len();
                text.push_str(name);
                read.push((w.slot, start, text.len()));
            }
        });
        let mut aheads = aheads.lock().unwrap_or_else(PoisonError::into_inner);
        for (slot, start, end) in read {
            // the reader whose batch holds this place
            let a = firsts.partition_point(|&f| f <= slot).saturating_sub(1);
            let first = firsts.get(a).copied().unwrap_or(0);
            let (Some(ahead), Some(name)) = (aheads.get_mut(a), text.get(start..end)) else {
                continue;
            };
            let at = (slot - first) as usize;
            if let Some(place) = ahead.read_at.get_mut(at) {
                let start = small(ahead.read.len());
                ahead.read.push_str(name);
                *place = (start, small(ahead.read.len()));
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::super::super::table::hash;
    use super::*;

    proptest::proptest! {
        /// Held a piece at a time and read from the temporary file together, every name is
        /// the one the record has, as read alone: by id, by an id renamed, or kept aside.
        #[test]
        fn names_read_together_are_the_names_read_alone(
            ids in proptest::collection::vec("[ab]{0,3}|[a-z/]{20,60}|[0a]{8}-0000-4000-8000-00000000000[0aA]", 1..80),
            who in proptest::collection::vec(0u32..100, 0..200),
            piece in 1usize..40,
            limit in 1usize..400,
        ) {
            let mut names = RecordNames { ids: Ids::spilling_past(limit), ..RecordNames::default() };
            for (i, id) in ids.iter().enumerate() {
                names.ids.push(id, hash(id), i as u64 + 1, false);
            }
            // the first id renamed, and a name kept aside for a record without an id
            names.rename(0, "renamed", 1);
            let aside = names.name_aside("aside", 99) | NAMED;
            let matched = names.ids.match_up();
            proptest::prop_assert!(matched.is_ok());
            let len = ids.len() as u32;
            let who: Vec<u32> = who
                .iter()
                .map(|&w| match w {
                    w if w < len => w,
                    w if w == len => aside,
                    w => (w % len) | AS_ID,
                })
                .collect();
            let pieces: Vec<(usize, usize)> = (0..who.len())
                .step_by(piece)
                .map(|from| (from, who.len().min(from + piece)))
                .collect();
            let mut aheads: Vec<NamesAhead> = pieces
                .iter()
                .map(|&(from, to)| {
                    let mut ahead = NamesAhead::new(&names, &who);
                    ahead.hold(from, to);
                    ahead
                })
                .collect();
            read_together(&mut aheads);
            for (ahead, &(from, to)) in aheads.iter_mut().zip(&pieces) {
                for (k, &w) in who.iter().enumerate().take(to).skip(from) {
                    let alone = names.name(w);
                    proptest::prop_assert_eq!(ahead.lend(k), alone.clone());
                    proptest::prop_assert_eq!(ahead.get(k), alone);
                }
            }
            proptest::prop_assert!(!names.unreadable());
        }
    }
}
