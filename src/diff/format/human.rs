//! The human report: one screen whatever the stores hold. What was added in one line; each
//! kind of change one group, its count and first records with their lines, and what to do;
//! long lines wrap between records, never inside one. Every text read from a store goes
//! through [`terminal_safe`].

use super::super::report::{Code, Report};
use super::named;
use crate::formats::page::{counted, fit_page, fitted, width, Fit, Wrapped};
use crate::formats::{plural, thousands};
use crate::output::{paint, Paint};
use crate::text::terminal_safe;
use std::io::{self, Write};

/// Records of a group shown before `… and N more`.
const SHOWN: usize = 3;
/// The column the records of a group start in.
const CODE_WIDTH: usize = 28;

pub fn write(r: &Report, quiet: bool, out: &mut dyn Write) -> io::Result<()> {
    let width = width();
    let counts = r.counts();
    let items = if quiet { 0 } else { counts.len() };
    let page = fit_page(items, |tight_from, page| {
        render(r, &counts, quiet, page, width, tight_from)
    })?;
    out.write_all(&page)
}

fn render(
    r: &Report,
    counts: &[(Code, usize)],
    quiet: bool,
    out: &mut dyn Write,
    width: usize,
    tight_from: usize,
) -> io::Result<()> {
    writeln!(
        out,
        "{} → {}",
        paint(&terminal_safe(&r.base.store), Paint::Bold),
        paint(&terminal_safe(&r.head.store), Paint::Bold)
    )?;
    let failing: usize = counts
        .iter()
        .filter(|(c, _)| !r.is_allowed(*c))
        .map(|(_, n)| n)
        .sum();
    let verdict = match failing {
        0 => paint("pass", Paint::Good),
        _ => paint("FAIL", Paint::Bad),
    };
    let said = match (failing, counts.is_empty()) {
        (0, true) => "history was only added to".to_string(),
        (0, false) => "every change found is allowed".to_string(),
        (n, _) => format!("history was changed: {} finding{}", thousands(n), plural(n)),
    };
    writeln!(
        out,
        "  {verdict} · {said} · BASE {} record{} ({}), HEAD {} ({})",
        thousands(r.base.records),
        plural(r.base.records),
        r.base.shape,
        thousands(r.head.records),
        r.head.shape
    )?;
    let moved = match r.times_moved {
        0 => String::new(),
        n => format!(" ({} with capture times moved)", thousands(n)),
    };
    let superseding = match r.added_superseding {
        0 => String::new(),
        n => format!(" ({} superseding one)", thousands(n)),
    };
    writeln!(
        out,
        "  added {} record{}{superseding} · {} unchanged{moved}",
        thousands(r.added),
        plural(r.added),
        thousands(r.unchanged),
    )?;
    for (which, side) in [("BASE", &r.base), ("HEAD", &r.head)] {
        if side.without_id > 0 {
            writeln!(
                out,
                "  {which}: {} record{} without a record_id, not compared",
                thousands(side.without_id),
                plural(side.without_id)
            )?;
        }
    }
    if quiet || counts.is_empty() {
        return Ok(());
    }
    writeln!(out, "  changes:")?;
    for (item, &(code, n)) in counts.iter().enumerate() {
        let fit = Fit::of(item, tight_from);
        let allowed = r.is_allowed(code);
        let style = if allowed { Paint::Dim } else { Paint::Warn };
        let lead = format!(
            "    {}",
            paint(&format!("{:<CODE_WIDTH$}", code.name()), style)
        );
        let visible = 4 + CODE_WIDTH.max(code.name().len());
        let count = format!(
            "{} record{}{}",
            thousands(n),
            plural(n),
            if allowed { " (allowed)" } else { "" }
        );
        // `listed` shows one more than asked rather than `… and 1 more`
        let first = r.first(code, SHOWN + 1)?;
        let tries = fit.tries(SHOWN).map(|shown| {
            let mut w = Wrapped::new(lead.clone());
            let first = first.iter().map(|f| terminal_safe(&named(f)).into_owned());
            counted(&mut w, &count, first, n, shown);
            w
        });
        let hang = visible + 1;
        fitted(tries, fit.lines, visible, hang, width).write(out, visible, hang, width)?;
        if fit.lines > 1 {
            Wrapped::new(" ".repeat(hang - 1))
                .words(code.meaning())
                .write(out, hang, hang, width)?;
        }
    }
    Ok(())
}
