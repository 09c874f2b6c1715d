//! One owner per concept: every concept a record holds, with its owner, gathered in store
//! order while the records stream past, and matched up once at the end: which concepts have
//! more than one owner (`value.owners`), and which concepts of the register no record holds.
//!
//! Gathered by partition and matched up one partition at a time, in a table that stays in
//! cache, for the reason `ids.rs` gives: a table of every concept looked up as each record
//! comes missed the cache on nearly every record.
//!
//! Memory: per record with a concept, the concept's text and 16 bytes, up to a fixed amount
//! ([`IN_MEMORY`]); past it every partition's concepts go to the temporary file of
//! `spill.rs`, and each partition is read back alone when it is matched up. So however long a
//! store's concepts are, the ones held at once stay under that amount. The owners are
//! interned, up to [`INTERNED`] of them; an owner first seen past that is kept as text beside
//! its concept, counted and spilled with it, so a store with an owner per record holds no
//! more. What settling makes for the report, the book of concepts with several owners, keeps
//! its texts in a temporary file of its own past [`BOOK_IN_MEMORY`] bytes of them.

use super::super::spill::{self, Run};
use super::super::table::{
    key_of, part_of, partitions, release_pages, share, spread, Interner, Names, Slots, PARTS,
};
use super::super::warnings::Warnings;
use super::ids::small;
use crate::bytes::same;
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::borrow::Cow;
use std::io;

/// Bytes of concepts held in memory (their texts and [`HELD_BYTES`] each) before every
/// partition's go to the temporary file: a little more than a million records of 22-byte
/// concepts take (bench's clean store, 37 MiB), so those never go, and longer ones go once
/// or more.
const IN_MEMORY: usize = 40 << 20;
/// What a concept takes in memory besides its text: its [`Held`] and where its text ends.
const HELD_BYTES: usize = 16;
/// A concept in the temporary file: its [`Held`], its text's length and its owner text's (a
/// run of concepts is their heads, then their texts one after the other, as the partition
/// holds them, then their owner texts likewise).
const ENTRY_HEAD: usize = 20;

/// No owner (a record with a concept and no concept_owner).
const NO_OWNER: u32 = u32::MAX;

/// Owners interned as records come: a store names a few (teams, roles), looked up on every
/// record. A store that names a person or a user on each record has as many as records, and
/// past this many an owner first seen is kept as text beside its concept instead: so an
/// owner is interned from its first record on, or kept as text on every record.
const INTERNED: usize = 1 << 16;

/// An owner kept as text: this bit, and its place among the owner texts beside it.
const OWNER_TEXT: u32 = 1 << 31;

/// `owner` is kept as text (see [`OWNER_TEXT`]): its place there.
fn text_owner(owner: u32) -> Option<usize> {
    (owner != NO_OWNER && owner & OWNER_TEXT != 0).then_some((owner & !OWNER_TEXT) as usize)
}

/// Keep an owner's `text` at the end of `texts`: the owner that names it there.
fn keep_owner_text(texts: &mut Names, text: &str) -> u32 {
    OWNER_TEXT | small(texts.push(text)).min(OWNER_TEXT - 1)
}

/// One record's concept: 32 bits of the concept's hash, its owner, and who holds it (the
/// caller's number for the record).
#[derive(Debug, Clone, Copy)]
struct Held {
    key: u32,
    owner: u32,
    who: u32,
}

/// The concepts of one partition, in store order (a concept's text at the same index), and
/// the owners kept as text (see [`OWNER_TEXT`]).
#[derive(Default)]
struct Part {
    texts: Names,
    held: Vec<Held>,
    owner_texts: Names,
}

pub struct ConceptOwners {
    parts: Vec<Part>,
    /// The owners' names, up to [`INTERNED`] of them (a store has few: looked up as each
    /// record comes).
    owners: Interner,
    /// How many owners are interned at most ([`INTERNED`]; fewer in tests).
    interned: usize,
    /// Some owner was kept as text (see [`OWNER_TEXT`]).
    owners_as_text: bool,
    /// The bytes the partitions hold (texts and [`HELD_BYTES`] each), and their runs in the
    /// temporary file.
    spill: Spill,
    /// A run's heads, made before it is written.
    heads: Vec<u8>,
}

type Spill = spill::Spill<IN_MEMORY>;

impl Default for ConceptOwners {
    fn default() -> Self {
        ConceptOwners {
            parts: Vec::new(),
            owners: Interner::default(),
            interned: INTERNED,
            owners_as_text: false,
            spill: Spill::default(),
            heads: Vec::new(),
        }
    }
}

/// An owner of a concept, and the first record where it owns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    pub owner: u32,
    pub who: u32,
}

/// The concepts with more than one owner, by concept text, each with its owners in the
/// order first seen: each partition's texts and owners as settling made them, and the order
/// of the texts across partitions, not a `String` and a `Vec` a concept (a messy store has
/// one such concept in four records), nor the texts copied once more into that order.
#[derive(Debug, Default)]
pub struct SharedConcepts {
    /// Each partition's shared concepts (see `PartShared`) ...
    parts: Vec<PartShared>,
    /// ... and in the order of their texts, the partition and the concept's place there.
    order: Vec<(u32, u32)>,
}

