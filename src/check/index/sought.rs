//! The texts sought among the ids (the targets of supersedes pointers, and the names of the
//! records without an id that supersede), gathered in store order while the records stream
//! past, and read in order when the ids are matched up (`ids.rs`) and again beside what
//! matching found as the pointers are followed (for the texts no id has).
//!
//! A text is written to its partition's stream and nothing else is kept of it: whoever
//! sought it keeps the partition (a byte), and its place there is its turn among that
//! partition's texts, so what matching found is read in the order the texts were sought
//! (`ids.rs`'s `FoundInOrder`). Keeping a place, a key and an end for each text held 12
//! bytes a text besides the text itself: a store whose records each supersede the five
//! before them held 60 MB of them, and the pointers another 80.
//!
//! Memory: each text's entry (32 bits of its hash, the length of its kept form, its kept
//! form) is held up to the budget's share in all (`Budget::sought`); past it every partition's go to the temporary
//! file of `spill.rs`. Matching reads one partition back at a time on each core.

use super::super::table::{key_of, part_of, partitions, share, PARTS};
use super::id_text::with_kept;
use crate::spill;
use std::borrow::Cow;
use std::io;

type Spill = spill::Spill;

/// A text sought among the ids: the partition it went to (its place there is its turn).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sought(u8);

impl Sought {
    pub fn part(self) -> usize {
        self.0 as usize
    }
}

/// The texts sought, by partition, each in store order.
pub struct SoughtTexts {
    /// By partition: the entries held, one after the other, and how many.
    held: Vec<Vec<u8>>,
    counts: Vec<u32>,
    /// The bytes held, and the runs of entries let go (partition `p`'s as the spill's `p`).
    spill: Spill,
}

impl SoughtTexts {
    /// No texts yet; every partition's go to the temporary file past `limit` bytes held.
    pub fn new(limit: usize) -> SoughtTexts {
        SoughtTexts {
            held: Vec::new(),
            counts: Vec::new(),
            spill: Spill::new(limit),
        }
    }

    /// Room for about `n` more texts of `bytes` in all (never more than is held at once).
    pub fn reserve(&mut self, n: usize, bytes: usize) {
        let entries = bytes.saturating_add(n.saturating_mul(ENTRY_HEAD));
        let room = entries.min(self.spill.limit());
        for part in partitions(&mut self.held) {
            part.reserve(share(room));
        }
    }

    /// Note a text to seek (`hash`: its [`super::super::table::hash`]).
    pub fn push(&mut self, text: &str, hash: u64) -> Sought {
        let part = part_of(hash);
        let held = &mut partitions(&mut self.held)[part];
        let before = held.len();
        held.extend_from_slice(&key_of(hash).to_le_bytes());
        with_kept(text, |kept| {
            write_len(held, kept.len());
            held.extend_from_slice(kept);
        });
        let added = held.len() - before;
        partitions(&mut self.counts)[part] += 1;
        if self.spill.hold(added) {
            self.write_out();
        }
        Sought(part as u8)
    }

    /// Write every partition's entries held to the temporary file, and let them go. What
    /// cannot be written stays held, and so does everything from then on.
    fn write_out(&mut self) {
        for (n, (held, count)) in self.held.iter_mut().zip(&mut self.counts).enumerate() {
            if held.is_empty() {
                continue;
            }
            if self.spill.write(n, *count, held.len(), &[held]).is_err() {
                self.spill.stop();
                return;
            }
            // the room stays: the partition fills it again
            held.clear();
            *count = 0;
        }
    }

    /// Let go of every text (nothing more is sought).
    pub fn forget(&mut self) {
        *self = SoughtTexts::new(self.spill.limit());
    }

    /// How many texts were sought in partition `p`.
    pub fn count(&self, p: usize) -> usize {
        let held = self.counts.get(p).map_or(0, |&n| n as usize);
        self.spill.count(p) + held
    }

    /// Every partition's entries in store order, read back one after the other.
    pub fn reader(&self) -> SoughtReader<'_> {
        let mut parts = Vec::new();
        parts.resize_with(PARTS, PartReader::default);
        SoughtReader { texts: self, parts }
    }

    /// Every entry of partition `p` in store order, given to `each`: the ones let go read
    /// back a run at a time, then the ones held. Fails when the temporary file cannot be read
    /// back, or an entry does not read back whole.
    ///
    /// Memory: a run. Not the partition whole: a store can seek hundreds of megabytes of
    /// texts (two dangling 255-byte paths a record), and matching reads a partition on each
    /// core.
    pub fn each_entry(&self, p: usize, mut each: impl FnMut(Entry<'_>)) -> io::Result<()> {
        let mut run_bytes = Vec::new();
        for &run in self.spill.runs(p) {
            self.spill.read(run, &mut run_bytes)?;
            for entry in entries(&run_bytes) {
                each(entry?);
            }
        }
        for entry in entries(self.held.get(p).map_or(&[][..], Vec::as_slice)) {
            each(entry?);
        }
        Ok(())
    }
}

/// Each partition's entries read back in order, a run at a time (the runs a partition went
/// to the temporary file in, then what it holds): a cursor a partition.
///
/// Memory: a run a partition, at most the budget's share in all (a run is what the partition held
/// when every partition's went).
pub struct SoughtReader<'s> {
    texts: &'s SoughtTexts,
    parts: Vec<PartReader<'s>>,
}

/// Where one partition's entries are read: the bytes read back of a run, or the ones held.
#[derive(Default)]
struct PartReader<'s> {
    bytes: Cow<'s, [u8]>,
    at: usize,
    /// The next run to read back, then (one past the runs) the held bytes, then none.
    next: usize,
}

