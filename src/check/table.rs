//! Compact string sets for a pass over millions of records: every string's text lives in one
//! arena, so remembering a record id costs its bytes plus a few integers (about 30 bytes for
//! a 9-character id) instead of an allocation of its own, and 1,000,000 ids stay near 30 MiB.

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder, HashTable};
use std::hash::BuildHasher;

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
        self.text.push_str(s);
        let i = self.ends.len();
        for _ in before..self.text.len() >> 32 {
            self.wraps.push(i);
        }
        self.ends.push(self.text.len() as u32);
        i
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Room for `n` more strings of `bytes` in all.
    pub fn reserve(&mut self, n: usize, bytes: usize) {
        self.ends.reserve(n);
        self.text.reserve(bytes);
    }

    fn end(&self, i: usize) -> usize {
        let wraps = self.wraps.partition_point(|&w| w <= i);
        (wraps << 32) | self.ends[i] as usize
    }

    /// The string at `i` (empty past the end).
    pub fn get(&self, i: usize) -> &str {
        if i >= self.ends.len() {
            return "";
        }
        let start = if i == 0 { 0 } else { self.end(i - 1) };
        self.text.get(start..self.end(i)).unwrap_or("")
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// A set of distinct strings, each with a dense index (0, 1, 2, … in first-seen order) for
/// side tables. Lookups hash the text and compare it byte for byte, so two strings whose
/// hashes collide stay two entries.
#[derive(Default)]
pub struct Interner {
    names: Names,
    /// Indices into `names`, found by the hash of their text (4 bytes a string; growing the
    /// table hashes the texts again, which [`Interner::reserve`] spares a set of known size).
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

impl Interner {
    /// The index of `s`, and whether it was new. Past 2^32 − 1 distinct strings (a store
    /// far beyond any memory) a new string is still counted but no longer remembered.
    pub fn intern(&mut self, s: &str) -> (usize, bool) {
        let hash = self.hasher.hash_one(s);
        let Ok(small) = u32::try_from(self.names.len()) else {
            return match self.find(s) {
                Some(i) => (i, false),
                None => (self.names.push(s), true),
            };
        };
        let (names, hasher) = (&mut self.names, &self.hasher);
        match self.table.entry(
            hash,
            |&i| names.get(i as usize) == s,
            |&i| hasher.hash_one(names.get(i as usize)),
        ) {
            Entry::Occupied(e) => (*e.get() as usize, false),
            Entry::Vacant(e) => {
                e.insert(small);
                (names.push(s), true)
            }
        }
    }

    /// Room for `n` more strings of `bytes` in all: a set sized once neither rehashes nor
    /// leaves the buffers of its smaller sizes behind as it grows.
    pub fn reserve(&mut self, n: usize, bytes: usize) {
        self.names.reserve(n, bytes);
        let (names, hasher) = (&self.names, &self.hasher);
        self.table
            .reserve(n, |&i| hasher.hash_one(names.get(i as usize)));
    }

    pub fn find(&self, s: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(s);
        self.table
            .find(hash, |&i| self.names.get(i as usize) == s)
            .map(|&i| i as usize)
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
