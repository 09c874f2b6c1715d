//! A purpose-built scanner for one JSON object on one line: it validates the whole line and
//! notes where the wanted keys' values lie, building nothing. It is the reader's fast path for
//! commands that only look ([`super::keep::KeySelection::slots`]); `check` of a million records spends
//! most of its time here, so it is written for speed: strings are stepped over with `memchr`, and
//! nothing is allocated.
//!
//! It takes only what it is sure serde_json takes, with the same result. Anything else — a
//! lone surrogate escaped (serde_json refuses it), a nesting deeper than
//! [`MAX_DEPTH`], a number or literal it cannot place, any syntax error, a line over 4 GiB —
//! is left to the serde_json path (`None`), which gives the canonical answer or error.
//! A property test holds it to that (`tests` below).

use super::keep::KeySlots;
use super::layout::{with_layout, Layout, NO_RUN};
use crate::record::Span;

/// Deeper than this the line is left to serde_json (its limit is 128, counted from the line).
const MAX_DEPTH: usize = 64;

/// Scan `text` (valid UTF-8, one line) as one JSON object, noting in `spans` (one per slot,
/// `(0, 0)` for a key the object lacks; a repeated key: its last value, as a whole read keeps
/// it) where each slotted key's value lies. `None` when the line is left to serde_json; else
/// which slots hold a plain string, one without escapes (a bit per slot, the first 64): its
/// value is then the text between its quotes.
pub fn object_spans(text: &str, slots: &KeySlots, spans: &mut [Span]) -> Option<u64> {
    u32::try_from(text.len()).ok()?;
    spans.fill((0, 0));
    let mut s = ObjectScanner {
        bytes: text.as_bytes(),
        at: 0,
        escaped: false,
    };
    let plain = with_layout(slots, |layout| s.object_fields(slots, spans, layout))?;
    s.space();
    (s.at == s.bytes.len()).then_some(plain)
}

struct ObjectScanner<'a> {
    bytes: &'a [u8],
    at: usize,
    /// An escape was stepped over since this was last cleared.
    escaped: bool,
}

/// What the scanner reports when it leaves a line to serde_json.
type Step = Option<()>;

