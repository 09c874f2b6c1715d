//! `vercy completions` (in progress).
#![allow(unused)]
use crate::error::{Result, VercyError};
use crate::Outcome;

pub fn run(_args: crate::cli::CompletionsArgs) -> Result<Outcome> {
    Err(VercyError::argument(
        "completions",
        "not built yet",
        "this subcommand is being built",
    ))
}
