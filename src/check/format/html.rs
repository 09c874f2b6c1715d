//! The check report as an HTML page (`crate::html` draws it): the level reached and what each
//! level above it still needs, each field's coverage, the findings and the warnings grouped as
//! the human report groups them, and the timelines of the concepts whose records the warnings
//! name most, which the command gathers from the store ([`marks`] says which records those
//! are). Like the JSON report, it shows every record of the store: `check` has no reader.

use super::super::report::{plural, Finding, Report, NO_POLICY};
use crate::html::gather::Marks;
use crate::html::{Coverage, Drawn, Group, Level, Page};
use crate::profile::{Applies, Profile};
use std::io::{self, Write};

/// Items of a group listed before `… and N more`.
const SHOWN: usize = 5;
/// Records of a warning shown beside its message.
const RECORDS_SHOWN: usize = 3;

const FINDINGS: &str = "Findings";
const WARNINGS: &str = "Warnings";

/// Write `reports` as one page, each with what was `drawn` of its store (by position; none
/// when missing).
pub fn write(reports: &[Report], drawn: &[Drawn], out: &mut dyn Write) -> io::Result<()> {
    let pages: Vec<Page> = reports
        .iter()
        .enumerate()
        .map(|(i, r)| page(r, drawn.get(i).cloned().unwrap_or_default()))
        .collect();
    crate::html::write(&pages, out)
}

/// The records the report's warnings name, each with its warning's code: what chooses the
/// concepts drawn, and outlines a conflict.
pub fn marks(r: &Report) -> Marks {
    let codes: Vec<String> = r
        .warnings
        .groups()
        .iter()
        .map(|g| g.code.code().to_string())
        .collect();
    let mut marks = Marks::new(codes.clone(), "value.conflict");
    marks.expect(r.warnings.iter().map(|w| w.count()).sum());
    let mut lines = Vec::new();
    for w in r.warnings.iter() {
        let mark = codes.iter().position(|c| c == w.code.code()).unwrap_or(0);
        lines.clear();
        w.lines(&mut lines);
        for &line in &lines {
            marks.push(line, mark);
        }
    }
    marks
}

/// One store's page.
pub fn page(r: &Report, drawn: Drawn) -> Page {
    let profile = Profile::embedded();
    let top = profile.top_level();
    let mut facts = vec![
        ("store".to_string(), r.store.clone()),
        ("shape".to_string(), r.shape.name().to_string()),
        ("records".to_string(), r.records.to_string()),
        (
            "level".to_string(),
            match r.strict && r.level != r.reference_level {
                true => format!(
                    "{} of {top} under --strict (presence alone: {})",
                    r.level, r.reference_level
                ),
                false => format!("{} of {top}", r.level),
            },
        ),
        (
            "outcome".to_string(),
            format!(
                "{} (needs level {})",
                if r.pass { "pass" } else { "FAIL" },
                r.min_level
            ),
        ),
    ];
    if !r.mapping.is_empty() {
        let pairs: Vec<String> = r.mapping.pairs().map(|(k, v)| format!("{k}={v}")).collect();
        facts.push(("map".to_string(), pairs.join(" ")));
    }
    let levels = (1..=top)
        .map(|n| Level {
            level: n,
            name: profile
                .level(n)
                .map_or_else(|| format!("level {n}"), |l| l.name.clone()),
            reached: r.records > 0 && n <= r.level,
            needs: match r.records > 0 && n <= r.level {
                true => Vec::new(),
                false if r.records == 0 => vec!["records: the store holds none".into()],
                false => r.needs(n),
            },
        })
        .collect();
    let mut groups: Vec<Group> = r.findings.iter().map(finding).collect();
    groups.extend(warning_groups(r));
    let mut notes = Vec::new();
    notes.extend(drawn.note);
    Page {
        title: format!("vercy check: {}", r.store),
        facts,
        notes,
        levels,
        coverage: coverage(r),
        sections: vec![FINDINGS.into(), WARNINGS.into()],
        groups,
        timelines_heading: format!(
            "Concepts with the most findings ({} drawn)",
            drawn.timelines.len()
        ),
        timelines: drawn.timelines,
    }
}

/// Each field of the profile, and how many records hold it: every record but the ones a
/// finding names (a policy stated once, or not at all).
fn coverage(r: &Report) -> Vec<Coverage> {
    let profile = Profile::embedded();
    let mut rows = Vec::new();
    for f in &profile.fields {
        if f.check.applies == Applies::Register && r.expected_concepts.is_none() {
            continue;
        }
        let lacking: Vec<&Finding> = r.findings.iter().filter(|x| x.field == f.id).collect();
        let offenders: usize = lacking.iter().map(|x| x.offenders.len()).sum();
        let no_policy = lacking
            .iter()
            .any(|x| x.offenders.len() == 1 && x.offenders.first().as_deref() == Some(NO_POLICY));
        let (filled, note) = match f.check.applies {
            Applies::OncePerStore => match no_policy || offenders > 0 {
                true => (0, "not stated".to_string()),
                false => (r.records, "stated".to_string()),
            },
            Applies::RuleRecords | Applies::RestrictedRecords => (
                r.records.saturating_sub(offenders),
                format!(
                    "lacking on {offenders} of the records it applies to ({})",
                    f.requirement
                ),
            ),
            _ => (r.records.saturating_sub(offenders), String::new()),
        };
        rows.push(Coverage {
            field: f.id.clone(),
            level: f.level,
            filled,
            total: r.records,
            note,
        });
    }
    rows
}

/// A finding: the field, what it needs, the records that lack it.
fn finding(f: &Finding) -> Group {
    let count = f.offenders.len();
    Group {
        section: FINDINGS.into(),
        name: f.field.clone(),
        meaning: f.requirement.clone(),
        count,
        counted: format!("{count} record{}", plural(count)),
        items: f
            .offenders
            .range(0..SHOWN.min(count))
            .map(|n| n.to_string())
            .collect(),
        more: count.saturating_sub(SHOWN),
    }
}

/// The warnings, a group a code: its count, the records they name, the first few.
fn warning_groups(r: &Report) -> Vec<Group> {
    r.warnings
        .groups()
        .into_iter()
        .map(|g| {
            let items = r
                .warnings
                .of_code(g.code)
                .take(SHOWN)
                .map(|w| {
                    let records: Vec<String> = w
                        .records()
                        .take(RECORDS_SHOWN)
                        .map(|(name, line)| match line {
                            0 => name.to_string(),
                            l => format!("{name} (line {l})"),
                        })
                        .collect();
                    let more = w.count().saturating_sub(RECORDS_SHOWN);
                    let mut item = w.message().into_owned();
                    if !records.is_empty() {
                        item.push_str(": ");
                        item.push_str(&records.join(", "));
                    }
                    if more > 0 {
                        item.push_str(&format!(" … and {more} more"));
                    }
                    item
                })
                .collect();
            Group {
                section: WARNINGS.into(),
                name: g.code.code().to_string(),
                meaning: g.code.meaning().to_string(),
                count: g.warnings,
                counted: format!(
                    "{} warning{} naming {} record{}",
                    g.warnings,
                    plural(g.warnings),
                    g.records,
                    plural(g.records)
                ),
                items,
                more: g.warnings.saturating_sub(SHOWN),
            }
        })
        .collect()
}
