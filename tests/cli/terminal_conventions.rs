//! Terminal conventions: `--color auto|always|never` with NO_COLOR and CLICOLOR_FORCE,
//! `-q/--quiet`, `--progress auto|always|never` (never in CI logs or machine formats), and
//! help with examples for every subcommand.

use crate::common;
use assert_cmd::Command;
use clap::CommandFactory;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// vercy with no colour or CI settings inherited from the environment running the tests.
fn vercy() -> Command {
    let mut cmd = Command::cargo_bin("vercy").unwrap();
    cmd.current_dir(root())
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CI");
    cmd
}

const ESC: &str = "\u{1b}[";

fn diagnostic(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut cmd = vercy();
    cmd.args(["check", "fixtures/bad/bad-line-middle.jsonl"])
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn color_follows_the_flag_then_no_color_then_clicolor_force_then_the_terminal() {
    let colored = |args: &[&str], env: &[(&str, &str)]| diagnostic(args, env).contains(ESC);
    // not a terminal (a pipe): auto means no colour
    assert!(!colored(&[], &[]));
    assert!(colored(&["--color", "always"], &[]));
    assert!(!colored(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]));
    assert!(colored(&[], &[("CLICOLOR_FORCE", "1")]));
    assert!(!colored(&[], &[("CLICOLOR_FORCE", "0")]));
    // NO_COLOR wins over CLICOLOR_FORCE; an explicit --color always wins over both
    assert!(!colored(&[], &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]));
    assert!(colored(&["--color", "always"], &[("NO_COLOR", "1")]));
    // an empty NO_COLOR does not count (no-color.org)
    assert!(colored(&[], &[("NO_COLOR", ""), ("CLICOLOR_FORCE", "1")]));
    // with or without colour, the diagnostic says the same thing
    let plain = diagnostic(&["--color", "never"], &[]);
    assert!(plain.contains("bad-line-middle.jsonl:4:77"), "{plain}");
}

#[test]
fn quiet_drops_findings_and_notices_but_not_the_answer() {
    let loud = vercy()
        .args(["check", "fixtures/reference-store.jsonl"])
        .output()
        .unwrap();
    let quiet = vercy()
        .args(["-q", "check", "fixtures/reference-store.jsonl"])
        .output()
        .unwrap();
    let (loud, quiet_out) = (String::from_utf8_lossy(&loud.stdout), quiet);
    let quiet = String::from_utf8_lossy(&quiet_out.stdout);
    assert!(loud.contains("findings"), "{loud}");
    assert!(!quiet.contains("findings"), "{quiet}");
    assert!(quiet.contains("level "), "the level is the answer: {quiet}");
    assert_eq!(quiet_out.status.code(), Some(0));

    let dir = tempfile::tempdir().unwrap();
    let into = dir.path().join("store.jsonl");
    let into = into.to_str().unwrap();
    let import = |quiet: bool| {
        let mut cmd = vercy();
        if quiet {
            cmd.arg("--quiet");
        }
        cmd.args([
            "import",
            "fixtures/reference-store.jsonl",
            "--into",
            into,
            "--purge",
        ])
        .output()
        .unwrap()
    };
    assert!(
        !import(false).stderr.is_empty(),
        "import summarises on stderr"
    );
    let q = import(true);
    assert_eq!(q.status.code(), Some(0));
    assert!(
        q.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&q.stderr)
    );
    // --quiet never hides an error
    let e = vercy()
        .args(["-q", "check", "fixtures/bad/not-json.jsonl"])
        .output()
        .unwrap();
    assert_eq!(e.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&e.stderr).contains("not-json.jsonl:1:1"));
}

#[test]
fn help_for_every_subcommand_has_examples() {
    for sub in vercy::cli::Cli::command().get_subcommands() {
        let name = sub.get_name();
        let out = vercy().args([name, "--help"]).output().unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "vercy {name} --help");
        assert!(
            help.contains("Example"),
            "vercy {name} --help has no example:\n{help}"
        );
        assert!(
            help.contains(&format!("vercy {name}")),
            "vercy {name} --help:\n{help}"
        );
    }
    let top = vercy().arg("--help").output().unwrap();
    let top = String::from_utf8_lossy(&top.stdout);
    for flag in ["--color", "--progress", "--quiet", "Exit codes"] {
        assert!(top.contains(flag), "vercy --help lacks {flag}");
    }
}

// ---- progress, which only a terminal shows: run vercy under `script` (a pseudo-terminal) ---

/// A store big enough for check's progress bar (32 MB and more), made once.
fn big_store() -> &'static PathBuf {
    static STORE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &STORE
        .get_or_init(|| {
            use std::io::Write;
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("big.jsonl");
            let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
            let pad = "p".repeat(1000);
            for i in 0..34_000 {
                writeln!(f, r#"{{"record_id": "R-{i}", "valid_from": "2025-01-01", "valid_to": null, "pad": "{pad}"}}"#).unwrap();
            }
            (dir, path)
        })
        .1
}

/// `script` running the shell line `line` on a pseudo-terminal, with `$VERCY` the binary under
/// test and without `CI`; `None` without the `script` tool.
fn script(line: &str) -> Option<std::process::Command> {
    let mut cmd = std::process::Command::new(common::program("script")?);
    cmd.args(["-qec", line, "/dev/null"])
        .env("VERCY", assert_cmd::cargo::cargo_bin("vercy"))
        .env_remove("CI");
    Some(cmd)
}

