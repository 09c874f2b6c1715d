//! Where each record of a store lies and which concept it holds, noted as a command's own pass
//! reads the store (`check`'s, through its facts; `diff`'s of HEAD, through its notes), so the
//! page weighs the concepts and finds their records without reading the store again: a record
//! is a fixed-size [`Sighting`] (the line it starts on, its byte offset and length, its
//! concept's key), kept in store order.
//!
//! Memory, whatever the store: [`HELD`] bytes; past them the sightings go to an unnamed
//! temporary file (`spill.rs`) and are read back a run at a time, in order. Without a
//! temporary file they stay in memory (28 bytes a record with a concept).

use crate::mapping::FieldMap;
use crate::spill::Spill;
use crate::store::{Shape, Sighting};
use std::io;

/// Bytes of sightings held in memory before they go to the temporary file (a run of about
/// 9,000 records).
const HELD: usize = 1 << 18;
/// Bytes a sighting takes, in memory and in the file.
const BYTES: usize = 28;

/// A sighting as the temporary file keeps it: [`BYTES`] bytes, little-endian.
fn encode(s: &Sighting, out: &mut Vec<u8>) {
    out.extend_from_slice(&s.line.to_le_bytes());
    out.extend_from_slice(&s.offset.to_le_bytes());
    out.extend_from_slice(&s.len.to_le_bytes());
    out.extend_from_slice(&s.key.to_le_bytes());
}

fn decode(b: &[u8]) -> Sighting {
    let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
    Sighting {
        line: u64_at(0),
        offset: u64_at(8),
        len: u32::from_le_bytes(b[16..20].try_into().unwrap_or_default()),
        key: u64_at(20),
    }
}

/// Every record of one store that holds a concept, as the store was read, in store order, and
/// how that read took the store: its shape and the map its records read through.
#[derive(Debug)]
pub struct Sightings {
    /// How a concept's text becomes its key (the same function for every sighting).
    pub(super) key: fn(&str) -> u64,
    held: Vec<u8>,
    spill: Spill,
    pub(super) shape: Shape,
    pub(super) map: FieldMap,
    /// Each sighting starts past the one before: a record's place is its own (the records of a
    /// one-line envelope share their line's).
    pub(super) placed: bool,
    /// Where the last sighting starts.
    last: Option<u64>,
}

impl Sightings {
    /// None yet; `key` makes a concept's key from its text.
    pub fn new(key: fn(&str) -> u64) -> Sightings {
        Sightings {
            key,
            held: Vec::new(),
            spill: Spill::new(HELD),
            shape: Shape::Empty,
            map: FieldMap::identity(),
            placed: true,
            last: None,
        }
    }

    /// The next record in store order holds a concept.
    pub fn note(&mut self, seen: Sighting) {
        if self.held.capacity() == 0 {
            // what a run holds at most, once: grown by doubling it would take twice that
            self.held.reserve_exact(HELD + BYTES);
        }
        if self.last.is_some_and(|last| seen.offset <= last) {
            self.placed = false;
        }
        self.last = Some(seen.offset);
        encode(&seen, &mut self.held);
        if self.spill.hold(BYTES) {
            let count = (self.held.len() / BYTES) as u32;
            match self.spill.write(0, count, self.held.len(), &[&self.held]) {
                Ok(()) => self.held.clear(),
                // kept in memory, and everything after them
                Err(_unwritable) => self.spill.stop(),
            }
        }
    }

    /// The store was read as `shape`, its records through `map`: how to read them back.
    pub fn read_as(&mut self, shape: Shape, map: FieldMap) {
        self.shape = shape;
        self.map = map;
    }

    /// Every sighting, in store order, to `each`. Fails only when the temporary file cannot
    /// be read back.
    pub(super) fn each(&self, each: &mut dyn FnMut(Sighting)) -> io::Result<()> {
        let mut run = Vec::new();
        for &at in self.spill.runs(0) {
            self.spill.read(at, &mut run)?;
            run.chunks_exact(BYTES).map(decode).for_each(&mut *each);
        }
        self.held.chunks_exact(BYTES).map(decode).for_each(each);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sightings_come_back_in_order_past_the_temporary_file() {
        let mut seen = Sightings::new(|_| 0);
        let all: Vec<Sighting> = (0..(3 * HELD / BYTES) as u64 + 17)
            .map(|i| Sighting {
                line: i + 1,
                offset: i * 1000 + u64::from(u32::MAX),
                len: (i % 5000) as u32,
                key: i.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            })
            .collect();
        for s in &all {
            seen.note(*s);
        }
        assert!(seen.spill.written() > 0, "some went to the file");
        assert!(seen.held.len() < HELD);
        let mut back = Vec::new();
        seen.each(&mut |s| back.push(s)).unwrap();
        assert_eq!(back, all);
    }
}
