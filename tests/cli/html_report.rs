//! `--format html` (issue 54): the page's structure on fixtures (the concepts drawn, most
//! findings first; each record's bar with its dates; supersedes arrows, conflicts, inverted
//! intervals), a record's markup shown as text, `-o` written atomically, `resolve`'s page with
//! its date line and the record that holds; and the page rendered by a real browser (headless
//! Chromium), which must show something and log nothing on its console.

use crate::common;

use common::{fixture, program, stderr_of, stdout_of, vercy};
use std::path::Path;
use std::process::Command;

const TIMELINE: &str = "fixtures/html/timeline.jsonl";

/// The README's resolve question: data_retention on 2026-07-01 for finance (D-802 holds).
fn resolve_args() -> Vec<&'static str> {
    let store = ["resolve", "fixtures/reference-store.jsonl"];
    let host = ["--host", "fixtures/resolve/host.yaml"];
    [&store[..], &host, &crate::resolve_cli::README_QUESTION].concat()
}

/// `vercy ARGS`, its page from stdout and its exit code.
fn page(args: &[&str]) -> (String, Option<i32>) {
    let out = vercy().args(args).output().unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        stderr_of(&out)
    );
    (stdout_of(&out), out.status.code())
}

/// Every `attr="…"` value on elements that carry `marker`, in order.
fn values<'a>(html: &'a str, marker: &str, attr: &str) -> Vec<&'a str> {
    html.split(marker)
        .skip(1)
        .filter_map(|rest| {
            let tag = &rest[..rest.find('>')?];
            let at = tag.find(&format!("{attr}=\""))? + attr.len() + 2;
            Some(&tag[at..at + tag[at..].find('"')?])
        })
        .collect()
}

/// The opening tag of the bar of record `id`.
fn bar<'a>(html: &'a str, id: &str) -> &'a str {
    let at = html
        .find(&format!("data-id=\"{id}\""))
        .unwrap_or_else(|| panic!("no bar for {id}"));
    let start = html[..at].rfind("<g ").unwrap();
    &html[start..at + html[at..].find('>').unwrap()]
}

/// Nothing on the page loads or runs anything.
fn assert_self_contained(html: &str) {
    let lower = html.to_lowercase();
    for banned in [
        "<script",
        "<link",
        "<img",
        "<iframe",
        "src=",
        "href=",
        "@import",
        "url(http",
        "@font-face",
    ] {
        assert!(!lower.contains(banned), "the page holds {banned:?}");
    }
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.trim_end().ends_with("</html>"));
}

#[test]
fn the_check_page_draws_the_concepts_with_the_most_findings_and_their_bars() {
    let (html, code) = page(&["check", TIMELINE, "--format", "html"]);
    assert_eq!(code, Some(0));
    assert_self_contained(&html);
    // most findings first; a concept no finding names is not drawn
    assert_eq!(
        values(&html, "<div class=\"timeline\"", "data-concept"),
        ["alpha", "&lt;script&gt;alert(1)&lt;/script&gt;", "beta"]
    );
    assert!(html.contains("Concepts with the most findings (3 drawn)"));
    // each record a bar, with its dates as written; an open end said so
    assert_eq!(
        bar(&html, "A-1"),
        "<g class=\"rec\" data-id=\"A-1\" data-line=\"1\" data-from=\"2025-01-01\" data-to=\"2025-06-30\""
    );
    assert!(bar(&html, "A-2").contains("class=\"rec conflict open\""));
    assert!(bar(&html, "A-2").contains("data-to=\"open\""));
    assert!(bar(&html, "A-3").contains("conflict"));
    assert!(bar(&html, "B-1").contains("class=\"rec inverted\""));
    assert!(!html.contains("data-id=\"D-1\""), "calm has no finding");
    // the hover title names the record, its line, its owner, its dates and its warnings
    assert!(html.contains(
        "<title>A-1 · line 1 · owner legal · 2025-01-01 → 2025-06-30 · value.owners · value.superseded_valid_to</title>"
    ));
    // supersedes as an arrow from the newer record to the one it replaces
    assert_eq!(
        values(&html, "class=\"supersedes\"", "data-to"),
        ["A-1"],
        "one supersedes pointer"
    );
    // levels, coverage, and the findings as the human report groups them, with counts
    assert!(html.contains("data-level=\"1\"><span class=\"badge reached\">"));
    assert!(html.contains("data-level=\"2\"><span class=\"badge missing\">"));
    assert!(
        html.contains("<li>applies_to: on 1 record (MUST on any record that states a rule)</li>")
    );
    assert!(html.contains("<tr data-field=\"supersedes\">"));
    assert!(
        html.contains("1 of 7 (14.3%)"),
        "one record of seven supersedes"
    );
    assert_eq!(
        values(&html, "<div class=\"group\"", "data-name"),
        [
            "applies_to",
            "does_not_apply_to",
            "owner_role",
            "supersedes",
            "value.interval",
            "value.owners",
            "value.superseded_valid_to",
            "value.conflict"
        ]
    );
    assert_eq!(
        values(&html, "data-name=\"value.conflict\"", "data-count"),
        ["1"]
    );
}

