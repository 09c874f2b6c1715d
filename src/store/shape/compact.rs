//! The compact pipe line form, both ways: one line per record, the profile's fields in a fixed
//! order separated by `|`, a null valid_to written `~`, lists joined with `,`, trailing empty
//! fields dropped. This module is the one codec: `compact` writes with [`header`] and [`line()`],
//! every command reads through [`read`].
//!
//! # Escapes
//!
//! A backslash escapes the next character. The writer produces exactly these:
//!
//! - a backslash → `\\`; a vertical bar → `\|`; a line feed → `\n`; a carriage return → `\r`;
//!   the other characters Python's `str.splitlines` breaks on (U+000B, U+000C, U+001C–U+001E,
//!   U+0085, U+2028, U+2029) → `\uXXXX`, so every reader sees one line per record;
//! - a `,` inside a list item (release_to, supersedes, any list) → `\,`;
//! - a value that is exactly `~` → `\~` (a bare `~` in valid_to means null: open);
//! - the empty string → `\e` (a bare empty field means absent, so `""` needs its own mark);
//! - a release_to that is not null, one string or a list of strings (`true`, `1`, `[1]`,
//!   `[["finance"]]`, a `null` item) → `\j` and its JSON text, escaped as a list item: the
//!   form has no type for it, and as text it would name a party (`1`, the empty party) that
//!   the JSON names nobody by;
//! - a line that would start with `#` or be blank → its first character escaped (`\#`, `\ `),
//!   because the reader skips comment and blank lines; a record with none of the ordered
//!   fields is written `|`.
//!
//! The reader undoes them: `\n` and `\r` are line breaks, `\u` and four hex digits is that
//! character, a field (or list item) that is exactly `\e` is the empty string, a release_to
//! that starts with `\j` is the JSON value after it, and `\` followed by any other character
//! is that character.
//!
//! # What reads back, and what does not
//!
//! Text reads back exactly, for every ordered field, whatever it holds (unicode, `|`, `\`,
//! `,`, line breaks, `~`, the empty string, trailing backslashes). The line form has no types,
//! so: absent, null and an empty list all read back as absent (except a null valid_to, `~`);
//! numbers and booleans read back as their JSON text in a string; release_to reads back as a
//! list (a bare string is one party, its commas escaped, so it stays one party), or, when it
//! holds anything but strings, as the very JSON value it was — so a store and its compact
//! form withhold and release the same records for every reader;
//! supersedes reads back as a string when it names one record and as a list when it names
//! several; a list in any other field reads back as its items joined with `,`.

use super::{Entry, Shape};
use crate::error::{Position, Result, Snippet, VercyError};
use crate::record::{Origin, Record};
use crate::store::batch::{self, Work};
use crate::store::decode::locate::utf8_error;
use crate::store::source::Stream;
use serde_json::{Map, Value};

/// The first characters of a compact file's header line.
pub const HEADER_PREFIX: &str = "# record_id|";

/// How a field is written and read back ([`cell_kind`] of its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellKind {
    /// Text; a list is joined with `,` and reads back as one string.
    Text,
    /// valid_to: a bare `~` is null (the interval is open).
    Open,
    /// release_to: always a list of parties (a bare string is a list of one).
    List,
    /// supersedes: one record id, or a list of several.
    OneOrMany,
}

pub fn cell_kind(field: &str) -> CellKind {
    match field {
        "valid_to" => CellKind::Open,
        "release_to" => CellKind::List,
        "supersedes" => CellKind::OneOrMany,
        _ => CellKind::Text,
    }
}

/// How the empty string is written (a bare empty field means absent).
const EMPTY: &str = "\\e";

/// The mark before a release_to written as its JSON text (escaped as a list item): a value
/// the line form has no type for, which must read back as itself ([`is_parties`]).
const TYPED: &str = "\\j";

/// A release_to the line form carries as it is: absent-like (null, `[]`), one party (a
/// string) or a list of parties (strings). Anything else — `true`, `1`, `{}`, `[1]`,
/// `[["finance"]]`, a `null` item — names no party in JSON and would name one as text
/// (`1`, or `\e` for the empty party), so it is written as its JSON ([`TYPED`]).
fn is_parties(value: &Value) -> bool {
    match value {
        Value::Null | Value::String(_) => true,
        Value::Array(items) => items.iter().all(Value::is_string),
        _ => false,
    }
}

