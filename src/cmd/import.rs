//! `vercy import` (in progress).
#![allow(unused)]
use crate::error::{Result, VercyError};
use crate::Outcome;

pub fn run(_args: crate::cli::ImportArgs, _global: &crate::cli::GlobalArgs) -> Result<Outcome> {
    Err(VercyError::argument(
        "import",
        "not built yet",
        "this subcommand is being built",
    ))
}
