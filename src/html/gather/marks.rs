//! What a report says of the records it names, by line: the marks that weigh the concepts a
//! page draws, and name each bar's warnings.

/// What the report says of the records it names, by line: each record's line with one mark
/// (an index into the marks' names) for each finding that names it.
#[derive(Debug, Default)]
pub struct Marks {
    by_line: Vec<(u32, u16)>,
    /// Where the marks of each run of [`BUCKET`] lines start in `by_line` (and where the last
    /// run's end): a record's marks are found in a few steps, not a search of them all.
    starts: Vec<u32>,
    pub(super) names: Vec<String>,
    pub(super) conflict: Option<u16>,
    sorted: bool,
}

/// Lines a bucket of [`Marks::starts`] spans.
const BUCKET: u32 = 64;

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

    /// The record on `line` carries mark `mark` once more (a line past 2^32, or 0 for not
    /// known, cannot be matched to a record and is left out).
    pub fn push(&mut self, line: u64, mark: usize) {
        if let (Ok(line), Ok(mark)) = (u32::try_from(line), u16::try_from(mark)) {
            if line > 0 {
                self.by_line.push((line, mark));
                self.sorted = false;
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.by_line.is_empty()
    }

    /// Sort the marks by line, so [`Marks::of`] finds them.
    pub(super) fn settle(&mut self) {
        if self.sorted {
            return;
        }
        self.by_line.sort_unstable();
        let buckets = self.by_line.last().map_or(0, |&(l, _)| l / BUCKET + 1);
        self.starts.clear();
        let mut at = 0;
        for b in 0..=buckets {
            while at < self.by_line.len() && self.by_line[at].0 / BUCKET < b {
                at += 1;
            }
            self.starts.push(at as u32);
        }
        self.sorted = true;
    }

    /// The marks of the record on `line` (`settle` first).
    pub(super) fn of(&self, line: u64) -> &[(u32, u16)] {
        let Ok(line) = u32::try_from(line) else {
            return &[];
        };
        let b = (line / BUCKET) as usize;
        let (Some(&from), Some(&to)) = (self.starts.get(b), self.starts.get(b + 1)) else {
            return &[];
        };
        let run = &self.by_line[from as usize..to as usize];
        let start = run.partition_point(|&(l, _)| l < line);
        let end = start + run[start..].partition_point(|&(l, _)| l == line);
        &run[start..end]
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
        m.settle();
        assert_eq!(m.of(7).len(), 2);
        assert_eq!(m.of(3), &[(3, 0)]);
        assert!(m.of(5).is_empty());
        assert_eq!(m.conflict, Some(1));
        // across the buckets' edges, an empty bucket, and past the last
        let mut m = Marks::new(vec!["a".into()], "none");
        for line in [63, 64, 64, 65, 200, 1] {
            m.push(line, 0);
        }
        m.settle();
        let counts: Vec<usize> = [1, 62, 63, 64, 65, 130, 200, 201, 5000]
            .iter()
            .map(|&l| m.of(l).len())
            .collect();
        assert_eq!(counts, [1, 0, 1, 2, 1, 0, 1, 0, 0]);
        assert_eq!(m.conflict, None);
    }
}
