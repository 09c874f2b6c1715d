//! A JSON line the fast path refused, read as the reference checker reads its stores:
//! `[json.loads(line) for line in text.strip().splitlines() if line.strip()]`.
//!
//! vercy splits a store at `\n` only and takes a line's value when serde_json does; a line
//! that fails is read here before it is called an error. Python's `splitlines` also breaks at
//! `\r`, VT, FF, FS, GS, RS, NEL, U+2028 and U+2029, so one of vercy's lines may hold several
//! records; `json.loads` takes `NaN`, `Infinity` and lone surrogates ([`super::pyjson`]); and
//! `strip()` drops Unicode whitespace before the first record and after the last one.
//!
//! A line that serde_json takes is never read here: a raw U+2028, U+2029 or NEL inside a
//! string stays text, and a raw `\r` between the members of an object is JSON whitespace (the
//! reference splits both lines there and refuses them: README, "Deliberate differences").

use super::pyjson::{self, Refused};
use crate::record::{is_blank, is_py_space};
use serde_json::Value;

/// Where a line sits in the store, for the whitespace that `strip()` drops around the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// No record before it: Unicode whitespace may open it.
    First,
    Later,
}

/// One record of a refused line.
#[derive(Debug)]
pub struct PyRecord<'a> {
    pub value: Value,
    /// Its text in the line (whitespace that `strip()` drops left out).
    pub text: &'a str,
    /// Where that text starts in the line, in bytes.
    pub at: usize,
}

/// What Python reads in a refused line.
#[derive(Debug)]
pub struct Records<'a> {
    pub pieces: Vec<PyRecord<'a>>,
    /// The last record is followed by whitespace that only `strip()` drops (U+00A0, FS, …):
    /// the line must then be the store's last one that is not blank.
    pub ends_the_text: bool,
}

/// Python's `str.splitlines()` breaks, besides `\n` (vercy's lines are already split at it).
pub fn is_py_break(c: char) -> bool {
    matches!(
        c,
        '\r' | '\u{b}'
            | '\u{c}'
            | '\u{1c}'
            | '\u{1d}'
            | '\u{1e}'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// The records Python reads in `line` (a line of the store without its `\n`), or why it
/// refuses the line: the first piece it cannot read, with its offset in the line.
pub fn read(line: &str, place: Place) -> Result<Records<'_>, Refused> {
    let mut pieces: Vec<(usize, &str)> = Vec::new();
    let mut start = 0;
    for (i, c) in line.char_indices() {
        if is_py_break(c) {
            pieces.push((start, &line[start..i]));
            start = i + c.len_utf8();
        }
    }
    pieces.push((start, &line[start..]));
    let mut out = Records {
        pieces: Vec::new(),
        ends_the_text: false,
    };
    for (at, text) in pieces {
        if is_blank(text) {
            continue;
        }
        // a record after one that only `strip()` could end: the text did not end there
        if out.ends_the_text {
            let end = out.pieces.last().map_or(0, |p| p.at + p.text.len());
            return Err(Refused {
                at: end,
                too_deep: false,
            });
        }
        let (at, text) = if place == Place::First && out.pieces.is_empty() {
            let body = text.trim_start_matches(is_py_space);
            (at + text.len() - body.len(), body)
        } else {
            (at, text)
        };
        match pyjson::parse(text) {
            Ok(value) => out.pieces.push(PyRecord { value, text, at }),
            Err(refused) => {
                let body = text.trim_end_matches(is_py_space);
                let value = match (body.len() < text.len()).then(|| pyjson::parse(body)) {
                    Some(Ok(value)) => value,
                    _ => {
                        return Err(Refused {
                            at: at + refused.at,
                            ..refused
                        })
                    }
                };
                out.pieces.push(PyRecord {
                    value,
                    text: body,
                    at,
                });
                out.ends_the_text = true;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(line: &str, place: Place) -> Option<(Vec<String>, bool)> {
        let r = read(line, place).ok()?;
        Some((
            r.pieces.iter().map(|p| p.value.to_string()).collect(),
            r.ends_the_text,
        ))
    }

    #[test]
    fn splits_where_python_splits() {
        for sep in [
            "\r", "\u{b}", "\u{c}", "\u{1c}", "\u{1d}", "\u{1e}", "\u{85}", "\u{2028}", "\u{2029}",
        ] {
            let line = format!("{{\"a\":1}}{sep}{{\"b\":NaN}}{sep}");
            assert_eq!(
                values(&line, Place::Later),
                Some((vec![r#"{"a":1}"#.into(), r#"{"b":NaN}"#.into()], false)),
                "{sep:?}"
            );
        }
        // FS-GS-RS break lines, US (U+001F) is only whitespace
        assert_eq!(values("{}\u{1f}{}", Place::Later), None);
    }

    #[test]
    fn strips_only_around_the_text() {
        assert_eq!(
            values("\u{3000}{}\u{a0}", Place::First),
            Some((vec!["{}".into()], true))
        );
        assert_eq!(values("\u{3000}{}", Place::Later), None);
        // whitespace only `strip()` drops, then another record: not the end of the text
        assert_eq!(values("{}\u{a0}\u{2028}{}", Place::Later), None);
        assert_eq!(
            values("{}\u{a0}\u{2028}\u{3000}", Place::Later),
            Some((vec!["{}".into()], true))
        );
    }

    #[test]
    fn a_piece_python_cannot_read_refuses_the_line() {
        let err = read("{\"a\":1}\r{\"b\":", Place::Later).unwrap_err();
        assert_eq!(err.at, 13);
        // a line break inside a string splits the string
        assert!(read("{\"a\":\"x\u{2028}y\"}x", Place::Later).is_err());
    }
}
