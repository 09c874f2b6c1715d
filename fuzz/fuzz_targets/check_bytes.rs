//! Fuzz target `check_bytes`: the property lives in tests/cli/fuzz_checks.rs (shared with the
//! regression test that replays tests/fuzz-corpus/check_bytes/ in `cargo test`).
#![no_main]

#[path = "../../tests/cli/fuzz_checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::check_bytes(data));
