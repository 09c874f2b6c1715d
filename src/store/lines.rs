//! JSON lines, and the shapes that start like them: an engrama NDJSON dump (first line
//! `{"engrama_export": 1, …}`) and an envelope object (`{"results": […]}`, on one line or
//! pretty-printed over many).

use super::batch::{self, Work};
use super::input::Source;
use super::keep::{Decoded, Keep};
use super::locate::{json_error, not_object, utf8_error};
use super::{scan, Aside, Entry, Look, Shape, View, ENVELOPE_KEYS};
use crate::error::{Result, VercyError};
use crate::record::{is_blank, kind_name, Origin, Record, Span};
use serde_json::{Map, Value};

/// One non-blank line, decoded.
struct FirstLine {
    text: String,
    origin: Origin,
}

/// Slots whose spans a line's scan notes on the stack (more take an allocation).
const INLINE_SPANS: usize = 32;

/// A JSON line past the first two: a record built, or already looked at through its view.
/// (Boxed: a block's lines are moved between stages, and most are looked at, not built.)
enum Line<T> {
    Built(Box<Record>),
    Looked(T),
}

/// Read the line shapes: `work` runs on each entry (in parallel past the first lines), `visit`
/// gets what it returns in file order.
pub fn read<T: Send>(
    src: &mut Source,
    keep: &Keep,
    look: Option<&Look<'_, T>>,
    work: &Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<Shape> {
    let mut visit_entry = |entry: Entry| visit(work(entry)?);
    let mut buf = Vec::with_capacity(4096);
    let Some(first) = next_nonblank(src, &mut buf)? else {
        return Ok(Shape::Empty);
    };
    // A first line that is a plain record is decoded as the other lines are, only the kept
    // keys built: a tree of all its keys, built just to look for two of them, took twenty
    // times the line's bytes (bench/NOTES.md).
    let first_value: Option<Value> = match is_plain_record(&first.text) {
        true => None,
        false => match serde_json::from_str(&first.text) {
            Ok(v) => Some(v),
            // Not one JSON value per line: maybe one object pretty-printed over many lines.
            Err(line_err) => return read_document(src, first, &line_err, &mut visit_entry),
        },
    };
    let Some(first_value) = first_value else {
        let decoded = decode(&src.name, keep, &first.text, first.origin.line)?;
        return read_lines(src, keep, look, work, visit, first, decoded);
    };
    if first_value
        .as_object()
        .is_some_and(|o| o.contains_key("engrama_export"))
    {
        return read_engrama(src, first, first_value, keep, work, visit);
    }
    let second = next_nonblank(src, &mut buf)?;
    if second.is_none() {
        if let Some(key) = envelope_key(&src.name, &first, &first_value)? {
            return unwrap_envelope(&src.name, &first, first_value, &key, &mut visit_entry);
        }
    }
    let fields = into_object(&src.name, &first.text, first.origin.line, first_value)?;
    read_lines_after(
        src,
        keep,
        look,
        work,
        visit,
        first,
        keep.trimmed(fields),
        second,
    )
}

/// A first line that is an ordinary record: a JSON object with neither the engrama header's
/// key nor an envelope key, checked without building the rest of it.
fn is_plain_record(text: &str) -> bool {
    Keep::keys(ENVELOPE_KEYS.iter().copied().chain(["engrama_export"]))
        .decode_object(text)
        .is_some_and(|d| d.fields.is_empty())
}

/// The JSON lines after a first record decoded as `decoded`.
fn read_lines<T: Send>(
    src: &mut Source,
    keep: &Keep,
    look: Option<&Look<'_, T>>,
    work: &Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
    first: FirstLine,
    decoded: Decoded,
) -> Result<Shape> {
    let second = next_nonblank(src, &mut Vec::with_capacity(4096))?;
    read_lines_after(src, keep, look, work, visit, first, decoded, second)
}

/// [`read_lines`], the second line already read.
#[allow(clippy::too_many_arguments)]
fn read_lines_after<T: Send>(
    src: &mut Source,
    keep: &Keep,
    look: Option<&Look<'_, T>>,
    work: &Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
    first: FirstLine,
    decoded: Decoded,
    second: Option<FirstLine>,
) -> Result<Shape> {
    let mut visit_entry = |entry: Entry| visit(work(entry)?);
    let name = src.name.clone();
    let mut emit = |mut record: Record, index: usize| -> Result<()> {
        record.origin.index = index;
        visit_entry(Entry::Record(record))
    };
    emit(new_record(keep, decoded, first.text, first.origin), 0)?;
    let Some(second) = second else {
        return Ok(Shape::JsonLines);
    };
    let decoded = decode(&name, keep, &second.text, second.origin.line)?;
    emit(new_record(keep, decoded, second.text, second.origin), 1)?;
    let slots = keep.key_slots().filter(|_| look.is_some());
    let decode = |bytes: &[u8], origin: Origin| -> Result<Option<Line<T>>> {
        let Some(text) = line_text(&name, bytes, origin.line)? else {
            return Ok(None);
        };
        if let (Some(slots), Some(look)) = (slots, look) {
            let mut room = [(0, 0); INLINE_SPANS];
            let mut more = Vec::new();
            let spans: &mut [Span] = match room.get_mut(..slots.len()) {
                Some(spans) => spans,
                None => {
                    more.resize(slots.len(), (0, 0));
                    &mut more
                }
            };
            if let Some(plain) = scan::object_spans(text, slots, spans) {
                let view = View {
                    text,
                    spans,
                    plain,
                    line: origin.line,
                    offset: origin.offset,
                };
                return Ok(Some(Line::Looked(look(view)?)));
            }
        }
        let decoded = decode(&name, keep, text, origin.line)?;
        Ok(Some(Line::Built(Box::new(new_record(
            keep, decoded, text, origin,
        )))))
    };
    let mut index = 2;
    let mut number = |line: &mut Line<T>| {
        if let Line::Built(record) = line {
            record.origin.index = index;
        }
        index += 1;
    };
    let work = |line: Line<T>| match line {
        Line::Built(record) => work(Entry::Record(*record)),
        Line::Looked(done) => Ok(done),
    };
    batch::for_each_line(src, &decode, &mut number, &work, visit)?;
    Ok(Shape::JsonLines)
}

/// The next line that is not blank, decoded as UTF-8 with a trailing `\r` removed.
fn next_nonblank(src: &mut Source, buf: &mut Vec<u8>) -> Result<Option<FirstLine>> {
    loop {
        let line_no = src.line;
        let offset = src.offset;
        if !src.next_line(buf)? {
            return Ok(None);
        }
        let Some(text) = line_text(&src.name, buf, line_no)? else {
            continue;
        };
        return Ok(Some(FirstLine {
            text: text.to_string(),
            origin: Origin {
                line: line_no,
                offset,
                index: 0,
            },
        }));
    }
}

/// A line's text: UTF-8 with a trailing `\r` removed; `None` when it is blank.
fn line_text<'a>(name: &str, bytes: &'a [u8], line_no: u64) -> Result<Option<&'a str>> {
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let text = crate::bytes::utf8(bytes).map_err(|e| utf8_error(name, bytes, line_no, &e))?;
    Ok((!is_blank(text)).then_some(text))
}

