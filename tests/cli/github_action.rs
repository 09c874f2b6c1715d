//! `action.yml`, the composite GitHub Action: its inputs are declared, reach the steps through
//! env (never spliced into a script), and the check step's own script, run by bash as the
//! runner would with the inputs put in, checks the stores given with the level, map and format
//! given. The install step builds this checkout with pip, as .ci/ecosystem.sh's pre-commit test
//! already does, so it is read here, not run.

use crate::common::git;
use serde_json::Value;
use serde_yaml::Value as Yaml;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn action() -> Yaml {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml");
    serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).expect("action.yml is YAML")
}

fn steps(action: &Yaml) -> Vec<Yaml> {
    assert_eq!(action["runs"]["using"].as_str(), Some("composite"));
    action["runs"]["steps"].as_sequence().unwrap().clone()
}

fn step(action: &Yaml, name: &str) -> Yaml {
    steps(action)
        .into_iter()
        .find(|s| s["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("no step {name:?}"))
}

/// The input a `${{ inputs.NAME }}` expression names, if that is all the value is.
fn input_of(expression: &str) -> Option<&str> {
    expression
        .trim()
        .strip_prefix("${{")?
        .strip_suffix("}}")?
        .trim()
        .strip_prefix("inputs.")
}

#[test]
fn the_inputs_are_declared_with_their_defaults() {
    let a = action();
    let inputs = a["inputs"].as_mapping().unwrap();
    let input = |n: &str| &inputs[&Yaml::from(n)];
    assert_eq!(input("stores")["required"].as_bool(), Some(true));
    assert_eq!(input("min-level")["default"].as_str(), Some("1"));
    assert_eq!(input("map")["default"].as_str(), Some(""));
    assert_eq!(input("format")["default"].as_str(), Some("github"));
    assert_eq!(input("base")["default"].as_str(), Some(""));
    for (name, spec) in inputs {
        assert!(
            spec["description"].as_str().is_some_and(|d| !d.is_empty()),
            "input {name:?} has no description"
        );
    }
}

#[test]
fn every_input_reaches_a_step_through_env_and_no_script_splices_one() {
    let a = action();
    let mut used = Vec::new();
    for s in steps(&a) {
        let run = s["run"].as_str().unwrap_or_default();
        assert!(
            !run.contains("${{"),
            "step {:?} splices an expression into its script",
            s["name"]
        );
        for (var, value) in s["env"].as_mapping().into_iter().flatten() {
            let (var, value) = (var.as_str().unwrap(), value.as_str().unwrap());
            let input = input_of(value).unwrap_or_else(|| panic!("{var}: {value}"));
            assert!(run.contains(&format!("${var}")), "{var} is never read");
            used.push(input.to_string());
        }
    }
    for name in a["inputs"].as_mapping().unwrap().keys() {
        let name = name.as_str().unwrap();
        assert!(used.iter().any(|u| u == name), "input {name:?} is unused");
    }
    let install = step(&a, "Install vercy");
    let run = install["run"].as_str().unwrap();
    assert!(run.contains("GITHUB_PATH") && run.contains("pip\" install"));
}

/// Run the check step's script with these inputs (the rest at their defaults), as the runner
/// would: bash, the step's env filled in, the vercy under test first on PATH.
fn check_step(given: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let runner_temp = tempfile::tempdir().unwrap();
    check_step_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        given,
        runner_temp.path(),
    )
}

/// [`check_step`] in the folder `dir` (a repository of its own), with `RUNNER_TEMP` (the
/// runner's temporary folder) at `runner_temp`.
fn check_step_in(
    dir: &Path,
    given: &[(&str, &str)],
    runner_temp: &Path,
) -> (Option<i32>, String, String) {
    let a = action();
    let inputs: BTreeMap<String, String> = a["inputs"]
        .as_mapping()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let name = k.as_str().unwrap();
            let value = given
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
                .unwrap_or_else(|| v["default"].as_str().unwrap_or_default().to_string());
            (name.to_string(), value)
        })
        .collect();
    let s = step(&a, "Check the stores");
    assert_eq!(s["shell"].as_str(), Some("bash"));
    let bin = assert_cmd::cargo::cargo_bin("vercy");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("bash");
    cmd.args([
        "--noprofile",
        "--norc",
        "-e",
        "-c",
        s["run"].as_str().unwrap(),
    ])
    .current_dir(dir)
    .env("PATH", path)
    .env("RUNNER_TEMP", runner_temp);
    for (var, value) in s["env"].as_mapping().unwrap() {
        let input = input_of(value.as_str().unwrap()).unwrap();
        cmd.env(var.as_str().unwrap(), &inputs[input]);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_store_at_the_level_passes_with_annotations() {
    let (code, out, err) = check_step(&[
        ("stores", "fixtures/reference-store.jsonl"),
        ("min-level", "3"),
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("::notice file=fixtures/reference-store.jsonl")),
        "{out}"
    );
    assert!(!out.contains("::error"), "{out}");
}

#[test]
fn globs_and_newlines_the_map_and_the_level_reach_vercy() {
    let (code, out, err) = check_step(&[
        (
            "stores",
            "fixtures/reference-store.jsonl\n  fixtures/formats/mem0_*.jsonl",
        ),
        ("min-level", "2"),
        ("map", "mem0"),
    ]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("::error file=fixtures/formats/mem0_memories.jsonl"),
        "{out}"
    );
    assert!(out.contains("file=fixtures/reference-store.jsonl"), "{out}");
    // mem0's map names the offenders by their ids; without it they would be #0, #1, #2
    assert!(
        out.contains("87986bc4-97d3-4720-9d90-7ab5ca9ad0d7"),
        "{out}"
    );
}

#[test]
fn the_format_reaches_vercy() {
    let (code, out, err) = check_step(&[
        ("stores", "fixtures/formats/mem0_memories.jsonl"),
        ("min-level", "2"),
        ("format", "json"),
        ("map", "record_id=id"),
    ]);
    assert_eq!(code, Some(1), "{err}");
    let report: Value = serde_json::from_str(&out).expect("the json format");
    assert_eq!(report["min_level"], 2, "{out}");
    assert_eq!(report["mapping"]["record_id"], "id", "{out}");
}

#[test]
fn a_store_path_is_data_not_shell() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let hostile = format!("no-such-$(touch {}).jsonl", marker.display());
    let (code, _, err) = check_step(&[("stores", &hostile)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no-such-$(touch"), "{err}");
    assert!(!marker.exists(), "the store input ran as a command");
}

#[test]
fn the_base_input_compares_each_store_with_the_base_revision() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/diff");
    git(repo, &["init", "-q", "-b", "main"]);
    std::fs::create_dir(repo.join("memory")).unwrap();
    for store in ["a.jsonl", "b.jsonl"] {
        std::fs::copy(fixtures.join("base.jsonl"), repo.join("memory").join(store)).unwrap();
    }
    git(repo, &["add", "."]);
    git(repo, &["commit", "-q", "-m", "base"]);
    // a only adds; a store the base does not hold is skipped
    std::fs::copy(
        fixtures.join("clean.head.jsonl"),
        repo.join("memory/a.jsonl"),
    )
    .unwrap();
    std::fs::copy(fixtures.join("base.jsonl"), repo.join("memory/new.jsonl")).unwrap();
    let given = [("stores", "memory/*.jsonl"), ("base", "main")];
    let (code, out, err) = check_step_in(repo, &given, dir.path());
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(err.contains("memory/new.jsonl is not in main"), "{err}");
    assert!(out.contains("pass: history was only added to"), "{out}");
    // b's R-1 ended by hand: the step fails, annotated on b's line
    std::fs::copy(
        fixtures.join("end_written.head.jsonl"),
        repo.join("memory/b.jsonl"),
    )
    .unwrap();
    let (code, out, err) = check_step_in(repo, &given, dir.path());
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("::error file=memory/b.jsonl,line=1,title=history.end_written::"),
        "{out}"
    );
    // without base, the same stores pass the check alone
    let (code, out, err) = check_step_in(repo, &[("stores", "memory/*.jsonl")], dir.path());
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(!out.contains("history."), "{out}");
}

#[test]
fn html_true_writes_the_page_the_upload_step_takes_and_keeps_the_outcome() {
    let a = action();
    assert_eq!(a["inputs"]["html"]["default"].as_str(), Some("false"));
    let upload = step(&a, "Upload the HTML report");
    assert!(upload["uses"]
        .as_str()
        .is_some_and(|u| u.starts_with("actions/upload-artifact@")));
    let when = upload["if"].as_str().unwrap();
    assert!(
        when.contains("always()") && when.contains("inputs.html == 'true'"),
        "{when}"
    );
    assert_eq!(
        upload["with"]["path"].as_str(),
        Some("${{ runner.temp }}/vercy-report/report.html")
    );
    let temp = tempfile::tempdir().unwrap();
    let page = temp.path().join("vercy-report/report.html");
    // below the level: the step fails as it would without the page, and the page is there
    let (code, out, err) = check_step_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            ("stores", "fixtures/html/timeline.jsonl"),
            ("min-level", "2"),
            ("html", "true"),
        ],
        temp.path(),
    );
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("::error") || out.contains("::warning"),
        "{out}"
    );
    let html = std::fs::read_to_string(&page).expect("the page for the artifact");
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("data-concept=\"alpha\""));
    // without html: no page
    let temp = tempfile::tempdir().unwrap();
    let (code, _, _) = check_step_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &[("stores", "fixtures/reference-store.jsonl")],
        temp.path(),
    );
    assert_eq!(code, Some(0));
    assert!(!temp.path().join("vercy-report").exists());
}
