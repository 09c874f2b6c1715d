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
//! - a line that would start with `#` or be blank → its first character escaped (`\#`, `\ `),
//!   because the reader skips comment and blank lines; a record with none of the ordered
//!   fields is written `|`.
//!
//! The reader undoes them: `\n` and `\r` are line breaks, `\u` and four hex digits is that
//! character, a field (or list item) that is exactly `\e` is the empty string, and `\` followed
//! by any other character is that character.
//!
//! # What reads back, and what does not
//!
//! Text reads back exactly, for every ordered field, whatever it holds (unicode, `|`, `\`,
//! `,`, line breaks, `~`, the empty string, trailing backslashes). The line form has no types,
//! so: absent, null and an empty list all read back as absent (except a null valid_to, `~`);
//! numbers and booleans read back as their JSON text in a string; release_to always reads back
//! as a list (a bare string is one party, its commas escaped, so it stays one party);
//! supersedes reads back as a string when it names one record and as a list when it names
//! several; a list in any other field reads back as its items joined with `,`.

use super::input::Source;
use super::locate::utf8_error;
use super::{Entry, Shape};
use crate::error::{Position, Result, Snippet, VercyError};
use crate::record::{Origin, Record};
use serde_json::{Map, Value};

/// The first characters of a compact file's header line.
pub const HEADER_PREFIX: &str = "# record_id|";

/// How a field is written and read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Text; a list is joined with `,` and reads back as one string.
    Text,
    /// valid_to: a bare `~` is null (the interval is open).
    Open,
    /// release_to: always a list of parties (a bare string is a list of one).
    List,
    /// supersedes: one record id, or a list of several.
    OneOrMany,
}

fn kind(field: &str) -> Kind {
    match field {
        "valid_to" => Kind::Open,
        "release_to" => Kind::List,
        "supersedes" => Kind::OneOrMany,
        _ => Kind::Text,
    }
}

/// How the empty string is written (a bare empty field means absent).
const EMPTY: &str = "\\e";

/// The header line for a field order (without its newline).
pub fn header(order: &[String]) -> String {
    format!("# {}", order.join("|"))
}

/// One record's line (without its newline), given the value of each field in order.
pub fn line(values: &[Option<&Value>], order: &[String]) -> String {
    let mut cells: Vec<String> = values
        .iter()
        .zip(order)
        .map(|(v, field)| cell(*v, kind(field)))
        .collect();
    while cells.last().is_some_and(String::is_empty) {
        cells.pop();
    }
    let text = cells.join("|");
    if text.is_empty() {
        // a record with none of the ordered fields still gets its line (two empty fields)
        return "|".into();
    }
    // the reader skips `#` lines (comments) and blank lines: escape the first character
    if text.starts_with('#') || text.trim().is_empty() {
        return format!("\\{text}");
    }
    text
}

fn cell(value: Option<&Value>, kind: Kind) -> String {
    match value {
        None => String::new(),
        Some(Value::Null) if kind == Kind::Open => "~".into(),
        Some(Value::Null) => String::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| escape(&scalar_text(item), true))
            .collect::<Vec<_>>()
            .join(","),
        Some(other) => escape(
            &scalar_text(other),
            matches!(kind, Kind::List | Kind::OneOrMany),
        ),
    }
}

/// The text of a value as the line form writes it: strings as they are, anything else as its
/// JSON text (numbers as written).
fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Escape one piece of text (a field, or one item of a list); `in_list` also escapes `,`.
/// [`unescape`] undoes it exactly.
pub fn escape(text: &str, in_list: bool) -> String {
    if text.is_empty() {
        return EMPTY.into();
    }
    if text == "~" {
        return "\\~".into();
    }
    let mut out = String::with_capacity(text.len());
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

/// Characters other than `\n` and `\r` that some readers take for a line break (Python's
/// `str.splitlines`, the reference implementation's language): written `\uXXXX` so a line of
/// the form stays one line for them too.
const OTHER_BREAKS: [char; 8] = [
    '\u{0b}', '\u{0c}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{85}', '\u{2028}', '\u{2029}',
];

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
        let mut items: Vec<String> = split_unescaped(cell, ',')
            .into_iter()
            .map(unescape)
            .collect();
        let value = match kind(field) {
            Kind::Open if cell == "~" => Value::Null,
            Kind::List => Value::Array(items.into_iter().map(Value::String).collect()),
            Kind::OneOrMany if items.len() == 1 => Value::String(items.pop().unwrap_or_default()),
            Kind::OneOrMany => Value::Array(items.into_iter().map(Value::String).collect()),
            Kind::Text | Kind::Open => Value::String(items.join(",")),
        };
        fields.insert(field.clone(), value);
    }
    Ok(fields)
}

/// Read a compact file: the header line names the field order; `#` lines after it are
/// comments; blank lines are skipped.
pub fn read(src: &mut Source, visit: &mut dyn FnMut(Entry) -> Result<()>) -> Result<Shape> {
    let name = src.name.clone();
    let mut buf = Vec::new();
    let mut order: Option<Vec<String>> = None;
    let mut index = 0;
    loop {
        let line_no = src.line;
        let offset = src.offset;
        if !src.next_line(&mut buf)? {
            break;
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        let text = std::str::from_utf8(&buf).map_err(|e| utf8_error(&name, &buf, line_no, &e))?;
        let Some(fields_order) = &order else {
            let body = text.trim_start_matches('\u{feff}');
            if !body.starts_with(HEADER_PREFIX) {
                return Err(error(&name, text, line_no, 0, "a `#` line that is not a compact header".into(),
                    format!("a compact file starts with `{HEADER_PREFIX}…`; a JSON store starts with `{{` or `[`")));
            }
            order = Some(body[2..].split('|').map(str::to_string).collect());
            continue;
        };
        if text.trim().is_empty() || text.starts_with('#') {
            continue;
        }
        let fields = parse_line(text, fields_order).map_err(|why| {
            error(
                &name,
                text,
                line_no,
                0,
                why,
                "escape `|` inside a value as `\\|`".into(),
            )
        })?;
        let origin = Origin {
            line: line_no,
            offset,
            index,
        };
        index += 1;
        visit(Entry::Record(Record::new(fields, text, origin)))?;
    }
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
