//! The heaviest keys of a stream of (key, weight), in bounded memory.

use hashbrown::{HashMap, HashSet};

/// Counters the summary keeps: a key with more than 1/SUMMARY of all the weight is certain to
/// be among them.
const SUMMARY: usize = 8192;

/// The heaviest concepts of a stream of (concept, weight), in bounded memory: the weighted
/// Misra–Gries summary, trimmed in batches. When it holds twice [`SUMMARY`] counters, the
/// [`SUMMARY`]th largest count is taken from every counter and the ones left at nothing go.
/// Each count is then at most the total weight / [`SUMMARY`] below the true one.
#[derive(Debug, Default)]
pub(super) struct Heaviest {
    counts: HashMap<u64, u64>,
}

impl Heaviest {
    pub(super) fn add(&mut self, key: u64, weight: u64) {
        *self.counts.entry(key).or_default() += weight;
        if self.counts.len() >= 2 * SUMMARY {
            let mut all: Vec<u64> = self.counts.values().copied().collect();
            let at = all.len() - SUMMARY;
            let (_, &mut cut, _) = all.select_nth_unstable(at);
            self.counts.retain(|_, c| {
                *c = c.saturating_sub(cut);
                *c > 0
            });
        }
    }

    /// The `most` heaviest keys.
    pub(super) fn top(&self, most: usize) -> HashSet<u64> {
        let mut all: Vec<(u64, u64)> = self.counts.iter().map(|(&k, &c)| (c, k)).collect();
        all.sort_unstable_by(|a, b| b.cmp(a));
        all.into_iter().take(most).map(|(_, k)| k).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_keeps_the_heavy_among_many_light() {
        let mut h = Heaviest::default();
        // a light concept each, with three heavy ones among them
        for k in 0..(SUMMARY as u64 * 5) {
            h.add(1_000_000 + k, 1);
            if k % 100 == 0 {
                h.add(1, 5);
                h.add(2, 4);
                h.add(3, 3);
            }
        }
        assert!(h.counts.len() < 2 * SUMMARY);
        let top = h.top(3);
        assert_eq!(top, HashSet::from_iter([1, 2, 3]));
    }
}
