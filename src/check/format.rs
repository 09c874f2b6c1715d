//! Printing check reports: one [`Format`] variant per output form, each written as it is
//! made from the reports' compact state ([`human`], `json`, `github`, [`sarif`]), laid out by
//! what every report's forms share (`crate::formats`). Adding a form is one variant and one
//! module.

mod github;
pub mod html;
pub mod human;
pub(super) mod json;
pub mod sarif;

use super::report::Report;
pub use crate::formats::Failure;
use std::io::{self, Write};

pub use crate::formats::Format;

/// Write the reports in `format`, as they are made. `failures` are the stores that could
/// not be read: the GitHub and SARIF forms report them too (the others leave them to the
/// diagnostics on stderr).
pub fn write(
    format: Format,
    reports: &[Report],
    failures: &[Failure],
    quiet: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        Format::Human => {
            for (i, r) in reports.iter().enumerate() {
                if i > 0 {
                    writeln!(out)?;
                }
                human::write(r, quiet, out)?;
            }
            Ok(())
        }
        Format::Json => json::write(reports, out),
        Format::Github => github::write(reports, failures, out),
        Format::Sarif => sarif::write(reports, failures, out),
        Format::Html => html::write(reports, &[], out),
    }
}

/// The `vercy-check/1` object of one report as a value (for a small report: the MCP tool's
/// full detail): what `format/json.rs`, the object's one definition, writes, read back.
pub fn to_json(report: &Report) -> serde_json::Value {
    let mut bytes = Vec::new();
    match json::write(std::slice::from_ref(report), &mut bytes) {
        Ok(()) => serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null),
        Err(_) => serde_json::Value::Null,
    }
}

/// The reports in `format`, in memory: for tests and small reports (the CLI writes them to
/// stdout as they are made, see [`write()`]).
pub fn render(format: Format, reports: &[Report], quiet: bool) -> String {
    let mut out = Vec::new();
    // writing into memory cannot fail
    let _ = write(format, reports, &[], quiet, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}
