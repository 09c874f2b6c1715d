//! Record ids as the checks keep them. The stores that machines write name records by UUID
//! (Graphiti, Zep and mem0 write `uuid4()` in its 36-character form), and a check keeps every
//! id and every supersedes target: as text, a million UUIDs take 36 MB. Kept here as a marker
//! byte and their 16 bytes, they take 17; any other id is kept as its text.
//!
//! Each text has exactly one kept form, and two texts the same form only when they are equal,
//! so ids are compared in their kept form. A marker is a byte no UTF-8 text holds, so no text
//! is ever taken for a UUID's form.

use super::super::table::Arena;

/// A UUID written in lowercase (or in digits only), then one in uppercase.
const LOWER: u8 = 0xfe;
const UPPER: u8 = 0xff;

/// A UUID's text: 32 hex digits in five groups (where each lies), a hyphen after each group
/// but the last.
const UUID_LEN: usize = 36;
const GROUPS: [(usize, usize); 5] = [(0, 8), (9, 13), (14, 18), (19, 23), (24, UUID_LEN)];

/// What a byte of a UUID's text is: a hex digit's value (the low four bits), with [`LETTER`]
/// or [`CAPITAL`] for a letter; [`NOT_HEX`] for any byte that is not a hex digit.
const LETTER: u8 = 0x10;
const CAPITAL: u8 = 0x20;
const NOT_HEX: u8 = 0x40;
const HEX: [u8; 256] = {
    let mut table = [NOT_HEX; 256];
    let mut c = 0;
    while c < 10 {
        table[b'0' as usize + c] = c as u8;
        c += 1;
    }
    let mut c = 0;
    while c < 6 {
        table[b'a' as usize + c] = LETTER | (10 + c as u8);
        table[b'A' as usize + c] = CAPITAL | (10 + c as u8);
        c += 1;
    }
    table
};

/// Each byte's two hex digits, in lowercase and in uppercase.
const LOWER_PAIRS: [[u8; 2]; 256] = hex_pairs(b"0123456789abcdef");
const UPPER_PAIRS: [[u8; 2]; 256] = hex_pairs(b"0123456789ABCDEF");

const fn hex_pairs(digits: &[u8; 16]) -> [[u8; 2]; 256] {
    let mut pairs = [[0; 2]; 256];
    let mut byte = 0;
    while byte < 256 {
        pairs[byte] = [digits[byte >> 4], digits[byte & 0xf]];
        byte += 1;
    }
    pairs
}

/// A UUID's kept form: its marker, then its 16 bytes.
type Kept = [u8; KEPT_LEN];
const KEPT_LEN: usize = 17;

/// The kept form of `text` when it is a UUID in one case: `8-4-4-4-12` hex digits, its
/// letters all lowercase or all uppercase (a mix would not come back the same).
#[inline]
fn keep_uuid(text: &str) -> Option<Kept> {
    let text: &[u8; UUID_LEN] = text.as_bytes().try_into().ok()?;
    if GROUPS[..4].iter().any(|&(_, end)| text[end] != b'-') {
        return None;
    }
    let mut digits = [0u8; 32];
    let mut n = 0;
    for (start, end) in GROUPS {
        digits[n..n + end - start].copy_from_slice(&text[start..end]);
        n += end - start;
    }
    let mut kept: Kept = [0; KEPT_LEN];
    let mut seen = 0;
    for (byte, pair) in kept[1..].iter_mut().zip(digits.chunks_exact(2)) {
        let (high, low) = (HEX[pair[0] as usize], HEX[pair[1] as usize]);
        seen |= high | low;
        *byte = (high << 4) | (low & 0xf);
    }
    kept[0] = match seen & (LETTER | CAPITAL | NOT_HEX) {
        0 | LETTER => LOWER,
        CAPITAL => UPPER,
        _ => return None,
    };
    Some(kept)
}

/// How many bytes `text` takes kept as an id.
pub fn kept_len(text: &str) -> usize {
    keep_uuid(text).map_or(text.len(), |kept| kept.len())
}

