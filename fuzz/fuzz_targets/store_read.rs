//! Fuzz target `store_read`: the property lives in tests/cli/fuzz_checks.rs (shared with the
//! regression test that replays tests/fuzz-corpus/store_read/ in `cargo test`).
#![no_main]

#[path = "../../tests/cli/fuzz_checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::store_read(data));
