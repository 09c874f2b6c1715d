//! Copying a run of unchanged lines from a file to an output, by the kernel where it can.
//!
//! import (dump lines into its spool, and the spool and the old store into the new store)
//! and export (a store's lines to its output) both write lines exactly as a file holds them;
//! rather than reading them into this process and writing them out again, they hand the run
//! of bytes to [`copy_range`].

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

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
