//! GitHub Actions: an annotation per finding on HEAD's line (an error, or a warning for a code
//! allowed), at most ten of each type, one summary notice, and a step summary in Markdown.

use super::super::report::Report;
use super::{file_of, named};
use crate::formats::github::{append_step_summary, md, AnnotationKind, Annotations, SUMMARY_MAX};
use crate::formats::{plural, thousands, Failure};
use std::io::{self, Write};

/// Records named per code in the step summary.
const SUMMARY_NAMED: usize = 5;

pub fn write(report: Result<&Report, &Failure>, out: &mut dyn Write) -> io::Result<()> {
    let mut budget = Annotations::default();
    let r = match report {
        Ok(r) => r,
        Err(f) => {
            let mut props = vec![("file", file_of(&f.store).to_string())];
            if let Some((line, col)) = f.position {
                props.push(("line", line.to_string()));
                props.push(("col", col.to_string()));
            }
            props.push(("title", "vercy diff: cannot read the store".to_string()));
            budget.annotate(out, AnnotationKind::Error, &props, &f.message)?;
            return Ok(());
        }
    };
    let file = file_of(&r.head.store).to_string();
    for f in r.findings.iter() {
        let f = f?;
        let kind = match r.is_allowed(f.code) {
            true => AnnotationKind::Warning,
            false => AnnotationKind::Error,
        };
        let mut props = vec![("file", file.clone())];
        if f.head_line > 0 {
            props.push(("line", f.head_line.to_string()));
        }
        props.push(("title", f.code.name().to_string()));
        budget.annotate(out, kind, &props, &f.message())?;
    }
    budget.summary(out, Some(&file), "vercy diff: summary", summary_lines(r))?;
    let summary = step_summary(r)?;
    append_step_summary(|| summary)
}

fn verdict(r: &Report) -> String {
    let n = r.findings.len();
    match (r.pass(), n) {
        (true, 0) => "pass: history was only added to".to_string(),
        (true, _) => format!(
            "pass: {} change{} found, every one allowed",
            thousands(n),
            plural(n)
        ),
        (false, _) => format!(
            "fail: history was changed ({} finding{})",
            thousands(n),
            plural(n)
        ),
    }
}

fn summary_lines(r: &Report) -> Vec<String> {
    let mut lines = vec![
        format!("{} → {}: {}", r.base.store, r.head.store, verdict(r)),
        format!(
            "added {} record{} ({} superseding one), {} unchanged",
            thousands(r.added),
            plural(r.added),
            thousands(r.added_superseding),
            thousands(r.unchanged)
        ),
    ];
    for (code, n) in r.counts() {
        lines.push(format!("{}: {}", code.name(), thousands(n)));
    }
    lines
}

/// The step summary: the verdict, what was added, and a table of the codes found with their
/// first records.
fn step_summary(r: &Report) -> io::Result<String> {
    let mut s = format!(
        "### vercy diff: {} → {}\n\n**{}** · added {} · unchanged {}\n\n",
        md(&r.base.store),
        md(&r.head.store),
        verdict(r),
        thousands(r.added),
        thousands(r.unchanged)
    );
    let counts = r.counts();
    if !counts.is_empty() {
        s.push_str("| code | records | first | what to do |\n| --- | --- | --- | --- |\n");
        for (code, n) in counts {
            let first: Vec<String> = r
                .first(code, SUMMARY_NAMED)?
                .iter()
                .map(|f| md(&named(f)))
                .collect();
            let row = format!(
                "| `{}`{} | {} | {} | {} |\n",
                code.name(),
                if r.is_allowed(code) { " (allowed)" } else { "" },
                thousands(n),
                first.join("<br>"),
                md(code.meaning())
            );
            if s.len() + row.len() >= SUMMARY_MAX - 64 {
                s.push_str("| … | | | |\n");
                break;
            }
            s.push_str(&row);
        }
    }
    s.push('\n');
    Ok(s)
}