/// The header line for a field order (without its newline).
pub fn header(order: &[String]) -> String {
    format!("# {}", order.join("|"))
}

/// One record's line (without its newline), given the value of each field in order.
pub fn line(values: &[Option<&Value>], order: &[String]) -> String {
    let mut out = String::new();
    write_line(
        &mut out,
        values.iter().zip(order).map(|(v, field)| {
            let cell = match v {
                None => Cell::Absent,
                Some(v) => Cell::Value(v),
            };
            (cell, field.as_str())
        }),
    );
    out
}

/// One field's value, as [`write_line`] takes it.
#[derive(Debug, Clone, Copy)]
pub enum Cell<'a> {
    /// The record has no such field.
    Absent,
    /// A string value, already decoded (the common case: written without building a
    /// `Value`).
    Text(&'a str),
    Value(&'a Value),
}

/// Append one record's line (without its newline) to `out`: each cell with its field's name,
/// in order. The same text as [`line()`], built in place.
pub fn write_line<'a>(out: &mut String, cells: impl IntoIterator<Item = (Cell<'a>, &'a str)>) {
    let mut line = LineWriter::new(out);
    for (cell, field) in cells {
        line.cell(cell, cell_kind(field));
    }
    line.finish();
}

/// Builds one record's line in place, a field at a time ([`write_line`] with the cells handed
/// over one by one, so a caller can decode a value just before its cell and drop it after).
/// Nothing is allocated unless a value is neither a string nor null.
pub struct LineWriter<'o> {
    out: &'o mut String,
    start: usize,
    /// The end of the last field that is not empty: trailing empty fields are dropped.
    end: usize,
    first: bool,
}

impl<'o> LineWriter<'o> {
    pub fn new(out: &'o mut String) -> Self {
        let start = out.len();
        LineWriter {
            out,
            start,
            end: start,
            first: true,
        }
    }

    /// The next field's value, with the field's [`cell_kind`] (which says how it is written).
    pub fn cell(&mut self, value: Cell, kind: CellKind) {
        if !self.first {
            self.out.push('|');
        }
        self.first = false;
        let before = self.out.len();
        write_cell(self.out, value, kind);
        if self.out.len() > before {
            self.end = self.out.len();
        }
    }

    /// End the line: trailing empty fields dropped, a line a reader would skip escaped.
    pub fn finish(self) {
        let (out, start) = (self.out, self.start);
        out.truncate(self.end);
        if self.end == start {
            // a record with none of the ordered fields still gets its line (two empty fields)
            out.push('|');
            return;
        }
        // the reader skips `#` lines (comments) and blank lines: escape the first character
        let text = &out[start..];
        if text.starts_with('#') || text.trim().is_empty() {
            out.insert(start, '\\');
        }
    }
}

fn write_cell(out: &mut String, value: Cell, kind: CellKind) {
    let in_list = matches!(kind, CellKind::List | CellKind::OneOrMany);
    match value {
        Cell::Absent => {}
        Cell::Text(text) => escape_into(out, text, in_list),
        Cell::Value(v) if kind == CellKind::List && !is_parties(v) => {
            // what the line form cannot type goes as its JSON, marked: it reads back as the
            // same value, so the form withholds it from every reader, as the JSON does
            out.push_str(TYPED);
            escape_into(out, &v.to_string(), true);
        }
        Cell::Value(Value::Null) if kind == CellKind::Open => out.push('~'),
        Cell::Value(Value::Null) => {}
        Cell::Value(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                escape_scalar(out, item, true);
            }
        }
        Cell::Value(other) => escape_scalar(out, other, in_list),
    }
}

/// A value's text as the line form writes it (strings as they are, null as the empty string,
/// anything else as its JSON text, numbers as written), escaped.
fn escape_scalar(out: &mut String, value: &Value, in_list: bool) {
    match value {
        Value::String(s) => escape_into(out, s, in_list),
        Value::Null => escape_into(out, "", in_list),
        other => escape_into(out, &other.to_string(), in_list),
    }
}

/// Escape one piece of text (a field, or one item of a list); `in_list` also escapes `,`.
/// [`unescape`] undoes it exactly.
pub fn escape(text: &str, in_list: bool) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text, in_list);
    out
}

