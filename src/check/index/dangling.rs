//! The supersedes pointers that name no record in the store (`value.supersedes_unknown`), as
//! its warning names each one: `record → target`, on the record's line.
//!
//! Every pointer of a store can dangle (a slice of a larger store names records left out),
//! and the warning names every one: a text for each (`R-0000001 → X-7`, its end and its line)
//! held 37 bytes a pointer, twice over as the warning took a copy, and a slice whose records
//! each supersede one left out peaked at 179 MiB. Here a pointer is its record (by number)
//! and its target's kept form (`id_text.rs`), one after the other, and the name is made when
//! a report writes it.
//!
//! Memory: two bytes a pointer (its length; where every 64th starts, 8 bytes), and the pointers
//! held up to the budget's share (`Budget::dangling`); past it they go to the temporary file of `spill.rs`, and are read
//! back as the names are written (in order: `ids.rs`'s `ReadAhead` reads the next ones with
//! each).

use super::id_text::RecordName;
use super::ids::{read_span, ReadAhead};
use super::names::{RecordNames, NAMED};
use super::Budget;
use crate::spill;
use std::sync::atomic::{AtomicBool, Ordering};

type Spill = spill::Spill;

/// The one partition of [`Dangling::spill`].
const PART: usize = 0;

/// The bytes of a pointer's record, before its target's kept form.
const FROM: usize = 4;

/// Every how many pointers where one starts is kept (see [`Dangling::bounds`]).
const STRIDE: usize = 64;

/// A pointer's length too long for two bytes (see [`Dangling::lens`]).
const LONG: u16 = u16::MAX;

pub struct Dangling {
    /// Each pointer's length: its record (4 bytes, little-endian: its id's index, named by
    /// its id as the pointer names it, or with [`NAMED`] the place of its name aside, for a
    /// record without an id), then its target's kept form. [`LONG`] for the few longer than
    /// two bytes tell, kept in `long` by pointer. Not one byte: a store can name targets of
    /// 255 bytes and more by the million (paths), and `long` took 16 bytes for each.
    lens: Vec<u16>,
    long: Vec<(usize, usize)>,
    /// Where every [`STRIDE`]th pointer starts, among all their bytes.
    starts: Vec<u64>,
    /// The bytes of the pointers held, after the ones let go ...
    held: Vec<u8>,
    /// ... and how many of the first bytes were let go.
    gone: u64,
    spill: Spill,
    /// A pointer could not be read back from the temporary file.
    unreadable: AtomicBool,
}

impl Default for Dangling {
    fn default() -> Self {
        Dangling::new(Budget::DEFAULT.dangling)
    }
}

impl Dangling {
    /// No pointers yet; they go to the temporary file past `limit` bytes held.
    pub fn new(limit: usize) -> Dangling {
        Dangling {
            lens: Vec::new(),
            long: Vec::new(),
            starts: Vec::new(),
            held: Vec::new(),
            gone: 0,
            spill: Spill::new(limit),
            unreadable: AtomicBool::new(false),
        }
    }

    /// Room for up to `n` more pointers.
    pub fn reserve(&mut self, n: usize) {
        self.lens.reserve(n);
    }

    /// Note a pointer of the record `from` (see [`Dangling::lens`]) to a target no record
    /// has, by its kept form (as `sought.rs` keeps it).
    pub fn push(&mut self, from: u32, kept: &[u8]) {
        let k = self.lens.len();
        if k.is_multiple_of(STRIDE) {
            self.starts.push(self.gone + self.held.len() as u64);
        }
        let len = FROM + kept.len();
        match u16::try_from(len) {
            Ok(short) if short != LONG => self.lens.push(short),
            _ => {
                self.lens.push(LONG);
                self.long.push((k, len));
            }
        }
        self.held.extend_from_slice(&from.to_le_bytes());
        self.held.extend_from_slice(kept);
        if self.spill.hold(len) {
            self.write_out();
        }
    }

    /// Write the pointers held to the temporary file, and let them go. What cannot be
    /// written stays held, and so does everything from then on.
    fn write_out(&mut self) {
        // the count is not asked for: this partition's runs are read by place only
        let len = self.held.len();
        if self.spill.write(PART, 0, len, &[&self.held]).is_err() {
            self.spill.stop();
            return;
        }
        self.gone += len as u64;
        // the room stays: the next pointers fill it again
        self.held.clear();
    }

    pub fn len(&self) -> usize {
        self.lens.len()
    }

    /// A pointer could not be read back: a report that named it is missing its name.
    pub fn unreadable(&self) -> bool {
        self.unreadable.load(Ordering::Relaxed)
    }

