//! Writing, in one place: stdout, a file replaced atomically, or a device written through.
//!
//! A file is written to a temporary file in the same folder, flushed, fsynced and renamed over
//! the target, so an error, a full disk or a kill at any moment leaves either the old file or
//! the complete new one. The temporary file takes the target's owner, group and mode before it
//! is renamed (a new file's mode follows the umask, as the shell's `>` makes it). Ctrl-C removes
//! the temporary files of the writes in progress and ends with exit 130; the ones a `kill -9`
//! leaves are removed by the next writer of the same file (see [`lock`]).
//!
//! What kind of output a path is (replaced, written through or refused) is decided by
//! [`target::claim`]; one writer at a time is [`lock`]; the names beside the file are `names`;
//! a run of unchanged lines goes from a file to the output by [`copy::copy_range`].
//!
//! A store in a chosen format: one writer per format behind one trait ([`format::StoreWriter`]):
//! [`jsonl`] (JSON lines), [`json_array`] (a JSON array) and [`engrama`] (an engrama dump).

pub mod copy;
pub mod engrama;
pub mod format;
pub mod json_array;
pub mod jsonl;
pub mod lock;
mod names;
pub mod target;

use crate::error::{Result, VercyError};
use std::ffi::OsString;
use std::fs::{File, Metadata};
use std::io::{self, BufWriter, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};
use target::{PathKind, Target, WriteOptions};

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
            std::process::exit(crate::error::EXIT_INTERRUPTED as i32);
        });
    });
}

fn write_error(path: &Path, e: &io::Error) -> VercyError {
    VercyError::Write {
        path: path.display().to_string(),
        reason: crate::error::io_reason(e),
    }
}

/// The folder a file is in (`.` for a bare name) and its name.
pub(crate) fn folder_and_name(path: &Path) -> Result<(PathBuf, OsString)> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().ok_or_else(|| VercyError::Output {
        path: path.display().to_string(),
        message: "names no file".into(),
        help: "name the file to write, such as store.jsonl".into(),
    })?;
    Ok((folder, name.to_os_string()))
}

/// A file being replaced: write through [`AtomicFile::writer`], then [`AtomicFile::commit`].
/// Dropped without commit, the temporary file is removed and the target is untouched.
///
/// A writer creates one only while it holds the file's lock (see [`target::claim`]): the next
/// writer takes a temporary file it finds for one a killed writer left.
pub struct AtomicFile {
    target: PathBuf,
    temp: Option<Temp>,
    writer: Option<BufWriter<File>>,
}

enum Temp {
    /// Beside the target, renamed over it on commit.
    Beside(tempfile::NamedTempFile),
    /// The target is a device or a FIFO, which a rename would replace by a regular file: the
    /// bytes wait in an unnamed file (nothing is left behind, whatever ends the process) and
    /// are copied through on commit. Import needs it (its spool is read back while it is
    /// written); the other writers write a device straight through ([`Sink`]).
    Scratch,
}

