//! The lines of the records that have ids, by the ids' index, each with whether the record
//! carries a written valid_to. The records come in store order, so their lines rise: each is
//! kept as its distance from the first line of its run of [`RUN`] ids, in 4 bytes, with that
//! first line once a run, rather than in 8 bytes of its own.
//!
//! Memory: per id 4 bytes and an eighth, whatever the lines. A line that is not within 2^31 of
//! its run's first (lines out of order, or a run spanning two billion lines) is kept whole
//! aside, and found there by search.

use super::ids::small;

/// The ids a run's first line is kept for.
const RUN: usize = 64;

/// The top bit of an entry of [`IdLines::distances`]: the record carries a written valid_to.
const VALID_TO_WRITTEN: u32 = 1 << 31;

/// A distance that says the line is kept aside, whole.
const ASIDE: u32 = VALID_TO_WRITTEN - 1;

#[derive(Default)]
pub struct IdLines {
    /// The first line of each run of [`RUN`] ids.
    firsts: Vec<u64>,
    /// By id: its line's distance from its run's first line, or [`ASIDE`]; and
    /// [`VALID_TO_WRITTEN`].
    distances: Vec<u32>,
    /// The lines kept whole, by id, in the order of the ids.
    aside: Vec<(u32, u64)>,
}

impl IdLines {
    /// Room for `n` more ids.
    pub fn reserve(&mut self, n: usize) {
        self.distances.reserve(n);
        self.firsts.reserve(n / RUN + 1);
    }

    /// Note the line of the next id's record, and whether it carries a written valid_to.
    pub fn push(&mut self, line: u64, valid_to_written: bool) {
        let i = self.distances.len();
        if i.is_multiple_of(RUN) {
            self.firsts.push(line);
        }
        let first = self.firsts.last().copied().unwrap_or(line);
        let distance = match line.checked_sub(first) {
            Some(d) if d < u64::from(ASIDE) => d as u32,
            _ => {
                self.aside.push((small(i), line));
                ASIDE
            }
        };
        let written = if valid_to_written {
            VALID_TO_WRITTEN
        } else {
            0
        };
        self.distances.push(distance | written);
    }

    pub fn len(&self) -> usize {
        self.distances.len()
    }

    /// The line of the record with the id at `i` (0 past the end).
    #[inline]
    pub fn line(&self, i: usize) -> u64 {
        let Some(&entry) = self.distances.get(i) else {
            return 0;
        };
        match entry & !VALID_TO_WRITTEN {
            ASIDE => self
                .aside
                .binary_search_by_key(&small(i), |&(at, _)| at)
                .map_or(0, |at| self.aside[at].1),
            distance => self
                .firsts
                .get(i / RUN)
                .map_or(0, |f| f + u64::from(distance)),
        }
    }

    /// The record with the id at `i` carries a written valid_to.
    pub fn carries_valid_to(&self, i: usize) -> bool {
        self.distances
            .get(i)
            .is_some_and(|&entry| entry & VALID_TO_WRITTEN != 0)
    }

    /// Where the line of the id at `i` is kept (for a prefetch).
    pub fn place(&self, i: usize) -> Option<&u32> {
        self.distances.get(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Every line comes back as it went in, with its flag, in order or not, near or far.
        #[test]
        fn lines_come_back_as_noted(
            steps in proptest::collection::vec(
                (0u64..4, proptest::bool::ANY, proptest::bool::weighted(0.02)),
                0..400,
            ),
        ) {
            let mut lines = IdLines::default();
            let mut noted = Vec::new();
            let mut line = 1u64;
            for (step, written, jump) in steps {
                // mostly rising; now and then far ahead, or back
                line = match (jump, step) {
                    (true, 0) => line / 2,
                    (true, _) => line + (1 << 33) * step,
                    (false, _) => line + step,
                };
                lines.push(line, written);
                noted.push((line, written));
            }
            proptest::prop_assert_eq!(lines.len(), noted.len());
            for (i, &(line, written)) in noted.iter().enumerate() {
                proptest::prop_assert_eq!(lines.line(i), line);
                proptest::prop_assert_eq!(lines.carries_valid_to(i), written);
            }
            proptest::prop_assert_eq!(lines.line(noted.len()), 0);
        }
    }
}
