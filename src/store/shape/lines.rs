//! JSON lines, and the shapes that start like them: an engrama NDJSON dump (first line
//! `{"engrama_export": 1, …}`) and an envelope object (`{"results": […]}`) on one line; one
//! spread over many lines, or too long for one, is `envelope.rs`'s.

use super::engrama::NonRecordLine;
use super::envelope;
use super::envelope::ENVELOPE_KEYS;
use super::{Entry, OnScanned, ScannedLine, Shape};
use crate::error::{Result, VercyError};
use crate::record::{is_blank, kind_name, Origin, Record, Span};
use crate::store::batch::{self, Work};
use crate::store::decode::keep::{Decoded, KeySelection, KeySlots};
use crate::store::decode::locate::{json_error, not_object, utf8_error};
use crate::store::decode::pyline::{self, Place};
use crate::store::decode::{pyjson, scan};
use crate::store::source::{Input, Stream};
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
enum DecodedLine<T> {
    Built(Box<Record>),
    Looked(T),
    /// A line only Python's reading takes (`pyline`): its records, and the error to give if
    /// a record follows when it may only end the store.
    Python(Box<PyRecords>),
    /// A record followed a line that may only end the store: that line's error.
    Refused(Box<VercyError>),
}

/// What the workers hand on: one line's result, or the several records of a line that only
/// Python's reading splits.
enum Done<T> {
    One(T),
    Many(Vec<T>),
}

/// The records Python reads in a line serde_json refused.
struct PyRecords {
    records: Vec<Record>,
    /// Set when whitespace that only `str.strip()` drops follows the last record: the error
    /// the line is if any record follows it.
    unless_last: Option<VercyError>,
}

