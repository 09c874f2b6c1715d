//! Every record id of a store and every id a supersedes pointer names, gathered in store order
//! while the records stream past, and matched up once at the end: which ids repeat an earlier
//! one (`value.duplicate_id`), and which id each pointer names (for `pointers.rs`).
//!
//! Why not a hash table of ids during the pass: at a million records it spans tens of
//! megabytes, and nearly every record's lookup missed the cache, on the thread that folds
//! the records in store order. Here each id goes, with 32 bits of its hash, to one of
//! [`PARTS`] partitions by the hash's top bits, in store order; at the end each partition is
//! matched up alone, in a table of a few hundred kilobytes that stays in cache, and the
//! partitions on every core.
//!
//! An id's text is kept in its partition too, not in one list for all: matching a target
//! compares it with an id's text, and read from one list in store order each comparison
//! missed the cache.
//!
//! Memory: per id its line (`id_lines.rs`: 4 bytes), 5 of place and 4 of where its kept form
//! ends: linear in the store. The kept forms (`id_text.rs`: 17 bytes for a UUID, else the
//! text) and the keys (8 bytes an id) are held up to the budget's share (`Budget::ids`); past
//! it every partition's go to the temporary file of `spill.rs`, the keys to a file of their
//! own, read back once, when the partition is matched up. A partition is read back whole when
//! it is matched up, and a name alone when a report writes it, or with the other names of
//! a window of the JSON report (`Ids::read_spilled`). The texts sought are kept
//! apart (`sought.rs`), and what matching found of them is 4 bytes a text until the
//! pointers are followed.

use super::super::table::{
    key_of, part_of, partitions, prefetch, share, spread, Bits, Slots, PARTS,
};
use super::id_lines::IdLines;
use super::id_text::{IdTexts, RecordName};
use super::sought::{Sought, SoughtReader, SoughtTexts};
use super::Budget;
use crate::bytes::same;
use crate::spill;
use rayon::prelude::*;
use std::borrow::Cow;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

type Spill = spill::Spill;

/// "Not found" in [`Matched::found`].
const NONE: u32 = u32::MAX;

/// An id in its partition: 32 bits of its hash and its index.
type Key = (u32, u32);

/// Bytes of a key as the temporary file keeps it: its two halves, little-endian.
const KEY_BYTES: usize = 8;

/// The ids of one partition, in store order: their keys, and by the same place their texts.
#[derive(Default)]
struct IdPart {
    keys: Vec<Key>,
    texts: IdTexts,
}

pub struct Ids {
    /// Every id as met, in store order (a repeat too): an id's index is its place here; the
    /// record's line, and whether it carries a written valid_to.
    lines: IdLines,
    /// By the same index: the id's partition, and its place there.
    parts: Vec<u8>,
    places: Vec<u32>,
    /// The ids by partition, each in store order.
    id_parts: Vec<IdPart>,
    /// Texts looked up among the ids (the targets of supersedes pointers).
    sought: SoughtTexts,
    /// The bytes of kept forms and keys held, and the runs of the kept forms let go
    /// (partition `p`'s ids as the spill's partition `p`).
    spill: Spill,
    /// The runs of the keys let go, partition by partition, written with the kept forms:
    /// 8 bytes an id, the largest per-id list of the pass, read back once, to match up.
    key_spill: Spill,
    /// A name could not be read back from the temporary file (see [`Ids::unreadable`]).
    unreadable: AtomicBool,
}

impl Default for Ids {
    fn default() -> Self {
        Ids::new(&Budget::DEFAULT)
    }
}

/// What one reader of many names (`names.rs`'s `NamesAhead`) last read back from the
/// temporary file, by the spill's partition. Names in store order come, in each partition, in
/// the order they were written: a name read a little after the last one of its partition is
/// read with the bytes after it, which hold the next ones. Names at random are read alone.
///
/// Memory: a block of up to [`AHEAD`] bytes a partition.
#[derive(Default)]
pub struct ReadAhead {
    blocks: Vec<Block>,
}

