//! Fuzz target `date_parse`: the property lives in tests/cli/fuzz_checks.rs (shared with the
//! regression test that replays tests/fuzz-corpus/date_parse/ in `cargo test`).
#![no_main]

#[path = "../../tests/cli/fuzz_checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::date_parse(data));