impl SharedConcepts {
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// The partition of the `i`th concept, and its place there.
    fn placed(&self, i: usize) -> Option<(&PartShared, usize)> {
        let &(p, at) = self.order.get(i)?;
        Some((self.parts.get(p as usize)?, at as usize))
    }

    /// The `i`th concept (by text) and its owners (empty past the end), while the texts are
    /// held.
    fn get(&self, i: usize) -> (&str, &[Owner]) {
        let text = self.placed(i).map_or("", |(part, at)| part.texts.get(at));
        (text, self.owners(i))
    }

    /// Each concept and its owners.
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[Owner])> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The owners of the `i`th concept (empty past the end): kept in memory whatever
    /// happens to the texts.
    pub fn owners(&self, i: usize) -> &[Owner] {
        self.placed(i).map_or(&[][..], |(part, at)| {
            let start = at.checked_sub(1).map_or(0, |before| part.ends[before]);
            &part.owners[start as usize..part.ends[at] as usize]
        })
    }

    /// The bytes of the concepts' texts and of the owners' kept as text.
    fn text_len(&self) -> usize {
        let part = |p: &PartShared| p.texts.text_len() + p.owner_texts.text_len();
        self.parts.iter().map(part).sum()
    }

    /// Let go of the texts (once written out): only the owners are read from here after.
    fn let_go_of_texts(&mut self) {
        for part in &mut self.parts {
            (part.texts, part.owner_texts) = Default::default();
        }
    }

    /// The name of `owner`, an owner of the `i`th concept: interned in `names`, or kept as
    /// text beside the concept.
    fn owner_name<'b>(&'b self, i: usize, owner: u32, names: &'b Interner) -> &'b str {
        match text_owner(owner) {
            None => names.get(owner as usize),
            Some(at) => self
                .placed(i)
                .map_or("", |(part, _)| part.owner_texts.get(at)),
        }
    }
}

/// The concepts with several owners and the owners' names: what the `value.owners` warnings
/// are read from when a report writes them. Kept whole, as settling made it, rather than
/// written out as a text a warning (a messy store has a quarter of a million); past
/// `BOOK_IN_MEMORY` bytes of texts, the texts go to a temporary file of their own and each
/// warning's words are read back from it as the report writes them.
#[derive(Default)]
pub struct OwnersBook {
    pub concepts: SharedConcepts,
    pub names: Interner,
    /// The texts, once written out (see [`BookTexts`]).
    written: Option<BookTexts>,
}

/// Bytes of concept and owner texts a book keeps in memory through the report. The book is
/// held from the settle to the last line of the report, when the report's own memory (names
/// read back, rendered pieces of JSON) comes on top: a store with a concept every two records
/// and an owner a record makes a book of 45 MB of texts, and its JSON report peaked past
/// 128 MiB with them. Bench's messy stores make books of 3.5 to 29 MB, and keep them.
const BOOK_IN_MEMORY: usize = 32 << 20;

/// A book's texts in a temporary file: each concept's text and its owners' names as a report
/// writes them (`a, b, c`), one concept after the other in the book's order, each read back
/// when a warning is written. What stays in memory is where each concept's ends.
struct BookTexts {
    file: std::fs::File,
    /// Where each concept's bytes end: a concept's are its text's length (4 bytes), its
    /// text, then its owners' names.
    ends: Vec<u64>,
    /// Some concept could not be read back: a report named it empty.
    unreadable: std::sync::atomic::AtomicBool,
}

impl BookTexts {
    /// The texts of `book`'s concepts, written to a new temporary file a buffer at a time.
    fn write(book: &OwnersBook) -> io::Result<BookTexts> {
        use std::io::Write;
        const BUFFER: usize = 1 << 20;
        let mut file = tempfile::tempfile()?;
        let mut ends = Vec::with_capacity(book.concepts.len());
        let (mut buf, mut written) = (Vec::with_capacity(BUFFER + (BUFFER >> 2)), 0u64);
        for i in 0..book.concepts.len() {
            let (concept, owners) = book.concepts.get(i);
            let len = u32::try_from(concept.len()).map_err(|_| io::ErrorKind::InvalidInput)?;
            buf.extend_from_slice(&len.to_le_bytes());
            buf.extend_from_slice(concept.as_bytes());
            book.owner_names(i, owners, |name| buf.extend_from_slice(name.as_bytes()));
            ends.push(written + buf.len() as u64);
            if buf.len() >= BUFFER {
                file.write_all(&buf)?;
                written += buf.len() as u64;
                buf.clear();
            }
        }
        file.write_all(&buf)?;
        Ok(BookTexts {
            file,
            ends,
            unreadable: Default::default(),
        })
    }

    /// The `i`th concept's text and its owners' names, read back through `ahead` when given
    /// (both empty, and noted, when they cannot be).
    fn read(&self, i: usize, ahead: Option<&mut BookAhead>) -> (String, String) {
        let read = || -> Option<(String, String)> {
            let start = match i.checked_sub(1) {
                Some(before) => *self.ends.get(before)?,
                None => 0,
            };
            let end = *self.ends.get(i)?;
            let bytes = self.bytes((start, end), ahead).ok()?;
            let (head, rest) = bytes.split_at_checked(4)?;
            let text_len = u32::from_le_bytes(head.try_into().ok()?) as usize;
            let (concept, owners) = rest.split_at_checked(text_len)?;
            let text = |bytes: &[u8]| std::str::from_utf8(bytes).ok().map(str::to_string);
            Some((text(concept)?, text(owners)?))
        };
        read().unwrap_or_else(|| {
            self.unreadable
                .store(true, std::sync::atomic::Ordering::Relaxed);
            Default::default()
        })
    }

