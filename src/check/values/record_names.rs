//! The names of the records the value warnings name, by `who`: a record's id (its index in
//! [`Ids`]) or, for a record named otherwise, its place among the names kept aside. The
//! warnings keep each record as that number and the report reads the name here when it
//! writes it, so naming a record costs 4 bytes a warning however long its id.

use super::super::table::Names;
use super::dangling::Dangling;
use super::id_text::RecordName;
use super::ids::{small, Ids, ReadAhead};

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
    /// What was read back of the ids that went to the temporary file, and of the dangling
    /// pointers' targets.
    ahead: ReadAhead,
    dangling_ahead: ReadAhead,
}

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
            ahead: ReadAhead::default(),
            dangling_ahead: ReadAhead::default(),
        }
    }

    /// The name and line of the `k`th dangling pointer (see [`Dangling::name`]), read ahead
    /// when `k` comes in order.
    pub fn dangling(&mut self, k: usize) -> (RecordName<'a>, u64) {
        let ahead = (&mut self.ahead, &mut self.dangling_ahead);
        self.names.dangling.name(k, self.names, Some(ahead))
    }

    /// The name and line of the record `who[k]`: as [`RecordNames::name`], read ahead when
    /// `k` comes in order.
    #[inline]
    pub fn get(&mut self, k: usize) -> (RecordName<'a>, u64) {
        match self.batch.get(k.wrapping_sub(self.from)) {
            Some(name) => name.clone(),
            None => {
                self.read(k);
                self.batch
                    .first()
                    .cloned()
                    .unwrap_or((RecordName::Text(""), 0))
            }
        }
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
        let by_id = || self.places.iter().copied().filter(|p| p & NAMED == 0);
        by_id().for_each(|i| ids.prefetch_place(i));
        by_id().for_each(|i| ids.prefetch_bounds(i));
        by_id().for_each(|i| ids.prefetch_text(i));
        self.batch.clear();
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
