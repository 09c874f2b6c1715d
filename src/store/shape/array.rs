//! A JSON array of records: its elements are cut out of the file a block at a time
//! (`elements.rs`) and decoded on every core as JSON lines are, so the array is never a tree
//! in memory and every element knows its line. An envelope's list is read the same way.

use super::elements::{After, Elements};
use super::lines::look_in_place;
use super::{envelope, Entry, OnScanned, Shape};
use crate::error::{Result, VercyError};
use crate::record::{kind_name, Origin, Record};
use crate::store::batch::{self, Work};
use crate::store::decode::keep::KeySelection;
use crate::store::decode::locate::{json_error, not_object, utf8_error};
use crate::store::source::Stream;
use serde_json::Value;
use std::io::BufRead;

/// Read the array whose `[` is the source's next byte.
pub fn read<T: Send>(
    src: &mut Stream,
    keep: &KeySelection,
    look: Option<&OnScanned<'_, T>>,
    work: &Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<Shape> {
    src.reader.consume(1);
    src.offset += 1;
    let found = read_elements(src, Records::Store, keep, look, work, visit)?;
    Ok(if found == 0 {
        Shape::Empty
    } else {
        Shape::JsonArray
    })
}

/// Whose elements are read.
#[derive(Clone, Copy)]
pub enum Records<'k> {
    /// The array is the store: a record keeps its element's text.
    Store,
    /// The array is an envelope's list under this key, and the document around it is read
    /// already: a record keeps the text Python would write for it (as when the envelope was
    /// read whole), and the cutting stops at the list's `]`.
    Envelope(&'k str),
}

/// One element, decoded.
enum Element<T> {
    Built(Box<Record>),
    Looked(T),
    /// An envelope's element that is not an object: refused once it is numbered, as the
    /// message names the element by its place in the list.
    NotARecord(Box<(Value, u64, u64, usize)>),
}

/// Read the elements of the array whose `[` the source has consumed: `work` on each (on
/// every core), `visit` in order. Returns how many there were.
pub fn read_elements<T: Send>(
    src: &mut Stream,
    records: Records<'_>,
    keep: &KeySelection,
    look: Option<&OnScanned<'_, T>>,
    work: &Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<usize> {
    let name = src.name.clone();
    let slots = keep.key_slots().filter(|_| look.is_some());
    let decode = |bytes: &[u8], origin: Origin, column: u64| -> Result<Option<Element<T>>> {
        let text =
            crate::bytes::utf8(bytes).map_err(|e| utf8_error(&name, bytes, origin.line, &e))?;
        if let (Some(slots), Some(look)) = (slots, look) {
            if let Some(looked) = look_in_place(text, origin, slots, look) {
                return Ok(Some(Element::Looked(looked?)));
            }
        }
        // what serde_json refuses, Python's json may read (NaN, a lone surrogate, deeper
        // nesting): the reference parses the array with it
        let parsed = match serde_json::from_str(text) {
            Err(e) => crate::store::decode::pyjson::parse(text).map_err(|_| e),
            ok => ok,
        };
        let value: Value = parsed.map_err(|e| {
            let mut err = json_error(&name, text, origin.line, &e);
            // the element's first line starts at its column, not at the line's start
            if let VercyError::Json { pos, .. } = &mut err {
                if e.line() <= 1 {
                    pos.column += column - 1;
                }
            }
            err
        })?;
        let raw = match records {
            Records::Store => text.into(),
            Records::Envelope(_) => crate::python::json::python_text(&value),
        };
        let fields = match (value, records) {
            (Value::Object(map), _) => map,
            (other, Records::Store) => {
                return Err(not_object_at(&name, text, origin.line, column, &other))
            }
            (other, Records::Envelope(_)) => {
                let found = (other, origin.line, column, 0);
                return Ok(Some(Element::NotARecord(Box::new(found))));
            }
        };
        Ok(Some(Element::Built(Box::new(Record::new(
            fields, raw, origin,
        )))))
    };
    let mut index = 0;
    let mut number = |element: &mut Element<T>| {
        match element {
            Element::Built(record) => record.origin.index = index,
            Element::NotARecord(found) => found.3 = index,
            Element::Looked(_) => {}
        }
        index += 1;
    };
    let work = |element: Element<T>| match element {
        Element::Built(record) => work(Entry::Record(*record)),
        Element::Looked(done) => Ok(done),
        Element::NotARecord(found) => {
            let (value, line, column, index) = *found;
            // only an envelope's elements are refused this way
            let key = match records {
                Records::Envelope(key) => key,
                Records::Store => "",
            };
            Err(envelope::not_a_record(
                &name,
                key,
                index,
                (line, column),
                &value,
            ))
        }
    };
    let after = match records {
        Records::Store => After::Nothing,
        Records::Envelope(_) => After::Unread,
    };
    let mut elements = Elements::new(src, after);
    batch::for_each_item(&mut elements, &decode, &mut number, &work, visit)?;
    Ok(elements.found)
}

/// An element of an array store that is not an object.
fn not_object_at(name: &str, text: &str, line: u64, column: u64, found: &Value) -> VercyError {
    let first_line = text.lines().next().unwrap_or("");
    let mut err = not_object(name, first_line, line, 0, kind_name(found));
    if let VercyError::NotObject { pos, .. } = &mut err {
        pos.column = column;
    }
    err
}
