//! A source's bytes as the shapes read them: in large blocks or a line at a time, with the
//! position of every byte known (line, offset) so errors can name them.

use crate::error::{io_reason, Result, VercyError};
use std::io::{self, BufRead, BufReader, Read};

/// The longest line a store may hold: a 64 MB record reads, `/dev/zero` does not grow memory
/// without bound.
pub const MAX_LINE_BYTES: usize = 256 << 20;

/// The reader's next bytes (empty at the end of the input), retrying a read that a signal
/// interrupted. A free function over the two fields it needs, so a caller can go on updating
/// its position while it holds the bytes.
pub fn fill<'a>(reader: &'a mut BufReader<Box<dyn Read + Send>>, name: &str) -> Result<&'a [u8]> {
    loop {
        match reader.fill_buf() {
            Ok(_) => return Ok(reader.buffer()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(VercyError::Read {
                    path: name.to_string(),
                    reason: io_reason(&e),
                })
            }
        }
    }
}

/// An open store with a cursor that knows its line and byte offset.
pub struct Stream {
    pub name: String,
    pub reader: BufReader<Box<dyn Read + Send>>,
    /// 1-based line of the next unread byte.
    pub line: u64,
    /// Byte offset of the next unread byte.
    pub offset: u64,
    /// Byte offset where the current line starts.
    pub line_start: u64,
    /// Bytes read past the last whole line of a block, the start of the next one.
    carry: Vec<u8>,
}

impl Stream {
    /// The store `name` read from `reader`, from its first byte.
    pub fn over(name: &str, reader: Box<dyn Read + Send>) -> Stream {
        Stream {
            name: name.to_string(),
            reader: BufReader::with_capacity(1 << 20, reader),
            line: 1,
            offset: 0,
            line_start: 0,
            carry: Vec::new(),
        }
    }

    pub fn io_error(&self, e: &io::Error) -> VercyError {
        VercyError::Read {
            path: self.name.clone(),
            reason: io_reason(e),
        }
    }

    /// Skip a UTF-8 byte-order mark and leading whitespace; return the first other byte
    /// without consuming it (`None` at the end of the input).
    pub fn skip_leading_space(&mut self) -> Result<Option<u8>> {
        let mut first_block = true;
        loop {
            let buf = fill(&mut self.reader, &self.name)?;
            if buf.is_empty() {
                return Ok(None);
            }
            let mut i = 0;
            if first_block && buf.starts_with(b"\xEF\xBB\xBF") {
                i = 3;
            }
            first_block = false;
            while i < buf.len() {
                // the reference strips the text's Unicode whitespace (`str.strip()`) before
                // it looks at the first character
                let width = match buf[i] {
                    b' ' | b'\t' | b'\r' | b'\n' => 1,
                    b if b < 0x80 => usize::from(crate::record::is_py_space(b as char)),
                    _ => leading_py_space(&buf[i..]),
                };
                if width == 0 {
                    break;
                }
                if buf[i] == b'\n' {
                    self.line += 1;
                    self.line_start = self.offset + i as u64 + 1;
                }
                i += width;
            }
            let found = buf.get(i).copied();
            self.reader.consume(i);
            self.offset += i as u64;
            if found.is_some() {
                return Ok(found);
            }
        }
    }

    /// Read about `want` bytes of whole lines into `block` (more when one line is longer; less
    /// at the end of the input, where the last line may lack its `\n`). Empty at the end.
    /// Leaves `line` and `offset` to the caller, which splits the block into lines.
    ///
    /// The input is read straight into the block, not through the buffered reader (whose
    /// bytes, if any, come first): a store's bytes are copied once, from the kernel. What
    /// follows the block's last line ending is carried over to the next block.
    pub fn read_block(&mut self, block: &mut Vec<u8>, want: usize) -> Result<()> {
        block.clear();
        block.append(&mut self.carry);
        let held = self.reader.buffer().len();
        block.extend_from_slice(self.reader.buffer());
        self.reader.consume(held);
        let mut goal = want;
        loop {
            let mut at_end = false;
            if block.len() < goal {
                let room = goal - block.len();
                block.reserve(room);
                let read = self
                    .reader
                    .get_mut()
                    .take(room as u64)
                    .read_to_end(block)
                    .map_err(|e| self.io_error(&e))?;
                at_end = read < room;
            }
            if at_end {
                return Ok(());
            }
            if let Some(last) = memchr::memrchr(b'\n', block) {
                self.carry.extend_from_slice(&block[last + 1..]);
                block.truncate(last + 1);
                return Ok(());
            }
            // no line ends in the block yet: it grows to finish one line, bounded
            if block.len() > want + MAX_LINE_BYTES {
                return Err(self.line_too_long());
            }
            goal = block.len() + want;
        }
    }

