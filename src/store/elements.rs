//! A JSON array's elements, cut out of the file a block at a time for the batch engine
//! (`batch.rs`): the JSON array shape, and an envelope's list of records. The cutting is the
//! only serial step; each element is decoded on whichever core takes its block.
//!
//! The cutter tracks strings and nesting, no more: it steps over a string's contents with
//! `memchr`, and leaves everything else about an element (its syntax, its UTF-8) to the
//! element's decoder, which names the place of any error. What lies between the elements
//! (commas, whitespace) and after the array is checked here.

use super::batch::{BlockLine, Blocks, BLOCK};
use super::input::{leading_py_space, Source, MAX_LINE_BYTES};
use crate::error::{Position, Result, VercyError};

/// Deeper than this is refused before parsing (the depth Python's json reads, about).
pub const MAX_DEPTH: usize = super::pyjson::MAX_DEPTH;

/// What follows the array's closing `]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// The array is the whole store: only whitespace may follow it (Python's, as the
    /// reference strips the text before it parses it).
    Nothing,
    /// The array is a value within a document another reader has checked: the cutting stops
    /// at its `]`.
    Unread,
}

/// The elements of the array whose `[` the source has just consumed.
pub struct Elements<'s> {
    src: &'s mut Source,
    after: After,
    /// The bytes of an element begun in the last block, carried to the next.
    carry: Vec<u8>,
    scan: Scan,
    /// An error met after some elements of a block: given at the next call.
    failed: Option<VercyError>,
    done: bool,
    /// Elements found so far.
    pub found: usize,
}

/// Where the cutting is, carried from block to block.
#[derive(Default)]
struct Scan {
    /// Nesting within the current element (0 between elements, and in a scalar one).
    depth: usize,
    in_string: bool,
    /// The block ended right after a backslash inside a string.
    escaped: bool,
    /// The element being cut: where it starts, `None` between elements.
    element: Option<Start>,
    /// After `[` or `,`: an element must come next.
    expect_value: bool,
    seen_any: bool,
    closed: bool,
}

/// Where an element starts.
#[derive(Clone, Copy)]
struct Start {
    line: u64,
    offset: u64,
    column: u64,
    /// An object or a list: it ends at its closing bracket (a scalar ends at a delimiter).
    composite: bool,
}