    /// Bytes `from..to` of the file: from what `ahead` read last, or read now with
    /// [`BookAhead::AHEAD`] more after them.
    fn bytes<'b>(
        &self,
        (from, to): (u64, u64),
        ahead: Option<&'b mut BookAhead>,
    ) -> io::Result<Cow<'b, [u8]>> {
        let len = usize::try_from(to.saturating_sub(from)).map_err(|_| io::ErrorKind::InvalidData)?;
        let Some(ahead) = ahead else {
            let mut bytes = vec![0; len];
            crate::file_at::read_at(&self.file, from, &mut bytes)?;
            return Ok(Cow::Owned(bytes));
        };
        let held = ahead.from..ahead.from + ahead.bytes.len() as u64;
        if !(held.contains(&from) && to <= held.end) {
            let file_end = self.ends.last().copied().unwrap_or(0);
            let upto = to.saturating_add(BookAhead::AHEAD).min(file_end).max(to);
            let want = usize::try_from(upto - from).map_err(|_| io::ErrorKind::InvalidData)?;
            ahead.bytes.resize(want, 0);
            ahead.from = from;
            if let Err(e) = crate::file_at::read_at(&self.file, from, &mut ahead.bytes) {
                ahead.bytes.clear();
                return Err(e);
            }
        }
        let at = (from - ahead.from) as usize;
        Ok(Cow::Borrowed(&ahead.bytes[at..at + len]))
    }
}

/// What a report read last of a book's texts in the temporary file, for one that reads many
/// concepts in the book's order (a JSON report reads every one): the next concepts' texts
/// are read with each, not each with a read of its own.
#[derive(Default)]
pub struct BookAhead {
    from: u64,
    bytes: Vec<u8>,
}

impl BookAhead {
    /// Bytes read past a concept's: a few hundred concepts' worth.
    const AHEAD: u64 = 64 << 10;
}

impl OwnersBook {
    /// The book of `concepts` and the interned owners' `names`: its texts written out past
    /// `BOOK_IN_MEMORY` bytes of them (kept in memory when they cannot be).
    pub fn new(concepts: SharedConcepts, names: Interner) -> OwnersBook {
        OwnersBook::with_limit(concepts, names, BOOK_IN_MEMORY)
    }

    /// [`Self::new`], the texts written out past `limit` bytes (tests write a few).
    fn with_limit(concepts: SharedConcepts, names: Interner, limit: usize) -> OwnersBook {
        let mut book = OwnersBook {
            concepts,
            names,
            written: None,
        };
        if book.concepts.text_len() > limit {
            // what cannot be written stays in memory, with the same answers
            if let Ok(texts) = BookTexts::write(&book) {
                book.written = Some(texts);
                book.concepts.let_go_of_texts();
            }
        }
        book
    }

    /// The `i`th concept, and its owners' names in the order first seen (`a, b, c`).
    pub fn concept(&self, i: usize) -> (Cow<'_, str>, String) {
        self.concept_through(i, None)
    }

    /// [`Self::concept`], read back through `ahead` when the texts are written out.
    pub fn concept_through(
        &self,
        i: usize,
        ahead: Option<&mut BookAhead>,
    ) -> (Cow<'_, str>, String) {
        match &self.written {
            Some(texts) => {
                let (concept, owners) = texts.read(i, ahead);
                (Cow::Owned(concept), owners)
            }
            None => {
                let (concept, owners) = self.held_concept(i);
                (Cow::Borrowed(concept), owners)
            }
        }
    }

    /// [`Self::concept`] from the texts held in memory.
    fn held_concept(&self, i: usize) -> (&str, String) {
        let (concept, owners) = self.concepts.get(i);
        let mut names = String::new();
        self.owner_names(i, owners, |name| names.push_str(name));
        (concept, names)
    }

    /// The names of `owners`, the owners of the `i`th concept, to `put` in turn as a report
    /// writes them (`a`, `, `, `b`), while the texts are held.
    fn owner_names<'b>(&'b self, i: usize, owners: &[Owner], mut put: impl FnMut(&'b str)) {
        for (n, o) in owners.iter().enumerate() {
            if n > 0 {
                put(", ");
            }
            put(self.concepts.owner_name(i, o.owner, &self.names));
        }
    }

    /// Some concept's texts could not be read back from the temporary file: a report that
    /// named it named it empty.
    pub fn unreadable(&self) -> bool {
        self.written.as_ref().is_some_and(|texts| {
            texts.unreadable.load(std::sync::atomic::Ordering::Relaxed)
        })
    }
}