/// Bytes of a partition's kept forms read back, from `from` on.
#[derive(Default)]
struct Block {
    from: u64,
    bytes: Vec<u8>,
}

/// The bytes read after a name that comes a little after the last one read of its partition.
const AHEAD: u64 = 4 << 10;

/// Names read back together ([`Ids::read_spilled`]) share a read across gaps of up to
/// [`READ_GAP`] bytes (about what a read call costs, in bytes copied), in reads of at most
/// [`READ_MOST`].
const READ_GAP: u64 = 8 << 10;
const READ_MOST: u64 = 256 << 10;

impl ReadAhead {
    /// Bytes `span` of the spill's partition `n`, from the block read last or read now.
    fn read(
        &mut self,
        spill: &spill::Spill,
        n: usize,
        (from, to): (u64, u64),
    ) -> io::Result<&[u8]> {
        if self.blocks.len() <= n {
            self.blocks.resize_with(n + 1, Block::default);
        }
        let block = &mut self.blocks[n];
        let end = block.from + block.bytes.len() as u64;
        if !(block.from <= from && to <= end) {
            let onward = block.bytes.is_empty() || (from >= end && from - end <= AHEAD);
            block.from = from;
            let ahead = if onward { AHEAD } else { 0 };
            if let Err(e) = spill.read_span(n, (from, to), ahead, &mut block.bytes) {
                block.bytes.clear();
                return Err(e);
            }
        }
        let (start, end) = ((from - block.from) as usize, (to - block.from) as usize);
        block
            .bytes
            .get(start..end)
            .ok_or_else(|| io::ErrorKind::UnexpectedEof.into())
    }
}

/// One partition's share of [`Matched`]: its repeats, and by place its sought texts' first
/// ids.
type PartMatched = (Vec<(u32, u32)>, Vec<u32>);

/// What matching the ids up found (see [`Ids::match_up`]).
pub struct Matched {
    /// By partition and place, the index of the first id with a sought text, or [`NONE`]
    /// (until [`Matched::forget_found`]) ...
    found: Vec<Vec<u32>>,
    /// ... and whether some text is found nowhere (only then are the texts read back).
    unfound: bool,
    /// The ids that repeat an earlier one, with the earlier's index, in store order ...
    repeats: Vec<(u32, u32)>,
    /// ... and by index, whether it is one (the pointers ask of every record that
    /// supersedes, a few times each, and nearly every id is none).
    repeated: Bits,
}

/// What matching found of each sought text, read in the order the texts were sought (a
/// text's place in its partition is its turn there), with the texts read back beside when
/// asked for.
pub struct FoundInOrder<'m> {
    found: &'m [Vec<u32>],
    next: [u32; PARTS],
    texts: Option<SoughtReader<'m>>,
}

/// What a text sought came to: the first id with it, or none, and then its kept form when
/// the texts are read (empty when not).
pub type Target<'t> = Result<u32, &'t [u8]>;

impl FoundInOrder<'_> {
    /// What the next text sought in `s`'s partition came to. Fails only when the texts are
    /// read and one does not read back whole.
    pub fn next(&mut self, s: Sought) -> io::Result<Target<'_>> {
        let p = s.part();
        let at = self.next[p];
        self.next[p] = at.saturating_add(1);
        let first = self.found.get(p).and_then(|found| found.get(at as usize));
        let kept = match &mut self.texts {
            Some(texts) => texts.next(p)?,
            None => &[],
        };
        Ok(match first {
            Some(&i) if i != NONE => Ok(i),
            _ => Err(kept),
        })
    }
}

/// An index as kept in the tables (u32: past 4 billion ids, a store far beyond any memory
/// this pass could have, an index saturates rather than fail; a test build stops there, as
/// what saturated would name the wrong records).
pub fn small(i: usize) -> u32 {
    debug_assert!(u32::try_from(i).is_ok(), "index {i} past u32");
    u32::try_from(i).unwrap_or(u32::MAX)
}

