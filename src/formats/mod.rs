//! What the reports of `check` and `diff` share in every form they are printed in: the human
//! page that fits on a screen ([`page`]), GitHub's workflow commands and step summary
//! ([`github`]), SARIF's log ([`sarif`]), and a store that could not be read ([`Failure`]).
//! Each command keeps what its report says; how a report is laid out in a form is here, once.

pub mod github;
pub mod page;
pub mod sarif;

use crate::error::VercyError;

/// The forms a report is printed in (`--format` of check and diff).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Readable at a glance, on one screen: the verdict, then each kind of finding grouped
    /// with its first records.
    Human,
    /// The command's JSON object (`vercy-check/1`, an array of them for several stores;
    /// `vercy-diff/1`).
    Json,
    /// GitHub Actions workflow commands (annotations on the store file) and a step summary.
    Github,
    /// SARIF 2.1.0, for code-scanning dashboards.
    Sarif,
    /// One self-contained HTML page: the findings grouped, and the timelines of the concepts
    /// most findings name.
    Html,
}

/// A store that could not be read, as the machine formats report it.
#[derive(Debug, Clone)]
pub struct Failure {
    pub store: String,
    pub message: String,
    /// The diagnostic's code (`vercy::store::json`).
    pub code: Option<String>,
    /// Line and column, 1-based, when the error points into the file.
    pub position: Option<(u64, u64)>,
}

impl Failure {
    pub fn of(store: &str, e: &VercyError) -> Failure {
        use miette::Diagnostic;
        let help = e.help().map(|h| format!(" ({h})")).unwrap_or_default();
        Failure {
            store: store.to_string(),
            message: format!("{e}{help}"),
            code: e.code().map(|c| c.to_string()),
            position: position(e),
        }
    }
}

/// Where an error points into a store, line and column, when it does.
fn position(e: &VercyError) -> Option<(u64, u64)> {
    match e {
        VercyError::Json { pos, .. }
        | VercyError::Utf8 { pos, .. }
        | VercyError::NotObject { pos, .. }
        | VercyError::Shape { pos, .. }
        | VercyError::Compact { pos, .. } => Some((pos.line, pos.column)),
        VercyError::DiffSide { error, .. } => position(error),
        _ => None,
    }
}

pub use crate::text::plural;

/// `n` with thousands separators: 250,000.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(250000), "250,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
