//! A diff's findings in the report's order (by code in [`Code::ALL`]'s order, then HEAD line,
//! BASE line and id), in bounded memory whatever their number: each partition judged hands
//! its findings here, sorted and written as one run of entries with where each code's begin;
//! past the budget every run held goes to the unnamed temporary file (`crate::spill`), and
//! what was held goes from memory. The forms read them back merged in order, every finding or
//! one code's, a window of each run at a time; the counts are kept apart, so the summaries read
//! nothing back. Which partition a finding came from breaks a tie, as it did when they were
//! all held and sorted together: the order is the same at every budget.
//!
//! An entry is its length, then its fields as `spill::Writer` writes them; a changed value is kept
//! as its JSON text (numbers keep their text: it reads back the same value).

use super::report::{Change, Code, Finding, Other};
use crate::spill::Spill;
use crate::spill::{Reader, Writer, PARTS};
use serde_json::Value;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;
use std::sync::Mutex;

const CODES: usize = Code::ALL.len();

/// Bytes of a run in the file read at once, and held per run while the runs are merged.
const WINDOW: u64 = 64 << 10;

/// A finding's place in the report, owned: what the merge compares.
type Place = (Code, u64, u64, String);

/// The order of the report.
fn key(f: &Finding) -> (Code, u64, u64, &str) {
    (f.code, f.head_line, f.base_line, &f.id)
}

/// One partition's findings, sorted and written: in memory (`held`) or in the file.
#[derive(Debug)]
pub struct Written {
    part: usize,
    held: Vec<u8>,
    /// Where each code's entries start, and (last) where they end.
    starts: [u64; CODES + 1],
    counts: [usize; CODES],
}

impl Written {
    /// The findings of partition `part`, sorted and written.
    pub fn new(part: usize, mut findings: Vec<Finding>) -> Written {
        // stable: within a partition findings keep the order they were made in on a tie
        findings.sort_by(|a, b| key(a).cmp(&key(b)));
        let mut w = Writer::default();
        let mut starts = [0; CODES + 1];
        let mut counts = [0; CODES];
        let mut next = 0;
        for f in &findings {
            let code = f.code as usize;
            while next <= code {
                starts[next] = w.0.len() as u64;
                next += 1;
            }
            counts[code] += 1;
            let at = w.0.len();
            w.num(0);
            entry(&mut w, f);
            let len = (w.0.len() - at - 8) as u64;
            w.0[at..at + 8].copy_from_slice(&len.to_le_bytes());
        }
        for start in &mut starts[next..] {
            *start = w.0.len() as u64;
        }
        Written {
            part,
            held: w.0,
            starts,
            counts,
        }
    }
}

fn entry(w: &mut Writer, f: &Finding) {
    w.num(f.code as u64)
        .text(&f.id)
        .num(f.base_line)
        .num(f.head_line);
    match &f.other {
        None => w.num(0),
        Some(o) => w.num(1).text(&o.id).num(o.line),
    };
    w.num(f.changes.len() as u64);
    for c in &f.changes {
        w.text(&c.field);
        for value in [&c.old, &c.new] {
            match value {
                None => w.num(0),
                Some(v) => w.num(1).text(&v.to_string()),
            };
        }
    }
}

fn read_entry(bytes: &[u8]) -> Option<Finding> {
    let mut r = Reader::new(bytes);
    let code = *Code::ALL.get(usize::try_from(r.num()?).ok()?)?;
    let id = r.text()?.to_string();
    let (base_line, head_line) = (r.num()?, r.num()?);
    let other = match r.num()? {
        0 => None,
        _ => Some(Other {
            id: r.text()?.to_string(),
            line: r.num()?,
        }),
    };
    let n = r.num()?;
    let mut changes = Vec::new();
    for _ in 0..n {
        let field = r.text()?.to_string();
        let mut value = || -> Option<Option<Value>> {
            match r.num()? {
                0 => Some(None),
                _ => serde_json::from_str(r.text()?).ok().map(Some),
            }
        };
        let (old, new) = (value()?, value()?);
        changes.push(Change { field, old, new });
    }
    r.is_empty().then_some(Finding {
        code,
        id,
        base_line,
        head_line,
        changes,
        other,
    })
}

/// The temporary file could not be read back, or held what was not written.
fn unreadable(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("the diff's findings could not be read back: {e}"))
}

/// Every finding of a diff, by partition: held, or in the temporary file past the budget.
#[derive(Debug)]
pub struct Findings {
    parts: Vec<Option<Written>>,
    /// Which held partition went to the file.
    in_file: Vec<bool>,
    counts: [usize; CODES],
    spill: Spill,
    /// Why the findings could not be read back, once they could not.
    failed: Mutex<Option<String>>,
}

impl Findings {
    /// No findings yet; past `limit` bytes of them they go to the temporary file.
    pub fn new(limit: usize) -> Findings {
        Findings {
            parts: (0..PARTS).map(|_| None).collect(),
            in_file: vec![false; PARTS],
            counts: [0; CODES],
            spill: Spill::new(limit),
            failed: Mutex::new(None),
        }
    }

