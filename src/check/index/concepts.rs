//! One owner per concept: every concept a record holds, with its owner, gathered in store
//! order while the records stream past, and matched up once at the end: which concepts have
//! more than one owner (`value.owners`), and which concepts of the register no record holds.
//!
//! Gathered by partition and matched up one partition at a time, in a table that stays in
//! cache, for the reason `ids.rs` gives: a table of every concept looked up as each record
//! comes missed the cache on nearly every record.
//!
//! Memory: per record with a concept, the concept's text and 16 bytes, up to a fixed amount
//! (`Budget::concepts`); past it every partition's concepts go to the temporary file of
//! `spill.rs`, and each partition is read back alone when it is matched up. So however long a
//! store's concepts are, the ones held at once stay under that amount. The owners are
//! interned, up to [`INTERNED`] of them; an owner first seen past that is kept as text beside
//! its concept, counted and spilled with it, so a store with an owner per record holds no
//! more. What settling makes for the report is the book of concepts with several owners
//! (`book.rs`).

use super::super::table::{
    key_of, part_of, partitions, release_pages, share, spread, Interner, Names, Slots, PARTS,
};
use super::book::OwnersBook;
use super::book::{BookMaker, PartShared};
use super::ids::small;
use super::Budget;
use crate::bytes::same;
use crate::spill::{self, Run};
use rayon::prelude::*;
use std::io;

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
pub(super) fn text_owner(owner: u32) -> Option<usize> {
    (owner != NO_OWNER && owner & OWNER_TEXT != 0).then_some((owner & !OWNER_TEXT) as usize)
}

/// Keep an owner's `text` at the end of `texts`: the owner that names it there.
pub(super) fn keep_owner_text(texts: &mut Names, text: &str) -> u32 {
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
    /// Bytes of texts the book of shared concepts holds before they go to a temporary file
    /// (`Budget::book`; fewer in tests).
    book_limit: usize,
    /// Some owner was kept as text (see [`OWNER_TEXT`]).
    owners_as_text: bool,
    /// The bytes the partitions hold (texts and [`HELD_BYTES`] each), and their runs in the
    /// temporary file.
    spill: Spill,
    /// A run's heads, made before it is written.
    heads: Vec<u8>,
}

type Spill = spill::Spill;

impl Default for ConceptOwners {
    fn default() -> Self {
        ConceptOwners::new(&Budget::DEFAULT)
    }
}

/// An owner of a concept, and the first record where it owns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    pub owner: u32,
    pub who: u32,
}

impl ConceptOwners {
    /// No concepts yet, held up to `budget`'s share, the book's texts up to its own.
    pub fn new(budget: &Budget) -> ConceptOwners {
        ConceptOwners {
            parts: Vec::new(),
            owners: Interner::default(),
            interned: INTERNED,
            book_limit: budget.book,
            owners_as_text: false,
            spill: Spill::new(budget.concepts),
            heads: Vec::new(),
        }
    }

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
                let owner_len =
                    text_owner(held.owner).map_or(0, |at| part.owner_texts.bytes(at).len() as u32);
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

    /// No concepts yet, the book's texts written out past `book_limit` bytes of them, and
    /// no more than `interned` owners interned (tests).
    #[cfg(test)]
    pub fn with_limits(book_limit: usize, interned: usize) -> ConceptOwners {
        ConceptOwners {
            book_limit,
            interned,
            ..ConceptOwners::default()
        }
    }

