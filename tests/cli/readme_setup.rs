//! The README's "Set up" section is what `scripts/newcomer-check.sh` runs on a fresh clone.
//! This keeps it honest without the clone: exactly two commands (install-and-check, then the
//! test suite), the files they name exist, and the `vercy …` part succeeds as written.

use std::path::Path;
use std::process::Command;

fn setup_commands() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("bash")
        .arg(root.join("scripts/newcomer-check.sh"))
        .arg("--print")
        .output()
        .expect("bash runs the newcomer script");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_readme_sets_up_with_two_commands() {
    let commands = setup_commands();
    assert_eq!(
        commands.len(),
        2,
        "the README's Set up section: {commands:?}"
    );
    assert!(
        commands[0].starts_with("cargo install --locked --path ."),
        "{}",
        commands[0]
    );
    assert_eq!(commands[1], "scripts/test");
}

#[test]
fn the_readme_check_runs_as_written_and_passes() {
    let commands = setup_commands();
    let check = commands[0]
        .split("&&")
        .map(str::trim)
        .find(|c| c.starts_with("vercy "))
        .expect("the first command runs vercy after installing it");
    let args: Vec<&str> = check.split_whitespace().skip(1).collect();
    for arg in args.iter().filter(|a| !a.starts_with('-')).skip(1) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(arg);
        assert!(
            path.exists(),
            "the README names {arg}, which is not in the repository"
        );
    }
    let out = assert_cmd::Command::cargo_bin("vercy")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(&args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "`{check}` fails for a newcomer:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
