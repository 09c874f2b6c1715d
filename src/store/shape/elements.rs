//! A JSON array's elements, cut out of the file a block at a time for the batch engine
//! (`batch.rs`): the JSON array shape, and an envelope's list of records. The cutting is the
//! only serial step; each element is decoded on whichever core takes its block.
//!
//! The cutter tracks strings and nesting, no more: it steps over a string's contents with
//! `memchr`, and leaves everything else about an element (its syntax, its UTF-8) to the
//! element's decoder, which names the place of any error. What lies between the elements
//! (commas, whitespace) and after the array is checked here.

use super::nested::{self, Breaks, Nesting, Skip};
use crate::error::{Position, Result, VercyError};
use crate::store::batch::{BlockLine, Blocks, BLOCK};
use crate::store::source::{leading_py_space, Stream, MAX_LINE_BYTES};

/// Deeper than this is refused before parsing (the depth Python's json reads, about).
pub const MAX_DEPTH: usize = crate::store::decode::pyjson::MAX_DEPTH;

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
    src: &'s mut Stream,
    after: After,
    /// The bytes of an element begun in the last block (or of a character cut at its end),
    /// carried to the next.
    carry: Vec<u8>,
    /// How many of the carried bytes were cut already.
    carry_cut: usize,
    scan: Scan,
    /// An error met after some elements of a block: given at the next call.
    failed: Option<VercyError>,
    done: bool,
    /// Elements found so far.
    pub found: usize,
    /// Bytes read at a time.
    want: usize,
}

