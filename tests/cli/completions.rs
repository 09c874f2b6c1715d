//! `vercy completions SHELL` prints a script the shell accepts, generated from the same clap
//! definitions as the man pages.

use assert_cmd::Command;

fn script(shell: &str) -> String {
    let out = Command::cargo_bin("vercy")
        .unwrap()
        .args(["completions", shell])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "vercy completions {shell}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_shell_gets_a_script_naming_every_subcommand() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let s = script(shell);
        for sub in [
            "check", "compact", "export", "import", "decay", "recency", "status",
        ] {
            assert!(s.contains(sub), "{shell} completions lack {sub}");
        }
    }
}

#[test]
fn bash_loads_the_script_and_completes_subcommands() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vercy.bash");
    std::fs::write(&path, script("bash")).unwrap();
    // complete `vercy ch` the way bash would, through the registered function
    let probe = format!(
        "source '{}' && COMP_WORDS=(vercy ch) COMP_CWORD=1 COMP_LINE='vercy ch' COMP_POINT=8 \
         && $(complete -p vercy | sed -E 's/.*-F ([^ ]+).*/\\1/') vercy ch vercy \
         && printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        path.display()
    );
    let out = std::process::Command::new("bash")
        .args(["--norc", "-c", &probe])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.lines().any(|l| l == "check"),
        "bash completed `vercy ch` to {stdout:?}; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let out = Command::cargo_bin("vercy")
        .unwrap()
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values"));
}

/// What bash offers for the last word of `line` through vercy's completion function.
fn bash_completes(line: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vercy.bash");
    std::fs::write(&path, script("bash")).unwrap();
    let words: Vec<&str> = line.split(' ').collect();
    let probe = format!(
        "source '{}' && COMP_WORDS=({}) COMP_CWORD={} COMP_LINE='{line}' COMP_POINT={} \
         && $(complete -p vercy | sed -E 's/.*-F ([^ ]+).*/\\1/') vercy '{}' '{}' \
         && printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        path.display(),
        words.join(" "),
        words.len() - 1,
        line.len(),
        words[words.len() - 1],
        words[words.len() - 2],
    );
    let out = std::process::Command::new("bash")
        .args(["--norc", "-c", &probe])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn map_completes_the_named_maps_and_still_takes_role_path_pairs() {
    assert_eq!(
        bash_completes("vercy check store.jsonl --map gr"),
        ["graphiti"]
    );
    let all = bash_completes("vercy compact store.jsonl --map ");
    for name in ["graphiti", "zep", "mem0", "engrama", "dimension", "profile"] {
        assert!(all.iter().any(|w| w == name), "{name} not in {all:?}");
    }
    // the possible values are offered, not enforced
    let out = Command::cargo_bin("vercy")
        .unwrap()
        .args([
            "check",
            "fixtures/graph-edges.jsonl",
            "--map",
            "record_id=uuid,valid_from=valid_at,valid_to=invalid_at,source=episode",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}