#[cfg(test)]
impl OwnersBook {
    /// The book of `concepts`, each with its owners in the order first seen (one record an
    /// owner), as settling makes it.
    pub fn of(concepts: &[(&str, &[&str])]) -> OwnersBook {
        use super::super::table::hash;
        let mut held = ConceptOwners::default();
        let mut who = 0;
        for (concept, owners) in concepts {
            for owner in owners.iter() {
                held.note(concept, hash(concept), Some((owner, hash(owner))), who);
                who += 1;
            }
        }
        let (concepts, _, names) = held.settle(&[]).expect("in memory");
        OwnersBook::new(concepts, names)
    }
}

impl std::fmt::Debug for OwnersBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnersBook")
            .field("concepts", &self.concepts.len())
            .finish()
    }
}

/// One partition's concepts with more than one owner: each concept's text, and by the same
/// index where its owners end in `owners`.
#[derive(Debug, Default)]
struct PartShared {
    texts: Names,
    ends: Vec<u32>,
    owners: Vec<Owner>,
    /// The owners kept as text (see [`OWNER_TEXT`]).
    owner_texts: Names,
}

impl ConceptOwners {
    /// Room for about `records` more concepts of `bytes` in all (no more than are held
    /// before they go to the temporary file).
    pub fn reserve(&mut self, records: usize, bytes: usize) {
        let text = bytes / records.max(1);
        let kept = records.min(self.spill.limit() / (text + HELD_BYTES) + 1);
        let bytes = text * kept;
        for part in partitions(&mut self.parts) {
            part.held.reserve(share(kept));
            part.texts.reserve(share(kept), share(bytes));
        }
    }

    /// Note that the record `who` holds `concept` (`hash`: its [`super::super::table::hash`]),
    /// owned by `owner` (its text and hash) when it names one.
    pub fn note(&mut self, concept: &str, hash: u64, owner: Option<(&str, u64)>, who: u32) {
        let part = &mut partitions(&mut self.parts)[part_of(hash)];
        let (owner, owner_bytes) = match owner {
            None => (NO_OWNER, 0),
            Some((text, hash)) => {
                let interned = match self.owners.len() < self.interned {
                    true => Some(self.owners.intern_hashed(text, hash).0),
                    false => self.owners.find_hashed(text, hash),
                };
                match interned {
                    Some(i) => (small(i), 0),
                    None => {
                        self.owners_as_text = true;
                        (keep_owner_text(&mut part.owner_texts, text), text.len())
                    }
                }
            }
        };
        part.texts.push(concept);
        part.held.push(Held {
            key: key_of(hash),
            owner,
            who,
        });
        if self.spill.hold(concept.len() + owner_bytes + HELD_BYTES) {
            self.write_out();
        }
    }

    /// The bytes of concepts held in memory that could go to the temporary file.
    pub fn held(&self) -> usize {
        self.spill.held()
    }

    /// Whether some owner was kept as text: the store names more owners than [`INTERNED`],
    /// and the concepts with several owners may keep up to one owner's text a record.
    pub fn owners_as_text(&self) -> bool {
        self.owners_as_text
    }

    /// Move every partition's concepts to the temporary file. What cannot be written stays
    /// held, and so does everything from then on.
    pub fn write_out(&mut self) {
        if let Err(_unwritable) = self.write_runs() {
            self.spill.stop();
        }
    }

    /// [`Self::write_out`]: a run is a partition's heads, then its texts and its owner texts
    /// straight from its arenas.
    fn write_runs(&mut self) -> io::Result<()> {
        for (p, part) in self.parts.iter_mut().enumerate() {
            if part.held.is_empty() {
                continue;
            }
            self.heads.clear();
            for (i, held) in part.held.iter().enumerate() {
                let len = part.texts.bytes(i).len() as u32;
                let owner_len = text_owner(held.owner)
                    .map_or(0, |at| part.owner_texts.bytes(at).len() as u32);
                for word in [held.key, held.owner, held.who, len, owner_len] {
                    self.heads.extend_from_slice(&word.to_le_bytes());
                }
            }
            let (count, texts) = (part.held.len(), part.texts.text());
            let owner_texts = part.owner_texts.text();
            let held = texts.len() + owner_texts.len() + count * HELD_BYTES;
            self.spill
                .write(p, count as u32, held, &[&self.heads, texts, owner_texts])?;
            part.held.clear();
            release_pages(&part.held);
            part.texts.clear();
            part.owner_texts.clear();
        }
        Ok(())
    }

    /// The text of the concept whose hash is `hash`, if a record holds it. Fails only when
    /// the temporary file cannot be read back.
    pub fn text(&self, hash: u64) -> io::Result<Option<String>> {
        let p = part_of(hash);
        if let Some(text) = self.parts.get(p).and_then(|part| part.text(hash)) {
            return Ok(Some(text.to_string()));
        }
        let mut buf = Vec::new();
        for &run in self.spill.runs(p) {
            let mut part = Part::default();
            part.read_run(&self.spill, run, &mut buf)?;
            if let Some(text) = part.text(hash) {
                return Ok(Some(text.to_string()));
            }
        }
        Ok(None)
    }