/// [`escape`], appending to `out`. Text with nothing to escape (nearly all of it) is copied
/// in one piece.
pub fn escape_into(out: &mut String, text: &str, in_list: bool) {
    if text.is_empty() {
        out.push_str(EMPTY);
        return;
    }
    if text == "~" {
        out.push_str("\\~");
        return;
    }
    let bytes = text.as_bytes();
    let mut done = 0;
    let mut i = 0;
    while i < bytes.len() {
        // eight bytes at a time while none of them may start an escape
        while let Some(word) = bytes.get(i..i + 8) {
            let word = u64::from_le_bytes([
                word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7],
            ]);
            if may_escape(word) {
                break;
            }
            i += 8;
        }
        let Some(&b) = bytes.get(i) else {
            break;
        };
        if !MAY_ESCAPE[b as usize] {
            i += 1;
            continue;
        }
        // every byte that starts an escape is ASCII or the first byte of a character, so
        // `done` and `i` always fall on character boundaries
        let (with, len): (&str, usize) = match (b, bytes.get(i + 1), bytes.get(i + 2)) {
            (b'\\', ..) => ("\\\\", 1),
            (b'|', ..) => ("\\|", 1),
            (b'\n', ..) => ("\\n", 1),
            (b'\r', ..) => ("\\r", 1),
            (b',', ..) if in_list => ("\\,", 1),
            (0x0b, ..) => ("\\u000b", 1),
            (0x0c, ..) => ("\\u000c", 1),
            (0x1c, ..) => ("\\u001c", 1),
            (0x1d, ..) => ("\\u001d", 1),
            (0x1e, ..) => ("\\u001e", 1),
            // U+0085 is C2 85, U+2028 and U+2029 are E2 80 A8 and E2 80 A9
            (0xc2, Some(0x85), _) => ("\\u0085", 2),
            (0xe2, Some(0x80), Some(0xa8)) => ("\\u2028", 3),
            (0xe2, Some(0x80), Some(0xa9)) => ("\\u2029", 3),
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(&text[done..i]);
        out.push_str(with);
        i += len;
        done = i;
    }
    out.push_str(&text[done..]);
}

/// Whether any of eight bytes may start an escape (see [`MAY_ESCAPE`]); also true, harmlessly,
/// for a control character that needs none and for any non-ASCII byte.
fn may_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // a byte of `x` is zero → its high bit set in the result (exact when no byte is ≥ 0x80,
    // which the last term catches anyway)
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    let backslash = zero(word ^ (ONES * b'\\' as u64));
    let bar = zero(word ^ (ONES * b'|' as u64));
    let comma = zero(word ^ (ONES * b',' as u64));
    (below_space | backslash | bar | comma | (word & HIGH)) != 0
}

/// Bytes that may start an escape: `\`, `|`, `\n`, `\r`, `,`, and the first byte of each of
/// the other characters Python's `str.splitlines` breaks on (U+000B, U+000C, U+001C–U+001E,
/// U+0085, U+2028, U+2029: the reference implementation's language), which are written
/// `\uXXXX` so a line of the form stays one line for every reader.
const MAY_ESCAPE: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    let bytes = b"\\|\n\r,\x0b\x0c\x1c\x1d\x1e\xc2\xe2";
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// Undo [`escape`] for one piece (a field, or one item of a list). Exactly `\e` is the empty
/// string; `\n` and `\r` are line breaks; `\u` and four hex digits is that character; `\`
/// before any other character is that character; a lone backslash at the very end is kept as
/// a backslash.
pub fn unescape(text: &str) -> String {
    if text == EMPTY {
        return String::new();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let Some(c) = after.chars().next() else {
            out.push('\\');
            return out;
        };
        let mut used = c.len_utf8();
        match c {
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            'u' => match after
                .get(1..5)
                .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .and_then(char::from_u32)
            {
                Some(decoded) => {
                    out.push(decoded);
                    used = 5;
                }
                None => out.push('u'),
            },
            other => out.push(other),
        }
        rest = &after[used..];
    }
    out.push_str(rest);
    out
}