#[test]
fn a_record_holding_markup_shows_it_as_text() {
    let (html, _) = page(&["check", TIMELINE, "--format", "html"]);
    assert_self_contained(&html);
    // the concept, its value's owner and the warnings' words: text, never markup
    assert!(html.contains("<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>"));
    assert!(html.contains("&lt;b&gt;ops&lt;/b&gt;"));
    assert!(!html.contains("<b>ops"));
    assert!(!html.contains("alert(1)</script>"));
}

#[test]
fn o_writes_the_page_to_a_file_and_nothing_to_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("report.html");
    std::fs::write(&out_file, "an older report").unwrap();
    let out = vercy()
        .args(["check", TIMELINE, "--format", "html", "-o"])
        .arg(&out_file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(out.stdout.is_empty());
    let html = std::fs::read_to_string(&out_file).unwrap();
    assert_self_contained(&html);
    // no temporary file left beside it (the writers' lock file stays, as export's does)
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".vercy-lock"))
        .collect();
    assert_eq!(left, ["report.html"]);
    // -o serves every format
    let out = vercy()
        .args(["check", TIMELINE, "--format", "json", "-o"])
        .arg(&out_file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap();
    assert_eq!(json["records"], 7);
    // a report that cannot be written: exit 2, naming the path
    let out = vercy()
        .args(["check", TIMELINE, "--format", "html", "-o"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains(&dir.path().display().to_string()));
}

#[test]
fn a_store_from_stdin_gets_its_report_and_a_note_instead_of_timelines() {
    let store = std::fs::read(fixture("html/timeline.jsonl")).unwrap();
    let out = vercy()
        .args(["check", "-", "--format", "html"])
        .write_stdin(store)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let html = stdout_of(&out);
    assert!(html.contains("no timelines: the store was read from a pipe"));
    assert!(html.contains("data-name=\"value.conflict\""));
    assert!(!html.contains("class=\"timeline\""));
}

#[test]
fn resolve_draws_the_concept_with_its_date_line_and_the_record_that_holds() {
    let (html, code) = page(&[&resolve_args()[..], &["--format", "html"]].concat());
    assert_eq!(code, Some(0));
    assert_self_contained(&html);
    assert!(html.contains("<g class=\"date-line\">"));
    assert!(html.contains(">as of 2026-07-01</text>"));
    assert!(bar(&html, "D-802").contains("class=\"rec holds open\""));
    assert!(bar(&html, "D-801").starts_with("<g class=\"rec open\""));
    assert!(html.contains("D-806 · line 11 · owner legal · 2026-10-01 → open · expired"));
    assert_eq!(
        values(&html, "class=\"supersedes\"", "data-from"),
        ["D-802", "D-806"]
    );
    assert!(html.contains("<td>holds</td><td class=\"mono\">D-802</td>"));
}

/// The timelines of a page: its section, whole.
fn timelines(html: &str) -> &str {
    let at = html
        .find("<section id=\"timelines\">")
        .expect("a timelines section");
    &html[at..at + html[at..].find("</section>").expect("its end")]
}

/// The JSON texts `lines` as every store the page reads back its own way, each record on the
/// line it has in `lines` (so the pages draw the same bars): JSON lines with a byte order mark
/// and CRLF endings, a JSON array and an envelope (read at their offsets), and a SQLite
/// table read by a query (read in one more pass). Each store's arguments.
fn every_way(lines: &[&str], dir: &Path) -> Vec<Vec<String>> {
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        vec![path.display().to_string()]
    };
    let db = dir.join("store.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("CREATE TABLE docs (doc TEXT)", []).unwrap();
    for line in lines {
        conn.execute("INSERT INTO docs (doc) VALUES (?1)", [line])
            .unwrap();
    }
    vec![
        write("crlf.jsonl", format!("\u{feff}{}\r\n", lines.join("\r\n"))),
        write("array.json", format!("[{}]\n", lines.join(",\n"))),
        write(
            "envelope.json",
            format!("{{\"memories\": [{}]}}\n", lines.join(",\n")),
        ),
        vec![
            format!("sqlite:{}", db.display()),
            "--sql".into(),
            "SELECT doc FROM docs ORDER BY rowid".into(),
        ],
    ]
}

/// `vercy check STORE… --format html`'s page.
fn check_page(store: &[String]) -> String {
    let store = store.iter().map(String::as_str);
    let args: Vec<&str> = ["check"]
        .into_iter()
        .chain(store)
        .chain(["--format", "html"])
        .collect();
    page(&args).0
}

#[test]
fn the_timelines_are_the_same_whatever_the_store_is_read_from() {
    let text = std::fs::read_to_string(fixture("html/timeline.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let dir = tempfile::tempdir().unwrap();
    let (plain, _) = page(&["check", TIMELINE, "--format", "html"]);
    let drawn = timelines(&plain);
    assert!(drawn.contains("data-id=\"A-1\" data-line=\"1\""));
    for store in every_way(&lines, dir.path()) {
        assert_eq!(timelines(&check_page(&store)), drawn, "{store:?}");
    }
}

#[test]
fn past_fifty_concepts_the_most_findings_are_drawn_a_tie_cut_by_concept() {
    // k00..k59 with 1 to 4 records each, every one inverted (a finding each), and one concept
    // of 130 records, 5 of them inverted
    let mut lines = Vec::new();
    let mut expected: Vec<(usize, String)> = Vec::new();
    let record = |id: String, concept: &str, from: &str, to: &str| {
        format!(
            r#"{{"record_id": "{id}", "concept": "{concept}", "value": "v", "valid_from": "{from}", "valid_to": {to}, "source": "s", "concept_owner": "o"}}"#
        )
    };
    for i in 0..60 {
        let n = 1 + (i * 7) % 4;
        let concept = format!("k{i:02}");
        for j in 0..n {
            lines.push(record(
                format!("{concept}-{j}"),
                &concept,
                "2025-06-01",
                "\"2025-01-01\"",
            ));
        }
        expected.push((n, concept));
    }
    for j in 0..130 {
        lines.push(match j % 26 {
            0 => record(format!("big-{j}"), "big", "2025-06-01", "\"2025-01-01\""),
            _ => record(
                format!("big-{j}"),
                "big",
                &format!("2020-01-{:02}", 1 + j % 28),
                "null",
            ),
        });
    }
    expected.push((5, "big".into()));
    expected.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let expected: Vec<String> = expected.into_iter().take(50).map(|(_, c)| c).collect();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("many.jsonl");
    std::fs::write(&jsonl, lines.join("\n") + "\n").unwrap();
    let html = check_page(&[jsonl.display().to_string()]);
    assert_eq!(
        values(&html, "<div class=\"timeline\"", "data-concept"),
        expected
    );
    assert!(html.contains("<code>big</code> — 130 records, 5 findings"));
    assert!(html.contains("10 more records of this concept not drawn"));
    assert_eq!(html.matches("data-id=\"big-").count(), 120);
    assert!(html.contains("<code>k57</code> — 4 records, 4 findings"));
    assert!(
        !html.contains("<code>k16</code>"),
        "one record, past the cut"
    );
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    for store in every_way(&lines, dir.path()) {
        assert_eq!(
            timelines(&check_page(&store)),
            timelines(&html),
            "{store:?}"
        );
    }
}

#[test]
fn the_page_draws_the_same_concepts_in_every_run() {
    // 400 concepts of one inverted record each: all tie, and the summary keeps 200 of them
    // as candidates, so a hash seeded per run would pick other ones each time
    let lines: Vec<String> = (0..400)
        .map(|i| {
            format!(
                r#"{{"record_id": "t-{i}", "concept": "tie{i:03}", "value": "v", "valid_from": "2025-06-01", "valid_to": "2025-01-01", "source": "s", "concept_owner": "o"}}"#
            )
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("ties.jsonl");
    std::fs::write(&jsonl, lines.join("\n") + "\n").unwrap();
    let store = [jsonl.display().to_string()];
    let first = check_page(&store);
    assert_eq!(
        values(&first, "<div class=\"timeline\"", "data-concept").len(),
        50
    );
    for _ in 0..3 {
        assert_eq!(timelines(&check_page(&store)), timelines(&first));
    }
}

const DIFF_BASE: &str = "fixtures/diff/base.jsonl";

#[test]
fn diff_draws_its_changes_and_the_changed_concepts_from_head() {
    let (html, code) = page(&[
        "diff",
        DIFF_BASE,
        "fixtures/diff/end_written.head.jsonl",
        "--format",
        "html",
    ]);
    assert_eq!(code, Some(1));
    assert_self_contained(&html);
    assert!(
        html.contains("FAIL: history was changed, 1 finding"),
        "{html}"
    );
    assert!(html.contains("history.end_written"));
    // the concept whose record was ended by hand is drawn, with both its records
    assert_eq!(
        values(&html, "<div class=\"timeline\"", "data-concept"),
        ["data_retention"]
    );
    assert!(bar(&html, "R-1").contains("data-to=\"2025-06-01\""));
    assert!(
        html.contains("R-1 · line 1 · owner legal · 2025-01-01 → 2025-06-01 · history.end_written")
    );
    assert!(html.contains("class=\"supersedes\""));
    // history only added to: nothing to draw, and it passes
    let (html, code) = page(&[
        "diff",
        DIFF_BASE,
        "fixtures/diff/clean.head.jsonl",
        "--format",
        "html",
    ]);
    assert_eq!(code, Some(0));
    assert!(html.contains("pass: history was only added to"));
    assert!(values(&html, "<div class=\"timeline\"", "data-concept").is_empty());
    // HEAD from stdin: its changes, and a note instead of timelines
    let out = vercy()
        .args(["diff", DIFF_BASE, "-", "--format", "html"])
        .write_stdin(std::fs::read("fixtures/diff/end_written.head.jsonl").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let html = stdout_of(&out);
    assert!(html.contains("history.end_written"));
    assert!(html.contains("no timelines: the store was read from a pipe"));
    assert!(!html.contains("class=\"timeline\""));
}

/// `vercy diff BASE HEAD --format html`'s page, each side's arguments first (a database's
/// `--sql` after both: it reads each side).
fn diff_page(base: &[String], head: &[String]) -> String {
    let args: Vec<&str> = ["diff", base[0].as_str(), head[0].as_str()]
        .into_iter()
        .chain(head[1..].iter().map(String::as_str))
        .chain(["--format", "html"])
        .collect();
    page(&args).0
}

#[test]
fn a_diff_page_draws_the_same_whether_head_is_read_back_at_offsets_or_whole() {
    // k00..k59 with 1 to 4 records each, every one ended by hand in HEAD (a finding each), and
    // one concept of 130 records, 5 of them ended: past fifty concepts, ties cut by concept
    let record = |id: String, concept: &str, to: &str| {
        format!(
            r#"{{"record_id": "{id}", "concept": "{concept}", "value": "v", "valid_from": "2025-01-01", "valid_to": {to}, "source": "s", "concept_owner": "o"}}"#
        )
    };
    let (mut base, mut head) = (Vec::new(), Vec::new());
    let mut expected: Vec<(usize, String)> = Vec::new();
    for i in 0..60 {
        let n = 1 + (i * 7) % 4;
        let concept = format!("k{i:02}");
        for j in 0..n {
            base.push(record(format!("{concept}-{j}"), &concept, "null"));
            head.push(record(format!("{concept}-{j}"), &concept, "\"2025-06-01\""));
        }
        expected.push((n, concept));
    }
    for j in 0..130 {
        let ended = if j % 26 == 0 {
            "\"2025-06-01\""
        } else {
            "null"
        };
        base.push(record(format!("big-{j}"), "big", "null"));
        head.push(record(format!("big-{j}"), "big", ended));
    }
    expected.push((5, "big".into()));
    expected.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let expected: Vec<String> = expected.into_iter().take(50).map(|(_, c)| c).collect();
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str, lines: &[String]| {
        let path = dir.path().join(name);
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        vec![path.display().to_string()]
    };
    let html = diff_page(&side("base.jsonl", &base), &side("head.jsonl", &head));
    assert!(
        html.contains("FAIL: history was changed, 155 findings"),
        "{html}"
    );
    assert_eq!(
        values(&html, "<div class=\"timeline\"", "data-concept"),
        expected
    );
    assert!(html.contains("<code>big</code> — 130 records, 5 findings"));
    assert!(html.contains("10 more records of this concept not drawn"));
    assert!(
        !html.contains("<code>k16</code>"),
        "one record, past the cut"
    );
    // each side written the same way: HEAD read back at its offsets, or (SQLite) whole
    let ways = |lines: &[String], name: &str| {
        let at = dir.path().join(name);
        std::fs::create_dir(&at).unwrap();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        every_way(&lines, &at)
    };
    let (bases, heads) = (ways(&base, "base"), ways(&head, "head"));
    assert!(heads.iter().any(|h| h[0].starts_with("sqlite:")));
    for (base, head) in bases.iter().zip(&heads) {
        assert_eq!(
            timelines(&diff_page(base, head)),
            timelines(&html),
            "{head:?}"
        );
    }
}

/// The deflated image data of a PNG, inflated (every IDAT chunk, in order).
fn png_data(png: &[u8]) -> Vec<u8> {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let mut at = 8;
    let mut idat = Vec::new();
    while at + 8 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        if &png[at + 4..at + 8] == b"IDAT" {
            idat.extend_from_slice(&png[at + 8..at + 8 + len]);
        }
        at += 12 + len;
    }
    miniz_oxide::inflate::decompress_to_vec_zlib(&idat).expect("the PNG's data inflates")
}

/// A screenshot shows something: its pixels take many values (a blank page's rows are one
/// colour, and their bytes a handful of values).
fn shows_something(png: &[u8]) -> bool {
    let mut seen = [false; 256];
    for b in png_data(png) {
        seen[b as usize] = true;
    }
    seen.iter().filter(|&&s| s).count() > 32
}

/// Chromium's headless screenshot of `page`, and what it logged: the page's console lines.
fn screenshot(chromium: &Path, page: &Path, shot: &Path) -> (Vec<u8>, Vec<String>) {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1100,2000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let console = stderr_of(&out)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    (std::fs::read(shot).expect("a screenshot"), console)
}

#[test]
fn chromium_renders_the_pages_with_something_on_them_and_no_console_error() {
    let Some(chromium) = program("chromium") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // the detectors first: a blank page that logs an error is caught by both
    let bad = dir.path().join("bad.html");
    std::fs::write(
        &bad,
        "<!DOCTYPE html><html><body><script>console.error('boom')</script></body></html>",
    )
    .unwrap();
    let (shot, console) = screenshot(&chromium, &bad, &dir.path().join("bad.png"));
    assert!(!shows_something(&shot), "a blank page reads as blank");
    assert!(
        console.iter().any(|l| l.contains("boom")),
        "a console error is seen: {console:?}"
    );
    for (name, args) in [
        (
            "check",
            vec!["check", TIMELINE, "fixtures/values/messy-500.jsonl"],
        ),
        ("resolve", resolve_args()),
        (
            "diff",
            vec!["diff", DIFF_BASE, "fixtures/diff/edited.head.jsonl"],
        ),
    ] {
        let html = dir.path().join(format!("{name}.html"));
        let out = vercy()
            .args(&args)
            .args(["--format", "html", "-o"])
            .arg(&html)
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{}",
            stderr_of(&out)
        );
        let (shot, console) = screenshot(&chromium, &html, &dir.path().join(format!("{name}.png")));
        assert!(shows_something(&shot), "{name}: the screenshot is blank");
        assert!(console.is_empty(), "{name}: the console says {console:?}");
        // `VERCY_UPDATE_SCREENSHOTS=1` keeps them for the README (docs/)
        if std::env::var_os("VERCY_UPDATE_SCREENSHOTS").is_some() {
            let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
            std::fs::write(docs.join(format!("html-{name}.png")), &shot).unwrap();
        }
    }
}
