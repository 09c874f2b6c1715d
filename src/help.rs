//! `--help` with examples that copy and paste as one command at any width.
//!
//! clap wraps the after-help text (the examples) to the terminal's width like the rest of the
//! help, so a long example command becomes two lines that paste as two commands. Here the
//! after-help text clap wrapped is put back as written: each example one line, which a
//! terminal folds for display and copies whole.

use crate::cli::Cli;
use clap::CommandFactory;
use std::ffi::OsString;
use std::io::{IsTerminal, Write};

/// Print the help that `error` (a `DisplayHelp`) carries, on stdout; styled only on a terminal
/// and without NO_COLOR, as clap itself would.
pub fn print(error: &clap::Error) {
    let rendered = error.render();
    let styled = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let text = if styled {
        rendered.ansi().to_string()
    } else {
        rendered.to_string()
    };
    let args: Vec<OsString> = std::env::args_os().collect();
    let _ = std::io::stdout().write_all(unwrapped(&text, &args).as_bytes());
}

/// The help text clap rendered for `args`, its after-help text unwrapped.
pub fn unwrapped(rendered: &str, args: &[OsString]) -> String {
    let Some(after) = after_help(args) else {
        return rendered.to_string();
    };
    // where the tail of the help is that text, wrapped: the same words in the same order
    let wanted: Vec<&str> = after.split_whitespace().collect();
    let starts: Vec<usize> = rendered
        .char_indices()
        .filter(|&(i, c)| {
            !c.is_whitespace() && (i == 0 || rendered[..i].ends_with(char::is_whitespace))
        })
        .map(|(i, _)| i)
        .collect();
    let Some(&at) = starts
        .len()
        .checked_sub(wanted.len())
        .and_then(|k| starts.get(k))
    else {
        return rendered.to_string();
    };
    if wanted.is_empty() || rendered[at..].split_whitespace().ne(wanted.iter().copied()) {
        return rendered.to_string();
    }
    format!("{}{after}\n", &rendered[..at])
}

/// The after-help text of the (sub)command whose help `args` ask for.
fn after_help(args: &[OsString]) -> Option<String> {
    let cmd = Cli::command();
    let mut words = args
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .filter(|a| !a.starts_with('-'));
    let mut name = words.next();
    if name == Some("help") {
        name = words.next();
    }
    let target = match name.and_then(|n| cmd.find_subcommand(n)) {
        Some(sub) => sub,
        None => &cmd,
    };
    target.get_after_help().map(|h| h.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn a_wrapped_example_is_put_back_on_one_line() {
        let cmd = Cli::command();
        let after = cmd
            .find_subcommand("check")
            .unwrap()
            .get_after_help()
            .unwrap()
            .to_string();
        let long = after.lines().find(|l| l.len() > 60).unwrap();
        let wrapped = format!(
            "Usage: vercy check\n\n{}\n",
            after
                .replace(" --min-level ", "\n--min-level ")
                .replace(" --map ", "\n--map ")
        );
        let fixed = unwrapped(&wrapped, &args("vercy check --help"));
        assert!(fixed.lines().any(|l| l == long), "{fixed}");
        assert!(fixed.starts_with("Usage: vercy check\n\n"));
        // a tail that is not the after-help text is left alone
        let other = "Usage: vercy check\n\nExamples:\n  something else\n";
        assert_eq!(unwrapped(other, &args("vercy check -h")), other);
    }
}
