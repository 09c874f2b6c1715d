//! The human report: one screen whatever the store holds. Findings one line each, warnings
//! grouped by code, each group one line with its count and its first few records (or
//! concepts), then `… and N more`; long lines wrap between items, never inside one, so an id
//! is never split. Every text read from the store goes through [`terminal_safe`].

use super::super::report::{plural, Group, Report, Warning};
use crate::formats::page::{counted, fit_page, fitted, listed, width, Fit, Wrapped};
use crate::formats::thousands;
use crate::output::{paint, Paint};
use crate::profile::Profile;
use crate::text::terminal_safe;
use std::io::{self, Write};

/// Offenders of a finding shown before `… and N more`.
const FINDING_SHOWN: usize = 3;
/// Records (or concepts, cycles) of a warning group shown before `… and N more`.
const GROUP_SHOWN: usize = 2;
/// A warning's message longer than this is shown as its code's meaning (the JSON and the
/// annotations keep it whole).
const MESSAGE_SHOWN: usize = 100;

/// Write the report in at most `REPORT_LINES` lines where one line an item allows it: its
/// items (findings, then warning groups) are made tight from the last up, as few as
/// that takes.
pub fn write(r: &Report, quiet: bool, out: &mut dyn Write) -> io::Result<()> {
    let width = width();
    let groups = r.warnings.groups();
    // `--quiet` lists no findings or warnings: nothing to make tighter
    let items = match quiet {
        true => 0,
        false => r.findings.len() + groups.len(),
    };
    let page = fit_page(items, |tight_from, page| {
        render(r, &groups, quiet, page, width, tight_from)
    })?;
    out.write_all(&page)
}

/// The report (its warnings in `groups`), with items from the `tight_from`th on written
/// [`Fit::TIGHT`].
fn render(
    r: &Report,
    groups: &[Group],
    quiet: bool,
    out: &mut dyn Write,
    width: usize,
    tight_from: usize,
) -> io::Result<()> {
    let fit = |item: usize| Fit::of(item, tight_from);
    let profile = Profile::embedded();
    let top = profile.top_level();
    let verdict = if r.pass {
        paint("pass", Paint::Good)
    } else {
        paint("FAIL", Paint::Bad)
    };
    writeln!(out, "{}", paint(&terminal_safe(&r.store), Paint::Bold))?;
    if r.records == 0 {
        writeln!(
            out,
            "  level 0 of {top} · {verdict} · no records found ({})",
            r.shape.name()
        )?;
        writeln!(
            out,
            "  level 1 needs record_id, valid_from and valid_to on every record."
        )?;
        return Ok(());
    }
    let strict = if r.strict && r.level != r.reference_level {
        format!(" (presence alone: level {})", r.reference_level)
    } else {
        String::new()
    };
    writeln!(
        out,
        "  {}{strict} · {verdict} (needs level {}) · {} record{} · {}",
        paint(&format!("level {} of {top}", r.level), Paint::Bold),
        r.min_level,
        r.records,
        plural(r.records),
        r.shape.name()
    )?;
    if let Some(level) = profile.level(r.level).filter(|l| l.level > 0) {
        Wrapped::new(format!("  {}:", level.name))
            .words(&level.unlocks)
            .write(out, 3 + level.name.chars().count(), 4, width)?;
    }
    match r.next_level() {
        None => writeln!(out, "  every level of the profile is met")?,
        Some((next, needs)) => {
            writeln!(out, "  level {next} needs:")?;
            for n in needs {
                Wrapped::new("    -".into())
                    .words(&terminal_safe(&n))
                    .write(out, 5, 6, width)?;
            }
        }
    }
    if quiet {
        writeln!(
            out,
            "  profile {} {} · scope: {}",
            profile.overlay, profile.version, profile.checker.scope
        )?;
        return left_out(r, groups, out);
    }
    if !r.findings.is_empty() {
        writeln!(out, "  findings:")?;
        for (item, f) in r.findings.iter().enumerate() {
            let fit = fit(item);
            let style = if f.requirement == "SHOULD" {
                Paint::Dim
            } else {
                Paint::Warn
            };
            let lead = format!(
                "    {} {}:",
                paint(&format!("{:<18}", f.field), style),
                f.requirement
            );
            let n = f.offenders.len();
            let tries = fit.tries(FINDING_SHOWN).map(|shown| {
                let mut w = Wrapped::new(lead.clone());
                let offenders = f.offenders.iter().map(|o| terminal_safe(&o).into_owned());
                if f.first_line > 0 || n > 1 {
                    let count = format!("{} record{}", thousands(n), plural(n));
                    counted(&mut w, &count, offenders, n, shown);
                } else {
                    listed(&mut w, offenders, n, shown);
                }
                w
            });
            let visible = 4 + 18.max(f.field.len()) + 2 + f.requirement.chars().count();
            fitted(tries, fit.lines, visible, 23, width).write(out, visible, 23, width)?;
        }
    }
    if !groups.is_empty() {
        writeln!(
            out,
            "  warnings (values){}:",
            if r.strict {
                ", counted under --strict"
            } else {
                ""
            }
        )?;
        for (i, g) in groups.iter().enumerate() {
            group_line(r, g, out, width, fit(r.findings.len() + i))?;
        }
    }
    if let Some((register, missing)) = &r.expected_concepts {
        let mut w = Wrapped::new(format!(
            "  expected concepts (experimental): {} in the register, {} missing{}",
            register.len(),
            missing.len(),
            if missing.is_empty() { "" } else { ":" }
        ));
        listed(
            &mut w,
            missing.iter().map(|c| terminal_safe(c).into_owned()),
            missing.len(),
            GROUP_SHOWN * 2,
        );
        let lead = w.lead.chars().count();
        w.write(out, lead, 4, width)?;
    }
    writeln!(
        out,
        "  profile {} {} · scope: {}",
        profile.overlay, profile.version, profile.checker.scope
    )
}

