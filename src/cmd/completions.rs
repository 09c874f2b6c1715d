//! `vercy completions SHELL`: shell completions generated from the clap definitions.

use super::Outcome;
use crate::cli::{Cli, CompletionsArgs};
use crate::error::Result;
use crate::output;
use clap::CommandFactory;

/// The completion script for one shell, as text.
pub fn script(shell: clap_complete::Shell) -> String {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "vercy", &mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

pub fn run(args: CompletionsArgs) -> Result<Outcome> {
    output::print_stdout(&script(args.shell))?;
    Ok(Outcome::Success)
}