/// A line's fields: only the kept keys (and the slotted keys' places) when the fast path takes
/// the line, else the whole value (which gives the canonical error, and the kind of a
/// non-object), trimmed to the kept keys.
fn decode(name: &str, keep: &Keep, text: &str, line_no: u64) -> Result<Decoded> {
    if let Some(decoded) = keep.decode_object(text) {
        return Ok(decoded);
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| json_error(name, text, line_no, &e))?;
    Ok(keep.trimmed(into_object(name, text, line_no, value)?))
}

/// A record as read: its raw text only when the records may be written back or looked at.
fn new_record(keep: &Keep, decoded: Decoded, text: impl Into<Box<str>>, origin: Origin) -> Record {
    let mut record = if keep.wants_raw() {
        Record::new(decoded.fields, text, origin)
    } else {
        Record::new(decoded.fields, "", origin)
    };
    record.spans = decoded.spans;
    record
}

fn into_object(name: &str, text: &str, line: u64, value: Value) -> Result<Map<String, Value>> {
    match value {
        Value::Object(map) => Ok(map),
        other => {
            let at = text.len() - text.trim_start().len();
            Err(not_object(name, text, line, at, kind_name(&other)))
        }
    }
}

/// `{"results": [ {…}, … ]}`: an object whose only list of objects is under an envelope key,
/// and which carries no record fields of its own.
///
/// Two envelope keys that both hold records (`{"results": [A], "facts": [B]}`) are refused
/// rather than read: the reader cannot know that the two lists hold the same kind of record
/// (mem0's results and a graph's facts are not read through one map, nor identified alike),
/// and reading only one would drop the other's records. An empty list holds nothing to drop.
fn envelope_key(name: &str, at: &FirstLine, value: &Value) -> Result<Option<String>> {
    let Some(obj) = value.as_object() else {
        return Ok(None);
    };
    if obj.contains_key("record_id") || obj.contains_key("valid_from") {
        return Ok(None);
    }
    let lists: Vec<&str> = ENVELOPE_KEYS
        .iter()
        .copied()
        .filter(|k| obj.get(*k).is_some_and(Value::is_array))
        .collect();
    let holding: Vec<&str> = lists
        .iter()
        .copied()
        .filter(|k| {
            obj.get(*k)
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty())
        })
        .collect();
    match (holding.as_slice(), lists.first()) {
        ([one], _) => Ok(Some(one.to_string())),
        ([], first) => Ok(first.map(|k| k.to_string())),
        (several, _) => Err(VercyError::Shape {
            path: name.to_string(),
            pos: crate::error::Position {
                line: at.origin.line,
                column: 1,
            },
            message: format!(
                "an envelope object with records under {} keys: {}",
                several.len(),
                several
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            help: format!(
                "vercy reads the records of one envelope key and will not guess that the others hold the same kind of record, nor drop them: split the file, one list per store (jq '.{}' FILE)",
                several[0]
            ),
        }),
    }
}

