//! The book of concepts with several owners, as `owners.rs` settles it: what the
//! `value.owners` warnings are read from when a report writes them, their texts in memory or,
//! past a fixed amount, in a temporary file of their own.

use super::super::table::{Interner, Names};
use super::owners::{text_owner, Owner};
use rayon::prelude::*;
use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;

/// The concepts with more than one owner, by concept text, each with its owners in the
/// order first seen: each partition's texts and owners as settling made them, and the order
/// of the texts across partitions, not a `String` and a `Vec` a concept (a messy store has
/// one such concept in four records), nor the texts copied once more into that order.
#[derive(Debug, Default)]
pub struct SharedConcepts {
    /// Each partition's shared concepts (see `PartShared`) ...
    pub(super) parts: Vec<PartShared>,
    /// ... and in the order of their texts, the partition and the concept's place there.
    pub(super) order: Vec<(u32, u32)>,
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
    pub(super) fn owner_name<'b>(&'b self, i: usize, owner: u32, names: &'b Interner) -> &'b str {
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
        let len =
            usize::try_from(to.saturating_sub(from)).map_err(|_| io::ErrorKind::InvalidData)?;
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
    pub(super) fn with_limit(
        concepts: SharedConcepts,
        names: Interner,
        limit: usize,
    ) -> OwnersBook {
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
        self.written
            .as_ref()
            .is_some_and(|texts| texts.unreadable.load(std::sync::atomic::Ordering::Relaxed))
    }
}

#[cfg(test)]
impl OwnersBook {
    /// The book of `concepts`, each with its owners in the order first seen (one record an
    /// owner), as settling makes it.
    pub fn of(concepts: &[(&str, &[&str])]) -> OwnersBook {
        use super::super::table::hash;
        let mut held = super::owners::ConceptOwners::default();
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
pub(super) struct PartShared {
    pub(super) texts: Names,
    pub(super) ends: Vec<u32>,
    pub(super) owners: Vec<Owner>,
    /// The owners kept as text (see [`OWNER_TEXT`]).
    pub(super) owner_texts: Names,
}

/// Every shared concept sorted by its text, as (partition, place): each partition's come
/// sorted, and are merged (a text is in one partition only, so no two are equal). The texts
/// are cut into ranges at texts of the largest partition, found in every partition by a
/// binary search, and the ranges merged on every core; within a range each partition's texts
/// are read in order.
pub(super) fn in_text_order(parts: &[PartShared]) -> Vec<(u32, u32)> {
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
            let Some(Reverse((_, p, i))) = heads.pop() else {
                break;
            };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_book_reads_its_texts_back_and_says_when_it_cannot() {
        let held = [
            ("pricing", &["sales", "finance"][..]),
            ("hiring", &["people", "legal"]),
        ];
        let in_memory = OwnersBook::of(&held);
        let (concepts, names) = (in_memory.concepts, in_memory.names);
        let book = OwnersBook::with_limit(concepts, names, 0);
        assert!(book.written.is_some(), "past the limit: written out");
        assert!(book.concepts.text_len() == 0, "texts let go");
        assert_eq!(
            book.concept(0),
            ("hiring".into(), "people, legal".to_string())
        );
        assert_eq!(
            book.concept(1),
            ("pricing".into(), "sales, finance".to_string())
        );
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
        assert_eq!(
            book.concept(9),
            ("".into(), String::new()),
            "past the end: empty"
        );
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
    }
}
