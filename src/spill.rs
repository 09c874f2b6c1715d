//! Where what a check keeps for every record goes past a fixed amount in memory: an unnamed
//! temporary file (the operating system removes it however vercy ends), written a run of one
//! partition at a time, and read back a partition at a time when the check settles it, on
//! whichever core settles that partition. Without a temporary file (none can be made or
//! written) everything stays in memory, with the same answer: the caller keeps what it could
//! not write, and nothing more goes to the file.
//!
//! Every spilling column of check's index goes here (`check/index/`: the ids, the texts sought,
//! the dangling pointers, the concepts, the timeline); each says what its runs hold and counts
//! what it holds in its own unit (entries, bytes), under the limit its share of the index's
//! `Budget` gives it. It sits low in the house so that any command that keeps something per id
//! or per concept can spill the same way.
//!
//! Every temporary file vercy makes is made here ([`temp_file`]): unnamed, in the system's
//! temporary folder (`TMPDIR`), so the operating system sweeps it on every exit, Ctrl-C and a
//! kill included; what is in them is counted ([`temp_bytes`]) for the progress bar. The
//! budget the user gives (`--memory`) is read here too ([`memory_budget`]).
//!
//! A command that gathers entries by the partition of a text (diff's sides, compact's
//! selection) keeps them in a [`Column`]: each partition's entries as bytes, to the file past
//! the column's limit, read back a partition at a time.

use crate::file_at::read_at;
use std::borrow::Cow;
use std::collections::HashSet;
use std::fs::File;
use std::hash::BuildHasher;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// What a command may keep in memory of what grows with the store when the user says nothing
/// (`--memory`).
pub const DEFAULT_MEMORY: usize = 128 << 20;

/// `--memory SIZE`: bytes, or a number with a unit (`K`, `M`, `G`, `T`, each of 1024 the
/// one before, with or without `iB` or `B`; `128M`, `1.5G`, `512MiB`). Zero, negative and
/// anything else is refused with the reason.
pub fn memory_budget(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let digits = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(format!("{text:?} is not a size")),
    };
    let number: f64 = match number.parse() {
        Ok(n) if number.starts_with(|c: char| c.is_ascii_digit()) => n,
        _ => return Err(format!("{text:?} is not a size")),
    };
    let bytes = number * (1u64 << shift) as f64;
    if bytes < 1.0 {
        return Err(format!("{text:?} leaves no memory at all"));
    }
    // a budget past what the machine can address is every byte it can
    Ok(if bytes >= usize::MAX as f64 {
        usize::MAX
    } else {
        bytes as usize
    })
}

/// Bytes in every temporary file vercy holds now.
static TEMP_BYTES: AtomicU64 = AtomicU64::new(0);

/// How many bytes vercy's temporary files hold now (for the progress bar).
pub fn temp_bytes() -> u64 {
    TEMP_BYTES.load(Ordering::Relaxed)
}

/// A new temporary file: unnamed, so it is gone however vercy ends; what is written to it
/// counts in [`temp_bytes`] until it is dropped.
pub fn temp_file() -> io::Result<TempFile> {
    Ok(TempFile {
        file: tempfile::tempfile()?,
        end: 0,
        at: 0,
    })
}

/// A temporary file from [`temp_file`]: written through `Write` (counted), read through the
/// file it derefs to.
#[derive(Debug)]
pub struct TempFile {
    file: File,
    /// How far it has been written (what it counts in [`temp_bytes`]), and where the next
    /// write goes.
    end: u64,
    at: u64,
}

impl TempFile {
    /// The file, to read it (`file_at::read_at`) or hand it on whole.
    pub fn file(&self) -> &File {
        &self.file
    }
}

impl Write for TempFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.at += n as u64;
        if self.at > self.end {
            TEMP_BYTES.fetch_add(self.at - self.end, Ordering::Relaxed);
            self.end = self.at;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Read for TempFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        self.at += n as u64;
        Ok(n)
    }
}

impl Seek for TempFile {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.at = self.file.seek(pos)?;
        Ok(self.at)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        TEMP_BYTES.fetch_sub(self.end, Ordering::Relaxed);
    }
}

/// One partition's things written together: where they start in the file, how many, and how
/// many bytes.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    pub at: u64,
    pub count: u32,
    pub len: u64,
}

/// What a column holds in memory, and the file its partitions' runs go to past its limit.
#[derive(Debug)]
pub struct Spill {
    held: usize,
    limit: usize,
    file: Option<TempFile>,
    written: u64,
    /// Each partition's runs, in the order written (store order).
    runs: Vec<Vec<Run>>,
    /// No temporary file could be made or written: nothing more goes to it.
    stopped: bool,
}

