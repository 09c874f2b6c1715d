//! Fuzz target `compact_line`: the property lives in tests/cli/fuzz_checks.rs (shared with the
//! regression test that replays tests/fuzz-corpus/compact_line/ in `cargo test`).
#![no_main]

#[path = "../../tests/cli/fuzz_checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::compact_line(data));