impl Ids {
    /// No ids yet, held up to `budget`'s share, and no texts sought.
    pub fn new(budget: &Budget) -> Ids {
        Ids {
            lines: IdLines::default(),
            parts: Vec::new(),
            places: Vec::new(),
            id_parts: Vec::new(),
            sought: SoughtTexts::new(budget.sought),
            spill: Spill::new(budget.ids),
            key_spill: Spill::new(usize::MAX),
            unreadable: AtomicBool::new(false),
        }
    }

    /// Room for about `ids` more ids of `bytes` in all, and `sought` more targets: sized once,
    /// the long lists skip the copies of growing by doubling.
    pub fn reserve(&mut self, ids: usize, bytes: usize, sought: usize) {
        self.lines.reserve(ids);
        self.parts.reserve(ids);
        self.places.reserve(ids);
        // what is held never passes the spill's limit: room for that much
        let held = self.spill.limit().min(bytes);
        for part in partitions(&mut self.id_parts) {
            part.keys.reserve(share(ids));
            part.texts.reserve(share(ids), share(held));
        }
        let sought_bytes = sought.saturating_mul(bytes / ids.max(1));
        self.sought.reserve(sought, sought_bytes);
    }

    /// Note a record's id (`hash`: its [`super::super::table::hash`]); returns its index.
    pub fn push(&mut self, text: &str, hash: u64, line: u64, valid_to_written: bool) -> u32 {
        let i = small(self.lines.len());
        self.lines.push(line, valid_to_written);
        let part = part_of(hash);
        let id_part = &mut partitions(&mut self.id_parts)[part];
        id_part.keys.push((key_of(hash), i));
        let (at, held) = push_text(&mut id_part.texts, text);
        self.places.push(small(at));
        self.parts.push(part as u8);
        if self.spill.hold(held + KEY_BYTES) {
            self.write_out();
        }
        i
    }

    /// Note a text to look up among all the ids (found or not once every id is known): what
    /// was found of it is read in the order the texts were sought ([`Ids::found_in_order`]).
    pub fn seek(&mut self, text: &str, hash: u64) -> Sought {
        self.sought.push(text, hash)
    }

    /// What `matched` found of each text sought, in the order they were sought, with the
    /// kept forms of the ones no id has read back beside when `texts` (the texts are read
    /// again, the found ones skipped: when every text is found, none is read).
    pub fn found_in_order<'m>(&'m self, matched: &'m Matched, texts: bool) -> FoundInOrder<'m> {
        FoundInOrder {
            found: &matched.found,
            next: [0; PARTS],
            texts: (texts && matched.unfound).then(|| self.sought.reader()),
        }
    }

    /// Let the sought texts go, once what they came to is read.
    pub fn forget_sought(&mut self) {
        self.sought.forget();
    }

    /// The bytes of kept forms held in memory that could go to the temporary file.
    pub fn held(&self) -> usize {
        self.spill.held()
    }

    /// Write every partition's kept forms and keys held to the temporary file, and let them
    /// go. What cannot be written stays held, and so does everything from then on.
    pub fn write_out(&mut self) {
        let mut bytes = Vec::new();
        for (n, part) in self.id_parts.iter_mut().enumerate() {
            let texts = &mut part.texts;
            if texts.held() == 0 && part.keys.is_empty() {
                continue;
            }
            bytes.clear();
            bytes.reserve(part.keys.len() * KEY_BYTES);
            for &(key, i) in &part.keys {
                bytes.extend_from_slice(&key.to_le_bytes());
                bytes.extend_from_slice(&i.to_le_bytes());
            }
            let keys = small(part.keys.len());
            let held = texts.text_len() + bytes.len();
            let count = small(texts.held());
            // keys written without their texts read back all the same: the keys' runs, then
            // the keys held, are the partition's keys in store order
            let keys_written =
                bytes.is_empty() || self.key_spill.write(n, keys, 0, &[&bytes]).is_ok();
            if !keys_written {
                self.spill.stop();
                return;
            }
            part.keys = Vec::new();
            if self.spill.write(n, count, held, &[texts.text()]).is_err() {
                self.spill.stop();
                return;
            }
            texts.let_go();
        }
    }

