//! `vercy mcp`: serve the profile's tools to agents over stdio until stdin ends.

use crate::error::Result;
use crate::Outcome;
use std::io;

pub fn run(_args: crate::cli::McpArgs) -> Result<Outcome> {
    crate::mcp::serve(io::stdin().lock(), io::stdout().lock())?;
    Ok(Outcome::Success)
}
