//! Fuzz target `field_map`: the property lives in tests/cli/fuzz_checks.rs (shared with the
//! regression test that replays tests/fuzz-corpus/field_map/ in `cargo test`).
#![no_main]

#[path = "../../tests/cli/fuzz_checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::field_map(data));
