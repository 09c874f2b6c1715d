//! Where an object or a list ends, found sixty-four bytes at a time: the bytes that matter
//! inside one (quotes, backslashes, brackets, line breaks) are taken as bit masks, which
//! bytes lie in strings is worked out from them as simdjson's first stage does, and only the
//! brackets outside strings are then stepped through one by one. The array cutter
//! (`elements.rs`) hands an element here once its first bracket is read: a pretty-printed
//! record has some sixty quotes and brackets, each a step of its own when cut a byte at a
//! time, and the cutting is the one serial step of the JSON array and envelope shapes.
//!
//! What this module leaves to the byte-at-a-time cutter ([`Skip::Bytewise`]): a backslash
//! outside any string (the masks would take it for an escape, where the bytewise cutter, like
//! the JSON it cuts, knows escapes only in strings) and nesting that may pass the depth
//! allowed, so the error and its line are the cutter's own.

/// Where the scanning of a value stands between two calls (two blocks of the file).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Nesting {
    /// The brackets open (at least one while the value is being skipped).
    pub depth: usize,
    pub in_string: bool,
    /// The next byte is escaped: the bytes so far end with an odd run of backslashes in a
    /// string.
    pub escaped: bool,
}

/// What [`skip`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// The value's closing bracket is at this place.
    Closed(usize),
    /// The bytes end inside the value.
    Open,
    /// The bytes from this place are for the byte-at-a-time cutter (see the module's note).
    Bytewise(usize),
}

/// The line breaks [`skip`] stepped over: how many, and where the last lies.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Breaks {
    pub count: u64,
    pub last: Option<usize>,
}

impl Breaks {
    /// Move a reader's line and line start past the line breaks, of bytes whose first lies at
    /// offset `base` of the file.
    pub fn move_lines(&self, base: u64, line: &mut u64, line_start: &mut u64) {
        *line += self.count;
        if let Some(at) = self.last {
            *line_start = base + at as u64 + 1;
        }
    }

    /// Add the line breaks of the chunk at `at` whose bits are `bits`.
    fn add(&mut self, bits: u64, at: usize) {
        if bits != 0 {
            self.count += u64::from(bits.count_ones());
            self.last = Some(at + 63 - bits.leading_zeros() as usize);
        }
    }
}

/// Step over the value whose brackets `state` holds open, from `bytes[from]` on, to its end
/// or the end of the bytes, keeping `state` and counting line breaks in `breaks`. A closing
/// bracket closes whichever bracket is open, as the bytewise cutter has it: which one is the
/// element's decoder's to check. `max_depth` open brackets are allowed, no more.
pub fn skip(
    bytes: &[u8],
    from: usize,
    state: &mut Nesting,
    max_depth: usize,
    breaks: &mut Breaks,
) -> Skip {
    let mut at = from;
    while at < bytes.len() {
        let rest = &bytes[at..];
        let (masks, len) = match rest.first_chunk::<64>() {
            Some(chunk) => (Masks::of(chunk), 64),
            None => {
                // the last few bytes, padded with spaces: none of them matters
                let mut chunk = [b' '; 64];
                chunk[..rest.len()].copy_from_slice(rest);
                (Masks::of(&chunk), rest.len())
            }
        };
        let (escaped, escapes) = escaped(masks.backslash, state.escaped);
        let in_string = prefix_xor(masks.quote & !escaped) ^ if state.in_string { !0 } else { 0 };
        let open = masks.open & !in_string;
        if masks.backslash & !in_string != 0 || state.depth + open.count_ones() as usize > max_depth
        {
            // the bytewise cutter reads escapes as it meets them: the byte escaped by the
            // last chunk's end is stepped over here
            let at = if state.escaped {
                step_escaped(state, bytes, at, breaks)
            } else {
                at
            };
            return Skip::Bytewise(at);
        }
        let close = masks.close & !in_string;
        let mut brackets = open | close;
        while brackets != 0 {
            let bit = brackets & brackets.wrapping_neg();
            if open & bit != 0 {
                state.depth += 1;
            } else {
                state.depth = state.depth.saturating_sub(1);
                if state.depth == 0 {
                    // a bracket outside strings: neither in a string nor escaped after it
                    breaks.add(masks.line & (bit | (bit - 1)), at);
                    state.in_string = false;
                    state.escaped = false;
                    return Skip::Closed(at + bit.trailing_zeros() as usize);
                }
            }
            brackets ^= bit;
        }
        breaks.add(masks.line, at);
        state.in_string = (in_string >> (len - 1)) & 1 == 1;
        state.escaped = (escapes >> (len - 1)) & 1 == 1;
        at += len;
    }
    Skip::Open
}

