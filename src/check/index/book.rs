//! The book of concepts with several owners, made a partition at a time as `concepts.rs`
//! settles them: what the `value.owners` warnings are read from when a report writes them,
//! their texts in memory or, past a fixed amount, in a temporary file of their own (written
//! while the book is made, never held whole).

use super::super::table::{Interner, Names};
use super::concepts::{text_owner, Owner};
use crate::spill::{self, TempFile};
use rayon::prelude::*;
use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufWriter, Write};

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

    /// The owners of the `i`th concept (empty past the end): kept in memory whatever
    /// happens to the texts.
    pub fn owners(&self, i: usize) -> &[Owner] {
        self.placed(i)
            .map_or(&[][..], |(part, at)| part.owners_at(at))
    }

    /// The bytes of the concepts' texts and of the owners' kept as text.
    #[cfg(test)]
    fn text_len(&self) -> usize {
        self.parts.iter().map(PartShared::text_len).sum()
    }
}

/// The concepts with several owners and the owners' names: what the `value.owners` warnings
/// are read from when a report writes them. Kept whole, as settling made it, rather than
/// written out as a text a warning (a messy store has a quarter of a million); past
/// `Budget::book` bytes of texts, the texts go to a temporary file of their own and each
/// warning's words are read back from it as the report writes them.
#[derive(Default)]
pub struct OwnersBook {
    pub concepts: SharedConcepts,
    pub names: Interner,
    /// The texts, once written out (see [`BookTexts`]).
    written: Option<BookTexts>,
}

/// A book's texts in a temporary file: each concept's text and its owners' names as a report
/// writes them (`a, b, c`), one concept after the other in the book's order, each read back
/// when a warning is written. What stays in memory is where each concept's ends.
struct BookTexts {
    file: TempFile,
    /// Where each concept's bytes end: a concept's are its text's length (4 bytes), its
    /// text, then its owners' names.
    ends: Vec<u64>,
    /// Some concept could not be read back: a report named it empty.
    unreadable: std::sync::atomic::AtomicBool,
}

impl BookTexts {
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
            crate::file_at::read_at(self.file.file(), from, &mut bytes)?;
            return Ok(Cow::Owned(bytes));
        };
        let held = ahead.from..ahead.from + ahead.bytes.len() as u64;
        if !(held.contains(&from) && to <= held.end) {
            let file_end = self.ends.last().copied().unwrap_or(0);
            let upto = to.saturating_add(BookAhead::AHEAD).min(file_end).max(to);
            let want = usize::try_from(upto - from).map_err(|_| io::ErrorKind::InvalidData)?;
            ahead.bytes.resize(want, 0);
            ahead.from = from;
            if let Err(e) = crate::file_at::read_at(self.file.file(), from, &mut ahead.bytes) {
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
        let mut names = String::new();
        let Some((part, at)) = self.concepts.placed(i) else {
            return ("", names);
        };
        part.owner_names(at, &self.names, |name| names.push_str(name));
        (part.texts.get(at), names)
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
        OwnersBook::of_past(concepts, super::Budget::DEFAULT.book)
    }

    /// [`Self::of`], its texts written out past `limit` bytes of them.
    fn of_past(concepts: &[(&str, &[&str])], limit: usize) -> OwnersBook {
        use super::super::table::hash;
        let mut held = super::concepts::ConceptOwners::with_limits(limit, usize::MAX);
        let mut who = 0;
        for (concept, owners) in concepts {
            for owner in owners.iter() {
                held.note(concept, hash(concept), Some((owner, hash(owner))), who);
                who += 1;
            }
        }
        held.settle(&[]).expect("in memory").0
    }

    /// Each concept, its owners' names as a report writes them (`a, b`), and the records
    /// where each first owns it.
    pub fn listed(&self) -> Vec<(String, String, Vec<u32>)> {
        (0..self.concepts.len())
            .map(|i| {
                let (concept, names) = self.concept(i);
                let who = self.concepts.owners(i).iter().map(|o| o.who).collect();
                (concept.into_owned(), names, who)
            })
            .collect()
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

impl PartShared {
    /// The owners of the concept at `at` (empty past the end).
    fn owners_at(&self, at: usize) -> &[Owner] {
        let start = at.checked_sub(1).map_or(0, |before| self.ends[before]) as usize;
        let end = self.ends.get(at).map_or(start, |&end| end as usize);
        self.owners.get(start..end).unwrap_or_default()
    }

    /// The name of `owner`, an owner of one of this partition's concepts: interned in
    /// `names`, or kept as text here.
    fn owner_name<'b>(&'b self, owner: u32, names: &'b Interner) -> &'b str {
        match text_owner(owner) {
            None => names.get(owner as usize),
            Some(at) => self.owner_texts.get(at),
        }
    }

    /// The names of the owners of the concept at `at`, to `put` in turn as a report writes
    /// them (`a`, `, `, `b`), while the texts are held.
    fn owner_names<'b>(&'b self, at: usize, names: &'b Interner, mut put: impl FnMut(&'b str)) {
        for (n, o) in self.owners_at(at).iter().enumerate() {
            if n > 0 {
                put(", ");
            }
            put(self.owner_name(o.owner, names));
        }
    }

    /// The bytes of the concepts' texts and of the owners' kept as text.
    fn text_len(&self) -> usize {
        self.texts.text_len() + self.owner_texts.text_len()
    }

    /// Let go of the texts (once written out): only the owners are read from here after.
    fn let_go_of_texts(&mut self) {
        (self.texts, self.owner_texts) = Default::default();
    }
}

