//! The man pages in `man/` are generated from the clap definitions (`vercy::cli::Cli`).
//! This test regenerates them in memory and fails when a committed page differs, is missing,
//! or no longer belongs to a subcommand. To rewrite them:
//!
//!     VERCY_UPDATE_MAN=1 cargo test --test cli man_pages::

use crate::common;
use clap::CommandFactory;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every page, by file name: `vercy.1`, then `vercy-<sub>.1` for each visible subcommand
/// (nested ones too), as `clap_mangen::generate_to` names them.
fn pages() -> BTreeMap<String, Vec<u8>> {
    fn collect(cmd: clap::Command, out: &mut BTreeMap<String, Vec<u8>>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
            collect(sub, out);
        }
        let man = clap_mangen::Man::new(cmd.clone());
        let mut text = Vec::new();
        render(&man, &cmd, &mut text).expect("rendering into memory cannot fail");
        out.insert(man.get_filename(), text);
    }
    let mut cmd = vercy::cli::Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut out = BTreeMap::new();
    collect(cmd, &mut out);
    out
}

/// A page as clap_mangen renders it, but for the after-help text: its examples go to an
/// EXAMPLES section set line for line as they are typed (`.EX`, never filled or justified
/// into broken commands), its prose to NOTES, and every page gets an EXIT STATUS section
/// (from `vercy::cli::EXIT_CODES`).
fn render(man: &clap_mangen::Man, cmd: &clap::Command, w: &mut Vec<u8>) -> std::io::Result<()> {
    man.render_title(w)?;
    man.render_name_section(w)?;
    man.render_synopsis_section(w)?;
    man.render_description_section(w)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(w)?;
    }
    if cmd.has_subcommands() {
        man.render_subcommands_section(w)?;
    }
    let after = cmd
        .get_after_help()
        .map(|h| h.to_string())
        .unwrap_or_default();
    let (notes, examples) = split_after_help(&after);
    if !notes.is_empty() {
        w.extend_from_slice(b".SH NOTES\n");
        for paragraph in notes.split("\n\n") {
            w.extend_from_slice(format!(".PP\n{}\n", roff_text(paragraph)).as_bytes());
        }
    }
    if !examples.is_empty() {
        w.extend_from_slice(b".SH EXAMPLES\n");
        for (caption, lines) in examples {
            if !caption.is_empty() {
                w.extend_from_slice(format!(".PP\n{}\n", roff_text(&caption)).as_bytes());
            }
            w.extend_from_slice(b".PP\n.RS 4\n.EX\n");
            for line in lines {
                w.extend_from_slice(format!("{}\n", roff_text(&line)).as_bytes());
            }
            w.extend_from_slice(b".EE\n.RE\n");
        }
    }
    w.extend_from_slice(b".SH \"EXIT STATUS\"\n");
    for line in vercy::cli::EXIT_CODES.lines().skip(1) {
        let (code, meaning) = line.trim().split_once(' ').expect("`CODE meaning` lines");
        w.extend_from_slice(
            format!(".TP\n\\fB{code}\\fR\n{}\n", roff_text(meaning.trim())).as_bytes(),
        );
    }
    if cmd.get_version().is_some() {
        man.render_version_section(w)?;
    }
    Ok(())
}

/// The after-help text as prose, and examples: (caption, command lines) under each heading
/// ending in `:` that starts with "Example". The top level's exit codes are left out: the
/// EXIT STATUS section says them.
fn split_after_help(text: &str) -> (String, Vec<(String, Vec<String>)>) {
    let mut notes = String::new();
    let mut examples: Vec<(String, Vec<String>)> = Vec::new();
    let mut in_examples = false;
    if text.starts_with("Exit codes:") {
        return (notes, examples);
    }
    for line in text.lines() {
        if line.starts_with("Example") && line.ends_with(':') {
            let caption = line
                .strip_prefix("Examples:")
                .or(line.strip_prefix("Example:"));
            let caption = caption.map_or(line.trim_end_matches(':').to_string(), str::to_string);
            examples.push((caption, Vec::new()));
            in_examples = true;
        } else if in_examples && line.starts_with("  ") {
            examples.last_mut().unwrap().1.push(line.trim().to_string());
        } else {
            in_examples = false;
            notes.push_str(line);
            notes.push('\n');
        }
    }
    (notes.trim().to_string(), examples)
}