/// One warning group: one warning, its message and first records; several (a concept with
/// several owners, a cycle: one warning each), their count and first subjects.
fn group_line(
    r: &Report,
    g: &Group,
    out: &mut dyn Write,
    width: usize,
    fit: Fit,
) -> io::Result<()> {
    let lead = format!("    {}", paint(&format!("{:<26}", g.code), Paint::Warn));
    let visible = 4 + 26.max(g.code.code().len());
    let start = || Wrapped::new(lead.clone());
    let w = if g.warnings == 1 {
        let Some(one) = r.warnings.of_code(g.code).next() else {
            return Ok(());
        };
        let message = one.message();
        // a message that does not leave room for a record on two lines is shown as its
        // code's meaning (the JSON and the annotations keep it whole)
        let messages = match message.chars().count() > MESSAGE_SHOWN {
            true => vec![one.code.meaning()],
            false => vec![&*message, one.code.meaning()],
        };
        let tries = messages.into_iter().flat_map(|message| {
            fit.tries(GROUP_SHOWN).map(move |shown| {
                let mut w = start();
                w.words(&format!("{}:", terminal_safe(message)));
                let n = one.count();
                if n > 0 {
                    let count = format!("{} record{}", thousands(n), plural(n));
                    counted(&mut w, &count, records_of(one), n, shown);
                }
                w
            })
        });
        fitted(tries, fit.lines, visible, visible + 1, width)
    } else {
        let n = thousands(g.warnings);
        let tries = fit.tries(GROUP_SHOWN).map(|shown| {
            let mut w = start();
            let count = g.code.many(&n);
            let subjects = r.warnings.of_code(g.code).map(|x| {
                let subject = x.subject();
                if subject.is_empty() {
                    terminal_safe(&x.message()).into_owned()
                } else {
                    terminal_safe(&subject).into_owned()
                }
            });
            counted(&mut w, &count, subjects, g.warnings, shown);
            w
        });
        fitted(tries, fit.lines, visible, visible + 1, width)
    };
    w.write(out, visible, visible + 1, width)
}

fn records_of<'a>(w: Warning<'a>) -> impl Iterator<Item = String> + 'a {
    w.records().map(|(name, line)| {
        if line > 0 {
            format!("{} (line {line})", terminal_safe(&name))
        } else {
            terminal_safe(&name).into_owned()
        }
    })
}

/// `--quiet`'s last line: what it did not show.
fn left_out(r: &Report, groups: &[Group], out: &mut dyn Write) -> io::Result<()> {
    let offenders: usize = r.findings.iter().map(|f| f.offenders.len()).sum();
    let warnings: usize = groups.iter().map(|g| g.warnings).sum();
    if r.findings.is_empty() && warnings == 0 {
        return Ok(());
    }
    writeln!(
        out,
        "  --quiet left out {} missing field{} ({} offender{}) and {} warning{} of {} code{}",
        r.findings.len(),
        plural(r.findings.len()),
        thousands(offenders),
        plural(offenders),
        thousands(warnings),
        plural(warnings),
        groups.len(),
        plural(groups.len())
    )
}
