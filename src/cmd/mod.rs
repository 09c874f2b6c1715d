//! One file per subcommand, each a short composition of the library's parts.

pub mod check;
pub mod compact;
pub mod completions;
pub mod decay;
pub mod diff;
pub mod export;
pub mod import;
pub mod map;
pub mod mcp;
pub mod merge_reports;
pub mod profile;
pub mod recency;
pub mod resolve;
pub mod split;
pub mod status;

use crate::error::Result;
use crate::output;
use crate::write::target::WriteOptions;
use crate::write::Sink;
use std::io::{self, Write};

/// Write a report to stdout, or to `output` (`-o`: replaced atomically, as export's is).
pub(crate) fn write_to(
    output: Option<&str>,
    write: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    match output {
        None | Some("-") => output::write_stdout(write),
        Some(path) => {
            let mut sink = Sink::open(Some(path), &WriteOptions::default())?;
            let written = write(&mut sink);
            sink.check(written)?;
            sink.finish()
        }
    }
}

/// How a command ended (the written exit-code contract).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// 0: done; for check, every store reached the level asked for.
    Success,
    /// 1: check found a store below --min-level (or without records).
    BelowLevel,
    /// 2: some input could not be read; its diagnostic has already been printed.
    Unreadable,
}

impl Outcome {
    pub fn code(self) -> u8 {
        match self {
            Outcome::Success => 0,
            Outcome::BelowLevel => 1,
            Outcome::Unreadable => crate::error::EXIT_ERROR,
        }
    }
}