    /// The length of the `k`th pointer.
    fn len_of(&self, k: usize) -> usize {
        match self.lens[k] {
            LONG => self
                .long
                .binary_search_by_key(&k, |&(at, _)| at)
                .map_or(0, |at| self.long[at].1),
            short => usize::from(short),
        }
    }

    /// Where the `k`th pointer starts and ends among all their bytes: from the start of its
    /// stride on, past the ones before it.
    fn bounds(&self, k: usize) -> Option<(u64, u64)> {
        let first = k / STRIDE * STRIDE;
        let mut start = *self.starts.get(k / STRIDE)?;
        for j in first..k {
            start += self.len_of(j) as u64;
        }
        Some((start, start + self.len_of(k) as u64))
    }

    /// The name of the `k`th pointer, `record → target`, and the record's line; what went to
    /// the temporary file is read through `ahead` when given (the ids', then the pointers').
    /// A pointer that cannot be read back is named empty, and noted.
    pub fn name(
        &self,
        k: usize,
        names: &RecordNames,
        ahead: Option<(&mut ReadAhead, &mut ReadAhead)>,
    ) -> (RecordName<'static>, u64) {
        let (ids_ahead, own_ahead) = match ahead {
            Some((ids, own)) => (Some(ids), Some(own)),
            None => (None, None),
        };
        let read;
        let entry = match self.bounds(k) {
            Some((start, end)) if start >= self.gone => {
                let at = |byte: u64| (byte - self.gone) as usize;
                self.held.get(at(start)..at(end))
            }
            Some(span) => {
                read = read_span((&self.spill, PART), span, own_ahead).ok();
                read.as_deref()
            }
            None => None,
        };
        let pointer = entry.and_then(|entry| {
            let (from, kept) = entry.split_first_chunk::<FROM>()?;
            Some((
                u32::from_le_bytes(*from),
                RecordName::of_read(kept.to_vec())?,
            ))
        });
        let Some((from, target)) = pointer else {
            self.unreadable.store(true, Ordering::Relaxed);
            return (RecordName::Text(""), 0);
        };
        let (record, line) = match from & NAMED {
            0 => match ids_ahead {
                Some(ahead) => (names.ids.text_ahead(from, ahead), names.ids.line(from)),
                None => (names.ids.text(from), names.ids.line(from)),
            },
            _ => names.named_at((from & !NAMED) as usize),
        };
        let name = format!("{record} → {target}");
        (RecordName::Read(name.into_boxed_str()), line)
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::table::hash;
    use super::*;

    /// Each pointer is named by its record and its target, on the record's line, whether
    /// the targets stayed held or went to the temporary file.
    #[test]
    fn each_pointer_is_named_by_its_record_and_target() {
        let mut names = RecordNames::default();
        names.ids.push("R-1", hash("R-1"), 4, false);
        let aside = names.name_aside("record 2", 9) | NAMED;
        for limit in [usize::MAX, 1] {
            let mut dangling = Dangling {
                spill: Spill::new(limit),
                ..Dangling::default()
            };
            dangling.push(0, b"X-1");
            dangling.push(aside, b"X-2");
            dangling.push(0, b"X-3");
            let named: Vec<(String, u64)> = (0..dangling.len())
                .map(|k| {
                    let (name, line) = dangling.name(k, &names, None);
                    (name.to_string(), line)
                })
                .collect();
            let expected = [("R-1 → X-1", 4), ("record 2 → X-2", 9), ("R-1 → X-3", 4)];
            assert_eq!(named, expected.map(|(n, l)| (n.to_string(), l)));
            let (mut ids, mut own) = (ReadAhead::default(), ReadAhead::default());
            let (name, _) = dangling.name(1, &names, Some((&mut ids, &mut own)));
            assert_eq!(name, "record 2 → X-2");
            assert!(!dangling.unreadable());
        }
        // past a stride, longer than a byte tells, and than two (the 130th): each comes back,
        // held or read back
        let target = |k: usize| match k {
            130 => "L".repeat(70_000),
            _ => "T".repeat(k % 7 * 60),
        };
        let targets: Vec<String> = (0..200).map(target).collect();
        for limit in [usize::MAX, 300] {
            let mut dangling = Dangling {
                spill: Spill::new(limit),
                ..Dangling::default()
            };
            for target in &targets {
                dangling.push(0, target.as_bytes());
            }
            for k in [0, 63, 64, 65, 130, 199, 5] {
                let (name, _) = dangling.name(k, &names, None);
                assert_eq!(name.as_str(), format!("R-1 → {}", targets[k]), "{k}");
            }
        }
        // bytes that are no kept form (a file changed under it): named empty, and noted
        let mut dangling = Dangling::default();
        dangling.push(0, &[0xff, 1]);
        assert_eq!(dangling.name(0, &names, None).0, "");
        assert!(dangling.unreadable());
    }
}
