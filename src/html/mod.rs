//! The HTML report: one self-contained page (no script, no font, no link to anything outside
//! it) drawn from a [`Page`], a report-shaped value the commands fill in (`check`'s report,
//! `resolve`'s answer). The page knows nothing of where its contents came from; every text in
//! it, from a record or not, passes through [`escape`] on the way out.
//!
//! Rooms: `mod.rs` the page and its sections; `timeline.rs` a concept's records drawn as an
//! SVG on a date axis; `gather/` the concepts worth drawing, from where the command's own pass
//! saw each record, and their records read back.

pub mod gather;
mod timeline;

pub use timeline::{seconds, Bar, End, Timeline};

use std::borrow::Cow;
use std::io::{self, Write};

/// What a command drew of one store besides its report: the timelines gathered from it
/// (`gather::draw`), or why there are none.
#[derive(Debug, Default, Clone)]
pub struct Drawn {
    pub timelines: Vec<Timeline>,
    pub note: Option<String>,
}

/// What a page shows, top to bottom. Every text is plain text: the page escapes it.
#[derive(Debug, Default, Clone)]
pub struct Page {
    /// The page's title and first heading.
    pub title: String,
    /// A few facts, each a name and its value (store, shape, records, outcome).
    pub facts: Vec<(String, String)>,
    /// A short sentence under the facts (what a report could not draw, and why).
    pub notes: Vec<String>,
    /// The profile's levels, lowest first.
    pub levels: Vec<Level>,
    /// How much of the store fills each field.
    pub coverage: Vec<Coverage>,
    /// The headings the groups are listed under, in order (one with no group says `none`).
    pub sections: Vec<String>,
    /// The findings, grouped as the human report groups them.
    pub groups: Vec<Group>,
    /// A heading above the timelines (empty: none drawn).
    pub timelines_heading: String,
    pub timelines: Vec<Timeline>,
}

/// One level of the profile: reached, or what it still needs.
#[derive(Debug, Clone)]
pub struct Level {
    pub level: u8,
    pub name: String,
    pub reached: bool,
    pub needs: Vec<String>,
}

/// One field's coverage: `filled` of `total` records hold it.
#[derive(Debug, Clone)]
pub struct Coverage {
    pub field: String,
    /// The level that asks for it.
    pub level: u8,
    pub filled: usize,
    pub total: usize,
    /// What the figure means, when it is not a count of records (a policy stated once).
    pub note: String,
}

/// Findings of one kind: one row of the human report, with its count and its first items.
#[derive(Debug, Clone)]
pub struct Group {
    /// The section it is listed under (one of [`Page::sections`]).
    pub section: String,
    /// The field or the code.
    pub name: String,
    /// What it means.
    pub meaning: String,
    /// How many of it, as said (`3 warnings naming 12 records`).
    pub count: usize,
    pub counted: String,
    /// The first few items (a record and its line, a warning's message).
    pub items: Vec<String>,
    /// Items not shown.
    pub more: usize,
}

/// `text` for HTML text and attribute values: `&`, `<`, `>`, `"` and `'` as entities, and
/// control characters (which a page cannot show and XML refuses inside SVG) as U+FFFD.
pub fn escape(text: &str) -> Cow<'_, str> {
    let needs = |c: char| matches!(c, '&' | '<' | '>' | '"' | '\'') || is_control(c);
    if !text.contains(needs) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if is_control(c) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A character XML 1.0 does not allow (tab and newlines are kept).
fn is_control(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{FFFE}' | '\u{FFFF}')
}

