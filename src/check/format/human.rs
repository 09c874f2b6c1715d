//! The human report: one screen whatever the store holds. Findings one line each, warnings
//! grouped by code, each group one line with its count and its first few records (or
//! concepts), then `… and N more`; long lines wrap between items, never inside one, so an id
//! is never split. Every text read from the store goes through [`terminal_safe`].

use super::super::report::{plural, Group, Report, Warning};
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
/// Lines a finding or a warning group takes when its first record fits in them: fewer of its
/// first records are shown before it takes more (the report stays on one screen whatever the
/// length of the store's ids).
const ITEM_LINES: usize = 2;
/// The most lines a report takes when every item can be said in one: over this, items are
/// written [`Fit::TIGHT`] from the last up until it fits (a store with most warning codes
/// and long ids).
const REPORT_LINES: usize = 40;
/// The width lines wrap at when neither `COLUMNS` nor a terminal says.
const DEFAULT_WIDTH: usize = 100;

/// How much room a finding or a warning group is given.
#[derive(Debug, Clone, Copy)]
struct Fit {
    /// The lines it may take while a record of it is still shown.
    lines: usize,
    /// The fewest of its records shown: 0 leaves only their count.
    shown: usize,
}

impl Fit {
    /// A report that fits on a screen as it is.
    const ROOMY: Fit = Fit {
        lines: ITEM_LINES,
        shown: 1,
    };
    /// A report that does not: one line an item, its first records left out where they would
    /// take a second.
    const TIGHT: Fit = Fit { lines: 1, shown: 0 };

    /// How many first records to try showing, most first.
    fn tries(self, most: usize) -> impl Iterator<Item = usize> {
        (self.shown..=most).rev()
    }
}

/// The width to wrap at: `COLUMNS` when set, else the terminal's when the report goes to one,
/// else 100 (a pipe, a file, a CI log).
fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .or_else(|| {
            terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| usize::from(w.0))
        })
        .filter(|&w| w >= 40)
        .unwrap_or(DEFAULT_WIDTH)
}

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

/// A line made of pieces that must not be split (words, or whole list items), written
/// wrapped at `width`: a piece that does not fit starts a new line indented by `hang`.
struct Wrapped {
    lead: String,
    pieces: Vec<String>,
}

impl Wrapped {
    fn new(lead: String) -> Wrapped {
        Wrapped {
            lead,
            pieces: Vec::new(),
        }
    }

    /// Words of a text: each a piece.
    fn words(&mut self, text: &str) -> &mut Self {
        self.pieces.extend(
            text.split(' ')
                .filter(|w| !w.is_empty())
                .map(str::to_string),
        );
        self
    }

    /// A piece that stays whole (an id with its line, a concept with its owners).
    fn whole(&mut self, piece: String) -> &mut Self {
        self.pieces.push(piece);
        self
    }

    /// The lines the pieces wrap into; `lead` is shown with colour codes that take no
    /// columns: `visible` is its width.
    fn lines(&self, visible: usize, hang: usize, width: usize) -> Vec<String> {
        let mut lines = Vec::new();
        let mut line = self.lead.clone();
        let mut used = visible;
        // at the start of a continuation line: no space before the piece, and the piece goes
        // here whatever its length (a piece is never split but between the items it lists)
        let mut fresh = false;
        let room = width.saturating_sub(hang);
        let pieces = self
            .pieces
            .iter()
            .flat_map(|piece| listed_items(piece, room));
        for (i, piece) in pieces.enumerate() {
            let len = piece.chars().count();
            if i > 0 && !fresh && used + 1 + len > width {
                lines.push(std::mem::replace(&mut line, " ".repeat(hang)));
                used = hang;
                fresh = true;
            }
            if !fresh {
                line.push(' ');
                used += 1;
            }
            line.push_str(piece);
            used += len;
            fresh = false;
        }
        lines.push(line);
        lines
    }

    fn write(
        &self,
        out: &mut dyn Write,
        visible: usize,
        hang: usize,
        width: usize,
    ) -> io::Result<()> {
        for line in self.lines(visible, hang, width) {
            writeln!(out, "{line}")?;
        }
        Ok(())
    }
}

/// `piece` as the parts it may wrap between: whole when it fits in `room` columns, else cut
/// between the items it lists (after a `,` or a `→`, before a `(`), so that a concept with
/// many owners or a long cycle wraps between names, never inside one (the terminal would
/// wrap a line too wide anywhere).
fn listed_items(piece: &str, room: usize) -> Vec<&str> {
    if piece.chars().count() <= room {
        return vec![piece];
    }
    let mut items = Vec::new();
    let mut start = 0;
    for (at, _) in piece.match_indices(' ') {
        let before = &piece[start..at];
        let word = before.rsplit(' ').next().unwrap_or(before);
        if word.ends_with(',') || word == "→" || piece[at + 1..].starts_with('(') {
            items.push(before);
            start = at + 1;
        }
    }
    items.push(&piece[start..]);
    items.retain(|item| !item.is_empty());
    items
}

/// The first of `tries` (most records shown first) that wraps into at most `lines` lines,
/// or else the one that wraps into the fewest: long ids show fewer records rather than more
/// lines.
fn fitted(
    tries: impl Iterator<Item = Wrapped>,
    most: usize,
    visible: usize,
    hang: usize,
    width: usize,
) -> Wrapped {
    let mut fewest: Option<(usize, Wrapped)> = None;
    for w in tries {
        let lines = w.lines(visible, hang, width).len();
        if lines <= most {
            return w;
        }
        if fewest.as_ref().is_none_or(|(least, _)| lines < *least) {
            fewest = Some((lines, w));
        }
    }
    fewest.map_or_else(|| Wrapped::new(String::new()), |(_, w)| w)
}