impl<'s> Elements<'s> {
    /// The elements of the array whose `[` `src` has just consumed.
    pub fn new(src: &'s mut Source, after: After) -> Elements<'s> {
        Elements {
            src,
            after,
            carry: Vec::new(),
            scan: Scan {
                expect_value: true,
                ..Scan::default()
            },
            failed: None,
            done: false,
            found: 0,
        }
    }

    fn error(&self, line: u64, column: u64, message: String, help: &str) -> VercyError {
        VercyError::Shape {
            path: self.src.name.clone(),
            pos: Position { line, column },
            message,
            help: help.into(),
        }
    }

    fn unclosed(&self) -> VercyError {
        self.error(
            self.src.line,
            self.src.offset.saturating_sub(self.src.line_start) + 1,
            "the JSON array is not closed: the file ends inside it".into(),
            "the file may be truncated; restore its end (the last record and the closing `]`)",
        )
    }

    /// Cut `block[from..]`, whose first byte is at file offset `base`, pushing each element
    /// that ends in it; returns where scanning stopped (the block's end unless it closed or
    /// failed). Keeps the source's line and line start up to date.
    fn cut(&mut self, block: &[u8], from: usize, base: u64, items: &mut Vec<BlockLine>) -> usize {
        let s = &mut self.scan;
        let src = &mut *self.src;
        let mut i = from;
        if s.escaped {
            s.escaped = false;
            i += 1;
        }
        while i < block.len() {
            if s.in_string {
                match memchr::memchr3(b'"', b'\\', b'\n', &block[i..]) {
                    None => return block.len(),
                    Some(k) => {
                        let at = i + k;
                        match block[at] {
                            b'"' => s.in_string = false,
                            b'\n' => {
                                src.line += 1;
                                src.line_start = base + at as u64 + 1;
                            }
                            _ if at + 1 == block.len() => {
                                s.escaped = true;
                                return block.len();
                            }
                            // the escaped byte is stepped over (a raw line break there is
                            // the decoder's to refuse)
                            _ => {
                                if block[at + 1] == b'\n' {
                                    src.line += 1;
                                    src.line_start = base + at as u64 + 2;
                                }
                                i = at + 2;
                                continue;
                            }
                        }
                        i = at + 1;
                        continue;
                    }
                }
            }
            let b = block[i];
            let offset = base + i as u64;
            if s.closed {
                // only whitespace after the array
                let space = match b {
                    b' ' | b'\t' | b'\r' | b'\n' => 1,
                    _ => leading_py_space(&block[i..]),
                };
                if space == 0 {
                    if block.len() - i < 4 && b >= 0x80 {
                        // a character cut at the block's end: read it whole next time
                        return i;
                    }
                    let column = offset - src.line_start + 1;
                    self.failed = Some(self.stray(b, column));
                    return block.len();
                }
                if b == b'\n' {
                    src.line += 1;
                    src.line_start = offset + 1;
                }
                i += space;
                continue;
            }
            if let Some(start) = s.element {
                let ends_here = match b {
                    b'"' => {
                        s.in_string = true;
                        false
                    }
                    b'{' | b'[' => {
                        s.depth += 1;
                        if s.depth > MAX_DEPTH {
                            self.failed = Some(too_deep(&src.name, src.line));
                            return block.len();
                        }
                        false
                    }
                    b'}' | b']' if start.composite => {
                        s.depth = s.depth.saturating_sub(1);
                        s.depth == 0
                    }
                    b',' | b']' | b' ' | b'\t' | b'\r' | b'\n' if !start.composite => {
                        // a scalar element ends before its delimiter, read again below
                        s.element = None;
                        items.push(item(&start, base, i));
                        continue;
                    }
                    _ => false,
                };
                if b == b'\n' {
                    src.line += 1;
                    src.line_start = offset + 1;
                }
                i += 1;
                if ends_here {
                    s.element = None;
                    items.push(item(&start, base, i));
                }
                continue;
            }
            match b {
                b' ' | b'\t' | b'\r' => {}
                b'\n' => {
                    src.line += 1;
                    src.line_start = offset + 1;
                }
                b',' if !s.expect_value => s.expect_value = true,
                b']' if !s.expect_value || !s.seen_any => {
                    s.closed = true;
                    if self.after == After::Unread {
                        self.done = true;
                        return i + 1;
                    }
                }
                _ if s.expect_value => {
                    s.expect_value = false;
                    s.seen_any = true;
                    let composite = matches!(b, b'{' | b'[');
                    s.element = Some(Start {
                        line: src.line,
                        offset,
                        column: offset - src.line_start + 1,
                        composite,
                    });
                    // the element's first byte is read again as part of it
                    continue;
                }
                _ => {
                    let column = offset - src.line_start + 1;
                    self.failed = Some(self.stray(b, column));
                    return block.len();
                }
            }
            i += 1;
        }
        block.len()
    }

    fn stray(&self, b: u8, column: u64) -> VercyError {
        self.error(
            self.src.line,
            column,
            format!(
                "unexpected {:?} {}",
                b as char,
                if self.scan.closed {
                    "after the end of the array"
                } else {
                    "between records (a `,` is missing?)"
                }
            ),
            "a JSON array store is `[ {…}, {…} ]` and nothing after it",
        )
    }
}

/// An element from `start` to `end` (block positions; `base` is the block's offset).
fn item(start: &Start, base: u64, end: usize) -> BlockLine {
    BlockLine {
        start: (start.offset - base) as usize,
        end,
        number: start.line,
        offset: start.offset,
        column: start.column,
    }
}

impl Blocks for Elements<'_> {
    fn next_block(&mut self, block: &mut Vec<u8>) -> Result<Vec<BlockLine>> {
        if let Some(e) = self.failed.take() {
            self.done = true;
            return Err(e);
        }
        block.clear();
        if self.done {
            return Ok(Vec::new());
        }
        // the carried bytes were cut already: cutting resumes after them
        let mut base = self.src.offset - self.carry.len() as u64;
        block.append(&mut self.carry);
        let mut scanned = block.len();
        let mut items = Vec::new();
        loop {
            let read = self.src.read_more(block, BLOCK)?;
            let stop = self.cut(block, scanned, base, &mut items);
            scanned = stop;
            self.src.offset = base + block.len() as u64;
            if self.done {
                self.src.offset = base + stop as u64;
                break;
            }
            if self.failed.is_some() {
                break;
            }
            if read == 0 {
                if !self.scan.closed {
                    self.failed = Some(self.unclosed());
                } else if stop < block.len() {
                    // a character cut at the very end: not whitespace
                    let column = base + stop as u64 - self.src.line_start + 1;
                    self.failed = Some(self.stray(block[stop], column));
                } else {
                    self.done = true;
                }
                break;
            }
            // what the next block needs: the element begun, or a cut character
            let keep_from = match self.scan.element {
                Some(start) => (start.offset - base) as usize,
                None => stop,
            };
            if !items.is_empty() {
                self.carry.extend_from_slice(&block[keep_from..]);
                block.truncate(keep_from);
                break;
            }
            if keep_from == block.len() {
                // nothing ended and nothing begun (whitespace): start afresh
                block.clear();
                base = self.src.offset;
                scanned = 0;
                continue;
            }
            // no element ended in the block yet: it grows to finish one, bounded
            if block.len() - keep_from > MAX_LINE_BYTES {
                let line = self.scan.element.map_or(self.src.line, |s| s.line);
                return Err(self.error(
                    line,
                    1,
                    format!("a record longer than {} MiB", MAX_LINE_BYTES >> 20),
                    "this is not a store, or a record too large to read",
                ));
            }
        }
        if items.is_empty() {
            if let Some(e) = self.failed.take() {
                self.done = true;
                return Err(e);
            }
        }
        self.found += items.len();
        Ok(items)
    }
}

pub fn too_deep(name: &str, line: u64) -> VercyError {
    VercyError::Shape {
        path: name.to_string(),
        pos: Position { line, column: 1 },
        message: format!("a record nests lists or objects more than {MAX_DEPTH} levels deep"),
        help: "flatten the record (the reference checker stops with a RecursionError at about 990 levels)".into(),
    }
}
