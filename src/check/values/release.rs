//! release_to is a list of parties (`value.release_to`).

use super::super::index::{Folding, Index, Reading};
use super::super::warnings::{Code, Spec, Warnings};
use super::ValueCheck;
use crate::store::RoleValue;

const RELEASE_TO: Code = Code::new(&Spec {
    code: "value.release_to",
    field: "release_to",
    caps_level: 2,
    meaning: "release_to that is not a list of parties",
    many: None,
    words: None,
});

/// The records whose release_to is not a list of parties, by `who` (once each: linear in the
/// store, 4 bytes a record).
#[derive(Default)]
pub(super) struct Release {
    bad: Vec<u32>,
}

impl ValueCheck for Release {
    const CODES: &'static [Code] = &[RELEASE_TO];
    /// The record's release_to is filled and not a list of parties.
    type Facts = bool;

    /// From the raw text when it is at hand.
    #[inline(always)]
    fn read(record: &Reading) -> bool {
        let (view, role) = (record.view, record.roles.release_to);
        match view.filled_text(role).map(|text| text.map(list_of_parties)) {
            Some(None) => false,
            Some(Some(Some(parties))) => !parties,
            _ => view.filled(role).is_some_and(|v| !is_list_of_parties(&v)),
        }
    }

    #[inline(always)]
    fn fold(&mut self, bad: &bool, record: &mut Folding) {
        if *bad {
            self.bad.push(record.who());
        }
    }

    fn warnings(&mut self, _index: &mut Index, out: &mut Warnings) {
        if !self.bad.is_empty() {
            let message = "release_to is not a list of party names";
            let bad = std::mem::take(&mut self.bad);
            out.push_named(RELEASE_TO, message, "", bad);
        }
    }
}

/// A list of party names: every item a string that is not blank.
fn is_list_of_parties(value: &RoleValue) -> bool {
    value.as_array().is_some_and(|items| {
        items
            .iter()
            .all(|i| i.as_str().is_some_and(|s| !crate::record::is_blank(s)))
    })
}

/// [`is_list_of_parties`] read from a value's raw JSON text, which the reader already took as
/// valid JSON: no value is built. `None` when a string holds an escape (what it decodes to is
/// the parser's to say).
fn list_of_parties(text: &str) -> Option<bool> {
    let Some(inside) = text.strip_prefix('[') else {
        return Some(false);
    };
    let mut rest = inside.trim_start();
    if rest.starts_with(']') {
        return Some(true);
    }
    loop {
        let Some(item) = rest.strip_prefix('"') else {
            return Some(false);
        };
        let end = memchr::memchr2(b'"', b'\\', item.as_bytes())?;
        if item.as_bytes()[end] == b'\\' {
            return None;
        }
        if crate::record::is_blank(&item[..end]) {
            return Some(false);
        }
        rest = item[end + 1..].trim_start();
        match rest.as_bytes().first() {
            Some(b',') => rest = rest[1..].trim_start(),
            _ => return Some(true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    proptest::proptest! {
        /// Read from the raw text, a value is a list of parties exactly when its parsed value
        /// is (or the text is left to the parser).
        #[test]
        fn parties_read_from_the_text_as_from_the_value(
            items in proptest::collection::vec(
                r#"("[a-z ]{0,3}"|" \\t"|"a\\"b"|"\\u0020"|1|null|\[\]|\["x"\]|\{\})"#,
                0..4,
            ),
            space in "[ \n]{0,2}",
        ) {
            let text = format!("[{space}{}{space}]", items.join(&format!(",{space}")));
            let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
            let parsed = is_list_of_parties(&RoleValue::Json(Cow::Owned(value)));
            if let Some(read) = list_of_parties(&text) {
                proptest::prop_assert_eq!(read, parsed, "{}", text);
            } else {
                proptest::prop_assert!(text.contains('\\'), "{}", text);
            }
        }
    }

    #[test]
    fn list_of_parties_reads_strings_only() {
        assert_eq!(list_of_parties(r#"["legal", "hr"]"#), Some(true));
        assert_eq!(list_of_parties("[]"), Some(true));
        assert_eq!(list_of_parties(r#"["legal", " "]"#), Some(false));
        assert_eq!(list_of_parties(r#"["legal", 1]"#), Some(false));
        assert_eq!(list_of_parties(r#""legal""#), Some(false));
        assert_eq!(list_of_parties(r#"{"a": "b"}"#), Some(false));
        assert_eq!(list_of_parties(r#"["le\"gal"]"#), None);
    }
}
