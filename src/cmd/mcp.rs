//! `vercy mcp` (in progress).
#![allow(unused)]
use crate::error::{Result, VercyError};
use crate::Outcome;

pub fn run(_args: crate::cli::McpArgs) -> Result<Outcome> {
    Err(VercyError::argument(
        "mcp",
        "not built yet",
        "this subcommand is being built",
    ))
}
