//! The layout of a store's keys, learned as the scanner reads it: the lines of a store are
//! written by one program, key after key in the same order with the same spacing, so the
//! bytes from a key's opening quote to its value (`"valid_from": `) are nearly always the
//! ones that followed the key before it on the last line. The scanner compares the line with
//! that run, two 16-byte words, and on a match takes the key and its slot without reading the
//! key, looking it up, or stepping over the colon, which a check does for every key of every
//! line. A line laid out otherwise is read key by key, as always, and teaches the
//! layout its own order.
//!
//! Taking a run of bytes equal to one the scanner read before is taking the same key: the run
//! was a string (escapes and all: equal escapes decode alike), a colon and spaces, and equal
//! bytes read the same. A layout is kept per thread and per [`KeySlots`] (slot numbers mean nothing
//! to another set), two sets at a time.

use super::keep::KeySlots;
use std::cell::RefCell;

/// The longest run learned (a longer key is read each time).
const MAX_RUN: usize = 32;

/// How many different runs a layout learns; past this, new keys are read each time.
const MAX_RUNS: usize = 64;

/// "No run": the start of a line as `prev`, or a key not learned.
pub const NO_RUN: u8 = u8::MAX;

/// Places for finding a run by its bytes when it was not predicted (a power of two).
const PLACES: usize = 64;

/// One learned run: its bytes as two words, zero past its length; which bytes count; the slot
/// of its key; the run that followed it last time.
#[derive(Clone, Copy)]
pub struct Run {
    words: [u128; 2],
    masks: [u128; 2],
    len: u8,
    pub slot: Option<usize>,
    next: u8,
}

impl Run {
    fn new(bytes: &[u8], slot: Option<usize>) -> Run {
        let mut padded = [0u8; MAX_RUN];
        padded[..bytes.len()].copy_from_slice(bytes);
        let mut mask = [0u8; MAX_RUN];
        mask[..bytes.len()].fill(0xff);
        Run {
            words: words(&padded),
            masks: words(&mask),
            len: bytes.len() as u8,
            slot,
            next: NO_RUN,
        }
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// `bytes` at `at` starts with this run.
    #[inline(always)]
    pub fn starts(&self, bytes: &[u8], at: usize) -> bool {
        match bytes.get(at..at + MAX_RUN) {
            Some(window) => {
                let got = words(window);
                ((got[0] ^ self.words[0]) & self.masks[0])
                    | ((got[1] ^ self.words[1]) & self.masks[1])
                    == 0
            }
            // near the end of the line: byte by byte
            None => {
                let run = self.words_bytes();
                bytes.get(at..at + self.len()) == Some(&run[..self.len()])
            }
        }
    }

    fn words_bytes(&self) -> [u8; MAX_RUN] {
        let mut out = [0u8; MAX_RUN];
        out[..16].copy_from_slice(&self.words[0].to_le_bytes());
        out[16..].copy_from_slice(&self.words[1].to_le_bytes());
        out
    }
}

/// The first 32 bytes of `bytes` (at least that many) as two little-endian words.
#[inline(always)]
fn words(bytes: &[u8]) -> [u128; 2] {
    let word = |at: usize| {
        u128::from_le_bytes(
            bytes
                .get(at..at + 16)
                .and_then(|w| w.try_into().ok())
                .unwrap_or([0; 16]),
        )
    };
    [word(0), word(16)]
}

/// The runs learned from one set of keys on one thread.
pub struct Layout {
    /// The [`KeySlots::id`] the runs were learned with.
    set: u64,
    runs: Vec<Run>,
    /// The run that started the last line.
    first: u8,
    /// Runs by a few of their bytes, for finding a run read key by key.
    places: [u8; PLACES],
}

impl Layout {
    fn new(set: u64) -> Layout {
        Layout {
            set,
            runs: Vec::with_capacity(MAX_RUNS),
            first: NO_RUN,
            places: [NO_RUN; PLACES],
        }
    }

    /// The run expected after `prev` ([`NO_RUN`]: at the start of a line), and its number.
    #[inline(always)]
    pub fn after(&self, prev: u8) -> Option<(u8, &Run)> {
        let next = if prev == NO_RUN {
            self.first
        } else {
            self.runs.get(prev as usize)?.next
        };
        self.runs.get(next as usize).map(|run| (next, run))
    }