    /// The concepts with more than one owner, by concept; for each of `asked`, whether a
    /// record holds it; and the owners' names, by the numbers [`SharedConcepts`] gives them. One
    /// partition at a time, on every core, each let go once matched up, so the concepts and
    /// what is made from them are never all kept at once.
    /// Fails only when the temporary file cannot be read back.
    pub fn settle(self, asked: &[String]) -> io::Result<(SharedConcepts, Vec<bool>, Interner)> {
        let mut asked_parts: Vec<Vec<(u32, usize)>> = vec![Vec::new(); PARTS];
        for (n, concept) in asked.iter().enumerate() {
            let hash = super::super::table::hash(concept);
            asked_parts[part_of(hash)].push((key_of(hash), n));
        }
        let mut parts = self.parts;
        parts.resize_with(PARTS, Part::default);
        let spill = self.spill;
        let settle = |((p, part), asked_here): ((usize, Part), Vec<(u32, usize)>)| {
            let part = part.after_runs(&spill, p)?;
            Ok(part.settle(&asked_here, asked))
        };
        let parts: Vec<_> = parts.into_iter().enumerate().zip(asked_parts).collect();
        // With owners kept as text, what a partition makes can take as much as it held: one
        // at a time, the next takes the memory the last let go, where on every core each
        // core's allocator kept its own and the peak took both (bench/NOTES.md).
        let per_part: Vec<(PartShared, Vec<usize>)> = match self.owners_as_text {
            true => parts.into_iter().map(settle).collect::<io::Result<_>>()?,
            false => parts.into_par_iter().map(settle).collect::<io::Result<_>>()?,
        };
        drop(spill);
        let mut held = vec![false; asked.len()];
        for (_, part_held) in &per_part {
            for &n in part_held {
                held[n] = true;
            }
        }
        let parts: Vec<PartShared> = per_part.into_iter().map(|(part, _)| part).collect();
        let order = in_text_order(&parts);
        let shared = SharedConcepts { parts, order };
        Ok((shared, held, self.owners))
    }
}

/// Every shared concept sorted by its text, as (partition, place): each partition's come
/// sorted, and are merged (a text is in one partition only, so no two are equal). The texts
/// are cut into ranges at texts of the largest partition, found in every partition by a
/// binary search, and the ranges merged on every core; within a range each partition's texts
/// are read in order.
fn in_text_order(parts: &[PartShared]) -> Vec<(u32, u32)> {
    let text = |p: usize, i: usize| parts[p].texts.bytes(i);
    let largest = (0..parts.len()).max_by_key(|&p| parts[p].ends.len());
    let Some(largest) = largest else {
        return Vec::new();
    };
    let ranges = 4 * rayon::current_num_threads();
    let len = parts[largest].ends.len();
    // the texts that begin each range but the first, and where each partition reaches them
    let cuts: Vec<&[u8]> = (1..ranges)
        .map(|r| r * len / ranges)
        .filter(|&i| i > 0)
        .map(|i| text(largest, i))
        .collect();
    let reach: Vec<Vec<usize>> = (0..parts.len())
        .map(|p| {
            let count = parts[p].ends.len();
            let at = |cut: &[u8]| partition_point(count, |i| text(p, i) < cut);
            std::iter::once(0)
                .chain(cuts.iter().map(|&cut| at(cut)))
                .chain([count])
                .collect()
        })
        .collect();
    let span = |r: usize, p: usize| reach[p][r]..reach[p][r + 1];
    // each range merged straight into its place in the one list
    let mut order = vec![(0, 0); parts.iter().map(|part| part.ends.len()).sum()];
    let mut places = Vec::with_capacity(cuts.len() + 1);
    let mut rest = order.as_mut_slice();
    for r in 0..=cuts.len() {
        let (place, after) = rest.split_at_mut((0..parts.len()).map(|p| span(r, p).len()).sum());
        places.push((r, place));
        rest = after;
    }
    places.into_par_iter().for_each(|(r, place)| {
        let mut heads: BinaryHeap<Reverse<(&[u8], usize, usize)>> = (0..parts.len())
            .filter(|&p| !span(r, p).is_empty())
            .map(|p| Reverse((text(p, span(r, p).start), p, span(r, p).start)))
            .collect();
        for slot in place {
            let Some(Reverse((_, p, i))) = heads.pop() else { break };
            *slot = (p as u32, i as u32);
            if i + 1 < span(r, p).end {
                heads.push(Reverse((text(p, i + 1), p, i + 1)));
            }
        }
    });
    order
}

/// The first of `0..count` for which `before` is false, `before` being true up to some point
/// and false after it.
fn partition_point(count: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, count);
    while low < high {
        let mid = low + (high - low) / 2;
        match before(mid) {
            true => low = mid + 1,
            false => high = mid,
        }
    }
    low
}

impl Part {
    /// Partition `p` whole, in store order: its runs in the temporary file, then what it
    /// holds in memory (`self`).
    fn after_runs(self, spill: &Spill, p: usize) -> io::Result<Part> {
        let runs = spill.runs(p);
        if runs.is_empty() {
            return Ok(self);
        }
        let count = spill.count(p) + self.held.len();
        // the runs' texts: their concepts' and their owners' kept as text
        let texts = runs
            .iter()
            .map(|r| (r.len as usize).saturating_sub(r.count as usize * ENTRY_HEAD));
        let bytes = texts.sum::<usize>() + self.texts.text_len();
        let mut part = Part::default();
        part.held.reserve_exact(count);
        part.texts.reserve(count, bytes);
        let mut buf = Vec::new();
        for &run in runs {
            part.read_run(spill, run, &mut buf)?;
        }
        for (i, &held) in self.held.iter().enumerate() {
            part.texts.push(self.texts.get(i));
            let owner = text_owner(held.owner).map(|at| self.owner_texts.get(at));
            part.push_held(held, owner);
        }
        Ok(part)
    }

