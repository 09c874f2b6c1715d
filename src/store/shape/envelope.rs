//! An envelope object (`{"results": [ {…}, … ], "total": 2}`) spread over many lines, read
//! without building it: a first pass outlines the object's keys (which hold lists, whether
//! those lists hold anything) and checks everything but the records, so the list to read is
//! known before any record is visited; a second pass reads that list's elements as the JSON
//! array shape reads its own (`array.rs`). Memory stays at a block and its records whatever
//! the document's size.

use super::array::{self, Records};
use super::elements::{in_string, InString, MAX_DEPTH};
use super::nested::{self, Breaks, Nesting, Skip};
use super::{Entry, OnScanned, Shape};
use crate::error::{Position, Result, VercyError};
use crate::record::Origin;
use crate::store::batch::Work;
use crate::store::decode::keep::KeySelection;
use crate::store::decode::locate::json_error;
use crate::store::decode::pyjson;
use crate::store::source::{Input, Stream, MAX_LINE_BYTES};
use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, Read, Seek, Write};

/// Keys under which memory systems wrap their records in one object.
pub const ENVELOPE_KEYS: [&str; 6] = ["results", "facts", "edges", "memories", "items", "data"];

/// Keys that make an object a record, not an envelope.
const RECORD_KEYS: [&str; 2] = ["record_id", "valid_from"];

/// Keys past which one long line's outline stops: an envelope has a few, and a record of
/// many is read as the JSON line it is.
const LINE_MEMBERS: usize = 64;

/// What deciding the envelope's list needs of one of the object's keys.
pub struct Member {
    pub key: String,
    /// `Some(holds)` when the value is a list: `holds` when it is not empty.
    pub list: Option<bool>,
}

/// The key whose list holds the records (`None`: the object is not an envelope): the one
/// envelope key whose list holds anything, else the first envelope key (in
/// [`ENVELOPE_KEYS`]' order) with an empty list. An object with record fields of its own is a
/// record, not an envelope. `members` are the object's keys, each once (the last value of a
/// repeated key, as a whole read keeps it).
///
/// Two envelope keys that both hold records (`{"results": [A], "facts": [B]}`) are refused
/// rather than read: the reader cannot know that the two lists hold the same kind of record
/// (mem0's results and a graph's facts are not read through one map, nor identified alike),
/// and reading only one would drop the other's records. An empty list holds nothing to drop.
pub fn envelope_key<'m, M>(name: &str, line: u64, members: M) -> Result<Option<String>>
where
    M: IntoIterator<Item = &'m Member>,
    M::IntoIter: Clone,
{
    let members = members.into_iter();
    if members
        .clone()
        .any(|m| RECORD_KEYS.contains(&m.key.as_str()))
    {
        return Ok(None);
    }
    let list = |key: &str| members.clone().find(|m| m.key == key).and_then(|m| m.list);
    let lists: Vec<&str> = ENVELOPE_KEYS
        .iter()
        .copied()
        .filter(|k| list(k).is_some())
        .collect();
    let holding: Vec<&str> = lists
        .iter()
        .copied()
        .filter(|k| list(k) == Some(true))
        .collect();
    match (holding.as_slice(), lists.first()) {
        ([one], _) => Ok(Some(one.to_string())),
        ([], first) => Ok(first.map(|k| k.to_string())),
        (several, _) => Err(VercyError::Shape {
            path: name.to_string(),
            pos: Position { line, column: 1 },
            message: format!(
                "an envelope object with records under {} keys: {}",
                several.len(),
                crate::store::decode::locate::key_list(several)
            ),
            help: format!(
                "vercy reads the records of one envelope key and will not guess that the others hold the same kind of record, nor drop them: split the file, one list per store (jq '.{}' FILE)",
                several[0]
            ),
        }),
    }
}

/// Element `index` of the envelope's list under `key`, at `(line, column)`, is not an object.
pub fn not_a_record(
    name: &str,
    key: &str,
    index: usize,
    (line, column): (u64, u64),
    found: &Value,
) -> VercyError {
    VercyError::Shape {
        path: name.to_string(),
        pos: Position { line, column },
        message: format!(
            "element {index} of `{key}` is {}, not a record object",
            crate::record::kind_name(found)
        ),
        help: "every element of the envelope's list must be a JSON object".into(),
    }
}

