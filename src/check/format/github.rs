//! GitHub Actions workflow commands. GitHub shows at most 10 annotations of each type
//! (error, warning, notice) per step, so at most that many are written: the verdict of each
//! store, then findings and warning records taken a code at a time in turn (so each code is
//! seen), then one summary notice with the counts per code. With `$GITHUB_STEP_SUMMARY` set,
//! a Markdown summary (bounded in size) is appended there too.

use super::super::report::{plural, RecordName, Report};
use super::Failure;
use crate::formats::github::{append_step_summary, md, AnnotationKind, Annotations, SUMMARY_MAX};
use crate::formats::thousands;
use crate::profile::Profile;
use std::io::{self, Write};

/// Offenders named in a finding's annotation.
const OFFENDERS_NAMED: usize = 10;
/// Records named per code in the step summary.
const SUMMARY_NAMED: usize = 5;

pub fn write(reports: &[Report], failures: &[Failure], out: &mut dyn Write) -> io::Result<()> {
    let top = Profile::embedded().top_level();
    let mut budget = Annotations::default();
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
        let before = budget.used(AnnotationKind::Warning);
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
        let shown = budget.used(AnnotationKind::Warning) - before;
        budget.left_out += total.saturating_sub(shown);
    }
    summary_annotation(reports, failures, &budget, out)?;
    append_step_summary(|| step_summary(reports, failures))
}

/// The one summary notice: per store, the level and the counts per finding and code.
fn summary_annotation(
    reports: &[Report],
    failures: &[Failure],
    budget: &Annotations,
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
    let file = reports.first().map(|r| r.store.as_str());
    budget.summary(out, file, "vercy check: summary", lines)
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
