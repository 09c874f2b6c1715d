//! Copying a run of unchanged lines from a file to an output, by the kernel where it can.
//!
//! import (dump lines into its spool, and the spool and the old store into the new store)
//! and export (a store's lines to its output) both write lines exactly as a file holds them;
//! rather than reading them into this process and writing them out again, they hand the run
//! of bytes to [`copy_range`]. [`UnchangedRuns`] gathers export's lines into those runs.

use super::Sink;
use crate::error::{Result, VercyError};
use crate::store::Input;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Copy bytes `start..end` of `file` to `out`; the bytes copied are returned, and fewer than
/// asked means the file is shorter than it was when the run was noted (it changed meanwhile).
///
/// `out` stays a concrete type (generic, never `dyn Write`): the standard library moves the
/// bytes file to file in the kernel (copy_file_range, sendfile or splice where there is one)
/// only when it can see that both ends are files or pipes, a `BufWriter` around one included.
pub fn copy_range<W: Write + ?Sized>(
    file: &File,
    start: u64,
    end: u64,
    out: &mut W,
) -> io::Result<u64> {
    let mut file = file;
    file.seek(SeekFrom::Start(start))?;
    io::copy(&mut file.take(end - start), out)
}

/// Lines written exactly as the store file holds them (a format that writes each line as its
/// text and a line feed, lines the reader took apart in its blocks): copied from the file by
/// the kernel, a run of consecutive lines at a time, rather than written from memory.
pub struct UnchangedRuns {
    file: Option<File>,
    run: Option<(u64, u64)>,
    /// The store's path, until the file opened here is known to be the one the reader reads.
    unchecked: Option<PathBuf>,
}

impl UnchangedRuns {
    pub fn new(input: &Input, writes_lines: bool) -> UnchangedRuns {
        let path = input
            .path()
            .filter(|_| writes_lines)
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()));
        let file = path.and_then(|p| File::open(p).ok());
        UnchangedRuns {
            file,
            run: None,
            unchecked: path.map(Path::to_path_buf),
        }
    }

    /// Called once the reader has read from the store (it opened the path after this did): a
    /// writer that replaced the store in between gave the path a new file, and copying lines
    /// from the old one at the new one's offsets would mix the two. The path still naming the
    /// file opened here proves both read the same one; else the lines are written from what
    /// the reader read.
    pub fn can_copy(&mut self) -> bool {
        if let (Some(path), Some(file)) = (self.unchecked.take(), &self.file) {
            if !same_file(&path, file) {
                self.file = None;
            }
        }
        self.file.is_some()
    }

    /// The line at `start`, `len` bytes long, joins the run (the one byte between two lines of
    /// the file is the first one's line feed). `Ok(false)`: the output was closed.
    pub fn take(&mut self, start: u64, len: u64, sink: &mut Sink) -> Result<bool> {
        match &mut self.run {
            Some((_, end)) if *end + 1 == start => {
                *end = start + len;
                Ok(true)
            }
            _ => {
                let open = self.flush(sink)?;
                self.run = Some((start, start + len));
                Ok(open)
            }
        }
    }

    /// Copy the run, and its last line feed. `Ok(false)`: the output was closed.
    pub fn flush(&mut self, sink: &mut Sink) -> Result<bool> {
        let (Some((start, end)), Some(file)) = (self.run.take(), self.file.as_ref()) else {
            return Ok(true);
        };
        let copied = match sink {
            Sink::Stdout(w) => copy_range(file, start, end, w),
            Sink::File(f, _) => copy_range(file, start, end, f.writer()),
            Sink::Through(w, _) => copy_range(file, start, end, w),
        };
        match copied {
            Ok(n) if n == end - start => sink.write(b"\n"),
            // the store changed under the export
            Ok(_) => Err(VercyError::Write {
                path: sink.name(),
                reason: "the store file changed while it was read".into(),
            }),
            Err(e) => sink.check(Err(e)),
        }
    }
}

#[cfg(unix)]
fn same_file(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &Path, _: &File) -> bool {
    true
}