/// The members of an object read whole.
pub fn members_of(value: &Value) -> Option<Vec<Member>> {
    let obj = value.as_object()?;
    Some(
        obj.iter()
            .map(|(key, value)| Member {
                key: key.clone(),
                list: value.as_array().map(|a| !a.is_empty()),
            })
            .collect(),
    )
}

/// Bytes of a first line past which, when no line break is among them, the line is outlined
/// before anything reads it whole.
const LONG_LINE: usize = 1 << 19;

/// The buffered first bytes of a store (from its `{`) may open a line too long to read as
/// one: they hold no line break, and either open an envelope's list (`{"results": [`) or run
/// past [`LONG_LINE`] bytes (`{"total": 5, "results": [`, or a JSON line of one long
/// record). [`read_long_line`] takes such a store. (A shorter one is read as a line.) On a
/// pipe (`piped`) a read stops at what the pipe holds, so any first bytes without a line
/// break are taken so.
pub fn opens_long_line(buffered: &[u8], piped: bool) -> bool {
    if memchr::memchr(b'\n', buffered).is_some() {
        return false;
    }
    piped || buffered.len() >= LONG_LINE || opens_list(buffered)
}

/// The bytes open an envelope's list: `{`, an envelope key, `:`, `[`.
fn opens_list(buffered: &[u8]) -> bool {
    let space = |b: &[u8]| {
        b.iter()
            .take_while(|c| matches!(c, b' ' | b'\t' | b'\r'))
            .count()
    };
    let Some(rest) = buffered.strip_prefix(b"{") else {
        return false;
    };
    let rest = &rest[space(rest)..];
    ENVELOPE_KEYS.iter().any(|key| {
        let Some(after) = rest
            .strip_prefix(b"\"")
            .and_then(|r| r.strip_prefix(key.as_bytes()))
            .and_then(|r| r.strip_prefix(b"\""))
        else {
            return false;
        };
        let after = &after[space(after)..];
        let Some(after) = after.strip_prefix(b":") else {
            return false;
        };
        after[space(after)..].starts_with(b"[")
    })
}

/// Where a byte of the document is.
#[derive(Debug, Clone, Copy, Default)]
struct Place {
    offset: u64,
    line: u64,
    line_start: u64,
}

/// What comes next at the object's own level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Open,
    FirstKey,
    Key,
    Colon,
    Value,
    CommaOrEnd,
    /// The object is closed: only whitespace may follow.
    Nothing,
}

/// The value being stepped over.
struct Current {
    key: String,
    at: Place,
    /// A list under an envelope key: stepped over, not kept. `Some(holds)` once its first
    /// byte inside is seen.
    list: Option<Option<bool>>,
    /// An object or a list (it ends at its closing bracket; a scalar at a delimiter).
    composite: bool,
}

/// The first pass: the object's members and where each envelope list starts. Every value but
/// an envelope's lists is checked as JSON by serde_json (they are small: counts, cursors).
struct Outline {
    name: String,
    expect: Expect,
    /// Nesting inside the current value, and whether the chunk ended in a string, or right
    /// after a backslash inside one.
    nest: Nesting,
    /// Bytes kept of a key or a value being checked, and where in the chunk keeping resumed.
    kept: Option<Vec<u8>>,
    kept_from: usize,
    key: Option<String>,
    current: Option<Current>,
    /// Each key once, in the order first met, with its last value (as a whole read keeps
    /// it) ...
    members: Vec<(Member, Place)>,
    /// ... and where each key is among them.
    member_at: HashMap<String, usize>,
    /// In an envelope's list, before its first byte other than whitespace.
    seeking_first: bool,
    /// The current value is stepped over a byte at a time to its end (`nested.rs` handed it
    /// over) ...
    bytewise: bool,
    /// ... or every value is: for the tests that hold the masks to it.
    never_masks: bool,
    /// Outlining one long line, which stops as soon as it is plainly not an envelope.
    line: bool,
    /// The next byte's place.
    at: Place,
}

impl Outline {
    fn new(name: &str, at: Place, line: bool) -> Outline {
        Outline {
            name: name.to_string(),
            expect: Expect::Open,
            nest: Nesting::default(),
            kept: None,
            kept_from: 0,
            key: None,
            current: None,
            members: Vec::new(),
            member_at: HashMap::new(),
            seeking_first: false,
            bytewise: false,
            never_masks: false,
            line,
            at,
        }
    }