    /// Add `held`, its owner's text given when kept as text (placed anew among this
    /// partition's owner texts).
    fn push_held(&mut self, mut held: Held, owner_text: Option<&str>) {
        if let Some(text) = owner_text {
            held.owner = keep_owner_text(&mut self.owner_texts, text);
        }
        self.held.push(held);
    }

    /// Add the concepts of one run in the temporary file (`buf`: room to read it into).
    fn read_run(&mut self, spill: &Spill, run: Run, buf: &mut Vec<u8>) -> io::Result<()> {
        let corrupt = || io::Error::new(io::ErrorKind::InvalidData, "a torn concept run");
        spill.read(run, buf)?;
        let heads = (run.count as usize).checked_mul(ENTRY_HEAD).ok_or_else(corrupt)?;
        let (heads, texts) = buf.split_at_checked(heads).ok_or_else(corrupt)?;
        let word = |head: &[u8], i: usize| {
            let bytes = head.get(i * 4..i * 4 + 4).unwrap_or_default();
            u32::from_le_bytes(bytes.try_into().unwrap_or_default())
        };
        let heads = heads.chunks_exact(ENTRY_HEAD);
        let concepts_len = heads.clone().map(|head| word(head, 3) as usize).sum();
        let (mut texts, mut owner_texts) =
            texts.split_at_checked(concepts_len).ok_or_else(corrupt)?;
        // a text of `len` bytes from the front of `texts`
        fn take<'t>(texts: &mut &'t [u8], len: u32) -> Option<&'t str> {
            let (text, rest) = texts.split_at_checked(len as usize)?;
            *texts = rest;
            std::str::from_utf8(text).ok()
        }
        for head in heads {
            let text = take(&mut texts, word(head, 3)).ok_or_else(corrupt)?;
            self.texts.push(text);
            let held = Held {
                key: word(head, 0),
                owner: word(head, 1),
                who: word(head, 2),
            };
            let owner = match text_owner(held.owner) {
                Some(_) => Some(take(&mut owner_texts, word(head, 4)).ok_or_else(corrupt)?),
                None => None,
            };
            self.push_held(held, owner);
        }
        Ok(())
    }

    /// The text of the concept whose hash is `hash`, if this partition holds it.
    fn text(&self, hash: u64) -> Option<&str> {
        let key = key_of(hash);
        (0..self.held.len())
            .filter(|&i| self.held[i].key == key)
            .map(|i| self.texts.get(i))
            .find(|text| super::super::table::hash(text) == hash)
    }

    /// This partition's concepts with more than one owner, and which of the concepts asked
    /// here (`asked_here`: key and index into `asked`) it holds.
    fn settle(self, asked_here: &[(u32, usize)], asked: &[String]) -> (PartShared, Vec<usize>) {
        // a concept is known by the index of its first record here; the table and `first`
        // are sized by this partition's records, and `more` holds at most one entry a
        // record: all linear in the partition
        let mut table = Slots::with_room(self.held.len());
        // two owners are one when interned as one, or kept as the same text
        let same_owner = |a: u32, b: u32| match (text_owner(a), text_owner(b)) {
            (Some(a), Some(b)) => same(self.owner_texts.bytes(a), self.owner_texts.bytes(b)),
            _ => a == b,
        };
        let mut first: Vec<Option<Owner>> = vec![None; self.held.len()];
        // each owner of a concept other than its first, in store order, with its concept
        let mut more: Vec<(usize, Owner)> = Vec::new();
        for (at, held) in self.held.iter().enumerate() {
            let text = self.texts.bytes(at);
            let (concept, _) = table.find_or_insert(spread(held.key), at, |other| {
                same(self.texts.bytes(other), text)
            });
            if held.owner == NO_OWNER {
                continue;
            }
            let owner = Owner {
                owner: held.owner,
                who: held.who,
            };
            match first[concept] {
                None => first[concept] = Some(owner),
                Some(f) if same_owner(f.owner, owner.owner) => {}
                Some(_) => more.push((concept, owner)),
            }
        }
        // by concept, each concept's owners still in store order (a stable sort), each owner
        // once: the first record where it owns the concept
        more.sort_by_key(|&(concept, _)| concept);
        // each shared concept and where its owners lie in `owners`
        let mut shared_here: Vec<(usize, usize, usize)> = Vec::new();
        let mut owners: Vec<Owner> = Vec::new();
        for group in more.chunk_by(|a, b| a.0 == b.0) {
            let concept = group[0].0;
            let Some(first) = first[concept] else {
                continue;
            };
            let start = owners.len();
            owners.push(first);
            for &(_, owner) in group {
                if !owners[start..].iter().any(|o| same_owner(o.owner, owner.owner)) {
                    owners.push(owner);
                }
            }
            shared_here.push((concept, start, owners.len()));
        }
        drop(more);
        // sorted by text here, on this partition's core: the partitions' lists are then
        // merged in order (texts are distinct within a partition)
        shared_here.sort_unstable_by(|a, b| self.texts.bytes(a.0).cmp(self.texts.bytes(b.0)));
        // sized once: what several partitions' lists hold at the end is what they reserved
        let owner_text = |o: &Owner| text_owner(o.owner).map(|at| self.owner_texts.bytes(at).len());
        let (mut owner_texts, mut owner_bytes, mut text_bytes) = (0, 0, 0);
        for &(concept, start, end) in &shared_here {
            text_bytes += self.texts.bytes(concept).len();
            for len in owners[start..end].iter().filter_map(owner_text) {
                (owner_texts, owner_bytes) = (owner_texts + 1, owner_bytes + len);
            }
        }
        let mut shared = PartShared::default();
        shared.owners.reserve_exact(owners.len());
        shared.ends.reserve_exact(shared_here.len());
        shared.texts.reserve(shared_here.len(), text_bytes);
        shared.owner_texts.reserve(owner_texts, owner_bytes);
        for (concept, start, end) in shared_here {
            for &owner in &owners[start..end] {
                // an owner kept as text goes with its concept, placed anew
                let text = text_owner(owner.owner).map(|at| self.owner_texts.get(at));
                let owner = match text {
                    None => owner,
                    Some(text) => Owner {
                        owner: keep_owner_text(&mut shared.owner_texts, text),
                        who: owner.who,
                    },
                };
                shared.owners.push(owner);
            }
            shared.ends.push(small(shared.owners.len()));
            shared.texts.push(self.texts.get(concept));
        }
        let held = asked_here
            .iter()
            .filter(|&&(key, n)| {
                let text = asked[n].as_bytes();
                table
                    .find(spread(key), |at| same(self.texts.bytes(at), text))
                    .is_some()
            })
            .map(|&(_, n)| n)
            .collect();
        (shared, held)
    }
}

