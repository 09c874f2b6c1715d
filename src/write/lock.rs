//! One writer of a store at a time: an exclusive advisory lock on a lock file beside the store,
//! held for a writer's whole read–merge–rename cycle.
//!
//! The lock is on `.STORE.vercy-lock`, never on the store itself: the rename that replaces the
//! store gives the name a new inode, and a second writer that locked the old one would go on
//! merging into a store that is no longer there. Every vercy writer of a file (import, export
//! and compact with `-o`) takes it; a second writer waits (saying so once) or, with
//! `--no-wait`, ends at once with an error.
//!
//! The lock file is kept after the write, on purpose: removing it races. A writer that opened
//! it and waits would get the lock on the removed inode while a third writer creates a new
//! lock file under the name and locks that one, and both would write the store at once. An
//! empty file per store is the price of a lock that cannot be split.
//!
//! Holding the lock also proves that no live writer holds a temporary file of the store (each
//! writer creates its temporary files only while it holds the lock), so the stale ones a
//! `kill -9` left are removed here, before the write starts.

use super::names;
use crate::error::{Result, VercyError};
use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

/// The lock of one store, held until dropped.
#[derive(Debug)]
pub struct StoreLock {
    // closing the file releases the lock
    _file: File,
}

impl StoreLock {
    /// Lock the store at `store` (its real path: no symbolic link as its last part), named
    /// `shown` in messages. `wait`: wait for another writer to finish, or fail at once.
    pub fn acquire(store: &Path, shown: &str, wait: bool) -> Result<StoreLock> {
        let (folder, name) = super::folder_and_name(store)?;
        let path = lock_path(store)?;
        let file = open(&path).map_err(|e| unwritable_folder(shown, &path, &e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) if !wait => {
                return Err(VercyError::Busy {
                    path: shown.to_string(),
                })
            }
            Err(TryLockError::WouldBlock) => {
                crate::output::notice(&format!(
                    "vercy: waiting for another vercy writing {shown}…"
                ));
                file.lock().map_err(|e| lock_error(shown, &path, &e))?;
            }
            Err(TryLockError::Error(e)) => return Err(lock_error(shown, &path, &e)),
        }
        remove_stale_temps(&folder, &name);
        Ok(StoreLock { _file: file })
    }
}

/// The lock file, created if missing. One that another user created may be readable only to
/// us: that is enough (flock locks a file opened read-only too).
fn open(path: &Path) -> io::Result<File> {
    match OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
    {
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied && path.exists() => File::open(path),
        other => other,
    }
}

/// Remove the temporary files of the store `name` in `folder` that no writer holds (the caller
/// holds the lock). A file that cannot be removed is left: it is in the way of nothing.
fn remove_stale_temps(folder: &Path, name: &std::ffi::OsStr) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        if names::is_temp_of(&entry.file_name(), name)
            && entry.file_type().is_ok_and(|t| t.is_file())
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn unwritable_folder(shown: &str, lock: &Path, e: &io::Error) -> VercyError {
    VercyError::Output {
        path: shown.to_string(),
        message: format!(
            "cannot create its lock file {}: {}",
            lock.display(),
            crate::error::io_reason(e)
        ),
        help: "vercy replaces a file through a lock file and a temporary file in the same \
               folder, so that folder must exist and be writable; write to a folder you may \
               write in, or pipe the output (`-o -`)"
            .into(),
    }
}

fn lock_error(shown: &str, lock: &Path, e: &io::Error) -> VercyError {
    VercyError::Output {
        path: shown.to_string(),
        message: format!(
            "cannot lock {}: {}",
            lock.display(),
            crate::error::io_reason(e)
        ),
        help: "the folder's file system must support file locks (flock); nothing was replaced"
            .into(),
    }
}

/// The lock file of the store at `store`.
pub fn lock_path(store: &Path) -> Result<PathBuf> {
    let (folder, name) = super::folder_and_name(store)?;
    Ok(folder.join(names::lock_name(&name)))
}