    /// Inside an object or a list, past an envelope list's first byte: stepped over by the
    /// masks of `nested.rs`, unless they handed the value over.
    fn by_masks(&self) -> bool {
        self.nest.depth > 0 && !self.seeking_first && !self.bytewise
    }

    fn column(&self, offset: u64) -> u64 {
        offset - self.at.line_start + 1
    }

    fn error(&self, offset: u64, message: String) -> VercyError {
        VercyError::Shape {
            path: self.name.clone(),
            pos: Position {
                line: self.at.line,
                column: self.column(offset),
            },
            message,
            help: format!(
                "a store spread over several lines is one object with the records in a list under one of: {}",
                ENVELOPE_KEYS.join(", ")
            ),
        }
    }

    fn keep_from(&mut self, i: usize) {
        self.kept = Some(Vec::new());
        self.kept_from = i;
    }

    /// The bytes kept, up to `end` of `chunk`.
    fn take_kept(&mut self, chunk: &[u8], end: usize) -> Vec<u8> {
        let mut kept = self.kept.take().unwrap_or_default();
        kept.extend_from_slice(&chunk[self.kept_from..end]);
        kept
    }

    /// Outline the next chunk of the document.
    fn feed(&mut self, chunk: &[u8]) -> Result<()> {
        let base = self.at.offset;
        let mut i = 0;
        if self.nest.escaped && !self.by_masks() {
            let mut breaks = Breaks::default();
            i = nested::step_escaped(&mut self.nest, chunk, i, &mut breaks);
            breaks.move_lines(base, &mut self.at.line, &mut self.at.line_start);
        }
        while i < chunk.len() {
            if self.by_masks() {
                let mut breaks = Breaks::default();
                let skipped = nested::skip(chunk, i, &mut self.nest, MAX_DEPTH, &mut breaks);
                breaks.move_lines(base, &mut self.at.line, &mut self.at.line_start);
                match skipped {
                    Skip::Closed(at) => {
                        i = at + 1;
                        self.value_ended(chunk, i)?;
                    }
                    Skip::Open => break,
                    Skip::Bytewise(at) => {
                        self.bytewise = true;
                        i = at;
                    }
                }
                continue;
            }
            if self.nest.in_string {
                match in_string(chunk, i) {
                    InString::Open { escaped } => {
                        self.nest.escaped = escaped;
                        break;
                    }
                    InString::LineBreak(at) => {
                        self.new_line(base + at as u64);
                        i = at + 1;
                    }
                    InString::Closed(at) => {
                        self.nest.in_string = false;
                        if self.nest.depth == 0 {
                            self.string_ended(chunk, at + 1)?;
                        }
                        i = at + 1;
                    }
                }
                continue;
            }
            if self.nest.depth > 0 && !self.seeking_first {
                // inside a value, only these bytes change anything
                match chunk[i..]
                    .iter()
                    .position(|&b| super::elements::NESTING[usize::from(b)])
                {
                    Some(k) => i += k,
                    None => break,
                }
            }
            let b = chunk[i];
            let offset = base + i as u64;
            if self.nest.depth > 0 {
                match b {
                    b'"' => self.nest.in_string = true,
                    b'{' | b'[' => {
                        self.nest.depth += 1;
                        if self.nest.depth > MAX_DEPTH {
                            return Err(super::elements::too_deep(&self.name, self.at.line));
                        }
                    }
                    b'}' | b']' => self.nest.depth -= 1,
                    b'\n' => self.new_line(offset),
                    _ => {}
                }
                if self.seeking_first && !matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
                    self.seeking_first = false;
                    if let Some(Current {
                        list: Some(holds @ None),
                        ..
                    }) = &mut self.current
                    {
                        *holds = Some(b != b']');
                    }
                }
                i += 1;
                if self.nest.depth == 0 {
                    self.value_ended(chunk, i)?;
                }
                continue;
            }
            if let Some(current) = &self.current {
                // a scalar: it ends before its delimiter
                if !current.composite && matches!(b, b',' | b'}' | b' ' | b'\t' | b'\r' | b'\n') {
                    self.value_ended(chunk, i)?;
                } else {
                    if b == b'"' {
                        self.nest.in_string = true;
                    }
                    i += 1;
                    continue;
                }
            }
            match (self.expect, b) {
                (_, b' ' | b'\t' | b'\r') => {}
                (_, b'\n') => self.new_line(offset),
                (Expect::Open, b'{') => self.expect = Expect::FirstKey,
                (Expect::FirstKey | Expect::CommaOrEnd, b'}') => self.expect = Expect::Nothing,
                (Expect::FirstKey | Expect::Key, b'"') => {
                    self.keep_from(i);
                    self.nest.in_string = true;
                }
                (Expect::Colon, b':') => self.expect = Expect::Value,
                (Expect::CommaOrEnd, b',') => self.expect = Expect::Key,
                (Expect::Value, _) => {
                    let key = self.key.take().unwrap_or_default();
                    let list = ENVELOPE_KEYS.contains(&key.as_str()) && b == b'[';
                    let composite = matches!(b, b'{' | b'[');
                    self.current = Some(Current {
                        key,
                        at: Place { offset, ..self.at },
                        list: list.then_some(None),
                        composite,
                    });
                    if !list {
                        self.keep_from(i);
                    }
                    // a list's first byte inside tells whether it holds anything
                    self.seeking_first = list;
                    self.bytewise = self.never_masks;
                    if composite {
                        self.nest.depth = 1;
                    } else if b == b'"' {
                        self.nest.in_string = true;
                    }
                    self.expect = Expect::CommaOrEnd;
                }
                (expect, b) => {
                    let wanted = match expect {
                        Expect::Open => "`{`",
                        Expect::FirstKey => "a key or `}`",
                        Expect::Key => "a key",
                        Expect::Colon => "`:` after the key",
                        Expect::CommaOrEnd => "`,` or `}`",
                        Expect::Nothing | Expect::Value => "nothing more",
                    };
                    return Err(self.error(
                        offset,
                        format!("found {:?} where {wanted} belongs", b as char),
                    ));
                }
            }
            i += 1;
        }
        if let Some(kept) = &mut self.kept {
            kept.extend_from_slice(&chunk[self.kept_from..]);
            if kept.len() > MAX_LINE_BYTES {
                return Err(self.error(
                    base,
                    "a value longer than 256 MiB outside the records".into(),
                ));
            }
        }
        self.kept_from = 0;
        self.at.offset = base + chunk.len() as u64;
        Ok(())
    }

    fn new_line(&mut self, offset: u64) {
        self.at.line += 1;
        self.at.line_start = offset + 1;
    }

    /// A string at the object's level ended before `end`: a key, or a value.
    fn string_ended(&mut self, chunk: &[u8], end: usize) -> Result<()> {
        if self.current.is_some() {
            return Ok(()); // a scalar string value: it ends at its delimiter
        }
        let kept = self.take_kept(chunk, end);
        let key: String = serde_json::from_slice(&kept).map_err(|_| {
            self.error(
                self.at.offset + end as u64,
                "a key that is not a JSON string".into(),
            )
        })?;
        self.key = Some(key);
        self.expect = Expect::Colon;
        Ok(())
    }

    /// The current value ended before `end` of `chunk`: check it and note it.
    fn value_ended(&mut self, chunk: &[u8], end: usize) -> Result<()> {
        let Some(current) = self.current.take() else {
            return Ok(());
        };
        let list = match current.list {
            Some(holds) => Some(holds.unwrap_or(false)),
            None => {
                let kept = self.take_kept(chunk, end);
                let value = parse(&self.name, &kept, current.at)?;
                value.as_array().map(|a| !a.is_empty())
            }
        };
        let at = current.at;
        // a record's key, or more keys than an envelope has: a JSON line, read as one
        if self.line
            && (self.members.len() >= LINE_MEMBERS || RECORD_KEYS.contains(&current.key.as_str()))
        {
            return Err(self.error(at.offset, "not an envelope: a JSON line".into()));
        }
        match self.member_at.get(&current.key) {
            Some(&i) => {
                self.members[i] = (
                    Member {
                        key: current.key,
                        list,
                    },
                    at,
                )
            }
            None => {
                self.member_at
                    .insert(current.key.clone(), self.members.len());
                self.members.push((
                    Member {
                        key: current.key,
                        list,
                    },
                    at,
                ));
            }
        }
        Ok(())
    }

    /// The members, each key once (its last value, as a whole read keeps it), with where each
    /// value starts.
    fn finish(mut self) -> Result<Vec<(Member, Place)>> {
        if self.current.is_some() && self.nest.depth == 0 && !self.nest.in_string {
            self.value_ended(&[], 0)?;
        }
        if self.expect != Expect::Nothing || self.current.is_some() {
            return Err(self.error(
                self.at.offset,
                "the JSON object is not closed: the file ends inside it".into(),
            ));
        }
        Ok(self.members)
    }
}