    /// Every key of partition `n` in store order: the ones let go read back, then the ones
    /// held.
    fn all_keys<'k>(&self, n: usize, held: &'k [Key]) -> io::Result<Cow<'k, [Key]>> {
        if self.key_spill.runs(n).is_empty() {
            return Ok(Cow::Borrowed(held));
        }
        let bytes = self.key_spill.whole(n, &[])?;
        let mut keys = Vec::with_capacity(bytes.len() / KEY_BYTES + held.len());
        for key in bytes.chunks_exact(KEY_BYTES) {
            let half =
                |at: usize| u32::from_le_bytes([key[at], key[at + 1], key[at + 2], key[at + 3]]);
            keys.push((half(0), half(4)));
        }
        keys.extend_from_slice(held);
        Ok(Cow::Owned(keys))
    }

    /// Every kept form of the spill's partition `n` (see [`Ids::spill`]), the ones let go
    /// read back and then the ones `texts` holds: as [`IdTexts::kept_in`] reads them.
    fn all_kept<'t>(&self, n: usize, texts: &'t IdTexts) -> io::Result<Cow<'t, [u8]>> {
        self.spill.whole(n, texts.text())
    }

    /// The id at `i` of the spill's partition `n`, from wherever it is kept (read back from
    /// the temporary file through `ahead` when given). An id that cannot be read back is
    /// named empty, and noted (see [`Ids::unreadable`]).
    fn name_at<'s>(
        &'s self,
        n: usize,
        texts: &'s IdTexts,
        at: usize,
        ahead: Option<&mut ReadAhead>,
    ) -> RecordName<'s> {
        kept_name((&self.spill, n), texts, at, ahead).unwrap_or_else(|| {
            self.unreadable.store(true, Ordering::Relaxed);
            RecordName::Text("")
        })
    }

    /// No ids yet, whose kept forms go to the temporary file past `limit` bytes held (tests
    /// spill after a few).
    #[cfg(test)]
    pub fn spilling_past(limit: usize) -> Ids {
        Ids::new(&Budget {
            ids: limit,
            ..Budget::DEFAULT
        })
    }

    /// Some ids' kept forms went to the temporary file (then all of them did, once matched
    /// up).
    pub fn spilled(&self) -> bool {
        self.spill.written() > 0
    }

    /// The id at `i` when it is held in memory (empty past the end), else where its kept
    /// form lies in the temporary file: the spill's partition and the span there, to read
    /// with others by [`Ids::read_spilled`].
    pub fn held_or_spilled(&self, i: u32) -> Result<RecordName<'_>, (usize, (u64, u64))> {
        let Some((n, texts, at)) = self.placed(i) else {
            return Ok(RecordName::Text(""));
        };
        if texts.holds(at) {
            return Ok(texts.get(at));
        }
        match texts.bounds(at) {
            Some((start, end)) => Err((n, (start as u64, end as u64))),
            None => Ok(RecordName::Text("")),
        }
    }

    /// The ids whose kept forms lie at `spans` of the spill's partition `n` in the temporary
    /// file (as [`Ids::held_or_spilled`] gives them), sorted by where they start: read back
    /// together, in a few long reads rather than a read an id, each given to `each` with its
    /// place in `spans`. An id that cannot be read back is not given, and is noted (see
    /// [`Ids::unreadable`]).
    ///
    /// Memory: a read of at most [`READ_MOST`] bytes.
    pub fn read_spilled(&self, n: usize, spans: &[(u64, u64)], mut each: impl FnMut(usize, &str)) {
        let mut buf = Vec::new();
        let read = self
            .spill
            .read_spans(n, spans, (READ_GAP, READ_MOST), &mut buf, |k, kept| {
                match RecordName::of_kept_read(kept) {
                    Some(name) => each(k, name.as_str()),
                    None => self.unreadable.store(true, Ordering::Relaxed),
                }
            });
        if read.is_err() {
            self.unreadable.store(true, Ordering::Relaxed);
        }
    }

    /// Some record's name could not be read back from the temporary file: a report that
    /// named it is missing that name, and should not be trusted.
    pub fn unreadable(&self) -> bool {
        self.unreadable.load(Ordering::Relaxed)
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// The bytes of every id's kept form, held or in the temporary file.
    pub fn kept_bytes(&self) -> usize {
        let held: usize = self.id_parts.iter().map(|part| part.texts.text_len()).sum();
        usize::try_from(self.spill.written()).map_or(usize::MAX, |written| written + held)
    }

    pub fn text(&self, i: u32) -> RecordName<'_> {
        self.text_through(i, None)
    }

    /// [`Self::text`], for one of many names read in turn: what is read back from the
    /// temporary file is read through `ahead`.
    pub fn text_ahead(&self, i: u32, ahead: &mut ReadAhead) -> RecordName<'_> {
        self.text_through(i, Some(ahead))
    }

    /// The id at `i`, read back through `ahead` when given (empty past the end).
    fn text_through(&self, i: u32, ahead: Option<&mut ReadAhead>) -> RecordName<'_> {
        match self.placed(i) {
            Some((part, texts, at)) => self.name_at(part, texts, at, ahead),
            None => RecordName::Text(""),
        }
    }

    /// Start loading where the id at `i` is kept, and its line: the first step of reading
    /// many ids at random places ([`Ids::prefetch_bounds`], [`Ids::prefetch_text`] the next,
    /// see `names.rs`).
    #[inline]
    pub fn prefetch_place(&self, i: u32) {
        let i = i as usize;
        if let (Some(part), Some(at), Some(line)) =
            (self.parts.get(i), self.places.get(i), self.lines.place(i))
        {
            prefetch(part);
            prefetch(at);
            prefetch(line);
        }
    }

    /// The id at `i`: its partition, the partition's texts, and its place there.
    #[inline]
    fn placed(&self, i: u32) -> Option<(usize, &IdTexts, usize)> {
        let i = i as usize;
        let (&part, &at) = (self.parts.get(i)?, self.places.get(i)?);
        let part = part as usize;
        Some((part, &self.id_parts.get(part)?.texts, at as usize))
    }

    /// Start loading where the text of the id at `i` lies (its place best loaded first).
    #[inline]
    pub fn prefetch_bounds(&self, i: u32) {
        if let Some((_, texts, at)) = self.placed(i) {
            texts.prefetch_bounds(at);
        }
    }

    /// Start loading the text of the id at `i` (where it lies best loaded first).
    #[inline]
    pub fn prefetch_text(&self, i: u32) {
        if let Some((_, texts, at)) = self.placed(i) {
            texts.prefetch_text(at);
        }
    }

    /// The line of the record that has the id at `i`.
    pub fn line(&self, i: u32) -> u64 {
        self.lines.line(i as usize)
    }

    /// The record that has the id at `i` carries a written valid_to.
    pub fn carries_valid_to(&self, i: u32) -> bool {
        self.lines.carries_valid_to(i as usize)
    }

    /// Match every id and sought text with the first id of the same text, one partition at a
    /// time, on every core. The keys are let go after (the ids' texts and lines stay, for the
    /// warnings to name records; the sought texts, for [`Ids::found_in_order`]), so the
    /// warnings that follow have their memory. Fails only when the temporary file cannot be
    /// read back.
    pub fn match_up(&mut self) -> io::Result<Matched> {
        // once some went to the temporary file, the rest go too, before matching: a partition
        // matched is read back whole on each core, and beside the ones held (as much as the
        // pass held) that would peak with both; after, what follows (the settles, the report)
        // has their memory, and reads the names it writes from there all alike
        if self.spill.written() > 0 {
            self.write_out();
        }
        let no_ids = IdPart::default();
        let per_part: Vec<PartMatched> = (0..PARTS)
            .into_par_iter()
            .map(|p| {
                let ids = self.id_parts.get(p).unwrap_or(&no_ids);
                let all_ids = self.all_kept(p, &ids.texts)?;
                let keys = self.all_keys(p, &ids.keys)?;
                let sought = (&self.sought, p);
                match_part((&keys, &ids.texts, &all_ids), sought)
            })
            .collect::<io::Result<_>>()?;
        let mut found = Vec::with_capacity(PARTS);
        let mut repeats = Vec::new();
        for (part_repeats, part_found) in per_part {
            repeats.extend(part_repeats);
            found.push(part_found);
        }
        repeats.sort_unstable();
        for part in &mut self.id_parts {
            part.keys = Vec::new();
        }
        self.key_spill = Spill::new(usize::MAX);
        let mut repeated = Bits::new(self.len());
        for &(i, _) in &repeats {
            repeated.insert(i);
        }
        let unfound = found.iter().any(|part| part.contains(&NONE));
        Ok(Matched {
            found,
            unfound,
            repeats,
            repeated,
        })
    }
}