impl Spill {
    /// Nothing held yet; every partition's things go to the file past `limit` of them.
    pub fn new(limit: usize) -> Self {
        Spill {
            held: 0,
            limit,
            file: None,
            written: 0,
            runs: Vec::new(),
            stopped: false,
        }
    }

    /// Note `n` more held in memory: whether every partition's should go to the file now.
    #[inline]
    pub fn hold(&mut self, n: usize) -> bool {
        self.held += n;
        self.held >= self.limit && !self.stopped
    }

    /// Write a run of `count` things of partition `part`, `held` of what [`Self::hold`] counted,
    /// its bytes the `pieces` one after the other. On an error nothing of the run counts as
    /// written.
    pub fn write(
        &mut self,
        part: usize,
        count: u32,
        held: usize,
        pieces: &[&[u8]],
    ) -> io::Result<()> {
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(temp_file()?),
        };
        file.seek(SeekFrom::Start(self.written))?;
        for piece in pieces {
            file.write_all(piece)?;
        }
        let len = pieces.iter().map(|piece| piece.len() as u64).sum();
        if self.runs.len() <= part {
            self.runs.resize_with(part + 1, Vec::new);
        }
        self.runs[part].push(Run {
            at: self.written,
            count,
            len,
        });
        self.written += len;
        self.held = self.held.saturating_sub(held);
        Ok(())
    }

    /// How much is held in memory before every partition's runs go to the file.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// How many bytes went to the file.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// How much is held in memory that could still go to the file (none once stopped).
    pub fn held(&self) -> usize {
        if self.stopped {
            0
        } else {
            self.held
        }
    }

    /// A write failed: what was not written stays in memory, and so does the rest from now on.
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    /// The runs of partition `part`, in the order written.
    pub fn runs(&self, part: usize) -> &[Run] {
        self.runs.get(part).map_or(&[], Vec::as_slice)
    }

    /// How many things partition `part` has in the file.
    pub fn count(&self, part: usize) -> usize {
        self.runs(part).iter().map(|run| run.count as usize).sum()
    }

    /// The bytes of `run`, into `buf`. Fails only when the file cannot be read back.
    pub fn read(&self, run: Run, buf: &mut Vec<u8>) -> io::Result<()> {
        let file = self.file.as_ref().ok_or(io::ErrorKind::NotFound)?;
        let len = usize::try_from(run.len).map_err(|_| io::ErrorKind::InvalidData)?;
        buf.resize(len, 0);
        read_at(file.file(), run.at, buf)
    }

    /// Partition `part` whole: its runs one after the other, then `held` (what the caller
    /// still holds of it). Borrowed when nothing went to the file; else read into one buffer
    /// sized for all of it at once, as a buffer grown run by run would end up to twice the
    /// partition's size (and copy it on each growth).
    pub fn whole<'h>(&self, part: usize, held: &'h [u8]) -> io::Result<Cow<'h, [u8]>> {
        let runs = self.runs(part);
        if runs.is_empty() {
            return Ok(Cow::Borrowed(held));
        }
        let file = self.file.as_ref().ok_or(io::ErrorKind::NotFound)?.file();
        let in_file: u64 = runs.iter().map(|run| run.len).sum();
        let in_file = usize::try_from(in_file).map_err(|_| io::ErrorKind::InvalidData)?;
        let mut all = Vec::with_capacity(in_file.saturating_add(held.len()));
        for run in runs {
            let start = all.len();
            let len = usize::try_from(run.len).map_err(|_| io::ErrorKind::InvalidData)?;
            all.resize(start + len, 0);
            read_at(file, run.at, &mut all[start..])?;
        }
        all.extend_from_slice(held);
        Ok(Cow::Owned(all))
    }

    /// Bytes `from..to` of partition `part`'s runs taken one after the other, and up to
    /// `ahead` bytes after them in the same run, into `buf`: a thing's bytes, and maybe the
    /// next things' (a run holds whole things, so a thing lies in one run).
    pub fn read_span(
        &self,
        part: usize,
        (from, to): (u64, u64),
        ahead: u64,
        buf: &mut Vec<u8>,
    ) -> io::Result<()> {
        let mut start = 0;
        for &run in self.runs(part) {
            let end = start + run.len;
            if from >= start && to <= end && from <= to {
                let span = Run {
                    at: run.at + (from - start),
                    count: 0,
                    len: to.saturating_add(ahead).min(end) - from,
                };
                return self.read(span, buf);
            }
            start = end;
        }
        Err(io::ErrorKind::UnexpectedEof.into())
    }

    /// The bytes of many `spans` of partition `part` (as [`Self::read_span`] takes them),
    /// sorted by where they start: read in long reads, each taking in the gaps of up to
    /// `gap` bytes between spans of one run and ending by `most` bytes, and each span's bytes
    /// given to `each` with its place in `spans`. A thing read alone costs a call; things
    /// close together cost one call for all of them.
    pub fn read_spans(
        &self,
        part: usize,
        spans: &[(u64, u64)],
        (gap, most): (u64, u64),
        buf: &mut Vec<u8>,
        mut each: impl FnMut(usize, &[u8]),
    ) -> io::Result<()> {
        let runs = self.runs(part);
        let (mut run, mut run_start) = (0, 0);
        let mut k = 0;
        while let Some(&(from, to)) = spans.get(k) {
            // the run that holds this span (spans are sorted: runs come in order)
            while runs.get(run).is_some_and(|r| to > run_start + r.len) {
                run_start += runs[run].len;
                run += 1;
            }
            let Some(&r) = runs.get(run) else {
                return Err(io::ErrorKind::UnexpectedEof.into());
            };
            let run_end = run_start + r.len;
            if from < run_start || to > run_end || from > to {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            // the spans after it that this read takes in
            let (mut last, mut end) = (k, to);
            while let Some(&(f, t)) = spans.get(last + 1) {
                if f < from
                    || f.saturating_sub(end) > gap
                    || t > run_end
                    || t.saturating_sub(from) > most
                {
                    break;
                }
                last += 1;
                end = end.max(t);
            }
            let read = Run {
                at: r.at + (from - run_start),
                count: 0,
                len: end - from,
            };
            self.read(read, buf)?;
            for (i, &(f, t)) in spans.iter().enumerate().take(last + 1).skip(k) {
                let got = buf.get((f - from) as usize..(t - from) as usize);
                each(i, got.ok_or(io::ErrorKind::UnexpectedEof)?);
            }
            k = last + 1;
        }
        Ok(())
    }
}

