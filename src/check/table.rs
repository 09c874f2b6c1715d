//! Compact string sets for a pass over millions of records: every string's text lives in one
//! arena, so remembering a record id costs its bytes plus a few integers (about 30 bytes for
//! a 9-character id) instead of an allocation of its own, and 1,000,000 ids stay near 30 MiB.

use hashbrown::DefaultHashBuilder;
use std::hash::BuildHasher;
use std::sync::OnceLock;

/// Ask for huge pages (2 MiB) under the allocation at `start` of `len` bytes, best done before
/// anything is written there. The tables a check looks up at random span tens of megabytes:
/// with 4 KiB pages most lookups would also miss the TLB, and in a virtual machine each miss
/// walks two sets of page tables (measured on a 1M store: 5 % less CPU, 4 MiB more memory).
/// Linux only, and only where huge pages are allowed on request (`madvise`).
fn advise_huge_pages(start: *const u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = start as usize;
        let (first, last) = (
            (start + HUGE - 1) & !(HUGE - 1),
            (start + len) & !(HUGE - 1),
        );
        if last > first {
            // SAFETY: advice about whole pages inside an allocation this process owns; it
            // changes no contents, and an error leaves the pages as they were.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    last - first,
                    libc::MADV_HUGEPAGE,
                )
            };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, len);
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

/// Read the first and last bytes of `text` (it may straddle two cache lines, and a
/// comparison reads both ends), to have them fetched before they are needed. Changes nothing.
pub fn touch_ends(text: &[u8]) -> u64 {
    text.first().map_or(0, |&b| b as u64) ^ text.last().map_or(0, |&b| b as u64)
}

/// An append-only list of strings in one arena.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Names {
    text: String,
    /// Where each string ends in `text`, modulo 2^32 (4 bytes a string instead of 8) ...
    ends: Vec<u32>,
    /// ... and the strings at which `text` passed each multiple of 2^32 (empty below 4 GiB).
    wraps: Vec<usize>,
}

