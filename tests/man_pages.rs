//! The man pages in `man/` are generated from the clap definitions (`vercy::cli::Cli`).
//! This test regenerates them in memory and fails when a committed page differs, is missing,
//! or no longer belongs to a subcommand. To rewrite them:
//!
//!     VERCY_UPDATE_MAN=1 cargo test --test man_pages

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
        let man = clap_mangen::Man::new(cmd);
        let mut text = Vec::new();
        man.render(&mut text)
            .expect("rendering into memory cannot fail");
        out.insert(man.get_filename(), text);
    }
    let mut cmd = vercy::cli::Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut out = BTreeMap::new();
    collect(cmd, &mut out);
    out
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
        "man/ is stale:\n  {}\nrewrite it with: VERCY_UPDATE_MAN=1 cargo test --test man_pages",
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
    assert!(text("vercy.1").contains("Exit codes"));
    assert!(text("vercy-check.1").contains("vercy check fixtures/reference"));
    assert!(text("vercy-check.1").contains("min\\-level"));
}
