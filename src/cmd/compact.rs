//! `vercy compact` (in progress).
#![allow(unused)]
use crate::error::{Result, VercyError};
use crate::Outcome;

pub fn run(_args: crate::cli::CompactArgs, _global: &crate::cli::GlobalArgs) -> Result<Outcome> {
    Err(VercyError::argument(
        "compact",
        "not built yet",
        "this subcommand is being built",
    ))
}