/// `f` of `text`'s kept form.
#[inline]
pub fn with_kept<R>(text: &str, f: impl FnOnce(&[u8]) -> R) -> R {
    match keep_uuid(text) {
        Some(kept) => f(&kept),
        None => f(text.as_bytes()),
    }
}

/// The name of a record as a report writes it: a text kept as it is, an id kept as a UUID,
/// written out again, or an id read back from the temporary file it went to (`ids.rs`).
#[derive(Clone)]
pub enum RecordName<'a> {
    Text(&'a str),
    Uuid(UuidText),
    Read(Box<str>),
}

/// A UUID written out again: hex digits and hyphens (ASCII: made here only).
#[derive(Clone, Copy)]
pub struct UuidText([u8; UUID_LEN]);

impl<'a> RecordName<'a> {
    /// The name an id's kept form stands for.
    #[inline]
    fn of_kept(kept: &'a [u8]) -> RecordName<'a> {
        match UuidText::of_kept(kept) {
            Some(uuid) => RecordName::Uuid(uuid),
            None => {
                debug_assert!(std::str::from_utf8(kept).is_ok());
                // SAFETY: a kept form without a marker is a whole `str` as pushed (the
                // arena gives whole pushes only), and a marker is no byte of UTF-8.
                RecordName::Text(unsafe { std::str::from_utf8_unchecked(kept) })
            }
        }
    }

    /// [`Self::of_read`], borrowed from the bytes read back rather than taking them.
    pub fn of_kept_read(kept: &[u8]) -> Option<RecordName<'_>> {
        match UuidText::of_kept(kept) {
            Some(uuid) => Some(RecordName::Uuid(uuid)),
            None => std::str::from_utf8(kept).ok().map(RecordName::Text),
        }
    }

    /// The name an id's kept form read back stands for; `None` when the bytes are no kept
    /// form (the file they were read from changed).
    pub fn of_read(kept: Vec<u8>) -> Option<RecordName<'static>> {
        match UuidText::of_kept(&kept) {
            Some(uuid) => Some(RecordName::Uuid(uuid)),
            None => String::from_utf8(kept)
                .ok()
                .map(|text| RecordName::Read(text.into_boxed_str())),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            RecordName::Text(text) => text,
            RecordName::Read(text) => text,
            // SAFETY: a `UuidText` is made by `of_kept` only, of hex digits and hyphens: ASCII.
            RecordName::Uuid(text) => unsafe { std::str::from_utf8_unchecked(&text.0) },
        }
    }
}

impl UuidText {
    /// The UUID a kept form with a marker stands for (`None` without one).
    #[inline]
    fn of_kept(kept: &[u8]) -> Option<UuidText> {
        let (hex, digits) = match kept.split_first() {
            Some((&LOWER, digits)) if kept.len() == KEPT_LEN => (&LOWER_PAIRS, digits),
            Some((&UPPER, digits)) if kept.len() == KEPT_LEN => (&UPPER_PAIRS, digits),
            _ => return None,
        };
        let mut written = [0u8; 32];
        for (&byte, pair) in digits.iter().zip(written.chunks_exact_mut(2)) {
            pair.copy_from_slice(&hex[byte as usize]);
        }
        let mut text = [b'-'; UUID_LEN];
        let mut n = 0;
        for (start, end) in GROUPS {
            text[start..end].copy_from_slice(&written[n..n + end - start]);
            n += end - start;
        }
        Some(UuidText(text))
    }
}

impl std::ops::Deref for RecordName<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for RecordName<'_> {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for RecordName<'_> {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl serde::Serialize for RecordName<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl std::fmt::Display for RecordName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for RecordName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for RecordName<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<&str> for RecordName<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Ids in their kept form, in one arena.
#[derive(Default)]
pub struct IdTexts(Arena);

impl IdTexts {
    /// Keep `text`; its place.
    #[inline]
    pub fn push(&mut self, text: &str) -> usize {
        with_kept(text, |kept| self.0.push(kept))
    }

    /// Room for `n` more ids whose texts take `bytes` in all.
    pub fn reserve(&mut self, n: usize, bytes: usize) {
        self.0.reserve(n, bytes)
    }

    /// The kept forms held, one after the other (see [`Arena::text`]), and their bytes.
    pub fn text(&self) -> &[u8] {
        self.0.text()
    }