/// The name kept at `at` in `texts`, whose first kept forms went to partition `n` of
/// `spill`: held, or read back (through `ahead` when given). `None` when it cannot be read
/// back (empty past the end).
#[inline]
pub(super) fn kept_name<'s>(
    (spill, n): (&spill::Spill, usize),
    texts: &'s IdTexts,
    at: usize,
    ahead: Option<&mut ReadAhead>,
) -> Option<RecordName<'s>> {
    if texts.holds(at) {
        return Some(texts.get(at));
    }
    let Some((start, end)) = texts.bounds(at) else {
        return Some(RecordName::Text(""));
    };
    let span = (start as u64, end as u64);
    read_span((spill, n), span, ahead)
        .ok()
        .and_then(RecordName::of_read)
}

/// Bytes `span` of partition `n` of `spill`, read back (through `ahead` when given).
pub(super) fn read_span(
    (spill, n): (&spill::Spill, usize),
    span: (u64, u64),
    ahead: Option<&mut ReadAhead>,
) -> io::Result<Vec<u8>> {
    match ahead {
        Some(ahead) => ahead.read(spill, n, span).map(<[u8]>::to_vec),
        None => {
            let mut read = Vec::new();
            spill.read_span(n, span, 0, &mut read).map(|()| read)
        }
    }
}

