//! GitHub Actions workflow commands and the step summary. GitHub shows at most 10 annotations
//! of each type (error, warning, notice) per step, so at most that many are written
//! ([`Annotations`]), one notice kept back for the summary of what was left out. Every text a
//! store gave is made terminal-safe for the log, then escaped for the command; the Markdown
//! summary, appended to `$GITHUB_STEP_SUMMARY`, escapes what Markdown reads.

use super::thousands;
use crate::output::github_escape;
use crate::text::terminal_safe;
use std::io::{self, Write};

/// Annotations GitHub shows of each type in one step.
pub const PER_TYPE: usize = 10;
/// The step summary stays below this (GitHub refuses one of 1 MiB or more).
pub const SUMMARY_MAX: usize = 1 << 20;

/// Data for a workflow command: terminal-safe for the log, then escaped for the command.
pub fn gh_data(s: &str) -> String {
    github_escape(&terminal_safe(s), false)
}

/// Lines of data for one workflow command: each terminal-safe, the breaks between them kept
/// (escaped, as the command shows them).
pub fn gh_lines(lines: &[String]) -> String {
    let safe: Vec<_> = lines.iter().map(|l| terminal_safe(l)).collect();
    github_escape(&safe.join("\n"), false)
}

/// A property value of a workflow command (`:` and `,` escaped too).
pub fn gh_prop(s: &str) -> String {
    github_escape(&terminal_safe(s), true)
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum AnnotationKind {
    Error,
    Warning,
    Notice,
}

impl AnnotationKind {
    fn name(self) -> &'static str {
        match self {
            AnnotationKind::Error => "error",
            AnnotationKind::Warning => "warning",
            AnnotationKind::Notice => "notice",
        }
    }
}

/// Annotations written so far, by type: each stops at [`PER_TYPE`], one notice kept back
/// for the summary.
#[derive(Default)]
pub struct Annotations {
    used: [usize; 3],
    /// Annotations that were not written for want of room.
    pub left_out: usize,
}

impl Annotations {
    /// How many more of `kind` may be written.
    pub fn room(&self, kind: AnnotationKind) -> usize {
        let cap = if kind == AnnotationKind::Notice {
            PER_TYPE - 1
        } else {
            PER_TYPE
        };
        cap.saturating_sub(self.used[kind as usize])
    }

    /// How many of `kind` were written.
    pub fn used(&self, kind: AnnotationKind) -> usize {
        self.used[kind as usize]
    }

    /// Write one annotation if there is room for its type.
    pub fn annotate(
        &mut self,
        out: &mut dyn Write,
        kind: AnnotationKind,
        properties: &[(&str, String)],
        message: &str,
    ) -> io::Result<()> {
        if self.room(kind) == 0 {
            self.left_out += 1;
            return Ok(());
        }
        self.used[kind as usize] += 1;
        writeln!(
            out,
            "::{} {}::{}",
            kind.name(),
            props(properties),
            gh_data(message)
        )
    }

    /// The one summary notice: `lines` and, when annotations were left out, how many; on
    /// `file` when there is one.
    pub fn summary(
        &self,
        out: &mut dyn Write,
        file: Option<&str>,
        title: &str,
        mut lines: Vec<String>,
    ) -> io::Result<()> {
        if self.left_out > 0 {
            lines.push(format!(
                "{} more annotations left out (GitHub shows {PER_TYPE} of each type)",
                thousands(self.left_out)
            ));
        }
        let mut properties = vec![("title", title.to_string())];
        if let Some(file) = file {
            properties.insert(0, ("file", file.to_string()));
        }
        writeln!(out, "::notice {}::{}", props(&properties), gh_lines(&lines))
    }
}

fn props(properties: &[(&str, String)]) -> String {
    let props: Vec<String> = properties
        .iter()
        .map(|(k, v)| format!("{k}={}", gh_prop(v)))
        .collect();
    props.join(",")
}

/// Markdown text from a store: the characters Markdown gives meaning to are escaped, and
/// control characters shown as escapes.
pub fn md(text: &str) -> String {
    let safe = terminal_safe(text);
    let mut out = String::with_capacity(safe.len());
    for c in safe.chars() {
        if "\\`*_{}[]<>()#+-.!|~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Append `text` to the step summary, when `$GITHUB_STEP_SUMMARY` names one.
pub fn append_step_summary(text: impl FnOnce() -> String) -> io::Result<()> {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(text().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_command_escapes() {
        assert_eq!(gh_data("50% a\r\nb"), "50%25 a\\u{d}\\u{a}b");
        assert_eq!(
            gh_lines(&["a\n::error::x".into(), "50%".into()]),
            "a\\u{a}::error::x%0A50%25"
        );
        assert_eq!(gh_prop("a:b,c%"), "a%3Ab%2Cc%25");
    }

    #[test]
    fn markdown_text_is_escaped() {
        assert_eq!(md("a|b*c"), "a\\|b\\*c");
        assert_eq!(md("x\u{1b}[31m"), "x\\\\u\\{1b\\}\\[31m");
    }

    #[test]
    fn annotations_stop_at_ten_of_a_type_and_keep_a_notice_for_the_summary() {
        let mut a = Annotations::default();
        let mut out = Vec::new();
        for _ in 0..12 {
            a.annotate(&mut out, AnnotationKind::Warning, &[], "w")
                .unwrap();
            a.annotate(&mut out, AnnotationKind::Notice, &[], "n")
                .unwrap();
        }
        assert_eq!(a.used(AnnotationKind::Warning), PER_TYPE);
        assert_eq!(a.used(AnnotationKind::Notice), PER_TYPE - 1);
        assert_eq!(a.left_out, 2 + 3);
        a.summary(&mut out, Some("s.jsonl"), "t", vec!["x".into()])
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with(
            "::notice file=s.jsonl,title=t::x%0A5 more annotations left out (GitHub shows 10 of each type)\n"
        ));
    }
}