    /// Append up to `want` of the input's next bytes to `block` (the buffered reader's first,
    /// if any); returns how many, 0 at the end. Leaves the position to the caller.
    pub fn read_more(&mut self, block: &mut Vec<u8>, want: usize) -> Result<usize> {
        let held = self.reader.buffer();
        if !held.is_empty() {
            let n = held.len().min(want);
            block.extend_from_slice(&held[..n]);
            self.reader.consume(n);
            return Ok(n);
        }
        block.reserve(want);
        self.reader
            .get_mut()
            .take(want as u64)
            .read_to_end(block)
            .map_err(|e| self.io_error(&e))
    }

    fn line_too_long(&self) -> VercyError {
        VercyError::Shape {
            path: self.name.clone(),
            pos: crate::error::Position {
                line: self.line,
                column: 1,
            },
            message: format!(
                "a line longer than {} MiB without a line break",
                MAX_LINE_BYTES >> 20
            ),
            help: "a store holds one record per line; this is not a store, or a record too large to read".into(),
        }
    }

    /// Read one line (without its `\n`; a trailing `\r` is kept for the caller to strip) into
    /// `buf`. Returns false at the end of the input. Advances line and offset.
    pub fn next_line(&mut self, buf: &mut Vec<u8>) -> Result<bool> {
        buf.clear();
        let n = (&mut self.reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', buf)
            .map_err(|e| self.io_error(&e))?;
        if n == 0 {
            return Ok(false);
        }
        if n > MAX_LINE_BYTES {
            return Err(self.line_too_long());
        }
        self.offset += n as u64;
        self.line += 1;
        self.line_start = self.offset;
        if buf.last() == Some(&b'\n') {
            buf.pop();
        }
        Ok(true)
    }
}

/// The length of the Python whitespace character (`str.isspace`) that `bytes` start with, 0
/// when they start with anything else (or with a character cut off at the buffer's end).
pub fn leading_py_space(bytes: &[u8]) -> usize {
    let head = &bytes[..bytes.len().min(4)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
    };
    match text.chars().next() {
        Some(c) if crate::record::is_py_space(c) => c.len_utf8(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Blocks hold whole lines (the last may lack its `\n`), and together the input, once,
        /// whatever the block size and however the input was read before the first block.
        #[test]
        fn blocks_are_whole_lines_of_the_input(
            lines in proptest::collection::vec("[a-z]{0,40}", 0..40),
            final_newline: bool,
            want in 1usize..64,
            first_line: bool,
        ) {
            let mut text = lines.join("\n");
            if final_newline && !text.is_empty() {
                text.push('\n');
            }
            let mut src = Stream::over("t", Box::new(io::Cursor::new(text.clone().into_bytes())));
            let mut seen = Vec::new();
            if first_line && src.next_line(&mut seen).expect("line") {
                seen.push(b'\n');
            }
            let mut block = Vec::new();
            loop {
                src.read_block(&mut block, want).expect("block");
                if block.is_empty() {
                    break;
                }
                let ends_line = block.last() == Some(&b'\n');
                seen.extend_from_slice(&block);
                if !ends_line {
                    // only the input's last line goes without its line ending
                    src.read_block(&mut block, want).expect("block");
                    proptest::prop_assert!(block.is_empty());
                    break;
                }
            }
            let mut expected = text.into_bytes();
            // a one-line input read by `next_line` gained the line ending it lacked
            if first_line && !expected.is_empty() && !expected.contains(&b'\n') {
                expected.push(b'\n');
            }
            proptest::prop_assert_eq!(String::from_utf8_lossy(&seen), String::from_utf8_lossy(&expected));
        }
    }
}