/// `count` (`2,605 records`) and the first `shown` of its items after a colon, or the count
/// alone when none is shown.
fn counted(
    w: &mut Wrapped,
    count: &str,
    items: impl Iterator<Item = String>,
    total: usize,
    shown: usize,
) {
    if shown == 0 && total > 1 {
        w.words(count);
    } else {
        w.words(&format!("{count}:"));
        listed(w, items, total, shown);
    }
}

/// Items shown as pieces: the first `shown` (each ends in `,` but the last), then `… and N
/// more` for the rest of `total` (never `… and 1 more`: the one item is shown instead).
fn listed(w: &mut Wrapped, items: impl Iterator<Item = String>, total: usize, shown: usize) {
    let shown = if total == shown + 1 { total } else { shown };
    let mut n = 0;
    for item in items.take(shown) {
        n += 1;
        let last = n == total.min(shown);
        w.whole(if last && total <= shown {
            item
        } else {
            format!("{item},")
        });
    }
    if total > shown {
        w.whole(format!("… and {} more", thousands(total - n)));
    }
}

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
    let mut page = Vec::new();
    for tight_from in (0..=items).rev() {
        page.clear();
        render(r, &groups, quiet, &mut page, width, tight_from)?;
        if lines_in(&page) <= REPORT_LINES {
            break;
        }
    }
    out.write_all(&page)
}

fn lines_in(page: &[u8]) -> usize {
    page.iter().filter(|&&b| b == b'\n').count()
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
    let fit = |item: usize| {
        if item >= tight_from {
            Fit::TIGHT
        } else {
            Fit::ROOMY
        }
    };
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

    #[test]
    fn long_ids_show_fewer_records_rather_than_more_lines() {
        let id = |i: usize| format!("{i:08}-5569-e6e9-cbee-a7b526fc854c");
        let tries = (1..=3).rev().map(|shown| {
            let mut w = Wrapped::new("    source             level 2 MUST:".into());
            w.words("24,961 records:");
            listed(&mut w, (0..).map(id), 24_961, shown);
            w
        });
        let lines = fitted(tries, ITEM_LINES, 36, 23, 100).lines(36, 23, 100);
        assert_eq!(lines.len(), ITEM_LINES, "{lines:#?}");
        assert!(lines[1].ends_with("… and 24,959 more"), "{lines:#?}");
        // a piece wider than the line: the fewest lines, and still one record shown
        let tries = (1..=2).rev().map(|shown| {
            let mut w = Wrapped::new("    value.supersedes_cycle".into());
            w.words("200 supersedes cycles:");
            listed(
                &mut w,
                (0..).map(|i| [id(i), id(i + 1), id(i)].join(" → ")),
                200,
                shown,
            );
            w
        });
        let lines = fitted(tries, ITEM_LINES, 26, 31, 100).lines(26, 31, 100);
        assert_eq!(lines.len(), 3, "{lines:#?}");
        // cut between its ids, the cycle starts on the first line and fits the width
        assert!(lines[0].contains(&id(0)) && lines[2].contains("… and 199 more"));
        assert!(lines.iter().all(|l| l.chars().count() <= 100), "{lines:#?}");
    }

    #[test]
    fn a_piece_wider_than_a_line_wraps_between_its_items_only() {
        let owners: Vec<String> = (0..17).map(|i| format!("agent-{i}")).collect();
        let mut w = Wrapped::new("    value.owners".into());
        w.words("30,000 concepts have more than one owner:");
        w.whole(format!("KNOWS_10007 ({}),", owners.join(", ")));
        w.whole("… and 29,999 more".into());
        let lines = w.lines(16, 31, 80);
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "{lines:#?}");
        let text = lines.join("\n");
        // every owner whole, in order, the concept with its first
        assert!(lines[0].ends_with("KNOWS_10007 (agent-0,"), "{text}");
        let words: Vec<&str> = text.split_whitespace().collect();
        for owner in &owners {
            assert!(
                words
                    .iter()
                    .any(|w| w.trim_matches([',', '(', ')']) == owner),
                "{owner}: {text}"
            );
        }
        // an id wider than the room stays whole, its line after it
        let id = "org.example.knowledge.base/records/2025/R-0000000".repeat(2);
        let mut w = Wrapped::new("    value.date".into());
        w.whole(format!("{id} (line 7),"));
        w.whole("… and 3 more".into());
        let lines = w.lines(14, 31, 80);
        assert!(lines[0].ends_with(&format!(" {id}")), "{lines:#?}");
        assert_eq!(lines[1].trim(), "(line 7), … and 3 more");
        // a cycle cut after its arrows
        assert_eq!(listed_items("a → b → c", 3), ["a →", "b →", "c"]);
        assert_eq!(listed_items("a → b → c", 9), ["a → b → c"]);
        // a long concept and its owners: cut before the list too
        assert_eq!(
            listed_items("concept (x, y),", 8),
            ["concept", "(x,", "y),"]
        );
        assert_eq!(listed_items("R-1 (line 5),", 8), ["R-1", "(line 5),"]);
    }

    #[test]
    fn wrapping_never_splits_a_piece() {
        let mut w = Wrapped::new("  lead".into());
        for i in 0..30 {
            w.whole(format!("R-{i:07} (line {i}),"));
        }
        let mut out = Vec::new();
        w.write(&mut out, 6, 4, 60).unwrap();
        let text = String::from_utf8(out).unwrap();
        for line in text.lines() {
            assert!(line.chars().count() <= 60, "{line}");
        }
        let joined: Vec<&str> = text.split_whitespace().collect();
        assert!(
            joined.iter().all(|t| !t.starts_with("R-") || t.len() == 9),
            "{text}"
        );
        assert_eq!(text.matches("R-").count(), 30);
    }
}
