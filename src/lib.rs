//! vercy: check, compact, export and import agent-memory stores against the additive profile.
//!
//! `run` takes a parsed command line and returns the exit code, so tests can call it; the
//! binary's `main` only parses and calls [`main_entry`].

// Errors carry the offending line for their diagnostic; they are built once, on the way out.
#![allow(clippy::result_large_err)]
// `eprintln!` and `println!` panic on a closed pipe: stderr goes through output::print_stderr
// and stdout through output::print_stdout or a write::Sink, which do not.
#![deny(clippy::print_stderr, clippy::print_stdout)]

pub mod bytes;
pub mod check;
pub mod cli;
pub mod cmd;
pub mod compact;
pub mod decay;
pub mod diff;
pub mod error;
pub mod file_at;
pub mod formats;
pub mod help;
pub mod html;
pub mod import;
pub mod mapping;
pub mod mcp;
pub mod output;
pub mod profile;
pub mod progress;
pub mod python;
pub mod recency;
pub mod record;
pub mod resolve;
pub mod select;
pub mod spill;
pub mod store;
pub mod text;
pub mod time;
pub mod write;

use std::process::ExitCode;

pub use cmd::Outcome;
pub use error::{EXIT_ERROR, EXIT_INTERRUPTED};

/// Run a parsed command line.
pub fn run(cli: cli::Cli) -> error::Result<Outcome> {
    use cli::Command::*;
    output::configure(cli.global.color, cli.global.progress, cli.global.quiet);
    match cli.command {
        Check(args) => cmd::check::run(args, &cli.global),
        Split(args) => cmd::split::run(args),
        MergeReports(args) => cmd::merge_reports::run(args, &cli.global),
        Compact(args) => cmd::compact::run(args, &cli.global),
        Diff(args) => cmd::diff::run(args, &cli.global),
        Export(args) => cmd::export::run(args, &cli.global),
        Import(args) => cmd::import::run(args, &cli.global),
        Decay(args) => cmd::decay::run(args, &cli.global),
        Recency(args) => cmd::recency::run(args, &cli.global),
        Status(args) => cmd::status::run(args, &cli.global),
        Profile(args) => cmd::profile::run(args),
        Map(args) => cmd::map::run(args),
        Completions(args) => cmd::completions::run(args),
        Mcp(args) => cmd::mcp::run(args),
        Resolve(args) => cmd::resolve::run(args, &cli.global),
    }
}

/// Parse the process arguments, run, print any error as a diagnostic, return the exit code.
pub fn main_entry() -> ExitCode {
    let cli = match cli::Cli::parse_lenient() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_ERROR } else { 0 };
            if e.kind() == clap::error::ErrorKind::DisplayHelp {
                help::print(&e);
                return ExitCode::from(code);
            }
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(cli) {
        Ok(outcome) => ExitCode::from(outcome.code()),
        Err(error::VercyError::Interrupted) => ExitCode::from(EXIT_INTERRUPTED),
        Err(e) => {
            output::report_error(e);
            ExitCode::from(EXIT_ERROR)
        }
    }
}
