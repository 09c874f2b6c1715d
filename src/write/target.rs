//! What kind of output a path is, decided in one place for every command that writes a file
//! (import's `--into`, export's and compact's `-o`):
//!
//! - a regular file, or none yet: replaced atomically (temporary file beside it, rename), under
//!   the store's lock; through a symbolic link, the file the link points to is replaced (the
//!   link stays a link and the real store is the one that changes);
//! - a character device, a FIFO, a socket (`/dev/null`, `/dev/stdout`, a named pipe): written
//!   straight through, never replaced (a rename would put a regular file where the device was);
//! - refused: a directory, a dangling symbolic link (naming the missing target), and a file
//!   with more than one name (a hard link) unless `--break-hardlinks`, because the rename would
//!   give this name a new file and leave the other names on the old one.

use super::lock::StoreLock;
use crate::error::{Result, VercyError};
use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};

/// How a writer meets another writer and a hard-linked file.
#[derive(Debug, Clone, Copy)]
pub struct WriteOptions {
    /// Wait for another writer of the same file (else fail at once).
    pub wait: bool,
    /// Replace a file that has other names too.
    pub break_hardlinks: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            wait: true,
            break_hardlinks: false,
        }
    }
}

/// Where the bytes go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A regular file (or none yet) at this path, with no symbolic link as its last part,
    /// replaced atomically.
    Replace(PathBuf),
    /// Not a regular file: opened and written as it is.
    Through(PathBuf),
}

impl Target {
    pub fn path(&self) -> &Path {
        match self {
            Target::Replace(p) | Target::Through(p) => p,
        }
    }
}

/// What a path names now, following symbolic links.
#[derive(Debug)]
pub(crate) enum PathKind {
    Missing,
    File(Metadata),
    Through,
    Directory,
    /// A symbolic link (perhaps through others) whose target does not exist: the link's text.
    Dangling(PathBuf),
}

pub(crate) fn kind_of(path: &Path) -> io::Result<PathKind> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Ok(PathKind::Directory),
        Ok(meta) if meta.is_file() => Ok(PathKind::File(meta)),
        Ok(_) => Ok(PathKind::Through),
        Err(e) if e.kind() == io::ErrorKind::NotFound => match std::fs::symlink_metadata(path) {
            Ok(link) if link.file_type().is_symlink() => {
                Ok(PathKind::Dangling(std::fs::read_link(path)?))
            }
            _ => Ok(PathKind::Missing),
        },
        Err(e) => Err(e),
    }
}

/// The regular file a path names: through a symbolic link, the file it points to.
pub(crate) fn real_path(path: &Path) -> io::Result<PathBuf> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        std::fs::canonicalize(path)
    } else {
        Ok(path.to_path_buf())
    }
}

/// An output decided on, and locked when it is replaced: hold it for the whole write.
#[derive(Debug)]
pub struct Claim {
    pub target: Target,
    /// The file is there already (a store to merge into); `false` for a device or a FIFO,
    /// which hold no store to read.
    pub exists: bool,
    // dropped last by whoever holds the claim: after the write's temporary files
    lock: Option<StoreLock>,
}

impl Claim {
    /// The target, and the lock to hold until the write is committed.
    pub fn into_parts(self) -> (Target, Option<StoreLock>) {
        (self.target, self.lock)
    }
}

/// Decide what `path` is as an output, lock it when it is to be replaced (waiting for another
/// writer as `options` say), and refuse what must not be replaced.
pub fn claim(path: &Path, options: &WriteOptions) -> Result<Claim> {
    let shown = path.display().to_string();
    if path.file_name().is_none() {
        return Err(VercyError::Output {
            path: shown,
            message: "names no file".into(),
            help: "name the file to write, such as store.jsonl".into(),
        });
    }
    let failed = |e: io::Error| VercyError::Write {
        path: shown.clone(),
        reason: crate::error::io_reason(&e),
    };
    match kind_of(path).map_err(failed)? {
        PathKind::Directory => Err(VercyError::Directory { path: shown }),
        PathKind::Dangling(to) => Err(dangling(&shown, &to)),
        PathKind::Through => Ok(Claim {
            target: Target::Through(path.to_path_buf()),
            exists: false,
            lock: None,
        }),
        PathKind::Missing | PathKind::File(_) => {
            let real = real_path(path).map_err(failed)?;
            let lock = StoreLock::acquire(&real, &shown, options.wait)?;
            // decided again under the lock: the file as it is now is the one replaced
            let exists = match kind_of(&real).map_err(failed)? {
                PathKind::Missing => false,
                PathKind::File(meta) => {
                    let names = link_count(&meta);
                    if names > 1 && !options.break_hardlinks {
                        return Err(hard_linked(&shown, names));
                    }
                    true
                }
                _ => {
                    return Err(VercyError::Output {
                        path: shown,
                        message: "was replaced by something other than a file while vercy \
                                  waited for its lock"
                            .into(),
                        help: "run the command again".into(),
                    })
                }
            };
            Ok(Claim {
                target: Target::Replace(real),
                exists,
                lock: Some(lock),
            })
        }
    }
}

#[cfg(unix)]
fn link_count(meta: &Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

#[cfg(not(unix))]
fn link_count(_: &Metadata) -> u64 {
    1
}

pub(crate) fn dangling(shown: &str, to: &Path) -> VercyError {
    VercyError::Output {
        path: shown.to_string(),
        message: format!(
            "is a symbolic link to {}, which does not exist",
            to.display()
        ),
        help: "create the link's target first, point the link at an existing file, or name \
               the file itself instead of the link"
            .into(),
    }
}

fn hard_linked(shown: &str, names: u64) -> VercyError {
    VercyError::Output {
        path: shown.to_string(),
        message: format!(
            "has {names} names (hard links); replacing it atomically would give this name a new \
             file and leave the other {} on the old one",
            if names == 2 { "name" } else { "names" }
        ),
        help: "pass --break-hardlinks to replace it under this name only, or write to another \
               path; nothing was written"
            .into(),
    }
}