impl<'a> ObjectScanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    fn expect(&mut self, b: u8) -> Step {
        (self.peek() == Some(b)).then(|| self.at += 1)
    }

    /// The top-level object, noting the slotted keys' values; returns the plain-string bits.
    /// The bytes between one value and the next (`, "key": `; for the first key, from the
    /// `{`) are first looked for as the run that followed the key before on the last line
    /// (`layout.rs`), and read byte by byte when they are not there.
    fn object_fields(
        &mut self,
        slots: &KeySlots,
        spans: &mut [Span],
        layout: &mut Layout,
    ) -> Option<u64> {
        self.space();
        self.expect(b'{')?;
        let mut plain = 0u64;
        let mut prev = NO_RUN;
        let mut first = true;
        loop {
            let from = self.at;
            let slot = match layout
                .after(prev)
                .filter(|(_, run)| run.starts(self.bytes, from))
            {
                Some((this, run)) => {
                    self.at += run.len();
                    self.space();
                    prev = this;
                    run.slot
                }
                None => {
                    self.space();
                    match self.peek()? {
                        b'}' => {
                            self.at += 1;
                            return Some(plain);
                        }
                        b',' if !first => {
                            self.at += 1;
                            self.space();
                        }
                        b'"' if first => {}
                        _ => return None,
                    }
                    self.escaped = false;
                    let key = self.string()?;
                    // an escaped key is the key it decodes to (json.dumps escapes a key past
                    // ASCII, `"descripci\u00f3n"`, as it does a value)
                    let slot = match self.escaped {
                        false => slots.slot_of_raw(key),
                        true => {
                            let text = std::str::from_utf8(key).ok()?;
                            slots.slot_of_raw(decode_string(text)?.as_bytes())
                        }
                    };
                    self.colon()?;
                    prev = layout.learn(prev, &self.bytes[from..self.at], slot);
                    slot
                }
            };
            first = false;
            self.escaped = false;
            let start = self.at;
            // most values are strings: read here, not through `value`'s call
            if self.peek() == Some(b'"') {
                self.string()?;
            } else {
                self.value(1)?;
            }
            if let Some(slot) = slot {
                spans[slot] = (start as u32, self.at as u32);
                let bit = 1u64.checked_shl(slot as u32).unwrap_or(0);
                if self.bytes[start] == b'"' && !self.escaped {
                    plain |= bit;
                } else {
                    plain &= !bit;
                }
            }
        }
    }

    /// The items of an object or an array, from its opening byte through `close`, each read
    /// by `item`, separated by commas.
    fn items(&mut self, close: u8, mut item: impl FnMut(&mut Self) -> Step) -> Step {
        self.at += 1;
        self.space();
        if self.peek() == Some(close) {
            self.at += 1;
            return Some(());
        }
        loop {
            self.space();
            item(self)?;
            self.space();
            match self.peek()? {
                b',' => self.at += 1,
                b if b == close => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The `:` after a key, with the space around it.
    fn colon(&mut self) -> Step {
        self.space();
        self.expect(b':')?;
        self.space();
        Some(())
    }

    /// A string; returns its raw content (between the quotes, escapes as written). Read
    /// many bytes at a time ([`plain_run`]): most strings hold nothing but plain text.
    #[inline(always)]
    fn string(&mut self) -> Option<&'a [u8]> {
        self.expect(b'"')?;
        let start = self.at;
        loop {
            self.at += plain_run(&self.bytes[self.at..]);
            match *self.bytes.get(self.at)? {
                b'"' => {
                    let content = &self.bytes[start..self.at];
                    self.at += 1;
                    return Some(content);
                }
                b'\\' => {
                    self.at += escape(&self.bytes[self.at..])?.1;
                    self.escaped = true;
                }
                // a control character unescaped is an error: serde_json's to report
                _ => return None,
            }
        }
    }

    fn value(&mut self, depth: usize) -> Step {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' => self.items(b'}', |s| {
                s.string()?;
                s.colon()?;
                s.value(depth + 1)
            }),
            b'[' => self.items(b']', |s| s.value(depth + 1)),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8]) -> Step {
        self.bytes[self.at..]
            .starts_with(word)
            .then(|| self.at += word.len())
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, JSON's number.
    fn number(&mut self) -> Step {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.some_digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            self.some_digits()?;
        }
        Some(())
    }

    fn digits(&mut self) {
        self.at += digit_run(&self.bytes[self.at..]);
    }

    fn some_digits(&mut self) -> Step {
        let start = self.at;
        self.digits();
        (self.at > start).then_some(())
    }
}

/// The escape `bytes` starts with (at its backslash): the character it stands for, and its
/// length. A `\u` escape is taken when it is a character of its own or a surrogate pair,
/// which serde_json decodes however it reads the string; a lone surrogate is not (`None`), as
/// serde_json refuses it in a value it builds and steps over it in one it skips. Python's
/// `json.dumps` writes every character past ASCII as `\u` escapes unless told not to, so
/// stores written by Python hold them on most lines of text that is not English.
fn escape(bytes: &[u8]) -> Option<(char, usize)> {
    let two = |c: char| Some((c, 2));
    match *bytes.get(1)? {
        // `"`, `\` and `/` stand for themselves
        b @ (b'"' | b'\\' | b'/') => two(char::from(b)),
        b'b' => two('\u{8}'),
        b'f' => two('\u{c}'),
        b'n' => two('\n'),
        b'r' => two('\r'),
        b't' => two('\t'),
        b'u' => match hex4(bytes.get(2..6)?)? {
            high @ 0xD800..=0xDBFF => {
                let low = bytes.get(6..12)?;
                let low = match (low.starts_with(b"\\u"), hex4(&low[2..])?) {
                    (true, low @ 0xDC00..=0xDFFF) => low,
                    _ => return None,
                };
                let pair = 0x10000 + ((u32::from(high) - 0xD800) << 10) + u32::from(low - 0xDC00);
                Some((char::from_u32(pair)?, 12))
            }
            0xDC00..=0xDFFF => None,
            one => Some((char::from_u32(u32::from(one))?, 6)),
        },
        _ => None,
    }
}