/// `value.owners`: one warning per concept with several owners: each names one record per
/// owner, so together they name each record once at most. The concepts are the store's, kept
/// for every check; this check reads their settled owners.
#[derive(Default)]
pub(super) struct Owners;

impl super::ValueCheck for Owners {
    type Facts = ();

    fn warnings(&mut self, store: &mut super::Settled, out: &mut Warnings) {
        let Some(book) = store.owners_book.take() else {
            return;
        };
        let concepts = 0..book.concepts.len();
        let owners = concepts.clone().map(|i| book.concepts.owners(i).len()).sum();
        out.reserve(book.concepts.len(), owners);
        for i in concepts {
            out.push_owners(i, book.concepts.owners(i).iter().map(|o| o.who));
        }
        out.keep_owners(book);
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::table::hash;
    use super::*;

    #[test]
    fn owners_are_listed_in_the_order_first_seen_per_concept() {
        let mut concepts = ConceptOwners::default();
        let held = [
            ("pricing", Some("sales")),
            ("hiring", Some("people")),
            ("pricing", None),
            ("pricing", Some("finance")),
            ("pricing", Some("sales")),
            ("hiring", Some("people")),
            ("budget", None),
            ("pricing", Some("finance")),
            ("hiring", Some("legal")),
        ];
        for (who, (concept, owner)) in held.iter().enumerate() {
            let owner = owner.map(|o| (o, hash(o)));
            concepts.note(concept, hash(concept), owner, who as u32);
        }
        let asked = ["budget", "travel", "hiring"].map(String::from);
        let (shared, held, owner_names) = concepts.settle(&asked).unwrap();
        let shared: Vec<(&str, Vec<(&str, u32)>)> = shared
            .iter()
            .map(|(concept, owners)| {
                let owners = owners
                    .iter()
                    .map(|o| (owner_names.get(o.owner as usize), o.who));
                (concept, owners.collect())
            })
            .collect();
        assert_eq!(
            shared,
            [
                ("hiring", vec![("people", 1), ("legal", 8)]),
                ("pricing", vec![("sales", 0), ("finance", 3)])
            ]
        );
        assert_eq!(held, vec![true, false, true]);
    }

    #[test]
    fn a_written_book_reads_its_texts_back_and_says_when_it_cannot() {
        let held = [("pricing", &["sales", "finance"][..]), ("hiring", &["people", "legal"])];
        let in_memory = OwnersBook::of(&held);
        let (concepts, names) = (in_memory.concepts, in_memory.names);
        let book = OwnersBook::with_limit(concepts, names, 0);
        assert!(book.written.is_some(), "past the limit: written out");
        assert!(book.concepts.text_len() == 0, "texts let go");
        assert_eq!(book.concept(0), ("hiring".into(), "people, legal".to_string()));
        assert_eq!(book.concept(1), ("pricing".into(), "sales, finance".to_string()));
        assert_eq!(book.concepts.owners(1).len(), 2, "owners still held");
        assert!(!book.unreadable());
        let mut ahead = BookAhead::default();
        let read = book.concept_through(1, Some(&mut ahead));
        assert_eq!(read, ("pricing".into(), "sales, finance".to_string()));
        assert!(!book.unreadable());
        let texts = book.written.as_ref().unwrap();
        texts.file.set_len(3).unwrap();
        let read = book.concept_through(0, Some(&mut ahead));
        assert_eq!(read, ("".into(), String::new()), "read again: named empty");
        assert!(book.unreadable(), "and noted");
        assert_eq!(book.concept(1), ("".into(), String::new()));
        assert_eq!(book.concept(9), ("".into(), String::new()), "past the end: empty");
    }

    proptest::proptest! {
        /// The shared concepts of partitions of any sizes (some empty, one much larger), each
        /// sorted, come out merged in text order whatever ranges the merge cuts them into.
        #[test]
        fn partitions_merge_in_text_order(
            texts in proptest::collection::btree_set("[a-e]{0,6}", 0..400),
            into in proptest::collection::vec(0usize..5, 0..400),
        ) {
            let mut parts: Vec<PartShared> = (0..5).map(|_| PartShared::default()).collect();
            // the texts go to partitions in text order, so each partition's are sorted
            for (n, text) in texts.iter().enumerate() {
                let p = into.get(n).copied().unwrap_or(0);
                parts[p].texts.push(text);
                parts[p].ends.push(0);
            }
            let merged: Vec<&str> = in_text_order(&parts)
                .into_iter()
                .map(|(p, i)| parts[p as usize].texts.get(i as usize))
                .collect();
            let sorted: Vec<&str> = texts.iter().map(String::as_str).collect();
            proptest::prop_assert_eq!(merged, sorted);
        }

        /// Matched up by partition, the owners agree with one map of every concept seen: all
        /// in memory and spilling every few concepts, with every owner interned and with
        /// owners past the first few kept as text.
        #[test]
        fn owners_agree_with_a_map_of_every_concept(
            held in proptest::collection::vec(
                ("[abc]{0,2}", proptest::option::of("[xyz]{1,2}")),
                0..60,
            ),
            asked in proptest::collection::vec("[abcd]{0,2}", 0..8),
            limit in 1usize..200,
            interned in 0usize..4,
        ) {
            let mut model: std::collections::BTreeMap<&str, Vec<(&str, u32)>> = Default::default();
            let mut seen = std::collections::HashSet::new();
            for (who, (concept, owner)) in held.iter().enumerate() {
                seen.insert(concept.as_str());
                if let Some(owner) = owner {
                    let owners = model.entry(concept).or_default();
                    if !owners.iter().any(|(o, _)| o == owner) {
                        owners.push((owner, who as u32));
                    }
                }
            }
            let expected: Vec<(&str, Vec<(&str, u32)>)> =
                model.into_iter().filter(|(_, owners)| owners.len() > 1).collect();
            let expected_held: Vec<bool> = asked.iter().map(|c| seen.contains(c.as_str())).collect();
            // all in memory, and in the temporary file a few concepts at a time
            let cases = [usize::MAX, limit].into_iter().flat_map(|limit| {
                [INTERNED, interned].map(|interned| (limit, interned))
            });
            for (limit, interned) in cases {
                let spill = Spill::with_limit(limit);
                let mut concepts = ConceptOwners { spill, interned, ..ConceptOwners::default() };
                for (who, (concept, owner)) in held.iter().enumerate() {
                    let with_hash = owner.as_deref().map(|o| (o, hash(o)));
                    concepts.note(concept, hash(concept), with_hash, who as u32);
                }
                for concept in &seen {
                    let text = concepts.text(hash(concept)).unwrap();
                    proptest::prop_assert_eq!(text.as_deref(), Some(*concept));
                }
                proptest::prop_assert_eq!(concepts.text(hash("absent")).unwrap(), None);
                let (shared, held_asked, owner_names) = concepts.settle(&asked).unwrap();
                let got: Vec<(&str, Vec<(&str, u32)>)> = shared
                    .iter()
                    .enumerate()
                    .map(|(i, (concept, owners))| {
                        let owners = owners
                            .iter()
                            .map(|o| (shared.owner_name(i, o.owner, &owner_names), o.who));
                        (concept, owners.collect())
                    })
                    .collect();
                proptest::prop_assert_eq!(&got, &expected);
                proptest::prop_assert_eq!(&held_asked, &expected_held);
                // the words a report reads, with the texts held and written out
                let words: Vec<(String, String)> = expected
                    .iter()
                    .map(|(concept, owners)| {
                        let names: Vec<&str> = owners.iter().map(|(o, _)| *o).collect();
                        (concept.to_string(), names.join(", "))
                    })
                    .collect();
                let book = OwnersBook::with_limit(shared, owner_names, limit.min(40));
                let read: Vec<(String, String)> = (0..book.concepts.len())
                    .map(|i| {
                        let (concept, owners) = book.concept(i);
                        (concept.into_owned(), owners)
                    })
                    .collect();
                proptest::prop_assert_eq!(&read, &words);
                // read ahead: in order, then back to front with the same block
                let mut ahead = BookAhead::default();
                let order = (0..words.len()).chain((0..words.len()).rev());
                for i in order {
                    let (concept, owners) = book.concept_through(i, Some(&mut ahead));
                    proptest::prop_assert_eq!((concept.into_owned(), owners), words[i].clone());
                }
                proptest::prop_assert!(!book.unreadable());
            }
        }
    }
}