/// The page's style: system fonts only, nothing fetched.
const STYLE: &str = r#"
:root{--fg:#1d2433;--muted:#5b6478;--line:#d6dae3;--bg:#fff;--ok:#1f8a4c;--bad:#c62828;--warn:#b26a00}
*{box-sizing:border-box}
body{margin:0;padding:24px 32px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:22px;margin:0 0 8px}
h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:14px;margin:18px 0 4px}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
table{border-collapse:collapse}
td,th{padding:3px 10px 3px 0;text-align:left;vertical-align:top}
th{color:var(--muted);font-weight:600}
.facts td:first-child{color:var(--muted)}
.note{color:var(--muted);margin:4px 0}
.level{display:flex;gap:10px;align-items:baseline;margin:4px 0}
.badge{display:inline-block;min-width:64px;padding:1px 8px;border-radius:10px;color:#fff;font-weight:600;text-align:center}
.reached{background:var(--ok)}.missing{background:var(--bad)}
.needs{margin:2px 0 8px 84px;padding:0}
.needs li{margin:1px 0}
.cov td{padding:2px 10px 2px 0}
.bar{position:relative;width:320px;height:12px;background:#f0d6d6;border-radius:3px;overflow:hidden}
.bar>span{position:absolute;left:0;top:0;bottom:0;background:var(--ok)}
.count{font-weight:600}
.group{margin:6px 0 10px}
.group ul{margin:2px 0 0 18px;padding:0}
.more{color:var(--muted)}
.timeline{margin:10px 0 22px}
.timeline svg{display:block;max-width:100%;height:auto;border:1px solid var(--line);border-radius:4px;background:#fcfcfd}
.legend{display:flex;flex-wrap:wrap;gap:12px;margin:4px 0;color:var(--muted)}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:-1px}
"#;

/// Write `pages` as one HTML document (one page a store, one after the other).
pub fn write(pages: &[Page], out: &mut dyn Write) -> io::Result<()> {
    let title = match pages {
        [one] => one.title.clone(),
        _ => format!("vercy: {} reports", pages.len()),
    };
    writeln!(out, "<!DOCTYPE html>")?;
    writeln!(out, "<html lang=\"en\"><head><meta charset=\"utf-8\">")?;
    writeln!(
        out,
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    )?;
    // nothing on the page may load or run anything: a policy that forbids it, so a text that
    // escaped escaping still could not
    writeln!(
        out,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
    )?;
    writeln!(out, "<title>{}</title>", escape(&title))?;
    writeln!(out, "<style>{STYLE}</style></head><body>")?;
    if pages.iter().any(|p| !p.timelines_heading.is_empty()) {
        timeline::defs(out)?;
    }
    for page in pages {
        writeln!(out, "<article>")?;
        writeln!(out, "<h1>{}</h1>", escape(&page.title))?;
        facts(page, out)?;
        levels(&page.levels, out)?;
        coverage(&page.coverage, out)?;
        groups(page, out)?;
        if !page.timelines_heading.is_empty() {
            writeln!(
                out,
                "<h2>{}</h2><section id=\"timelines\">",
                escape(&page.timelines_heading)
            )?;
            for t in &page.timelines {
                timeline::write(t, out)?;
            }
            writeln!(out, "</section>")?;
        }
        writeln!(out, "</article>")?;
    }
    writeln!(out, "</body></html>")
}

fn facts(page: &Page, out: &mut dyn Write) -> io::Result<()> {
    if !page.facts.is_empty() {
        writeln!(out, "<table class=\"facts\">")?;
        for (name, value) in &page.facts {
            writeln!(
                out,
                "<tr><td>{}</td><td class=\"mono\">{}</td></tr>",
                escape(name),
                escape(value)
            )?;
        }
        writeln!(out, "</table>")?;
    }
    for note in &page.notes {
        writeln!(out, "<p class=\"note\">{}</p>", escape(note))?;
    }
    Ok(())
}

fn levels(levels: &[Level], out: &mut dyn Write) -> io::Result<()> {
    if levels.is_empty() {
        return Ok(());
    }
    writeln!(out, "<h2>Levels</h2><section id=\"levels\">")?;
    for l in levels {
        let (class, word) = match l.reached {
            true => ("reached", "reached"),
            false => ("missing", "not yet"),
        };
        writeln!(
            out,
            "<div class=\"level\" data-level=\"{}\"><span class=\"badge {class}\">{}</span><b>{}</b></div>",
            l.level,
            word,
            escape(&l.name)
        )?;
        list(out, "needs", &l.needs, 0)?;
    }
    writeln!(out, "</section>")
}

fn coverage(rows: &[Coverage], out: &mut dyn Write) -> io::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "<h2>Coverage</h2><table class=\"cov\" id=\"coverage\"><tr><th>field</th><th>level</th><th></th><th>filled</th></tr>"
    )?;
    for c in rows {
        let share = match c.total {
            0 => 0.0,
            t => c.filled as f64 / t as f64,
        };
        let said = match c.note.is_empty() {
            true => format!("{} of {} ({:.1}%)", c.filled, c.total, share * 100.0),
            false => c.note.clone(),
        };
        writeln!(
            out,
            "<tr data-field=\"{}\"><td class=\"mono\">{}</td><td>{}</td><td><div class=\"bar\" title=\"{}\"><span style=\"width:{:.1}%\"></span></div></td><td>{}</td></tr>",
            escape(&c.field),
            escape(&c.field),
            c.level,
            escape(&said),
            share * 100.0,
            escape(&said)
        )?;
    }
    writeln!(out, "</table>")
}