/// A text's length as the book's files keep it before the text: 4 bytes, little-endian.
fn len_prefix(text: &[u8]) -> io::Result<[u8; 4]> {
    let len = u32::try_from(text.len()).map_err(|_| io::ErrorKind::InvalidInput)?;
    Ok(len.to_le_bytes())
}

/// The book made a partition at a time, as settling gives them (from any core, in any
/// order). Each partition's texts are held until the texts held pass the limit; then every
/// partition held goes to a temporary file as a run, its concepts in its order (by text),
/// and its texts are let go. Finished, the runs and the partitions still held are merged
/// into the book's texts in text order ([`BookTexts`]).
///
/// Why: a store with long owners on every record, or long concepts, makes a book larger
/// than all the concepts the settle holds at once, and made whole in memory before it was
/// written out, it took a check past its bound (bench/NOTES.md). Memory now: at most `limit`
/// bytes of texts, plus the partition being added; the owners and where they end, as
/// before; and while merging, a block of [`RUN_BLOCK`] a partition.
pub(super) struct BookMaker {
    names: Interner,
    limit: usize,
    /// By partition, as added (the ones written out without their texts).
    parts: Vec<PartShared>,
    runs: Option<Runs>,
    /// A run could not be written: what is held from then on stays held.
    stopped: bool,
    /// A concept's owners' names, joined before they are written.
    names_buf: Vec<u8>,
}

/// Partitions' texts in a temporary file while the book is made: each concept as its text's
/// length and its owners' names' length (4 bytes each), then the two.
struct Runs {
    /// Each run is flushed whole before its partition's texts are let go.
    file: BufWriter<TempFile>,
    len: u64,
    /// By partition, where its run lies (none: held).
    spans: Vec<Option<(u64, u64)>>,
}

/// Bytes read at a time of each run while merging.
const RUN_BLOCK: usize = 64 << 10;
/// Bytes the runs and the book's texts are buffered in on their way to their files.
const WRITE_BUFFER: usize = 1 << 20;

impl BookMaker {
    /// No partitions yet; the owners' interned `names`; texts written out past `limit`
    /// bytes held.
    pub(super) fn new(names: Interner, limit: usize) -> BookMaker {
        BookMaker {
            names,
            limit,
            parts: Vec::new(),
            runs: None,
            stopped: false,
            names_buf: Vec::new(),
        }
    }

    /// Add partition `p`'s concepts with several owners.
    pub(super) fn add(&mut self, p: usize, part: PartShared) {
        if self.parts.len() <= p {
            self.parts.resize_with(p + 1, PartShared::default);
        }
        self.parts[p] = part;
        let held: usize = self.parts.iter().map(PartShared::text_len).sum();
        if held > self.limit && !self.stopped {
            self.write_held();
        }
    }

    /// Write every partition held with texts as a run, and let its texts go.
    fn write_held(&mut self) {
        for p in 0..self.parts.len() {
            if self.parts[p].text_len() == 0 {
                continue;
            }
            if let Err(_unwritable) = self.write_run(p) {
                self.stopped = true;
                return;
            }
            self.parts[p].let_go_of_texts();
        }
    }