impl AtomicFile {
    pub fn create(target: impl AsRef<Path>) -> Result<Self> {
        install_interrupt_handler();
        let target = target.as_ref();
        let failed = |e: io::Error| write_error(target, &e);
        let existing = match target::kind_of(target).map_err(failed)? {
            PathKind::Through => {
                let scratch = tempfile::tempfile().map_err(failed)?;
                return Ok(AtomicFile {
                    target: target.to_path_buf(),
                    temp: Some(Temp::Scratch),
                    writer: Some(BufWriter::with_capacity(1 << 20, scratch)),
                });
            }
            PathKind::File(meta) => Some(meta),
            PathKind::Missing => None,
            PathKind::Directory => {
                return Err(VercyError::Directory {
                    path: target.display().to_string(),
                })
            }
            PathKind::Dangling(to) => {
                return Err(target::dangling(&target.display().to_string(), &to))
            }
        };
        // through a symbolic link, the file it points to is the one replaced
        let target = target::real_path(target).map_err(failed)?;
        let (folder, name) = folder_and_name(&target)?;
        let prefix = names::temp_prefix(&name);
        let mut builder = tempfile::Builder::new();
        builder
            .prefix(&prefix)
            .suffix(names::TEMP_SUFFIX)
            .rand_bytes(names::RANDOM_LEN);
        #[cfg(unix)]
        {
            // a new file as the shell's `>` makes it (0666 less the umask); a file replaced
            // starts private and takes the old one's mode below
            use std::os::unix::fs::PermissionsExt;
            let mode = if existing.is_some() { 0o600 } else { 0o666 };
            builder.permissions(std::fs::Permissions::from_mode(mode));
        }
        // created and listed under the lock the Ctrl-C handler takes first: a signal never
        // falls between the file's creation and its listing (which would leave it behind)
        let mut in_progress = IN_PROGRESS.lock().unwrap_or_else(|e| e.into_inner());
        let temp = builder
            .tempfile_in(&folder)
            .map_err(|e| write_error(&target, &e))?;
        in_progress.push(temp.path().to_path_buf());
        drop(in_progress);
        let file = temp.as_file().try_clone();
        let mut atomic = AtomicFile {
            target,
            temp: Some(Temp::Beside(temp)),
            writer: None,
        };
        let file = file.map_err(|e| write_error(&atomic.target, &e))?;
        if let Some(meta) = &existing {
            // dropped on error: the temporary file goes with it
            keep_owner_and_mode(&file, meta).map_err(|e| not_kept(&atomic.target, meta, &e))?;
        }
        atomic.writer = Some(BufWriter::with_capacity(1 << 20, file));
        Ok(atomic)
    }

    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.writer.as_mut().expect("present until commit")
    }

    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flush, fsync, rename over the target, fsync the folder (or copy a device's bytes
    /// through).
    pub fn commit(mut self) -> Result<()> {
        let target = self.target.clone();
        let err = |e: io::Error| write_error(&target, &e);
        let writer = self.writer.take().expect("present until commit");
        let mut file = writer.into_inner().map_err(|e| err(e.into_error()))?;
        let temp = match self.temp.take().expect("present until commit") {
            Temp::Scratch => {
                file.rewind().map_err(err)?;
                let mut out = open_through(&target)?;
                return io::copy(&mut file, &mut out).map(drop).map_err(err);
            }
            Temp::Beside(temp) => temp,
        };
        // a failure here drops the temporary file, then its listing
        let synced = file.sync_all();
        let temp_path = temp.path().to_path_buf();
        if let Err(e) = synced {
            drop(temp);
            forget(&temp_path);
            return Err(err(e));
        }
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

/// Give the temporary file the owner, group and mode of the file it replaces, so that a
/// rewrite (by root, say) never changes who may read the store.
#[cfg(unix)]
fn keep_owner_and_mode(file: &File, of: &Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let mine = file.metadata()?;
    let uid = (mine.uid() != of.uid()).then_some(of.uid());
    let gid = (mine.gid() != of.gid()).then_some(of.gid());
    if uid.is_some() || gid.is_some() {
        std::os::unix::fs::fchown(file, uid, gid)?;
    }
    // after the owner: a change of owner clears the set-user-ID and set-group-ID bits
    file.set_permissions(of.permissions())
}

#[cfg(not(unix))]
fn keep_owner_and_mode(file: &File, of: &Metadata) -> io::Result<()> {
    file.set_permissions(of.permissions())
}

fn not_kept(target: &Path, of: &Metadata, e: &io::Error) -> VercyError {
    #[cfg(unix)]
    let what = {
        use std::os::unix::fs::MetadataExt;
        format!(
            "owner {}, group {} and mode {:04o}",
            of.uid(),
            of.gid(),
            of.mode() & 0o7777
        )
    };
    #[cfg(not(unix))]
    let what = format!("permissions {:?}", of.permissions());
    VercyError::Output {
        path: target.display().to_string(),
        message: format!(
            "cannot give the new file the old one's {what}: {}",
            crate::error::io_reason(e)
        ),
        help: "run vercy as the file's owner (or as root), so that the rewritten file keeps who \
               may read it; nothing was replaced"
            .into(),
    }
}

/// Open a device or a FIFO to write into it as it is (a FIFO waits here for its reader).
fn open_through(path: &Path) -> Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| write_error(path, &e))
}

