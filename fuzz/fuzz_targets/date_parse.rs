//! The one date parser on arbitrary text and numbers: a timestamp or an error, never a panic
//! or an overflow; a parsed value's interval is never inverted.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vercy::time::{parse, parse_value, Precision};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(ts) = parse(text) {
        assert!(ts.start() <= ts.end());
        let _ = ts.seconds();
        if ts.precision == Precision::Date {
            // a date and the same date at midnight UTC name the same instant
            let day = text.trim();
            let at = parse(&format!("{day}T00:00:00Z")).expect("a date's midnight parses");
            assert_eq!(at.nanos, ts.nanos);
        }
    }
    if let Ok(n) = serde_json::from_str::<serde_json::Value>(text) {
        let _ = parse_value(&n);
    }
});