/// Step over `bytes[at]`, the byte a backslash escapes (the one before it ended the bytes
/// read before, `state.escaped`), counting it in `breaks` if it breaks a line; returns where
/// the scanning goes on.
pub fn step_escaped(state: &mut Nesting, bytes: &[u8], at: usize, breaks: &mut Breaks) -> usize {
    state.escaped = false;
    if bytes.get(at) == Some(&b'\n') {
        breaks.add(1, at);
    }
    at + 1
}

/// A chunk's bytes that matter, a bit each (bit i: byte i).
#[derive(Debug, Default, PartialEq, Eq)]
struct Masks {
    quote: u64,
    backslash: u64,
    /// `{` and `[`; `}` and `]`.
    open: u64,
    close: u64,
    line: u64,
}

impl Masks {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    fn of(chunk: &[u8; 64]) -> Masks {
        // SAFETY: this code is compiled only for x86_64 processors with SSE2 (the cfg
        // above; SSE2 is part of x86_64 itself), so the instructions it uses are there.
        unsafe { sse2::masks(chunk) }
    }

    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    fn of(chunk: &[u8; 64]) -> Masks {
        Masks::bytewise(chunk)
    }

    /// [`Masks::of`] a byte at a time, where the processor has no instructions for sixteen.
    #[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
    fn bytewise(chunk: &[u8; 64]) -> Masks {
        let mut m = Masks::default();
        for (i, &b) in chunk.iter().enumerate() {
            let bit = 1u64 << i;
            match b {
                b'"' => m.quote |= bit,
                b'\\' => m.backslash |= bit,
                b'{' | b'[' => m.open |= bit,
                b'}' | b']' => m.close |= bit,
                b'\n' => m.line |= bit,
                _ => {}
            }
        }
        m
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use super::Masks;
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };

    #[target_feature(enable = "sse2")]
    pub fn masks(chunk: &[u8; 64]) -> Masks {
        let mut m = Masks::default();
        let bits = |v: __m128i, b: u8| -> u64 {
            u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8))) as u16)
        };
        for (k, part) in chunk.chunks_exact(16).enumerate() {
            // SAFETY: an unaligned load of sixteen bytes of `chunk`, no more
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
            // `[` and `]` are `{` and `}` without the 0x20 bit, and no other byte is
            let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
            let shift = 16 * k;
            m.quote |= bits(v, b'"') << shift;
            m.backslash |= bits(v, b'\\') << shift;
            m.line |= bits(v, b'\n') << shift;
            m.open |= bits(folded, b'{') << shift;
            m.close |= bits(folded, b'}') << shift;
        }
        m
    }
}

/// The bytes of a chunk that a backslash escapes, and the backslashes that escape, given its
/// backslashes and whether its first byte is escaped (the chunk before ended in a backslash
/// that escapes). A run of backslashes escapes the byte after it when it is odd, counted from
/// its first backslash not itself escaped: simdjson's arithmetic, where subtracting a run's
/// start from the odd bits borrows through the run and marks, a bit of each parity, the
/// backslashes that escape and the byte after each.
fn escaped(backslash: u64, first_escaped: bool) -> (u64, u64) {
    const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    let carry = u64::from(first_escaped);
    // an escaped backslash escapes nothing
    let may_escape = backslash & !carry;
    let codes = ((may_escape << 1) | ODD).wrapping_sub(may_escape) ^ ODD;
    (codes ^ (backslash | carry), codes & backslash)
}

