//! Which keys of each record the reader builds.
//!
//! Commands that rewrite records read them whole ([`KeySelection::all`]: every key, the raw text).
//! Commands that only look at a few roles (`check`) name the keys they look at
//! ([`KeySelection::keys`]); for each JSON line the reader then builds only those keys' values and
//! steps over the rest without building them (no strings, no maps, no raw copy). Or they take
//! the validated raw text alone with the places of the values they want noted
//! ([`KeySelection::slots`], `Record::spans`), and read those values from the text, borrowed, on
//! any core.
//!
//! Stepping over is not skimming: a skipped value goes through serde_json's own `deserialize_any`
//! path, so it is validated exactly as when the whole record is built (escapes, lone surrogates,
//! control characters, the nesting limit). A line the fast path cannot take (not an object, or
//! any error) is decoded again the whole way, so errors and their positions are the ones a full
//! read gives.

use crate::record::Span;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

/// The keys to build (all, or a set), and whether to keep each record's raw text.
#[derive(Debug, Clone)]
pub struct KeySelection {
    /// `None`: every key.
    keys: Option<Arc<HashSet<String>>>,
    raw: bool,
    /// Keys whose values' places in the raw text are noted (`Record::spans`), by slot.
    slots: Option<Arc<KeySlots>>,
    /// The slots an engrama dump's lines are read with instead, when its records read
    /// through the dump's own map (its header says so before the first of them).
    dump_slots: Option<Arc<KeySlots>>,
}

/// One line decoded under a [`KeySelection`]: the kept keys built, the slotted keys' places noted.
pub struct Decoded {
    pub fields: Map<String, Value>,
    pub spans: Option<Box<[Span]>>,
}

impl Default for KeySelection {
    fn default() -> Self {
        KeySelection::all()
    }
}

impl KeySelection {
    /// Every key, and the record's raw text: records that may be written back.
    pub fn all() -> KeySelection {
        KeySelection {
            keys: None,
            raw: true,
            slots: None,
            dump_slots: None,
        }
    }

    /// Only these top-level keys (a record lacking one simply lacks it), and no raw text.
    /// Records read this way are for looking at, never for writing back.
    pub fn keys<I, S>(keys: I) -> KeySelection
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        KeySelection {
            keys: Some(Arc::new(keys.into_iter().map(Into::into).collect())),
            raw: false,
            slots: None,
            dump_slots: None,
        }
    }

    /// No keys built; the raw text kept, validated exactly as a whole read validates it, with
    /// the place of each slotted key's value noted (`Record::spans`): a command that only
    /// looks reads those values from the text, borrowed, on any core.
    pub fn slots(slots: KeySlots) -> KeySelection {
        KeySelection {
            keys: Some(Arc::new(HashSet::new())),
            raw: true,
            slots: Some(Arc::new(slots)),
            dump_slots: None,
        }
    }

    /// This selection, an engrama dump's lines read with `slots` instead (see the field).
    pub fn with_dump_slots(self, slots: KeySlots) -> KeySelection {
        KeySelection {
            dump_slots: Some(Arc::new(slots)),
            ..self
        }
    }

    /// The selection an engrama dump's lines are read with: its own slots when it has them,
    /// and `kind` built (the reader sorts the lines by it).
    pub fn for_dump(&self, kind: &str) -> KeySelection {
        let mut dump = self.with(kind);
        if let Some(slots) = &self.dump_slots {
            dump.slots = Some(Arc::clone(slots));
        }
        dump
    }

    /// This set plus one more key (the reader needs `type` to sort engrama lines).
    pub fn with(&self, key: &str) -> KeySelection {
        match &self.keys {
            Some(keys) if !keys.contains(key) => {
                let mut keys = HashSet::clone(keys);
                keys.insert(key.to_string());
                KeySelection {
                    keys: Some(Arc::new(keys)),
                    raw: self.raw,
                    slots: self.slots.clone(),
                    dump_slots: self.dump_slots.clone(),
                }
            }
            _ => self.clone(),
        }
    }

    pub fn wants_raw(&self) -> bool {
        self.raw
    }

    /// The places of some keys' values are noted (`KeySelection::slots`).
    pub fn has_slots(&self) -> bool {
        self.slots.is_some()
    }

    /// The keys whose values' places are noted, when there are some.
    pub fn key_slots(&self) -> Option<&KeySlots> {
        self.slots.as_deref()
    }

    /// Drop the keys this set does not keep (for a record that was built whole).
    pub fn trim(&self, fields: &mut Map<String, Value>) {
        if let Some(keys) = &self.keys {
            fields.retain(|k, _| keys.contains(k));
        }
    }

    /// Decode one line holding a JSON object into only the kept keys (and the slotted keys'
    /// places). `None` when the fast path does not apply or fails: the caller decodes the line
    /// whole instead (which gives the canonical error, or the kind of a non-object).
    pub fn decode_object(&self, text: &str) -> Option<Decoded> {
        let keys = self.keys.as_deref()?;
        if !text.trim_start().starts_with('{') || u32::try_from(text.len()).is_err() {
            return None;
        }
        let mut de = serde_json::Deserializer::from_str(text);
        let seed = Projection {
            keys,
            slots: self.slots.as_deref(),
            text,
        };
        let decoded = seed.deserialize(&mut de).ok()?;
        de.end().ok()?;
        Some(decoded)
    }

    /// The fields of a line decoded whole, as this set keeps them (no spans: a line that
    /// needed the whole decode is read from its fields).
    pub fn trimmed(&self, mut fields: Map<String, Value>) -> Decoded {
        self.trim(&mut fields);
        Decoded {
            fields,
            spans: None,
        }
    }
}

