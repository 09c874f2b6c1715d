//! Turning a parse failure inside a piece of text into a diagnostic that names the file, the
//! true line and the column in characters, with the offending line shown.

use crate::error::{Position, Snippet, VercyError};

/// The line `n` (1-based) of `text` and the byte offset where it starts.
fn nth_line(text: &str, n: usize) -> (&str, usize) {
    let mut start = 0;
    for _ in 1..n {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line = text[start..end]
        .strip_suffix('\r')
        .unwrap_or(&text[start..end]);
    (line, start)
}

/// Keys as a diagnostic names them: each in backticks, joined by commas.
pub fn key_list<K: AsRef<str>>(keys: &[K]) -> String {
    keys.iter()
        .map(|k| format!("`{}`", k.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A serde_json error in `text`, which starts at line `first_line` of the file.
pub fn json_error(path: &str, text: &str, first_line: u64, err: &serde_json::Error) -> VercyError {
    let (line_text, _) = nth_line(text, err.line().max(1));
    // serde_json counts columns in bytes, and points one past an unexpected end.
    let byte_col = err.column().saturating_sub(1);
    let col_chars = line_text
        .char_indices()
        .take_while(|(i, _)| *i < byte_col)
        .count() as u64
        + 1;
    let line = first_line + err.line().max(1) as u64 - 1;
    let message = json_message(err);
    let help = match err.classify() {
        serde_json::error::Category::Eof => {
            "the text ends in the middle of a value: the file may be truncated; restore the end of the record".to_string()
        }
        _ if message.contains("recursion limit") => {
            "a record nests lists or objects deeper than serde_json reads (128 levels); flatten it".to_string()
        }
        _ => "fix the JSON at this place; a store is one JSON object per line, or one JSON array of objects".to_string(),
    };
    let (snippet, span) = Snippet::new(path, line_text, line, byte_col);
    VercyError::Json {
        path: path.to_string(),
        pos: Position {
            line,
            column: col_chars,
        },
        message,
        help,
        snippet,
        span,
    }
}

fn json_message(err: &serde_json::Error) -> String {
    let s = err.to_string();
    match s.find(" at line ") {
        Some(i) => format!("not JSON: {}", &s[..i]),
        None => format!("not JSON: {s}"),
    }
}

/// A record that is not an object: name what it is, where.
pub fn not_object(
    path: &str,
    line_text: &str,
    line: u64,
    byte_in_line: usize,
    found: &str,
) -> VercyError {
    let column = line_text[..byte_in_line.min(line_text.len())]
        .chars()
        .count() as u64
        + 1;
    let (snippet, span) = Snippet::new(path, line_text, line, byte_in_line);
    VercyError::NotObject {
        path: path.to_string(),
        pos: Position { line, column },
        found: found.to_string(),
        snippet,
        span,
    }
}

/// Bytes that are not UTF-8: the position of the first bad byte.
pub fn utf8_error(
    path: &str,
    bytes: &[u8],
    first_line: u64,
    err: &std::str::Utf8Error,
) -> VercyError {
    let good = &bytes[..err.valid_up_to()];
    let text = std::str::from_utf8(good).unwrap_or_default();
    let newlines = text.matches('\n').count() as u64;
    let line_start = text.rfind('\n').map_or(0, |i| i + 1);
    VercyError::Utf8 {
        path: path.to_string(),
        pos: Position {
            line: first_line + newlines,
            column: text[line_start..].chars().count() as u64 + 1,
        },
    }
}
