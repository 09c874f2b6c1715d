//! Bytes in the hot loops.
//!
//! - Comparison (a line's keys against the wanted ones, a record's id against the ids already
//!   seen): most of these strings are a few words long, and comparing them word by word inline
//!   beats a call to `memcmp`, whose setup and masked vector loads cost more than the
//!   comparison itself at these lengths.
//! - Two words that tell short keys of one length apart ([`words_of`]).
//! - A line's bytes as text ([`utf8`]).

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

/// The eight bytes of `s` from `at`, little-endian (`None` past the end).
#[inline]
fn word(s: &[u8], at: usize) -> Option<u64> {
    s.get(at..at + 8)
        .map(|w| u64::from_le_bytes(w.try_into().unwrap_or([0; 8])))
}

/// Two words that tell keys of the same length apart when they are at most 16 bytes long
/// (longer ones agree on them at least): the first and last eight bytes, overlapping when
/// shorter than 16; under 8 bytes, the first and last four, or the first, middle and last.
#[inline]
pub fn words_of(key: &[u8]) -> [u64; 2] {
    let n = key.len();
    let half = |at: usize| {
        key.get(at..at + 4).map_or(0, |w| {
            u32::from_le_bytes(w.try_into().unwrap_or([0; 4])) as u64
        })
    };
    match n {
        8.. => [word(key, 0).unwrap_or(0), word(key, n - 8).unwrap_or(0)],
        4..=7 => [half(0), half(n - 4)],
        1..=3 => [
            key[0] as u64 | (key[n / 2] as u64) << 8 | (key[n - 1] as u64) << 16,
            0,
        ],
        0 => [0, 0],
    }
}

/// `bytes` as text when they are UTF-8, as `std::str::from_utf8` says. Most lines are
/// ASCII, and `is_ascii` (many bytes at a time) settles that in fewer instructions than the
/// UTF-8 validator's own ASCII path; other text (a store in Spanish: every line has an
/// accent) goes to simdutf8's validator, which checks many bytes at a time where the
/// standard one steps a character at a time past the first one above ASCII. Only text that
/// is not UTF-8 goes to the standard validator, for the error it gives (where it stops).
#[inline]
pub fn utf8(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    if is_ascii(bytes) {
        // SAFETY: every byte is below 0x80, and ASCII text is UTF-8.
        return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(_) => std::str::from_utf8(bytes),
    }
}

/// `bytes.is_ascii()`, for whole lines that nearly always are: every byte is looked at, 32 at a
/// time without a branch (the compiler turns the loop into vector instructions), where the
/// standard one stops at the first byte above ASCII but steps a word at a time.
#[inline]
pub fn is_ascii(bytes: &[u8]) -> bool {
    let mut chunks = bytes.chunks_exact(32);
    let mut high = 0u64;
    for chunk in &mut chunks {
        for w in chunk.chunks_exact(8) {
            high |= u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
        }
    }
    high & 0x8080_8080_8080_8080 == 0 && chunks.remainder().is_ascii()
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        /// One byte above ASCII anywhere, in a whole chunk or the rest, is seen.
        #[test]
        fn ascii_is_told_as_the_standard_test_tells_it(
            mut bytes in proptest::collection::vec(0u8..0x80, 0..200),
            high in proptest::option::of((0usize..200, 0x80u8..)),
        ) {
            if let Some((at, byte)) = high {
                if let Some(b) = bytes.get_mut(at) {
                    *b = byte;
                }
            }
            proptest::prop_assert_eq!(super::is_ascii(&bytes), bytes.is_ascii());
        }

        #[test]
        fn text_is_read_as_the_utf8_validator_reads_it(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![0u8..0x80, proptest::num::u8::ANY],
                0..80,
            ),
        ) {
            let expected = std::str::from_utf8(&bytes);
            proptest::prop_assert_eq!(super::utf8(&bytes), expected);
        }

        /// Long text in any script, whole or with one byte changed anywhere (past the
        /// lengths the vector validator checks a block at a time).
        #[test]
        fn long_text_is_read_as_the_utf8_validator_reads_it(
            text in "\\PC{0,300}",
            changed in proptest::option::of((proptest::num::usize::ANY, proptest::num::u8::ANY)),
        ) {
            let mut bytes = text.into_bytes();
            if let Some((at, byte)) = changed.filter(|_| !bytes.is_empty()) {
                let len = bytes.len();
                bytes[at % len] = byte;
            }
            let expected = std::str::from_utf8(&bytes);
            proptest::prop_assert_eq!(super::utf8(&bytes), expected);
        }

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
