//! `vercy check` against the published reference checker (vercy 0.2.0 on PyPI), side by side
//! on every fixture, on 400 generated stores and on 180 stores in the classes where Python's
//! reading is not plain JSON's (tests/parity/parity.py, `python_store`): exit code, records,
//! level, pass and findings must be identical, or the store is one of the README's deliberate
//! differences behaving as its table says, or the reference crashed on it. scripts/test
//! installs the reference (VERCY_REFERENCE_BIN names another).

use crate::common;
use std::path::PathBuf;
use std::process::Command;

#[test]
fn check_agrees_with_the_reference_checker() {
    let (Some(reference), Some(python)) = (common::reference_checker(), common::program("python3"))
    else {
        return;
    };
    let ours = PathBuf::from(env!("CARGO_BIN_EXE_vercy"));
    let out = Command::new(python)
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