    /// Add a partition's findings (each partition once).
    pub fn add(&mut self, written: Written) {
        for (all, n) in self.counts.iter_mut().zip(written.counts) {
            *all += n;
        }
        let part = written.part;
        let len = written.held.len();
        self.parts[part] = Some(written);
        if self.spill.hold(len) {
            self.write_out();
        }
    }

    /// Every held partition's findings to the file; what cannot be written stays in memory
    /// (and so does everything after it: the report is the same).
    fn write_out(&mut self) {
        for (part, written) in self.parts.iter_mut().enumerate() {
            let Some(w) = written.as_mut().filter(|_| !self.in_file[part]) else {
                continue;
            };
            let count = w.counts.iter().sum::<usize>() as u32;
            if self
                .spill
                .write(part, count, w.held.len(), &[&w.held])
                .is_err()
            {
                self.spill.stop();
                return;
            }
            w.held = Vec::new();
            self.in_file[part] = true;
        }
    }

    /// How many findings of `code`.
    pub fn count(&self, code: Code) -> usize {
        self.counts[code as usize]
    }

    /// How many findings in all.
    pub fn len(&self) -> usize {
        self.counts.iter().sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every finding, in the report's order.
    pub fn iter(&self) -> Merge<'_> {
        Merge::new(self, 0, CODES)
    }

    /// The findings of `code`, in the report's order.
    pub fn of_code(&self, code: Code) -> Merge<'_> {
        Merge::new(self, code as usize, code as usize + 1)
    }

    /// Why the findings could not be read back, when a form found they could not (its write
    /// failed with that error).
    pub fn failure(&self) -> Option<String> {
        self.failed.lock().ok().and_then(|f| f.clone())
    }

    fn fail(&self, e: io::Error) -> io::Error {
        if let Ok(mut failed) = self.failed.lock() {
            failed.get_or_insert_with(|| e.to_string());
        }
        e
    }
}

/// Where a partition's entries of the codes asked for are read from, and the window of them
/// read from the file.
struct Cursor {
    part: usize,
    at: u64,
    end: u64,
    window: Vec<u8>,
    window_at: u64,
}

impl Cursor {
    /// Bytes `from..from + n` of the partition's run.
    fn bytes<'s>(&'s mut self, all: &'s Findings, from: u64, n: u64) -> io::Result<&'s [u8]> {
        let written = all.parts[self.part]
            .as_ref()
            .ok_or_else(|| unreadable("no run"))?;
        let to = from
            .checked_add(n)
            .ok_or_else(|| unreadable("an entry too long"))?;
        let span = |bytes: &'s [u8], at: u64| {
            let (a, b) = ((from - at) as usize, (to - at) as usize);
            bytes
                .get(a..b)
                .ok_or_else(|| unreadable("an entry ends early"))
        };
        if !all.in_file[self.part] {
            return span(&written.held, 0);
        }
        let window_end = self.window_at + self.window.len() as u64;
        if from < self.window_at || to > window_end {
            let ahead = WINDOW.saturating_sub(n).min(self.end.saturating_sub(to));
            all.spill
                .read_span(self.part, (from, to), ahead, &mut self.window)
                .map_err(unreadable)?;
            self.window_at = from;
        }
        span(&self.window, self.window_at)
    }

    /// The next finding, if any is left.
    fn next(&mut self, all: &Findings) -> io::Result<Option<Finding>> {
        if self.at >= self.end {
            return Ok(None);
        }
        let len = self.bytes(all, self.at, 8)?;
        let len = u64::from_le_bytes(len.try_into().map_err(unreadable)?);
        let entry = self.bytes(all, self.at + 8, len)?;
        let finding = read_entry(entry).ok_or_else(|| unreadable("an entry reads wrong"))?;
        self.at += 8 + len;
        Ok(Some(finding))
    }
}

/// The findings of some codes, every partition's merged in the report's order. An error
/// reading them back is given once, then nothing more (and the findings remember it:
/// [`Findings::failure`]).
pub struct Merge<'a> {
    all: &'a Findings,
    cursors: Vec<Cursor>,
    next: Vec<Option<Finding>>,
    /// The cursor of each partition's next finding, least first (ties: the lower partition).
    heap: BinaryHeap<Reverse<(Place, usize)>>,
    error: Option<io::Error>,
    done: bool,
}

