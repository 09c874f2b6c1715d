//! GitHub Actions workflow commands. GitHub shows at most 10 annotations of each type
//! (error, warning, notice) per step, so at most that many are written: the verdict of each
//! store, then findings and warning records taken a code at a time in turn (so each code is
//! seen), then one summary notice with the counts per code. With `$GITHUB_STEP_SUMMARY` set,
//! a Markdown summary (bounded in size) is appended there too.

use super::super::report::{plural, RecordName, Report};
use super::human::thousands;
use super::Failure;
use crate::output::github_escape;
use crate::profile::Profile;
use crate::text::terminal_safe;
use std::io::{self, Write};

/// Annotations GitHub shows of each type in one step.
const PER_TYPE: usize = 10;
/// Offenders named in a finding's annotation.
const OFFENDERS_NAMED: usize = 10;
/// Records named per code in the step summary.
const SUMMARY_NAMED: usize = 5;
/// The step summary stays below this (GitHub refuses one of 1 MiB or more).
const SUMMARY_MAX: usize = 1 << 20;

/// Data for a workflow command: terminal-safe for the log, then escaped for the command.
pub fn gh_data(s: &str) -> String {
    github_escape(&terminal_safe(s), false)
}

/// Lines of data for one workflow command: each terminal-safe, the breaks between them kept
/// (escaped, as the command shows them).
fn gh_lines(lines: &[String]) -> String {
    let safe: Vec<_> = lines.iter().map(|l| terminal_safe(l)).collect();
    github_escape(&safe.join("\n"), false)
}