fn unwrap_envelope(
    name: &str,
    at: &FirstLine,
    value: Value,
    key: &str,
    visit: &mut dyn FnMut(Entry) -> Result<()>,
) -> Result<Shape> {
    let Value::Object(mut obj) = value else {
        unreachable!("envelope_key checked it")
    };
    let Some(Value::Array(items)) = obj.remove(key) else {
        unreachable!("envelope_key checked it")
    };
    for (index, item) in items.into_iter().enumerate() {
        // an element has no line of its own: its text is what a JSON-lines store would hold
        let raw = super::jsonl::python_text(&item);
        match item {
            Value::Object(fields) => visit(Entry::Record(Record::new(
                fields,
                raw,
                Origin { index, ..at.origin },
            )))?,
            other => {
                return Err(VercyError::Shape {
                    path: name.to_string(),
                    pos: crate::error::Position {
                        line: at.origin.line,
                        column: 1,
                    },
                    message: format!(
                        "element {index} of `{key}` is {}, not a record object",
                        kind_name(&other)
                    ),
                    help: "every element of the envelope's list must be a JSON object".into(),
                })
            }
        }
    }
    Ok(Shape::Envelope(key.to_string()))
}

/// A document that is not one value per line: read it whole and accept it when it is an
/// envelope object. Anything else is reported with the first line's own error, which is what
/// a JSON-lines reader would say.
fn read_document(
    src: &mut Source,
    first: FirstLine,
    line_err: &serde_json::Error,
    visit: &mut dyn FnMut(Entry) -> Result<()>,
) -> Result<Shape> {
    if line_err.classify() != serde_json::error::Category::Eof {
        return Err(json_error(
            &src.name,
            &first.text,
            first.origin.line,
            line_err,
        ));
    }
    let mut rest = Vec::new();
    std::io::Read::read_to_end(&mut src.reader, &mut rest).map_err(|e| src.io_error(&e))?;
    let rest = match String::from_utf8(rest) {
        Ok(r) => r,
        Err(e) => {
            let bytes = e.as_bytes();
            let err = std::str::from_utf8(bytes).unwrap_err();
            return Err(utf8_error(&src.name, bytes, src.line, &err));
        }
    };
    let whole = format!("{}\n{}", first.text, rest);
    if line_err.classify() == serde_json::error::Category::Eof
        && first.text.trim_start().starts_with('{')
    {
        let parsed = serde_json::from_str::<Value>(&whole);
        // too deep to read as one document: say so, rather than the first line's "EOF"
        if let Err(e) = &parsed {
            if e.to_string().contains("recursion limit") {
                return Err(json_error(&src.name, &whole, first.origin.line, e));
            }
        }
        if let Ok(value) = parsed {
            if let Some(key) = envelope_key(&src.name, &first, &value)? {
                return unwrap_envelope(&src.name, &first, value, &key, visit);
            }
            return Err(VercyError::Shape {
                path: src.name.clone(),
                pos: crate::error::Position { line: first.origin.line, column: 1 },
                message: "one JSON object spread over several lines is not a store".into(),
                help: format!(
                    "write one record per line (JSON lines), a JSON array of records, or an object with the records under one of: {}",
                    ENVELOPE_KEYS.join(", ")
                ),
            });
        }
    }
    Err(json_error(
        &src.name,
        &first.text,
        first.origin.line,
        line_err,
    ))
}

