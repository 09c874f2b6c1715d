//! A human report on one screen, whatever the store holds: items (a finding, a group of
//! warnings or changes) one line or two each, each with its count and its first few records
//! and then `… and N more`; long lines wrap between the items they list, never inside one, so
//! an id is never split; a page still over [`REPORT_LINES`] gives its last items one line
//! each, from the bottom up, until it fits ([`fit_page`]).

use super::thousands;
use std::io::{self, Write};

/// Lines an item takes when its first record fits in them: fewer of its first records are
/// shown before it takes more (the report stays on one screen whatever the length of the
/// store's ids).
pub const ITEM_LINES: usize = 2;
/// The most lines a report takes when every item can be said in one: over this, items are
/// written [`Fit::TIGHT`] from the last up until it fits (a store with most codes and long
/// ids).
pub const REPORT_LINES: usize = 40;
/// The width lines wrap at when neither `COLUMNS` nor a terminal says.
const DEFAULT_WIDTH: usize = 100;

/// How much room an item is given.
#[derive(Debug, Clone, Copy)]
pub struct Fit {
    /// The lines it may take while a record of it is still shown.
    pub lines: usize,
    /// The fewest of its records shown: 0 leaves only their count.
    pub shown: usize,
}

impl Fit {
    /// A report that fits on a screen as it is.
    pub const ROOMY: Fit = Fit {
        lines: ITEM_LINES,
        shown: 1,
    };
    /// A report that does not: one line an item, its first records left out where they would
    /// take a second.
    pub const TIGHT: Fit = Fit { lines: 1, shown: 0 };

    /// The fit of item number `item` on a page whose items from `tight_from` on are tight.
    pub fn of(item: usize, tight_from: usize) -> Fit {
        if item >= tight_from {
            Fit::TIGHT
        } else {
            Fit::ROOMY
        }
    }

    /// How many first records to try showing, most first.
    pub fn tries(self, most: usize) -> impl Iterator<Item = usize> {
        (self.shown..=most).rev()
    }
}

/// The width to wrap at: `COLUMNS` when set, else the terminal's when the report goes to one,
/// else 100 (a pipe, a file, a CI log).
pub fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .or_else(|| {
            terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| usize::from(w.0))
        })
        .filter(|&w| w >= 40)
        .unwrap_or(DEFAULT_WIDTH)
}

/// The page of a report of `items` items, as `render(tight_from, page)` writes it with the
/// items from the `tight_from`th on [`Fit::TIGHT`]: as few of them tight, from the last up, as
/// keep it within [`REPORT_LINES`] (all of them, when nothing less does).
pub fn fit_page(
    items: usize,
    mut render: impl FnMut(usize, &mut Vec<u8>) -> io::Result<()>,
) -> io::Result<Vec<u8>> {
    let mut page = Vec::new();
    for tight_from in (0..=items).rev() {
        page.clear();
        render(tight_from, &mut page)?;
        if lines_in(&page) <= REPORT_LINES {
            break;
        }
    }
    Ok(page)
}

fn lines_in(page: &[u8]) -> usize {
    page.iter().filter(|&&b| b == b'\n').count()
}

/// A line made of pieces that must not be split (words, or whole list items), written
/// wrapped at `width`: a piece that does not fit starts a new line indented by `hang`.
pub struct Wrapped {
    pub lead: String,
    pieces: Vec<String>,
}

impl Wrapped {
    pub fn new(lead: String) -> Wrapped {
        Wrapped {
            lead,
            pieces: Vec::new(),
        }
    }

    /// Words of a text: each a piece.
    pub fn words(&mut self, text: &str) -> &mut Self {
        self.pieces.extend(
            text.split(' ')
                .filter(|w| !w.is_empty())
                .map(str::to_string),
        );
        self
    }

    /// A piece that stays whole (an id with its line, a concept with its owners).
    pub fn whole(&mut self, piece: String) -> &mut Self {
        self.pieces.push(piece);
        self
    }

    /// The lines the pieces wrap into; `lead` is shown with colour codes that take no
    /// columns: `visible` is its width.
    pub fn lines(&self, visible: usize, hang: usize, width: usize) -> Vec<String> {
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

    pub fn write(
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
pub fn fitted(
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
pub fn counted(
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
pub fn listed(w: &mut Wrapped, items: impl Iterator<Item = String>, total: usize, shown: usize) {
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_page_makes_its_last_items_tight_until_it_fits() {
        // each roomy item two lines, each tight one: 30 items fit once 20 are tight
        let page = fit_page(30, |tight_from, page| {
            for item in 0..30 {
                let lines = if item >= tight_from { 1 } else { 2 };
                for _ in 0..lines {
                    writeln!(page, "item {item}")?;
                }
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(lines_in(&page), REPORT_LINES);
    }
}