fn groups(page: &Page, out: &mut dyn Write) -> io::Result<()> {
    for heading in &page.sections {
        let of_kind: Vec<&Group> = page
            .groups
            .iter()
            .filter(|g| &g.section == heading)
            .collect();
        let total: usize = of_kind.iter().map(|g| g.count).sum();
        writeln!(
            out,
            "<h2>{} <span class=\"count\">({total})</span></h2><section id=\"{}\">",
            escape(heading),
            escape(&heading.to_lowercase().replace(' ', "-"))
        )?;
        if of_kind.is_empty() {
            writeln!(out, "<p class=\"note\">none</p>")?;
        }
        for g in of_kind {
            writeln!(
                out,
                "<div class=\"group\" data-name=\"{}\" data-count=\"{}\"><code>{}</code> <span class=\"count\">{}</span>{}{}",
                escape(&g.name),
                g.count,
                escape(&g.name),
                escape(&g.counted),
                if g.meaning.is_empty() { "" } else { " — " },
                escape(&g.meaning)
            )?;
            list(out, "mono", &g.items, g.more)?;
            writeln!(out, "</div>")?;
        }
        writeln!(out, "</section>")?;
    }
    Ok(())
}

/// `items` as a list of class `class` (nothing when there are none), and `… and N more`.
fn list(out: &mut dyn Write, class: &str, items: &[String], more: usize) -> io::Result<()> {
    if items.is_empty() {
        return Ok(());
    }
    writeln!(out, "<ul class=\"{class}\">")?;
    for item in items {
        writeln!(out, "<li>{}</li>", escape(item))?;
    }
    if more > 0 {
        writeln!(out, "<li class=\"more\">… and {more} more</li>")?;
    }
    writeln!(out, "</ul>")
}

/// The page in memory (tests, small reports).
pub fn render(page: &Page) -> String {
    let mut out = Vec::new();
    // writing into memory cannot fail
    let _ = write(std::slice::from_ref(page), &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_markup_character_and_control_is_escaped() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"q\"\u{1}"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;\u{FFFD}"
        );
        assert!(matches!(escape("plain R-1"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_page_carries_no_script_and_no_link_out() {
        let page = Page {
            title: "<script>x</script>".into(),
            facts: vec![("store".into(), "<img src=x onerror=alert(1)>".into())],
            sections: vec!["Warnings".into()],
            groups: vec![Group {
                section: "Warnings".into(),
                name: "value.date".into(),
                meaning: "a date".into(),
                count: 1,
                counted: "1 warning".into(),
                items: vec!["</li><script>".into()],
                more: 0,
            }],
            ..Page::default()
        };
        let html = render(&page);
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(!html.contains("http://") && !html.contains("https://"));
        assert!(html.contains("&lt;script&gt;x&lt;/script&gt;"));
    }
}