    /// The number of a run read key by key (learned now if it is new and there is room;
    /// [`NO_RUN`] if not), noted as what follows `prev`.
    pub fn learn(&mut self, prev: u8, run: &[u8], slot: Option<usize>) -> u8 {
        let found = self.find_or_add(run, slot);
        match prev {
            NO_RUN => self.first = found,
            prev => {
                if let Some(p) = self.runs.get_mut(prev as usize) {
                    p.next = found;
                }
            }
        }
        found
    }

    fn find_or_add(&mut self, run: &[u8], slot: Option<usize>) -> u8 {
        if run.is_empty() || run.len() > MAX_RUN {
            return NO_RUN;
        }
        let place = (run.len() * 7 + run[run.len() / 2] as usize * 3 + run[1] as usize) % PLACES;
        let mut padded = [0u8; MAX_RUN];
        padded[..run.len()].copy_from_slice(run);
        let (words, len) = (words(&padded), run.len() as u8);
        let same = |r: &Run| r.len == len && r.words == words;
        let candidate = self.places[place];
        if self.runs.get(candidate as usize).is_some_and(same) {
            return candidate;
        }
        let found = match self.runs.iter().position(same) {
            Some(i) => i as u8,
            None if self.runs.len() < MAX_RUNS => {
                self.runs.push(Run::new(run, slot));
                (self.runs.len() - 1) as u8
            }
            None => return NO_RUN,
        };
        self.places[place] = found;
        found
    }
}

thread_local! {
    static LAYOUT: RefCell<Layout> = RefCell::new(Layout::new(u64::MAX));
    /// The layout of the set used before, kept: a line's keys and the keys inside one of its
    /// objects (the engrama map's `properties`) are two sets, scanned in turn.
    static BEFORE: RefCell<Layout> = RefCell::new(Layout::new(u64::MAX));
}

/// Run `f` with this thread's layout for `slots` (the one kept from before if it was learned
/// with that set, else a fresh one; the other is kept).
#[inline]
pub fn with_layout<R>(slots: &KeySlots, f: impl FnOnce(&mut Layout) -> R) -> R {
    LAYOUT.with_borrow_mut(|layout| {
        if layout.set != slots.id() {
            BEFORE.with_borrow_mut(|before| {
                if before.set != slots.id() {
                    *before = Layout::new(slots.id());
                }
                std::mem::swap(layout, before);
            });
        }
        f(layout)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_starts_a_line_only_where_its_bytes_are() {
        let run = Run::new(br#""valid_from": "#, Some(3));
        let line = br#"{"valid_from": "2020-01-01", "valid_fromx": 1}                    "#;
        assert!(run.starts(line, 1));
        assert!(!run.starts(line, 0));
        // near the end, with fewer than 32 bytes left
        assert!(run.starts(&line[..20], 1));
        assert!(!run.starts(&line[..10], 1));
        let other = br#"{"valid_fromx": 1}"#;
        assert!(!run.starts(other, 1));
    }

    #[test]
    fn learns_which_run_follows_which() {
        let mut layout = Layout::new(0);
        let a = layout.learn(NO_RUN, br#""a": "#, Some(0));
        let b = layout.learn(a, br#""b": "#, None);
        assert_eq!(layout.after(NO_RUN).map(|r| r.0), Some(a));
        assert_eq!(layout.after(a).map(|r| r.0), Some(b));
        assert_eq!(layout.after(b).map(|r| r.0), None);
        // the same bytes again are the same run; a new order replaces the old
        assert_eq!(layout.learn(b, br#""a": "#, Some(0)), a);
        assert_eq!(layout.after(b).map(|r| r.0), Some(a));
        // too long to learn
        let long = format!(r#""{}": "#, "k".repeat(40));
        assert_eq!(layout.learn(a, long.as_bytes(), None), NO_RUN);
        assert_eq!(layout.after(a).map(|r| r.0), None);
    }

    #[test]
    fn stops_learning_when_full() {
        let mut layout = Layout::new(0);
        let mut prev = NO_RUN;
        for i in 0..MAX_RUNS + 5 {
            let run = format!(r#""key{i}": "#);
            let got = layout.learn(prev, run.as_bytes(), None);
            assert_eq!(got == NO_RUN, i >= MAX_RUNS, "{i}");
            prev = got;
        }
        // the runs learned are still found by their bytes
        assert_eq!(layout.learn(NO_RUN, br#""key3": "#, None), 3);
    }
}
