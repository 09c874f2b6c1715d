//! Byte-string comparison for the hot loops (a line's keys against the wanted ones, a record's
//! id against the ids already seen): most of these strings are a few words long, and comparing
//! them word by word inline beats a call to `memcmp`, whose setup and masked vector loads cost
//! more than the comparison itself at these lengths.

/// Strings up to this long are compared word by word; longer ones by the slice comparison.
const INLINE_MAX: usize = 64;

/// `a == b`.
#[inline]
pub fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if b.len() != n {
        return false;
    }
    if !(8..=INLINE_MAX).contains(&n) {
        return a == b;
    }
    let word = |s: &[u8], at: usize| {
        s.get(at..at + 8)
            .map(|w| u64::from_le_bytes(w.try_into().unwrap_or([0; 8])))
    };
    let mut at = 0;
    while at + 8 < n {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    // the last eight bytes, overlapping the words before when the length is not a multiple
    word(a, n - 8) == word(b, n - 8)
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        #[test]
        fn agrees_with_the_slice_comparison(
            a in proptest::collection::vec(0u8..4, 0..80),
            b in proptest::collection::vec(0u8..4, 0..80),
            prefix in 0usize..80,
        ) {
            proptest::prop_assert_eq!(super::same(&a, &b), a == b);
            // same length, mostly equal: the interesting case
            let c: Vec<u8> = a.iter().take(prefix).copied().chain(b.iter().copied().skip(prefix.min(b.len()))).take(a.len()).collect();
            proptest::prop_assert_eq!(super::same(&a, &c), a == c);
        }
    }
}