impl<'s> SoughtReader<'s> {
    /// The next entry of partition `p`: its kept form. Fails when there is none, or it does
    /// not read back whole.
    pub fn next(&mut self, p: usize) -> io::Result<&[u8]> {
        let texts = self.texts;
        let part = self.parts.get_mut(p).ok_or(io::ErrorKind::UnexpectedEof)?;
        while part.at == part.bytes.len() {
            let runs = texts.spill.runs(p);
            part.at = 0;
            part.bytes = match runs.get(part.next) {
                Some(&run) => {
                    let mut read = std::mem::take(&mut part.bytes).into_owned();
                    texts.spill.read(run, &mut read)?;
                    Cow::Owned(read)
                }
                None if part.next == runs.len() => {
                    Cow::Borrowed(texts.held.get(p).map_or(&[][..], Vec::as_slice))
                }
                None => return Err(io::ErrorKind::UnexpectedEof.into()),
            };
            part.next += 1;
        }
        let ((_, kept), rest) =
            split_entry(&part.bytes[part.at..]).ok_or(io::ErrorKind::InvalidData)?;
        let end = part.bytes.len() - rest.len();
        let start = end - kept.len();
        part.at = end;
        Ok(&part.bytes[start..end])
    }
}

/// The bytes of an entry besides its kept form, about: its key, and a length under 128.
const ENTRY_HEAD: usize = 5;

/// `len` in the bytes after it, seven bits a byte, low first: a high bit set means more.
fn write_len(out: &mut Vec<u8>, mut len: usize) {
    while len >= 0x80 {
        out.push((len as u8 & 0x7f) | 0x80);
        len >>= 7;
    }
    out.push(len as u8);
}

/// A length written by [`write_len`] at the start of `bytes`, and the bytes after it.
fn read_len(bytes: &[u8]) -> Option<(usize, &[u8])> {
    let mut len = 0usize;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        len |= ((b & 0x7f) as usize).checked_shl(7 * i as u32)?;
        if b & 0x80 == 0 {
            return Some((len, &bytes[i + 1..]));
        }
    }
    None
}

/// The entries in `bytes` (a run of a partition, or what it holds), in order: each one's key
/// and kept form, then `Err` once if the bytes end in the middle of one (the file they were
/// read from changed).
fn entries(mut bytes: &[u8]) -> impl Iterator<Item = io::Result<Entry<'_>>> {
    std::iter::from_fn(move || {
        if bytes.is_empty() {
            return None;
        }
        let Some((entry, rest)) = split_entry(bytes) else {
            bytes = &[];
            return Some(Err(io::ErrorKind::InvalidData.into()));
        };
        bytes = rest;
        Some(Ok(entry))
    })
}

/// An entry: its key, and its kept form.
pub type Entry<'b> = (u32, &'b [u8]);

/// The entry at the start of `bytes`, and the bytes after it; `None` when it does not end
/// there.
fn split_entry(bytes: &[u8]) -> Option<(Entry<'_>, &[u8])> {
    let (key, rest) = bytes.split_first_chunk::<4>()?;
    let (len, rest) = read_len(rest)?;
    let kept = rest.get(..len)?;
    Some(((u32::from_le_bytes(*key), kept), &rest[len..]))
}

#[cfg(test)]
mod tests {
    use super::super::super::table::hash;
    use super::super::id_text::RecordName;
    use super::*;

    proptest::proptest! {
        /// Every text comes back from its partition in the order it was sought, with its
        /// hash's key, whether its entries stayed held or went to the temporary file a few
        /// at a time.
        #[test]
        fn texts_come_back_in_the_order_sought(
            texts in proptest::collection::vec(
                proptest::prop_oneof![
                    "[0a]{8}-0000-4000-8000-00000000000[0aA]",
                    "\\PC{0,3}",
                    "x{120,300}",
                ],
                0..60,
            ),
            limit in 1usize..200,
        ) {
            for limit in [usize::MAX, limit] {
                let mut sought = SoughtTexts::new(limit);
                let parts: Vec<Sought> = texts.iter().map(|t| sought.push(t, hash(t))).collect();
                for p in 0..PARTS {
                    let mut came_back = Vec::new();
                    let back = |(key, kept): (u32, &[u8])| came_back.push((key, kept.to_vec()));
                    sought.each_entry(p, back).unwrap();
                    let sought_here = texts.iter().zip(&parts).filter(|(_, s)| s.part() == p);
                    proptest::prop_assert_eq!(came_back.len(), sought_here.clone().count());
                    for ((text, _), (key, kept)) in sought_here.zip(came_back) {
                        proptest::prop_assert_eq!(key, key_of(hash(text)));
                        let name = RecordName::of_read(kept).unwrap();
                        proptest::prop_assert_eq!(name.to_string(), text.as_str());
                    }
                }
                // read in the order sought, a partition's cursor at a time
                let mut reader = sought.reader();
                for (text, s) in texts.iter().zip(&parts) {
                    let name = RecordName::of_read(reader.next(s.part()).unwrap().to_vec()).unwrap();
                    proptest::prop_assert_eq!(name.to_string(), text.as_str());
                }
                for p in 0..PARTS {
                    proptest::prop_assert!(reader.next(p).is_err(), "no more");
                }
            }
        }
    }

    /// An entry cut short is an error, once, and nothing after it is read.
    #[test]
    fn an_entry_cut_short_is_an_error() {
        let mut sought = SoughtTexts::new(1 << 20);
        sought.push("R-1", 0);
        sought.push("R-2", 0);
        let bytes = &sought.held[0];
        let cut = &bytes[..bytes.len() - 1];
        let read: Vec<_> = entries(cut).map(|e| e.is_ok()).collect();
        assert_eq!(read, vec![true, false]);
    }
}