/// An engrama NDJSON dump: the envelope line, node lines (the records), relation and vector
/// lines (carried along as asides). The envelope line is kept whole.
fn read_engrama<T: Send>(
    src: &mut Source,
    first: FirstLine,
    header: Value,
    keep: &Keep,
    work: &Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<Shape> {
    let name = src.name.clone();
    let header_fields = into_object(&name, &first.text, first.origin.line, header)?;
    // the header is worked on and visited before any other line is read
    visit(work(Entry::Aside(
        Aside::EngramaHeader,
        Record::new(header_fields, first.text, first.origin),
    ))?)?;
    // the reader sorts the lines by their `type`
    let keep = keep.with("type");
    let decode = |bytes: &[u8], origin: Origin| -> Result<Option<Entry>> {
        let Some(text) = line_text(&name, bytes, origin.line)? else {
            return Ok(None);
        };
        let decoded = decode(&name, &keep, text, origin.line)?;
        let aside = match decoded
            .fields
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
        {
            "node" => None,
            "relation" => Some(Aside::Relation),
            "vector" => Some(Aside::Vector),
            other => {
                let at = text.find("\"type\"").unwrap_or(0);
                return Err(VercyError::Shape {
                    path: name.clone(),
                    pos: crate::error::Position {
                        line: origin.line,
                        column: text[..at].chars().count() as u64 + 1,
                    },
                    message: format!("an engrama dump line of unknown type {other:?}"),
                    help: "engrama NDJSON v1 lines have \"type\": \"node\", \"relation\" or \"vector\"".into(),
                });
            }
        };
        let record = new_record(&keep, decoded, text, origin);
        Ok(Some(match aside {
            None => Entry::Record(record),
            Some(aside) => Entry::Aside(aside, record),
        }))
    };
    let mut index = 0;
    let mut number = |entry: &mut Entry| {
        if let Entry::Record(record) = entry {
            record.origin.index = index;
            index += 1;
        }
    };
    batch::for_each_line(src, &decode, &mut number, work, visit)?;
    Ok(Shape::Engrama)
}
