//! Reading a file at a place, whoever else reads or writes it: the import reads lines back
//! from the store and the spool it is writing, and the conflict check reads its temporary
//! file's partitions on every core at once.

use std::fs::File;
use std::io;
#[cfg(windows)]
use std::io::{Seek, SeekFrom};

/// Some bytes from `pos` into `buf` (0: the file ends there).
#[cfg(unix)]
pub fn read_some_at(file: &File, pos: u64, buf: &mut [u8]) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, pos)
}

#[cfg(windows)]
pub fn read_some_at(file: &File, pos: u64, buf: &mut [u8]) -> io::Result<usize> {
    let mut f = file;
    let back = f.stream_position()?;
    let n = std::os::windows::fs::FileExt::seek_read(file, buf, pos)?;
    f.seek(SeekFrom::Start(back))?;
    Ok(n)
}

/// `buf.len()` bytes from `pos`, or an error (`UnexpectedEof` past the end).
#[cfg(unix)]
pub fn read_at(file: &File, pos: u64, buf: &mut [u8]) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, pos)
}

#[cfg(windows)]
pub fn read_at(file: &File, pos: u64, buf: &mut [u8]) -> io::Result<()> {
    // seek_read moves the file's cursor: put it back for the writer that shares it
    let mut f = file;
    let back = f.stream_position()?;
    let mut done = 0;
    while done < buf.len() {
        match std::os::windows::fs::FileExt::seek_read(file, &mut buf[done..], pos + done as u64)? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => done += n,
        }
    }
    f.seek(SeekFrom::Start(back))?;
    Ok(())
}