impl<'a> Merge<'a> {
    fn new(all: &'a Findings, from: usize, to: usize) -> Merge<'a> {
        let mut merge = Merge {
            all,
            cursors: Vec::new(),
            next: Vec::new(),
            heap: BinaryHeap::new(),
            error: None,
            done: false,
        };
        for w in all.parts.iter().flatten() {
            if w.starts[from] == w.starts[to] {
                continue;
            }
            merge.cursors.push(Cursor {
                part: w.part,
                at: w.starts[from],
                end: w.starts[to],
                window: Vec::new(),
                window_at: 0,
            });
            merge.next.push(None);
            merge.advance(merge.cursors.len() - 1);
        }
        merge
    }

    /// Read cursor `i`'s next finding into place.
    fn advance(&mut self, i: usize) {
        match self.cursors[i].next(self.all) {
            Ok(Some(f)) => {
                let (code, head, base, id) = key(&f);
                self.heap
                    .push(Reverse(((code, head, base, id.to_string()), i)));
                self.next[i] = Some(f);
            }
            Ok(None) => {}
            Err(e) => {
                self.error.get_or_insert(self.all.fail(e));
            }
        }
    }
}

impl Iterator for Merge<'_> {
    type Item = io::Result<Finding>;

    fn next(&mut self) -> Option<io::Result<Finding>> {
        if self.done {
            return None;
        }
        if let Some(e) = self.error.take() {
            self.done = true;
            return Some(Err(e));
        }
        let Reverse((_, i)) = self.heap.pop()?;
        let finding = self.next[i].take()?;
        self.advance(i);
        Some(Ok(finding))
    }
}

/// Gathers the partitions' findings as they are judged, on every core.
pub struct Gather(Mutex<Findings>);

impl Gather {
    pub fn new(limit: usize) -> Gather {
        Gather(Mutex::new(Findings::new(limit)))
    }

    /// Partition `part`'s findings (sorted and written on the caller's core).
    pub fn add(&self, part: usize, findings: Vec<Finding>) {
        let written = Written::new(part, findings);
        if let Ok(mut all) = self.0.lock() {
            all.add(written);
        }
    }

    pub fn done(self) -> Findings {
        self.0.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn finding(i: u64) -> Finding {
        let code = Code::ALL[(i % 5) as usize];
        Finding {
            code,
            id: format!("R-{}", i % 11),
            base_line: i,
            head_line: i / 3,
            changes: (0..i % 3)
                .map(|k| Change {
                    field: format!("f{k}"),
                    old: (k > 0).then(|| json!({"n": 1.50, "s": format!("v{i}"), "z": 1})),
                    new: Some(json!(i)),
                })
                .collect(),
            other: i.is_multiple_of(4).then(|| Other {
                id: format!("O-{i}"),
                line: i + 1,
            }),
        }
    }

    /// Findings of every partition, gathered at `limit`, in the order they come back.
    fn gathered(limit: usize) -> (Findings, Vec<Finding>) {
        let gather = Gather::new(limit);
        let mut all = Vec::new();
        // partitions added out of order, as the cores finish them
        for part in (0..PARTS).rev() {
            let found: Vec<Finding> = (0..40).map(|i| finding(i * 7 + part as u64)).collect();
            all.extend(found.iter().map(|f| (part, f.clone())));
            gather.add(part, found);
        }
        all.sort_by(|(pa, a), (pb, b)| (key(a), pa).cmp(&(key(b), pb)));
        (gather.done(), all.into_iter().map(|(_, f)| f).collect())
    }

    #[test]
    fn findings_come_back_in_order_at_every_budget() {
        let (in_memory, expected) = gathered(usize::MAX);
        assert_eq!(in_memory.spill.written(), 0);
        for limit in [usize::MAX, 4096, 1] {
            let (findings, _) = gathered(limit);
            if limit < usize::MAX {
                assert!(
                    findings.spill.written() > 0,
                    "{limit}: runs went to the file"
                );
            }
            let back: Vec<Finding> = findings.iter().map(Result::unwrap).collect();
            assert!(back == expected, "{limit}: every finding, in order");
            for code in Code::ALL {
                let of_code: Vec<Finding> = findings.of_code(code).map(Result::unwrap).collect();
                assert_eq!(of_code.len(), findings.count(code), "{code:?}");
                assert!(of_code.iter().all(|f| f.code == code));
                let from = expected.partition_point(|f| f.code < code);
                assert!(of_code[..] == expected[from..from + of_code.len()]);
            }
            assert!(findings.failure().is_none());
        }
    }

    #[test]
    fn findings_that_cannot_be_read_back_are_an_error_not_a_panic() {
        for limit in [usize::MAX, 1] {
            let (mut findings, _) = gathered(limit);
            // a run that ends past what was written, and one cut short
            let w = findings.parts[3].as_mut().unwrap();
            w.starts[CODES] += 100;
            w.held.truncate(w.held.len() / 2);
            let results: Vec<io::Result<Finding>> = findings.iter().collect();
            let errors = results.iter().filter(|r| r.is_err()).count();
            assert_eq!(errors, 1, "{limit}: one error, then nothing more");
            assert!(results.last().unwrap().is_err());
            let failure = findings.failure().expect("the failure is kept");
            assert!(failure.contains("could not be read back"), "{failure}");
        }
    }
}