    /// The book of concepts with more than one owner, and for each of `asked`, whether a
    /// record holds it. A partition at a time (on every core when they are small), each let
    /// go once matched up and its share of the book made, so the concepts and what is made
    /// from them are never all kept at once. Fails only when a temporary file cannot be
    /// written or read back.
    pub fn settle(self, asked: &[String]) -> io::Result<(OwnersBook, Vec<bool>)> {
        let mut asked_parts: Vec<Vec<(u32, usize)>> = vec![Vec::new(); PARTS];
        for (n, concept) in asked.iter().enumerate() {
            let hash = super::super::table::hash(concept);
            asked_parts[part_of(hash)].push((key_of(hash), n));
        }
        let mut parts = self.parts;
        parts.resize_with(PARTS, Part::default);
        let spill = self.spill;
        let book = std::sync::Mutex::new(BookMaker::new(self.owners, self.book_limit));
        let settle = |((p, part), asked_here): ((usize, Part), Vec<(u32, usize)>)| {
            let part = part.after_runs(&spill, p)?;
            let (shared, held) = part.settle(&asked_here, asked);
            let mut book = book
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            book.add(p, shared);
            Ok(held)
        };
        let parts: Vec<_> = parts.into_iter().enumerate().zip(asked_parts).collect();
        // With owners kept as text, what a partition makes can take as much as it held; with
        // concepts in the temporary file (long ones, or many), each partition read back is
        // large, and so is its share of the book. One at a time, the next takes the memory the
        // last let go, where on every core each core's allocator kept its own and the peak
        // took both (bench/NOTES.md).
        let one_at_a_time = self.owners_as_text || spill.written() > 0;
        let per_part: Vec<Vec<usize>> = match one_at_a_time {
            true => parts.into_iter().map(settle).collect::<io::Result<_>>()?,
            false => parts
                .into_par_iter()
                .map(settle)
                .collect::<io::Result<_>>()?,
        };
        drop(spill);
        let mut held = vec![false; asked.len()];
        for part_held in &per_part {
            for &n in part_held {
                held[n] = true;
            }
        }
        let book = book
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Ok((book.finish()?, held))
    }
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
        let heads = (run.count as usize)
            .checked_mul(ENTRY_HEAD)
            .ok_or_else(corrupt)?;
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
                if !owners[start..]
                    .iter()
                    .any(|o| same_owner(o.owner, owner.owner))
                {
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

#[cfg(test)]
mod tests {
    use super::super::super::table::hash;
    use super::super::book::BookAhead;
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
        let (book, held) = concepts.settle(&asked).unwrap();
        assert_eq!(
            book.listed(),
            [
                ("hiring".into(), "people, legal".into(), vec![1, 8]),
                ("pricing".into(), "sales, finance".into(), vec![0, 3])
            ]
        );
        assert_eq!(held, vec![true, false, true]);
    }

    proptest::proptest! {
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
            // each concept, its owners' names as a report writes them, their first records
            let listed: Vec<(String, String, Vec<u32>)> = expected
                .iter()
                .map(|(concept, owners)| {
                    let names: Vec<&str> = owners.iter().map(|(o, _)| *o).collect();
                    let who = owners.iter().map(|&(_, who)| who).collect();
                    (concept.to_string(), names.join(", "), who)
                })
                .collect();
            // all in memory, and in the temporary files a few concepts at a time
            let cases = [usize::MAX, limit].into_iter().flat_map(|limit| {
                [INTERNED, interned].map(|interned| (limit, interned))
            });
            for (limit, interned) in cases {
                // from every partition written out (0) to a few held beside the runs
                for book_limit in [usize::MAX, limit % 8] {
                    let spill = Spill::new(limit);
                    let mut concepts =
                        ConceptOwners { spill, interned, book_limit, ..ConceptOwners::default() };
                    for (who, (concept, owner)) in held.iter().enumerate() {
                        let with_hash = owner.as_deref().map(|o| (o, hash(o)));
                        concepts.note(concept, hash(concept), with_hash, who as u32);
                    }
                    for concept in &seen {
                        let text = concepts.text(hash(concept)).unwrap();
                        proptest::prop_assert_eq!(text.as_deref(), Some(*concept));
                    }
                    proptest::prop_assert_eq!(concepts.text(hash("absent")).unwrap(), None);
                    let (book, held_asked) = concepts.settle(&asked).unwrap();
                    proptest::prop_assert_eq!(&book.listed(), &listed);
                    proptest::prop_assert_eq!(&held_asked, &expected_held);
                    // read ahead: in order, then back to front with the same block
                    let mut ahead = BookAhead::default();
                    let order = (0..listed.len()).chain((0..listed.len()).rev());
                    for i in order {
                        let (concept, owners) = book.concept_through(i, Some(&mut ahead));
                        proptest::prop_assert_eq!(concept, listed[i].0.as_str());
                        proptest::prop_assert_eq!(owners, listed[i].1.as_str());
                    }
                    proptest::prop_assert!(!book.unreadable());
                }
            }
        }
    }
}