/// A property value of a workflow command (`:` and `,` escaped too).
pub fn gh_prop(s: &str) -> String {
    github_escape(&terminal_safe(s), true)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum AnnotationKind {
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
struct Budget {
    used: [usize; 3],
    left_out: usize,
}

impl Budget {
    fn room(&self, kind: AnnotationKind) -> usize {
        let cap = if kind == AnnotationKind::Notice {
            PER_TYPE - 1
        } else {
            PER_TYPE
        };
        cap.saturating_sub(self.used[kind as usize])
    }

    /// Write one annotation if there is room for its type.
    fn annotate(
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
        let props: Vec<String> = properties
            .iter()
            .map(|(k, v)| format!("{k}={}", gh_prop(v)))
            .collect();
        writeln!(
            out,
            "::{} {}::{}",
            kind.name(),
            props.join(","),
            gh_data(message)
        )
    }
}

pub fn write(reports: &[Report], failures: &[Failure], out: &mut dyn Write) -> io::Result<()> {
    let top = Profile::embedded().top_level();
    let mut budget = Budget {
        used: [0; 3],
        left_out: 0,
    };
    for f in failures {
        let mut props = vec![("file", f.store.clone())];
        if let Some((line, col)) = f.position {
            props.push(("line", line.to_string()));
            props.push(("col", col.to_string()));
        }
        props.push(("title", "vercy check: the store cannot be read".to_string()));
        budget.annotate(out, AnnotationKind::Error, &props, &f.message)?;
    }
    for r in reports {
        let kind = if r.pass {
            AnnotationKind::Notice
        } else {
            AnnotationKind::Error
        };
        let title = format!("vercy check: level {} of {top}", r.level);
        let message = format!(
            "{} records, level {} (needs {}): {}",
            r.records,
            r.level,
            r.min_level,
            if r.pass { "pass" } else { "fail" }
        );
        budget.annotate(
            out,
            kind,
            &[("file", r.store.clone()), ("title", title)],
            &message,
        )?;
    }
    for r in reports {
        for f in &r.findings {
            let kind = if f.requirement == "SHOULD" {
                AnnotationKind::Notice
            } else {
                AnnotationKind::Warning
            };
            let mut named: Vec<RecordName> = f.offenders.iter().take(OFFENDERS_NAMED).collect();
            if f.offenders.len() > OFFENDERS_NAMED {
                named.push(RecordName::Text("…"));
            }
            let message = format!(
                "{} record{}: {}",
                f.offenders.len(),
                plural(f.offenders.len()),
                named.join(", ")
            );
            let mut props = vec![("file", r.store.clone())];
            if f.first_line > 0 {
                props.push(("line", f.first_line.to_string()));
            }
            props.push(("title", format!("{} ({})", f.field, f.requirement)));
            budget.annotate(out, kind, &props, &message)?;
        }
    }
    // warning records a code at a time in turn: the first record of each code, then the
    // second, … until the warnings' budget is spent
    for r in reports {
        let groups = r.warnings.groups();
        let mut rounds: Vec<_> = groups
            .iter()
            .map(|g| {
                r.warnings
                    .of_code(g.code)
                    .flat_map(|w| {
                        let message = w.message();
                        let records: Box<dyn Iterator<Item = (RecordName, u64)>> = if w.count() == 0
                        {
                            Box::new(std::iter::once((RecordName::Text(""), 0)))
                        } else {
                            Box::new(w.records())
                        };
                        records.map(move |(name, line)| (w.code, message.clone(), name, line))
                    })
                    .peekable()
            })
            .collect();
        let before = budget.used[AnnotationKind::Warning as usize];
        while budget.room(AnnotationKind::Warning) > 0
            && rounds.iter_mut().any(|r| r.peek().is_some())
        {
            for next in rounds.iter_mut() {
                let Some((code, message, name, line)) = next.next() else {
                    continue;
                };
                let mut props = vec![("file", r.store.clone())];
                if line > 0 {
                    props.push(("line", line.to_string()));
                }
                props.push(("title", code.to_string()));
                let text = if name.is_empty() {
                    message.to_string()
                } else {
                    format!("{message} (record {name})")
                };
                budget.annotate(out, AnnotationKind::Warning, &props, &text)?;
            }
        }
        // every record of every warning would have been one annotation
        let total: usize = r.warnings.iter().map(|w| w.count().max(1)).sum();
        let shown = budget.used[AnnotationKind::Warning as usize] - before;
        budget.left_out += total.saturating_sub(shown);
    }
    summary_annotation(reports, failures, &budget, out)?;
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
        append_step_summary(std::path::Path::new(&path), reports, failures)?;
    }
    Ok(())
}

/// The one summary notice: per store, the level and the counts per finding and code.
fn summary_annotation(
    reports: &[Report],
    failures: &[Failure],
    budget: &Budget,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut lines = Vec::new();
    for r in reports {
        let mut parts = vec![format!(
            "{}: level {}, {}",
            r.store,
            r.level,
            if r.pass { "pass" } else { "fail" }
        )];
        for f in &r.findings {
            parts.push(format!(
                "{} missing on {}",
                f.field,
                thousands(f.offenders.len())
            ));
        }
        for g in r.warnings.groups() {
            parts.push(format!(
                "{} {} warning{} naming {} record{}",
                g.code,
                thousands(g.warnings),
                plural(g.warnings),
                thousands(g.records),
                plural(g.records)
            ));
        }
        lines.push(parts.join("; "));
    }
    for f in failures {
        lines.push(format!("{}: cannot be read", f.store));
    }
    if budget.left_out > 0 {
        lines.push(format!(
            "{} more annotations left out (GitHub shows {PER_TYPE} of each type)",
            thousands(budget.left_out)
        ));
    }
    let mut props = vec![("title", "vercy check: summary".to_string())];
    if let Some(r) = reports.first() {
        props.insert(0, ("file", r.store.clone()));
    }
    let props: Vec<String> = props
        .iter()
        .map(|(k, v)| format!("{k}={}", gh_prop(v)))
        .collect();
    writeln!(out, "::notice {}::{}", props.join(","), gh_lines(&lines))
}

/// Markdown text from a store: the characters Markdown gives meaning to are escaped, and
/// control characters shown as escapes.
fn md(text: &str) -> String {
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

/// The step summary: level, pass, findings, warnings by code with their first records.
fn step_summary(reports: &[Report], failures: &[Failure]) -> String {
    let top = Profile::embedded().top_level();
    let mut s = String::from("## vercy check\n\n");
    for f in failures {
        s.push_str(&format!(
            "- **{}**: cannot be read: {}\n",
            md(&f.store),
            md(&f.message)
        ));
    }
    for r in reports {
        if s.len() > SUMMARY_MAX / 2 {
            s.push_str("\n(more stores left out: the summary stays under 1 MiB)\n");
            break;
        }
        s.push_str(&format!(
            "### {}\n\nLevel **{} of {top}**, {} (needs level {}), {} records.\n\n",
            md(&r.store),
            r.level,
            if r.pass { "pass" } else { "**fail**" },
            r.min_level,
            thousands(r.records)
        ));
        if !r.findings.is_empty() {
            s.push_str("| finding | requirement | records | first |\n| --- | --- | --- | --- |\n");
            for f in &r.findings {
                let first: Vec<String> = f
                    .offenders
                    .iter()
                    .take(SUMMARY_NAMED)
                    .map(|o| md(&o))
                    .collect();
                s.push_str(&format!(
                    "| {} | {} | {} | {} |\n",
                    f.field,
                    f.requirement,
                    thousands(f.offenders.len()),
                    first.join(", ")
                ));
            }
            s.push('\n');
        }
        let groups = r.warnings.groups();
        if !groups.is_empty() {
            s.push_str("| warning | warnings | records | first |\n| --- | --- | --- | --- |\n");
            for g in groups {
                let first: Vec<String> = r
                    .warnings
                    .of_code(g.code)
                    .flat_map(|w| w.records())
                    .take(SUMMARY_NAMED)
                    .map(|(name, line)| format!("{} (line {line})", md(&name)))
                    .collect();
                s.push_str(&format!(
                    "| `{}` | {} | {} | {} |\n",
                    g.code,
                    thousands(g.warnings),
                    thousands(g.records),
                    first.join(", ")
                ));
            }
            s.push('\n');
        }
    }
    s
}

fn append_step_summary(
    path: &std::path::Path,
    reports: &[Report],
    failures: &[Failure],
) -> io::Result<()> {
    let text = step_summary(reports, failures);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(text.as_bytes())
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
}