// ---- Columns: entries by partition, held until a budget sends them to the file ----
//
// An entry is a few fields one after the other: a `u64` as 8 bytes, a text as its length
// (`u32`) and its bytes, all little-endian ([`Writer`], [`Reader`]).

/// Partitions a column is kept in: a partition of a diff's side of a 1M-record store of 420 MB
/// is some 7 MB.
pub const PARTS: usize = 64;

/// The partition of an id (or any text): the same for every column of one run.
pub fn part_of(id: &str) -> usize {
    let h = hasher().hash_one(id);
    // the high bits: the low ones place the id in the partition's table
    (h >> 58) as usize % PARTS
}

/// A text's hash, the same for every column of one run: two texts with the same hash are taken
/// to be the same (one pair in 2^64 is not).
pub fn hash_of(text: &str) -> u64 {
    hasher().hash_one(text)
}

fn hasher() -> &'static hashbrown::DefaultHashBuilder {
    static HASHER: OnceLock<hashbrown::DefaultHashBuilder> = OnceLock::new();
    HASHER.get_or_init(hashbrown::DefaultHashBuilder::default)
}

/// One column: its entries by partition, held until the budget says they go to the file.
#[derive(Debug)]
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

    /// Everything is pushed: if the column went to the file, what it still holds goes too, so
    /// that what comes next (diff's next side, the matching) has the memory. A column that
    /// fits stays in memory.
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
    pub fn written(&self) -> u64 {
        self.spill.written()
    }
}

