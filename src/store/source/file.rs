//! The sources whose bytes are the store's own: a file named by its path, stdin (`-`), and
//! bytes a library caller holds in memory.

use super::{Opened, Select, Source};
use crate::error::{io_reason, Result, VercyError};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A file, named by its path: any argument no other source knows.
#[derive(Debug)]
pub struct File(PathBuf);

impl File {
    pub fn new(path: impl Into<PathBuf>) -> File {
        File(path.into())
    }
}

impl Source for File {
    fn open(&self, name: &str, _select: &Select) -> Result<Opened> {
        let failed = |e: io::Error| VercyError::Read {
            path: name.to_string(),
            reason: io_reason(&e),
        };
        let meta = std::fs::metadata(&self.0).map_err(failed)?;
        if meta.is_dir() {
            return Err(VercyError::Directory {
                path: name.to_string(),
            });
        }
        let file = std::fs::File::open(&self.0).map_err(failed)?;
        Ok(Opened::Bytes(Box::new(file)))
    }

    fn file(&self) -> Option<&Path> {
        Some(&self.0)
    }
}

/// Standard input, named `-`: read once.
#[derive(Debug)]
pub struct Stdin;

/// `-` names stdin.
pub fn stdin(arg: &str) -> Option<Box<dyn Source>> {
    (arg == "-").then(|| Box::new(Stdin) as Box<dyn Source>)
}

impl Source for Stdin {
    fn open(&self, _name: &str, _select: &Select) -> Result<Opened> {
        Ok(Opened::Bytes(Box::new(io::stdin())))
    }

    fn display(&self, _arg: &str) -> String {
        "<stdin>".into()
    }

    fn is_pipe(&self) -> bool {
        true
    }
}

/// A store's bytes already in memory (text an agent sent, a fuzz case): named by no argument.
#[derive(Debug)]
pub struct Memory(Arc<[u8]>);

impl Memory {
    pub fn new(bytes: Arc<[u8]>) -> Memory {
        Memory(bytes)
    }
}

impl Source for Memory {
    fn open(&self, _name: &str, _select: &Select) -> Result<Opened> {
        Ok(Opened::Bytes(Box::new(io::Cursor::new(Arc::clone(
            &self.0,
        )))))
    }
}
