//! Writing the merged store over its file, atomically: the spool renamed as it is when it
//! already holds the new store in order, else the store written once more from the places.

use super::{write_error, Store, StoreKind};
use crate::error::Result;
use crate::write::copy::copy_range;
use crate::write::AtomicFile;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};

impl Store {
    /// Write the store over its file, atomically: graph stores as engrama orders a dump
    /// (envelope, nodes, relations, vectors), flat stores one record per line.
    pub fn write(mut self) -> Result<()> {
        self.flush_run()?;
        let envelope = match (self.kind, &self.envelope) {
            (StoreKind::Graph, Some((at, _))) => Some(*at),
            _ => None,
        };
        let places = || {
            envelope
                .into_iter()
                .chain(self.tables.iter().flat_map(|t| t.places.iter().copied()))
        };
        // The spool is the new store when it holds every line once, in order, and nothing else
        let mut next = 0;
        let in_order = places().all(|at| {
            let ok = !at.in_store() && at.pos() == next;
            next = at.pos() + u64::from(at.len()) + 1;
            ok
        });
        if in_order && next == self.spool.as_ref().map_or(0, |s| s.len) {
            return match self.spool.take() {
                Some(spool) => spool.file.commit(),
                None => AtomicFile::create(&self.target)?.commit(),
            };
        }
        let mut out = AtomicFile::create(&self.target)?;
        let target = self.target.clone();
        let failed = |e: io::Error| write_error(&target, &e);
        let spool = match &mut self.spool {
            Some(spool) => {
                let w = spool.file.writer();
                w.flush().map_err(failed)?;
                Some(Reader::new(w.get_ref()).map_err(failed)?)
            }
            None => None,
        };
        let store = match &self.file {
            Some(file) => Some(Reader::new(file).map_err(failed)?),
            None => None,
        };
        let mut sources = [spool, store];
        let w = out.writer();
        // consecutive lines of one file go in one copy
        let mut run: Option<(bool, u64, u64)> = None;
        let mut copy = |run: (bool, u64, u64)| -> io::Result<()> {
            let (in_store, start, end) = run;
            let source = sources[usize::from(in_store)]
                .as_mut()
                .ok_or(io::ErrorKind::NotFound)?;
            source.copy(start, end, w)?;
            w.write_all(b"\n")
        };
        for at in places() {
            let end = at.pos() + u64::from(at.len());
            match &mut run {
                Some((in_store, _, run_end))
                    if *in_store == at.in_store() && *run_end + 1 == at.pos() =>
                {
                    *run_end = end;
                }
                _ => {
                    if let Some(done) = run.replace((at.in_store(), at.pos(), end)) {
                        copy(done).map_err(failed)?;
                    }
                }
            }
        }
        if let Some(done) = run {
            copy(done).map_err(failed)?;
        }
        out.commit()
    }
}
/// Runs of at least this many bytes are copied by the kernel.
const KERNEL_COPY: u64 = 4 << 20;

/// A file read in order, with the odd step back (a line replaced later in the spool).
pub(super) struct Reader<'a> {
    inner: BufReader<&'a File>,
    pos: u64,
}

impl<'a> Reader<'a> {
    pub(super) fn new(file: &'a File) -> io::Result<Reader<'a>> {
        let mut inner = BufReader::with_capacity(1 << 20, file);
        inner.seek(SeekFrom::Start(0))?;
        Ok(Reader { inner, pos: 0 })
    }

    /// Copy bytes `start..end` to `out`.
    pub(super) fn copy(
        &mut self,
        start: u64,
        end: u64,
        out: &mut BufWriter<File>,
    ) -> io::Result<()> {
        if end - start >= KERNEL_COPY {
            // a long run of lines goes from file to file in the kernel (copy_file_range where
            // there is one), without passing through this process
            let copied = copy_range(self.inner.get_ref(), start, end, out)?;
            if copied != end - start {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            self.inner.seek(SeekFrom::Start(end))?;
            self.pos = end;
            return Ok(());
        }
        if start != self.pos {
            self.inner.seek_relative(start as i64 - self.pos as i64)?;
            self.pos = start;
        }
        while self.pos < end {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let n = buf.len().min((end - self.pos) as usize);
            out.write_all(&buf[..n])?;
            self.inner.consume(n);
            self.pos += n as u64;
        }
        Ok(())
    }
}
