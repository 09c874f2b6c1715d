//! `check` end to end on arbitrary bytes: read, both rule sets, every output format. It ends
//! with a report or an error; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vercy::check::{check_store, format, Options};
use vercy::mapping::FieldMap;
use vercy::store::Input;

fuzz_target!(|data: &[u8]| {
    // the first byte picks the options, so strict mode, the policy flag and maps are covered
    let (&flags, body) = data.split_first().unwrap_or((&0, &[]));
    let map = match flags % 4 {
        0 => FieldMap::identity(),
        1 => FieldMap::parse(&["engrama".to_string()]).unwrap(),
        2 => FieldMap::parse(&["graphiti".to_string()]).unwrap(),
        _ => FieldMap::parse(&["record_id=id,valid_from=a.b,supersedes=~replaced_by,release_to=r[].p".to_string()]).unwrap(),
    };
    let opts = Options {
        map_given: flags % 4 != 0,
        map,
        policy_outside_records: flags & 4 != 0,
        min_level: 1 + (flags >> 3) % 3,
        strict: flags & 32 != 0,
        expected: if flags & 64 != 0 { vec!["retention".into(), "".into()] } else { vec![] },
    };
    let input = Input::from_bytes("fuzz.jsonl", body.to_vec());
    if let Ok(report) = check_store(&input, &opts) {
        let reports = [report];
        for f in [format::Format::Human, format::Format::Json, format::Format::Github, format::Format::Sarif] {
            let _ = format::render(f, &reports, flags & 128 != 0);
        }
    }
});