impl Names {
    pub fn push(&mut self, s: &str) -> usize {
        let before = self.text.len() >> 32;
        let room = self.text.capacity();
        self.text.push_str(s);
        if self.text.capacity() != room {
            advise_huge_pages(self.text.as_ptr(), self.text.capacity());
        }
        let i = self.ends.len();
        for _ in before..self.text.len() >> 32 {
            self.wraps.push(i);
        }
        push_on_huge_pages(&mut self.ends, self.text.len() as u32);
        i
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// The bytes of all the strings together.
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    /// Room for `n` more strings of `bytes` in all.
    pub fn reserve(&mut self, n: usize, bytes: usize) {
        self.ends.reserve(n);
        self.text.reserve(bytes);
        huge_pages(&self.ends);
        advise_huge_pages(self.text.as_ptr(), self.text.capacity());
    }

    fn end(&self, i: usize) -> usize {
        let wraps = self.wraps.partition_point(|&w| w <= i);
        (wraps << 32) | self.ends[i] as usize
    }

    /// Touch where string `i` ends, then its text ([`Interner::candidate`]): `stage` 0 reads
    /// the end only, any other stage its text's two ends ([`touch_ends`]). Changes nothing.
    pub fn touch(&self, i: usize, stage: u8) -> u64 {
        match stage {
            0 => self.ends.get(i).map_or(0, |&e| e as u64),
            _ => touch_ends(self.bytes(i)),
        }
    }

    /// The string at `i` (empty past the end).
    pub fn get(&self, i: usize) -> &str {
        if i >= self.ends.len() {
            return "";
        }
        let start = if i == 0 { 0 } else { self.end(i - 1) };
        self.text.get(start..self.end(i)).unwrap_or("")
    }

    /// The bytes of the string at `i` (empty past the end): for comparing, without the
    /// character-boundary checks of [`Names::get`] (which read a byte past the string).
    pub fn bytes(&self, i: usize) -> &[u8] {
        if i >= self.ends.len() {
            return b"";
        }
        let start = if i == 0 { 0 } else { self.end(i - 1) };
        self.text.as_bytes().get(start..self.end(i)).unwrap_or(b"")
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// The hash the interners use, the same on every thread (one random seed per process), so a
/// string can be hashed where it is read and looked up where it is folded.
pub fn hash(s: &str) -> u64 {
    static HASHER: OnceLock<DefaultHashBuilder> = OnceLock::new();
    HASHER.get_or_init(DefaultHashBuilder::default).hash_one(s)
}

/// A set of distinct strings, each with a dense index (0, 1, 2, … in first-seen order) for
/// side tables. Lookups compare the text byte for byte, so two strings whose hashes collide
/// stay two entries.
///
/// An open-addressing table with linear probing: each slot is one `u64` holding the low half
/// of the string's hash (a tag that rules out nearly every wrong candidate without touching
/// the text) and its index + 1 (0: empty); the high half places it (multiply-shift, so the
/// table can have any size). 8 bytes a slot, at most half full: a million strings take
/// 16 MiB of table besides their text, and a lookup of a new string (every record's id)
/// probes about two and a half slots rather than the eight and a half of a table 3/4 full,
/// and finds most strings in their home slot, where [`Interner::home_slot`] fetched them.
/// Lookups take the hash computed beforehand (on the reading threads); [`Interner::home_slot`],
/// [`Interner::candidate`] and [`Names::touch`] let the folding thread touch what the next
/// records' lookups will read before it needs it, so the cache misses of many lookups overlap
/// instead of coming one after another.
#[derive(Default)]
pub struct Interner {
    names: Names,
    slots: Vec<u64>,
}

const EMPTY: u64 = 0;

fn tag(hash: u64) -> u64 {
    hash & 0xffff_ffff
}

/// Where `hash` is placed in a table of `size` slots.
fn home(hash: u64, size: usize) -> usize {
    ((hash as u128 * size as u128) >> 64) as usize
}

impl Interner {
    /// The slot holding `s`, or the empty slot where it would go.
    fn probe(&self, s: &str, hash: u64) -> (usize, Option<usize>) {
        let size = self.slots.len();
        let mut at = home(hash, size);
        loop {
            let slot = self.slots[at];
            if slot == EMPTY {
                return (at, None);
            }
            if tag(slot >> 32) == tag(hash) {
                let i = (slot & 0xffff_ffff) as usize - 1;
                if crate::bytes::same(self.names.bytes(i), s.as_bytes()) {
                    return (at, Some(i));
                }
            }
            at += 1;
            if at == size {
                at = 0;
            }
        }
    }

    /// The index of `s` (whose [`hash`] is `hash`), and whether it was new. Past 2^32 − 2
    /// distinct strings (a store far beyond any memory) a new string is still counted but
    /// no longer remembered.
    pub fn intern_hashed(&mut self, s: &str, hash: u64) -> (usize, bool) {
        if (self.names.len() + 1) * 2 > self.slots.len() {
            self.grow((self.names.len() + 1) * 2);
        }
        let (at, found) = self.probe(s, hash);
        if let Some(i) = found {
            return (i, false);
        }
        let i = self.names.push(s);
        if let Ok(index) = u32::try_from(i + 1) {
            if index != u32::MAX {
                self.slots[at] = tag(hash) << 32 | index as u64;
            }
        }
        (i, true)
    }

    #[cfg(test)]
    pub fn intern(&mut self, s: &str) -> (usize, bool) {
        self.intern_hashed(s, hash(s))
    }

    /// A table for at least `n` strings: every string placed again.
    fn grow(&mut self, n: usize) {
        let size = (n * 2).max(16);
        if size <= self.slots.len() {
            return;
        }
        // zeroed by the allocator (EMPTY is 0): memory fresh from the system comes zeroed and
        // is not written here, so the advice below still comes before any page is touched,
        // and each page is zeroed once, by the system, when the fold first touches it, rather
        // than also filled here (18 MB on a 1M check, before the first record is folded)
        self.slots = vec![EMPTY; size];
        huge_pages(&self.slots);
        for i in 0..self.names.len().min(u32::MAX as usize - 1) {
            let h = hash(self.names.get(i));
            let mut at = home(h, size);
            while self.slots[at] != EMPTY {
                at = if at + 1 == size { 0 } else { at + 1 };
            }
            self.slots[at] = tag(h) << 32 | (i as u64 + 1);
        }
    }

    /// Room for `n` more strings of `bytes` in all: a table sized once is never rebuilt.
    pub fn reserve(&mut self, n: usize, bytes: usize) {
        self.names.reserve(n, bytes);
        self.grow(self.names.len() + n);
    }

    /// Room for the text of `n` more strings of `bytes` in all, the table left as it is: for
    /// a set whose final size is only bounded, not known (the distinct concepts of a store).
    /// Room never written costs address space, not memory, and the text then never moves.
    pub fn reserve_text(&mut self, n: usize, bytes: usize) {
        self.names.reserve(n, bytes);
    }

    /// What a lookup of `hash` reads first: its home slot, as it is. Reading it is the point
    /// (see the type's notes); nothing here depends on what it holds, so the reads of many
    /// lookups are all under way at once, none waiting on the one before.
    pub fn home_slot(&self, hash: u64) -> u64 {
        *self
            .slots
            .get(home(hash, self.slots.len()))
            .unwrap_or(&EMPTY)
    }

    /// The string a lookup of `hash` will most likely compare with, given its home slot
    /// ([`Interner::home_slot`]): the one there, when the tags match.
    pub fn candidate(slot: u64, hash: u64) -> Option<usize> {
        (slot != EMPTY && tag(slot >> 32) == tag(hash)).then(|| (slot & 0xffff_ffff) as usize - 1)
    }

    pub fn names(&self) -> &Names {
        &self.names
    }

    pub fn find_hashed(&self, s: &str, hash: u64) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        self.probe(s, hash).1
    }

    pub fn find(&self, s: &str) -> Option<usize> {
        self.find_hashed(s, hash(s))
    }

    pub fn get(&self, i: usize) -> &str {
        self.names.get(i)
    }

    pub fn contains(&self, s: &str) -> bool {
        self.find(s).is_some()
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(n.iter().collect::<Vec<_>>(), vec!["x", "", "yz"]);
    }
}