/// Where the cutting is, carried from block to block.
#[derive(Default)]
struct Scan {
    /// Nesting within the current element (depth 0 between elements, and in a scalar one),
    /// and whether the block ended in a string, or right after a backslash inside one.
    nest: Nesting,
    /// The element being cut: where it starts, `None` between elements.
    element: Option<Start>,
    /// The element is cut a byte at a time to its end (`nested.rs` handed it over).
    bytewise: bool,
    /// Every element is cut a byte at a time: for the tests that hold the masks to it.
    never_masks: bool,
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
    pub fn new(src: &'s mut Stream, after: After) -> Elements<'s> {
        Elements {
            src,
            after,
            carry: Vec::new(),
            carry_cut: 0,
            scan: Scan {
                expect_value: true,
                ..Scan::default()
            },
            failed: None,
            done: false,
            found: 0,
            want: BLOCK,
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
        if s.nest.escaped && !by_masks(s) {
            let mut breaks = Breaks::default();
            i = nested::step_escaped(&mut s.nest, block, i, &mut breaks);
            breaks.move_lines(base, &mut src.line, &mut src.line_start);
        }
        while i < block.len() {
            if by_masks(s) {
                let mut breaks = Breaks::default();
                let skipped = nested::skip(block, i, &mut s.nest, MAX_DEPTH, &mut breaks);
                breaks.move_lines(base, &mut src.line, &mut src.line_start);
                match skipped {
                    Skip::Closed(at) => {
                        if let Some(start) = s.element.take() {
                            items.push(item(&start, base, at + 1));
                        }
                        i = at + 1;
                        continue;
                    }
                    Skip::Open => return block.len(),
                    Skip::Bytewise(at) => {
                        s.bytewise = true;
                        i = at;
                        continue;
                    }
                }
            }
            if s.nest.in_string {
                match in_string(block, i) {
                    InString::Open { escaped } => {
                        s.nest.escaped = escaped;
                        return block.len();
                    }
                    InString::LineBreak(at) => {
                        src.line += 1;
                        src.line_start = base + at as u64 + 1;
                        i = at + 1;
                    }
                    InString::Closed(at) => {
                        s.nest.in_string = false;
                        i = at + 1;
                    }
                }
                continue;
            }
            if s.nest.depth > 0 {
                // inside an object or a list, only these bytes change anything
                match block[i..].iter().position(|&b| NESTING[usize::from(b)]) {
                    Some(k) => i += k,
                    None => return block.len(),
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
                        s.nest.in_string = true;
                        false
                    }
                    b'{' | b'[' => {
                        s.nest.depth += 1;
                        if s.nest.depth > MAX_DEPTH {
                            self.failed = Some(too_deep(&src.name, src.line));
                            return block.len();
                        }
                        false
                    }
                    b'}' | b']' if start.composite => {
                        s.nest.depth = s.nest.depth.saturating_sub(1);
                        s.nest.depth == 0
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
                _ if s.expect_value && !matches!(b, b',' | b']') => {
                    s.expect_value = false;
                    s.seen_any = true;
                    s.bytewise = s.never_masks;
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
                } else if self.scan.expect_value {
                    "where a record belongs (a `,` too many?)"
                } else {
                    "between records (a `,` is missing?)"
                }
            ),
            "a JSON array store is `[ {…}, {…} ]` and nothing after it",
        )
    }
}

/// The element being cut is an object or a list past its first bracket, to be cut by the
/// masks of `nested.rs`, unless they handed it over.
fn by_masks(s: &Scan) -> bool {
    s.nest.depth > 0 && !s.bytewise && s.element.is_some_and(|start| start.composite)
}

/// Where a string's contents from `i` of `bytes` lead.
pub enum InString {
    /// The string goes on past the bytes' end; `escaped` when they end with its backslash.
    Open { escaped: bool },
    /// A line break at this place (a raw one, or an escaped one: the decoder's to refuse),
    /// the string going on after it.
    LineBreak(usize),
    /// The string's closing quote at this place.
    Closed(usize),
}

/// Step over a string's contents from `i`, escapes included, to its end or a line break.
#[inline]
pub fn in_string(bytes: &[u8], mut i: usize) -> InString {
    loop {
        let Some(k) = memchr::memchr3(b'"', b'\\', b'\n', &bytes[i..]) else {
            return InString::Open { escaped: false };
        };
        let at = i + k;
        match bytes[at] {
            b'"' => return InString::Closed(at),
            b'\n' => return InString::LineBreak(at),
            _ if at + 1 == bytes.len() => return InString::Open { escaped: true },
            _ if bytes[at + 1] == b'\n' => return InString::LineBreak(at + 1),
            _ => i = at + 2,
        }
    }
}

/// The bytes that open or close a string, an object or a list, or a line: all that matters
/// inside an element's nesting.
pub const NESTING: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = matches!(i as u8, b'"' | b'{' | b'}' | b'[' | b']' | b'\n');
        i += 1;
    }
    table
};

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
        let mut base = self.src.offset - self.carry.len() as u64;
        block.append(&mut self.carry);
        let mut scanned = self.carry_cut;
        let mut items = Vec::new();
        loop {
            let read = self.src.read_more(block, self.want)?;
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
                self.carry_cut = stop - keep_from;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Input;
    use proptest::prelude::*;

    /// Cut `text` (after its `[`) `want` bytes at a time: each element's text and line, and the
    /// error that ended the cutting.
    fn cut(text: &str, want: usize, after: After) -> (Vec<(String, u64, u64)>, Option<String>) {
        cut_by(text, want, after, true)
    }

    /// [`cut`], by the masks where they can or a byte at a time throughout.
    fn cut_by(
        text: &str,
        want: usize,
        after: After,
        masks: bool,
    ) -> (Vec<(String, u64, u64)>, Option<String>) {
        let mut src = Input::from_bytes("t", text.as_bytes().to_vec())
            .open()
            .unwrap();
        let open = text.find('[').unwrap();
        let mut skipped = Vec::new();
        src.read_more(&mut skipped, open + 1).unwrap();
        src.offset = open as u64 + 1;
        src.line = 1 + text[..open].matches('\n').count() as u64;
        src.line_start = text[..open].rfind('\n').map_or(0, |i| i as u64 + 1);
        let mut elements = Elements::new(&mut src, after);
        elements.want = want;
        elements.scan.never_masks = !masks;
        let mut found = Vec::new();
        let mut block = Vec::new();
        loop {
            match elements.next_block(&mut block) {
                Ok(items) if items.is_empty() => return (found, None),
                Ok(items) => found.extend(items.iter().map(|l| {
                    let text = String::from_utf8(block[l.start..l.end].to_vec()).unwrap();
                    (text, l.number, l.column)
                })),
                Err(e) => return (found, Some(e.to_string())),
            }
        }
    }

    #[test]
    fn elements_are_cut_whole_across_blocks() {
        let text = "[\n  {\"a\": \"x]\\\"}\"},\n  {\"b\": [1, {\"c\": 2}]} , 3,\"s\"\n]\n";
        let want = vec![
            ("{\"a\": \"x]\\\"}\"}".to_string(), 2, 3),
            ("{\"b\": [1, {\"c\": 2}]}".to_string(), 3, 3),
            ("3".to_string(), 3, 26),
            ("\"s\"".to_string(), 3, 28),
        ];
        for block in 1..text.len() + 2 {
            assert_eq!(
                cut(text, block, After::Nothing),
                (want.clone(), None),
                "{block}"
            );
        }
    }

    #[test]
    fn what_lies_between_and_after_the_elements_is_checked() {
        for (text, error) in [
            ("[{} {}]", "1:5: unexpected '{' between records"),
            ("[{}]\n x", "2:2: unexpected 'x' after the end of the array"),
            ("[{}, {\"a\": 1}", "1:14: the JSON array is not closed"),
            ("[,{}]", "1:2: unexpected ',' where a record belongs"),
            ("[{},]", "1:5: unexpected ']' where a record belongs"),
        ] {
            for block in [1, 2, 3, 64] {
                let (_, got) = cut(text, block, After::Nothing);
                let got = got.unwrap_or_default();
                assert!(got.contains(error), "{text:?} in blocks of {block}: {got}");
            }
        }
        // an envelope's list: the cutting stops at its `]`, whatever follows
        let (found, error) = cut("[{}, {}], \"next\": x}", 4, After::Unread);
        assert_eq!((found.len(), error), (2, None));
        // whitespace Python strips may follow the array, cut anywhere
        let text = "[{}]\u{3000}\u{2028}\n";
        for block in 1..text.len() {
            assert_eq!(cut(text, block, After::Nothing).1, None, "{block}");
        }
    }

    proptest! {
        /// Arrays of objects with strings full of brackets, quotes and escapes, spread over
        /// lines at random: the elements cut out are the ones serde_json reads, on the lines
        /// where they start, in blocks of any size.
        #[test]
        fn cut_elements_are_the_arrays_elements(
            values in proptest::collection::vec("[a-z\\[\\]{}\",:\\\\ ]{0,12}", 0..12),
            breaks in proptest::collection::vec(0usize..3, 12),
            block in 1usize..40,
        ) {
            let mut text = String::from("[");
            let mut starts = Vec::new();
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                text.push_str(&"\n ".repeat(breaks[i]));
                starts.push(1 + text.matches('\n').count() as u64);
                text.push_str(&serde_json::json!({"k": v, "l": [v]}).to_string());
            }
            text.push_str("\n]");
            let (found, error) = cut(&text, block, After::Nothing);
            prop_assert_eq!(error, None);
            let parsed: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
            let cut_values: Vec<serde_json::Value> =
                found.iter().map(|(t, ..)| serde_json::from_str(t).unwrap()).collect();
            prop_assert_eq!(cut_values, parsed);
            let lines: Vec<u64> = found.iter().map(|(_, line, _)| *line).collect();
            prop_assert_eq!(lines, starts);
        }

        /// Arrays of objects holding anything, valid or not, long enough to span the masks'
        /// chunks: cut by the masks, the elements, their lines and columns and the error that
        /// ends the cutting are the bytewise cutter's, in blocks of any size.
        #[test]
        fn the_masks_cut_as_a_byte_at_a_time(
            insides in proptest::collection::vec("[a\\[\\]{}\",:\\\\ \n]{0,150}", 1..6),
            block in 1usize..200,
        ) {
            let objects: Vec<String> = insides.iter().map(|inside| format!("{{{inside}}}")).collect();
            let text = format!("[{}]", objects.join(",\n "));
            prop_assert_eq!(
                cut_by(&text, block, After::Nothing, true),
                cut_by(&text, block, After::Nothing, false)
            );
        }
    }
}