/// Where each wanted key goes: a dense slot number per key, for [`RawFields`].
#[derive(Debug, Clone)]
pub struct KeySlots {
    slots: HashMap<String, usize, hashbrown::DefaultHashBuilder>,
    /// The same keys in [`PLACES`] places by length and first and last byte, for the
    /// scanner: a key read from a line is compared with the one wanted key in its place, by
    /// its length and two words, not hashed, and not compared with every wanted key of its
    /// length (the profile's keys come seven to a length). Keys that share a place with an
    /// earlier one wait in `crowded`, looked through only for keys of those places.
    places: Box<[Wanted; PLACES]>,
    crowded: Vec<(Box<[u8]>, usize)>,
    /// Which set this is, for what the scanner learns about it (`layout.rs`): one number per
    /// set made (a clone is the same set).
    id: u64,
}

/// Places for the wanted keys (a power of two).
const PLACES: usize = 256;

/// The wanted key in one place.
#[derive(Debug, Clone)]
struct Wanted {
    /// `usize::MAX` for an empty place.
    len: usize,
    words: [u64; 2],
    text: Box<[u8]>,
    slot: usize,
    /// Another wanted key has this place too (it is in `KeySlots::crowded`).
    shared: bool,
}

impl Default for Wanted {
    fn default() -> Wanted {
        Wanted {
            len: usize::MAX,
            words: [0; 2],
            text: Box::default(),
            slot: 0,
            shared: false,
        }
    }
}

/// The place of a key written `key` (no escapes).
#[inline]
fn place_of(key: &[u8]) -> usize {
    let (first, last) = (key.first().copied(), key.last().copied());
    let (first, last) = (first.unwrap_or(0) as usize, last.unwrap_or(0) as usize);
    (key.len().wrapping_mul(37) ^ first.wrapping_mul(5) ^ last) & (PLACES - 1)
}

impl Default for KeySlots {
    fn default() -> KeySlots {
        KeySlots::new([])
    }
}