    /// Write partition `p`'s concepts and their owners' names as a run.
    fn write_run(&mut self, p: usize) -> io::Result<()> {
        let runs = match &mut self.runs {
            Some(runs) => runs,
            None => self.runs.insert(Runs {
                file: BufWriter::with_capacity(WRITE_BUFFER, spill::temp_file()?),
                len: 0,
                spans: Vec::new(),
            }),
        };
        let (part, names) = (&self.parts[p], &mut self.names_buf);
        let from = runs.len;
        for at in 0..part.ends.len() {
            let concept = part.texts.bytes(at);
            names.clear();
            part.owner_names(at, &self.names, |name| {
                names.extend_from_slice(name.as_bytes())
            });
            runs.file.write_all(&len_prefix(concept)?)?;
            runs.file.write_all(&len_prefix(names)?)?;
            runs.file.write_all(concept)?;
            runs.file.write_all(names)?;
            runs.len += (8 + concept.len() + names.len()) as u64;
        }
        runs.file.flush()?;
        if runs.spans.len() <= p {
            runs.spans.resize(p + 1, None);
        }
        runs.spans[p] = Some((from, runs.len));
        Ok(())
    }

    /// The book: held whole when no partition went to the temporary file, else its texts
    /// merged into a file of their own. Fails only when a temporary file cannot be written
    /// or read back.
    pub(super) fn finish(mut self) -> io::Result<OwnersBook> {
        let (order, written) = match self.runs.take() {
            None => (in_text_order(&self.parts), None),
            Some(runs) => {
                // every run was flushed whole; what a run that failed left is not read
                let (file, _unwritten) = runs.file.into_parts();
                let (order, texts) = self.merge(file.file(), &runs.spans)?;
                self.parts.iter_mut().for_each(PartShared::let_go_of_texts);
                (order, Some(texts))
            }
        };
        Ok(OwnersBook {
            concepts: SharedConcepts {
                parts: self.parts,
                order,
            },
            names: self.names,
            written,
        })
    }

    /// Every partition's concepts, from its run or held, merged by text (a text is in one
    /// partition only, so no two are equal): the book's order, and its texts written out in
    /// that order.
    fn merge(
        &self,
        runs: &File,
        spans: &[Option<(u64, u64)>],
    ) -> io::Result<(Vec<(u32, u32)>, BookTexts)> {
        let mut sources: Vec<Source> = (0..self.parts.len())
            .filter(|&p| !self.parts[p].ends.is_empty())
            .map(|p| Source {
                p,
                next: 0,
                run: spans.get(p).copied().flatten().map(RunReader::new),
                concept: Vec::new(),
                names: Vec::new(),
            })
            .collect();
        let mut heads = BinaryHeap::with_capacity(sources.len());
        for (s, source) in sources.iter_mut().enumerate() {
            if source.advance(self, runs)? {
                heads.push(Reverse((std::mem::take(&mut source.concept), s)));
            }
        }
        let count = self.parts.iter().map(|part| part.ends.len()).sum();
        let (mut order, mut ends) = (Vec::with_capacity(count), Vec::with_capacity(count));
        let mut file = BufWriter::with_capacity(WRITE_BUFFER, spill::temp_file()?);
        let mut written = 0u64;
        while let Some(Reverse((concept, s))) = heads.pop() {
            let source = &mut sources[s];
            file.write_all(&len_prefix(&concept)?)?;
            file.write_all(&concept)?;
            file.write_all(&source.names)?;
            written += (4 + concept.len() + source.names.len()) as u64;
            ends.push(written);
            order.push((source.p as u32, (source.next - 1) as u32));
            source.concept = concept;
            if source.advance(self, runs)? {
                heads.push(Reverse((std::mem::take(&mut source.concept), s)));
            }
        }
        let texts = BookTexts {
            file: file.into_inner().map_err(io::IntoInnerError::into_error)?,
            ends,
            unreadable: Default::default(),
        };
        Ok((order, texts))
    }
}

/// One partition's concepts as the merge reads them, in its order: the next one's place, and
/// the last one read (its text and its owners' names), from its run or from memory.
struct Source {
    p: usize,
    next: usize,
    run: Option<RunReader>,
    concept: Vec<u8>,
    names: Vec<u8>,
}

