//! One concept's records on a date axis, as an inline SVG: a bar a record from valid_from to
//! valid_to (an open end runs off the axis's right edge and ends in an arrow), coloured by
//! owner, supersedes pointers drawn as arrows from the superseding record to the one it
//! supersedes, a conflict outlined in red, an inverted interval hatched from its end back to
//! its start; each bar's `<title>` (shown on hover) names the record, its line, its owner, its
//! dates and what the check said of it. A date line (`resolve --as-of`) is drawn across.

use super::escape;
use crate::text::plural;
use std::collections::HashMap;
use std::io::{self, Write};

/// One concept's records, as the page draws them.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    pub concept: String,
    /// The findings that name its records (what chose it for drawing).
    pub findings: usize,
    pub bars: Vec<Bar>,
    /// Records of the concept left undrawn (past the most a timeline draws).
    pub not_drawn: usize,
    /// Records of the concept the reader may not see: counted, never drawn.
    pub withheld: usize,
    /// A date drawn across the axis (seconds since the epoch) and its label.
    pub date_line: Option<(i64, String)>,
    /// A sentence under the drawing.
    pub note: String,
}

/// One record of a concept.
#[derive(Debug, Clone, Default)]
pub struct Bar {
    /// Its id (or how the report names a record without one).
    pub id: String,
    /// Its line in the store (0: not known).
    pub line: u64,
    /// valid_from: seconds since the epoch and the text as written; `None` when missing or
    /// not a date.
    pub from: Option<(i64, String)>,
    pub to: End,
    pub owner: String,
    /// The ids it supersedes.
    pub supersedes: Vec<String>,
    /// Part of a conflict (overlapping in force with a different value).
    pub conflict: bool,
    /// The record that holds (resolve's answer).
    pub holds: bool,
    /// What the report says of it (its warnings' codes, a resolve reason).
    pub marks: Vec<String>,
}

/// Where a record's validity ends.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum End {
    /// No end: in force from valid_from on.
    #[default]
    Open,
    /// A date: seconds since the epoch, and the text as written.
    At(i64, String),
    /// Written but not a date (the text).
    Unreadable(String),
}

impl Bar {
    /// valid_to after valid_from is not: drawn from its end back to its start.
    pub fn inverted(&self) -> bool {
        matches!((&self.from, &self.to), (Some((f, _)), End::At(t, _)) if t < f)
    }

    fn to_text(&self) -> &str {
        match &self.to {
            End::Open => "open",
            End::At(_, t) | End::Unreadable(t) => t,
        }
    }
}

/// Owner colours, in order of first appearance on a timeline; past the last, grey.
const PALETTE: [&str; 8] = [
    "#3b6fd8", "#2a9d6e", "#d9822b", "#8e5bd1", "#c2407a", "#1e9bb3", "#8a8a2a", "#6b4f3a",
];
const OTHER: &str = "#9aa0ab";

const WIDTH: i64 = 960;
const LABEL_W: i64 = 170;
const RIGHT_PAD: i64 = 24;
const TOP: i64 = 30;
const ROW: i64 = 18;
const BAR_H: i64 = 12;

/// The shared SVG definitions (arrowheads, the hatching of an inverted interval): once a page.
pub(super) fn defs(out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>\
<marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\" fill=\"#39414f\"/></marker>\
<marker id=\"open\" viewBox=\"0 0 10 10\" refX=\"1\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#39414f\"/></marker>\
<pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fbe3e3\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#c62828\" stroke-width=\"2\"/></pattern>\
</defs></svg>"
    )
}

/// The axis: the dates drawn, padded, as x positions.
struct Axis {
    lo: i64,
    hi: i64,
}

impl Axis {
    fn of(t: &Timeline) -> Axis {
        let mut dates: Vec<i64> = Vec::new();
        for b in &t.bars {
            if let Some((f, _)) = b.from {
                dates.push(f);
            }
            if let End::At(to, _) = b.to {
                dates.push(to);
            }
        }
        if let Some((d, _)) = t.date_line {
            dates.push(d);
        }
        let (lo, hi) = match (dates.iter().min(), dates.iter().max()) {
            (Some(&lo), Some(&hi)) => (lo, hi),
            _ => (0, 86_400),
        };
        // a little room either side, and an open end's run past the last date
        let span = (hi - lo).max(86_400 * 30);
        Axis {
            lo: lo - span / 20,
            hi: hi + span / 8,
        }
    }

    fn x(&self, secs: i64) -> f64 {
        let room = (WIDTH - LABEL_W - RIGHT_PAD) as f64;
        LABEL_W as f64
            + room * (secs.clamp(self.lo, self.hi) - self.lo) as f64 / (self.hi - self.lo) as f64
    }