/// The kept form of an id pushed into `texts`: its place, and its bytes.
fn push_text(texts: &mut IdTexts, text: &str) -> (usize, usize) {
    let before = texts.text_len();
    let at = texts.push(text);
    (at, texts.text_len() - before)
}

/// One partition: its ids' keys in store order ([`Ids::all_keys`]) with all their kept forms
/// ([`Ids::all_kept`]; an id equal to an earlier one is a repeat of it), then the texts
/// sought in partition `p` (`sought.rs`); (the repeats, what was found of the sought texts).
/// Fails when an entry or a text no id has does not read back whole.
fn match_part(
    (keys, texts, all_ids): (&[Key], &IdTexts, &[u8]),
    (sought, p): (&SoughtTexts, usize),
) -> io::Result<PartMatched> {
    let kept = |at: usize| texts.kept_in(all_ids, at);
    // one slot pair per id of the partition, by its place there: linear
    let mut table = Slots::with_room(keys.len());
    let mut repeats = Vec::new();
    let index = |at: usize| keys[at].1;
    for (at, &(key, i)) in keys.iter().enumerate() {
        // the text is read only to compare (a new id rarely is compared at all)
        let (first, new) =
            table.find_or_insert(spread(key), at, |other| same(kept(other), kept(at)));
        if !new {
            repeats.push((i, index(first)));
        }
    }
    let mut found = Vec::with_capacity(sought.count(p));
    sought.each_entry(p, |(key, text)| {
        let first = table.find(spread(key), |other| same(kept(other), text));
        found.push(first.map_or(NONE, index));
    })?;
    Ok((repeats, found))
}