/// A join of two columns partitioned alike, a partition at a time on every core: the texts of
/// `set`'s partition (entries of one text each) as a set, and the entries of `probe`'s
/// partition given to `each` with it one at a time (`each` reads one entry: `None` when it is
/// cut short, else what it keeps of it). What every partition kept, partition by partition.
/// Fails when the file cannot be read back or holds what was not written.
pub fn join<T: Send>(
    set: &Column,
    probe: &Column,
    each: impl Fn(&HashSet<&str>, &mut Reader) -> Option<Option<T>> + Sync,
) -> io::Result<Vec<T>> {
    use rayon::prelude::*;
    let cut_short = || io::Error::new(io::ErrorKind::InvalidData, "an entry cut short");
    let kept: Vec<Vec<T>> = (0..PARTS)
        .into_par_iter()
        .map(|part| {
            let texts = set.part(part)?;
            let mut r = Reader::new(&texts);
            let mut texts = HashSet::new();
            while !r.is_empty() {
                texts.insert(r.text().ok_or_else(cut_short)?);
            }
            let mut kept = Vec::new();
            if texts.is_empty() {
                return Ok(kept);
            }
            let entries = probe.part(part)?;
            let mut r = Reader::new(&entries);
            while !r.is_empty() {
                kept.extend(each(&texts, &mut r).ok_or_else(cut_short)?);
            }
            Ok(kept)
        })
        .collect::<io::Result<_>>()?;
    Ok(kept.into_iter().flatten().collect())
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
    fn a_memory_budget_is_a_size_above_zero() {
        for (text, bytes) in [
            ("128M", 128 << 20),
            ("64m", 64 << 20),
            ("1G", 1 << 30),
            ("1.5GiB", 3 << 29),
            (" 512 KB ", 512 << 10),
            ("4096", 4096),
            ("1", 1),
            ("99999999T", usize::MAX),
        ] {
            assert_eq!(memory_budget(text), Ok(bytes), "{text}");
        }
        for text in [
            "0", "0M", "-1", "-1G", "lots", "", "M", "1Q", ".5.5M", "0.1",
        ] {
            assert!(memory_budget(text).is_err(), "{text}");
        }
    }

    #[test]
    fn temporary_files_count_what_they_hold_until_dropped() {
        let mut file = temp_file().unwrap();
        file.write_all(b"abcdef").unwrap();
        file.rewind().unwrap();
        file.write_all(b"xy").unwrap();
        assert_eq!(file.end, 6, "a write over written bytes adds nothing");
        let mut back = String::new();
        file.rewind().unwrap();
        file.read_to_string(&mut back).unwrap();
        assert_eq!(back, "xycdef");
        file.write_all(b"g").unwrap();
        assert_eq!(file.end, 7, "a read moves where the next write goes");
    }

    #[test]
    fn runs_come_back_as_written_partition_by_partition() {
        let mut spill = Spill::new(8);
        assert!(!spill.hold(5));
        assert!(spill.hold(5), "10 held of 8");
        spill.write(2, 2, 4, &[b"ab", b"cd"]).unwrap();
        spill.write(0, 1, 6, &[b"xyz"]).unwrap();
        spill.write(2, 1, 0, &[b"e"]).unwrap();
        assert!(!spill.hold(7), "every held one written");
        assert_eq!(spill.written(), 8);
        assert_eq!(spill.held(), 7);
        let mut buf = Vec::new();
        let read = |spill: &Spill, part: usize, buf: &mut Vec<u8>| -> Vec<Vec<u8>> {
            spill
                .runs(part)
                .iter()
                .map(|&run| {
                    spill.read(run, buf).unwrap();
                    buf.clone()
                })
                .collect()
        };
        assert_eq!(read(&spill, 2, &mut buf), [b"abcd".to_vec(), b"e".to_vec()]);
        assert_eq!(read(&spill, 0, &mut buf), [b"xyz".to_vec()]);
        assert!(spill.runs(1).is_empty() && spill.runs(9).is_empty());
        assert_eq!((spill.count(2), spill.count(0), spill.count(1)), (3, 1, 0));
        let Cow::Owned(all) = spill.whole(2, b"held").unwrap() else {
            panic!("partition 2 has runs to read back");
        };
        assert_eq!(all, b"abcdeheld", "runs in order, then what is held");
        assert_eq!(all.capacity(), all.len(), "sized once");
        assert!(matches!(
            spill.whole(1, b"held").unwrap(),
            Cow::Borrowed(b"held")
        ));
        spill.read_span(2, (1, 3), 0, &mut buf).unwrap();
        assert_eq!(buf, b"bc");
        spill.read_span(2, (1, 2), 9, &mut buf).unwrap();
        assert_eq!(buf, b"bcd", "ahead to the run's end");
        spill.read_span(2, (4, 5), 9, &mut buf).unwrap();
        assert_eq!(buf, b"e", "in the second run");
        assert!(
            spill.read_span(2, (3, 5), 0, &mut buf).is_err(),
            "across two runs"
        );
        assert!(spill.read_span(1, (0, 1), 0, &mut buf).is_err(), "no runs");
        // many spans at once, in reads that take in short gaps and stop at a run's end
        let spans = [(0, 1), (1, 3), (1, 3), (4, 4), (4, 5)];
        for limits in [(0, 0), (0, 9), (1, 2), (9, 9)] {
            let mut got = Vec::new();
            let read = spill.read_spans(2, &spans, limits, &mut buf, |k, bytes| {
                got.push((k, bytes.to_vec()));
            });
            assert!(read.is_ok(), "{limits:?}");
            let expected = [(0, "a"), (1, "bc"), (2, "bc"), (3, ""), (4, "e")];
            assert_eq!(
                got,
                expected.map(|(k, b)| (k, b.as_bytes().to_vec())),
                "{limits:?}"
            );
        }
        let mut given = 0;
        let across = spill.read_spans(2, &[(0, 1), (3, 5)], (9, 9), &mut buf, |_, _| given += 1);
        assert!(across.is_err() && given == 1, "a span across two runs");
        let past = spill.read_spans(0, &[(2, 4)], (9, 9), &mut buf, |_, _| given += 1);
        assert!(past.is_err() && given == 1, "past the partition's end");
        spill.stop();
        assert!(!spill.hold(100), "stopped: nothing more goes");
        assert_eq!(spill.held(), 0, "stopped: none of it can go");
    }

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