impl KeySlots {
    /// Slots for these keys (a repeated key keeps its first slot).
    pub fn new<'a>(keys: impl IntoIterator<Item = &'a str>) -> KeySlots {
        let mut slots: HashMap<String, usize, hashbrown::DefaultHashBuilder> = HashMap::default();
        for key in keys {
            let next = slots.len();
            slots.entry(key.to_string()).or_insert(next);
        }
        let mut places: Box<[Wanted; PLACES]> =
            Box::new(std::array::from_fn(|_| Wanted::default()));
        let mut crowded = Vec::new();
        let mut keys: Vec<(&String, &usize)> = slots.iter().collect();
        keys.sort_by_key(|&(_, &slot)| slot);
        for (key, &slot) in keys {
            let key = key.as_bytes();
            let place = &mut places[place_of(key)];
            if place.len == usize::MAX {
                *place = Wanted {
                    len: key.len(),
                    words: crate::bytes::words_of(key),
                    text: key.into(),
                    slot,
                    shared: false,
                };
            } else {
                place.shared = true;
                crowded.push((key.into(), slot));
            }
        }
        static SETS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        KeySlots {
            slots,
            places,
            crowded,
            id: SETS.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// Which set this is (see the field).
    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn slot(&self, key: &str) -> Option<usize> {
        self.slots.get(key).copied()
    }

    /// The slot of a key as the bytes it is written with (no escapes).
    #[inline]
    pub fn slot_of_raw(&self, key: &[u8]) -> Option<usize> {
        let wanted = &self.places[place_of(key)];
        if wanted.len == key.len() && wanted.words == crate::bytes::words_of(key) && key.len() <= 16
        {
            return Some(wanted.slot);
        }
        if wanted.shared || (wanted.len == key.len() && key.len() > 16) {
            return self.slot_of_long_or_crowded(key);
        }
        None
    }

    /// [`KeySlots::slot_of_raw`] of a key over 16 bytes, or of one whose place is shared.
    #[cold]
    #[inline(never)]
    fn slot_of_long_or_crowded(&self, key: &[u8]) -> Option<usize> {
        let wanted = &self.places[place_of(key)];
        if crate::bytes::same(&wanted.text, key) {
            return Some(wanted.slot);
        }
        self.crowded
            .iter()
            .find(|(k, _)| crate::bytes::same(k, key))
            .map(|&(_, slot)| slot)
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

/// The wanted keys of one JSON object, as raw JSON text borrowed from the object's text, by
/// slot. For text the reader has already validated (an array element, say): the other keys are
/// stepped over without a second validation.
#[derive(Debug)]
pub struct RawFields<'a> {
    values: Vec<Option<&'a str>>,
}

impl<'a> RawFields<'a> {
    /// `None` when the text is not one JSON object.
    pub fn parse(text: &'a str, slots: &KeySlots) -> Option<RawFields<'a>> {
        let mut de = serde_json::Deserializer::from_str(text);
        let fields = RawSeed { slots }.deserialize(&mut de).ok()?;
        de.end().ok()?;
        Some(fields)
    }

    /// The raw text of the key in this slot (a repeated key: the last one, as a whole read
    /// keeps it).
    pub fn get(&self, slot: usize) -> Option<&'a str> {
        self.values.get(slot).copied().flatten()
    }
}

struct RawSeed<'s> {
    slots: &'s KeySlots,
}

impl<'de> DeserializeSeed<'de> for RawSeed<'_> {
    type Value = RawFields<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RawSeed<'_> {
    type Value = RawFields<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut values = vec![None; self.slots.len()];
        while let Some(Key(key)) = map.next_key()? {
            match self.slots.slot(&key) {
                Some(slot) => values[slot] = Some(map.next_value::<&'de RawValue>()?.get()),
                None => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        Ok(RawFields { values })
    }
}

/// A JSON object, building only the listed keys and noting where the slotted keys' values
/// lie in `text` (the object's whole text).
struct Projection<'k> {
    keys: &'k HashSet<String>,
    slots: Option<&'k KeySlots>,
    text: &'k str,
}

impl<'de> DeserializeSeed<'de> for Projection<'_> {
    type Value = Decoded;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

/// Deeper than this, a slotted value is left to the whole decode (which applies serde_json's
/// nesting limit counted from the record, not from the value).
const SLOTTED_MAX_OPENINGS: usize = 64;

impl<'de> Visitor<'de> for Projection<'_> {
    type Value = Decoded;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut fields = Map::new();
        let mut spans = self.slots.map(|s| vec![(0, 0); s.len()]);
        while let Some(Key(key)) = map.next_key()? {
            let slot = self.slots.and_then(|s| s.slot(&key));
            if let (Some(slot), Some(spans)) = (slot, spans.as_mut()) {
                // Borrowed from the text. Stepping over it checked everything a whole read
                // checks except the nesting limit and what an escape decodes to (a lone
                // surrogate): a value with escapes is parsed once more, and a deep one is
                // left to the whole decode.
                let raw: &'de RawValue = map.next_value()?;
                let value = raw.get();
                let (mut openings, mut escapes) = (0, false);
                for b in value.bytes() {
                    match b {
                        b'[' | b'{' => openings += 1,
                        b'\\' => escapes = true,
                        _ => {}
                    }
                }
                if openings > SLOTTED_MAX_OPENINGS {
                    return Err(de::Error::custom("deep value: decode the record whole"));
                }
                if escapes {
                    let mut check = serde_json::Deserializer::from_str(value);
                    <Skip as de::Deserialize>::deserialize(&mut check)
                        .map_err(de::Error::custom)?;
                }
                let start = (value.as_ptr() as usize)
                    .checked_sub(self.text.as_ptr() as usize)
                    .filter(|s| s + value.len() <= self.text.len())
                    .ok_or_else(|| de::Error::custom("a value outside its record"))?;
                spans[slot] = (start as u32, (start + value.len()) as u32);
                if self.keys.contains(key.as_ref()) {
                    let built: Value = serde_json::from_str(value).map_err(de::Error::custom)?;
                    fields.insert(key.into_owned(), built);
                }
            } else if self.keys.contains(key.as_ref()) {
                // a repeated key replaces the earlier value in place, as a whole read does
                let value: Value = map.next_value()?;
                fields.insert(key.into_owned(), value);
            } else {
                map.next_value::<Skip>()?;
            }
        }
        Ok(Decoded {
            fields,
            spans: spans.map(Vec::into_boxed_slice),
        })
    }
}