/// Text for roff: backslashes and hyphens escaped (so a command copies with ASCII `-`), a line
/// that starts with `.` or `'` kept from being read as a request.
fn roff_text(text: &str) -> String {
    text.lines()
        .map(|line| {
            let escaped = line.replace('\\', "\\e").replace('-', "\\-");
            if escaped.starts_with('.') || escaped.starts_with('\'') {
                format!("\\&{escaped}")
            } else {
                escaped
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn man_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("man")
}

fn committed() -> BTreeMap<String, Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(man_dir()) else {
        return BTreeMap::new();
    };
    entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "1"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

#[test]
fn man_pages_match_the_command_line() {
    let fresh = pages();
    let old = committed();
    if std::env::var_os("VERCY_UPDATE_MAN").is_some_and(|v| v != "0" && !v.is_empty()) {
        std::fs::create_dir_all(man_dir()).unwrap();
        for name in old.keys().filter(|n| !fresh.contains_key(*n)) {
            std::fs::remove_file(man_dir().join(name)).unwrap();
        }
        for (name, text) in &fresh {
            if old.get(name) != Some(text) {
                std::fs::write(man_dir().join(name), text).unwrap();
            }
        }
        return;
    }
    let mut stale = Vec::new();
    for (name, text) in &fresh {
        match old.get(name) {
            None => stale.push(format!("{name}: missing")),
            Some(t) if t != text => {
                stale.push(format!("{name}: differs from the clap definitions"))
            }
            Some(_) => {}
        }
    }
    for name in old.keys().filter(|n| !fresh.contains_key(*n)) {
        stale.push(format!("{name}: no such (sub)command any more"));
    }
    assert!(
        stale.is_empty(),
        "man/ is stale:\n  {}\nrewrite it with: VERCY_UPDATE_MAN=1 cargo test --test cli man_pages::",
        stale.join("\n  ")
    );
}

#[test]
fn there_is_a_page_for_the_tool_and_each_subcommand() {
    let names: Vec<String> = pages().into_keys().collect();
    assert!(names.contains(&"vercy.1".to_string()));
    for sub in vercy::cli::Cli::command().get_subcommands() {
        let page = format!("vercy-{}.1", sub.get_name());
        assert!(names.contains(&page), "no page {page}");
    }
}

#[test]
fn pages_carry_the_examples_and_exit_codes() {
    let p = pages();
    let text = |n: &str| String::from_utf8_lossy(&p[n]).into_owned();
    for (name, page) in &p {
        let page = String::from_utf8_lossy(page);
        assert!(
            page.contains(".SH \"EXIT STATUS\"\n.TP\n\\fB0\\fR\nsuccess"),
            "{name}"
        );
        assert!(
            page.contains("\\fB2\\fR\nan input could not be read"),
            "{name}"
        );
        assert!(!page.contains(".SH EXTRA"), "{name}");
        assert!(page.is_ascii(), "{name} has non-ASCII text");
    }
    // an example is one line of its own in a no-fill block, hyphens escaped
    let check = text("vercy-check.1");
    assert!(
        check.contains(".EX\nvercy check fixtures/reference\\-store.jsonl\n"),
        "{check}"
    );
    assert!(check.contains(
        "\nvercy check edges.jsonl \\-\\-map record_id=uuid,valid_from=valid_at,valid_to=invalid_at,source=episode\n"
    ));
    assert!(check.contains("min\\-level"));
    assert!(text("vercy-decay.1").contains(".SH NOTES\n.PP\nKept so legacy cron scripts"));
}

/// groff with every warning on (`-ww`, as `man --warnings` runs it) complains of nothing in
/// any page (non-ASCII characters were its complaint), and shows an example command on one
/// line however narrow the page.
#[test]
fn groff_reads_every_page_without_a_warning() {
    let Some(groff) = common::program("groff") else {
        return;
    };
    for (name, page) in pages() {
        for width in ["80n", "40n"] {
            let mut child = std::process::Command::new(&groff)
                // -P-cbou: plain text, no escape sequences or overstrikes for bold and underline
                .args(["-man", "-Tutf8", "-ww", "-P-cbou", &format!("-rLL={width}")])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            use std::io::Write;
            child.stdin.take().unwrap().write_all(&page).unwrap();
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{name}: {stderr}");
            // at 40 columns groff may not justify some option text ("cannot adjust line");
            // at the usual width it has nothing to say
            if width == "80n" {
                assert!(stderr.is_empty(), "{name}: {stderr}");
            }
            let shown = String::from_utf8_lossy(&out.stdout);
            assert!(shown.contains("EXIT STATUS"), "{name}");
            if name == "vercy-check.1" {
                assert!(
                    shown.lines().any(|l| l.trim().starts_with(
                        "vercy check edges.jsonl --map record_id=uuid,valid_from=valid_at,"
                    )),
                    "{name} at {width}: the example is broken:\n{shown}"
                );
            }
        }
    }
}