impl Source {
    /// Read the partition's next concept into `concept` and `names`: false past its last.
    fn advance(&mut self, maker: &BookMaker, file: &File) -> io::Result<bool> {
        let part = &maker.parts[self.p];
        if self.next >= part.ends.len() {
            return Ok(false);
        }
        self.concept.clear();
        self.names.clear();
        match &mut self.run {
            Some(run) => {
                let head = run.take(file, 8)?;
                let len = |i: usize| {
                    let bytes = head[4 * i..4 * i + 4].try_into().unwrap_or_default();
                    u32::from_le_bytes(bytes) as usize
                };
                let (concept_len, names_len) = (len(0), len(1));
                let texts = run.take(file, concept_len + names_len)?;
                self.concept.extend_from_slice(&texts[..concept_len]);
                self.names.extend_from_slice(&texts[concept_len..]);
            }
            None => {
                self.concept.extend_from_slice(part.texts.bytes(self.next));
                let names = &mut self.names;
                part.owner_names(self.next, &maker.names, |name| {
                    names.extend_from_slice(name.as_bytes())
                });
            }
        }
        self.next += 1;
        Ok(true)
    }
}

/// A run read a block at a time.
struct RunReader {
    /// Where the bytes not yet read from the file start, and where the run ends.
    at: u64,
    end: u64,
    buf: Vec<u8>,
    /// The bytes of `buf` already taken.
    taken: usize,
}

impl RunReader {
    fn new((from, end): (u64, u64)) -> RunReader {
        RunReader {
            at: from,
            end,
            buf: Vec::new(),
            taken: 0,
        }
    }

    /// The run's next `n` bytes (`UnexpectedEof` past its end).
    fn take(&mut self, file: &File, n: usize) -> io::Result<&[u8]> {
        if self.buf.len() - self.taken < n {
            self.buf.drain(..self.taken);
            self.taken = 0;
            let short = (n - self.buf.len()) as u64;
            let left = self.end - self.at;
            if short > left {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let read = short.max(RUN_BLOCK as u64).min(left) as usize;
            let old = self.buf.len();
            self.buf.resize(old + read, 0);
            crate::file_at::read_at(file, self.at, &mut self.buf[old..])?;
            self.at += read as u64;
        }
        let bytes = &self.buf[self.taken..self.taken + n];
        self.taken += n;
        Ok(bytes)
    }
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
    use super::super::super::table::hash;
    use super::*;

    #[test]
    fn a_written_book_reads_its_texts_back_and_says_when_it_cannot() {
        let held = [
            ("pricing", &["sales", "finance"][..]),
            ("hiring", &["people", "legal"]),
        ];
        assert!(
            OwnersBook::of(&held).written.is_none(),
            "under the limit: held"
        );
        let book = OwnersBook::of_past(&held, 0);
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
        texts.file.file().set_len(3).unwrap();
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

    #[test]
    fn runs_longer_than_a_block_merge_into_the_same_book() {
        // concepts of up to 150 KB, two owners kept as text each: a partition's run is read
        // in several blocks, and some concepts are longer than a block
        let concepts: Vec<String> = (0..300)
            .map(|i: usize| format!("{i:03}{}", "c".repeat(i * 7919 % 150_000)))
            .collect();
        let owners: Vec<[String; 2]> = (0..300)
            .map(|i| [format!("owner {i} a"), format!("owner {i} b")])
            .collect();
        let book = |limit| {
            // every owner kept as text
            let mut held = super::super::concepts::ConceptOwners::with_limits(limit, 0);
            let mut who = 0;
            for (concept, owners) in concepts.iter().zip(&owners) {
                for owner in owners {
                    let hashes = (hash(concept), hash(owner));
                    held.note(concept, hashes.0, Some((owner, hashes.1)), who);
                    who += 1;
                }
            }
            held.settle(&[]).unwrap().0
        };
        let (in_memory, written) = (book(usize::MAX), book(1 << 20));
        assert!(in_memory.written.is_none() && written.written.is_some());
        let listed = in_memory.listed();
        assert_eq!(listed.len(), 300);
        assert_eq!(listed[7].0, concepts[7]);
        assert_eq!(listed[7].1, "owner 7 a, owner 7 b");
        assert_eq!(written.listed(), listed);
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
