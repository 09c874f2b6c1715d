//! Compact string sets for a pass over millions of records: every string's text lives in one
//! arena, so remembering a record id costs its bytes plus a few integers instead of an
//! allocation of its own.

use foldhash::fast::SeedableRandomState;
use std::hash::BuildHasher;
use std::sync::OnceLock;

/// Ask for huge pages (2 MiB) under the allocation at `start` of `len` bytes, best done before
/// anything is written there. The tables a check looks up at random span tens of megabytes:
/// with 4 KiB pages most lookups would also miss the TLB, and in a virtual machine each miss
/// walks two sets of page tables (the trade of CPU for memory is in bench/NOTES.md).
/// Linux only, and only where huge pages are allowed on request (`madvise`).
fn advise_huge_pages(start: *const u8, len: usize) {
    #[cfg(target_os = "linux")]
    // SAFETY: huge pages change no contents, and an error leaves the pages as they were.
    unsafe {
        advise(start as usize, len, 2 << 20, libc::MADV_HUGEPAGE)
    };
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
}

/// Give the pages under a vector's allocation beyond its length back to the system, keeping
/// the allocation: cleared, a buffer of what went to a temporary file would otherwise hold
/// its pages until it is filled again, while another fills its own (each alone under its
/// limit, together over it). The next write there gets zeroed pages.
/// Linux only; elsewhere the pages stay.
pub fn release_pages<T>(buf: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        let size = std::mem::size_of::<T>();
        let start = buf.as_ptr() as usize + buf.len() * size;
        let room = (buf.capacity() - buf.len()) * size;
        // SAFETY: past the vector's length no element lives, and the next write there finds
        // a zeroed page.
        unsafe { advise(start, room, 4 << 10, libc::MADV_DONTNEED) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}

/// Have every core's allocator give back to the system now what it holds freed, after work
/// spread over every core let go of its memory. Each core's heap is its own: a core that
/// goes idle after its share keeps the pages its share freed until it allocates again, and
/// what came next on the other cores peaked with both.
pub fn give_back_freed() {
    rayon::broadcast(|_| {
        // SAFETY: takes no pointer; frees only memory that no allocation holds.
        unsafe { libmimalloc_sys::mi_collect(true) }
    });
}

/// `madvise(advice)` over the whole pages of `page` bytes among the `len` bytes at `start`,
/// inside an allocation this process owns. An error leaves the pages as they were.
///
/// # Safety
/// The advice may drop the pages' contents (`MADV_DONTNEED`): then nothing may live in those
/// bytes.
#[cfg(target_os = "linux")]
unsafe fn advise(start: usize, len: usize, page: usize, advice: libc::c_int) {
    let (first, last) = (
        (start + page - 1) & !(page - 1),
        (start + len) & !(page - 1),
    );
    if last > first {
        // SAFETY: whole pages inside the caller's allocation; what the advice may do to
        // their contents is the caller's to allow.
        unsafe { libc::madvise(first as *mut libc::c_void, last - first, advice) };
    }
}

/// [`advise_huge_pages`] for a vector's whole allocation.
pub fn huge_pages<T>(buf: &Vec<T>) {
    advise_huge_pages(
        buf.as_ptr().cast(),
        buf.capacity() * std::mem::size_of::<T>(),
    );
}

/// `buf.push(item)`, asking for huge pages under the vector's new allocation when the push
/// moved it (its room beyond what was copied over is not written yet).
pub fn push_on_huge_pages<T>(buf: &mut Vec<T>, item: T) {
    let room = buf.capacity();
    buf.push(item);
    if buf.capacity() != room {
        huge_pages(buf);
    }
}

/// Start loading the cache line that holds `at`, without waiting for it: a hint, for reads
/// at random places that are known a little before they are made (no effect but on x86_64).
#[inline(always)]
pub fn prefetch<T>(at: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache; it reads nothing into the program and faults
    // on no address (and `at` is a reference besides). SSE is part of every x86_64.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (at as *const T).cast(),
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// An append-only list of byte strings in one buffer: what [`Names`] keeps its strings in,
/// and `id_text.rs` its ids, some of which it keeps in a shorter form than their text.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Arena {
    bytes: Vec<u8>,
    /// Where each string ends in `bytes`, modulo 2^32 (4 bytes a string instead of 8) ...
    ends: Vec<u32>,
    /// ... and the strings at which `bytes` passed each multiple of 2^32 (empty below 4 GiB).
    wraps: Vec<usize>,
    /// How many of the first strings were let go (their bytes written elsewhere, see
    /// [`Arena::let_go`]), and their bytes: `bytes` holds the strings after them, and every
    /// place (`ends`, [`Arena::bounds`]) counts from the first string's start all the same.
    let_go: usize,
    gone: usize,
}

impl Arena {
    pub fn push(&mut self, s: &[u8]) -> usize {
        let before = self.end_of_all() >> 32;
        let room = self.bytes.capacity();
        self.bytes.extend_from_slice(s);
        if self.bytes.capacity() != room {
            huge_pages(&self.bytes);
        }
        let i = self.ends.len();
        for _ in before..self.end_of_all() >> 32 {
            self.wraps.push(i);
        }
        let end = self.end_of_all() as u32;
        push_on_huge_pages(&mut self.ends, end);
        i
    }

    /// Where the last string ends, counting the bytes let go.
    fn end_of_all(&self) -> usize {
        self.gone + self.bytes.len()
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Let go of every string, keeping the room they took (not its pages: see
    /// [`release_pages`]).
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
        self.wraps.clear();
        (self.let_go, self.gone) = (0, 0);
        release_pages(&self.bytes);
        release_pages(&self.ends);
    }

    /// Let go of the bytes of every string held, keeping the room they took (not its
    /// pages) and where each string lies (the caller has written them elsewhere, as
    /// [`Arena::text`] gave them).
    pub fn let_go(&mut self) {
        self.gone = self.end_of_all();
        self.let_go = self.ends.len();
        self.bytes.clear();
        release_pages(&self.bytes);
    }

    /// The string at `i` is held (not let go, and not past the end).
    pub fn holds(&self, i: usize) -> bool {
        (self.let_go..self.ends.len()).contains(&i)
    }

    /// How many strings are held (not let go).
    pub fn held(&self) -> usize {
        self.ends.len() - self.let_go
    }

    /// The bytes of all the strings held together.
    pub fn text_len(&self) -> usize {
        self.bytes.len()
    }

    /// All the strings held, one after the other.
    pub fn text(&self) -> &[u8] {
        &self.bytes
    }

    /// Room for `n` more strings of `bytes` in all.
    pub fn reserve(&mut self, n: usize, bytes: usize) {
        self.ends.reserve(n);
        self.bytes.reserve(bytes);
        huge_pages(&self.ends);
        huge_pages(&self.bytes);
    }

    fn end(&self, i: usize) -> usize {
        let wraps = self.wraps.partition_point(|&w| w <= i);
        (wraps << 32) | self.ends[i] as usize
    }

    /// Where the string at `i` starts and ends, counting from the first string's start (the
    /// bytes let go too); `None` past the end.
    pub fn bounds(&self, i: usize) -> Option<(usize, usize)> {
        if i >= self.ends.len() {
            return None;
        }
        let start = if i == 0 { 0 } else { self.end(i - 1) };
        Some((start, self.end(i)))
    }

    /// The string at `i` (empty past the end, or let go).
    pub fn get(&self, i: usize) -> &[u8] {
        match self.bounds(i) {
            Some((start, end)) if i >= self.let_go => self
                .bytes
                .get(start - self.gone..end - self.gone)
                .unwrap_or(b""),
            _ => b"",
        }
    }

    /// Start loading where the string at `i` starts and ends ([`prefetch`]): the first of
    /// the two steps of reading it at a random place.
    #[inline]
    pub fn prefetch_bounds(&self, i: usize) {
        if let Some(before) = i.checked_sub(1).and_then(|b| self.ends.get(b)) {
            prefetch(before);
        }
        if let Some(end) = self.ends.get(i) {
            prefetch(end);
        }
    }

    /// Start loading the string at `i`, its bounds read (best loaded first, by
    /// [`Arena::prefetch_bounds`]).
    #[inline]
    pub fn prefetch_text(&self, i: usize) {
        if i < self.let_go || i >= self.ends.len() {
            return;
        }
        let start = if i == 0 { 0 } else { self.end(i - 1) };
        if let Some(first) = self.bytes.get(start - self.gone) {
            prefetch(first);
        }
    }
}

/// An append-only list of strings in one arena.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Names(Arena);

impl Names {
    pub fn push(&mut self, s: &str) -> usize {
        self.0.push(s.as_bytes())
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Let go of every string, keeping the room they took.
    pub fn clear(&mut self) {
        self.0.clear()
    }

    /// The bytes of all the strings together.
    pub fn text_len(&self) -> usize {
        self.0.text_len()
    }

    /// All the strings, one after the other.
    pub fn text(&self) -> &[u8] {
        self.0.text()
    }

    /// Room for `n` more strings of `bytes` in all.
    pub fn reserve(&mut self, n: usize, bytes: usize) {
        self.0.reserve(n, bytes)
    }

    /// The string at `i` (empty past the end).
    pub fn get(&self, i: usize) -> &str {
        let bytes = self.0.get(i);
        debug_assert!(std::str::from_utf8(bytes).is_ok());
        // SAFETY: only `push` adds to the arena, a whole `str` at a time, and `Arena::get`
        // gives the bytes of one whole push (or none): UTF-8, as pushed.
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }

    /// The bytes of the string at `i` (empty past the end): for comparing, without the
    /// UTF-8 check of [`Names::get`].
    pub fn bytes(&self, i: usize) -> &[u8] {
        self.0.get(i)
    }
}

/// The hash the interners use, the same on every thread (one random seed per process, unless
/// [`fix_seed`]), so a string can be hashed where it is read and looked up where it is folded.
pub fn hash(s: &str) -> u64 {
    HASHER
        .get_or_init(|| (SeedableRandomState::random(), false))
        .0
        .hash_one(s)
}

/// The hasher of [`hash`], and whether its seed is the fixed one.
static HASHER: OnceLock<(SeedableRandomState, bool)> = OnceLock::new();

/// Hash with foldhash's fixed seed in this process, so its hashes are those of every other
/// process that fixed it: a shard's facts carry hashes (of ids, concepts, values), and the
/// check that writes them and the merge that folds them must agree. The price: a store made
/// to collide under the known seed slows that check down (never its result). False when the
/// process already hashed with a random seed.
pub fn fix_seed() -> bool {
    HASHER
        .get_or_init(|| (SeedableRandomState::fixed(), true))
        .1
}

/// An open-addressing table of indices by hash, with linear probing; what an index stands for
/// (a string in some arena) and when two are equal is the caller's: each lookup says how to
/// compare, so two strings whose hashes collide stay two entries.
///
/// Each slot is one `u64`: the low half of the hash (a tag that rules out nearly every wrong
/// candidate without touching the string) and the index + 1 (0: empty); the high half of the
/// hash places it (multiply-shift, so the table can have any size). At most half full, a
/// lookup of a new string probes about two and a half slots.
#[derive(Default)]
pub struct Slots {
    slots: Vec<u64>,
}

const EMPTY: u64 = 0;

/// The largest index a table holds (the slot keeps index + 1 in 32 bits).
pub const MAX_INDEX: usize = u32::MAX as usize - 1;

fn tag(hash: u64) -> u64 {
    hash & 0xffff_ffff
}

/// Where `hash` is placed in a table of `size` slots.
fn home(hash: u64, size: usize) -> usize {
    ((hash as u128 * size as u128) >> 64) as usize
}

impl Slots {
    /// A table with room for `n` indices (twice as many slots: at most half full).
    pub fn with_room(n: usize) -> Slots {
        // zeroed by the allocator (EMPTY is 0): memory fresh from the system comes zeroed and
        // is not written here, so each page is zeroed once, by the system, when first touched
        let slots = vec![EMPTY; (n * 2).max(16)];
        huge_pages(&slots);
        Slots { slots }
    }

    /// How many indices the table has room for.
    pub fn room(&self) -> usize {
        self.slots.len() / 2
    }

    /// The slot holding an index `same` accepts under `hash`, or the empty slot where it would
    /// go.
    #[inline]
    fn probe(&self, hash: u64, same: impl Fn(usize) -> bool) -> (usize, Option<usize>) {
        let size = self.slots.len();
        let mut at = home(hash, size);
        loop {
            let slot = self.slots[at];
            if slot == EMPTY {
                return (at, None);
            }
            if tag(slot >> 32) == tag(hash) {
                let i = (slot & 0xffff_ffff) as usize - 1;
                if same(i) {
                    return (at, Some(i));
                }
            }
            at += 1;
            if at == size {
                at = 0;
            }
        }
    }

    /// The index under `hash` that `same` accepts.
    #[inline]
    pub fn find(&self, hash: u64, same: impl Fn(usize) -> bool) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        self.probe(hash, same).1
    }

    /// The index under `hash` that `same` accepts, or else `index`, stored now: (the index,
    /// whether it is new). The table must have room ([`Slots::room`]); past [`MAX_INDEX`] a
    /// new index is returned but not stored.
    #[inline]
    pub fn find_or_insert(
        &mut self,
        hash: u64,
        index: usize,
        same: impl Fn(usize) -> bool,
    ) -> (usize, bool) {
        let (at, found) = self.probe(hash, same);
        if let Some(i) = found {
            return (i, false);
        }
        if index <= MAX_INDEX {
            self.slots[at] = tag(hash) << 32 | (index as u64 + 1);
        }
        (index, true)
    }
}

/// A set of distinct strings, each with a dense index (0, 1, 2, … in first-seen order) for
/// side tables: the strings in one arena ([`Names`]), their indices in [`Slots`]. The table
/// doubles as the set grows. For sets of a few thousand strings, looked up on every record
/// (the owners of concepts): a set of millions is gathered and resolved by partition instead
/// (`index/ids.rs`, `index/concepts.rs`).
#[derive(Default)]
pub struct Interner {
    names: Names,
    slots: Slots,
}

impl Interner {
    /// The index of `s` (whose [`hash`] is `hash`), and whether it was new.
    pub fn intern_hashed(&mut self, s: &str, hash: u64) -> (usize, bool) {
        if self.names.len() + 1 > self.slots.room() {
            self.grow((self.names.len() + 1) * 2);
        }
        let names = &self.names;
        let (i, new) = self.slots.find_or_insert(hash, names.len(), |i| {
            crate::bytes::same(names.bytes(i), s.as_bytes())
        });
        if new {
            self.names.push(s);
        }
        (i, new)
    }

    /// [`Self::intern_hashed`], hashing `s` here.
    pub fn intern(&mut self, s: &str) -> (usize, bool) {
        self.intern_hashed(s, hash(s))
    }

    /// A table for at least `n` strings: every string placed again (they are distinct).
    fn grow(&mut self, n: usize) {
        self.slots = Slots::with_room(n);
        for i in 0..self.names.len().min(MAX_INDEX + 1) {
            self.slots
                .find_or_insert(hash(self.names.get(i)), i, |_| false);
        }
    }

    #[cfg(test)]
    pub fn find(&self, s: &str) -> Option<usize> {
        self.find_hashed(s, hash(s))
    }

    /// The index of `s` (whose [`hash`] is `hash`), if it was interned.
    pub fn find_hashed(&self, s: &str, hash: u64) -> Option<usize> {
        self.slots.find(hash, |i| {
            crate::bytes::same(self.names.bytes(i), s.as_bytes())
        })
    }

    pub fn get(&self, i: usize) -> &str {
        self.names.get(i)
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }
}

/// A set of numbers below a bound, a bit each.
#[derive(Debug, Default)]
pub struct Bits(Vec<u64>);

impl Bits {
    /// An empty set of numbers below `n`.
    pub fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    /// Add `i` (below the bound); whether it was not in the set yet.
    pub fn insert(&mut self, i: u32) -> bool {
        let (word, bit) = (&mut self.0[i as usize / 64], 1 << (i % 64));
        let new = *word & bit == 0;
        *word |= bit;
        new
    }

    /// Whether `i` is in the set (no number past the bound is).
    pub fn contains(&self, i: u32) -> bool {
        self.0
            .get(i as usize / 64)
            .is_some_and(|word| word >> (i % 64) & 1 == 1)
    }
}

/// The partitions the strings of a pass are gathered into, by hash ([`part_of`]): at a
/// million records, one partition's strings and table are a few hundred kilobytes, which
/// stay in a core's cache while the partition is resolved. Few: the fold appends to every
/// partition's tail as records come, and the cores take turns folding, so each tail moves
/// from core to core once a block; too few, and each partition outgrows the cache (the counts
/// tried are in bench/NOTES.md).
pub const PARTS: usize = 32;

// a partition is the top bits of a hash, and `index/ids.rs` keeps it in a byte
const _: () = assert!(PARTS.is_power_of_two() && PARTS <= 256);

/// `PARTS` empty partitions, made when the first thing goes into one.
pub fn partitions<T: Default>(parts: &mut Vec<T>) -> &mut [T] {
    if parts.is_empty() {
        parts.resize_with(PARTS, T::default);
    }
    parts
}

/// Room for one partition's share of `n` things: an even share and an eighth more (hashes
/// spread them about evenly), so that sized once, a partition rarely grows.
pub fn share(n: usize) -> usize {
    n / PARTS + n / PARTS / 8 + 16
}

/// The partition of a string of hash `hash` (its top bits).
pub fn part_of(hash: u64) -> usize {
    (hash >> (64 - PARTS.trailing_zeros())) as usize
}

/// The 32 bits of a hash kept beside a string in its partition (the low half: the partition
/// is from the top bits, so these still tell the partition's strings apart) ...
pub fn key_of(hash: u64) -> u32 {
    hash as u32
}

/// ... and the hash a partition's table places that key by.
pub fn spread(key: u32) -> u64 {
    (key as u64) << 32 | key as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_hold_each_number_once() {
        let mut bits = Bits::new(130);
        assert!(bits.insert(129) && bits.insert(0) && bits.insert(64));
        assert!(!bits.insert(64), "already in");
        let held: Vec<u32> = (0..200).filter(|&i| bits.contains(i)).collect();
        assert_eq!(held, [0, 64, 129]);
    }

    #[test]
    fn interning_is_by_text_in_first_seen_order() {
        let mut t = Interner::default();
        assert_eq!(t.intern("b"), (0, true));
        assert_eq!(t.intern("a"), (1, true));
        assert_eq!(t.intern("b"), (0, false));
        assert_eq!(t.intern(""), (2, true));
        assert_eq!(t.find("a"), Some(1));
        assert_eq!(t.find("c"), None);
        assert_eq!(t.get(2), "");
        for i in 0..10_000 {
            t.intern(&format!("R-{i}"));
        }
        assert_eq!(t.len(), 10_003);
        assert_eq!(t.find("R-9999"), Some(10_002));
        assert_eq!(t.intern("R-5"), (8, false));
        let mut n = Names::default();
        n.push("x");
        n.push("");
        n.push("yz");
        let all: Vec<&str> = (0..n.len()).map(|i| n.get(i)).collect();
        assert_eq!(all, ["x", "", "yz"]);
    }

    /// Strings let go keep their places: the ones after them are found where they were,
    /// and the bytes let go are counted in every place.
    #[test]
    fn an_arena_lets_go_of_its_bytes_and_keeps_every_place() {
        let mut a = Arena::default();
        a.reserve(4, 1 << 16);
        a.push(b"ab");
        a.push(b"");
        assert_eq!(a.text(), b"ab");
        a.let_go();
        assert_eq!((a.held(), a.text_len()), (0, 0));
        a.push(b"cde");
        assert_eq!((a.held(), a.text()), (1, &b"cde"[..]));
        assert_eq!(a.bounds(0), Some((0, 2)));
        assert_eq!(
            a.bounds(2),
            Some((2, 5)),
            "counted from the first string's start"
        );
        assert_eq!(a.bounds(3), None);
        let holds: Vec<bool> = (0..4).map(|i| a.holds(i)).collect();
        assert_eq!(
            holds,
            [false, false, true, false],
            "only what came after is held"
        );
        assert_eq!((a.get(0), a.get(2)), (&b""[..], &b"cde"[..]));
        a.clear();
        assert_eq!((a.len(), a.held(), a.bounds(0)), (0, 0, None));
        a.push(b"f");
        assert_eq!((a.get(0), a.bounds(0)), (&b"f"[..], Some((0, 1))));
    }

    /// Indices under one hash stay apart: the caller's comparison decides which is which.
    #[test]
    fn slots_keep_apart_indices_whose_hashes_collide() {
        let texts = ["a", "b", "c"];
        let mut slots = Slots::with_room(texts.len());
        for (i, text) in texts.iter().enumerate() {
            assert_eq!(
                slots.find_or_insert(42, i, |j| texts[j] == *text),
                (i, true)
            );
        }
        assert_eq!(slots.find_or_insert(42, 3, |j| texts[j] == "b"), (1, false));
        assert_eq!(slots.find(42, |j| texts[j] == "c"), Some(2));
        assert_eq!(slots.find(42, |_| false), None);
        assert_eq!(
            slots.find(7, |_| true),
            None,
            "another hash finds none of them"
        );
    }
}
