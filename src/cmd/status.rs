//! `vercy status` (in progress).
#![allow(unused)]
use crate::error::{Result, VercyError};
use crate::Outcome;

pub fn run(_args: crate::cli::StatusArgs, _global: &crate::cli::GlobalArgs) -> Result<Outcome> {
    Err(VercyError::argument(
        "status",
        "not built yet",
        "this subcommand is being built",
    ))
}