impl Matched {
    /// Let go of what was found of the sought texts (once the pointers are followed).
    pub fn forget_found(&mut self) {
        self.found = Vec::new();
    }

    /// The first id with the same text as the id at `i` (`i` itself unless it repeats one).
    pub fn first(&self, i: u32) -> u32 {
        if !self.repeated.contains(i) {
            return i;
        }
        match self.repeats.binary_search_by_key(&i, |&(r, _)| r) {
            Ok(at) => self.repeats[at].1,
            Err(_) => i,
        }
    }

    /// The ids that repeat an earlier one, in store order.
    pub fn repeats(&self) -> impl Iterator<Item = u32> + '_ {
        self.repeats.iter().map(|&(i, _)| i)
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::table::hash;
    use super::*;

    /// A name that went to the temporary file and cannot be read back is named empty, and
    /// the loss is noted for the report to fail on; the names still held are read as ever.
    #[test]
    fn a_name_that_cannot_be_read_back_is_noted() {
        // each id holds its kept form and its key's 8 bytes: the first two go, "x" stays
        let mut ids = Ids {
            spill: Spill::new(20),
            ..Ids::default()
        };
        for (n, id) in ["first-id", "second-id", "x"].iter().enumerate() {
            ids.push(id, hash(id), n as u64 + 1, false);
        }
        assert!(!ids.unreadable());
        // the runs forgotten: what went to the file is out of reach
        ids.spill = Spill::new(usize::MAX);
        assert_eq!(ids.text(2), "x", "still held");
        assert!(!ids.unreadable());
        assert_eq!(ids.text(0), "");
        assert!(ids.unreadable());
    }

    /// Names read together that cannot be read back are not given, and the loss is noted.
    #[test]
    fn names_read_together_that_cannot_be_read_back_are_noted() {
        let mut ids = Ids::spilling_past(8);
        for (n, id) in ["first-id", "second-id"].iter().enumerate() {
            ids.push(id, hash(id), n as u64 + 1, false);
        }
        let spilled: Vec<(usize, (u64, u64))> = (0..2)
            .filter_map(|i| ids.held_or_spilled(i).err())
            .collect();
        assert!(!spilled.is_empty() && ids.spilled());
        ids.spill = Spill::new(usize::MAX);
        let (n, span) = spilled[0];
        let mut given = 0;
        ids.read_spilled(n, &[span], |_, _| given += 1);
        assert_eq!(given, 0);
        assert!(ids.unreadable());
    }

    #[test]
    fn repeats_and_targets_match_the_first_id_of_their_text() {
        let mut ids = Ids::default();
        for (n, id) in ["a", "b", "a", "c", "b", "a"].iter().enumerate() {
            ids.push(id, hash(id), n as u64 + 1, *id == "c");
        }
        let targets: Vec<Sought> = ["c", "z", "a", ""]
            .iter()
            .map(|t| ids.seek(t, hash(t)))
            .collect();
        let matched = ids.match_up().unwrap();
        assert_eq!(matched.repeats().collect::<Vec<_>>(), vec![2, 4, 5]);
        assert_eq!(
            [2, 4, 5, 3].map(|i| matched.first(i)),
            [0, 1, 0, 3],
            "a repeat's first"
        );
        let mut in_order = ids.found_in_order(&matched, true);
        let found: Vec<Result<u32, Vec<u8>>> = targets
            .iter()
            .map(|&j| in_order.next(j).unwrap().map_err(<[u8]>::to_vec))
            .collect();
        assert_eq!(found, [Ok(3), Err(b"z".to_vec()), Ok(0), Err(vec![])]);
        assert!(ids.carries_valid_to(3) && !ids.carries_valid_to(0));
        assert_eq!(ids.text(4), "b");
        assert_eq!(ids.line(4), 5);
    }