/// The text of a JSON string from its content between the quotes, escapes decoded; `None`
/// unless serde_json reads the same content into a string (a quote or control character
/// unescaped, an unknown escape, a lone surrogate).
pub fn decode_string(inner: &str) -> Option<String> {
    let bytes = inner.as_bytes();
    let mut out = String::with_capacity(inner.len());
    let mut at = 0;
    loop {
        // a run ends at an ASCII byte or the end: a boundary between characters
        let run = plain_run(&bytes[at..]);
        out.push_str(&inner[at..at + run]);
        at += run;
        let Some(&b) = bytes.get(at) else {
            return Some(out);
        };
        if b != b'\\' {
            return None;
        }
        let (decoded, len) = escape(&bytes[at..])?;
        out.push(decoded);
        at += len;
    }
}

/// Four hex digits (either case) as a number.
fn hex4(digits: &[u8]) -> Option<u16> {
    digits.iter().try_fold(0u16, |n, &b| {
        let digit = (b as char).to_digit(16)?;
        Some(n << 4 | digit as u16)
    })
}

/// How many bytes at the start of `bytes` are ASCII digits, eight looked at together:
/// stores that keep an embedding beside each record are mostly numbers.
fn digit_run(bytes: &[u8]) -> usize {
    const HIGH_NIBBLES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        // a digit is 0x30-0x39: its high nibble is 3, and six more than its low nibble
        // stays below 16 (neither sum carries into the next byte)
        let high = (word & HIGH_NIBBLES) ^ 0x3030_3030_3030_3030;
        let low = ((word & !HIGH_NIBBLES) + 0x0606_0606_0606_0606) & HIGH_NIBBLES;
        let other = high | low;
        if other != 0 {
            return at + (other.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + bytes[at..]
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(bytes.len() - at)
}

/// How many bytes at the start of `bytes` are plain string content: not `"`, not `\\`, not
/// a control character.
fn plain_run(bytes: &[u8]) -> usize {
    let mut at = 0;
    // sixteen bytes at a time where the processor compares sixteen at once
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    while let Some(chunk) = bytes
        .get(at..at + 16)
        .and_then(|c| <&[u8; 16]>::try_from(c).ok())
    {
        // SAFETY: this code is compiled only for x86_64 processors with SSE2 (the cfg
        // above; SSE2 is part of x86_64 itself), so the instructions it uses are there.
        let special = unsafe { sse2::special_bytes(chunk) };
        if special != 0 {
            return at + special.trailing_zeros() as usize;
        }
        at += 16;
    }
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let special = special_bytes(word);
        if special != 0 {
            return at + (special.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + bytes[at..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .unwrap_or(bytes.len() - at)
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    /// A bit for each of the sixteen bytes that is `"`, `\\` or below 0x20 (bit i: byte i).
    #[target_feature(enable = "sse2")]
    pub fn special_bytes(chunk: &[u8; 16]) -> u32 {
        // SAFETY: an unaligned load of the sixteen bytes `chunk` borrows, no more
        let v = unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) };
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        // unsigned b <= 0x1f exactly when min(b, 0x1f) == b
        let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
    }
}

/// The high bit of each byte of `word` that is `"`, `\\` or below 0x20 (exact up to the
/// lowest one, which is all [`plain_run`] reads: a borrow may mark bytes above it).
fn special_bytes(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_in = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    zero_in(word ^ (ONES * b'"' as u64)) | zero_in(word ^ (ONES * b'\\' as u64)) | below_space
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, Value};

    fn spans_of(line: &str, keys: &[&str]) -> Option<Vec<Option<String>>> {
        let slots = KeySlots::new(keys.iter().copied());
        let mut spans = vec![(0, 0); slots.len()];
        object_spans(line, &slots, &mut spans).map(|_| {
            spans
                .iter()
                .map(|&(s, e)| (e > 0).then(|| line[s as usize..e as usize].to_string()))
                .collect()
        })
    }

    #[test]
    fn notes_the_wanted_values_as_written() {
        let line = r#" {"a": "x\"y", "b": [1, {"c": null}], "n": -1.5e+3, "a": true, "t": "\\"} "#;
        let got = spans_of(line, &["b", "a", "z", "n", "t"]).unwrap();
        assert_eq!(got[0].as_deref(), Some(r#"[1, {"c": null}]"#));
        assert_eq!(got[1].as_deref(), Some("true"));
        assert_eq!(got[2], None);
        assert_eq!(got[3].as_deref(), Some("-1.5e+3"));
        assert_eq!(got[4].as_deref(), Some(r#""\\""#));
        assert_eq!(spans_of("{}", &["a"]).unwrap(), vec![None]);
    }

    #[test]
    fn marks_the_slots_that_hold_plain_strings() {
        let slots = KeySlots::new(["a", "b", "c", "d", "e"]);
        let mut spans = vec![(0, 0); slots.len()];
        let line = r#"{"a": "x", "b": "x\ny", "c": 1, "d": "q", "d": ["p"], "e": "", "x": "z"}"#;
        let plain = object_spans(line, &slots, &mut spans).expect("taken");
        let bit = |key: &str| 1u64 << slots.slot(key).expect("slot");
        // "d" is plain at first, then repeated with a list: its last value counts
        assert_eq!(plain, bit("a") | bit("e"), "{plain:b}");
    }

    #[test]
    fn leaves_to_serde_json_what_it_is_not_sure_of() {
        let deep = format!(r#"{{"a": {}{}}}"#, "[".repeat(100), "]".repeat(100));
        for line in [
            r#"{"a": "\ud800"}"#,
            r#"{"a": "\udc00\ud800"}"#,
            r#"{"a": "\ud83d\u0041"}"#,
            r#"{"a": "\ud83d\"}"#,
            r#"{"a": "\u00g9"}"#,
            r#"{"a": "\u00e"}"#,
            r#"{"a": "tab	inside"}"#,
            r#"{"a": "\q"}"#,
            r#"{"a": 01}"#,
            r#"{"a": 1.}"#,
            r#"{"a": -}"#,
            r#"{"a": tru}"#,
            r#"{"a": NaN}"#,
            r#"{"a": [1,]}"#,
            r#"{"a": 1,}"#,
            r#"{"a" 1}"#,
            r#"{"a": 1} x"#,
            r#"[1]"#,
            "",
            deep.as_str(),
        ] {
            assert!(spans_of(line, &["a"]).is_none(), "{line}");
        }
    }

    #[test]
    fn plain_runs_stop_at_the_first_special_byte() {
        for text in [
            "",
            "a",
            "abcdefgh",
            "abcdefghij\"",
            "héllo wörld\\x",
            "1234567\u{1f}",
            "\"",
            "ab\u{7f}\u{80}cdefghijklmnop\u{0}",
        ] {
            let bytes = text.as_bytes();
            let expected = bytes
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .unwrap_or(bytes.len());
            assert_eq!(plain_run(bytes), expected, "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn plain_runs_agree_with_a_byte_loop(text in "[ -~\u{0}-\u{1f}é€😀]{0,40}") {
            let bytes = text.as_bytes();
            let expected = bytes
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .unwrap_or(bytes.len());
            proptest::prop_assert_eq!(plain_run(bytes), expected);
        }

        /// Lines read one after another teach the scanner their layout (`layout.rs`): keys
        /// in changing orders and spacings, near misses of one another (a prefix, a longer
        /// key, an escape), still give serde_json's values, line after line.
        #[test]
        fn a_learned_layout_reads_what_serde_json_reads(
            lines in proptest::collection::vec(
                proptest::collection::vec(
                    (0usize..7, "( ?)", "( ?)", "[1-9][0-9]{0,2}|\"[a-z ]{0,4}\""),
                    0..6,
                ),
                1..12,
            ),
        ) {
            let keys = [r#""ab""#, r#""a""#, r#""abc""#, r#""a\u0062""#, r#""b""#, r#""x""#, r#""ab ""#];
            let wanted = ["ab", "a", "abc", "b"];
            for fields in lines {
                let body: Vec<String> = fields
                    .iter()
                    .map(|(k, before, after, value)| format!("{}{before}:{after}{value}", keys[*k]))
                    .collect();
                let line = format!("{{{}}}", body.join(", "));
                let whole: Map<String, Value> = serde_json::from_str(&line).expect("valid");
                // every line here is taken: `"a\u0062"` is the key `ab`, decoded
                let got = spans_of(&line, &wanted);
                proptest::prop_assert!(got.is_some(), "{}", line);
                for (key, raw) in wanted.iter().zip(got.unwrap_or_default()) {
                    let value = raw.map(|r| serde_json::from_str::<Value>(&r).expect("a value"));
                    proptest::prop_assert_eq!(value.as_ref(), whole.get(*key), "{}", line);
                }
            }
        }

        #[test]
        fn digit_runs_agree_with_a_byte_loop(
            text in "[0-9]{0,20}[ -~\u{0}-\u{1f}é\u{80}-\u{ff}]{0,12}",
        ) {
            let bytes = text.as_bytes();
            let expected = bytes.iter().position(|b| !b.is_ascii_digit()).unwrap_or(bytes.len());
            proptest::prop_assert_eq!(digit_run(bytes), expected);
        }

        /// A `\u` escape is taken exactly when serde_json builds its string: a character of
        /// its own or a surrogate pair, in either case, never a lone surrogate or a short one.
        #[test]
        fn takes_the_unicode_escapes_serde_json_decodes(
            pieces in proptest::collection::vec(
                r#"\\u(0041|00e9|20AC|d83d|D83D|de00|DC00|dbff|dfff|d800|00)|x|é"#,
                0..6,
            ),
        ) {
            let line = format!(r#"{{"a": "{}", "b": 1}}"#, pieces.concat());
            let whole = serde_json::from_str::<Map<String, Value>>(&line);
            let got = spans_of(&line, &["a"]);
            proptest::prop_assert_eq!(got.is_some(), whole.is_ok(), "{}", line);
            if let (Some(got), Ok(whole)) = (got, whole) {
                let raw = got[0].as_deref().expect("a is there");
                let value: Value = serde_json::from_str(raw).expect("a value");
                proptest::prop_assert_eq!(Some(&value), whole.get("a"), "{}", line);
            }
        }

        /// A string's content decodes to what serde_json reads, and is refused where
        /// serde_json refuses it.
        #[test]
        fn strings_decode_as_serde_json_decodes_them(
            pieces in proptest::collection::vec(
                concat!(
                    r#"\\u(0041|00e9|20AC|d83d|de00|DC00|dbff|DFFF|0000|00)"#,
                    r#"|\\[\\"/bfnrtqu]|["\t\x01]|[a-z é😀]"#,
                ),
                0..8,
            ),
        ) {
            let inner = pieces.concat();
            let serde = serde_json::from_str::<String>(&format!(r#""{inner}""#)).ok();
            proptest::prop_assert_eq!(decode_string(&inner), serde, "{}", inner);
        }

        /// Whatever line the scanner takes, serde_json takes too, and the values it notes are
        /// the ones serde_json reads (the last of a repeated key).
        #[test]
        fn takes_only_what_serde_json_takes_with_the_same_values(
            a in r#"[\[\]{}",:0-9a-z\\. \-eE+]{0,24}"#,
            b in r#"[\[\]{}",:0-9a-z\\. \-eE+]{0,24}"#,
        ) {
            let line = format!(r#"{{"a": {a}, "b": {b}, "a": {b}}}"#);
            let whole = serde_json::from_str::<Map<String, Value>>(&line);
            if let Some(got) = spans_of(&line, &["a", "b"]) {
                let whole = whole.expect("the scanner took what serde_json refuses");
                for (key, raw) in ["a", "b"].iter().zip(got) {
                    let raw = raw.expect("both keys are there");
                    let value: Value = serde_json::from_str(&raw).expect("a value");
                    proptest::prop_assert_eq!(Some(&value), whole.get(*key), "{}", line);
                }
            }
        }
    }
}
