//! The HTML page of a diff: what changed, grouped by code with the first records, and the
//! timelines of the concepts whose records changed most, drawn from HEAD (`crate::html`
//! draws; the command gathers the timelines, as it alone reads the store again).

use super::super::report::{Code, Report};
use super::named;
use crate::formats::{plural, thousands};
use crate::html::gather::Marks;
use crate::html::{Drawn, Group, Page};
use std::io::{self, Write};

/// Records listed under a code before `N more`.
const SHOWN: usize = 10;
const CHANGES: &str = "Changes";

/// The HEAD records the findings name, each marked with its finding's code: what chooses the
/// concepts drawn. A record edited in place is drawn as a conflict would be, outlined.
pub fn marks(r: &Report) -> io::Result<Marks> {
    let codes: Vec<String> = Code::ALL.iter().map(|c| c.name().to_string()).collect();
    let mut marks = Marks::new(codes, Code::Edited.name());
    for (i, code) in Code::ALL.into_iter().enumerate() {
        for f in r.findings.of_code(code) {
            marks.push(f?.head_line, i);
        }
    }
    Ok(marks)
}

/// The page, with what was `drawn` of HEAD.
pub fn write(r: &Report, drawn: Drawn, out: &mut dyn Write) -> io::Result<()> {
    crate::html::write(&[page(r, drawn)?], out)
}

/// The page of a diff, with what was `drawn` of HEAD (its timelines, or why there are none).
pub fn page(r: &Report, drawn: Drawn) -> io::Result<Page> {
    let counts = r.counts();
    let failing: usize = counts
        .iter()
        .filter(|(c, _)| !r.is_allowed(*c))
        .map(|(_, n)| n)
        .sum();
    let outcome = match (failing, counts.is_empty()) {
        (0, true) => "pass: history was only added to".to_string(),
        (0, false) => "pass: every change found is allowed".to_string(),
        (n, _) => format!(
            "FAIL: history was changed, {} finding{}",
            thousands(n),
            plural(n)
        ),
    };
    let side = |s: &super::super::report::Side| {
        format!(
            "{} ({}, {} records)",
            s.store,
            s.shape,
            thousands(s.records)
        )
    };
    let facts = vec![
        ("BASE".to_string(), side(&r.base)),
        ("HEAD".to_string(), side(&r.head)),
        ("outcome".to_string(), outcome),
        (
            "added".to_string(),
            format!(
                "{} ({} superseding one)",
                thousands(r.added),
                thousands(r.added_superseding)
            ),
        ),
        ("unchanged".to_string(), thousands(r.unchanged)),
    ];
    let groups = counts
        .iter()
        .map(|&(code, n)| {
            let items = r.first(code, SHOWN)?.iter().map(named).collect();
            Ok(Group {
                section: CHANGES.to_string(),
                name: code.name().to_string(),
                meaning: code.meaning().to_string(),
                count: n,
                counted: format!(
                    "{} record{}{}",
                    thousands(n),
                    plural(n),
                    if r.is_allowed(code) { " (allowed)" } else { "" }
                ),
                items,
                more: n.saturating_sub(SHOWN),
            })
        })
        .collect::<io::Result<_>>()?;
    Ok(Page {
        title: format!("vercy diff: {} → {}", r.base.store, r.head.store),
        facts,
        notes: drawn.note.into_iter().collect(),
        levels: Vec::new(),
        coverage: Vec::new(),
        sections: vec![CHANGES.to_string()],
        groups,
        timelines_heading: format!(
            "Concepts with the most changes, in HEAD ({} drawn)",
            drawn.timelines.len()
        ),
        timelines: drawn.timelines,
    })
}
