//! `vercy check` against the published reference checker (vercy 0.2.0 on PyPI), side by side
//! on every fixture, on 400 generated stores and on 180 stores in the classes where Python's
//! reading is not plain JSON's (tests/parity/parity.py, `python_store`): exit code, records,
//! level, pass and findings must be identical, or the store is one of the README's deliberate
//! differences behaving as its table says, or the reference crashed on it. `.ci/run` installs the reference; set VERCY_REFERENCE_BIN to
//! point at another install. Without one, the test says so and checks nothing else.

use std::path::PathBuf;
use std::process::Command;

fn reference_bin() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("VERCY_REFERENCE_BIN") {
        return Some(PathBuf::from(p));
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    [
        root.join("target/ref-venv/bin/vercy"),
        root.join("../venv/bin/vercy"),
    ]
    .into_iter()
    .find(|p| p.exists())
}

#[test]
fn check_agrees_with_the_reference_checker() {
    let Some(reference) = reference_bin() else {
        eprintln!("skipped: the reference checker (pip install vercy==0.2.0) is not installed; .ci/run installs it");
        return;
    };
    let ours = PathBuf::from(env!("CARGO_BIN_EXE_vercy"));
    let out = Command::new("python3")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tests/parity/parity.py",
            "--count",
            "400",
            "--seed",
            "20261129",
            // the classes of Python's reading and the README's deliberate differences
            "--python-count",
            "180",
            "--vercy-bin",
        ])
        .arg(&ours)
        .arg("--ref-bin")
        .arg(&reference)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout
        .lines()
        .rfind(|l| l.contains(" passed, "))
        .unwrap_or("");
    assert!(
        out.status.success(),
        "parity failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(last.contains(" 0 failed"), "{last}\n{stdout}");
    // every class was generated and read: the counts line names each verdict
    assert!(
        stdout.contains(" identical, ") && stdout.contains(" 0 mismatch"),
        "{stdout}"
    );
}
