//! What a report says of the records it names, by line: the marks that weigh the concepts a
//! page draws, and name each bar's warnings.

/// What the report says of the records it names, by line: each record's line with its marks
/// (an index into the marks' names), each with how many findings of it name the record.
///
/// Memory: 8 bytes a mark, and a record named again and again by one code (a concept of many
/// owners names each of its records in each owners' warning) takes one: past 2^21 (`COMPACT`)
/// marks, a full list is sorted and its repeats summed before it grows.
#[derive(Debug, Default)]
pub struct Marks {
    by_line: Vec<Mark>,
    /// Where the marks of each run of [`BUCKET`] lines start in `by_line` (and where the last
    /// run's end): a record's marks are found in a few steps, not a search of them all.
    starts: Vec<u32>,
    pub(super) names: Vec<String>,
    pub(super) conflict: Option<u16>,
    sorted: bool,
}

/// Lines a bucket of [`Marks::starts`] spans.
const BUCKET: u32 = 64;
/// Marks held before a full list is compacted rather than grown (16 MiB of them): bench's
/// messy 1M store names 1.2 million records and is never compacted.
const COMPACT: usize = 1 << 21;

/// One mark of one record, and how many findings of it name the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Mark {
    pub line: u32,
    pub mark: u16,
    pub count: u16,
}

impl Marks {
    /// Marks named `names` (a check's codes); the one named `conflict` outlines its records as
    /// a conflict.
    pub fn new(names: Vec<String>, conflict: &str) -> Marks {
        let conflict = names.iter().position(|n| n == conflict).map(|i| i as u16);
        Marks {
            names,
            conflict,
            ..Marks::default()
        }
    }

    /// About `marks` marks are coming: room for them (up to 2^21, `COMPACT`) made once, as a list
    /// grown by doubling holds its old and new room at once.
    pub fn expect(&mut self, marks: usize) {
        self.by_line.reserve_exact(marks.min(COMPACT));
    }

    /// The record on `line` carries mark `mark` once more (a line past 2^32, or 0 for not
    /// known, cannot be matched to a record and is left out).
    pub fn push(&mut self, line: u64, mark: usize) {
        if let (Ok(line), Ok(mark)) = (u32::try_from(line), u16::try_from(mark)) {
            if line > 0 {
                if self.by_line.len() == self.by_line.capacity() && self.by_line.len() >= COMPACT {
                    self.compact();
                }
                self.by_line.push(Mark {
                    line,
                    mark,
                    count: 1,
                });
                self.sorted = false;
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.by_line.is_empty()
    }

    /// Sort the marks by line and mark, each record's repeats of a mark summed into one.
    fn compact(&mut self) {
        self.by_line.sort_unstable();
        // a count that would pass 65,535 starts another mark of the record: every finding counts
        self.by_line.dedup_by(|next, kept| {
            let same = (next.line, next.mark) == (kept.line, kept.mark);
            match kept.count.checked_add(next.count) {
                Some(sum) if same => {
                    kept.count = sum;
                    true
                }
                _ => false,
            }
        });
    }

    /// Sort the marks by line, so [`Marks::of`] finds them.
    pub(super) fn settle(&mut self) {
        if self.sorted {
            return;
        }
        self.compact();
        let buckets = self.by_line.last().map_or(0, |m| m.line / BUCKET + 1);
        self.starts.clear();
        let mut at = 0;
        for b in 0..=buckets {
            while at < self.by_line.len() && self.by_line[at].line / BUCKET < b {
                at += 1;
            }
            self.starts.push(at as u32);
        }
        self.sorted = true;
    }

    /// The marks of the record on `line`, each once (`settle` first).
    pub(super) fn of(&self, line: u64) -> &[Mark] {
        let Ok(line) = u32::try_from(line) else {
            return &[];
        };
        let b = (line / BUCKET) as usize;
        let (Some(&from), Some(&to)) = (self.starts.get(b), self.starts.get(b + 1)) else {
            return &[];
        };
        let run = &self.by_line[from as usize..to as usize];
        let start = run.partition_point(|m| m.line < line);
        let end = start + run[start..].partition_point(|m| m.line == line);
        &run[start..end]
    }

    /// How many findings name the record on `line` (`settle` first).
    pub(super) fn weight(&self, line: u64) -> u64 {
        self.of(line).iter().map(|m| u64::from(m.count)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_found_by_line() {
        let mut m = Marks::new(
            vec!["value.date".into(), "value.conflict".into()],
            "value.conflict",
        );
        m.push(7, 1);
        m.push(3, 0);
        m.push(7, 0);
        m.push(0, 0);
        m.push(7, 1);
        m.settle();
        assert_eq!(m.of(7).len(), 2);
        assert_eq!((m.weight(7), m.weight(3)), (3, 1));
        let mark = |line, mark, count| Mark { line, mark, count };
        assert_eq!(m.of(7), &[mark(7, 0, 1), mark(7, 1, 2)]);
        assert_eq!(m.of(3), &[mark(3, 0, 1)]);
        assert!(m.of(5).is_empty());
        assert_eq!(m.conflict, Some(1));
        // across the buckets' edges, an empty bucket, and past the last
        let mut m = Marks::new(vec!["a".into()], "none");
        for line in [63, 64, 64, 65, 200, 1] {
            m.push(line, 0);
        }
        m.settle();
        let counts: Vec<u64> = [1, 62, 63, 64, 65, 130, 200, 201, 5000]
            .iter()
            .map(|&l| m.weight(l))
            .collect();
        assert_eq!(counts, [1, 0, 1, 2, 1, 0, 1, 0, 0]);
        assert_eq!(m.conflict, None);
    }

    #[test]
    fn a_record_named_again_and_again_keeps_one_mark_a_code() {
        let mut m = Marks::new(vec!["value.owners".into(), "value.date".into()], "none");
        // each of a thousand records named five times by one code, once by another
        for _ in 0..5 {
            for line in 1..=1000 {
                m.push(line, 0);
            }
        }
        for line in 1..=1000 {
            m.push(line, 1);
        }
        m.compact();
        assert_eq!(m.by_line.len(), 2000);
        // what compacting keeps, it sums: settling again gives the same
        for line in (1..=1000).rev() {
            m.push(line, 0);
        }
        m.settle();
        assert_eq!(m.by_line.len(), 2000);
        assert!((1..=1000).all(|l| m.weight(l) == 7));
        assert_eq!(m.of(500)[0].count, 6);
        // past what one mark counts, every finding still counts
        let mut m = Marks::new(vec!["value.owners".into()], "none");
        for _ in 0..70_000 {
            m.push(9, 0);
        }
        m.settle();
        assert_eq!((m.weight(9), m.of(9).len()), (70_000, 2));
    }
}