/// A value outside the records that starts `at`, as the whole document's read would take it:
/// serde_json, or Python's reading of what nests deeper than serde_json goes.
fn parse(name: &str, bytes: &[u8], at: Place) -> Result<Value> {
    let refused = match serde_json::from_slice(bytes) {
        Ok(value) => return Ok(value),
        Err(e) => e,
    };
    let text = String::from_utf8_lossy(bytes);
    if refused.to_string().contains("recursion limit") {
        return pyjson::parse(&text).map_err(|_| super::elements::too_deep(name, at.line));
    }
    let mut err = json_error(name, &text, at.line, &refused);
    // the value's first line starts at its column, not at the line's start
    if let VercyError::Json { pos, .. } = &mut err {
        if refused.line() <= 1 {
            pos.column += at.offset - at.line_start;
        }
    }
    Err(err)
}

/// `bytes` written to the spool, when there is one.
fn spooled(spool: &mut Option<crate::spill::TempFile>, bytes: &[u8], name: &str) -> Result<()> {
    match spool {
        Some(file) => file.write_all(bytes).map_err(|e| VercyError::Read {
            path: name.to_string(),
            reason: crate::error::io_reason(&e),
        }),
        None => Ok(()),
    }
}

/// A document whose first line is `first` (read from `src`, `ending` its line ending) and
/// which goes on over more lines: an envelope object, read as the module says. Anything else
/// is refused: a store spread over several lines is an envelope or a JSON array.
#[allow(clippy::too_many_arguments)]
pub fn read_document<T: Send>(
    input: &Input,
    src: &mut Stream,
    first: (&str, &[u8], Origin),
    keep: &KeySelection,
    look: Option<&OnScanned<'_, T>>,
    work: &Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<Shape> {
    let (text, ending, origin) = first;
    let (spool, members) = outline(input, src, (text, ending), origin, false)?;
    let members = members?;
    let Some(key) = envelope_key(&src.name, origin.line, members.iter().map(|(m, _)| m))? else {
        return Err(VercyError::Shape {
            path: src.name.clone(),
            pos: Position {
                line: origin.line,
                column: 1,
            },
            message: "one JSON object spread over several lines is not a store".into(),
            help: format!(
                "write one record per line (JSON lines), a JSON array of records, or an object with the records under one of: {}",
                ENVELOPE_KEYS.join(", ")
            ),
        });
    };
    let list = ListAt {
        key: &key,
        members: &members,
        spool,
        origin,
    };
    read_list(input, src, list, keep, look, work, visit)
}

/// A store whose first line, from `origin`, is too long to read as one
/// ([`opens_long_line`]): outlined first, and read as an envelope when it is one. Anything
/// else — a JSON line of a long record, a line that is not JSON — is read as JSON lines from
/// its start, as a short first line is (and refused there, with the line's own error).
pub fn read_long_line<T: Send>(
    input: &Input,
    src: &mut Stream,
    origin: Origin,
    keep: &KeySelection,
    look: Option<&OnScanned<'_, T>>,
    work: &Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<Shape> {
    let line_start = src.line_start;
    let (spool, members) = outline(input, src, ("", b""), origin, true)?;
    if let Ok(members) = &members {
        if let Some(key) = envelope_key(&src.name, origin.line, members.iter().map(|(m, _)| m))? {
            let list = ListAt {
                key: &key,
                members,
                spool,
                origin,
            };
            return read_list(input, src, list, keep, look, work, visit);
        }
    }
    let mut again = match spool {
        // stdin: what the outline read is in the spool, the rest still in `src`
        Some(mut file) => {
            file.rewind().map_err(|e| src.io_error(&e))?;
            let rest = std::mem::replace(
                &mut src.reader,
                std::io::BufReader::new(Box::new(std::io::empty())),
            );
            let mut again = Stream::over(&src.name, Box::new(file.chain(rest)));
            again.line = origin.line;
            again.offset = origin.offset;
            again.line_start = line_start;
            again
        }
        None => {
            let mut again = input.open()?;
            again.skip_leading_space()?;
            again
        }
    };
    super::lines::read(input, &mut again, keep, look, work, visit)
}

/// The members found by the first pass, or why the document is not one JSON object.
type Outlined = Result<Vec<(Member, Place)>>;

/// The first pass over a document from `origin` (its first line's text and ending already
/// read, when given): its members, or why it is not one JSON object (for one long `line`:
/// or that it is plainly not an envelope). Read from stdin, the document goes to a temporary
/// file as it is outlined (returned whatever the outline found), for a second pass; the
/// outer error is that file's, before anything is read.
fn outline(
    input: &Input,
    src: &mut Stream,
    (text, ending): (&str, &[u8]),
    origin: Origin,
    line: bool,
) -> Result<(Option<crate::spill::TempFile>, Outlined)> {
    let start = Place {
        offset: origin.offset,
        line: origin.line,
        line_start: origin.offset,
    };
    let mut outline = Outline::new(&src.name, start, line);
    // stdin cannot be read twice: the document goes to a temporary file as it is outlined
    let mut spool = match input.is_pipe() {
        true => Some(crate::spill::temp_file().map_err(|e| src.io_error(&e))?),
        false => None,
    };
    let mut first = || -> Result<()> {
        for chunk in [text.as_bytes(), ending] {
            spooled(&mut spool, chunk, &src.name)?;
            outline.feed(chunk)?;
        }
        loop {
            let chunk = crate::store::source::fill(&mut src.reader, &src.name)?;
            if chunk.is_empty() {
                return Ok(());
            }
            let n = chunk.len();
            spooled(&mut spool, chunk, &src.name)?;
            // consumed once spooled, whatever the outline says: a reader after it reads
            // the spool and then the rest
            let fed = outline.feed(chunk);
            src.reader.consume(n);
            fed?;
        }
    };
    let members = first().and_then(|()| outline.finish());
    Ok((spool, members))
}

/// The envelope's list to read: its key, the document's members, the spool of a document
/// read from stdin, where the document starts.
struct ListAt<'a> {
    key: &'a str,
    members: &'a [(Member, Place)],
    spool: Option<crate::spill::TempFile>,
    origin: Origin,
}

/// The second pass: the records of the envelope's list, from its `[`.
fn read_list<T: Send>(
    input: &Input,
    src: &mut Stream,
    list: ListAt<'_>,
    keep: &KeySelection,
    look: Option<&OnScanned<'_, T>>,
    work: &Work<'_, Entry, T>,
    visit: &mut (dyn FnMut(T) -> Result<()> + Send),
) -> Result<Shape> {
    let ListAt {
        key,
        members,
        spool,
        origin,
    } = list;
    let shape = Shape::Envelope(key.to_string());
    let Some((member, at)) = members.iter().find(|(m, _)| m.key == key) else {
        return Ok(shape);
    };
    if member.list != Some(true) {
        return Ok(shape);
    }
    let (mut list, skip) = match spool {
        Some(mut file) => {
            file.rewind().map_err(|e| src.io_error(&e))?;
            let file: Box<dyn Read + Send> = Box::new(file);
            (Stream::over(&src.name, file), at.offset - origin.offset)
        }
        None => (input.open()?, at.offset),
    };
    std::io::copy(&mut (&mut list.reader).take(skip + 1), &mut std::io::sink())
        .map_err(|e| list.io_error(&e))?;
    list.offset = at.offset + 1;
    list.line = at.line;
    list.line_start = at.line_start;
    array::read_elements(&mut list, Records::Envelope(key), keep, look, work, visit)?;
    Ok(shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outline `text` fed `chunk` bytes at a time: each key, its list (if any), and the line
    /// its value starts on; or the error.
    fn outline(
        text: &str,
        chunk: usize,
    ) -> std::result::Result<Vec<(String, Option<bool>, u64)>, String> {
        outline_by(text, chunk, true)
    }

    /// [`outline`], by the masks where they can or a byte at a time throughout.
    fn outline_by(
        text: &str,
        chunk: usize,
        masks: bool,
    ) -> std::result::Result<Vec<(String, Option<bool>, u64)>, String> {
        let start = Place {
            offset: 0,
            line: 1,
            line_start: 0,
        };
        let mut outline = Outline::new("t", start, false);
        outline.never_masks = !masks;
        for piece in text.as_bytes().chunks(chunk) {
            outline.feed(piece).map_err(|e| e.to_string())?;
        }
        let members = outline.finish().map_err(|e| e.to_string())?;
        Ok(members
            .into_iter()
            .map(|(m, at)| (m.key, m.list, at.line))
            .collect())
    }

    #[test]
    fn outlines_the_keys_whatever_the_reads() {
        let text = "{\n  \"total\": 2,\n  \"data\": [\n    {\"a\": \"]}\\\"\"},\n    {}\n  ],\n  \"items\": [ ],\n  \"meta\": {\"x\": [1, \"}\"]}, \"next\": null\n}\n";
        let want = vec![
            ("total".to_string(), None, 2),
            ("data".to_string(), Some(true), 3),
            ("items".to_string(), Some(false), 7),
            ("meta".to_string(), None, 8),
            ("next".to_string(), None, 8),
        ];
        for chunk in 1..=text.len() {
            assert_eq!(outline(text, chunk), Ok(want.clone()), "{chunk}");
        }
        // a repeated key: its last value, in its first place
        let twice = "{\"data\": [{}],\n \"n\": 1,\n \"data\": []}";
        let got = outline(twice, 3).unwrap();
        assert_eq!(got[0], ("data".to_string(), Some(false), 3));
    }

    #[test]
    fn what_is_not_a_json_object_is_named_where_it_is() {
        for (text, error) in [
            (
                "{\n \"data\" [{}]}",
                "t:2:9: found '[' where `:` after the key belongs",
            ),
            (
                "{\"data\": [{}]}\n}",
                "t:2:1: found '}' where nothing more belongs",
            ),
            (
                "{\n \"data\": [{}],\n",
                "t:3:1: the JSON object is not closed",
            ),
            ("{\n \"n\": tru,\n \"data\": []}", "t:2:"),
            (
                "{\n \"n\": 1 2}",
                "t:2:9: found '2' where `,` or `}` belongs",
            ),
            ("{\"n\": {\"a\": }, \"data\": []}", "t:1:"),
            // the line start moves past a line break inside a value
            (
                "{\"m\": {\"a\": 1,\n   \"b\": 2}  x",
                "t:2:13: found 'x' where `,` or `}` belongs",
            ),
        ] {
            for chunk in [1, 2, 5, 100] {
                let got = outline(text, chunk).expect_err(text);
                assert!(
                    got.starts_with(error),
                    "{text:?} in chunks of {chunk}: {got}"
                );
            }
        }
    }

    proptest::proptest! {
        /// Objects whose values hold anything, valid or not, long enough to span the masks'
        /// chunks: outlined by the masks, the keys, their lists and lines and the error are
        /// the bytewise outline's, in chunks of any size.
        #[test]
        fn the_masks_outline_as_a_byte_at_a_time(
            values in proptest::collection::vec("[a\\[\\]{}\",:\\\\ \n]{0,150}", 1..5),
            chunk in 1usize..200,
        ) {
            let members: Vec<String> = values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let key = ["data", "meta", "results", "next"][i % 4];
                    let open = if i % 2 == 0 { ('[', ']') } else { ('{', '}') };
                    format!("\"{key}\": {}{v}{}", open.0, open.1)
                })
                .collect();
            let text = format!("{{\n{}\n}}", members.join(",\n "));
            proptest::prop_assert_eq!(outline_by(&text, chunk, true), outline_by(&text, chunk, false));
        }
    }

    #[test]
    fn a_line_is_outlined_first_when_it_opens_a_list_or_runs_long() {
        assert!(opens_long_line(b"{ \"results\" : [ {\"a\": 1}", false));
        assert!(opens_long_line(b"{\"data\":[", false));
        // a line break within the buffer: read as a line
        assert!(!opens_long_line(b"{\"data\": [{}]}\n", false));
        assert!(!opens_long_line(b"{\"data\": [{}]}\n", true));
        // a record, or another key first, on a short line
        assert!(!opens_long_line(
            b"{\"record_id\": \"a\", \"data\": [",
            false
        ));
        assert!(!opens_long_line(b"{\"data\": {\"a\": [", false));
        // ... unless a pipe's read ended before the line did
        assert!(opens_long_line(b"{\"total\": 5, \"data\": [", true));
        // any line longer than the threshold
        let mut long = b"{\"total\": 5, \"results\": [".to_vec();
        long.resize(LONG_LINE, b' ');
        assert!(opens_long_line(&long, false));
        long.push(b'\n');
        assert!(!opens_long_line(&long, false));
    }
}