    proptest::proptest! {
        /// Matched up by partition, ids and targets agree with one map of every id seen, all
        /// in memory and with the kept forms in the temporary file a few at a time; every
        /// name comes back as it went in.
        #[test]
        fn matching_agrees_with_a_map_of_every_id(
            ids in proptest::collection::vec("[ab]{0,3}|[0a]{8}-0000-4000-8000-00000000000[0aA]", 0..60),
            targets in proptest::collection::vec("[abc]{0,3}", 0..30),
            limit in 1usize..120,
        ) {
            let mut first: std::collections::HashMap<&str, u32> = Default::default();
            let mut repeats = Vec::new();
            for (i, id) in ids.iter().enumerate() {
                match first.get(id.as_str()) {
                    Some(&f) => repeats.push((i as u32, f)),
                    None => {
                        first.insert(id, i as u32);
                    }
                }
            }
            for limit in [usize::MAX, limit] {
                let mut gathered = Ids { spill: Spill::new(limit), ..Ids::default() };
                for (i, id) in ids.iter().enumerate() {
                    gathered.push(id, hash(id), i as u64, false);
                }
                let sought: Vec<Sought> = targets.iter().map(|t| gathered.seek(t, hash(t))).collect();
                let matched = gathered.match_up().unwrap();
                proptest::prop_assert_eq!(
                    matched.repeats().collect::<Vec<_>>(),
                    repeats.iter().map(|r| r.0).collect::<Vec<_>>()
                );
                for &(i, f) in &repeats {
                    proptest::prop_assert_eq!(matched.first(i), f);
                }
                let mut in_order = gathered.found_in_order(&matched, true);
                for (t, &s) in targets.iter().zip(&sought) {
                    let found = in_order.next(s).unwrap().map_err(<[u8]>::to_vec);
                    let expected = first.get(t.as_str()).copied().ok_or_else(|| t.clone().into_bytes());
                    proptest::prop_assert_eq!(found, expected);
                }
                for (i, id) in ids.iter().enumerate() {
                    proptest::prop_assert_eq!(gathered.text(i as u32).to_string(), id.as_str());
                }
                // read through one reader, in store order, then back to front
                let mut ahead = ReadAhead::default();
                let order = (0..ids.len()).chain((0..ids.len()).rev());
                for i in order {
                    let name = gathered.text_ahead(i as u32, &mut ahead);
                    proptest::prop_assert_eq!(name.to_string(), ids[i].as_str());
                }
                // read together: what went to the file, sorted by where it lies
                let mut spilled = Vec::new();
                for (i, id) in ids.iter().enumerate() {
                    match gathered.held_or_spilled(i as u32) {
                        Ok(name) => proptest::prop_assert_eq!(name.to_string(), id.as_str()),
                        Err(at) => spilled.push((at, i)),
                    }
                }
                proptest::prop_assert_eq!(spilled.is_empty(), !gathered.spilled());
                spilled.sort_unstable();
                for part in spilled.chunk_by(|a, b| a.0 .0 == b.0 .0) {
                    let spans: Vec<(u64, u64)> = part.iter().map(|&((_, span), _)| span).collect();
                    let mut read = vec![String::new(); part.len()];
                    gathered.read_spilled(part[0].0 .0, &spans, |k, name| read[k] = name.to_owned());
                    let expected: Vec<&str> = part.iter().map(|&(_, i)| ids[i].as_str()).collect();
                    proptest::prop_assert_eq!(read, expected);
                }
                proptest::prop_assert!(!gathered.unreadable());
            }
        }
    }
}