    /// The bytes of the kept forms held.
    pub fn text_len(&self) -> usize {
        self.0.text_len()
    }

    /// How many ids are held (see [`Arena::held`]).
    pub fn held(&self) -> usize {
        self.0.held()
    }

    /// Let go of the kept forms held, written elsewhere (see [`Arena::let_go`]).
    pub fn let_go(&mut self) {
        self.0.let_go()
    }

    /// The id at `i` is held, not let go (see [`Arena::holds`]).
    pub fn holds(&self, i: usize) -> bool {
        self.0.holds(i)
    }

    /// Where the kept form of the id at `i` lies among every kept form, the ones let go too.
    pub fn bounds(&self, i: usize) -> Option<(usize, usize)> {
        self.0.bounds(i)
    }

    /// The kept form of the id at `i` in `all`, every kept form one after the other (the
    /// ones let go as read back, then [`Self::text`]): equal for equal texts only.
    pub fn kept_in<'w>(&self, all: &'w [u8], i: usize) -> &'w [u8] {
        self.bounds(i)
            .and_then(|(start, end)| all.get(start..end))
            .unwrap_or(b"")
    }

    /// The id at `i` (empty past the end).
    pub fn get(&self, i: usize) -> RecordName<'_> {
        RecordName::of_kept(self.0.get(i))
    }

    /// See [`Arena::prefetch_bounds`].
    #[inline]
    pub fn prefetch_bounds(&self, i: usize) {
        self.0.prefetch_bounds(i)
    }

    /// See [`Arena::prefetch_text`].
    #[inline]
    pub fn prefetch_text(&self, i: usize) {
        self.0.prefetch_text(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uuid_in_one_case_is_kept_in_17_bytes_and_comes_back_the_same() {
        let mut ids = IdTexts::default();
        let texts = [
            "298ae558-fe1a-3bb5-aab7-fab0bad18e42",
            "298AE558-FE1A-3BB5-AAB7-FAB0BAD18E42",
            "00000000-0000-0000-0000-000000000000",
            // a mix of cases, a letter past f, a hyphen out of place, one digit short
            "298ae558-FE1A-3bb5-aab7-fab0bad18e42",
            "298ae558-fe1a-3bb5-aab7-fab0bad18e4g",
            "298ae558f-e1a-3bb5-aab7-fab0bad18e42",
            "298ae558-fe1a-3bb5-aab7-fab0bad18e4",
            "R-0000123",
            "",
        ];
        for text in texts {
            ids.push(text);
        }
        for (i, text) in texts.iter().enumerate() {
            assert_eq!(ids.get(i), *text);
            let uuid = i < 3;
            assert_eq!(
                ids.kept_in(ids.text(), i).len(),
                if uuid { 17 } else { text.len() },
                "{text}"
            );
        }
        // the two cases are two ids
        assert_ne!(ids.kept_in(ids.text(), 0), ids.kept_in(ids.text(), 1));
    }

    proptest::proptest! {
        /// Every text comes back as it went in, and two texts share a kept form only when
        /// they are equal.
        #[test]
        fn kept_forms_are_equal_only_for_equal_texts(
            texts in proptest::collection::vec(
                proptest::prop_oneof![
                    // UUIDs in lowercase, in uppercase, in both (few, so some repeat)
                    "[0a]{2}aaaaaa-0000-4000-8000-00000000000[0a]",
                    "[0A]{2}AAAAAA-0000-4000-8000-00000000000[0A]",
                    "[0aA]{2}aaaaaa-0000-4000-8000-00000000000[0aA]",
                    // near misses and any text
                    "[0a-]{35,37}",
                    "\\PC{0,5}",
                ],
                0..40,
            ),
        ) {
            let mut ids = IdTexts::default();
            for text in &texts {
                ids.push(text);
            }
            for (i, a) in texts.iter().enumerate() {
                proptest::prop_assert_eq!(ids.get(i).to_string(), a.as_str());
                for (j, b) in texts.iter().enumerate() {
                    proptest::prop_assert_eq!(ids.kept_in(ids.text(), i) == ids.kept_in(ids.text(), j), a == b);
                }
            }
        }
    }
}