fn forget(path: &Path) {
    IN_PROGRESS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|p| p != path);
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(Temp::Beside(temp)) = self.temp.take() {
            // removed, then unlisted: a signal in between finds nothing left to remove,
            // where the other order could end the process with the file still there
            let path = temp.path().to_path_buf();
            let _ = temp.close();
            forget(&path);
        }
    }
}

/// Where a command's data goes: stdout, a file replaced atomically (`-o`), or a device or
/// FIFO written straight through.
pub enum Sink {
    Stdout(BufWriter<io::Stdout>),
    /// The file, and its lock: held until the file is committed or dropped (its temporary
    /// file goes first).
    File(AtomicFile, Option<lock::StoreLock>),
    Through(BufWriter<File>, PathBuf),
}

/// A report written as it is made (`check -o`): the bytes go where [`Sink::write`] sends
/// them.
impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(w) => w.write(bytes),
            Sink::File(f, _) => f.writer().write(bytes),
            Sink::Through(w, _) => w.write(bytes),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush(),
            Sink::File(f, _) => f.writer().flush(),
            Sink::Through(w, _) => w.flush(),
        }
    }
}

impl Sink {
    /// `None` or `-`: stdout; else what [`target::claim`] makes of the path.
    pub fn open(output: Option<&str>, options: &WriteOptions) -> Result<Sink> {
        match output {
            None | Some("-") => Ok(Sink::Stdout(BufWriter::with_capacity(
                1 << 20,
                io::stdout(),
            ))),
            Some(path) => match target::claim(Path::new(path), options)?.into_parts() {
                (Target::Replace(real), lock) => Ok(Sink::File(AtomicFile::create(&real)?, lock)),
                (Target::Through(path), _) => Ok(Sink::Through(
                    BufWriter::with_capacity(1 << 20, open_through(&path)?),
                    path,
                )),
            },
        }
    }

    /// How messages name the output.
    pub fn name(&self) -> String {
        match self {
            Sink::Stdout(_) => "<stdout>".into(),
            Sink::File(f, _) => f.target().display().to_string(),
            Sink::Through(_, path) => path.display().to_string(),
        }
    }

    /// A closed reader ends the output quietly: stdout or a FIFO (`| head`).
    fn is_pipe(&self) -> bool {
        !matches!(self, Sink::File(..))
    }

    /// Write all of `bytes`. `Ok(false)`: stdout was closed by its reader (`| head`); stop
    /// writing and end quietly with success.
    pub fn write(&mut self, bytes: &[u8]) -> Result<bool> {
        let r = match self {
            Sink::Stdout(w) => w.write_all(bytes),
            Sink::File(f, _) => f.writer().write_all(bytes),
            Sink::Through(w, _) => w.write_all(bytes),
        };
        self.check(r)
    }

    /// What an I/O result means for the output: `Ok(false)` when its reader closed it.
    pub fn check(&self, r: io::Result<()>) -> Result<bool> {
        match r {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe && self.is_pipe() => Ok(false),
            Err(e) => Err(VercyError::Write {
                path: self.name(),
                reason: crate::error::io_reason(&e),
            }),
        }
    }

    /// Flush stdout or the device, or commit the file. A closed pipe is success.
    pub fn finish(self) -> Result<()> {
        match self {
            Sink::Stdout(mut w) => {
                let r = w.flush();
                Sink::Stdout(w).check(r).map(drop)
            }
            Sink::Through(mut w, path) => {
                let r = w.flush();
                Sink::Through(w, path).check(r).map(drop)
            }
            Sink::File(f, _lock) => f.commit(),
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
