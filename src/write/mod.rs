//! Writing, in one place: stdout or a file replaced atomically.
//!
//! A file is written to a temporary file in the same folder, flushed, fsynced and renamed over
//! the target, so an error, a full disk or a kill at any moment leaves either the old file or
//! the complete new one. Ctrl-C removes the temporary files of the writes in progress and ends
//! with exit 130.

use crate::error::{Result, VercyError};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

/// Temporary files of writes in progress, removed on Ctrl-C.
static IN_PROGRESS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static HANDLER: Once = Once::new();

/// Install the Ctrl-C handler (once): remove temporary files, exit 130.
pub fn install_interrupt_handler() {
    HANDLER.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            // a lock a panicking thread left poisoned still lists the files
            let paths = IN_PROGRESS.lock().unwrap_or_else(|e| e.into_inner());
            for p in paths.iter() {
                let _ = std::fs::remove_file(p);
            }
            std::process::exit(crate::EXIT_INTERRUPTED as i32);
        });
    });
}

fn write_error(path: &Path, e: &io::Error) -> VercyError {
    VercyError::Write {
        path: path.display().to_string(),
        reason: crate::store::input_reason(e),
    }
}

/// A file being replaced: write through [`AtomicFile::writer`], then [`AtomicFile::commit`].
/// Dropped without commit, the temporary file is removed and the target is untouched.
pub struct AtomicFile {
    target: PathBuf,
    temp: Option<tempfile::NamedTempFile>,
    writer: Option<BufWriter<File>>,
}

impl AtomicFile {
    pub fn create(target: impl AsRef<Path>) -> Result<Self> {
        install_interrupt_handler();
        let target = target.as_ref().to_path_buf();
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // created and listed under the lock the Ctrl-C handler takes first: a signal never
        // falls between the file's creation and its listing (which would leave it behind)
        let mut in_progress = IN_PROGRESS.lock().unwrap_or_else(|e| e.into_inner());
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".vercy-tmp")
            .tempfile_in(&dir)
            .map_err(|e| write_error(&target, &e))?;
        in_progress.push(temp.path().to_path_buf());
        drop(in_progress);
        let file = temp
            .as_file()
            .try_clone()
            .map_err(|e| write_error(&target, &e))?;
        Ok(AtomicFile {
            target,
            temp: Some(temp),
            writer: Some(BufWriter::with_capacity(1 << 20, file)),
        })
    }

    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.writer.as_mut().expect("present until commit")
    }

    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flush, fsync, keep the target's permissions, rename over the target, fsync the folder.
    pub fn commit(mut self) -> Result<()> {
        let target = self.target.clone();
        let err = |e: io::Error| write_error(&target, &e);
        let writer = self.writer.take().expect("present until commit");
        let file = writer.into_inner().map_err(|e| err(e.into_error()))?;
        file.sync_all().map_err(err)?;
        let temp = self.temp.take().expect("present until commit");
        if let Ok(meta) = std::fs::metadata(&target) {
            let _ = std::fs::set_permissions(temp.path(), meta.permissions());
        }
        let temp_path = temp.path().to_path_buf();
        // renamed and unlisted under the handler's lock: a Ctrl-C then either comes first
        // (the handler removes the file and ends the process while holding the lock, so the
        // rename never happens) or after (the new file is whole; nothing is left to remove)
        let persisted = {
            let mut in_progress = IN_PROGRESS.lock().unwrap_or_else(|e| e.into_inner());
            let persisted = temp.persist(&target);
            if persisted.is_ok() {
                in_progress.retain(|p| p != &temp_path);
            }
            persisted
        };
        if let Err(e) = persisted {
            // the temporary file goes with the error, then its listing
            let error = err(e.error);
            drop(e.file);
            forget(&temp_path);
            return Err(error);
        }
        if let Some(dir) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

fn forget(path: &Path) {
    IN_PROGRESS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|p| p != path);
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            // removed, then unlisted: a signal in between finds nothing left to remove,
            // where the other order could end the process with the file still there
            let path = temp.path().to_path_buf();
            let _ = temp.close();
            forget(&path);
        }
    }
}

/// Where a command's data goes: stdout, or a file replaced atomically (`-o`).
pub enum Sink {
    Stdout(BufWriter<io::Stdout>),
    File(AtomicFile),
}

impl Sink {
    /// `None` or `-`: stdout.
    pub fn open(output: Option<&str>) -> Result<Sink> {
        match output {
            None | Some("-") => Ok(Sink::Stdout(BufWriter::with_capacity(
                1 << 20,
                io::stdout(),
            ))),
            Some(path) => Ok(Sink::File(AtomicFile::create(path)?)),
        }
    }

    fn name(&self) -> String {
        match self {
            Sink::Stdout(_) => "<stdout>".into(),
            Sink::File(f) => f.target().display().to_string(),
        }
    }

    /// Write all of `bytes`. `Ok(false)`: stdout was closed by its reader (`| head`); stop
    /// writing and end quietly with success.
    pub fn write(&mut self, bytes: &[u8]) -> Result<bool> {
        let r = match self {
            Sink::Stdout(w) => w.write_all(bytes),
            Sink::File(f) => f.writer().write_all(bytes),
        };
        self.check(r)
    }

    fn check(&self, r: io::Result<()>) -> Result<bool> {
        match r {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe && matches!(self, Sink::Stdout(_)) => {
                Ok(false)
            }
            Err(e) => Err(VercyError::Write {
                path: self.name(),
                reason: crate::store::input_reason(&e),
            }),
        }
    }

    /// Flush stdout, or commit the file. A closed pipe is success.
    pub fn finish(self) -> Result<()> {
        match self {
            Sink::Stdout(mut w) => match w.flush() {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                Err(e) => Err(VercyError::Write {
                    path: "<stdout>".into(),
                    reason: crate::store::input_reason(&e),
                }),
            },
            Sink::File(f) => f.commit(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_uncommitted_write_leaves_the_old_file_and_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.jsonl");
        std::fs::write(&path, "old\n").unwrap();
        {
            let mut f = AtomicFile::create(&path).unwrap();
            f.writer().write_all(b"new, half written").unwrap();
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let mut f = AtomicFile::create(&path).unwrap();
        f.writer().write_all(b"new\n").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