/// Split on a separator that is not escaped, keeping the escapes in the pieces.
pub fn split_unescaped(text: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == sep {
            parts.push(&text[start..i]);
            start = i + c.len_utf8();
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Read one line of the form back into a record's fields.
pub fn parse_line(text: &str, order: &[String]) -> Result<Map<String, Value>, String> {
    let cells = split_unescaped(text, '|');
    if cells.len() > order.len() {
        return Err(format!(
            "{} fields, but the header names {} (an unescaped `|` in a value?)",
            cells.len(),
            order.len()
        ));
    }
    let mut fields = Map::new();
    for (field, cell) in order.iter().zip(cells) {
        if cell.is_empty() {
            continue;
        }
        // every field splits into items on unescaped commas, so `\e` marks an empty item
        // wherever it stands; a text field joins its items back
        if cell_kind(field) == CellKind::List {
            if let Some(json) = cell.strip_prefix(TYPED) {
                let value = serde_json::from_str(&unescape(json)).map_err(|e| {
                    format!("`{field}` marked `{TYPED}` does not hold JSON text: {e}")
                })?;
                fields.insert(field.clone(), value);
                continue;
            }
        }
        let mut items: Vec<String> = split_unescaped(cell, ',')
            .into_iter()
            .map(unescape)
            .collect();
        let value = match cell_kind(field) {
            CellKind::Open if cell == "~" => Value::Null,
            CellKind::List => Value::Array(items.into_iter().map(Value::String).collect()),
            CellKind::OneOrMany if items.len() == 1 => {
                Value::String(items.pop().unwrap_or_default())
            }
            CellKind::OneOrMany => Value::Array(items.into_iter().map(Value::String).collect()),
            CellKind::Text | CellKind::Open => Value::String(items.join(",")),
        };
        fields.insert(field.clone(), value);
    }
    Ok(fields)
}

/// Read a compact file: the header line names the field order; `#` lines after it are
/// comments; blank lines are skipped. The lines after the header are decoded on every core
/// (`batch.rs`), `work` run on each record there, `visit` given what it returns in order.
pub fn read<T: Send>(
    src: &mut Stream,
    work: &Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<Shape> {
    let name = src.name.clone();
    let mut buf = Vec::new();
    let line_no = src.line;
    if !src.next_line(&mut buf)? {
        return Ok(Shape::Empty);
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    let text = crate::bytes::utf8(&buf).map_err(|e| utf8_error(&name, &buf, line_no, &e))?;
    let body = text.trim_start_matches('\u{feff}');
    if !body.starts_with(HEADER_PREFIX) {
        return Err(error(&name, text, line_no, 0, "a `#` line that is not a compact header".into(),
            format!("a compact file starts with `{HEADER_PREFIX}…`; a JSON store starts with `{{` or `[`")));
    }
    let order: Vec<String> = body[2..].split('|').map(str::to_string).collect();
    let decode = |bytes: &[u8], origin: Origin, _| -> Result<Option<Record>> {
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let text =
            crate::bytes::utf8(bytes).map_err(|e| utf8_error(&name, bytes, origin.line, &e))?;
        if text.trim().is_empty() || text.starts_with('#') {
            return Ok(None);
        }
        let fields = parse_line(text, &order).map_err(|why| {
            error(
                &name,
                text,
                origin.line,
                0,
                why,
                "escape `|` inside a value as `\\|`".into(),
            )
        })?;
        Ok(Some(Record::new(fields, text, origin)))
    };
    let mut index = 0;
    let mut number = |record: &mut Record| {
        record.origin.index = index;
        index += 1;
    };
    let work = |record: Record| work(Entry::Record(record));
    batch::for_each_line(src, &decode, &mut number, &work, visit)?;
    Ok(if index == 0 {
        Shape::Empty
    } else {
        Shape::Compact
    })
}

fn error(
    name: &str,
    text: &str,
    line: u64,
    at: usize,
    message: String,
    help: String,
) -> VercyError {
    let (snippet, span) = Snippet::new(name, text, line, at);
    VercyError::Compact {
        path: name.to_string(),
        pos: Position { line, column: 1 },
        message,
        help,
        snippet,
        span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The characters written `\uXXXX`.
    const OTHER_BREAKS: [char; 8] = [
        '\u{0b}', '\u{0c}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{85}', '\u{2028}', '\u{2029}',
    ];

    /// [`escape`] as the rules say it, a character at a time: the byte scanner must agree.
    fn escape_by_chars(text: &str, in_list: bool) -> String {
        if text.is_empty() {
            return EMPTY.into();
        }
        if text == "~" {
            return "\\~".into();
        }
        let mut out = String::new();
        for c in text.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '|' => out.push_str("\\|"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                ',' if in_list => out.push_str("\\,"),
                c if OTHER_BREAKS.contains(&c) => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out
    }

    #[test]
    fn the_byte_scanner_escapes_every_character_as_the_rules_say() {
        // every character up to U+3000 and a few beyond, alone and between plain text of
        // every length around the scanner's eight-byte steps
        let chars = (0u32..0x3001)
            .chain([0xfeff, 0x1f600, 0x10ffff])
            .filter_map(char::from_u32);
        for c in chars {
            for pad in [0, 1, 7, 8, 9, 15] {
                let text = format!("{}{c}{}", "a".repeat(pad), "b".repeat(pad));
                for in_list in [false, true] {
                    assert_eq!(
                        escape(&text, in_list),
                        escape_by_chars(&text, in_list),
                        "{text:?}"
                    );
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn escape_agrees_with_the_rules_and_reads_back(
            text in "[a-z,|~#\\\\ \n\r\u{0b}\u{0c}\u{1c}-\u{1e}\u{85}\u{2028}\u{2029}é€😀]{0,40}",
            in_list: bool,
        ) {
            let escaped = escape(&text, in_list);
            proptest::prop_assert_eq!(&escaped, &escape_by_chars(&text, in_list));
            proptest::prop_assert_eq!(unescape(&escaped), text);
        }
    }

    fn order() -> Vec<String> {
        crate::profile::Profile::embedded()
            .serialisation
            .field_order
            .clone()
    }

    #[test]
    fn the_seed_line() {
        let r = json!({"record_id": "D-101", "concept": "x", "valid_from": "2025-01-01", "valid_to": "2026-03-31",
            "source": "FIN-POL-04", "concept_owner": "finance", "owner_role": "Head of Finance"});
        let o = order();
        let vals: Vec<Option<&Value>> = o.iter().map(|f| r.get(f)).collect();
        assert_eq!(
            line(&vals, &o),
            "D-101|2025-01-01|2026-03-31|FIN-POL-04|finance|Head of Finance"
        );
    }

    #[test]
    fn escapes_read_back() {
        let o = order();
        let r = json!({"record_id": "a|b\\", "valid_to": null, "source": "~", "release_to": ["x,y", "z"], "value": "l1\nl2\\"});
        let vals: Vec<Option<&Value>> = o.iter().map(|f| r.get(f)).collect();
        let text = line(&vals, &o);
        assert!(!text.contains('\n'));
        let back = parse_line(&text, &o).unwrap();
        assert_eq!(back.get("record_id"), r.get("record_id"));
        assert_eq!(back.get("valid_to"), Some(&Value::Null));
        assert_eq!(back.get("source"), r.get("source"));
        assert_eq!(back.get("release_to"), r.get("release_to"));
        assert_eq!(back.get("value"), r.get("value"));
    }

    #[test]
    fn lines_that_a_reader_would_skip_are_escaped() {
        let o = order();
        let line_of = |r: Value| {
            let vals: Vec<Option<&Value>> = o.iter().map(|f| r.get(f)).collect();
            line(&vals, &o)
        };
        assert_eq!(line_of(json!({})), "|");
        assert_eq!(line_of(json!({"record_id": null})), "|");
        assert_eq!(line_of(json!({"record_id": "#7"})), "\\#7");
        assert_eq!(line_of(json!({"record_id": " "})), "\\ ");
        assert_eq!(line_of(json!({"record_id": ""})), "\\e");
        for text in ["|", "\\#7", "\\ ", "\\e"] {
            let back = parse_line(text, &o).unwrap();
            let vals: Vec<Option<&Value>> = o.iter().map(|f| back.get(f)).collect();
            assert_eq!(line(&vals, &o), text);
        }
    }

    #[test]
    fn supersedes_reads_back_as_one_id_or_several() {
        let o = order();
        let back = |r: Value| {
            let vals: Vec<Option<&Value>> = o.iter().map(|f| r.get(f)).collect();
            parse_line(&line(&vals, &o), &o).unwrap()
        };
        assert_eq!(
            back(json!({"supersedes": "D-1"}))["supersedes"],
            json!("D-1")
        );
        assert_eq!(
            back(json!({"supersedes": "D,1"}))["supersedes"],
            json!("D,1")
        );
        assert_eq!(
            back(json!({"supersedes": ["D-1", "D,2"]}))["supersedes"],
            json!(["D-1", "D,2"])
        );
        assert_eq!(
            back(json!({"release_to": "a, b"}))["release_to"],
            json!(["a, b"])
        );
        assert_eq!(
            back(json!({"release_to": ["", "x"]}))["release_to"],
            json!(["", "x"])
        );
        assert!(!back(json!({"release_to": []})).contains_key("release_to"));
    }
}
