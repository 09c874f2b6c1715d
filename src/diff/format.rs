//! Printing a diff: one [`Format`] variant per output form, each a module of its own laid out
//! by what every report's forms share (`crate::formats`): the human page, GitHub's
//! annotations and step summary, SARIF's log, the HTML page (`crate::html`).

mod github;
pub mod html;
mod human;
pub mod json;
mod sarif;

use super::report::Report;
use crate::formats::Failure;
use std::io::{self, Write};

pub use crate::formats::Format;

/// Write the report in `format`; or, when a side could not be read (`failure`), what the
/// GitHub and SARIF forms say of it (the others leave it to the diagnostic on stderr).
pub fn write(
    format: Format,
    report: Result<&Report, &Failure>,
    quiet: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    match (format, report) {
        (Format::Human, Ok(r)) => human::write(r, quiet, out),
        (Format::Json, Ok(r)) => json::write(r, out),
        (Format::Github, r) => github::write(r, out),
        (Format::Sarif, r) => sarif::write(r, out),
        // the page without timelines: the command draws them, as it reads HEAD again
        (Format::Html, Ok(r)) => html::write(r, crate::html::Drawn::default(), out),
        (Format::Human | Format::Json | Format::Html, Err(_)) => Ok(()),
    }
}

/// The file a store argument names, as a location in a report: `git:REV:PATH` is PATH.
pub fn file_of(store: &str) -> &str {
    store
        .strip_prefix("git:")
        .and_then(|rest| rest.split_once(':'))
        .map_or(store, |(_, path)| path.strip_prefix("./").unwrap_or(path))
}

/// A finding's record with its line, as the human report and the summaries list it.
pub fn named(f: &super::report::Finding) -> String {
    use super::report::Code;
    let other = f.other.as_ref().map_or("", |o| o.id.as_str());
    match f.code {
        Code::EndWritten => format!("{} (line {}, superseded by {other})", f.id, f.head_line),
        Code::Edited | Code::IdReused | Code::SupersedesChanged => {
            format!("{} (line {}: {})", f.id, f.head_line, f.fields())
        }
        Code::Deleted => format!("{} (BASE line {})", f.id, f.base_line),
        Code::StartsBefore | Code::SupersededMissing => {
            format!("{} (line {}) → {other}", f.id, f.head_line)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_git_store_is_located_at_its_path() {
        assert_eq!(file_of("git:origin/main:memory/s.jsonl"), "memory/s.jsonl");
        assert_eq!(file_of("git:HEAD:./s.jsonl"), "s.jsonl");
        assert_eq!(file_of("memory/s.jsonl"), "memory/s.jsonl");
    }
}
