//! A JSON array of records, read element by element: the bytes of one element are gathered
//! by a small scanner (strings, escapes, nesting) and parsed alone, so the array is never a
//! tree in memory and every element knows its line.

use super::input::Source;
use super::locate::{json_error, not_object, utf8_error};
use super::{Entry, Shape};
use crate::error::{Position, Result, VercyError};
use crate::record::{kind_name, Origin, Record};
use serde_json::Value;
use std::io::BufRead;

/// Deeper than this is refused before parsing (the depth Python's json reads, about).
const MAX_DEPTH: usize = super::pyjson::MAX_DEPTH;

pub fn read(src: &mut Source, visit: &mut dyn FnMut(Entry) -> Result<()>) -> Result<Shape> {
    let name = src.name.clone();
    // Consume the opening `[`.
    src.reader.consume(1);
    src.offset += 1;
    let mut line_start = src.line_start;
    let mut scan = ElementScanner::default();
    let mut element: Vec<u8> = Vec::new();
    let mut in_element = false;
    let mut element_start = (0u64, 0u64); // (line, offset)
    let mut element_column = 1u64;
    let mut index = 0usize;
    let mut closed = false;
    let mut expect_value = true; // after `[` or `,`
    let mut seen_any = false;
    loop {
        let buf = super::input::fill(&mut src.reader, &src.name)?;
        if buf.is_empty() {
            break;
        }
        let len = buf.len();
        let mut consumed = len;
        let mut finished: Option<(Vec<u8>, u64, u64)> = None;
        let mut stray: Option<(u8, u64, u64)> = None;
        // the end of a whitespace character after the array, when it spans several bytes
        let mut skip = 0;
        for (i, &b) in buf.iter().enumerate() {
            let at_offset = src.offset + i as u64;
            let outside = scan.depth == 0 && !scan.in_string;
            if in_element && outside && matches!(b, b',' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                // a scalar element ends before its delimiter
                in_element = false;
                finished = Some((
                    std::mem::take(&mut element),
                    element_start.0,
                    element_start.1,
                ));
                consumed = i;
                break;
            }
            if b == b'\n' {
                src.line += 1;
                line_start = at_offset + 1;
            }
            if closed {
                if i < skip {
                    continue;
                }
                // the reference strips the text's Unicode whitespace before it parses it
                let space = super::input::leading_py_space(&buf[i..]);
                if space > 0 {
                    skip = i + space;
                    continue;
                }
                if !matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
                    stray = Some((b, src.line, at_offset - line_start + 1));
                    consumed = i;
                    break;
                }
                continue;
            }
            if outside && !in_element {
                match b {
                    b' ' | b'\t' | b'\r' | b'\n' => continue,
                    b',' if !expect_value => {
                        expect_value = true;
                        continue;
                    }
                    b']' if !expect_value || !seen_any => {
                        closed = true;
                        continue;
                    }
                    _ if expect_value => {
                        element.clear();
                        element_start = (src.line, at_offset);
                        element_column = at_offset - line_start + 1;
                        expect_value = false;
                        seen_any = true;
                        in_element = true;
                    }
                    _ => {
                        stray = Some((b, src.line, at_offset - line_start + 1));
                        consumed = i;
                        break;
                    }
                }
            }
            element.push(b);
            let before = scan.depth;
            scan.step(b);
            if scan.depth > MAX_DEPTH {
                return Err(too_deep(&name, src.line));
            }
            if before > 0 && scan.depth == 0 && !scan.in_string {
                in_element = false;
                finished = Some((
                    std::mem::take(&mut element),
                    element_start.0,
                    element_start.1,
                ));
                consumed = i + 1;
                break;
            }
        }
        src.reader.consume(consumed);
        src.offset += consumed as u64;
        if let Some((b, line, column)) = stray {
            return Err(VercyError::Shape {
                path: name,
                pos: Position { line, column },
                message: format!(
                    "unexpected {:?} {}",
                    b as char,
                    if closed {
                        "after the end of the array"
                    } else {
                        "between records (a `,` is missing?)"
                    }
                ),
                help: "a JSON array store is `[ {…}, {…} ]` and nothing after it".into(),
            });
        }
        if let Some((bytes, line, offset)) = finished {
            let text = String::from_utf8(bytes).map_err(|e| {
                let err = std::str::from_utf8(e.as_bytes()).unwrap_err();
                utf8_error(&name, e.as_bytes(), line, &err)
            })?;
            // what serde_json refuses, Python's json may read (NaN, a lone surrogate, deeper
            // nesting): the reference parses the array with it
            let parsed = serde_json::from_str(&text);
            let parsed = match parsed {
                Err(e) => super::pyjson::parse(&text).map_err(|_| e),
                ok => ok,
            };
            let value: Value = parsed.map_err(|e| {
                let mut err = json_error(&name, &text, line, &e);
                // the element's first line starts at its column, not at the line's start
                if let VercyError::Json { pos, .. } = &mut err {
                    if e.line() <= 1 {
                        pos.column += element_column - 1;
                    }
                }
                err
            })?;
            let fields = match value {
                Value::Object(map) => map,
                other => {
                    let first_line = text.lines().next().unwrap_or("");
                    let mut err = not_object(&name, first_line, line, 0, kind_name(&other));
                    if let VercyError::NotObject { pos, .. } = &mut err {
                        pos.column = element_column;
                    }
                    return Err(err);
                }
            };
            let origin = Origin {
                line,
                offset,
                index,
            };
            index += 1;
            visit(Entry::Record(Record::new(fields, text, origin)))?;
        }
    }
    if in_element || !closed {
        return Err(VercyError::Shape {
            path: name,
            pos: Position {
                line: src.line,
                column: src.offset.saturating_sub(line_start) + 1,
            },
            message: "the JSON array is not closed: the file ends inside it".into(),
            help:
                "the file may be truncated; restore its end (the last record and the closing `]`)"
                    .into(),
        });
    }
    Ok(if index == 0 {
        Shape::Empty
    } else {
        Shape::JsonArray
    })
}

fn too_deep(name: &str, line: u64) -> VercyError {
    VercyError::Shape {
        path: name.to_string(),
        pos: Position { line, column: 1 },
        message: format!("a record nests lists or objects more than {MAX_DEPTH} levels deep"),
        help: "flatten the record (the reference checker stops with a RecursionError at about 990 levels)".into(),
    }
}

/// Tracks strings and nesting across the bytes of one element.
#[derive(Default)]
struct ElementScanner {
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl ElementScanner {
    fn step(&mut self, b: u8) {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
            }
            return;
        }
        match b {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
    }
}
