//! What `diff` keeps of each side while it reads: every record, and every supersedes pointer,
//! as bytes in the partition of the id it is matched by (a pointer goes with the record it
//! names), so that a partition of BASE and the same partition of HEAD hold everything one
//! id's judgement needs. Past its share of the budget a column goes to an unnamed temporary
//! file (`crate::spill`), and comes back a partition at a time: the two stores are never in
//! memory at once, only one partition of each.
//!
//! An entry is a few fields one after the other: a `u64` as 8 bytes, a text as its length
//! (`u32`) and its bytes, all little-endian.

use crate::spill::Spill;
use std::borrow::Cow;
use std::hash::BuildHasher;
use std::sync::OnceLock;

/// Partitions a side is kept in: a partition of a 1M-record store of 420 MB is some 7 MB.
pub const PARTS: usize = 64;

/// The partition of an id: the same for both sides of one run.
pub fn part_of(id: &str) -> usize {
    let h = hasher().hash_one(id);
    // the high bits: the low ones place the id in the partition's table
    (h >> 58) as usize % PARTS
}

/// A text's hash, the same for both sides of one run: two texts with the same hash are taken
/// to be the same (one pair in 2^64 is not).
pub fn hash_of(text: &str) -> u64 {
    hasher().hash_one(text)
}

fn hasher() -> &'static hashbrown::DefaultHashBuilder {
    static HASHER: OnceLock<hashbrown::DefaultHashBuilder> = OnceLock::new();
    HASHER.get_or_init(hashbrown::DefaultHashBuilder::default)
}

/// One column of one side: its entries by partition, held until the budget says they go to
/// the file.
pub struct Column {
    held: Vec<Vec<u8>>,
    counts: Vec<u32>,
    spill: Spill,
}

impl Column {
    /// A column that holds `limit` bytes before every partition's go to the file.
    pub fn new(limit: usize) -> Column {
        Column {
            held: vec![Vec::new(); PARTS],
            counts: vec![0; PARTS],
            spill: Spill::new(limit),
        }
    }

    /// Add an entry to partition `part`.
    pub fn push(&mut self, part: usize, entry: &[u8]) {
        self.held[part].extend_from_slice(entry);
        self.counts[part] += 1;
        if self.spill.hold(entry.len()) {
            self.write_out();
        }
    }

    /// Every partition's entries to the file; what cannot be written stays in memory (and so
    /// does everything after it: the answer is the same).
    fn write_out(&mut self) {
        for part in 0..PARTS {
            if self.held[part].is_empty() {
                continue;
            }
            let len = self.held[part].len();
            let count = std::mem::take(&mut self.counts[part]);
            if self
                .spill
                .write(part, count, len, &[&self.held[part]])
                .is_err()
            {
                self.counts[part] = count;
                self.spill.stop();
                return;
            }
            // the memory goes: a partition's next entries come long after
            self.held[part] = Vec::new();
        }
    }

    /// The side is read: if the column went to the file, what it still holds goes too, so that
    /// the next side and the matching have the memory. A column that fits stays in memory.
    pub fn settle(&mut self) {
        if self.spill.written() > 0 {
            self.write_out();
        }
    }

    /// Partition `part` whole, in the order its entries came.
    pub fn part(&self, part: usize) -> std::io::Result<Cow<'_, [u8]>> {
        self.spill.whole(part, &self.held[part])
    }

    /// Bytes that went to the temporary file.
    #[cfg(test)]
    pub fn written(&self) -> u64 {
        self.spill.written()
    }
}

/// An entry being written.
#[derive(Default)]
pub struct Writer(pub Vec<u8>);

impl Writer {
    pub fn num(&mut self, n: u64) -> &mut Self {
        self.0.extend_from_slice(&n.to_le_bytes());
        self
    }

    pub fn text(&mut self, s: &str) -> &mut Self {
        // a text longer than 4 GiB cannot be a record the reader took
        let len = u32::try_from(s.len()).unwrap_or(u32::MAX);
        self.0.extend_from_slice(&len.to_le_bytes());
        self.0.extend_from_slice(&s.as_bytes()[..len as usize]);
        self
    }
}

/// Entries read back, one field at a time, in the order they were written.
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.bytes.split_at_checked(n)?;
        self.bytes = rest;
        Some(head)
    }

    pub fn num(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    pub fn text(&mut self) -> Option<&'a str> {
        let len = u32::from_le_bytes(self.take(4)?.try_into().ok()?);
        std::str::from_utf8(self.take(len as usize)?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_that_fits_stays_in_memory() {
        let mut column = Column::new(1 << 20);
        column.push(1, b"entry");
        column.settle();
        assert_eq!(column.written(), 0);
        assert_eq!(&*column.part(1).unwrap(), b"entry");
    }

    #[test]
    fn entries_come_back_in_order_past_the_budget() {
        let mut column = Column::new(64);
        for i in 0..1000u64 {
            let mut w = Writer::default();
            w.num(i).text(&format!("id-{i}"));
            column.push((i % 3) as usize, &w.0);
        }
        assert!(
            column.written() > 0,
            "the budget of 64 bytes sent entries to the file"
        );
        column.settle();
        assert!(
            column.held.iter().all(Vec::is_empty),
            "settled: what was held went too"
        );
        for part in 0..3 {
            let bytes = column.part(part).unwrap();
            let mut r = Reader::new(&bytes);
            let mut n = part as u64;
            while !r.is_empty() {
                assert_eq!(r.num(), Some(n));
                assert_eq!(r.text(), Some(format!("id-{n}").as_str()));
                n += 3;
            }
            assert!(n >= 1000, "every entry of partition {part} came back");
        }
    }
}