/// Read the line shapes: `work` runs on each entry (in parallel past the first lines), `visit`
/// gets what it returns in file order.
pub fn read<T: Send>(
    input: &Input,
    src: &mut Stream,
    keep: &KeySelection,
    look: Option<&OnScanned<'_, T>>,
    work: &Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<Shape> {
    let mut visit_entry = |entry: Entry| visit(work(entry)?);
    let mut buf = Vec::with_capacity(4096);
    let Some(first) = next_nonblank(src, &mut buf)? else {
        return Ok(Shape::Empty);
    };
    let name = src.name.clone();
    // The first lines: each may hold several records when only Python's reading takes it.
    let mut head: Vec<Record> = Vec::new();
    let mut unless_last: Option<VercyError> = None;
    // A first line that is a plain record is decoded as the other lines are, only the kept
    // keys built: a tree of all its keys, built just to look for two of them, took many
    // times the line's bytes (bench/NOTES.md).
    let plain = is_plain_record(&first.text);
    let parsed = match plain {
        true => Ok(Value::Null),
        false => serde_json::from_str(&first.text),
    };
    let first_value: Value = match parsed {
        Ok(v) => v,
        // Not one JSON value per line: maybe one object pretty-printed over many lines.
        Err(line_err) if line_err.classify() == serde_json::error::Category::Eof => {
            if !first.text.trim_start().starts_with('{') {
                return Err(json_error(&name, &first.text, first.origin.line, &line_err));
            }
            // the line ending read with the first line: the document is read again from it
            let ending = match src.offset - first.origin.offset - first.text.len() as u64 {
                2 => &b"\r\n"[..],
                1 => &b"\n"[..],
                _ => &b""[..],
            };
            let first = (first.text.as_str(), ending, first.origin);
            return envelope::read_document(input, src, first, keep, look, work, visit);
        }
        Err(line_err) => {
            let py = python_records(
                &name,
                keep,
                &first.text,
                first.origin,
                Place::First,
                &line_err,
            )?;
            head = py.records;
            unless_last = py.unless_last;
            Value::Null
        }
    };
    // a plain record's value stands as null here: neither a dump's header nor an envelope
    if head.is_empty()
        && first_value
            .as_object()
            .is_some_and(super::engrama::is_envelope)
    {
        return read_engrama(src, first, first_value, keep, look, work, visit);
    }
    let mut second = None;
    if head.len() < 2 {
        second = next_nonblank(src, &mut buf)?;
    }
    // the store ended within its first two lines: no workers to start
    let at_end = head.len() < 2 && second.is_none();
    if head.is_empty() && second.is_none() {
        let members = envelope::members_of(&first_value);
        let key = match members {
            Some(members) => envelope::envelope_key(&src.name, first.origin.line, &members)?,
            None => None,
        };
        if let Some(key) = key {
            return unwrap_envelope(&src.name, &first, first_value, &key, &mut visit_entry);
        }
    }
    if head.is_empty() {
        let decoded = match plain {
            true => decode(&name, keep, &first.text, first.origin.line)?,
            false => keep.trimmed(into_object(
                &name,
                &first.text,
                first.origin.line,
                first_value,
            )?),
        };
        head.push(new_record(keep, decoded, first.text, first.origin));
    }
    if let Some(second) = second {
        if let Some(e) = unless_last.take() {
            return Err(e);
        }
        match decode(&name, keep, &second.text, second.origin.line) {
            Ok(decoded) => head.push(new_record(keep, decoded, second.text, second.origin)),
            Err(refused) => {
                let py = python_line(&name, keep, &second.text, second.origin, refused)?;
                head.extend(py.records);
                unless_last = py.unless_last;
            }
        }
    }
    let mut index = 0;
    for mut record in head {
        record.origin.index = index;
        index += 1;
        visit_entry(Entry::Record(record))?;
    }
    if at_end {
        return Ok(Shape::JsonLines);
    }
    let slots = keep.key_slots().filter(|_| look.is_some());
    let decode = |bytes: &[u8], origin: Origin, _| -> Result<Option<DecodedLine<T>>> {
        let Some(text) = line_text(&name, bytes, origin.line)? else {
            return Ok(None);
        };
        if let (Some(slots), Some(look)) = (slots, look) {
            if let Some(looked) = look_in_place(text, origin, slots, look) {
                return Ok(Some(DecodedLine::Looked(looked?)));
            }
        }
        let decoded = match decode(&name, keep, text, origin.line) {
            Ok(decoded) => decoded,
            Err(refused) => {
                let py = python_line(&name, keep, text, origin, refused)?;
                return Ok(Some(DecodedLine::Python(Box::new(py))));
            }
        };
        Ok(Some(DecodedLine::Built(Box::new(new_record(
            keep, decoded, text, origin,
        )))))
    };
    let mut number = |line: &mut DecodedLine<T>| {
        if let Some(e) = unless_last.take() {
            *line = DecodedLine::Refused(Box::new(e));
            return;
        }
        match line {
            DecodedLine::Built(record) => {
                record.origin.index = index;
                index += 1;
            }
            DecodedLine::Looked(_) => index += 1,
            DecodedLine::Python(py) => {
                for record in &mut py.records {
                    record.origin.index = index;
                    index += 1;
                }
                unless_last = py.unless_last.take();
            }
            DecodedLine::Refused(_) => {}
        }
    };
    let work = |line: DecodedLine<T>| match line {
        DecodedLine::Built(record) => work(Entry::Record(*record)).map(Done::One),
        DecodedLine::Looked(done) => Ok(Done::One(done)),
        DecodedLine::Python(py) => py
            .records
            .into_iter()
            .map(|record| work(Entry::Record(record)))
            .collect::<Result<Vec<T>>>()
            .map(Done::Many),
        DecodedLine::Refused(e) => Err(*e),
    };
    let mut visit_done = |done: Done<T>| match done {
        Done::One(t) => visit(t),
        Done::Many(all) => all.into_iter().try_for_each(&mut *visit),
    };
    batch::for_each_line(src, &decode, &mut number, &work, &mut visit_done)?;
    Ok(Shape::JsonLines)
}

/// A JSON object's text seen in place through `look`, built into nothing; `None` when the
/// scanner leaves it to serde_json.
pub(super) fn look_in_place<T>(
    text: &str,
    origin: Origin,
    slots: &KeySlots,
    look: &OnScanned<'_, T>,
) -> Option<Result<T>> {
    look_in_place_if(text, origin, slots, look, |_| true)
}

/// [`look_in_place`] when `wanted` says so of the spans the scanner noted (`None` if not).
fn look_in_place_if<T>(
    text: &str,
    origin: Origin,
    slots: &KeySlots,
    look: &OnScanned<'_, T>,
    wanted: impl FnOnce(&[Span]) -> bool,
) -> Option<Result<T>> {
    let mut room = [(0, 0); INLINE_SPANS];
    let mut more = Vec::new();
    let spans: &mut [Span] = match room.get_mut(..slots.len()) {
        Some(spans) => spans,
        None => {
            more.resize(slots.len(), (0, 0));
            &mut more
        }
    };
    let plain = scan::object_spans(text, slots, spans)?;
    if !wanted(spans) {
        return None;
    }
    Some(look(ScannedLine {
        text,
        spans,
        plain,
        origin,
    }))
}

/// A first line that is an ordinary record: a JSON object with neither the engrama header's
/// key nor an envelope key, checked without building the rest of it.
fn is_plain_record(text: &str) -> bool {
    KeySelection::keys(ENVELOPE_KEYS.iter().copied().chain(["engrama_export"]))
        .decode_object(text)
        .is_some_and(|d| d.fields.is_empty())
}

/// A line that serde_json refused (`refused`), as Python reads it: its
/// records, or the refusal when Python refuses it too.
fn python_line(
    name: &str,
    keep: &KeySelection,
    text: &str,
    origin: Origin,
    refused: VercyError,
) -> Result<PyRecords> {
    let Err(line_err) = serde_json::from_str::<Value>(text) else {
        // serde_json read it whole: what was refused is the record's kind, as Python does too
        return Err(refused);
    };
    python_records(name, keep, text, origin, Place::Later, &line_err)
}

/// The records of a line serde_json refused with `line_err`, read as the reference reads it
/// (`pyline`); when Python refuses it too, serde_json's error (or, past [`pyjson::MAX_DEPTH`],
/// the nesting's).
fn python_records(
    name: &str,
    keep: &KeySelection,
    text: &str,
    origin: Origin,
    place: Place,
    line_err: &serde_json::Error,
) -> Result<PyRecords> {
    let error = || json_error(name, text, origin.line, line_err);
    let read = match pyline::read(text, place) {
        Ok(read) => read,
        Err(refused) if refused.too_deep => {
            return Err(too_deep(name, text, origin.line, refused.at))
        }
        // serde_json stopped at its depth before reaching what Python refuses
        Err(refused) if line_err.to_string().contains("recursion limit") => {
            return Err(not_json_at(name, text, origin.line, refused.at))
        }
        Err(_) => return Err(error()),
    };
    let mut records = Vec::with_capacity(read.pieces.len());
    for piece in read.pieces {
        let at = origin.offset + piece.at as u64;
        let fields = match piece.value {
            Value::Object(fields) => fields,
            other => {
                return Err(not_object(
                    name,
                    text,
                    origin.line,
                    piece.at,
                    kind_name(&other),
                ))
            }
        };
        records.push(new_record(
            keep,
            keep.trimmed(fields),
            piece.text,
            Origin {
                offset: at,
                ..origin
            },
        ));
    }
    Ok(PyRecords {
        records,
        unless_last: read.ends_the_text.then(error),
    })
}

/// The 1-based column, in characters, of byte `at` of `text`.
fn column_at(text: &str, at: usize) -> u64 {
    text.char_indices().take_while(|(i, _)| *i < at).count() as u64 + 1
}

/// Python's refusal of a line, where serde_json's error does not say what is wrong.
fn not_json_at(name: &str, text: &str, line: u64, at: usize) -> VercyError {
    VercyError::Shape {
        path: name.to_string(),
        pos: crate::error::Position {
            line,
            column: column_at(text, at),
        },
        message: "not JSON at this place".into(),
        help: "fix the JSON at this place; a store is one JSON object per line, or one JSON array of objects".into(),
    }
}

/// A line nested deeper than vercy reads.
fn too_deep(name: &str, text: &str, line: u64, at: usize) -> VercyError {
    VercyError::Shape {
        path: name.to_string(),
        pos: crate::error::Position {
            line,
            column: column_at(text, at),
        },
        message: format!(
            "a record nests lists or objects more than {} levels deep",
            pyjson::MAX_DEPTH
        ),
        help: "flatten the record (the reference checker stops with a RecursionError at about 990 levels)".into(),
    }
}

/// The next line that is not blank, decoded as UTF-8 with a trailing `\r` removed.
fn next_nonblank(src: &mut Stream, buf: &mut Vec<u8>) -> Result<Option<FirstLine>> {
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
fn decode(name: &str, keep: &KeySelection, text: &str, line_no: u64) -> Result<Decoded> {
    if let Some(decoded) = keep.decode_object(text) {
        return Ok(decoded);
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| json_error(name, text, line_no, &e))?;
    Ok(keep.trimmed(into_object(name, text, line_no, value)?))
}

/// [`decode`], or for a line serde_json refuses, Python's reading of it (NaN, a lone
/// surrogate, nesting deeper than 128): the lines of an engrama dump, which are not split.
fn decode_python(name: &str, keep: &KeySelection, text: &str, line_no: u64) -> Result<Decoded> {
    let refused = match decode(name, keep, text, line_no) {
        Ok(decoded) => return Ok(decoded),
        Err(refused) => refused,
    };
    match pyjson::parse(text) {
        Ok(Value::Object(fields)) => Ok(keep.trimmed(fields)),
        Err(r) if r.too_deep => Err(too_deep(name, text, line_no, r.at)),
        _ => Err(refused),
    }
}

/// A record as read: its raw text only when the records may be written back or looked at.
fn new_record(
    keep: &KeySelection,
    decoded: Decoded,
    text: impl Into<Box<str>>,
    origin: Origin,
) -> Record {
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

/// A one-line envelope object read whole: its list's records, in order.
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
        let raw = crate::python::json::python_text(&item);
        match item {
            Value::Object(fields) => visit(Entry::Record(Record::new(
                fields,
                raw,
                Origin { index, ..at.origin },
            )))?,
            other => {
                let place = (at.origin.line, 1);
                return Err(envelope::not_a_record(name, key, index, place, &other));
            }
        }
    }
    Ok(Shape::Envelope(key.to_string()))
}

/// A line of an engrama dump past its header: an entry, or a node line already looked at
/// through its view.
enum DumpLine<T> {
    Entry(Entry),
    Looked(T),
}

/// An engrama NDJSON dump: the envelope line, node lines (the records), relation and vector
/// lines (carried along as non-record lines). The envelope line is kept whole. A node line
/// the scanner takes is seen in place through `look` when the reader notes where `type` lies.
fn read_engrama<T: Send>(
    src: &mut Stream,
    first: FirstLine,
    header: Value,
    keep: &KeySelection,
    look: Option<&OnScanned<'_, T>>,
    work: &Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<Shape> {
    let name = src.name.clone();
    let header_fields = into_object(&name, &first.text, first.origin.line, header)?;
    // the header is worked on and visited before any other line is read
    visit(work(Entry::NonRecord(
        NonRecordLine::EngramaHeader,
        Record::new(header_fields, first.text, first.origin),
    ))?)?;
    // the reader sorts the lines by their `type`
    let keep = keep.for_dump(super::engrama::KIND_KEY);
    let seen = keep
        .key_slots()
        .and_then(|slots| Some((slots, slots.slot(super::engrama::KIND_KEY)?)));
    let decode = |bytes: &[u8], origin: Origin, _| -> Result<Option<DumpLine<T>>> {
        let Some(text) = line_text(&name, bytes, origin.line)? else {
            return Ok(None);
        };
        if let (Some((slots, kind)), Some(look)) = (seen, look) {
            let node =
                |spans: &[Span]| crate::record::slot_text(text, spans, kind) == Some("\"node\"");
            if let Some(looked) = look_in_place_if(text, origin, slots, look, node) {
                return Ok(Some(DumpLine::Looked(looked?)));
            }
        }
        let decoded = decode_python(&name, &keep, text, origin.line)?;
        let non_record = match decoded
            .fields
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
        {
            "node" => None,
            "relation" => Some(NonRecordLine::Relation),
            "vector" => Some(NonRecordLine::Vector),
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
        Ok(Some(DumpLine::Entry(match non_record {
            None => Entry::Record(record),
            Some(non_record) => Entry::NonRecord(non_record, record),
        })))
    };
    let mut index = 0;
    let mut number = |line: &mut DumpLine<T>| match line {
        DumpLine::Entry(Entry::Record(record)) => {
            record.origin.index = index;
            index += 1;
        }
        DumpLine::Looked(_) => index += 1,
        DumpLine::Entry(_) => {}
    };
    let work = |line: DumpLine<T>| match line {
        DumpLine::Entry(entry) => work(entry),
        DumpLine::Looked(done) => Ok(done),
    };
    batch::for_each_line(src, &decode, &mut number, &work, visit)?;
    Ok(Shape::Engrama)
}