/// Bit i set when an odd number of bits 0..=i of `bits` are: with the quotes not escaped,
/// the bytes from an opening quote up to, not including, its closing one.
fn prefix_xor(mut bits: u64) -> u64 {
    bits ^= bits << 1;
    bits ^= bits << 2;
    bits ^= bits << 4;
    bits ^= bits << 8;
    bits ^= bits << 16;
    bits ^= bits << 32;
    bits
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`skip`] a byte at a time, for the tests: the semantics the masks must keep.
    fn skip_bytewise(bytes: &[u8], from: usize, state: &mut Nesting, breaks: &mut Breaks) -> Skip {
        for (i, &b) in bytes.iter().enumerate().skip(from) {
            if b == b'\n' {
                breaks.count += 1;
                breaks.last = Some(i);
            }
            if state.escaped {
                state.escaped = false;
            } else if state.in_string {
                match b {
                    b'\\' => state.escaped = true,
                    b'"' => state.in_string = false,
                    _ => {}
                }
            } else {
                match b {
                    b'\\' => return Skip::Bytewise(i),
                    b'"' => state.in_string = true,
                    b'{' | b'[' => state.depth += 1,
                    b'}' | b']' => {
                        state.depth = state.depth.saturating_sub(1);
                        if state.depth == 0 {
                            return Skip::Closed(i);
                        }
                    }
                    _ => {}
                }
            }
        }
        Skip::Open
    }

    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![
                Just(b'"'),
                Just(b'\\'),
                Just(b'{'),
                Just(b'}'),
                Just(b'['),
                Just(b']'),
                Just(b'\n'),
                Just(b'a'),
                Just(b'{' | 0x80),
                Just(b'[' ^ 0x20),
            ],
            0..300,
        )
    }

    proptest! {
        /// The masks taken sixteen bytes at a time are those taken a byte at a time.
        #[test]
        fn the_masks_are_the_bytes(chunk in proptest::array::uniform32(any::<u8>()),
                                   more in proptest::array::uniform32(any::<u8>())) {
            let mut bytes = [0u8; 64];
            bytes[..32].copy_from_slice(&chunk);
            bytes[32..].copy_from_slice(&more);
            // every byte that matters, and the bytes one bit away from `[`, `]`, `{`, `}`
            for (i, b) in b"\"\\{}[]\n;=ka".iter().enumerate() {
                bytes[(i * 5 + usize::from(chunk[0])) % 64] = *b;
            }
            prop_assert_eq!(Masks::of(&bytes), Masks::bytewise(&bytes));
        }

        /// Fed in pieces of any sizes, the masks find what a byte at a time finds: the same
        /// end, the same state and line breaks where both go on; and where they hand over,
        /// they do so with the state a byte at a time has there, before its end.
        #[test]
        fn the_masks_find_what_a_byte_loop_finds(
            bytes in bytes(),
            cuts in proptest::collection::vec(0usize..300, 0..4),
            in_string in any::<bool>(),
        ) {
            let mut ends: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            ends.push(bytes.len());
            ends.sort_unstable();
            let start = Nesting { depth: 1, in_string, escaped: false };
            let (mut fast, mut slow) = (start, start);
            let (mut fast_breaks, mut slow_breaks) = (Breaks::default(), Breaks::default());
            let mut from = 0;
            for end in ends {
                let (before, breaks_before) = (slow, slow_breaks);
                let want = skip_bytewise(&bytes[..end], from, &mut slow, &mut slow_breaks);
                let got = skip(&bytes[..end], from, &mut fast, usize::MAX, &mut fast_breaks);
                if let Skip::Bytewise(at) = got {
                    let (mut slow, mut slow_breaks) = (before, breaks_before);
                    let upto = skip_bytewise(&bytes[..at], from, &mut slow, &mut slow_breaks);
                    prop_assert_eq!(upto, Skip::Open);
                    prop_assert_eq!((fast, fast_breaks), (slow, slow_breaks));
                    return Ok(());
                }
                prop_assert_eq!(got, want);
                prop_assert_eq!((fast, fast_breaks), (slow, slow_breaks));
                if got != Skip::Open {
                    return Ok(());
                }
                from = end;
            }
        }
    }

    #[test]
    fn runs_of_backslashes_escape_by_their_parity() {
        // `\\\"` escapes the quote; `\\\\"` does not; across the chunk's edge as well
        for (run, quote_escaped) in [(1, true), (2, false), (3, true), (4, false)] {
            for pad in [0, 60, 61, 62, 63, 64] {
                let mut text = vec![b'a'; pad];
                text.extend(std::iter::repeat_n(b'\\', run));
                text.extend_from_slice(b"\"}");
                let mut state = Nesting {
                    depth: 1,
                    in_string: true,
                    escaped: false,
                };
                let got = skip(&text, 0, &mut state, 8, &mut Breaks::default());
                let want = if quote_escaped {
                    Skip::Open
                } else {
                    Skip::Closed(text.len() - 1)
                };
                assert_eq!(got, want, "{run} backslashes after {pad} bytes");
            }
        }
    }

    #[test]
    fn nesting_that_may_pass_the_depth_is_handed_over() {
        let text = b"[[[[]]]]]";
        let skip_with = |max_depth| {
            let mut state = Nesting {
                depth: 1,
                ..Nesting::default()
            };
            skip(text, 0, &mut state, max_depth, &mut Breaks::default())
        };
        assert_eq!(skip_with(4), Skip::Bytewise(0));
        assert_eq!(skip_with(5), Skip::Closed(8));
    }
}
