//! Replays every input kept in `tests/fuzz-corpus/<target>/` (crashes fuzzing found, and the
//! small inputs that reached new code) through the same checks the fuzz targets run
//! (`tests/cli/fuzz_checks.rs`), plus the fixtures. CI runs this corpus, not the fuzzer; see
//! the README's "Fuzzing" section to grow it.

use crate::fuzz_checks;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Longer than any input here may take; past it, the input is reported as a hang.
const HANG: Duration = Duration::from_secs(60);

/// Run `check` on every file, and name every file it panics or hangs on (a hung input's
/// thread is left behind; the test fails naming it instead of never ending).
fn replay(check: fuzz_checks::Check, files: &[PathBuf]) -> Vec<String> {
    let mut failed = Vec::new();
    for file in files {
        let bytes = std::fs::read(file).unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(catch_unwind(AssertUnwindSafe(|| check(&bytes))).is_ok());
        });
        match rx.recv_timeout(HANG) {
            Ok(true) => {}
            Ok(false) | Err(RecvTimeoutError::Disconnected) => {
                failed.push(format!("{} (panicked)", file.display()))
            }
            Err(RecvTimeoutError::Timeout) => {
                failed.push(format!("{} (still running after {HANG:?})", file.display()))
            }
        }
    }
    failed
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_kept_fuzz_input_passes_its_target() {
    let mut failed = Vec::new();
    let mut replayed = 0;
    for (target, check) in fuzz_checks::TARGETS {
        let files = files_in(&root().join("tests/fuzz-corpus").join(target));
        replayed += files.len();
        failed.extend(replay(check, &files));
    }
    assert!(
        failed.is_empty(),
        "fuzz regressions:\n  {}",
        failed.join("\n  ")
    );
    assert!(replayed > 0, "tests/fuzz-corpus is empty");
}

#[test]
fn every_fixture_passes_the_store_and_check_targets() {
    let mut files = Vec::new();
    for dir in [
        "fixtures",
        "fixtures/bad",
        "fixtures/edge",
        "fixtures/quirks",
    ] {
        files.extend(files_in(&root().join(dir)));
    }
    let failed: Vec<String> = [fuzz_checks::store_read, fuzz_checks::check_bytes]
        .into_iter()
        .flat_map(|check| replay(check, &files))
        .collect();
    assert!(
        failed.is_empty(),
        "fixtures that break a target:\n  {}",
        failed.join("\n  ")
    );
}

#[test]
fn the_fuzz_targets_and_the_checks_list_the_same_names() {
    let manifest = std::fs::read_to_string(root().join("fuzz/Cargo.toml")).unwrap();
    for (target, _) in fuzz_checks::TARGETS {
        assert!(
            manifest.contains(&format!("name = \"{target}\"")),
            "fuzz/Cargo.toml has no target {target}"
        );
        let source = root().join(format!("fuzz/fuzz_targets/{target}.rs"));
        let text = std::fs::read_to_string(&source).unwrap();
        assert!(
            text.contains(&format!("checks::{target}(data)")),
            "{}",
            source.display()
        );
    }
}