/// stderr of `vercy check BIG ARGS` on a pseudo-terminal (stdout to /dev/null); `None`
/// without the `script` tool.
fn on_a_terminal(args: &str, ci: bool) -> Option<String> {
    let line = format!(
        "\"$VERCY\" check '{}' {args} >/dev/null",
        big_store().display()
    );
    let mut cmd = script(&line)?;
    cmd.env_remove("NO_COLOR");
    if ci {
        cmd.env("CI", "true");
    }
    let out = cmd.output().unwrap();
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn progress_shows_on_a_terminal_and_never_in_ci_or_machine_formats() {
    let bar = |s: &str| s.contains("checking");
    let Some(human) = on_a_terminal("", false) else {
        return;
    };
    assert!(bar(&human), "no progress on a terminal:\n{human}");
    assert!(!bar(&on_a_terminal("", true).unwrap()), "progress in CI");
    assert!(
        !bar(&on_a_terminal("--format json", false).unwrap()),
        "progress with JSON"
    );
    assert!(
        !bar(&on_a_terminal("--format sarif", false).unwrap()),
        "progress with SARIF"
    );
    assert!(!bar(&on_a_terminal("--progress never", false).unwrap()));
    assert!(
        !bar(&on_a_terminal("--quiet", false).unwrap()),
        "progress with --quiet"
    );
    assert!(bar(
        &on_a_terminal("--format json --progress always", true).unwrap()
    ));
}

#[test]
fn progress_always_draws_where_stderr_is_no_terminal() {
    // stderr is a pipe here: `auto` draws nothing, `always` draws the bar (a log asked for it)
    let stderr = |progress: &str| {
        let out = vercy()
            .args(["--progress", progress, "check"])
            .arg(big_store())
            .arg("--quiet")
            .env_remove("CI")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let forced = stderr("always");
    assert!(forced.contains("checking"), "no bar:\n{forced}");
    assert!(forced.contains("MiB"), "no bytes on the bar:\n{forced}");
    assert!(!stderr("auto").contains("checking"));
}

/// stderr of `vercy ARGS` on a pseudo-terminal with `env` set (TERM=xterm-256color unless
/// given); `None` without the `script` tool.
fn diagnostic_on_a_terminal(env: &[(&str, &str)]) -> Option<String> {
    let mut cmd = script("\"$VERCY\" check fixtures/bad/bad-line-middle.jsonl")?;
    cmd.current_dir(root())
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// stdout of `vercy check STORE` on a pseudo-terminal of `cols` columns, without colour and
/// without `COLUMNS` (bash does not export it); `None` without the `script` tool.
fn report_on_a_terminal(store: &str, cols: u16) -> Option<String> {
    let out = script(&format!(
        "stty rows 50 cols {cols}; \"$VERCY\" check {store}"
    ))?
    .current_dir(root())
    .env("NO_COLOR", "1")
    .env_remove("COLUMNS")
    .output()
    .unwrap();
    Some(String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n"))
}

#[test]
fn the_human_report_wraps_at_the_terminals_width_unless_columns_says() {
    let store = "fixtures/values/messy-500.jsonl";
    let Some(narrow) = report_on_a_terminal(store, 60) else {
        return;
    };
    let piped = |columns: Option<&str>| {
        let mut cmd = vercy();
        if let Some(c) = columns {
            cmd.env("COLUMNS", c);
        } else {
            cmd.env_remove("COLUMNS");
        }
        let out = cmd
            .env("NO_COLOR", "1")
            .args(["check", store])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(
        narrow,
        piped(Some("60")),
        "a 60-column terminal wraps at 60"
    );
    assert_ne!(narrow, piped(None), "a pipe wraps at 100");
    assert_eq!(report_on_a_terminal(store, 100).unwrap(), piped(None));
}

#[test]
fn term_dumb_and_clicolor_0_turn_colour_off_on_a_terminal() {
    let Some(plain_terminal) = diagnostic_on_a_terminal(&[]) else {
        return;
    };
    assert!(
        plain_terminal.contains(ESC),
        "no colour on a terminal: {plain_terminal}"
    );
    for env in [[("TERM", "dumb")], [("CLICOLOR", "0")]] {
        let out = diagnostic_on_a_terminal(&env).unwrap();
        assert!(!out.contains(ESC), "{env:?}: {out}");
        assert!(out.contains("bad-line-middle.jsonl:4:77"), "{env:?}: {out}");
    }
    // CLICOLOR=1 is the default, and CLICOLOR_FORCE still forces
    assert!(diagnostic_on_a_terminal(&[("CLICOLOR", "1")])
        .unwrap()
        .contains(ESC));
    let forced = diagnostic_on_a_terminal(&[("TERM", "dumb"), ("CLICOLOR_FORCE", "1")]).unwrap();
    assert!(forced.contains(ESC), "{forced}");
}

#[test]
fn help_examples_stay_one_command_per_line_at_any_width() {
    let mut checked = 0;
    for sub in vercy::cli::Cli::command().get_subcommands() {
        let name = sub.get_name();
        let after = sub
            .get_after_help()
            .map(|h| h.to_string())
            .unwrap_or_default();
        let examples: Vec<&str> = after.lines().filter(|l| l.starts_with("  ")).collect();
        for columns in ["30", "60", "200"] {
            for flag in ["-h", "--help"] {
                let out = vercy()
                    .args([name, flag])
                    .env("COLUMNS", columns)
                    .output()
                    .unwrap();
                let help = String::from_utf8_lossy(&out.stdout);
                for example in &examples {
                    assert!(
                        help.lines().any(|l| l == *example),
                        "vercy {name} {flag} at {columns} columns breaks {example:?}:\n{help}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 60, "{checked}");
    // the rest of the help is still wrapped to the width
    let narrow = vercy()
        .args(["recency", "--help"])
        .env("COLUMNS", "40")
        .output()
        .unwrap();
    let narrow = String::from_utf8_lossy(&narrow.stdout);
    assert!(
        narrow.lines().any(|l| l.trim() == "(default: now)"),
        "{narrow}"
    );
}