    fn right(&self) -> f64 {
        (WIDTH - RIGHT_PAD) as f64
    }
}

/// Seconds since the epoch of a date's first instant.
pub fn seconds(t: &crate::time::Timestamp) -> i64 {
    (t.start().div_euclid(1_000_000_000)).clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

/// `YYYY-MM-DD` of seconds since the epoch.
fn day(secs: i64) -> String {
    let (y, m, d) = crate::time::civil_from_days(secs.div_euclid(86_400));
    format!("{y:04}-{m:02}-{d:02}")
}

/// The most characters of a record's text (an id, an owner, a date as written) a timeline
/// shows: a store of 3,000-byte ids still makes a page of a few megabytes.
const TEXT_SHOWN: usize = 120;
/// Supersedes arrows a timeline draws, per record drawn: a record may name thousands.
const ARROWS_PER_BAR: usize = 2;

/// `text` as a timeline shows it: at most [`TEXT_SHOWN`] characters, escaped.
fn shown(text: &str) -> String {
    escape(&clipped(text, TEXT_SHOWN)).into_owned()
}

/// `text` cut to `most` characters, with an ellipsis when cut.
fn clipped(text: &str, most: usize) -> String {
    match text.char_indices().nth(most) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Write one concept's timeline: its heading, the drawing, the owners' legend.
pub(super) fn write(t: &Timeline, out: &mut dyn Write) -> io::Result<()> {
    let mut rows: Vec<&Bar> = t.bars.iter().collect();
    // by start (the undated last), then by line
    rows.sort_by_key(|b| (b.from.as_ref().map_or(i64::MAX, |f| f.0), b.line));
    let axis = Axis::of(t);
    let mut owners: Vec<&str> = Vec::new();
    for b in &rows {
        if !owners.contains(&b.owner.as_str()) {
            owners.push(&b.owner);
        }
    }
    let colour = |owner: &str| {
        owners
            .iter()
            .position(|o| *o == owner)
            .and_then(|i| PALETTE.get(i))
            .copied()
            .unwrap_or(OTHER)
    };
    let height = TOP + ROW * rows.len().max(1) as i64 + 12;
    let findings = match t.findings {
        0 => String::new(),
        n => format!(", {n} finding{}", plural(n)),
    };
    writeln!(
        out,
        "<div class=\"timeline\" data-concept=\"{}\"><h3><code>{}</code> — {} record{}{findings}</h3>",
        shown(&t.concept),
        shown(&t.concept),
        rows.len() + t.not_drawn,
        plural(rows.len() + t.not_drawn),
    )?;
    writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" role=\"img\" font-family=\"system-ui,sans-serif\" font-size=\"11\"><title>{}</title>",
        shown(&t.concept)
    )?;
    ticks(&axis, height, out)?;
    if let Some((at, label)) = &t.date_line {
        let x = axis.x(*at);
        writeln!(
            out,
            "<g class=\"date-line\"><line x1=\"{x:.1}\" y1=\"{}\" x2=\"{x:.1}\" y2=\"{}\" stroke=\"#111\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/><text x=\"{:.1}\" y=\"{}\" font-weight=\"600\">{}</text></g>",
            TOP - 6,
            height - 4,
            x + 3.0,
            TOP - 8,
            escape(label)
        )?;
    }
    let mut arrows = ARROWS_PER_BAR * rows.len();
    let mut row_of: HashMap<&str, usize> = HashMap::new();
    for (i, b) in rows.iter().enumerate() {
        row_of.entry(b.id.as_str()).or_insert(i);
    }
    for (i, b) in rows.iter().enumerate() {
        bar(b, i, &axis, colour(&b.owner), out)?;
    }
    // supersedes: from the superseding record's start to the superseded one's end
    for (i, b) in rows.iter().enumerate() {
        for target in &b.supersedes {
            let Some(&j) = row_of.get(target.as_str()).filter(|_| arrows > 0) else {
                continue;
            };
            arrows -= 1;
            let Some((x1, _)) = span(b, &axis) else {
                continue;
            };
            let Some((tx0, tx1)) = span(rows[j], &axis) else {
                continue;
            };
            // the point of the superseded bar nearest the superseding one's start
            let x2 = x1.clamp(tx0, tx1);
            let (y1, y2) = (mid(i), mid(j));
            writeln!(
                out,
                "<path class=\"supersedes\" data-from=\"{}\" data-to=\"{}\" d=\"M{x1:.1},{y1:.1} C{:.1},{y1:.1} {:.1},{y2:.1} {x2:.1},{y2:.1}\" fill=\"none\" stroke=\"#39414f\" stroke-width=\"1.2\" marker-end=\"url(#arrow)\"><title>{} supersedes {}</title></path>",
                shown(&b.id),
                shown(target),
                x1 - 24.0,
                x2 + 24.0,
                shown(&b.id),
                shown(target)
            )?;
        }
    }
    writeln!(out, "</svg>")?;
    write!(out, "<div class=\"legend\">")?;
    for o in &owners {
        let name = match o.is_empty() {
            true => "(no owner)",
            false => o,
        };
        write!(
            out,
            "<span><i class=\"swatch\" style=\"background:{}\"></i>{}</span>",
            colour(o),
            shown(name)
        )?;
    }
    write!(
        out,
        "<span><i class=\"swatch\" style=\"background:#fff;outline:2px solid #c62828\"></i>conflict</span><span><i class=\"swatch\" style=\"background:#fbe3e3;outline:1px dashed #c62828\"></i>inverted interval</span><span>→ open end</span>"
    )?;
    writeln!(out, "</div>")?;
    let mut notes = Vec::new();
    if t.not_drawn > 0 {
        notes.push(format!(
            "{} more record{} of this concept not drawn",
            t.not_drawn,
            plural(t.not_drawn)
        ));
    }
    if t.withheld > 0 {
        notes.push(format!(
            "{} record{} withheld from this reader",
            t.withheld,
            plural(t.withheld)
        ));
    }
    if !t.note.is_empty() {
        notes.push(t.note.clone());
    }
    if !notes.is_empty() {
        writeln!(out, "<p class=\"note\">{}</p>", escape(&notes.join("; ")))?;
    }
    writeln!(out, "</div>")
}

fn mid(row: usize) -> f64 {
    (TOP + ROW * row as i64) as f64 + BAR_H as f64 / 2.0
}

/// Where a bar lies on the axis, left to right; `None` without a readable start.
fn span(b: &Bar, axis: &Axis) -> Option<(f64, f64)> {
    let (from, _) = b.from.as_ref()?;
    let x0 = axis.x(*from);
    Some(match &b.to {
        End::At(to, _) if b.inverted() => (axis.x(*to), x0),
        End::At(to, _) => (x0, axis.x(*to)),
        End::Open | End::Unreadable(_) => (x0, axis.right()),
    })
}

/// Five dates along the top, with faint lines down.
fn ticks(axis: &Axis, height: i64, out: &mut dyn Write) -> io::Result<()> {
    write!(out, "<g class=\"axis\" fill=\"#5b6478\">")?;
    for k in 0..5 {
        let at = axis.lo + (axis.hi - axis.lo) * k / 4;
        let x = axis.x(at);
        let anchor = match k {
            0 => "start",
            4 => "end",
            _ => "middle",
        };
        write!(
            out,
            "<line x1=\"{x:.1}\" y1=\"{}\" x2=\"{x:.1}\" y2=\"{}\" stroke=\"#e6e8ee\"/><text x=\"{x:.1}\" y=\"12\" text-anchor=\"{anchor}\">{}</text>",
            TOP - 4,
            height - 6,
            day(at)
        )?;
    }
    writeln!(out, "</g>")
}

/// One record's row: its id on the left, its bar, its hover title.
fn bar(b: &Bar, row: usize, axis: &Axis, colour: &str, out: &mut dyn Write) -> io::Result<()> {
    let y = TOP + ROW * row as i64;
    let from_text = b.from.as_ref().map_or("unreadable", |f| f.1.as_str());
    let short = |t: &str| clipped(t, TEXT_SHOWN);
    let mut title = format!("{} · line {}", short(&b.id), b.line);
    if !b.owner.is_empty() {
        title.push_str(&format!(" · owner {}", short(&b.owner)));
    }
    title.push_str(&format!(" · {} → {}", short(from_text), short(b.to_text())));
    if b.inverted() {
        title.push_str(" · inverted interval");
    }
    if b.holds {
        title.push_str(" · holds");
    }
    for m in &b.marks {
        title.push_str(" · ");
        title.push_str(m);
    }
    let mut class = String::from("rec");
    for (on, name) in [
        (b.conflict, " conflict"),
        (b.inverted(), " inverted"),
        (b.holds, " holds"),
        (b.to == End::Open, " open"),
    ] {
        if on {
            class.push_str(name);
        }
    }
    write!(
        out,
        "<g class=\"{class}\" data-id=\"{}\" data-line=\"{}\" data-from=\"{}\" data-to=\"{}\"><title>{}</title><text x=\"4\" y=\"{}\" class=\"mono\">{}</text>",
        shown(&b.id),
        b.line,
        shown(from_text),
        shown(b.to_text()),
        escape(&title),
        y + BAR_H - 2,
        escape(&clipped(&b.id, 24))
    )?;
    match span(b, axis) {
        None => write!(
            out,
            "<text x=\"{}\" y=\"{}\" fill=\"#c62828\">valid_from {}</text>",
            LABEL_W,
            y + BAR_H - 2,
            escape(&clipped(from_text, 40))
        )?,
        Some((x0, x1)) => {
            let w = (x1 - x0).max(2.0);
            let (fill, stroke) = match (b.inverted(), b.conflict, b.holds) {
                (true, _, _) => (
                    "url(#hatch)".to_string(),
                    " stroke=\"#c62828\" stroke-dasharray=\"3 2\" stroke-width=\"1.5\"",
                ),
                (false, true, _) => (
                    colour.to_string(),
                    " stroke=\"#c62828\" stroke-width=\"2.5\"",
                ),
                (false, false, true) => {
                    (colour.to_string(), " stroke=\"#111\" stroke-width=\"2.5\"")
                }
                _ => (colour.to_string(), ""),
            };
            write!(
                out,
                "<rect x=\"{x0:.1}\" y=\"{y}\" width=\"{w:.1}\" height=\"{BAR_H}\" rx=\"2\" fill=\"{fill}\"{stroke}/>"
            )?;
            if !matches!(b.to, End::At(..)) {
                // an open (or unreadable) end runs on past the axis
                let ym = y as f64 + BAR_H as f64 / 2.0;
                write!(
                    out,
                    "<line x1=\"{:.1}\" y1=\"{ym:.1}\" x2=\"{:.1}\" y2=\"{ym:.1}\" stroke=\"#39414f\" stroke-width=\"1.2\" marker-end=\"url(#open)\"/>",
                    x1 - 1.0,
                    x1 + 8.0
                )?;
            }
            if b.conflict {
                write!(
                    out,
                    "<text x=\"{:.1}\" y=\"{}\" fill=\"#c62828\" font-weight=\"700\">!</text>",
                    x0 + 3.0,
                    y + BAR_H - 2
                )?;
            }
        }
    }
    writeln!(out, "</g>")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(id: &str, from: i64, to: End) -> Bar {
        Bar {
            id: id.into(),
            line: 1,
            from: Some((from, day(from))),
            to,
            owner: "team".into(),
            ..Bar::default()
        }
    }

    fn drawn(t: &Timeline) -> String {
        let mut out = Vec::new();
        write(t, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn bars_open_ends_inversions_and_arrows_are_drawn() {
        let day = 86_400;
        let mut newer = bar("B", 40 * day, End::Open);
        newer.supersedes = vec!["A".into(), "gone".into()];
        let t = Timeline {
            concept: "c".into(),
            bars: vec![
                bar("A", 10 * day, End::At(50 * day, "1970-02-20".into())),
                newer,
                bar("C", 30 * day, End::At(20 * day, "1970-01-21".into())),
            ],
            ..Timeline::default()
        };
        let svg = drawn(&t);
        assert_eq!(svg.matches("<g class=\"rec").count(), 3);
        assert!(svg.contains("class=\"rec open\" data-id=\"B\""), "{svg}");
        assert!(
            svg.contains("class=\"rec inverted\" data-id=\"C\""),
            "{svg}"
        );
        // one arrow: the pointer to a record not drawn is left out
        assert_eq!(svg.matches("class=\"supersedes\"").count(), 1);
        assert!(svg.contains("data-from=\"B\" data-to=\"A\""));
        assert!(svg.contains("<title>A · line 1 · owner team · 1970-01-11 → 1970-02-20</title>"));
    }

    #[test]
    fn an_undated_record_is_listed_not_placed() {
        let mut b = bar("X", 0, End::Open);
        b.from = None;
        let svg = drawn(&Timeline {
            concept: "c".into(),
            bars: vec![b],
            ..Timeline::default()
        });
        assert!(svg.contains("valid_from unreadable"));
        assert!(!svg.contains("<rect"));
    }

    #[test]
    fn long_texts_and_many_pointers_stay_bounded() {
        let long = "x".repeat(3000);
        let mut b = bar(&long, 0, End::Open);
        b.owner = long.clone();
        let mut bars = vec![b];
        for k in 0..10 {
            let mut other = bar(&format!("R-{k}"), 86_400 * k, End::Open);
            other.supersedes = (0..10).map(|j| format!("R-{j}")).collect();
            bars.push(other);
        }
        let svg = drawn(&Timeline {
            concept: long.clone(),
            bars,
            ..Timeline::default()
        });
        assert!(!svg.contains(&"x".repeat(TEXT_SHOWN + 1)));
        assert!(svg.contains(&format!("{}…", "x".repeat(TEXT_SHOWN))));
        // 100 pointers among 11 records: two arrows a record at most
        assert_eq!(svg.matches("class=\"supersedes\"").count(), 22);
    }
}
