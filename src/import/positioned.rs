//! Reading a line back from where it lies: the store file as it was (through a window of the
//! bytes around the last place read) or the spool.

use super::{write_error, Loc, Store};
use crate::error::Result;
use crate::file_at::{read_at, read_some_at};
use std::fs::File;
use std::io::{self, Write};

impl Store {
    /// The text of line `i` of a table.
    pub(super) fn text_at(&mut self, table: usize, i: usize) -> Result<String> {
        let at = self.tables[table].places[i];
        self.read(at)
    }

    pub(super) fn read(&mut self, at: Loc) -> Result<String> {
        if !at.in_store() {
            self.flush_run()?;
        }
        self.read_flushed(at)
            .map_err(|e| write_error(&self.target, &e))
    }

    pub(super) fn read_flushed(&mut self, at: Loc) -> io::Result<String> {
        let mut buf = vec![0u8; at.len() as usize];
        if at.in_store() {
            let file = self.file.as_ref().ok_or(io::ErrorKind::NotFound)?;
            self.window.read(file, at.pos(), &mut buf)?;
        } else {
            let spool = self.spool.as_mut().ok_or(io::ErrorKind::NotFound)?;
            let w = spool.file.writer();
            // the spool's last lines may still be in its buffer
            let flushed = spool.len - w.buffer().len() as u64;
            if at.pos() >= flushed {
                let from = (at.pos() - flushed) as usize;
                let len = buf.len();
                buf.copy_from_slice(&w.buffer()[from..from + len]);
            } else {
                if at.pos() + u64::from(at.len()) > flushed {
                    w.flush()?;
                }
                read_at(w.get_ref(), at.pos(), &mut buf)?;
            }
        }
        String::from_utf8(buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}
/// Bytes of a file around the last place read.
#[derive(Default)]
pub(super) struct Window {
    pos: u64,
    bytes: Vec<u8>,
}

/// Bytes a window holds: a few dozen lines, so that reading it costs little more than
/// reading one line when the next line wanted is elsewhere.
const WINDOW: usize = 32 << 10;

impl Window {
    /// Fill `buf` from `pos`: from the window when it holds those bytes, else from the file
    /// (a window from `pos` on, when `buf` fits in one).
    pub(super) fn read(&mut self, file: &File, pos: u64, buf: &mut [u8]) -> io::Result<()> {
        let held = pos
            .checked_sub(self.pos)
            .and_then(|from| usize::try_from(from).ok())
            .and_then(|from| self.bytes.get(from..from.checked_add(buf.len())?));
        if let Some(held) = held {
            buf.copy_from_slice(held);
            return Ok(());
        }
        if buf.len() > WINDOW {
            return read_at(file, pos, buf);
        }
        self.bytes.resize(WINDOW, 0);
        let mut filled = 0;
        while filled < buf.len() {
            match read_some_at(file, pos + filled as u64, &mut self.bytes[filled..]) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.bytes.clear();
                    return Err(e);
                }
            }
        }
        self.bytes.truncate(filled);
        self.pos = pos;
        buf.copy_from_slice(&self.bytes[..buf.len()]);
        Ok(())
    }
}