/// A key, borrowed from the line when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

/// A value stepped over: parsed and validated like any other (through `deserialize_any`, so
/// strings are decoded and the nesting limit applies), then dropped without being built.
struct Skip;

impl<'de> de::Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Skip)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = Skip;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_none<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }
    // objects, and numbers (serde_json's arbitrary_precision hands a number over as a map)
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Skip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keep(keys: &[&str]) -> KeySelection {
        KeySelection::keys(keys.iter().copied())
    }

    /// A key read from a line finds its slot, whatever other wanted keys share its place,
    /// length or ends; a key that is not wanted finds none.
    #[test]
    fn raw_keys_find_their_slots_and_only_theirs() {
        let wanted = [
            "a",
            "ab",
            "abc",
            "abcd",
            "abcdefg",
            "record_id",
            "valid_from",
            "owner_role",
            "applies_to",
            "release_to",
            "supersedes",
            "created_at",
            "updated_at",
            "does_not_apply_to",
            "expected_concepts",
            "a_key_longer_than_16_x",
            "a_key_longer_than_16_y",
            "a_key_longer_thxn_16_x",
            "",
        ];
        let slots = KeySlots::new(wanted);
        for (slot, key) in wanted.iter().enumerate() {
            assert_eq!(slots.slot_of_raw(key.as_bytes()), Some(slot), "{key:?}");
        }
        for key in [
            "b",
            "ac",
            "abd",
            "abce",
            "abcdefh",
            "record_ix",
            "valid_frox",
            "xalid_from",
            "a_key_longer_than_16_z",
            "a_key_longer_than_17_x",
            "applies_to ",
            "x",
        ] {
            assert_eq!(slots.slot_of_raw(key.as_bytes()), None, "{key:?}");
        }
    }

    proptest::proptest! {
        /// Whatever the keys, the raw lookup agrees with the lookup by name.
        #[test]
        fn raw_lookup_agrees_with_the_map(
            wanted in proptest::collection::vec("[ab_]{0,20}", 0..40),
            probes in proptest::collection::vec("[ab_]{0,20}", 0..40),
        ) {
            let slots = KeySlots::new(wanted.iter().map(String::as_str));
            for key in wanted.iter().chain(&probes) {
                proptest::prop_assert_eq!(slots.slot_of_raw(key.as_bytes()), slots.slot(key), "{:?}", key);
            }
        }
    }

    #[test]
    fn builds_only_the_kept_keys_and_agrees_with_a_whole_read() {
        let line = r#"{"a": 1, "b": {"x": [1, 2.50, "s"]}, "c": "t\u00e9", "a": 2, "d": null}"#;
        let got = keep(&["a", "c", "z"]).decode_object(line).unwrap().fields;
        let mut whole: Map<String, Value> = serde_json::from_str(line).unwrap();
        keep(&["a", "c", "z"]).trim(&mut whole);
        assert_eq!(got, whole);
        assert_eq!(serde_json::to_string(&got).unwrap(), r#"{"a":2,"c":"té"}"#);
        let slots = KeySlots::new(["c", "a", "z"]);
        let raw = RawFields::parse(line, &slots).unwrap();
        assert_eq!(raw.get(0).unwrap(), r#""t\u00e9""#);
        assert_eq!(raw.get(1).unwrap(), "2");
        assert!(raw.get(2).is_none());
        assert!(RawFields::parse("[1]", &slots).is_none());
    }

    #[test]
    fn what_a_whole_read_refuses_the_fast_path_refuses_too() {
        let k = keep(&["a"]);
        let deep = format!(r#"{{"a": 1, "b": {}{}}}"#, "[".repeat(200), "]".repeat(200));
        for bad in [
            r#"{"a": 1, "b": "\ud800"}"#,
            r#"{"a": 1, "b": "tab	inside"}"#,
            r#"{"a": 1, "b": "\q"}"#,
            r#"{"a": 1, "b": 01}"#,
            r#"{"a": 1} x"#,
            r#"{"a": 1, "b": [1,]}"#,
            deep.as_str(),
        ] {
            assert!(serde_json::from_str::<Value>(bad).is_err(), "{bad}");
            assert!(k.decode_object(bad).is_none(), "{bad}");
        }
        assert!(k.decode_object("[1]").is_none());
        assert!(k.decode_object("17").is_none());
        assert!(KeySelection::all().decode_object(r#"{"a": 1}"#).is_none());
        let slotted = KeySelection::slots(KeySlots::new(["b", "a"]));
        for bad in [
            r#"{"a": "\ud800"}"#,
            r#"{"b": [1,]}"#,
            r#"{"a": 01}"#,
            r#"{"a": 1.}"#,
            r#"{"a": -}"#,
            r#"{"a": tru}"#,
            r#"{"a": "tab	inside"}"#,
            r#"{"b": {"x" 1}}"#,
            r#"{"b": [NaN]}"#,
            deep.as_str(),
        ] {
            assert!(serde_json::from_str::<Value>(bad).is_err(), "{bad}");
            assert!(slotted.decode_object(bad).is_none(), "{bad}");
        }
        let line = r#"{"a": "x", "b": [1, {"c": null}], "d": "\ud83d\ude00"}"#;
        let got = slotted.decode_object(line).unwrap();
        assert!(got.fields.is_empty());
        let spans = got.spans.unwrap();
        let text = |slot: usize| {
            let (s, e) = spans[slot];
            &line[s as usize..e as usize]
        };
        assert_eq!(text(0), r#"[1, {"c": null}]"#);
        assert_eq!(text(1), r#""x""#);
    }

    proptest::proptest! {
        /// Whatever line a fast path takes, a whole read takes too (and the other way round
        /// for flat objects): the fast paths never accept what the reader would refuse.
        #[test]
        fn fast_paths_accept_only_what_a_whole_read_accepts(
            body in r#"[\[\]{}",:0-9a-z\\. \-]{0,40}"#
        ) {
            let line = format!(r#"{{"a": {body}, "b": {body}}}"#);
            let whole = serde_json::from_str::<Value>(&line).is_ok();
            let slotted = KeySelection::slots(KeySlots::new(["a"]));
            for k in [slotted, keep(&["a"]), keep(&["z"])] {
                let fast = k.decode_object(&line).is_some();
                proptest::prop_assert_eq!(fast, whole, "{}", line);
            }
        }
    }
}
