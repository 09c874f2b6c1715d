//! The spool: the lines of the new store appended as they come, in a temporary file beside it;
//! a run of dump lines kept as their own bytes is copied there from the dump file.

use super::{too_long, write_error, Loc, MergeLine, Store};
use crate::error::Result;
use crate::write::copy::copy_range;
use crate::write::AtomicFile;
use std::io::{self, Write};

/// The spool: lines appended as they come, in a temporary file in the store's folder.
pub(super) struct Spool {
    pub(super) file: AtomicFile,
    pub(super) len: u64,
}

impl Spool {
    /// The place of the next line of `len` bytes (and its `\n`), counted as written.
    pub(super) fn place(&mut self, len: u32) -> Loc {
        let at = Loc::new(self.len, len, false);
        self.len += u64::from(len) + 1;
        at
    }
}

impl Store {
    /// Where a line is: its own bytes in the store file, or appended to the spool.
    pub(super) fn place(&mut self, line: &MergeLine) -> Result<Loc> {
        match line.stored {
            Some(at) => Ok(at),
            None => self.append(&line.text),
        }
    }

    /// Append a line of the dump to the spool by where it lies in the dump file: lines that
    /// follow one another there are copied together, by the kernel, when the run ends.
    pub(super) fn append_copy(&mut self, from: u64, text: &str) -> Result<Loc> {
        let len = u32::try_from(text.len()).map_err(|_| too_long(&self.target))?;
        let end = from + u64::from(len);
        match &mut self.run {
            // the one byte between two lines of the dump is the first one's line feed
            Some((_, run_end)) if *run_end + 1 == from => *run_end = end,
            _ => {
                self.flush_run()?;
                self.run = Some((from, end));
            }
        }
        let spool = self.spool_or_new()?;
        Ok(spool.place(len))
    }

    /// Copy the pending run of dump lines to the spool (its place there was counted already).
    pub(super) fn flush_run(&mut self) -> Result<()> {
        let Some((start, end)) = self.run.take() else {
            return Ok(());
        };
        let target = self.target.clone();
        let failed = |e: io::Error| write_error(&target, &e);
        let (Some(dump), Some(spool)) = (self.dump.as_ref(), self.spool.as_mut()) else {
            return Err(failed(io::ErrorKind::NotFound.into()));
        };
        let w = spool.file.writer();
        let copied = copy_range(dump, start, end, w).map_err(failed)?;
        if copied != end - start {
            // the dump changed under the import
            return Err(failed(io::ErrorKind::UnexpectedEof.into()));
        }
        w.write_all(b"\n").map_err(failed)
    }

    pub(super) fn spool_or_new(&mut self) -> Result<&mut Spool> {
        let spool = match self.spool.take() {
            Some(spool) => spool,
            None => Spool {
                file: AtomicFile::create(&self.target)?,
                len: 0,
            },
        };
        Ok(self.spool.insert(spool))
    }

    /// Append a line to the spool (made on the first line).
    pub(super) fn append(&mut self, text: &str) -> Result<Loc> {
        self.flush_run()?;
        let spool = match &mut self.spool {
            Some(spool) => spool,
            None => self.spool.insert(Spool {
                file: AtomicFile::create(&self.target)?,
                len: 0,
            }),
        };
        let len = u32::try_from(text.len()).map_err(|_| too_long(&self.target))?;
        let w = spool.file.writer();
        w.write_all(text.as_bytes())
            .and_then(|()| w.write_all(b"\n"))
            .map_err(|e| write_error(&self.target, &e))?;
        Ok(spool.place(len))
    }
}
